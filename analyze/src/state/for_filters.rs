//! The cluster at an instant as kube-scheduler's filters need it, read
//! without parsing every pod (schema v10, kdrift issue 6): each pod comes
//! from its filter fields (query `pod_filter_fields_at`: node, requests,
//! labels; [`kdrift_rebalance::pod_for_filters`]) unless it
//! must be read whole — host ports or inter-pod (anti-)affinity terms, a
//! model the cluster model cannot read, or a version observed after the
//! instant — and those few come from their models (query `pod_models`, by
//! obs_id).
//!
//! The result is [`ClusterAt::load`]'s: the same pods in the same order, the
//! same unreadable and estimated lists, the same event-only pods, with the
//! same filter verdicts on every node (for an incoming pod with required
//! inter-pod terms, when loaded with labels); only the pods read from their
//! filter fields lack what the filters do not read (owners, priority, QoS, …), so
//! a caller that shows pods reads them whole with [`FilterVersions::whole`]
//! (tests: `kdrift_tests::assert_filter_load_agrees`). When a stored row's
//! filter fields cannot be read (a store migrated with odd labels), the
//! whole load is used instead.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use kdrift_rebalance::PodInfo;
use kdrift_rebalance::{pod_for_filters, FilterFields};
use kdrift_store::sql;
use kdrift_store::Reader;

use super::{events, read_pods, unreadable_note, ClusterAt};
use crate::AnalyzeError;

/// One `pod_filter_fields_at` row.
struct Row {
    obs_id: i64,
    namespace: String,
    name: String,
    uid: Option<String>,
    node: Option<String>,
    cpu: Option<i64>,
    memory: Option<i64>,
    other: Option<String>,
    labels: Option<String>,
    whole: bool,
    estimated: bool,
}

/// The stored version (obs_id) of each pod [`ClusterAt::load_for_filters`]
/// read from its filter fields alone, to read those pods whole later
/// ([`FilterVersions::whole`]). Empty when every pod was read whole.
#[derive(Debug, Clone, Default)]
pub struct FilterVersions {
    /// `(namespace, name, uid, obs_id)` by namespace and name (as stored:
    /// `""` for no uid).
    versions: Vec<(String, String, Option<String>, i64)>,
}

impl FilterVersions {
    /// How many pods were read from their filter fields alone.
    pub fn len(&self) -> usize {
        self.versions.len()
    }

    /// Whether every pod was read whole.
    pub fn is_empty(&self) -> bool {
        self.versions.is_empty()
    }

    /// The obs_id `pod` was read from, when it was read from its filter
    /// fields (no version has an empty namespace: such a store is read whole).
    fn version_of(&self, pod: &PodInfo) -> Option<i64> {
        let (ns, name) = (pod.namespace.as_str(), pod.name.as_str());
        let from = self.versions.partition_point(|v| (v.0.as_str(), v.1.as_str()) < (ns, name));
        self.versions[from..]
            .iter()
            .take_while(|v| v.0 == ns && v.1 == name)
            // The model reads an empty uid as none.
            .find(|v| v.2.as_deref().filter(|u| !u.is_empty()) == pod.uid.as_deref())
            .map(|v| v.3)
    }

    /// The whole pods (every field the model reads) of those of `pods` that
    /// were read from their filter fields, by namespace, name and uid: what a
    /// report shows of the pods on the nodes it explains. The others (read
    /// whole already, or known only from events) are not in the map; use
    /// [`whole`] to pick. A model that no longer reads is left out.
    ///
    /// # Errors
    /// [`AnalyzeError::Store`] when the query fails.
    pub fn whole(&self, store: &Reader, pods: &[&PodInfo]) -> Result<HashMap<PodKey, PodInfo>, AnalyzeError> {
        let ids: Vec<i64> = pods.iter().filter_map(|p| self.version_of(p)).collect();
        let models = read_models(store, &ids)?;
        let rows: Vec<(String, String, bool, String)> =
            models.into_values().map(|json| (String::new(), String::new(), false, json)).collect();
        // Not estimated: `at` is not read.
        Ok(read_pods(&rows, DateTime::<Utc>::MIN_UTC)
            .into_iter()
            .filter_map(Result::ok)
            .map(|p| (key(&p), p))
            .collect())
    }
}

/// The identity of a pod between the two loads: namespace, name and uid.
pub type PodKey = (String, String, Option<String>);

fn key(p: &PodInfo) -> PodKey {
    (p.namespace.clone(), p.name.clone(), p.uid.clone())
}

impl ClusterAt {
    /// [`ClusterAt::load`] for the filters: pods without host ports or
    /// inter-pod terms carry only their node, requests and — when `labels`
    /// — labels (see the module docs), and their stored versions are
    /// returned to read them whole where a report shows them. Other pods'
    /// labels are read by the filters only through the incoming pod's own
    /// required pod affinity and anti-affinity terms: without such terms,
    /// `labels: false` skips parsing them (150,000 small JSON objects).
    ///
    /// # Errors
    /// [`AnalyzeError::Store`] when a query fails.
    pub fn load_for_filters(
        store: &Reader,
        at: DateTime<Utc>,
        labels: bool,
    ) -> Result<(ClusterAt, FilterVersions), AnalyzeError> {
        let every_pod_whole = |store: &Reader| Ok((ClusterAt::load(store, at)?, FilterVersions::default()));
        let us = at.timestamp_micros();
        let mut steps = crate::steps::Steps::start();
        let rows = store.query_map(&sql::POD_FILTER_FIELDS_AT, [us], |r| {
            Ok(Row {
                obs_id: r.get(0)?,
                namespace: r.get(1)?,
                name: r.get(2)?,
                uid: r.get(3)?,
                node: r.get(4)?,
                cpu: r.get(5)?,
                memory: r.get(6)?,
                other: r.get(7)?,
                labels: if labels { r.get(8)? } else { None },
                whole: r.get(9)?,
                estimated: r.get(10)?,
            })
        })?;
        steps.done("filter fields query");
        // As `load`: by namespace and name, versions of one name in store order.
        let rows = by_name(rows);
        let same_pod = |a: &Row, b: &Row| a.namespace == b.namespace && a.name == b.name;
        // Two versions of one namespace and name are not told apart when read
        // whole later (whatever their uids: a pod stored without a namespace
        // and one in `default` are both `default`'s since schema v12; break-it
        // trial: holders of one swapped for the other's). Rare (hand-made
        // dumps, a reused name): every pod is read whole then.
        if rows.windows(2).any(|w| same_pod(&w[0], &w[1]) && !(w[0].whole && w[1].whole)) {
            return every_pod_whole(store);
        }
        // The rows read whole first, parsed together on every core (as `load`).
        let wanted: Vec<i64> = rows.iter().filter(|r| r.whole).map(|r| r.obs_id).collect();
        steps.done("sort");
        let mut models = read_models(store, &wanted)?;
        steps.done("whole models query");
        let mut whole_rows = Vec::with_capacity(wanted.len());
        for row in rows.iter().filter(|r| r.whole) {
            match models.remove(&row.obs_id) {
                Some(json) => whole_rows.push((row.namespace.clone(), row.name.clone(), row.estimated, json)),
                // The two reads disagree (the store changed between them): read everything whole.
                None => return every_pod_whole(store),
            }
        }
        let mut parsed = read_pods(&whole_rows, at).into_iter();
        drop(whole_rows);
        steps.done("whole models parse");
        let mut state = ClusterAt::load_nodes(store, at)?;
        steps.done("nodes");
        // One pass into one list: a pod is ~1 KiB, and every extra list of
        // 150,000 of them is memory to fault in and copy.
        let mut pods = Vec::with_capacity(rows.len());
        for row in &rows {
            let object = || format!("{}/{}", row.namespace, row.name);
            if row.estimated {
                state.estimated_pods.push(object());
            }
            if row.whole {
                match parsed.next() {
                    Some(Ok(p)) => pods.push(p),
                    Some(Err(e)) => state.unreadable.push(unreadable_note("Pod", &object(), &e)),
                    None => return every_pod_whole(store),
                }
                continue;
            }
            let fields = FilterFields {
                namespace: &row.namespace,
                name: &row.name,
                uid: row.uid.as_deref(),
                node: row.node.as_deref(),
                cpu: row.cpu.unwrap_or(0),
                memory: row.memory.unwrap_or(0),
                other: row.other.as_deref(),
                labels: row.labels.as_deref(),
            };
            match pod_for_filters(&fields) {
                Ok(pod) => pods.push(pod),
                Err(e) => {
                    tracing::debug!(pod = %object(), %e, "filter fields unreadable: loading every pod whole");
                    return every_pod_whole(store);
                }
            }
        }
        tracing::debug!(pods = rows.len(), whole = wanted.len(), labels, "cluster loaded for the filters");
        state.pods = pods;
        steps.done("pods for filters");
        // The stored pods, readable or not: a pod known only from events is one the store has no version of.
        let known = |ns: &str, name: &str| {
            rows.binary_search_by(|r| (r.namespace.as_str(), r.name.as_str()).cmp(&(ns, name))).is_ok()
        };
        events::add_event_only_pods(store, at, &mut state, &known)?;
        steps.done("event-only pods");
        let versions = rows.into_iter().filter(|r| !r.whole).map(|r| (r.namespace, r.name, r.uid, r.obs_id)).collect();
        Ok((state, FilterVersions { versions }))
    }
}

/// `rows` by namespace and name, versions of one name in their order in
/// `rows` (a stable sort). The positions are sorted, not the rows (~200
/// bytes each): 290–320 ms against 310–410 ms for a stable sort of the
/// rows, at 1M events on a loaded 2-core machine (BENCHMARKS.md, session 17).
fn by_name(rows: Vec<Row>) -> Vec<Row> {
    let mut order: Vec<usize> = (0..rows.len()).collect();
    order.sort_unstable_by(|&a, &b| {
        let (x, y) = (&rows[a], &rows[b]);
        (x.namespace.as_str(), x.name.as_str(), a).cmp(&(y.namespace.as_str(), y.name.as_str(), b))
    });
    let mut slots: Vec<Option<Row>> = rows.into_iter().map(Some).collect();
    order.into_iter().filter_map(|i| slots[i].take()).collect()
}

/// `pod_models` of `ids`: `obs_id → model text` (no query for no id).
pub(super) fn read_models(store: &Reader, ids: &[i64]) -> Result<HashMap<i64, String>, AnalyzeError> {
    if ids.is_empty() {
        return Ok(HashMap::new());
    }
    let list = serde_json::to_string(ids).unwrap_or_else(|_| "[]".into());
    let rows = store.query_map(&sql::POD_MODELS, [list], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?)))?;
    Ok(rows.into_iter().collect())
}

/// `pod` itself when it was read whole, else its whole version from
/// [`FilterVersions::whole`] (the pod as loaded when that has none).
pub fn whole<'a>(pod: &'a PodInfo, whole: &'a HashMap<PodKey, PodInfo>) -> &'a PodInfo {
    whole.get(&key(pod)).unwrap_or(pod)
}

#[cfg(test)]
mod tests {
    use super::{by_name, Row};

    fn row(obs_id: i64, namespace: &str, name: &str) -> Row {
        Row {
            obs_id,
            namespace: namespace.into(),
            name: name.into(),
            uid: None,
            node: None,
            cpu: None,
            memory: None,
            other: None,
            labels: None,
            whole: false,
            estimated: false,
        }
    }

    #[test]
    fn rows_sort_by_namespace_and_name_keeping_the_order_of_one_names_versions() {
        let rows = vec![
            row(1, "b", "x"),
            row(2, "a", "y"),
            row(3, "a", "x"),
            row(4, "b", "x"),
            row(5, "a", "y"),
            row(6, "a", "x"),
            row(7, "", "z"),
        ];
        let ids: Vec<i64> = by_name(rows).iter().map(|r| r.obs_id).collect();
        assert_eq!(ids, [7, 3, 6, 2, 5, 1, 4]);
        // Later versions first in the input stay first among their name.
        let ids: Vec<i64> = by_name(vec![row(9, "a", "x"), row(8, "a", "x")]).iter().map(|r| r.obs_id).collect();
        assert_eq!(ids, [9, 8]);
    }
}
