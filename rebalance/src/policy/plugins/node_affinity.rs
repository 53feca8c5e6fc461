//! `RemovePodsViolatingNodeAffinity` plugin arguments, their defaults and validation.
//!
//! Source: descheduler v0.36 `pkg/framework/plugins/removepodsviolatingnodeaffinity/` (`types.go`,
//! `validation.go`, `defaults.go`); descheduler-plugins.md §2.1. No field has
//! a default. An unknown `nodeAffinityType` entry passes validation (upstream
//! logs "Invalid nodeAffinityType" at run time and skips it).

use serde::Serialize;
use serde_yaml::Value;

use super::PodScope;
use crate::policy::error::{validated, PolicyError};
use crate::policy::reader::{mapping, strings, Obj};

/// `requiredDuringSchedulingIgnoredDuringExecution`.
pub const REQUIRED_DURING_SCHEDULING: &str = "requiredDuringSchedulingIgnoredDuringExecution";
/// `preferredDuringSchedulingIgnoredDuringExecution`.
pub const PREFERRED_DURING_SCHEDULING: &str = "preferredDuringSchedulingIgnoredDuringExecution";

const FIELDS: [&str; 3] = ["namespaces", "labelSelector", "nodeAffinityType"];

/// `RemovePodsViolatingNodeAffinity` args. Source: descheduler v0.36 `RemovePodsViolatingNodeAffinityArgs`.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct RemovePodsViolatingNodeAffinityArgs {
    /// `namespaces` and `labelSelector`.
    #[serde(flatten)]
    pub scope: PodScope,
    /// `nodeAffinityType`: one pass over the nodes per entry, in order
    /// (`REQUIRED_DURING_SCHEDULING`, `PREFERRED_DURING_SCHEDULING`; others are skipped).
    pub node_affinity_type: Vec<String>,
}

impl RemovePodsViolatingNodeAffinityArgs {
    /// Reads the `args` mapping (`None` when the entry has no `args`),
    /// rejecting unknown fields with their path.
    pub(crate) fn read(o: Option<&Obj<'_>>) -> Result<RemovePodsViolatingNodeAffinityArgs, PolicyError> {
        let Some(o) = o else {
            return Ok(RemovePodsViolatingNodeAffinityArgs::default());
        };
        o.only(&FIELDS)?;
        Ok(RemovePodsViolatingNodeAffinityArgs {
            scope: PodScope::read(o)?,
            node_affinity_type: o.str_list("nodeAffinityType")?,
        })
    }

    /// descheduler v0.36's validation: every error, aggregated as upstream
    /// prints them (one as itself, several as `[a, b]`): "nodeAffinityType
    /// needs to be set", then the namespaces check.
    pub fn validate(&self) -> Result<(), String> {
        let mut errs = Vec::new();
        if self.node_affinity_type.is_empty() {
            errs.push("nodeAffinityType needs to be set".to_string());
        }
        errs.extend(self.scope.validate());
        validated(&errs)
    }

    /// The args as YAML (`None` writes no `args`).
    pub(crate) fn to_value(&self) -> Option<Value> {
        if *self == RemovePodsViolatingNodeAffinityArgs::default() {
            return None;
        }
        let mut pairs = self.scope.pairs();
        pairs.push((
            "nodeAffinityType",
            (!self.node_affinity_type.is_empty()).then(|| strings(&self.node_affinity_type)),
        ));
        Some(mapping(pairs))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::pod::LabelSelector;
    use crate::policy::plugins::test_support::*;
    use crate::policy::{Namespaces, PluginArgs, Policy};

    fn policy(args: &str) -> String {
        one_plugin_policy("RemovePodsViolatingNodeAffinity", "deschedule", args)
    }

    fn args_of(p: &Policy) -> &RemovePodsViolatingNodeAffinityArgs {
        match p.profiles[0].plugin_args("RemovePodsViolatingNodeAffinity") {
            Some(PluginArgs::RemovePodsViolatingNodeAffinity(a)) => a,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn reads_round_trips_and_rejects_unknown_fields() {
        let text = policy(
            "    args:\n      nodeAffinityType: [requiredDuringSchedulingIgnoredDuringExecution, preferredDuringSchedulingIgnoredDuringExecution]\n      namespaces: {exclude: [kube-system]}\n      labelSelector: {matchLabels: {app: web}}\n",
        );
        let p = Policy::from_yaml(&text).expect("valid");
        let a = args_of(&p);
        assert_eq!(a.node_affinity_type, [REQUIRED_DURING_SCHEDULING, PREFERRED_DURING_SCHEDULING]);
        assert_eq!(a.scope.namespaces, Some(Namespaces { include: vec![], exclude: vec!["kube-system".into()] }));
        assert_eq!(a.scope.label_selector.as_ref().map(|s| s.match_labels.len()), Some(1));
        let back = Policy::from_yaml(&p.to_yaml().expect("yaml")).expect("reads back");
        assert_eq!(back, p);
        let err = Policy::from_yaml(&policy("    args:\n      nodeAffinityTypes: [x]\n")).expect_err("unknown");
        assert_eq!(
            err.to_string(),
            "profiles[0].pluginConfig[0].args.nodeAffinityTypes: unknown field (expected one of: namespaces, labelSelector, nodeAffinityType)"
        );
        // No args at all: nothing to default, and validation refuses it.
        let err = Policy::from_yaml(&policy("")).expect_err("invalid");
        assert_eq!(err.to_string(), "in profile p: nodeAffinityType needs to be set");
        assert_eq!(RemovePodsViolatingNodeAffinityArgs::read(None), Ok(RemovePodsViolatingNodeAffinityArgs::default()));
    }

    /// descheduler v0.36 `validation_test.go` TestValidateRemovePodsViolatingNodeAffinityArgs (5 cases).
    #[test]
    fn upstream_validation_vectors() {
        let ns = |inc: &[&str], exc: &[&str]| {
            Some(Namespaces {
                include: inc.iter().map(|s| s.to_string()).collect(),
                exclude: exc.iter().map(|s| s.to_string()).collect(),
            })
        };
        let req = vec![REQUIRED_DURING_SCHEDULING.to_string()];
        let cases: Vec<(&str, RemovePodsViolatingNodeAffinityArgs, Option<&str>)> = vec![
            ("nil NodeAffinityType", Default::default(), Some("nodeAffinityType needs to be set")),
            ("empty NodeAffinityType", Default::default(), Some("nodeAffinityType needs to be set")),
            (
                "valid",
                RemovePodsViolatingNodeAffinityArgs { node_affinity_type: req.clone(), ..Default::default() },
                None,
            ),
            (
                "invalid namespaces",
                RemovePodsViolatingNodeAffinityArgs {
                    node_affinity_type: req,
                    scope: PodScope { namespaces: ns(&["default"], &["kube-system"]), label_selector: None },
                },
                Some("only one of Include/Exclude namespaces can be set"),
            ),
            (
                "empty type and invalid namespaces",
                RemovePodsViolatingNodeAffinityArgs {
                    node_affinity_type: vec![],
                    scope: PodScope { namespaces: ns(&["default"], &["kube-system"]), label_selector: None },
                },
                Some("[nodeAffinityType needs to be set, only one of Include/Exclude namespaces can be set]"),
            ),
        ];
        let cases: Vec<_> = cases.into_iter().map(|(name, args, want)| (name, Some(args), want)).collect();
        validation_vectors("RemovePodsViolatingNodeAffinity", &cases, |a| a.validate());
    }

    /// descheduler v0.36 `defaults_test.go` TestSetDefaults_RemovePodsViolatingNodeAffinityArgs (2
    /// cases): defaulting changes nothing, empty and set values alike; and
    /// what is read is written back the same.
    #[test]
    fn upstream_defaults_vectors() {
        let read = |yaml: &str| read_yaml(yaml, RemovePodsViolatingNodeAffinityArgs::read);
        assert_eq!(RemovePodsViolatingNodeAffinityArgs::read(None), Ok(RemovePodsViolatingNodeAffinityArgs::default()));
        assert_eq!(read("{}"), RemovePodsViolatingNodeAffinityArgs::default());
        let set = read("namespaces: {}\nlabelSelector: {}\n");
        assert_eq!(
            set,
            RemovePodsViolatingNodeAffinityArgs {
                scope: PodScope {
                    namespaces: Some(Namespaces::default()),
                    label_selector: Some(LabelSelector::default())
                },
                node_affinity_type: vec![],
            }
        );
        let back = set.to_value().expect("written");
        assert_eq!(read_value(&back, RemovePodsViolatingNodeAffinityArgs::read), Ok(set));
        println!("upstream vectors RemovePodsViolatingNodeAffinity defaults: 2 ported, 2 passed, 0 skipped");
    }
}
