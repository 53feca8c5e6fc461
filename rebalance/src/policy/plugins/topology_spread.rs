//! `RemovePodsViolatingTopologySpreadConstraint` plugin arguments, their defaults and validation.
//!
//! Source: descheduler v0.36 `pkg/framework/plugins/removepodsviolatingtopologyspreadconstraint/` (`types.go`,
//! `validation.go`, `defaults.go`); descheduler-plugins.md §3.2. The args keep
//! what was written (so a policy round-trips);
//! [`RemovePodsViolatingTopologySpreadConstraintArgs::defaulted`] applies
//! upstream's defaults after validation: `constraints` empty →
//! `[DoNotSchedule]`, `topologyBalanceNodeFit` unset → `true`.

use serde::Serialize;
use serde_yaml::Value;

use super::PodScope;
use crate::policy::error::PolicyError;
use crate::policy::reader::{mapping, strings, Obj};

/// `whenUnsatisfiable: DoNotSchedule`.
pub const DO_NOT_SCHEDULE: &str = "DoNotSchedule";
/// `whenUnsatisfiable: ScheduleAnyway`.
pub const SCHEDULE_ANYWAY: &str = "ScheduleAnyway";

/// `RemovePodsViolatingTopologySpreadConstraint` args. Source: descheduler v0.36 `RemovePodsViolatingTopologySpreadConstraintArgs`.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct RemovePodsViolatingTopologySpreadConstraintArgs {
    /// `namespaces` and `labelSelector`.
    pub scope: PodScope,
    /// `constraints`: the `whenUnsatisfiable` values whose constraints are
    /// balanced (default `[DoNotSchedule]`).
    pub constraints: Vec<String>,
    /// `topologyBalanceNodeFit`: skip a chosen pod that fits no node of the
    /// domains below the average (default `true`).
    pub topology_balance_node_fit: Option<bool>,
}

const FIELDS: [&str; 4] = ["namespaces", "labelSelector", "constraints", "topologyBalanceNodeFit"];

impl RemovePodsViolatingTopologySpreadConstraintArgs {
    /// Reads the `args` mapping (`None` when the entry has no `args`),
    /// rejecting unknown fields with their path.
    pub(crate) fn read(o: Option<&Obj<'_>>) -> Result<RemovePodsViolatingTopologySpreadConstraintArgs, PolicyError> {
        let Some(o) = o else {
            return Ok(RemovePodsViolatingTopologySpreadConstraintArgs::default());
        };
        o.only(&FIELDS)?;
        Ok(RemovePodsViolatingTopologySpreadConstraintArgs {
            scope: PodScope::read(o)?,
            constraints: o.str_list("constraints")?,
            topology_balance_node_fit: o.bool("topologyBalanceNodeFit")?,
        })
    }

    /// descheduler v0.36 `ValidateRemovePodsViolatingTopologySpreadConstraintArgs`:
    /// every error, aggregated (the label selector is checked when read). A
    /// bad `constraints` entry: `constraint foo is not one of
    /// map[DoNotSchedule:{} ScheduleAnyway:{}]` (Go's print of the set).
    pub fn validate(&self) -> Result<(), String> {
        let mut errs = self.scope.validate();
        for c in &self.constraints {
            if c != DO_NOT_SCHEDULE && c != SCHEDULE_ANYWAY {
                errs.push(format!("constraint {c} is not one of map[DoNotSchedule:{{}} ScheduleAnyway:{{}}]"));
            }
        }
        crate::policy::error::validated(&errs)
    }

    /// The args with upstream's defaults applied (`SetDefaults_...`):
    /// `constraints` empty → `[DoNotSchedule]`, `topologyBalanceNodeFit`
    /// unset → `true`.
    pub fn defaulted(&self) -> RemovePodsViolatingTopologySpreadConstraintArgs {
        let mut out = self.clone();
        if out.constraints.is_empty() {
            out.constraints = vec![DO_NOT_SCHEDULE.to_string()];
        }
        out.topology_balance_node_fit.get_or_insert(true);
        out
    }

    /// The args as YAML (`None` writes no `args`).
    pub(crate) fn to_value(&self) -> Option<Value> {
        if *self == RemovePodsViolatingTopologySpreadConstraintArgs::default() {
            return None;
        }
        let mut pairs = self.scope.pairs();
        pairs.push(("constraints", (!self.constraints.is_empty()).then(|| strings(&self.constraints))));
        pairs.push(("topologyBalanceNodeFit", self.topology_balance_node_fit.map(Value::Bool)));
        Some(mapping(pairs))
    }
}

#[cfg(test)]
#[path = "topology_spread_tests.rs"]
mod tests;
