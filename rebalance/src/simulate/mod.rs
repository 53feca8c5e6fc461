//! The landing simulation: where the pods a [`crate::Plan`] evicts would be
//! scheduled again, what that does to every node, and what happens on the
//! nights after.
//!
//! descheduler only evicts; the replacement pods (new pods of the same owner)
//! go through kube-scheduler, which tends to put them all on the same emptiest
//! node, and a static threshold can stop matching any node after one batch
//! (`descheduler-lownodeutilization.md` §9, upstream issues #994, #424,
//! #1584). This module answers those questions before anything is evicted:
//!
//! - [`simulate_plan`]: takes the evicted pods off their nodes, then offers
//!   each replacement ([`crate::PodInfo::unbound_copy`]) to
//!   [`crate::scheduler::pick_node`] in eviction order, on the cluster as the
//!   earlier placements left it, scored as [`SimulateOptions::scoring`]
//!   says (the default profile, or a KubeSchedulerConfiguration's
//!   NodeResourcesFit strategy and weights). Per pod: the predicted node and score, the
//!   nodes tied with it (the scheduler picks among them at random,
//!   `kubernetes-events.md` §6), or the `FailedScheduling` text it would get.
//!   Per node: requested percent before and after for every tracked
//!   resource, the cpu skew, the pile-up (more than half of the replacements
//!   on one node) and landing-risk warnings (node-feature labels that differ
//!   between the old and the new node).
//! - [`simulate_rounds`]: plan → simulate → apply the predicted placements →
//!   plan again, night after night, until nothing moves, the cluster repeats
//!   itself, or a round limit; with a verdict that says why it stopped.
//! - [`suggest_thresholds`]: the same for a grid of thresholds/targets,
//!   ranked by fewest evictions among those that converge.
//!
//! Pure data, deterministic: the same input gives the same output (ties are
//! reported, and then resolved by node name so later placements are
//! reproducible).
//!
//! The replacements are placed by the shared scheduler model, PodTopologySpread
//! included: a replacement without constraints of its own is spread from its
//! ReplicaSet's other pods by the default profile's system defaults (so a
//! pod evicted from the one node without a sibling tends to land back there).
//!
//! What this does not model: the scheduler's ImageLocality score and volume
//! filters (see [`crate::scheduler`]);
//! terminating pods still holding their requests during their grace period
//! (the simulation frees them before the first replacement is scheduled);
//! pods other than the replacements arriving in the meantime.

mod labels;
mod landing;
mod measured;
#[cfg(test)]
mod reference_tests;
mod rounds;
mod suggest;
#[cfg(test)]
mod tests;
mod usage;

pub use labels::{LabelDiff, DEFAULT_RISK_LABEL_KEYS, DEFAULT_RISK_LABEL_NAMESPACES};
pub use landing::{
    simulate_plan, simulate_plan_with, Landing, LandingOutcome, PileUp, Severity, Simulation, Warning, WarningKind,
};
pub use measured::{HotLanding, NodeUsedChange, PredictedUsage, UsedChange, REQUESTS_PLAN_USED_LIMIT};
pub use rounds::{simulate_rounds, simulate_rounds_with, EvictionLoop, Round, Rounds, Verdict};
pub use suggest::{suggest_thresholds, Candidates, Suggestion};
pub use usage::{NodeChange, ResourceChange};

use serde::Serialize;

/// Seconds in one simulated round: descheduler typically runs as a nightly
/// CronJob, so each round is "one night" later.
pub const DEFAULT_ROUND_INTERVAL_SECONDS: i64 = 24 * 60 * 60;

/// Settings of the landing simulation. Construct with `..Default::default()`
/// so new settings do not break callers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SimulateOptions {
    /// Node label keys compared exactly between the source and the predicted
    /// node (default [`DEFAULT_RISK_LABEL_KEYS`]: `kubernetes.io/arch`,
    /// `node.kubernetes.io/instance-type`). Add the keys your workloads
    /// depend on.
    pub risk_label_keys: Vec<String>,
    /// Label namespaces (the part before `/`) compared with all their keys,
    /// including sub-namespaces: `feature.node.kubernetes.io` also covers
    /// `intel.feature.node.kubernetes.io/gpu`, as node-feature-discovery
    /// allows (default [`DEFAULT_RISK_LABEL_NAMESPACES`]).
    pub risk_label_namespaces: Vec<String>,
    /// How far the snapshot's "now" moves between two rounds of
    /// [`simulate_rounds`], in seconds (default one day,
    /// `DEFAULT_ROUND_INTERVAL_SECONDS`); matters for `minPodAge`:
    /// replacement pods are created at the round's "now".
    pub round_interval_seconds: i64,
    /// How kube-scheduler scores the feasible nodes (NodeResourcesFit's
    /// scoring strategy and the score plugins' weights), e.g. read from the
    /// cluster's KubeSchedulerConfiguration
    /// ([`crate::ScoringConfig::from_yaml`]); default: the default profile
    /// (LeastAllocated). HighNodeUtilization is meant to run with MostAllocated.
    pub scoring: crate::scheduler::ScoringConfig,
}

impl Default for SimulateOptions {
    fn default() -> Self {
        SimulateOptions {
            risk_label_keys: DEFAULT_RISK_LABEL_KEYS.iter().map(|s| s.to_string()).collect(),
            risk_label_namespaces: DEFAULT_RISK_LABEL_NAMESPACES.iter().map(|s| s.to_string()).collect(),
            round_interval_seconds: DEFAULT_ROUND_INTERVAL_SECONDS,
            scoring: crate::scheduler::ScoringConfig::default(),
        }
    }
}
