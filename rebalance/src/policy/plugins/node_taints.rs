//! `RemovePodsViolatingNodeTaints` plugin arguments, their defaults and validation.
//!
//! Source: descheduler v0.36 `pkg/framework/plugins/removepodsviolatingnodetaints/` (`types.go`,
//! `validation.go`, `defaults.go`); descheduler-plugins.md §2.2. Defaults:
//! `includePreferNoSchedule: false`, no excluded or included taints. An
//! explicit `includedTaints: []` is kept apart from an absent one: upstream
//! decodes it to a non-nil empty list, so no taint is included.

use serde::Serialize;
use serde_yaml::Value;

use super::PodScope;
use crate::model::node::Taint;
use crate::policy::error::{validated, PolicyError};
use crate::policy::reader::{mapping, strings, Obj};

const FIELDS: [&str; 5] =
    ["namespaces", "labelSelector", "includePreferNoSchedule", "excludedTaints", "includedTaints"];

/// `RemovePodsViolatingNodeTaints` args. Source: descheduler v0.36 `RemovePodsViolatingNodeTaintsArgs`.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct RemovePodsViolatingNodeTaintsArgs {
    /// `namespaces` and `labelSelector`.
    #[serde(flatten)]
    pub scope: PodScope,
    /// `includePreferNoSchedule`: PreferNoSchedule taints count too (default false).
    pub include_prefer_no_schedule: bool,
    /// `excludedTaints`: `key` or `key=value` entries whose taints are ignored.
    pub excluded_taints: Vec<String>,
    /// `includedTaints`: only these `key` / `key=value` taints count;
    /// `None` (absent) counts every taint, `Some([])` none.
    pub included_taints: Option<Vec<String>>,
}

/// `key` or (with a value) `key=value` is listed. Source: descheduler v0.36
/// `New` (`excludeTaint` / `includeTaint`).
fn listed(set: &[String], taint: &Taint) -> bool {
    set.iter().any(|e| *e == taint.key || (!taint.value.is_empty() && *e == format!("{}={}", taint.key, taint.value)))
}

impl RemovePodsViolatingNodeTaintsArgs {
    /// Reads the `args` mapping (`None` when the entry has no `args`),
    /// rejecting unknown fields with their path.
    pub(crate) fn read(o: Option<&Obj<'_>>) -> Result<RemovePodsViolatingNodeTaintsArgs, PolicyError> {
        let Some(o) = o else {
            return Ok(RemovePodsViolatingNodeTaintsArgs::default());
        };
        o.only(&FIELDS)?;
        Ok(RemovePodsViolatingNodeTaintsArgs {
            scope: PodScope::read(o)?,
            include_prefer_no_schedule: o.bool("includePreferNoSchedule")?.unwrap_or(false),
            excluded_taints: o.str_list("excludedTaints")?,
            included_taints: match o.get("includedTaints") {
                Some(_) => Some(o.str_list("includedTaints")?),
                None => None,
            },
        })
    }

    /// descheduler v0.36's validation: every error, aggregated as upstream
    /// prints them (one as itself, several as `[a, b]`): the namespaces
    /// check, then "either includedTaints or excludedTaints can be set, but
    /// not both" (both non-empty).
    pub fn validate(&self) -> Result<(), String> {
        let mut errs = self.scope.validate();
        if !self.excluded_taints.is_empty() && self.included_taints.as_ref().is_some_and(|i| !i.is_empty()) {
            errs.push("either includedTaints or excludedTaints can be set, but not both".to_string());
        }
        validated(&errs)
    }

    /// Whether the plugin considers `taint` at all: excluded taints never,
    /// and with `includedTaints` only the included ones (the effect is
    /// checked by the planner).
    pub fn selects_taint(&self, taint: &Taint) -> bool {
        !listed(&self.excluded_taints, taint) && self.included_taints.as_ref().is_none_or(|i| listed(i, taint))
    }

    /// The args as YAML (`None` writes no `args`).
    pub(crate) fn to_value(&self) -> Option<Value> {
        if *self == RemovePodsViolatingNodeTaintsArgs::default() {
            return None;
        }
        let mut pairs = self.scope.pairs();
        pairs.push(("includePreferNoSchedule", self.include_prefer_no_schedule.then_some(Value::Bool(true))));
        pairs.push(("excludedTaints", (!self.excluded_taints.is_empty()).then(|| strings(&self.excluded_taints))));
        pairs.push(("includedTaints", self.included_taints.as_ref().map(|i| strings(i))));
        Some(mapping(pairs))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::node::TaintEffect;
    use crate::model::pod::LabelSelector;
    use crate::policy::plugins::test_support::*;
    use crate::policy::{Namespaces, PluginArgs, Policy};

    fn policy(args: &str) -> String {
        one_plugin_policy("RemovePodsViolatingNodeTaints", "deschedule", args)
    }

    fn args_of(p: &Policy) -> &RemovePodsViolatingNodeTaintsArgs {
        match p.profiles[0].plugin_args("RemovePodsViolatingNodeTaints") {
            Some(PluginArgs::RemovePodsViolatingNodeTaints(a)) => a,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn reads_round_trips_and_rejects_unknown_fields() {
        let p = Policy::from_yaml(&policy(
            "    args:\n      includePreferNoSchedule: true\n      excludedTaints: [dedicated, team=a]\n      namespaces: {include: [web]}\n",
        ))
        .expect("valid");
        let a = args_of(&p);
        assert!(a.include_prefer_no_schedule);
        assert_eq!(a.excluded_taints, ["dedicated", "team=a"]);
        assert_eq!(a.included_taints, None);
        assert_eq!(Policy::from_yaml(&p.to_yaml().expect("yaml")).expect("back"), p);
        // An explicit empty includedTaints survives the round trip.
        let p = Policy::from_yaml(&policy("    args:\n      includedTaints: []\n")).expect("valid");
        assert_eq!(args_of(&p).included_taints, Some(vec![]));
        assert_eq!(Policy::from_yaml(&p.to_yaml().expect("yaml")).expect("back"), p);
        // Defaults.
        let p = Policy::from_yaml(&policy("")).expect("valid");
        assert_eq!(*args_of(&p), RemovePodsViolatingNodeTaintsArgs::default());
        assert!(!args_of(&p).include_prefer_no_schedule);
        let err = Policy::from_yaml(&policy("    args:\n      includePreferNoScheduled: true\n")).expect_err("unknown");
        assert_eq!(
            err.to_string(),
            "profiles[0].pluginConfig[0].args.includePreferNoScheduled: unknown field (expected one of: namespaces, labelSelector, includePreferNoSchedule, excludedTaints, includedTaints)"
        );
    }

    #[test]
    fn taint_selection() {
        let t = Taint::new("dedicated", "gpu", TaintEffect::NoSchedule);
        let a = |exc: &[&str], inc: Option<&[&str]>| RemovePodsViolatingNodeTaintsArgs {
            excluded_taints: exc.iter().map(|s| s.to_string()).collect(),
            included_taints: inc.map(|i| i.iter().map(|s| s.to_string()).collect()),
            ..Default::default()
        };
        assert!(a(&[], None).selects_taint(&t));
        assert!(!a(&["dedicated"], None).selects_taint(&t));
        assert!(!a(&["dedicated=gpu"], None).selects_taint(&t));
        assert!(a(&["dedicated=cpu"], None).selects_taint(&t));
        assert!(a(&[], Some(&["dedicated=gpu"])).selects_taint(&t));
        assert!(!a(&[], Some(&["other"])).selects_taint(&t));
        assert!(!a(&[], Some(&[])).selects_taint(&t));
        // `key=` never matches an empty value (only the bare key does).
        let bare = Taint::new("dedicated", "", TaintEffect::NoSchedule);
        assert!(a(&["dedicated="], None).selects_taint(&bare));
    }

    /// descheduler v0.36 `validation_test.go` TestValidateRemovePodsViolatingNodeTaintsArgs (6 cases).
    #[test]
    fn upstream_validation_vectors() {
        let list = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let ns = |inc: &[&str], exc: &[&str]| Some(Namespaces { include: list(inc), exclude: list(exc) });
        let with_scope = |namespaces, label_selector| RemovePodsViolatingNodeTaintsArgs {
            scope: PodScope { namespaces, label_selector },
            ..Default::default()
        };
        type Case = (&'static str, Option<RemovePodsViolatingNodeTaintsArgs>, Option<&'static str>, &'static str);
        let cases: Vec<Case> = vec![
            ("valid namespace args", Some(with_scope(ns(&["default"], &[]), None)), None, ""),
            (
                "invalid namespaces args",
                Some(with_scope(ns(&["default"], &["kube-system"]), None)),
                Some("only one of Include/Exclude namespaces can be set"),
                "",
            ),
            (
                "valid label selector args",
                Some(with_scope(None, Some(LabelSelector::from_labels(&[("role.kubernetes.io/node", "")])))),
                None,
                "",
            ),
            (
                "invalid label selector args",
                None,
                None,
                "kdrift's policy reader refuses a matchExpressions entry without `key` (\"is required\") and In without values when reading, naming the field path, before validation runs; upstream's apimachinery validation text is not reproduced",
            ),
            (
                "valid taint filters",
                Some(RemovePodsViolatingNodeTaintsArgs { excluded_taints: list(&["testTaint1=test1"]), ..Default::default() }),
                None,
                "",
            ),
            (
                "invalid taint filters args",
                Some(RemovePodsViolatingNodeTaintsArgs {
                    excluded_taints: list(&["do-not-evict"]),
                    included_taints: Some(list(&["testTaint1=test1"])),
                    ..Default::default()
                }),
                Some("either includedTaints or excludedTaints can be set, but not both"),
                "",
            ),
        ];
        // A skipped case says why.
        assert!(cases.iter().all(|(_, args, _, skip)| args.is_some() || !skip.is_empty()));
        let cases: Vec<_> = cases.into_iter().map(|(name, args, want, _)| (name, args, want)).collect();
        validation_vectors("RemovePodsViolatingNodeTaints", &cases, |a| a.validate());
        // The skipped case's selector is refused at read time instead.
        selector_without_key_is_refused("RemovePodsViolatingNodeTaints", "deschedule");
    }

    /// descheduler v0.36 `defaults_test.go` TestSetDefaults_RemovePodsViolatingNodeTaintsArgs (2
    /// cases): defaulting changes nothing, empty and set values alike; and
    /// what is read is written back the same.
    #[test]
    fn upstream_defaults_vectors() {
        let read = |yaml: &str| read_yaml(yaml, RemovePodsViolatingNodeTaintsArgs::read);
        assert_eq!(RemovePodsViolatingNodeTaintsArgs::read(None), Ok(RemovePodsViolatingNodeTaintsArgs::default()));
        assert_eq!(read("{}"), RemovePodsViolatingNodeTaintsArgs::default());
        let set = read("namespaces: {}\nlabelSelector: {}\nincludePreferNoSchedule: false\nexcludedTaints: [ExcludedTaints]\nincludedTaints: [IncludedTaints]\n");
        assert_eq!(
            set,
            RemovePodsViolatingNodeTaintsArgs {
                scope: PodScope {
                    namespaces: Some(Namespaces::default()),
                    label_selector: Some(LabelSelector::default())
                },
                include_prefer_no_schedule: false,
                excluded_taints: vec!["ExcludedTaints".into()],
                included_taints: Some(vec!["IncludedTaints".into()]),
            }
        );
        let back = set.to_value().expect("written");
        assert_eq!(read_value(&back, RemovePodsViolatingNodeTaintsArgs::read), Ok(set));
        println!("upstream vectors RemovePodsViolatingNodeTaints defaults: 2 ported, 2 passed, 0 skipped");
    }
}
