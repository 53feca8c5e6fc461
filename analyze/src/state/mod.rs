//! The cluster as the store knows it at one instant: every node and every pod
//! bound to a node, each as its latest version observed at or before the
//! instant (or, for dumps observed later, the nearest version after it —
//! marked estimated); of versions observed at the same instant, the one the
//! apiserver wrote last (higher resourceVersion), whatever order they were
//! ingested in (the version order: queries/derive/pod_intervals.sql).
//! Objects that cannot be read are listed, not fatal.
//! Pods the store knows only from events are added by [`events`], with
//! estimated requests. [`for_filters`] loads the same state for the
//! scheduler's filters without parsing every pod, and `summed`
//! ([`ClusterAt::load_summed`]) without reading most pods at all: they
//! count by their nodes' summed requests ([`unlisted`] reads the pods a
//! report shows).

pub mod amounts;
mod checkpoints;
mod events;
pub mod for_filters;
pub mod lower_bound;
pub mod spans;
mod summed;
pub mod unlisted;

use chrono::{DateTime, Utc};
use kdrift_rebalance::{NodeInfo, PodInfo};
use kdrift_store::sql;
use kdrift_store::Reader;
use serde_json::Value;

use crate::AnalyzeError;

/// Nodes and pods at an instant.
#[derive(Debug, Clone, Default)]
pub struct ClusterAt {
    /// The instant (UTC).
    pub at: Option<DateTime<Utc>>,
    /// Nodes, by name.
    pub nodes: Vec<NodeInfo>,
    /// Pods that existed at the instant (bound or not).
    pub pods: Vec<PodInfo>,
    /// Names of nodes whose version was observed after the instant.
    pub estimated_nodes: Vec<String>,
    /// `namespace/name` of pods whose version was observed after the instant.
    pub estimated_pods: Vec<String>,
    /// `namespace/name` of pods known only from events (a `Scheduled` event,
    /// requests from the nearest known version of the same owner): estimated.
    pub event_only_pods: Vec<String>,
    /// Of those, the pods whose owner has no stored pod or template: counted with no requests.
    pub requests_unknown: Vec<String>,
    /// Objects the model could not read (`kind namespace/name: why`).
    pub unreadable: Vec<String>,
}

/// `Kind object: why` for an object the cluster model cannot read. The
/// model's own message already starts with `kind object: ` (`pod default/x:
/// spec…`); that prefix is not repeated.
pub(crate) fn unreadable_note(kind: &str, object: &str, why: &str) -> String {
    let lower = kind.to_ascii_lowercase();
    let why = why
        .strip_prefix(&format!("{lower} {object}: "))
        .or_else(|| why.strip_prefix(&format!("{lower} ?: ")))
        .unwrap_or(why);
    format!("{kind} {object}: {why}")
}

impl ClusterAt {
    /// Loads the state at `at` from the store.
    ///
    /// # Errors
    /// [`AnalyzeError::Store`] when a query fails.
    pub fn load(store: &Reader, at: DateTime<Utc>) -> Result<ClusterAt, AnalyzeError> {
        let us = at.timestamp_micros();
        let mut state = ClusterAt::load_nodes(store, at)?;
        let mut steps = crate::steps::Steps::start();
        // Read batch by batch as DuckDB streams them, each batch's models
        // parsed on every core before the next is fetched: the model texts
        // (~0.7 KB a pod) are never all in memory, in DuckDB's result or in
        // ours (kdrift issue 39: 150,000 of them, held twice, were ~0.2 GiB).
        // Sized once from a count: grown as they fill, the lists were
        // copied into twice their size again and again (150,000 pods of
        // ~1 KiB each; the copies' fresh pages were a quarter of the load's
        // time, kdrift issue 39).
        let count = store.query_one(&sql::PODS_AT_COUNT, [us], |r| r.get::<_, i64>(0))?;
        let count = usize::try_from(count).unwrap_or(0);
        let (mut keys, mut read) = (Vec::with_capacity(count), Vec::with_capacity(count));
        // Label keys and values repeat across thousands of pods: each held
        // once (kdrift issue 39 item 4).
        let mut interner = kdrift_rebalance::Interner::new();
        store.for_each_batch(&sql::PODS_AT, [us], |batch| {
            let (ns, name, estimated, model) = (batch.text(0)?, batch.text(1)?, batch.bools(5)?, batch.text(6)?);
            let mut rows = Vec::with_capacity(batch.rows());
            for i in 0..batch.rows() {
                let row = (batch.required_bool(estimated, 5, i)?, model.get(i).ok_or_else(|| batch.null(6))?);
                let ns = ns.get(i).ok_or_else(|| batch.null(0))?;
                keys.push((ns.to_string(), name.get(i).ok_or_else(|| batch.null(1))?.to_string(), row.0));
                rows.push(row);
            }
            let from = read.len();
            read.extend(kdrift_store::map_ordered(rows, |(estimated, json)| read_pod(json, estimated, at)));
            for pod in read[from..].iter_mut().flatten() {
                pod.share_strings(&mut interner);
            }
            Ok(())
        })?;
        steps.done("pods query and read");
        // The query leaves rows in store order (sorting them with their model
        // text in DuckDB was half its time); the state lists pods by
        // namespace and name, versions of one name in store order (a stable
        // sort of the keys, then the pods moved into that order in place).
        let mut order: Vec<usize> = (0..keys.len()).collect();
        order.sort_by(|&a, &b| (&keys[a].0, &keys[a].1).cmp(&(&keys[b].0, &keys[b].1)));
        permute(&mut read, &mut order.clone());
        permute(&mut keys, &mut order);
        steps.done("pods sort");
        for ((ns, name, estimated), pod) in keys.iter().zip(&read) {
            if let Err(e) = pod {
                state.unreadable.push(unreadable_note("Pod", &format!("{ns}/{name}"), e));
            }
            if *estimated {
                state.estimated_pods.push(format!("{ns}/{name}"));
            }
        }
        // Collected in place: a new list copied 150,000 pods of ~1 KiB each
        // into fresh memory (~10 % of why-pending at 1M events).
        state.pods = read.into_iter().filter_map(Result::ok).collect();
        // The stored pods, readable or not: a pod known only from events is one the store has no version of.
        let known =
            |ns: &str, name: &str| keys.binary_search_by(|p| (p.0.as_str(), p.1.as_str()).cmp(&(ns, name))).is_ok();
        events::add_event_only_pods(store, at, &mut state, &known)?;
        steps.done("event-only pods");
        Ok(state)
    }

    /// Only the nodes at `at` (no pods): [`ClusterAt::nodes`],
    /// [`ClusterAt::estimated_nodes`] and unreadable nodes; the pod fields stay empty.
    ///
    /// # Errors
    /// [`AnalyzeError::Store`] when the query fails.
    pub fn load_nodes(store: &Reader, at: DateTime<Utc>) -> Result<ClusterAt, AnalyzeError> {
        let us = at.timestamp_micros();
        let mut state = ClusterAt { at: Some(at), ..ClusterAt::default() };
        let mut steps = crate::steps::Steps::start();
        let nodes = store.query_map(&sql::NODES_AT, [us], |r| {
            Ok((r.get::<_, String>(0)?, r.get::<_, bool>(2)?, r.get::<_, String>(3)?))
        })?;
        steps.done("nodes query");
        let read = read_nodes(nodes.iter().map(|(_, _, json)| json.as_str()).collect());
        steps.done("nodes read");
        for ((name, estimated, _), node) in nodes.into_iter().zip(read) {
            match node {
                Ok(node) => state.nodes.push(node),
                Err(e) => state.unreadable.push(unreadable_note("Node", &name, &e)),
            }
            if estimated {
                state.estimated_nodes.push(name);
            }
        }
        Ok(state)
    }
}

/// Why the store has no nodes at `at`, in words that name the store's time
/// span ([`crate::report::time_span`]): `the store has no Node objects at
/// 2026-01-01T00:00:00Z; its history spans 2026-11-27T00:00:00Z to
/// 2026-11-28T05:30:01Z`, or that the store holds no history at all.
///
/// # Errors
/// [`AnalyzeError::Store`] when the query fails.
pub fn no_nodes_at(store: &Reader, at: DateTime<Utc>) -> Result<String, AnalyzeError> {
    let utc = kdrift_store::instant_text;
    Ok(match crate::report::time_span(store)? {
        None => format!("the store has no Node objects at {}: it holds no history at all", utc(at)),
        Some((first, last)) => {
            let place = if at < first {
                " (before its history)"
            } else if at > last {
                " (after its history)"
            } else {
                ""
            };
            format!(
                "the store has no Node objects at {}{place}; its history spans {} to {}",
                utc(at),
                utc(first),
                utc(last)
            )
        }
    })
}

/// The note on objects known only from versions observed after the
/// instant `at` (as written), naming only the kinds that have some:
/// `1 pod is known only from versions observed after … (estimated from the
/// nearest later version)`, `2 nodes and 1 pod are …`; `None` for none.
/// Shared by `kdrift skew` and `rebalance plan`.
pub fn estimated_note(nodes: usize, pods: usize, at: &str) -> Option<String> {
    use crate::words::count;
    let (what, n) = match (nodes, pods) {
        (0, 0) => return None,
        (0, p) => (count(p, "pod", "pods"), p),
        (n, 0) => (count(n, "node", "nodes"), n),
        (n, p) => (format!("{} and {}", count(n, "node", "nodes"), count(p, "pod", "pods")), 2),
    };
    let verb = crate::words::pick(n, "is", "are");
    Some(format!(
        "{what} {verb} known only from versions observed after {at} (estimated from the nearest later version)"
    ))
}

/// When the store has nodes but no pod bound to any of them at `at` (and no
/// Pod left out as unreadable): the note that their requested amounts are
/// missing data, not empty nodes, e.g. `no bound Pod objects in the store at
/// 2026-01-01T00:00:00Z: requested amounts count no pods (ingest `kubectl get
/// pods -A -o json` for them)`. Shared by `kdrift skew` and `rebalance plan`.
/// `unreadable` holds the `Kind object: why` entries of objects left out.
pub fn no_bound_pods_note(
    at: DateTime<Utc>,
    has_nodes: bool,
    has_bound_pods: bool,
    unreadable: &[String],
) -> Option<String> {
    let unreadable_pods = unreadable.iter().any(|u| u.starts_with("Pod "));
    (has_nodes && !has_bound_pods && !unreadable_pods).then(|| {
        format!(
            "no bound Pod objects in the store at {}: requested amounts count no pods (ingest `kubectl get pods -A -o json` for them)",
            kdrift_store::instant_text(at)
        )
    })
}

/// When `at` is after the store's history: a note naming the store's last
/// recorded instant (the state shown is the one last recorded, which may no
/// longer hold), e.g. `2027-01-01T00:00:00Z is after the store's history: its
/// last recorded instant is 2026-11-28T05:30:01Z; showing the state as
/// recorded then`. `None` within (or before) the history, or for an empty store.
///
/// # Errors
/// [`AnalyzeError::Store`] when the query fails.
pub fn after_history(store: &Reader, at: DateTime<Utc>) -> Result<Option<String>, AnalyzeError> {
    let utc = kdrift_store::instant_text;
    Ok(match crate::report::time_span(store)? {
        Some((_, last)) if at > last => Some(format!(
            "{} is after the store's history: its last recorded instant is {}; showing the state as recorded then",
            utc(at),
            utc(last)
        )),
        _ => None,
    })
}

/// Reads node models (`node_versions.model` JSON text), in order, on every
/// core: 5,000 nodes are about a third of `kdrift skew`'s time when read on
/// one (kdrift issue 6). An unreadable node gives the model's or the JSON
/// parser's message.
pub(crate) fn read_nodes(models: Vec<&str>) -> Vec<Result<NodeInfo, String>> {
    // Typed, without a `Value` per node (same node or error text).
    kdrift_store::map_ordered(models, |json| NodeInfo::from_json_text(json).map_err(|e| e.to_string()))
}

/// A pod version to read: namespace, name, estimated (observed after the
/// instant), model text (`pod_versions.model`).
pub(crate) type ModelRow = (String, String, bool, String);

/// Reads the pods of `pods_at` rows (`namespace, name, estimated, model`),
/// in order, on every core: parsing 150,000 pod models is most of the cost
/// of loading a large cluster (kdrift issue 6).
fn read_pods(rows: &[ModelRow], at: DateTime<Utc>) -> Vec<Result<PodInfo, String>> {
    kdrift_store::map_ordered(rows.iter().collect(), |(_, _, estimated, json): &ModelRow| {
        read_pod(json, *estimated, at)
    })
}

/// Reads one pod model (`pod_versions.model`); `estimated`: the version
/// was observed after `at`, so a binding after `at` is left out.
fn read_pod(json: &str, estimated: bool, at: DateTime<Utc>) -> Result<PodInfo, String> {
    if !estimated {
        // Typed, without a `Value` per pod (same pod or error text).
        return PodInfo::from_json_text(json).map_err(|e| e.to_string());
    }
    serde_json::from_str::<Value>(json).map_err(|e| e.to_string()).and_then(|v| {
        let mut pod = PodInfo::from_json(&v).map_err(|e| e.to_string())?;
        // A version observed after the instant may show a binding
        // that happened after it: PodScheduled turned True later.
        if bound_after(&v, at) {
            pod.node_name = None;
        }
        Ok(pod)
    })
}

/// Moves `items` into the order `order` gives (`items[i]` becomes the
/// former `items[order[i]]`; `order` a permutation of the indices), in
/// place: following each cycle with swaps, no second list of the items
/// (150,000 pods of ~1 KiB each). `order` is used up.
fn permute<T>(items: &mut [T], order: &mut [usize]) {
    const DONE: usize = usize::MAX;
    for start in 0..items.len().min(order.len()) {
        let mut at = start;
        while order[at] != DONE {
            let from = order[at];
            order[at] = DONE;
            if from == start || from >= items.len() {
                break;
            }
            items.swap(at, from);
            at = from;
        }
    }
}

/// Whether the pod's `PodScheduled` condition turned True after `at` (so at
/// `at` it was not bound yet).
fn bound_after(pod: &Value, at: DateTime<Utc>) -> bool {
    let Some(conditions) = pod.pointer("/status/conditions").and_then(Value::as_array) else { return false };
    conditions.iter().any(|c| {
        c.get("type").and_then(Value::as_str) == Some("PodScheduled")
            && c.get("status").and_then(Value::as_str) == Some("True")
            && c.get("lastTransitionTime")
                .and_then(Value::as_str)
                .and_then(|t| DateTime::parse_from_rfc3339(t).ok())
                .is_some_and(|t| t.with_timezone(&Utc) > at)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_estimated_note_names_only_the_kinds_it_counts_agreeing_in_number() {
        let tail = "known only from versions observed after T (estimated from the nearest later version)";
        assert_eq!(estimated_note(0, 0, "T"), None);
        assert_eq!(estimated_note(0, 1, "T"), Some(format!("1 pod is {tail}")));
        assert_eq!(estimated_note(0, 72, "T"), Some(format!("72 pods are {tail}")));
        assert_eq!(estimated_note(1, 0, "T"), Some(format!("1 node is {tail}")));
        assert_eq!(estimated_note(1, 1, "T"), Some(format!("1 node and 1 pod are {tail}")));
        assert_eq!(estimated_note(4, 72, "T"), Some(format!("4 nodes and 72 pods are {tail}")));
    }

    #[test]
    fn permute_moves_items_into_the_order_given() {
        let order = [3, 0, 4, 1, 2, 6, 5, 7];
        let mut items: Vec<char> = "abcdefgh".chars().collect();
        let expected: Vec<char> = order.iter().map(|&i| items[i]).collect();
        permute(&mut items, &mut order.clone());
        assert_eq!(items, expected);
        let mut one = vec!['x'];
        permute(&mut one, &mut [0]);
        assert_eq!(one, ['x']);
    }

    #[test]
    fn binding_after_the_instant_is_detected() {
        let at = DateTime::parse_from_rfc3339("2019-03-08T08:48:30Z").expect("t").with_timezone(&Utc);
        let pod = json!({"status": {"conditions": [
            {"type": "PodScheduled", "status": "True", "lastTransitionTime": "2019-03-08T08:48:31Z"}]}});
        assert!(bound_after(&pod, at));
        let earlier = json!({"status": {"conditions": [
            {"type": "PodScheduled", "status": "True", "lastTransitionTime": "2019-03-08T08:48:29Z"}]}});
        assert!(!bound_after(&earlier, at));
        assert!(!bound_after(&json!({}), at));
    }

    #[test]
    fn an_unreadable_object_is_named_once() {
        let pod = PodInfo::from_json(&json!({"kind": "Pod", "metadata": {"name": "x", "namespace": "d"},
            "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "abc"}}}]}}))
        .expect_err("bad cpu");
        let note = unreadable_note("Pod", "d/x", &pod.to_string());
        assert!(
            note.starts_with("Pod d/x: spec.containers[0].resources.requests.cpu: \"abc\" is not a quantity"),
            "{note}"
        );
        assert_eq!(unreadable_note("Node", "n1", "expected JSON"), "Node n1: expected JSON");
        assert_eq!(
            unreadable_note("Pod", "d/x", "pod ?: metadata.name: boolean true"),
            "Pod d/x: metadata.name: boolean true"
        );
    }
}
