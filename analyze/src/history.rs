//! What the store says happened between two instants, as typed rows: node
//! signals (cordon, readiness, reboots, node-controller actions), evidence of
//! pod evictions, and pod placements (bindings). Shared by the drain
//! timeline, the "why is that node full" part of the Pending chain and the
//! event-only reconstruction of placements.

use chrono::{DateTime, Utc};
use kdrift_store::sql;
use kdrift_store::Reader;
use serde::Serialize;

use crate::AnalyzeError;

/// An instant far enough in the past to mean "from the beginning".
pub fn beginning() -> DateTime<Utc> {
    DateTime::<Utc>::from_timestamp(0, 0).unwrap_or(DateTime::<Utc>::MIN_UTC)
}

/// An instant far enough in the future to mean "to the end" (year 2255,
/// inside DuckDB's timestamp range).
pub fn far_future() -> DateTime<Utc> {
    DateTime::<Utc>::from_timestamp(9_000_000_000, 0).unwrap_or(DateTime::<Utc>::MAX_UTC)
}

/// What a node signal says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SignalKind {
    /// Cordoned (`spec.unschedulable: true`, `NodeNotSchedulable`).
    Cordon,
    /// Uncordoned (`NodeSchedulable`).
    Uncordon,
    /// The Ready condition left True (`NodeNotReady`).
    NotReady,
    /// The Ready condition became True (`NodeReady`).
    Ready,
    /// A new boot id (`Rebooted`, `status.nodeInfo.bootID`).
    Rebooted,
    /// The kubelet (or kube-proxy) started (`Starting`).
    Starting,
    /// The node registered with the node controller (`RegisteredNode`).
    Registered,
    /// The node controller deleted the node's pods (`DeletingAllPods`).
    DeletingPods,
    /// The node controller removed the node (`RemovingNode`).
    Removing,
    /// A managed upgrade started draining the node (AKS `Drain`).
    Drain,
}

impl SignalKind {
    fn parse(s: &str) -> Option<SignalKind> {
        Some(match s {
            "cordon" => SignalKind::Cordon,
            "uncordon" => SignalKind::Uncordon,
            "not_ready" => SignalKind::NotReady,
            "ready" => SignalKind::Ready,
            "rebooted" => SignalKind::Rebooted,
            "starting" => SignalKind::Starting,
            "registered" => SignalKind::Registered,
            "deleting_pods" => SignalKind::DeletingPods,
            "removing" => SignalKind::Removing,
            "drain" => SignalKind::Drain,
            _ => return None,
        })
    }
}

/// One thing that happened to a node (query `node_signals`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NodeSignal {
    /// Node name.
    pub node: String,
    /// When (UTC).
    pub at: DateTime<Utc>,
    /// What.
    pub kind: SignalKind,
    /// `object` (a change between two stored Node versions) or `event`.
    pub source: String,
    /// The event reason, or the object field that changed.
    pub reason: String,
    /// The event message, or the new value.
    pub detail: String,
    /// The time is estimated (a dump's first version: taint or condition time).
    pub estimated: bool,
}

/// One piece of evidence that a pod was evicted or stopped (query `pod_evictions`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EvictionEvidence {
    /// Namespace.
    pub namespace: String,
    /// Pod name.
    pub name: String,
    /// Pod uid (`""` when unknown).
    pub uid: String,
    /// The node it was on, when the evidence says.
    pub node: Option<String>,
    /// When (UTC).
    pub at: DateTime<Utc>,
    /// `DisruptionTarget`, `Killing`, `Evicted`, `NodeControllerEviction`,
    /// `TaintManagerEviction` or `Deleted`.
    pub evidence: String,
    /// Condition reason and message, or the event message.
    pub detail: String,
}

/// One binding of a pod to a node (query `pod_placements`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Placement {
    /// Namespace.
    pub namespace: String,
    /// Pod name.
    pub name: String,
    /// Pod uid (`""` when unknown).
    pub uid: String,
    /// The node.
    pub node: String,
    /// When it was bound (UTC).
    pub bound_at: DateTime<Utc>,
    /// Owner kind (`ReplicaSet`, `Job`, `DaemonSet`, …), when known.
    pub owner_kind: Option<String>,
    /// Owner name, when known.
    pub owner_name: Option<String>,
    /// When the pod was created, when known.
    pub created_at: Option<DateTime<Utc>>,
    /// `event` (Scheduled only), `object` (Pod versions only) or `both`.
    pub known_from: String,
}

impl Placement {
    /// `namespace/name`.
    pub fn key(&self) -> String {
        format!("{}/{}", self.namespace, self.name)
    }

    /// `Kind/name` of the owner, when known.
    pub fn owner(&self) -> Option<String> {
        match (&self.owner_kind, &self.owner_name) {
            (Some(k), Some(n)) => Some(format!("{k}/{n}")),
            _ => None,
        }
    }
}

fn bounds(since: DateTime<Utc>, until: DateTime<Utc>) -> [i64; 2] {
    [since.timestamp_micros(), until.timestamp_micros()]
}

/// Node signals between `since` and `until`, by node then time. Rows with a
/// signal this build does not know are skipped.
///
/// # Errors
/// [`AnalyzeError::Store`] when the query fails.
pub fn node_signals(
    store: &Reader,
    since: DateTime<Utc>,
    until: DateTime<Utc>,
) -> Result<Vec<NodeSignal>, AnalyzeError> {
    // Column by column: 55,000 signals at 10M events.
    let batches = store.query_columns(&sql::NODE_SIGNALS, bounds(since, until))?;
    let mut out = Vec::with_capacity(batches.rows());
    for c in batches.iter() {
        let (node, at, kind, source) = (c.text(0)?, c.times(1)?, c.text(2)?, c.text(3)?);
        let (reason, detail, estimated) = (c.text(4)?, c.text(5)?, c.bools(6)?);
        for row in 0..c.rows() {
            let Some(kind) = SignalKind::parse(kind.get(row).ok_or_else(|| c.null(2))?) else { continue };
            out.push(NodeSignal {
                node: node.get(row).ok_or_else(|| c.null(0))?.to_string(),
                at: at.get(row).ok_or_else(|| c.null(1))?,
                kind,
                source: source.get(row).ok_or_else(|| c.null(3))?.to_string(),
                reason: reason.get(row).unwrap_or_default().to_string(),
                detail: detail.get(row).unwrap_or_default().to_string(),
                estimated: c.required_bool(estimated, 6, row)?,
            });
        }
    }
    Ok(out)
}

pub(crate) fn evidence_row(r: &kdrift_store::Row<'_, '_>) -> Result<EvictionEvidence, kdrift_store::RowError> {
    Ok(EvictionEvidence {
        namespace: r.get(0)?,
        name: r.get(1)?,
        uid: r.get(2)?,
        node: r.get::<_, Option<String>>(3)?.filter(|n| !n.is_empty()),
        at: r.get(4)?,
        evidence: r.get(5)?,
        detail: r.get::<_, Option<String>>(6)?.unwrap_or_default(),
    })
}

/// The eviction evidence a drain timeline can attach (query
/// `episode_evictions`), oldest first: evidence naming a node inside one of
/// `ranges` (node, from, to; UTC, both inclusive) for that node, and
/// evidence naming no node between `since` and `until`. The rows of query
/// `pod_evictions` filtered that way, without converting the rest (at 10M
/// events every pod deletion is evidence: 1.5M rows).
///
/// # Errors
/// [`AnalyzeError::Store`] when the query fails.
pub fn eviction_evidence_in(
    store: &Reader,
    ranges: &[(&str, DateTime<Utc>, DateTime<Utc>)],
    since: DateTime<Utc>,
    until: DateTime<Utc>,
) -> Result<Vec<EvictionEvidence>, AnalyzeError> {
    let list = ranges_json(ranges);
    let params = kdrift_store::params![list, since.timestamp_micros(), until.timestamp_micros()];
    Ok(store.query_map(&sql::EPISODE_EVICTIONS, params, evidence_row)?)
}

/// The `episodes` parameter of `episode_evictions`:
/// `[{"node", "from_us", "to_us"}]` (UTC microseconds). JSON, so that any
/// node name passes through unchanged.
fn ranges_json(ranges: &[(&str, DateTime<Utc>, DateTime<Utc>)]) -> String {
    let list: Vec<serde_json::Value> = ranges
        .iter()
        .map(|(node, from, to)| {
            serde_json::json!({ "node": node, "from_us": from.timestamp_micros(), "to_us": to.timestamp_micros() })
        })
        .collect();
    serde_json::Value::Array(list).to_string()
}

/// Placements between `since` and `until`, oldest binding first.
///
/// # Errors
/// [`AnalyzeError::Store`] when the query fails.
pub fn placements(store: &Reader, since: DateTime<Utc>, until: DateTime<Utc>) -> Result<Vec<Placement>, AnalyzeError> {
    Ok(store.query_map(&sql::POD_PLACEMENTS, bounds(since, until), placement_row)?)
}

/// The pods bound at or before `at` that the store knows only from their
/// Scheduled event (query `event_only_placements`: `known_from` is always
/// `event`), oldest binding first. Reads no pod object, unlike
/// [`placements`] over the whole history.
///
/// # Errors
/// [`AnalyzeError::Store`] when the query fails.
pub fn event_only_placements(store: &Reader, at: DateTime<Utc>) -> Result<Vec<Placement>, AnalyzeError> {
    Ok(store.query_map(&sql::EVENT_ONLY_PLACEMENTS, [at.timestamp_micros()], placement_row)?)
}

pub(crate) fn placement_row(r: &kdrift_store::Row<'_, '_>) -> Result<Placement, kdrift_store::RowError> {
    Ok(Placement {
        namespace: r.get(0)?,
        name: r.get(1)?,
        uid: r.get(2)?,
        node: r.get(3)?,
        bound_at: r.get(4)?,
        owner_kind: r.get(5)?,
        owner_name: r.get(6)?,
        created_at: r.get(7)?,
        known_from: r.get(8)?,
    })
}

/// The owner a pod name suggests when nothing else says: a Deployment's pod
/// `web-7d4b9c-x2x9k` → ReplicaSet `web-7d4b9c`; a Job's or DaemonSet's pod
/// `backup-29930640-abcde` → `backup-29930640`; a StatefulSet's `db-0` →
/// `db`. `None` for a name without a `-`.
pub fn owner_from_name(name: &str) -> Option<&str> {
    let (prefix, _) = name.rsplit_once('-')?;
    (!prefix.is_empty()).then_some(prefix)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn owner_prefixes() {
        assert_eq!(owner_from_name("web-7d4b9c-x2x9k"), Some("web-7d4b9c"));
        assert_eq!(owner_from_name("db-0"), Some("db"));
        assert_eq!(owner_from_name("standalone"), None);
        assert_eq!(owner_from_name("-x"), None);
    }

    #[test]
    fn signal_names_round_trip() {
        for (s, k) in [("cordon", SignalKind::Cordon), ("deleting_pods", SignalKind::DeletingPods)] {
            assert_eq!(SignalKind::parse(s), Some(k));
        }
        assert_eq!(SignalKind::parse("bogus"), None);
    }
}
