//! The cluster at instants as nodes and per-node requested amounts, read
//! from the store's aggregates (`nodes_at_instants`, and the requested-amount
//! checkpoints: [`super::checkpoints`]) instead of every pod object: what the drain
//! timeline's before/after amounts and `kdrift skew` need, at 150,000 pods
//! in tens of milliseconds (kdrift issue 6).
//!
//! The numbers are those of [`ClusterAt::load`] followed by
//! `NodePods::usage` (the same pods, the same effective requests: the store
//! computes each pod version's requests at ingest with the cluster model);
//! pods known only from events are added the same way, through the same
//! code ([`super::events`]). Tested equal on the demo, the real dumps and a
//! scale store.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::sync::Arc;

use chrono::{DateTime, Utc};
use kdrift_rebalance::{NodeInfo, NodePods, PodInfo, ResourceList};
use kdrift_store::sql;
use kdrift_store::Reader;

use super::checkpoints::{checkpoint_times, pod_amounts_at, pod_amounts_at_instants, PodAmounts};
use super::events::{event_only_pods, GoneEvidence};
use super::ClusterAt;
use crate::history::event_only_placements;
use crate::AnalyzeError;

/// What counts toward one node at an instant.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct NodeUsage {
    /// Summed effective requests of the pods counting toward the node (cpu
    /// millicores, memory bytes, others in their units), with `pods` = their number.
    pub requested: ResourceList,
    /// Some pod counted was observed after the instant or is known only from events.
    pub estimated: bool,
    /// Pods counted with no requests: known only from events, with no
    /// stored version of their owner either (the amounts are a lower bound).
    pub requests_unknown: usize,
}

/// Nodes and per-node requested amounts at one instant.
#[derive(Debug, Clone, Default)]
pub struct AmountsAt {
    /// The instant (UTC).
    pub at: Option<DateTime<Utc>>,
    /// Nodes, by name (as [`ClusterAt::nodes`]), shared between the
    /// instants a node version holds at.
    pub nodes: Vec<Arc<NodeInfo>>,
    /// Per node name: what counts toward it (nodes without pods are absent).
    pub usage: BTreeMap<String, NodeUsage>,
    /// Names of nodes whose version was observed after the instant.
    pub estimated_nodes: Vec<String>,
    /// Pods stored at the instant whose version was observed after it.
    pub estimated_pods: u64,
    /// `namespace/name` of pods known only from events (see [`ClusterAt::event_only_pods`]).
    pub event_only_pods: Vec<String>,
    /// Of those, the pods with no owner sample: counted with no requests.
    pub requests_unknown: Vec<String>,
    /// Objects the model could not read (`kind namespace/name: why`).
    pub unreadable: Vec<String>,
}

impl AmountsAt {
    /// What counts toward `node` (nothing for a node without pods).
    pub fn usage_of(&self, node: &str) -> NodeUsage {
        self.usage.get(node).cloned().unwrap_or_default()
    }
}

/// Adds the nodes at each instant of `list` (UTC microseconds, comma
/// separated: the keys of `by_at`) to `by_at`: a version that holds at
/// several instants is read once.
fn add_nodes(store: &Reader, list: &str, by_at: &mut HashMap<i64, AmountsAt>) -> Result<(), AnalyzeError> {
    // Column by column (20 instants of 5,000 nodes are 100,000 rows), the
    // names and objects borrowed from the result.
    let batches = store.query_columns(&sql::NODES_AT_INSTANTS, [list])?;
    let mut rows: Vec<(i64, &str, i64, bool, Option<&str>)> = Vec::new();
    for c in batches.iter() {
        let (at_us, name, obs_id, estimated, object) = (c.int64(0)?, c.text(1)?, c.int64(2)?, c.bools(3)?, c.text(4)?);
        for row in 0..c.rows() {
            rows.push((
                c.required_i64(at_us, 0, row)?,
                name.get(row).ok_or_else(|| c.null(1))?,
                c.required_i64(obs_id, 2, row)?,
                c.required_bool(estimated, 3, row)?,
                object.get(row),
            ));
        }
    }
    // Each version is parsed once (on every core; its object comes with its
    // first row only) and shared by every instant it holds at: 20 instants
    // of 5,000 nodes are 5,000 parses and no copy.
    let mut seen: HashSet<i64> = HashSet::new();
    let mut first: Vec<(i64, &str)> = Vec::new();
    let mut per_instant: HashMap<i64, usize> = HashMap::new();
    for (at_us, _, obs_id, _, json) in &rows {
        if let (true, Some(json)) = (seen.insert(*obs_id), json) {
            first.push((*obs_id, json));
        }
        *per_instant.entry(*at_us).or_default() += 1;
    }
    let read = super::read_nodes(first.iter().map(|(_, json)| *json).collect());
    let parsed: HashMap<i64, Result<Arc<NodeInfo>, String>> =
        first.iter().map(|(id, _)| *id).zip(read.into_iter().map(|r| r.map(Arc::new))).collect();
    for (at_us, n) in per_instant {
        if let Some(out) = by_at.get_mut(&at_us) {
            out.nodes.reserve_exact(n);
        }
    }
    for (at_us, name, obs_id, estimated, _) in &rows {
        let Some(out) = by_at.get_mut(at_us) else { continue };
        match parsed.get(obs_id) {
            Some(Ok(node)) => out.nodes.push(Arc::clone(node)),
            Some(Err(e)) => out.unreadable.push(super::unreadable_note("Node", name, e)),
            None => {}
        }
        if *estimated {
            out.estimated_nodes.push(name.to_string());
        }
    }

    Ok(())
}

/// How [`amounts_at_by`] reads the pods' amounts from the checkpoints:
/// the same numbers either way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PodAmountsRead {
    /// Two queries per instant, each reading one checkpoint and at most an
    /// hour of changes (`requested_since_checkpoint`, `requested_extras_at`):
    /// the fastest for a few instants spread over a long history.
    PerInstant,
    /// Two queries for every instant (`requested_at_instants`,
    /// `requested_extras_at_instants`): for many instants, whose per-query
    /// cost dominates (the report's requested % series: 733 instants on the
    /// demo store took ~1,466 queries).
    OneQuery,
}

/// From this many instants on, [`amounts_at`] reads the pods' amounts
/// with [`PodAmountsRead::OneQuery`]; below, [`PodAmountsRead::PerInstant`]
/// (the drain timeline's 20 instants and `skew --at`'s one, tuned at 10M
/// events to read only the row groups of their hours).
pub const ONE_QUERY_FROM: usize = 64;

/// The amounts at every instant of `instants` (in that order; repeated
/// instants are answered once each): the nodes with one query for all of
/// them, the pods' amounts from the checkpoints ingest keeps
/// (`super::checkpoints`), per instant below [`ONE_QUERY_FROM`] instants,
/// else in one query.
///
/// # Errors
/// [`AnalyzeError::Store`] when a query fails.
pub fn amounts_at(store: &Reader, instants: &[DateTime<Utc>]) -> Result<Vec<AmountsAt>, AnalyzeError> {
    let how = if instants.len() >= ONE_QUERY_FROM { PodAmountsRead::OneQuery } else { PodAmountsRead::PerInstant };
    amounts_at_by(store, instants, how)
}

/// [`amounts_at`], the pods' amounts read as `how` says.
///
/// # Errors
/// [`AnalyzeError::Store`] when a query fails.
pub fn amounts_at_by(
    store: &Reader,
    instants: &[DateTime<Utc>],
    how: PodAmountsRead,
) -> Result<Vec<AmountsAt>, AnalyzeError> {
    amounts(store, instants, how, true)
}

/// [`amounts_at`] for what the nodes show ([`crate::usage::requested_from`]:
/// each Node's usage): at an instant without any Node the pods known only
/// from events are not looked for (they count toward nodes the state does
/// not have), and [`AmountsAt::event_only_pods`] and
/// [`AmountsAt::requests_unknown`] stay empty there. On a store of events
/// alone (a VictoriaLogs pull of 100,000 events, 10,959 Pending pods) that
/// search was 98.5 s of the report's 2 min (dev profile), for nothing shown.
///
/// # Errors
/// [`AnalyzeError::Store`] when a query fails.
pub(crate) fn amounts_for_nodes_at(store: &Reader, instants: &[DateTime<Utc>]) -> Result<Vec<AmountsAt>, AnalyzeError> {
    let how = if instants.len() >= ONE_QUERY_FROM { PodAmountsRead::OneQuery } else { PodAmountsRead::PerInstant };
    amounts(store, instants, how, false)
}

/// [`amounts_at_by`]; `without_nodes`: also look for the pods known only
/// from events at instants without any Node.
fn amounts(
    store: &Reader,
    instants: &[DateTime<Utc>],
    how: PodAmountsRead,
    without_nodes: bool,
) -> Result<Vec<AmountsAt>, AnalyzeError> {
    let mut steps = crate::steps::Steps::start();
    let list = instants.iter().map(|t| t.timestamp_micros().to_string()).collect::<Vec<_>>().join(",");
    let mut by_at: HashMap<i64, AmountsAt> =
        instants.iter().map(|t| (t.timestamp_micros(), AmountsAt { at: Some(*t), ..AmountsAt::default() })).collect();

    // The pods (a checkpoint and the changes since, per instant: schema v8)
    // on a second connection while this one reads the nodes: each takes
    // ~0.3 s for the drain timeline's 20 instants at 10M events, mostly on
    // one core (kdrift issue 6).
    let at_list: Vec<i64> = by_at.keys().copied().collect();
    let (nodes, pods) = crate::alongside::alongside(
        store,
        |reader| -> Result<Vec<(i64, PodAmounts)>, AnalyzeError> {
            if how == PodAmountsRead::OneQuery {
                return Ok(pod_amounts_at_instants(reader, &at_list)?.into_iter().collect());
            }
            let times = checkpoint_times(reader)?;
            at_list.iter().map(|at| Ok((*at, pod_amounts_at(reader, &times, *at)?))).collect()
        },
        || add_nodes(store, &list, &mut by_at),
    )?;
    nodes?;
    steps.done("amounts: nodes, pods");
    for (at_us, pods) in pods? {
        if let Some(out) = by_at.get_mut(&at_us) {
            out.usage = pods.usage;
            out.estimated_pods = pods.estimated_pods;
            out.unreadable.extend(pods.unreadable);
        }
    }
    add_event_only(store, instants, &mut by_at, without_nodes)?;
    steps.done("amounts: event-only pods");
    // Moved out, not copied (5,000 nodes per instant); a repeated instant gets a copy.
    let mut out: Vec<AmountsAt> = Vec::with_capacity(instants.len());
    for t in instants {
        let amounts = match by_at.remove(&t.timestamp_micros()) {
            Some(a) => a,
            None => out.iter().find(|a| a.at == Some(*t)).cloned().unwrap_or_default(),
        };
        out.push(amounts);
    }
    Ok(out)
}

/// Adds the pods known only from events at each instant (the same pods, by
/// the same code, as [`ClusterAt::load`]): one query for the placements of
/// every instant; the stored pods' names are read only for instants that
/// have some.
fn add_event_only(
    store: &Reader,
    instants: &[DateTime<Utc>],
    by_at: &mut HashMap<i64, AmountsAt>,
    without_nodes: bool,
) -> Result<(), AnalyzeError> {
    let Some(last) = instants.iter().max() else { return Ok(()) };
    let placements = event_only_placements(store, *last)?;
    if placements.is_empty() {
        return Ok(());
    }
    // The deletion evidence and the sources' coverage, once for every instant.
    let evidence = GoneEvidence::read(store, *last)?;
    for (at_us, out) in by_at.iter_mut() {
        let Some(at) = out.at else { continue };
        if (!without_nodes && out.nodes.is_empty()) || !placements.iter().any(|p| p.bound_at <= at) {
            continue;
        }
        // Every stored pod at the instant, readable or not (as `ClusterAt::load`), by name alone.
        let known: BTreeSet<(String, String)> = store
            .query_map(&sql::POD_NAMES_AT, [*at_us], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))?
            .into_iter()
            .collect();
        let known = |ns: &str, name: &str| known.contains(&(ns.into(), name.into()));
        let found = event_only_pods(store, at, &placements, &known, &evidence)?;
        let unknown: BTreeSet<&str> = found.requests_unknown.iter().map(String::as_str).collect();
        let added = usage_by_node(&found.pods, |_| true, |p| unknown.contains(p.key().as_str()));
        for (node, more) in added {
            let usage = out.usage.entry(node).or_default();
            usage.requested.add(&more.requested);
            usage.estimated = true;
            usage.requests_unknown += more.requests_unknown;
        }
        out.event_only_pods = found.keys;
        out.requests_unknown = found.requests_unknown;
    }
    Ok(())
}

/// What `pods` add to each node, as the scheduler cache counts it
/// (`NodePods::usage`: pods that count toward a node, their summed requests,
/// `pods` = their number); a node is estimated when `estimated` holds for one
/// of its pods, and `requests_unknown` counts its pods for which `unknown` holds.
fn usage_by_node(
    pods: &[PodInfo],
    estimated: impl Fn(&PodInfo) -> bool,
    unknown: impl Fn(&PodInfo) -> bool,
) -> BTreeMap<String, NodeUsage> {
    let by_node = NodePods::of(pods, 0);
    by_node
        .nodes()
        .map(|n| {
            let on = by_node.pods_on(n);
            let usage = NodeUsage {
                requested: by_node.usage(n),
                estimated: on.iter().any(|p| estimated(p)),
                requests_unknown: on.iter().filter(|p| unknown(p)).count(),
            };
            (n.to_string(), usage)
        })
        .collect()
}

impl From<&ClusterAt> for AmountsAt {
    /// The amounts of a loaded state (`NodePods::usage` per node): what
    /// [`amounts_at`] reads from the aggregates, computed from the pods.
    fn from(cluster: &ClusterAt) -> AmountsAt {
        let estimated: std::collections::HashSet<&str> =
            cluster.estimated_pods.iter().chain(cluster.event_only_pods.iter()).map(String::as_str).collect();
        let unknown: std::collections::HashSet<&str> = cluster.requests_unknown.iter().map(String::as_str).collect();
        let usage = usage_by_node(
            &cluster.pods,
            |p| estimated.contains(p.key().as_str()),
            |p| !unknown.is_empty() && unknown.contains(p.key().as_str()),
        );
        AmountsAt {
            at: cluster.at,
            nodes: cluster.nodes.iter().cloned().map(Arc::new).collect(),
            usage,
            estimated_nodes: cluster.estimated_nodes.clone(),
            estimated_pods: cluster.estimated_pods.len() as u64,
            event_only_pods: cluster.event_only_pods.clone(),
            requests_unknown: cluster.requests_unknown.clone(),
            unreadable: cluster.unreadable.clone(),
        }
    }
}
