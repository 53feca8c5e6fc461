//! `PodLifeTime` plugin arguments and their validation (the plugin has no
//! defaults).
//!
//! Source: descheduler v0.36 `pkg/framework/plugins/podlifetime/` (`types.go`,
//! `validation.go`); descheduler-plugins.md §2.4.

use serde::Serialize;
use serde_yaml::Value;

use super::PodScope;
use crate::policy::error::PolicyError;
use crate::policy::reader::{as_int, as_string, mapping, strings, Obj};

/// The states v0.36 accepts in `states` (pod phases, pod status reasons,
/// container waiting and terminated reasons), sorted as its error prints
/// them. Source: `validation.go` `podLifeTimeAllowedStates`.
pub const POD_LIFE_TIME_STATES: [&str; 24] = [
    "Completed",
    "ContainerCannotRun",
    "ContainerCreating",
    "CrashLoopBackOff",
    "CreateContainerConfigError",
    "CreateContainerError",
    "DeadlineExceeded",
    "ErrImagePull",
    "Error",
    "Evicted",
    "Failed",
    "ImagePullBackOff",
    "InvalidImageName",
    "NodeAffinity",
    "NodeLost",
    "OOMKilled",
    "Pending",
    "PodInitializing",
    "Running",
    "Shutdown",
    "StartError",
    "Succeeded",
    "UnexpectedAdmissionError",
    "Unknown",
];

const FIELDS: [&str; 9] = [
    "namespaces",
    "labelSelector",
    "ownerKinds",
    "maxPodLifeTimeSeconds",
    "states",
    "conditions",
    "exitCodes",
    "includingInitContainers",
    "includingEphemeralContainers",
];

/// `ownerKinds`: `include` or `exclude` (not both).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct OwnerKinds {
    /// `include`: only pods with an ownerRef of one of these kinds (bare pods never).
    pub include: Vec<String>,
    /// `exclude`: no pod with an ownerRef of one of these kinds (bare pods pass).
    pub exclude: Vec<String>,
}

/// One `conditions[]` filter: every field set must equal the condition's.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct PodConditionFilter {
    /// `type` (empty: not checked).
    pub type_: String,
    /// `status` (empty: not checked).
    pub status: String,
    /// `reason` (empty: not checked).
    pub reason: String,
    /// `minTimeSinceLastTransitionSeconds`: the condition's
    /// `lastTransitionTime` is set and at least this many seconds ago
    /// (inclusive, truncated seconds).
    pub min_time_since_last_transition_seconds: Option<u32>,
}

/// `PodLifeTime` args. Source: descheduler v0.36 `PodLifeTimeArgs`. The
/// filters set are ANDed; at least one of `maxPodLifeTimeSeconds`, `states`,
/// `conditions`, `exitCodes` is required.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct PodLifeTimeArgs {
    /// `namespaces` and `labelSelector`.
    pub scope: PodScope,
    /// `ownerKinds`.
    pub owner_kinds: Option<OwnerKinds>,
    /// `maxPodLifeTimeSeconds`: evict pods strictly older than this (seconds
    /// since `creationTimestamp`, truncated).
    pub max_pod_life_time_seconds: Option<u32>,
    /// `states`: the pod's phase, `status.reason`, or a container's waiting
    /// or terminated reason is one of these.
    pub states: Vec<String>,
    /// `conditions`: some condition matches some filter.
    pub conditions: Vec<PodConditionFilter>,
    /// `exitCodes`: some container's `state.terminated.exitCode` is one of these.
    pub exit_codes: Vec<i32>,
    /// `includingInitContainers`: init container statuses count for
    /// `states` and `exitCodes`.
    pub including_init_containers: bool,
    /// `includingEphemeralContainers`: ephemeral container statuses count for
    /// `states` (never for `exitCodes`).
    pub including_ephemeral_containers: bool,
}

impl PodLifeTimeArgs {
    /// Reads the `args` mapping (`None` when the entry has no `args`),
    /// rejecting unknown fields with their path.
    pub(crate) fn read(o: Option<&Obj<'_>>) -> Result<PodLifeTimeArgs, PolicyError> {
        let Some(o) = o else { return Ok(PodLifeTimeArgs::default()) };
        o.only(&FIELDS)?;
        let owner_kinds = match o.obj("ownerKinds")? {
            Some(k) => {
                k.only(&["include", "exclude"])?;
                Some(OwnerKinds { include: k.str_list("include")?, exclude: k.str_list("exclude")? })
            }
            None => None,
        };
        let mut conditions = Vec::new();
        for (path, v) in o.list("conditions")? {
            let c = Obj::new(v, &path)?;
            c.only(&["type", "status", "reason", "minTimeSinceLastTransitionSeconds"])?;
            conditions.push(PodConditionFilter {
                type_: c.str("type")?.unwrap_or_default(),
                status: c.str("status")?.unwrap_or_default(),
                reason: c.str("reason")?.unwrap_or_default(),
                min_time_since_last_transition_seconds: c.uint("minTimeSinceLastTransitionSeconds")?,
            });
        }
        let exit_codes = o
            .list("exitCodes")?
            .into_iter()
            .map(|(path, v)| as_int(v, &path, i64::from(i32::MIN), i64::from(i32::MAX)).map(|n| n as i32))
            .collect::<Result<Vec<_>, _>>()?;
        let states = o.list("states")?.into_iter().map(|(path, v)| as_string(v, &path)).collect::<Result<_, _>>()?;
        Ok(PodLifeTimeArgs {
            scope: PodScope::read(o)?,
            owner_kinds,
            max_pod_life_time_seconds: o.uint("maxPodLifeTimeSeconds")?,
            states,
            conditions,
            exit_codes,
            including_init_containers: o.bool("includingInitContainers")?.unwrap_or(false),
            including_ephemeral_containers: o.bool("includingEphemeralContainers")?.unwrap_or(false),
        })
    }

    /// descheduler v0.36 `ValidatePodLifeTimeArgs`: every error, aggregated as
    /// upstream prints them (one as itself, several as `[a, b]`).
    pub fn validate(&self) -> Result<(), String> {
        let mut errs = self.scope.validate();
        if let Some(k) = &self.owner_kinds {
            if !k.include.is_empty() && !k.exclude.is_empty() {
                errs.push("only one of Include/Exclude ownerKinds can be set".to_string());
            }
        }
        if self.states.iter().any(|s| !POD_LIFE_TIME_STATES.contains(&s.as_str())) {
            errs.push(format!("states must be one of [{}]", POD_LIFE_TIME_STATES.join(" ")));
        }
        for (i, c) in self.conditions.iter().enumerate() {
            if c.type_.is_empty()
                && c.status.is_empty()
                && c.reason.is_empty()
                && c.min_time_since_last_transition_seconds.is_none()
            {
                errs.push(format!(
                    "conditions[{i}]: at least one of type, status, reason, or minTimeSinceLastTransitionSeconds must be set"
                ));
            }
        }
        let has_filter = self.max_pod_life_time_seconds.is_some()
            || !self.states.is_empty()
            || !self.conditions.is_empty()
            || !self.exit_codes.is_empty();
        if !has_filter {
            errs.push(
                "at least one filtering criterion must be specified (maxPodLifeTimeSeconds, states, conditions, or exitCodes)"
                    .to_string(),
            );
        }
        crate::policy::error::validated(&errs)
    }

    /// The args as YAML (`None` writes no `args`: every field unset).
    pub(crate) fn to_value(&self) -> Option<Value> {
        if *self == PodLifeTimeArgs::default() {
            return None;
        }
        let uint = |v: Option<u32>| v.map(|n| Value::Number(n.into()));
        let owner_kinds = self.owner_kinds.as_ref().map(|k| {
            mapping(vec![
                ("include", (!k.include.is_empty()).then(|| strings(&k.include))),
                ("exclude", (!k.exclude.is_empty()).then(|| strings(&k.exclude))),
            ])
        });
        let conditions = (!self.conditions.is_empty()).then(|| {
            Value::Sequence(
                self.conditions
                    .iter()
                    .map(|c| {
                        let s = |v: &str| (!v.is_empty()).then(|| Value::String(v.to_string()));
                        mapping(vec![
                            ("type", s(&c.type_)),
                            ("status", s(&c.status)),
                            ("reason", s(&c.reason)),
                            ("minTimeSinceLastTransitionSeconds", uint(c.min_time_since_last_transition_seconds)),
                        ])
                    })
                    .collect(),
            )
        });
        let exit_codes = (!self.exit_codes.is_empty())
            .then(|| Value::Sequence(self.exit_codes.iter().map(|c| Value::Number((*c).into())).collect()));
        let mut pairs = self.scope.pairs();
        pairs.extend([
            ("ownerKinds", owner_kinds),
            ("maxPodLifeTimeSeconds", uint(self.max_pod_life_time_seconds)),
            ("states", (!self.states.is_empty()).then(|| strings(&self.states))),
            ("conditions", conditions),
            ("exitCodes", exit_codes),
            ("includingInitContainers", self.including_init_containers.then_some(Value::Bool(true))),
            ("includingEphemeralContainers", self.including_ephemeral_containers.then_some(Value::Bool(true))),
        ]);
        Some(mapping(pairs))
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use crate::policy::{PluginArgs, Policy, PolicyError};

    /// A policy with one profile `p` enabling `plugin` at Deschedule with
    /// `args` (YAML, indented by the caller's lines).
    pub(crate) fn doc(plugin: &str, args: &str) -> String {
        format!(
            "apiVersion: descheduler/v1alpha2\nkind: DeschedulerPolicy\nprofiles:\n- name: p\n  pluginConfig:\n  - name: {plugin}\n    args:\n{}\n  plugins:\n    deschedule:\n      enabled: [{plugin}]\n",
            args.lines().map(|l| format!("      {l}")).collect::<Vec<_>>().join("\n")
        )
    }

    /// The policy's only plugin args, after a round trip through YAML that
    /// must give an equal policy.
    pub(crate) fn round_trip(text: &str) -> PluginArgs {
        let p = Policy::from_yaml(text).expect("valid");
        let again = Policy::from_yaml(&p.to_yaml().expect("written")).expect("re-read");
        assert_eq!(again, p, "{}", p.to_yaml().unwrap_or_default());
        p.profiles[0].plugin_config[0].args.clone()
    }

    /// The error text of loading `text`.
    pub(crate) fn error(text: &str) -> String {
        match Policy::from_yaml(text) {
            Err(e @ (PolicyError::Invalid(_) | PolicyError::Field { .. })) => e.to_string(),
            other => panic!("expected an error, got {other:?}"),
        }
    }

    #[test]
    fn reads_every_field_and_round_trips() {
        let text = doc(
            "PodLifeTime",
            "maxPodLifeTimeSeconds: 3600\nstates: [Succeeded, OOMKilled]\nconditions:\n- {type: Ready, status: \"False\", reason: PodCompleted, minTimeSinceLastTransitionSeconds: 300}\n- {reason: X}\nexitCodes: [0, 137]\nownerKinds: {exclude: [Job]}\nincludingInitContainers: true\nincludingEphemeralContainers: true\nnamespaces: {exclude: [kube-system]}\nlabelSelector: {matchLabels: {app: web}}",
        );
        let PluginArgs::PodLifeTime(a) = round_trip(&text) else { panic!("PodLifeTime args") };
        assert_eq!(a.max_pod_life_time_seconds, Some(3600));
        assert_eq!(a.states, ["Succeeded", "OOMKilled"]);
        assert_eq!(a.conditions.len(), 2);
        assert_eq!(
            (a.conditions[0].type_.as_str(), a.conditions[0].status.as_str(), a.conditions[0].reason.as_str()),
            ("Ready", "False", "PodCompleted")
        );
        assert_eq!(a.conditions[0].min_time_since_last_transition_seconds, Some(300));
        assert_eq!(a.conditions[1].reason, "X");
        assert_eq!(a.exit_codes, [0, 137]);
        assert_eq!(a.owner_kinds.as_ref().map(|k| k.exclude.clone()), Some(vec!["Job".to_string()]));
        assert!(a.including_init_containers && a.including_ephemeral_containers);
        assert_eq!(a.scope.namespaces.as_ref().map(|n| n.exclude.clone()), Some(vec!["kube-system".to_string()]));
        // States alone (no max age) is valid and round-trips.
        let PluginArgs::PodLifeTime(b) = round_trip(&doc("PodLifeTime", "states: [Failed]")) else { panic!() };
        assert_eq!(b.max_pod_life_time_seconds, None);
    }

    #[test]
    fn unknown_fields_are_named_with_their_path() {
        let e = error(&doc("PodLifeTime", "maxPodLifetimeSeconds: 60"));
        assert!(
            e.starts_with("profiles[0].pluginConfig[0].args.maxPodLifetimeSeconds: unknown field (expected one of: namespaces, labelSelector, ownerKinds, maxPodLifeTimeSeconds"),
            "{e}"
        );
        let e = error(&doc("PodLifeTime", "states: [Failed]\nconditions:\n- {typ: Ready}"));
        assert!(e.starts_with("profiles[0].pluginConfig[0].args.conditions[0].typ: unknown field"), "{e}");
        let e = error(&doc("PodLifeTime", "states: [Failed]\nownerKinds: {only: [Job]}"));
        assert!(e.starts_with("profiles[0].pluginConfig[0].args.ownerKinds.only: unknown field"), "{e}");
        let e = error(&doc("PodLifeTime", "exitCodes: [one]"));
        assert!(e.contains("args.exitCodes[0]"), "{e}");
    }

    #[test]
    fn every_validation_error_aggregated_by_the_loader() {
        let e = error(&doc(
            "PodLifeTime",
            "namespaces: {include: [a], exclude: [b]}\nownerKinds: {include: [Job], exclude: [ReplicaSet]}\nconditions:\n- {}",
        ));
        assert!(
            e.contains(
                "in profile p: [only one of Include/Exclude namespaces can be set, only one of Include/Exclude ownerKinds can be set, conditions[0]: at least one of type, status, reason, or minTimeSinceLastTransitionSeconds must be set]"
            ),
            "{e}"
        );
        // Empty args: no filtering criterion.
        let e = error(&doc("PodLifeTime", "{}"));
        assert!(e.contains("in profile p: at least one filtering criterion must be specified"), "{e}");
    }
}
