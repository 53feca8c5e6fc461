//! The cluster at an instant for kube-scheduler's filters with most pods not
//! read at all (kdrift issue 6: why-pending at 150,000 pods): each node's
//! requested amounts and pod count come from the checkpoints ingest keeps
//! ([`super::checkpoints`]), and only the pods the filters read one by one
//! are listed — those with host ports or inter-pod (anti-)affinity terms,
//! those the model cannot read, those observed after the instant
//! (estimated), the pending pod itself (query `pods_read_whole_at`) and the
//! pods known only from events ([`super::events`]). What the sums counted of
//! the listed stored pods (their stored node and requests) is subtracted
//! from them, so every pod counts once: the filters' verdicts and each
//! node's amounts are those of [`ClusterAt::load`] for an incoming pod
//! without required pod (anti-)affinity terms
//! (`kdrift_rebalance::evaluate_with_sums`; tests: `kdrift_tests::assert_summed_load_agrees`).
//! The pods on the nodes a report explains are read afterwards
//! ([`super::unlisted::Unlisted::pods_on`]).

use std::collections::BTreeSet;

use chrono::{DateTime, Utc};
use kdrift_rebalance::{PodInfo, ResourceList, SummedPods};
use kdrift_rebalance::{CPU, MEMORY, PODS};
use kdrift_store::sql;
use kdrift_store::Reader;
use serde_json::Value;

use super::checkpoints::{checkpoint_times, pod_amounts_at};
use super::events::event_only_pods;
use super::for_filters::read_models;
use super::{read_pods, unreadable_note, ClusterAt, ModelRow};
use crate::history::event_only_placements;
use crate::AnalyzeError;

/// One `pods_read_whole_at` row.
struct Row {
    obs_id: i64,
    namespace: String,
    name: String,
    node: Option<String>,
    cpu: Option<i64>,
    memory: Option<i64>,
    other: Option<String>,
    unreadable: bool,
    scheduled_after: bool,
    estimated: bool,
}

impl Row {
    /// What the checkpoints and extras counted of this version (as
    /// [`super::checkpoints::pod_amounts_at`] reads them: readable, counting
    /// toward a node, and, when estimated, not bound only after the
    /// instant): its node and its requests with `pods` = 1.
    fn summed(&self) -> Option<(&str, ResourceList)> {
        let node = self.node.as_deref()?;
        if self.unreadable || (self.estimated && self.scheduled_after) {
            return None;
        }
        let mut requests = ResourceList::new();
        if let Some(Ok(Value::Object(map))) = self.other.as_deref().map(serde_json::from_str::<Value>) {
            let extra: Vec<(String, i64)> = map.into_iter().filter_map(|(k, v)| v.as_i64().map(|v| (k, v))).collect();
            requests.add(&ResourceList::from_pairs(&extra));
        }
        requests.set(CPU, self.cpu.unwrap_or(0));
        requests.set(MEMORY, self.memory.unwrap_or(0));
        requests.set(PODS, 1);
        Some((node, requests))
    }
}

/// What [`ClusterAt::load_summed`] reads of the pods: the summed requests
/// per node, the listed pods' rows, and each listed pod read (or why not).
type PodsSummed = (SummedPods, Vec<ModelRow>, Vec<Result<PodInfo, String>>);

impl ClusterAt {
    /// The state at `at` with the pods the filters need not read one by one
    /// counted by their nodes' sums (see the module docs): the nodes, the
    /// listed pods (by namespace and name, then the pods known only from
    /// events), the same unreadable, estimated and event-only lists as
    /// [`ClusterAt::load`], and per node the summed requests of the pods not
    /// listed (`pods` = their number). `namespace`/`name` is the pending pod:
    /// its versions are listed, never summed.
    ///
    /// `None` when the sums cannot be trusted for this store (a listed pod's
    /// subtraction leaves a negative or saturated amount: the store's
    /// checkpoints disagree with its versions): load with
    /// [`ClusterAt::load_for_filters`] then.
    ///
    /// # Errors
    /// [`AnalyzeError::Store`] when a query fails.
    pub fn load_summed(
        store: &Reader,
        at: DateTime<Utc>,
        namespace: &str,
        name: &str,
    ) -> Result<Option<(ClusterAt, SummedPods)>, AnalyzeError> {
        let mut steps = crate::steps::Steps::start();
        // The nodes on a second connection while this one reads the pods:
        // independent reads (~70 ms at 10M events; kdrift issue 6).
        let (pods, nodes) = crate::alongside::alongside(
            store,
            |reader| ClusterAt::load_nodes(reader, at),
            || Self::pods_summed(store, at, namespace, name, &mut steps),
        )?;
        let Some((summed, listed, read)) = pods? else { return Ok(None) };
        let mut state = nodes?;
        steps.done("nodes");
        for ((ns, name, estimated, _), pod) in listed.iter().zip(read) {
            match pod {
                Ok(pod) => state.pods.push(pod),
                Err(e) => state.unreadable.push(unreadable_note("Pod", &format!("{ns}/{name}"), &e)),
            }
            if *estimated {
                state.estimated_pods.push(format!("{ns}/{name}"));
            }
        }
        add_event_only(store, at, &mut state)?;
        steps.done("event-only pods");
        Ok(Some((state, summed)))
    }

    /// The pods part of [`ClusterAt::load_summed`]: the summed requests of
    /// the pods not listed, and the listed pods, each with what its model
    /// read gave (`None`: the summed requests cannot be trusted; load every
    /// pod).
    fn pods_summed(
        store: &Reader,
        at: DateTime<Utc>,
        namespace: &str,
        name: &str,
        steps: &mut crate::steps::Steps,
    ) -> Result<Option<PodsSummed>, AnalyzeError> {
        let us = at.timestamp_micros();
        let mut rows = store.query_map(&sql::PODS_READ_WHOLE_AT, kdrift_store::params![us, namespace, name], |r| {
            Ok(Row {
                obs_id: r.get(0)?,
                namespace: r.get(1)?,
                name: r.get(2)?,
                node: r.get(3)?,
                cpu: r.get(4)?,
                memory: r.get(5)?,
                other: r.get(6)?,
                unreadable: r.get(7)?,
                scheduled_after: r.get(8)?,
                estimated: r.get(9)?,
            })
        })?;
        // As `load`: by namespace and name, versions of one name in the
        // order of `pods_at` (stored at the instant first, then estimated;
        // each in store order, which is obs_id order).
        rows.sort_by(|a, b| {
            (&a.namespace, &a.name, a.estimated, a.obs_id).cmp(&(&b.namespace, &b.name, b.estimated, b.obs_id))
        });
        steps.done("pods read whole query");
        let times = checkpoint_times(store)?;
        let amounts = pod_amounts_at(store, &times, us)?;
        let mut summed: SummedPods = amounts.usage.into_iter().map(|(node, usage)| (node, usage.requested)).collect();
        for row in &rows {
            if let Some((node, requests)) = row.summed() {
                summed.entry(node.to_string()).or_default().sub(&requests);
            }
        }
        let trusted = summed.values().all(|r| r.iter().all(|(_, v)| (0..i64::MAX).contains(&v)));
        if !trusted {
            tracing::debug!("summed requests disagree with the stored versions: loading every pod");
            return Ok(None);
        }
        summed.retain(|_, r| r.iter().any(|(_, v)| v != 0));
        steps.done("summed requests");

        let ids: Vec<i64> = rows.iter().map(|r| r.obs_id).collect();
        let mut models = read_models(store, &ids)?;
        let mut listed = Vec::with_capacity(rows.len());
        for row in &rows {
            let Some(json) = models.remove(&row.obs_id) else {
                // The two reads disagree (the store changed between them).
                return Ok(None);
            };
            listed.push((row.namespace.clone(), row.name.clone(), row.estimated, json));
        }
        let read = read_pods(&listed, at);
        steps.done("listed pods");
        Ok(Some((summed, listed, read)))
    }
}

/// Adds the pods known only from events (as [`ClusterAt::load`] does): the
/// stored pods' names are read only when events show a binding by then.
/// They are listed, not summed: the sums count stored pods only.
fn add_event_only(store: &Reader, at: DateTime<Utc>, state: &mut ClusterAt) -> Result<(), AnalyzeError> {
    let placements = event_only_placements(store, at)?;
    if !placements.iter().any(|p| p.bound_at <= at) {
        return Ok(());
    }
    let known: BTreeSet<(String, String)> = store
        .query_map(&sql::POD_NAMES_AT, [at.timestamp_micros()], |r| {
            Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?))
        })?
        .into_iter()
        .collect();
    let evidence = super::events::GoneEvidence::read(store, at)?;
    let known = |ns: &str, name: &str| known.contains(&(ns.into(), name.into()));
    let found = event_only_pods(store, at, &placements, &known, &evidence)?;
    state.pods.extend(found.pods);
    state.event_only_pods.extend(found.keys);
    state.requests_unknown.extend(found.requests_unknown);
    Ok(())
}
