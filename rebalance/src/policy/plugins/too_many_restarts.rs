//! `RemovePodsHavingTooManyRestarts` plugin arguments and their validation
//! (the plugin has no defaults: `podRestartThreshold` unset is 0, which
//! validation refuses).
//!
//! Source: descheduler v0.36 `pkg/framework/plugins/removepodshavingtoomanyrestarts/`
//! (`types.go`, `validation.go`); descheduler-plugins.md §2.6.

use serde::Serialize;
use serde_yaml::Value;

use super::PodScope;
use crate::policy::error::PolicyError;
use crate::policy::reader::{mapping, strings, Obj};

/// The states v0.36 accepts in `states`, sorted as its error prints them.
pub const TOO_MANY_RESTARTS_STATES: [&str; 2] = ["CrashLoopBackOff", "Running"];

const FIELDS: [&str; 5] = ["namespaces", "labelSelector", "podRestartThreshold", "includingInitContainers", "states"];

/// `RemovePodsHavingTooManyRestarts` args. Source: descheduler v0.36
/// `RemovePodsHavingTooManyRestartsArgs`.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct RemovePodsHavingTooManyRestartsArgs {
    /// `namespaces` and `labelSelector`.
    pub scope: PodScope,
    /// `podRestartThreshold`: evict pods whose summed container restarts
    /// reach it (inclusive); must be ≥ 1.
    pub pod_restart_threshold: i32,
    /// `includingInitContainers`: init container restarts (and waiting
    /// reasons, for `states`) count too.
    pub including_init_containers: bool,
    /// `states`: when set, the pod's phase or a container's waiting reason
    /// must also be one of these (`Running`, `CrashLoopBackOff`).
    pub states: Vec<String>,
}

impl RemovePodsHavingTooManyRestartsArgs {
    /// Reads the `args` mapping (`None` when the entry has no `args`),
    /// rejecting unknown fields with their path.
    pub(crate) fn read(o: Option<&Obj<'_>>) -> Result<RemovePodsHavingTooManyRestartsArgs, PolicyError> {
        let Some(o) = o else { return Ok(RemovePodsHavingTooManyRestartsArgs::default()) };
        o.only(&FIELDS)?;
        Ok(RemovePodsHavingTooManyRestartsArgs {
            scope: PodScope::read(o)?,
            pod_restart_threshold: o
                .int("podRestartThreshold", i64::from(i32::MIN), i64::from(i32::MAX))?
                .map_or(0, |n| n as i32),
            including_init_containers: o.bool("includingInitContainers")?.unwrap_or(false),
            states: o.str_list("states")?,
        })
    }

    /// descheduler v0.36 `ValidateRemovePodsHavingTooManyRestartsArgs`: every
    /// error, aggregated as upstream prints them (one as itself, several as
    /// `[a, b]`).
    pub fn validate(&self) -> Result<(), String> {
        let mut errs = self.scope.validate();
        if self.pod_restart_threshold < 1 {
            errs.push("invalid PodsHavingTooManyRestarts threshold".to_string());
        }
        if self.states.iter().any(|s| !TOO_MANY_RESTARTS_STATES.contains(&s.as_str())) {
            errs.push(format!("states must be one of [{}]", TOO_MANY_RESTARTS_STATES.join(" ")));
        }
        crate::policy::error::validated(&errs)
    }

    /// The args as YAML (`None` writes no `args`: every field unset).
    pub(crate) fn to_value(&self) -> Option<Value> {
        if *self == RemovePodsHavingTooManyRestartsArgs::default() {
            return None;
        }
        let mut pairs = self.scope.pairs();
        pairs.extend([
            (
                "podRestartThreshold",
                (self.pod_restart_threshold != 0).then(|| Value::Number(self.pod_restart_threshold.into())),
            ),
            ("includingInitContainers", self.including_init_containers.then_some(Value::Bool(true))),
            ("states", (!self.states.is_empty()).then(|| strings(&self.states))),
        ]);
        Some(mapping(pairs))
    }
}

#[cfg(test)]
mod tests {
    use super::super::pod_lifetime::tests::{doc, error, round_trip};
    use crate::policy::PluginArgs;

    const PLUGIN: &str = "RemovePodsHavingTooManyRestarts";

    #[test]
    fn reads_every_field_and_round_trips() {
        let text = doc(
            PLUGIN,
            "podRestartThreshold: 5\nincludingInitContainers: true\nstates: [CrashLoopBackOff]\nnamespaces: {exclude: [kube-system]}",
        );
        let PluginArgs::RemovePodsHavingTooManyRestarts(a) = round_trip(&text) else { panic!("args") };
        assert_eq!(a.pod_restart_threshold, 5);
        assert!(a.including_init_containers);
        assert_eq!(a.states, ["CrashLoopBackOff"]);
    }

    #[test]
    fn unknown_fields_and_every_validation_message() {
        let e = error(&doc(PLUGIN, "podRestartThreshold: 5\nrestartThreshold: 3"));
        assert!(
            e.starts_with("profiles[0].pluginConfig[0].args.restartThreshold: unknown field (expected one of: namespaces, labelSelector, podRestartThreshold, includingInitContainers, states)"),
            "{e}"
        );
        // No args at all: the threshold is 0.
        let e = error(&doc(PLUGIN, "{}"));
        assert_eq!(e, "in profile p: invalid PodsHavingTooManyRestarts threshold");
        let e =
            error(&doc(PLUGIN, "namespaces: {include: [a], exclude: [b]}\npodRestartThreshold: -1\nstates: [Failed]"));
        assert_eq!(
            e,
            "in profile p: [only one of Include/Exclude namespaces can be set, invalid PodsHavingTooManyRestarts threshold, states must be one of [CrashLoopBackOff Running]]"
        );
    }
}
