//! Pods known only from events, added to the state at an instant.
//!
//! When the store has no object of a pod (a VictoriaLogs pull of events, a
//! dump of another namespace), its placement comes from the scheduler's
//! `Scheduled` event ("Successfully assigned NS/POD to NODE") and it counts
//! as still there unless deletion evidence (query `pods_gone`: Killing,
//! SuccessfulDelete, eviction, admission rejection, DELETED version, the end
//! of its Job) came between its binding and the instant, and the instant is
//! at most an hour (the event TTL) after the newest event of the file,
//! export or VictoriaLogs pull (all its windows and `--resume` runs) its
//! Scheduled event came from (query `scheduled_coverage`; beyond, that
//! source says nothing about it). Its requests come
//! from the nearest known version of the same owner (query `owner_samples`:
//! one of the owner's pods, else the owner's pod template); the owner is the
//! one of the controller's `SuccessfulCreate` event, else the pod name
//! without its last `-suffix`. Every such pod is listed in
//! [`ClusterAt::event_only_pods`]: its numbers are estimated; a pod with no
//! owner sample counts with no requests ([`ClusterAt::requests_unknown`]).

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use kdrift_rebalance::{PodInfo, PodPhase};
use kdrift_store::sql;
use kdrift_store::Reader;
use serde_json::{json, Value};

use super::ClusterAt;
use crate::history::{event_only_placements, owner_from_name, Placement};
use crate::AnalyzeError;

/// The pod object a sample stands for: a copy of the sibling pod, or the
/// owner's template, renamed and bound to `node`.
fn pod_from_sample(sample: &(String, Value), p: &Placement) -> Option<Value> {
    let (source, object) = sample;
    let mut pod = if source == "pod" {
        object.clone()
    } else {
        let template = object.pointer("/spec/template")?;
        json!({
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": template.get("metadata").cloned().unwrap_or_else(|| json!({})),
            "spec": template.get("spec").cloned().unwrap_or_else(|| json!({})),
        })
    };
    let meta = pod.as_object_mut()?.entry("metadata").or_insert_with(|| json!({}));
    let meta = meta.as_object_mut()?;
    meta.insert("name".into(), json!(p.name));
    meta.insert("namespace".into(), json!(p.namespace));
    meta.remove("deletionTimestamp");
    if p.uid.is_empty() {
        meta.remove("uid");
    } else {
        meta.insert("uid".into(), json!(p.uid));
    }
    if source == "template" {
        if let (Some(kind), Some(name)) = (object.get("kind"), object.pointer("/metadata/name")) {
            meta.insert("ownerReferences".into(), json!([{"kind": kind, "name": name, "controller": true}]));
        }
    }
    let spec = pod.as_object_mut()?.entry("spec").or_insert_with(|| json!({}));
    spec.as_object_mut()?.insert("nodeName".into(), json!(p.node));
    pod.as_object_mut()?.insert("status".into(), json!({"phase": "Running"}));
    Some(pod)
}

/// Whether a pod (namespace, name) is stored at the instant: readable or
/// not, a pod the store has a version of is not one known only from events.
pub(crate) type Known<'a> = dyn Fn(&str, &str) -> bool + 'a;

/// Adds to `state` the pods bound at `at` that only events show (none
/// `known`: the pods stored at `at`, readable or not).
pub(super) fn add_event_only_pods(
    store: &Reader,
    at: DateTime<Utc>,
    state: &mut ClusterAt,
    known: &Known<'_>,
) -> Result<(), AnalyzeError> {
    let evidence = GoneEvidence::read(store, at)?;
    let found = event_only_pods(store, at, &event_only_placements(store, at)?, known, &evidence)?;
    state.pods.extend(found.pods);
    state.event_only_pods.extend(found.keys);
    state.requests_unknown.extend(found.requests_unknown);
    Ok(())
}

/// The pods known only from events at an instant.
#[derive(Debug, Default)]
pub(crate) struct EventOnlyPods {
    /// The pods, bound to the node of their Scheduled event (requests estimated).
    pub(crate) pods: Vec<PodInfo>,
    /// Their `namespace/name`.
    pub(crate) keys: Vec<String>,
    /// Of those, the pods with no owner sample (no requests).
    pub(crate) requests_unknown: Vec<String>,
}

/// What tells whether a pod known only from events is still there, read
/// once for any number of instants up to `until`: each pod's earliest
/// deletion evidence (query `pods_gone` at `until`) and the newest event of
/// the source of each pod's Scheduled event (query `scheduled_coverage`).
/// `pods_gone` at an earlier instant T is exactly the pods whose earliest
/// evidence is at or before T (the earliest of the evidence up to T is the
/// earliest of all when any is), so one read answers every instant up to
/// `until` ([`GoneEvidence::gone_at`]).
pub(crate) struct GoneEvidence {
    until: DateTime<Utc>,
    gone: BTreeMap<(String, String), DateTime<Utc>>,
    coverage: BTreeMap<(String, String), DateTime<Utc>>,
}

impl GoneEvidence {
    /// Reads the evidence up to `until`.
    pub(crate) fn read(store: &Reader, until: DateTime<Utc>) -> Result<GoneEvidence, AnalyzeError> {
        let gone = store
            .query_map(&sql::PODS_GONE, [until.timestamp_micros()], |r| {
                Ok(((r.get::<_, String>(0)?, r.get::<_, String>(1)?), r.get::<_, DateTime<Utc>>(2)?))
            })?
            .into_iter()
            .collect();
        let coverage = store
            .query_map(&sql::SCHEDULED_COVERAGE, [], |r| {
                Ok(((r.get::<_, String>(0)?, r.get::<_, String>(1)?), r.get::<_, DateTime<Utc>>(2)?))
            })?
            .into_iter()
            .collect();
        Ok(GoneEvidence { until, gone, coverage })
    }

    /// The pod's earliest deletion evidence when it is at or before `at`
    /// (what `pods_gone` at `at` answers; `at` is at most `until`).
    fn gone_at(&self, key: &(String, String), at: DateTime<Utc>) -> Option<DateTime<Utc>> {
        debug_assert!(at <= self.until, "evidence read up to {}, asked at {at}", self.until);
        self.gone.get(key).copied().filter(|g| *g <= at)
    }
}

/// The pods bound at `at` that only events show: of `placements` (query
/// `event_only_placements` at `at` or later: those bound after `at` are left
/// out), the latest per pod, unless the pod is among `known` (stored at `at`;
/// a pod stored without a namespace is kept as `default`'s: schema v12), or
/// gone or out of its source's coverage by `evidence` (read up to `at` or later).
pub(crate) fn event_only_pods(
    store: &Reader,
    at: DateTime<Utc>,
    placements: &[Placement],
    known: &Known<'_>,
    evidence: &GoneEvidence,
) -> Result<EventOnlyPods, AnalyzeError> {
    let mut state = EventOnlyPods::default();
    let mut latest: BTreeMap<(String, String), Placement> = BTreeMap::new();
    for p in placements.iter().filter(|p| p.bound_at <= at) {
        if known(&p.namespace, &p.name) {
            continue;
        }
        latest.insert((p.namespace.clone(), p.name.clone()), p.clone());
    }
    if latest.is_empty() {
        return Ok(state);
    }
    // The pods still there; the owner samples are read only when some are.
    latest.retain(|key, p| {
        evidence.gone_at(key, at).is_none_or(|g| g < p.bound_at)
            && evidence.coverage.get(key).is_none_or(|last| at <= *last + chrono::Duration::hours(1))
    });
    if latest.is_empty() {
        return Ok(state);
    }
    let mut samples: BTreeMap<(String, String), Vec<(String, Value)>> = BTreeMap::new();
    for (ns, owner, source, json) in store.query_map(&sql::OWNER_SAMPLES, [at.timestamp_micros()], |r| {
        Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?, r.get::<_, String>(2)?, r.get::<_, String>(4)?))
    })? {
        if let Ok(v) = serde_json::from_str::<Value>(&json) {
            samples.entry((ns, owner)).or_default().push((source, v));
        }
    }
    for ((ns, name), p) in latest {
        let owner = p.owner_name.clone().or_else(|| owner_from_name(&name).map(str::to_string));
        let sample = owner.and_then(|o| samples.get(&(ns.clone(), o))).and_then(|list| {
            // The sibling pod first (admission defaults included), else the template.
            list.iter().find(|(s, _)| s == "pod").or_else(|| list.first())
        });
        let pod = sample.and_then(|s| pod_from_sample(s, &p)).and_then(|v| PodInfo::from_json(&v).ok());
        let pod = match pod {
            Some(pod) => pod,
            None => {
                let mut pod = PodInfo::new(&ns, &name);
                pod.node_name = Some(p.node.clone());
                pod.phase = Some(PodPhase::Running);
                pod.uid = (!p.uid.is_empty()).then(|| p.uid.clone());
                state.requests_unknown.push(format!("{ns}/{name}"));
                pod
            }
        };
        state.keys.push(format!("{ns}/{name}"));
        state.pods.push(pod);
    }
    Ok(state)
}
