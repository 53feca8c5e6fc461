//! `RemoveDuplicates` plugin arguments, their defaults and validation.
//!
//! Source: descheduler v0.36 `pkg/framework/plugins/removeduplicates/` (`types.go`,
//! `validation.go`, `defaults.go`); descheduler-plugins.md §3.1. The args are
//! `namespaces` and `excludeOwnerKinds` (no `labelSelector`); there is no
//! defaulting.

use serde::Serialize;
use serde_yaml::Value;

use super::PodScope;
use crate::policy::error::PolicyError;
use crate::policy::reader::{mapping, strings, Obj};

/// `RemoveDuplicates` args. Source: descheduler v0.36 `RemoveDuplicatesArgs`.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct RemoveDuplicatesArgs {
    /// `namespaces` (its `labelSelector` is always `None`: the plugin has none).
    pub scope: PodScope,
    /// `excludeOwnerKinds`: pods with an ownerRef of one of these kinds are
    /// never duplicates.
    pub exclude_owner_kinds: Vec<String>,
}

const FIELDS: [&str; 2] = ["namespaces", "excludeOwnerKinds"];

impl RemoveDuplicatesArgs {
    /// Reads the `args` mapping (`None` when the entry has no `args`),
    /// rejecting unknown fields with their path.
    pub(crate) fn read(o: Option<&Obj<'_>>) -> Result<RemoveDuplicatesArgs, PolicyError> {
        let Some(o) = o else {
            return Ok(RemoveDuplicatesArgs::default());
        };
        o.only(&FIELDS)?;
        Ok(RemoveDuplicatesArgs { scope: PodScope::read(o)?, exclude_owner_kinds: o.str_list("excludeOwnerKinds")? })
    }

    /// descheduler v0.36 `ValidateRemoveDuplicatesArgs`: `only one of
    /// Include/Exclude namespaces can be set`.
    pub fn validate(&self) -> Result<(), String> {
        let errs = self.scope.validate();
        crate::policy::error::validated(&errs)
    }

    /// The args as YAML (`None` writes no `args`).
    pub(crate) fn to_value(&self) -> Option<Value> {
        if *self == RemoveDuplicatesArgs::default() {
            return None;
        }
        let mut pairs = self.scope.pairs();
        pairs.push((
            "excludeOwnerKinds",
            (!self.exclude_owner_kinds.is_empty()).then(|| strings(&self.exclude_owner_kinds)),
        ));
        Some(mapping(pairs))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::lnu::Namespaces;
    use crate::policy::plugins::high_node_utilization::tests::policy_text;
    use crate::policy::{PluginArgs, Policy};

    fn args(include: &[&str], exclude: &[&str]) -> RemoveDuplicatesArgs {
        let v = |s: &[&str]| s.iter().map(|x| x.to_string()).collect();
        RemoveDuplicatesArgs {
            scope: PodScope {
                namespaces: Some(Namespaces { include: v(include), exclude: v(exclude) }),
                label_selector: None,
            },
            exclude_owner_kinds: vec!["Job".into()],
        }
    }

    /// `validation_test.go` (misnamed TestValidateRemovePodsViolatingNodeTaintsArgs).
    #[test]
    fn upstream_validation_table() {
        assert_eq!(args(&["default"], &[]).validate(), Ok(()), "valid namespace args, no errors");
        assert_eq!(
            args(&["default"], &["kube-system"]).validate(),
            Err("only one of Include/Exclude namespaces can be set".to_string()),
            "invalid namespaces args, expects error"
        );
        println!("upstream vectors RemoveDuplicates validation: 2 ported, 2 passed, 0 skipped");
    }

    #[test]
    fn defaults_and_round_trip() {
        // defaults_test.go: empty args stay empty; set values are kept.
        assert_eq!(RemoveDuplicatesArgs::read(None).ok(), Some(RemoveDuplicatesArgs::default()));
        let text = policy_text(
            "RemoveDuplicates",
            "namespaces: {exclude: [kube-system]}\nexcludeOwnerKinds: [ReplicaSet, Job]",
        );
        let p = Policy::from_yaml(&text).expect("valid");
        let PluginArgs::RemoveDuplicates(a) = &p.profiles[0].plugin_config[0].args else { panic!("{p:?}") };
        assert_eq!(a.exclude_owner_kinds, ["ReplicaSet", "Job"]);
        assert!(!a.scope.selects("kube-system", &crate::Labels::new()));
        let written = p.to_yaml().expect("writes");
        assert_eq!(Policy::from_yaml(&written).expect("reads back"), p, "{written}");
        println!("upstream vectors RemoveDuplicates defaults: 2 ported, 2 passed, 0 skipped");
    }

    #[test]
    fn unknown_fields_and_label_selector_are_rejected() {
        for (args, field) in [
            ("labelSelector: {matchLabels: {a: b}}", "labelSelector"),
            ("excludeOwnerKind: [Job]", "excludeOwnerKind"),
            ("namespaces: {includ: [a]}", "namespaces.includ"),
        ] {
            let e = Policy::from_yaml(&policy_text("RemoveDuplicates", args))
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default();
            assert!(e.contains(field) && e.contains("unknown field"), "{args}: {e}");
        }
        let e = Policy::from_yaml(&policy_text("RemoveDuplicates", "namespaces: {include: [a], exclude: [b]}"))
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(e.contains("in profile p: only one of Include/Exclude namespaces can be set"), "{e}");
    }
}
