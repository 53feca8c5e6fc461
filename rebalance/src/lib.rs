//! kdrift's cluster model and kube-scheduler filter model.
//!
//! Pure data (except [`cluster`]): stored Pod and Node objects (`serde_json::Value`, as
//! kept by ingest) are read tolerantly into [`PodInfo`] and [`NodeInfo`];
//! [`quantity`] parses Kubernetes quantities exactly; [`scheduler`] replays
//! kube-scheduler's Filter plugins for one pod against a [`ClusterState`] to
//! say why it stayed Pending, rebuilds the `FailedScheduling` text, and scores
//! feasible nodes to simulate where a pod would land. [`policy`] reads
//! descheduler policy files (plain, Helm values, ConfigMap) with descheduler's
//! validation messages; [`planner`] replays descheduler's LowNodeUtilization
//! on a [`Snapshot`] and returns a [`Plan`] saying what it would evict and why;
//! [`simulate`] predicts where the evicted pods' replacements land
//! ([`simulate_plan`]), replays the following nights ([`simulate_rounds`]) and
//! compares alternative thresholds ([`suggest_thresholds`]).
//!
//! [`cluster`] and [`execute`] are the I/O edge: [`cluster`] connects to a
//! cluster like kubectl and lists and watches raw objects (shared by
//! `kdrift ingest api`, `kdrift record` and the rebalance executor);
//! [`execute`] reads the live snapshot, checks a plan file ([`document`])
//! against it and evicts through the Eviction API. [`redact`] masks every
//! form of every credential kdrift holds in what a server says.
//!
//! Compatibility contracts: descheduler v0.36 for pod requests and node usage
//! (`shared/reference/descheduler-lownodeutilization.md` §1), kube-scheduler
//! (up to about v1.36) for filters, reason strings and scores
//! (`shared/reference/kubernetes-events.md` §1 and §6), descheduler v0.36
//! for LowNodeUtilization and DefaultEvictor (the same descheduler reference).

// The unit tests compile the bench cluster's source from `kdrift-scenario`
// (`simulate/reference_tests.rs`): its `kdrift_rebalance::` paths name this
// crate there, so that the snapshot it builds has this build's types.
#[cfg(test)]
extern crate self as kdrift_rebalance;
pub mod cluster;
pub mod deadman;
pub mod document;
pub mod error;
pub mod execute;
mod fast_hash;
pub mod model;
pub mod planner;
pub mod policy;
pub mod redact;
pub mod scheduler;
pub mod simulate;

// Transitional paths for the other crates until the curated API lands.
pub use model::fields as model_fields;
pub use model::node::text as node_text;
pub use model::pod::text as pod_text;
pub use model::pod::{filter_fields, qos};
pub use model::{node, objects, percent, pod, quantity, resources};

pub use error::ModelError;
pub use model::node::{NodeInfo, Taint, TaintEffect};
pub use model::pod::qos::QosClass;
pub use model::pod::{PodInfo, PodPhase};
pub use model::quantity::Quantity;
pub use model::resources::ResourceList;
pub use planner::{classify_nodes, plan, Plan, PlanOptions, Snapshot};
pub use policy::{Policy, PolicyError};
pub use scheduler::{
    evaluate, evaluate_with_sums, fit_error_message, pick_node, ClusterState, FailureKind, FilterFailure,
    NodeEvaluation, NodePods, Placement, Plugin, PluginFailure, SummedPods,
};
pub use simulate::{
    simulate_plan, simulate_plan_with, simulate_rounds, simulate_rounds_with, suggest_thresholds, Candidates, Landing,
    LandingOutcome, Rounds, SimulateOptions, Simulation, Suggestion, Verdict,
};
