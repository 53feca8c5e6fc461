//! `RemovePodsViolatingInterPodAntiAffinity` plugin arguments, their defaults and validation.
//!
//! Source: descheduler v0.36 `pkg/framework/plugins/removepodsviolatinginterpodantiaffinity/` (`types.go`,
//! `validation.go`, `defaults.go`); descheduler-plugins.md §2.3. Only the
//! shared `namespaces` and `labelSelector`; no defaults.

use serde::Serialize;
use serde_yaml::Value;

use super::PodScope;
use crate::policy::error::{validated, PolicyError};
use crate::policy::reader::{mapping, Obj};

const FIELDS: [&str; 2] = ["namespaces", "labelSelector"];

/// `RemovePodsViolatingInterPodAntiAffinity` args. Source: descheduler v0.36 `RemovePodsViolatingInterPodAntiAffinityArgs`.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct RemovePodsViolatingInterPodAntiAffinityArgs {
    /// `namespaces` and `labelSelector`: they limit both the candidates and
    /// the pods they are checked against.
    #[serde(flatten)]
    pub scope: PodScope,
}

impl RemovePodsViolatingInterPodAntiAffinityArgs {
    /// Reads the `args` mapping (`None` when the entry has no `args`),
    /// rejecting unknown fields with their path.
    pub(crate) fn read(o: Option<&Obj<'_>>) -> Result<RemovePodsViolatingInterPodAntiAffinityArgs, PolicyError> {
        let Some(o) = o else {
            return Ok(RemovePodsViolatingInterPodAntiAffinityArgs::default());
        };
        o.only(&FIELDS)?;
        Ok(RemovePodsViolatingInterPodAntiAffinityArgs { scope: PodScope::read(o)? })
    }

    /// descheduler v0.36's validation: every error, aggregated as upstream
    /// prints them (one as itself, several as `[a, b]`).
    pub fn validate(&self) -> Result<(), String> {
        let errs = self.scope.validate();
        validated(&errs)
    }

    /// The args as YAML (`None` writes no `args`).
    pub(crate) fn to_value(&self) -> Option<Value> {
        if *self == RemovePodsViolatingInterPodAntiAffinityArgs::default() {
            return None;
        }
        Some(mapping(self.scope.pairs()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::pod::LabelSelector;
    use crate::policy::plugins::test_support::*;
    use crate::policy::{Namespaces, PluginArgs, Policy};

    fn policy(args: &str) -> String {
        one_plugin_policy("RemovePodsViolatingInterPodAntiAffinity", "deschedule", args)
    }

    #[test]
    fn reads_round_trips_and_rejects_unknown_fields() {
        let p = Policy::from_yaml(&policy(
            "    args:\n      namespaces: {exclude: [kube-system]}\n      labelSelector: {matchLabels: {tier: web}}\n",
        ))
        .expect("valid");
        let Some(PluginArgs::RemovePodsViolatingInterPodAntiAffinity(a)) =
            p.profiles[0].plugin_args("RemovePodsViolatingInterPodAntiAffinity")
        else {
            panic!("args")
        };
        assert_eq!(a.scope.label_selector, Some(LabelSelector::from_labels(&[("tier", "web")])));
        assert_eq!(Policy::from_yaml(&p.to_yaml().expect("yaml")).expect("back"), p);
        let p = Policy::from_yaml(&policy("")).expect("no args");
        assert_eq!(Policy::from_yaml(&p.to_yaml().expect("yaml")).expect("back"), p);
        let err = Policy::from_yaml(&policy("    args:\n      topologyKey: zone\n")).expect_err("unknown");
        assert_eq!(
            err.to_string(),
            "profiles[0].pluginConfig[0].args.topologyKey: unknown field (expected one of: namespaces, labelSelector)"
        );
    }

    /// descheduler v0.36 `validation_test.go`
    /// TestValidateRemovePodsViolatingInterPodAntiAffinityArgs (4 cases).
    #[test]
    fn upstream_validation_vectors() {
        let list = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let with = |ns: Option<(&[&str], &[&str])>, sel: Option<LabelSelector>| {
            Some(RemovePodsViolatingInterPodAntiAffinityArgs {
                scope: PodScope {
                    namespaces: ns.map(|(i, e)| Namespaces { include: list(i), exclude: list(e) }),
                    label_selector: sel,
                },
            })
        };
        type Case = (&'static str, Option<RemovePodsViolatingInterPodAntiAffinityArgs>, Option<&'static str>);
        let cases: Vec<Case> = vec![
            ("valid namespace args", with(Some((&["default"], &[])), None), None),
            (
                "invalid namespaces args",
                with(Some((&["default"], &["kube-system"])), None),
                Some("only one of Include/Exclude namespaces can be set"),
            ),
            (
                "valid label selector args",
                with(None, Some(LabelSelector::from_labels(&[("role.kubernetes.io/node", "")]))),
                None,
            ),
            // Skipped: kdrift's reader refuses `matchExpressions: [{operator: In}]`
            // when reading (the field path, "is required"), before validation;
            // upstream's apimachinery text is not reproduced.
            ("invalid label selector args", None, None),
        ];
        validation_vectors("RemovePodsViolatingInterPodAntiAffinity", &cases, |a| a.validate());
        selector_without_key_is_refused("RemovePodsViolatingInterPodAntiAffinity", "deschedule");
    }

    /// descheduler v0.36 `defaults_test.go` TestSetDefaults_RemovePodsViolatingInterPodAntiAffinityArgs (2
    /// cases): defaulting changes nothing, empty and set values alike; and
    /// what is read is written back the same.
    #[test]
    fn upstream_defaults_vectors() {
        let read = |yaml: &str| read_yaml(yaml, RemovePodsViolatingInterPodAntiAffinityArgs::read);
        assert_eq!(
            RemovePodsViolatingInterPodAntiAffinityArgs::read(None),
            Ok(RemovePodsViolatingInterPodAntiAffinityArgs::default())
        );
        assert_eq!(read("{}"), RemovePodsViolatingInterPodAntiAffinityArgs::default());
        let set = read("namespaces: {}\nlabelSelector: {}\n");
        assert_eq!(
            set,
            RemovePodsViolatingInterPodAntiAffinityArgs {
                scope: PodScope {
                    namespaces: Some(Namespaces::default()),
                    label_selector: Some(LabelSelector::default())
                },
            }
        );
        let back = set.to_value().expect("written");
        assert_eq!(read_value(&back, RemovePodsViolatingInterPodAntiAffinityArgs::read), Ok(set));
        println!("upstream vectors RemovePodsViolatingInterPodAntiAffinity defaults: 2 ported, 2 passed, 0 skipped");
    }
}
