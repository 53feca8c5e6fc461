//! The plan file: `kdrift rebalance plan -o json` (or `--out FILE`) writes a
//! [`PlanDocument`], `kdrift rebalance apply FILE` reads it back.
//!
//! A plan document is versioned ([`PLAN_FORMAT`], [`PLAN_FORMAT_VERSION`])
//! and self-describing: it carries the policy it was made with (as YAML, so
//! `apply` can plan again with exactly that policy), the plan options, the
//! identity of the snapshot it was made on (per node: its class and
//! percentages per profile), the evictions in order (each pod with its uid,
//! resourceVersion and node) with the rule and the reason, every skipped candidate
//! with its reason, and the predicted landings when simulated. The full
//! planner output (`plan`), the landing simulation (`simulation`) and the
//! nights (`rounds`) are kept verbatim for people and tools; `apply` only
//! needs the typed sections.
//!
//! [`drift`] compares a document with the cluster as it is now.

mod build;
// Pure, and tested without the feature; only the executor calls it.
#[cfg_attr(not(feature = "cluster"), allow(dead_code))]
pub mod drift;

pub use build::PlanInputs;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::planner::{NodeClass, PlanOptions};
use crate::policy::{Policy, PolicyError};

/// `format` of a plan document.
pub const PLAN_FORMAT: &str = "kdrift.rebalance-plan";
/// The `format_version` this build writes and reads.
pub const PLAN_FORMAT_VERSION: u32 = 1;

/// Why a plan file cannot be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DocumentError {
    /// Not JSON, or not the shape of a plan document (serde's text in the
    /// message, not as a `source`: `{:#}` printed it twice).
    #[error("not a kdrift plan document: {0}")]
    Json(serde_json::Error),
    /// A JSON document of another kind.
    #[error(
        "not a kdrift plan document: {}, expected {PLAN_FORMAT:?} (`kdrift rebalance plan --out FILE` writes one)",
        if found.is_empty() { "it has no `format` field".to_string() } else { format!("format is {found:?}") }
    )]
    Format {
        /// The `format` found.
        found: String,
    },
    /// Written by a newer kdrift.
    #[error(
        "plan format version {found} is newer than this kdrift reads (up to {PLAN_FORMAT_VERSION}); upgrade kdrift"
    )]
    Version {
        /// The `format_version` found.
        found: u32,
    },
    /// The embedded policy does not read back.
    #[error("the plan's policy")]
    Policy(#[source] PolicyError),
    /// Serialising the planner's output failed (cannot happen with finite numbers).
    #[error("writing the plan document: {0}")]
    Write(#[source] serde_json::Error),
}

/// Where the snapshot of a plan came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlanSource {
    /// `live` (read from a cluster) or `store` (from a kdrift store).
    pub kind: String,
    /// The kubeconfig context or the store path, as far as known.
    pub detail: String,
}

/// The plan options as written in the document: what `apply` plans again
/// with to check the plan still holds.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DocumentOptions {
    /// [`PlanOptions::skip_zero_request`].
    pub skip_zero_request: bool,
    /// [`PlanOptions::rank_by_usage`] (absent: false).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub rank_by_usage: bool,
    /// The windowed reading of measured usage the plan classified on
    /// (`--usage-window`, `--usage-percentile`); absent: the latest sample
    /// (descheduler's reading), or a plan on requests.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage_window: Option<UsageWindowOption>,
    /// The server the plan ran the policy's Prometheus query on
    /// (`metricsUtilization` source Prometheus, `--prometheus-url`; its base
    /// URL, never credentials): `apply` runs the query there again when it
    /// plans again. Absent: kdrift's stand-in, or no such source.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prometheus_url: Option<String>,
}

/// A percentile of measured usage over a window, as a plan document keeps it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct UsageWindowOption {
    /// Window length, seconds.
    pub window_seconds: i64,
    /// Percentile, 0 < p ≤ 100.
    pub percentile: f64,
}

impl UsageWindowOption {
    /// The reading it stands for ([`crate::Reading::Percentile`]).
    pub fn reading(&self) -> crate::Reading {
        crate::Reading::Percentile {
            window_us: self.window_seconds.saturating_mul(1_000_000),
            percentile: self.percentile,
        }
    }
}

impl From<PlanOptions> for DocumentOptions {
    fn from(o: PlanOptions) -> Self {
        DocumentOptions {
            skip_zero_request: o.skip_zero_request,
            rank_by_usage: o.rank_by_usage,
            usage_window: None,
            prometheus_url: None,
        }
    }
}

impl From<&DocumentOptions> for PlanOptions {
    fn from(o: &DocumentOptions) -> Self {
        PlanOptions { skip_zero_request: o.skip_zero_request, rank_by_usage: o.rank_by_usage }
    }
}

/// A node's class in one LowNodeUtilization run (profile).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProfileClass {
    /// The profile.
    pub profile: String,
    /// The class.
    pub class: NodeClass,
    /// Requested percent of allocatable per tracked resource.
    pub percent: BTreeMap<String, f64>,
}

/// A node as the plan saw it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NodeIdentity {
    /// `metadata.name`.
    pub name: String,
    /// Considered by the cycle (Ready, matching the policy's nodeSelector).
    pub considered: bool,
    /// Its class and percentages per profile (empty when not considered or nothing ran).
    pub classes: Vec<ProfileClass>,
}

/// A pod as the plan saw it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PodIdentity {
    /// `metadata.namespace`.
    pub namespace: String,
    /// `metadata.name`.
    pub name: String,
    /// `metadata.uid`.
    pub uid: Option<String>,
    /// `metadata.resourceVersion`.
    pub resource_version: Option<String>,
    /// `spec.nodeName`.
    pub node: Option<String>,
}

impl PodIdentity {
    /// `namespace/name`.
    pub fn key(&self) -> String {
        format!("{}/{}", self.namespace, self.name)
    }
}

/// The snapshot the plan was made on, by identity: its nodes. Its pods are
/// not listed (plans written before kdrift issue 39 listed every bound pod,
/// `pods`, which is read and ignored): the evicted ones are in
/// [`PlanDocument::evictions`], with uid, resourceVersion and node, so the
/// document grows with the evictions, not with the cluster's pods.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SnapshotIdentity {
    /// The snapshot's instant ("now" for `minPodAge`).
    pub at: DateTime<Utc>,
    /// Every node, by name.
    pub nodes: Vec<NodeIdentity>,
}

/// The controller of an evicted pod (what recreates it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OwnerIdentity {
    /// `kind`, e.g. `ReplicaSet`.
    pub kind: String,
    /// `name`.
    pub name: String,
    /// `uid`: a replacement carries the same owner uid.
    pub uid: String,
}

fn lnu_name() -> String {
    crate::policy::LOW_NODE_UTILIZATION.to_string()
}

/// One planned eviction, in order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlannedEviction {
    /// 1-based position over the whole plan.
    pub order: usize,
    /// The pod, as planned.
    pub pod: PodIdentity,
    /// The overutilized node it leaves.
    pub node: String,
    /// The profile whose run chose it.
    pub profile: String,
    /// The plugin that chose it (`LowNodeUtilization` in plan files written
    /// before whole-policy planning, which lack the field).
    #[serde(default = "lnu_name")]
    pub plugin: String,
    /// The rule that chose it: a utilization plugin's pod order, or a rule
    /// plugin's rule with its numbers.
    pub rule: String,
    /// Why it is evicted: its node is a source of evictions (utilization
    /// plugins), or the rule it breaks.
    pub reason: String,
    /// The controller that recreates it (`None`: nothing recreates it).
    pub owner: Option<OwnerIdentity>,
    /// Carries `descheduler.alpha.kubernetes.io/prefer-no-eviction`.
    pub prefer_no_eviction: bool,
    /// The node the simulation predicts its replacement lands on (simulated plans only).
    pub predicted_node: Option<String>,
    /// The predicted outcome in words, when simulated and not scheduled
    /// (`stays Pending: 0/5 nodes are available: …`, `not recreated`).
    pub predicted_outcome: Option<String>,
}

/// A candidate pod the plan does not evict.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SkippedCandidate {
    /// The pod.
    pub pod: PodIdentity,
    /// The profile whose run skipped it.
    pub profile: String,
    /// The plugin whose run skipped it.
    #[serde(default = "lnu_name")]
    pub plugin: String,
    /// The reason's kind (`NotEvictable`, `MaxTotal`, …).
    pub reason: String,
    /// The reason in words.
    pub message: String,
}

/// The plan file. See the module docs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlanDocument {
    /// `PLAN_FORMAT`.
    pub format: String,
    /// `PLAN_FORMAT_VERSION`.
    pub format_version: u32,
    /// When the document was written.
    pub created_at: DateTime<Utc>,
    /// The kdrift version that wrote it.
    pub kdrift_version: String,
    /// Where the snapshot came from.
    pub source: PlanSource,
    /// The snapshot's instant (same as `snapshot.at`; kept for `rebalance plan -o json` readers).
    pub at: DateTime<Utc>,
    /// The policy file as given, or `helm-chart-default`.
    pub policy_source: String,
    /// The policy as a `DeschedulerPolicy` YAML document ([`Policy::to_yaml`]).
    pub policy: String,
    /// The plan options.
    pub options: DocumentOptions,
    /// The snapshot by identity.
    pub snapshot: SnapshotIdentity,
    /// The evictions in order.
    pub evictions: Vec<PlannedEviction>,
    /// The skipped candidates and why.
    pub skipped: Vec<SkippedCandidate>,
    /// Why nothing was planned at all, if so.
    pub aborted: Option<String>,
    /// The planner's full output ([`crate::Plan`]).
    pub plan: Verbatim<crate::Plan>,
    /// The landing simulation ([`crate::Simulation`]), when simulated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub simulation: Option<Verbatim<crate::Simulation>>,
    /// The nights ([`crate::Rounds`]), when asked for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rounds: Option<Value>,
    /// What the snapshot lacks or had to estimate.
    #[serde(default)]
    pub notes: Vec<String>,
    /// Nodes whose requested amounts are a lower bound (pods or their
    /// requests missing from the snapshot; `notes` say why). Absent when none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lower_bound_nodes: Vec<String>,
}

/// A section of a plan document kept verbatim for people and tools (the
/// planner's output, the landing simulation): as made by this kdrift, written
/// from the typed value itself as the document is serialised, or as read
/// back from a plan file (JSON, which `apply` never interprets). The same
/// JSON either way; a document made by `rebalance plan` held a second copy
/// of its planner output as a `serde_json::Value` (22.6 MB of JSON at 5,000
/// nodes, several times that in memory; kdrift issue 39).
#[derive(Debug, Clone)]
pub enum Verbatim<T> {
    /// Made in this process.
    Made(T),
    /// Read from a plan file.
    Read(Value),
}

impl<T: Serialize> Verbatim<T> {
    /// The section as JSON.
    ///
    /// # Errors
    /// serde's, for a value that cannot be serialised (cannot happen with finite numbers).
    pub fn to_value(&self) -> Result<Value, serde_json::Error> {
        match self {
            Verbatim::Made(made) => serde_json::to_value(made),
            Verbatim::Read(read) => Ok(read.clone()),
        }
    }
}

impl<T: Serialize> Serialize for Verbatim<T> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Verbatim::Made(made) => made.serialize(serializer),
            Verbatim::Read(read) => read.serialize(serializer),
        }
    }
}

impl<'de, T> Deserialize<'de> for Verbatim<T> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Value::deserialize(deserializer).map(Verbatim::Read)
    }
}

/// Equal when their JSON is (a section made here equals the same section read back).
impl<T: Serialize + PartialEq> PartialEq for Verbatim<T> {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Verbatim::Made(a), Verbatim::Made(b)) => a == b,
            (Verbatim::Read(a), Verbatim::Read(b)) => a == b,
            _ => matches!((self.to_value(), other.to_value()), (Ok(a), Ok(b)) if a == b),
        }
    }
}

/// Most characters of a wrong `format` value quoted in
/// [`DocumentError::Format`] (a plan format is 21).
const FORMAT_SHOWN_CHARS: usize = 40;

/// A wrong `format` value as the error quotes it: credential shapes and
/// held credentials masked ([`crate::mask_shown`]), then cut to
/// [`FORMAT_SHOWN_CHARS`] characters (`…` marks a cut; break-it 35 F21).
fn shown_format(format: &str) -> String {
    let masked = crate::mask_shown(format);
    if masked.chars().count() <= FORMAT_SHOWN_CHARS {
        return masked;
    }
    masked.chars().take(FORMAT_SHOWN_CHARS).chain(['…']).collect()
}

impl PlanDocument {
    /// Reads a plan document from JSON text.
    ///
    /// # Errors
    /// [`DocumentError::Format`] / [`DocumentError::Version`] for another
    /// document or a newer format (checked first, so the message says so
    /// rather than naming a missing field); [`DocumentError::Json`] naming
    /// the line and column otherwise.
    pub fn from_json(text: &str) -> Result<PlanDocument, DocumentError> {
        let raw: Value = serde_json::from_str(text).map_err(DocumentError::Json)?;
        let format = raw.get("format").and_then(Value::as_str).unwrap_or_default();
        if format != PLAN_FORMAT {
            return Err(DocumentError::Format { found: shown_format(format) });
        }
        if let Some(v) = raw.get("format_version").and_then(Value::as_u64) {
            if v > u64::from(PLAN_FORMAT_VERSION) {
                return Err(DocumentError::Version { found: u32::try_from(v).unwrap_or(u32::MAX) });
            }
        }
        serde_json::from_str(text).map_err(DocumentError::Json)
    }

    /// The embedded policy, read and validated again.
    ///
    /// # Errors
    /// [`DocumentError::Policy`].
    pub fn policy(&self) -> Result<Policy, DocumentError> {
        Policy::from_yaml(&self.policy).map_err(DocumentError::Policy)
    }

    /// The embedded plan options.
    pub fn plan_options(&self) -> PlanOptions {
        (&self.options).into()
    }
}
