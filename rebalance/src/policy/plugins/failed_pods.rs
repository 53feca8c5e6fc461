//! `RemoveFailedPods` plugin arguments, their defaults and validation.
//!
//! Source: descheduler v0.36 `pkg/framework/plugins/removefailedpods/` (`types.go`,
//! `validation.go`, `defaults.go`); descheduler-plugins.md §2.5. Only
//! `namespaces` and `labelSelector` are validated. The one default,
//! `minPodLifetimeSeconds: 3600`, is applied after validation as upstream
//! does (`decode` → validate → `setDefaults`): the field keeps what was
//! written (so the policy round-trips) and
//! [`RemoveFailedPodsArgs::min_pod_lifetime`] gives the value in force.

use serde::Serialize;
use serde_yaml::Value;

use super::PodScope;
use crate::policy::error::PolicyError;
use crate::policy::reader::{as_int, mapping, strings, Obj};

/// `minPodLifetimeSeconds` when unset: one hour. Source: v0.36
/// `SetDefaults_RemoveFailedPodsArgs`.
pub const DEFAULT_MIN_POD_LIFETIME_SECONDS: u32 = 3600;

const FIELDS: [&str; 7] = [
    "namespaces",
    "labelSelector",
    "excludeOwnerKinds",
    "minPodLifetimeSeconds",
    "reasons",
    "exitCodes",
    "includingInitContainers",
];

/// `RemoveFailedPods` args. Source: descheduler v0.36 `RemoveFailedPodsArgs`.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct RemoveFailedPodsArgs {
    /// `namespaces` and `labelSelector`.
    pub scope: PodScope,
    /// `excludeOwnerKinds`: a pod with an ownerRef of one of these kinds stays.
    pub exclude_owner_kinds: Vec<String>,
    /// `minPodLifetimeSeconds` as written (`None`: the default 3600 applies;
    /// see [`RemoveFailedPodsArgs::min_pod_lifetime`]).
    pub min_pod_lifetime_seconds: Option<u32>,
    /// `reasons`: when set, a container's waiting/terminated reason or the
    /// pod's `status.reason` must be one of these.
    pub reasons: Vec<String>,
    /// `exitCodes`: when set, a container's `state.terminated.exitCode` must
    /// be one of these.
    pub exit_codes: Vec<i32>,
    /// `includingInitContainers`: init container statuses count for
    /// `reasons` and `exitCodes`.
    pub including_init_containers: bool,
}

impl RemoveFailedPodsArgs {
    /// Reads the `args` mapping (`None` when the entry has no `args`),
    /// rejecting unknown fields with their path.
    pub(crate) fn read(o: Option<&Obj<'_>>) -> Result<RemoveFailedPodsArgs, PolicyError> {
        let Some(o) = o else { return Ok(RemoveFailedPodsArgs::default()) };
        o.only(&FIELDS)?;
        let exit_codes = o
            .list("exitCodes")?
            .into_iter()
            .map(|(path, v)| as_int(v, &path, i64::from(i32::MIN), i64::from(i32::MAX)).map(|n| n as i32))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(RemoveFailedPodsArgs {
            scope: PodScope::read(o)?,
            exclude_owner_kinds: o.str_list("excludeOwnerKinds")?,
            min_pod_lifetime_seconds: o.uint("minPodLifetimeSeconds")?,
            reasons: o.str_list("reasons")?,
            exit_codes,
            including_init_containers: o.bool("includingInitContainers")?.unwrap_or(false),
        })
    }

    /// The `minPodLifetimeSeconds` in force (seconds): as written, else 3600
    /// (upstream's default, set after validation).
    pub fn min_pod_lifetime(&self) -> u32 {
        self.min_pod_lifetime_seconds.unwrap_or(DEFAULT_MIN_POD_LIFETIME_SECONDS)
    }

    /// descheduler v0.36 `ValidateRemoveFailedPodsArgs`: every error,
    /// aggregated as upstream prints them (one as itself, several as `[a, b]`).
    pub fn validate(&self) -> Result<(), String> {
        let errs = self.scope.validate();
        crate::policy::error::validated(&errs)
    }

    /// The args as YAML (`None` writes no `args`: every field unset).
    pub(crate) fn to_value(&self) -> Option<Value> {
        if *self == RemoveFailedPodsArgs::default() {
            return None;
        }
        let mut pairs = self.scope.pairs();
        pairs.extend([
            ("excludeOwnerKinds", (!self.exclude_owner_kinds.is_empty()).then(|| strings(&self.exclude_owner_kinds))),
            ("minPodLifetimeSeconds", self.min_pod_lifetime_seconds.map(|n| Value::Number(n.into()))),
            ("reasons", (!self.reasons.is_empty()).then(|| strings(&self.reasons))),
            (
                "exitCodes",
                (!self.exit_codes.is_empty())
                    .then(|| Value::Sequence(self.exit_codes.iter().map(|c| Value::Number((*c).into())).collect())),
            ),
            ("includingInitContainers", self.including_init_containers.then_some(Value::Bool(true))),
        ]);
        Some(mapping(pairs))
    }
}

#[cfg(test)]
mod tests {
    use super::super::pod_lifetime::tests::{doc, error, round_trip};
    use crate::policy::PluginArgs;

    #[test]
    fn reads_every_field_defaults_after_validation_and_round_trips() {
        let text = doc(
            "RemoveFailedPods",
            "reasons: [OOMKilled, NodeAffinity]\nexitCodes: [137]\nexcludeOwnerKinds: [Job]\nminPodLifetimeSeconds: 600\nincludingInitContainers: true\nnamespaces: {include: [apps]}",
        );
        let PluginArgs::RemoveFailedPods(a) = round_trip(&text) else { panic!("RemoveFailedPods args") };
        assert_eq!(a.reasons, ["OOMKilled", "NodeAffinity"]);
        assert_eq!(a.exit_codes, [137]);
        assert_eq!(a.exclude_owner_kinds, ["Job"]);
        assert_eq!((a.min_pod_lifetime_seconds, a.min_pod_lifetime()), (Some(600), 600));
        assert!(a.including_init_containers);
        // Empty args: valid; the 3600 s default is in force but not written back.
        let PluginArgs::RemoveFailedPods(b) = round_trip(&doc("RemoveFailedPods", "{}")) else { panic!() };
        assert_eq!((b.min_pod_lifetime_seconds, b.min_pod_lifetime()), (None, 3600));
        // An explicit 0 stays 0 (no minimum).
        let PluginArgs::RemoveFailedPods(c) = round_trip(&doc("RemoveFailedPods", "minPodLifetimeSeconds: 0")) else {
            panic!()
        };
        assert_eq!(c.min_pod_lifetime(), 0);
    }

    #[test]
    fn unknown_fields_and_validation() {
        let e = error(&doc("RemoveFailedPods", "minPodLifeTimeSeconds: 60"));
        assert!(
            e.starts_with("profiles[0].pluginConfig[0].args.minPodLifeTimeSeconds: unknown field (expected one of: namespaces, labelSelector, excludeOwnerKinds, minPodLifetimeSeconds"),
            "{e}"
        );
        let e = error(&doc("RemoveFailedPods", "minPodLifetimeSeconds: -1"));
        assert!(e.starts_with("profiles[0].pluginConfig[0].args.minPodLifetimeSeconds: expected an integer"), "{e}");
        let e = error(&doc("RemoveFailedPods", "namespaces: {include: [a], exclude: [b]}"));
        assert_eq!(e, "in profile p: only one of Include/Exclude namespaces can be set");
    }
}
