//! The pending pod's spec when its own object is gone (the Job controller
//! deleted it at the Job's deadline, the dump was taken later): derived from
//! its owner's template as the controller created it — the Job's
//! `spec.template` (the version current at the pod's creation), else the
//! CronJob's `spec.jobTemplate.spec.template` (the version current at the
//! Job's scheduled time, read from the Job name's suffix: the CronJob
//! controller names its Jobs `<cronjob>-<minutes since the epoch>`,
//! `getJobName` in kubernetes/pkg/controller/cronjob/utils.go), else the
//! ReplicaSet / StatefulSet / DaemonSet / ReplicationController template.
//! The owner comes from the controller's SuccessfulCreate event ("Created
//! pod: NAME", its involved object), else from the pod name's prefix. Where
//! the template is silent, what API defaulting and admission add is applied:
//! `schedulerName: default-scheduler`, the DefaultTolerationSeconds
//! tolerations (`node.kubernetes.io/not-ready` and `unreachable`, NoExecute,
//! 300 s), the priority of a stored PriorityClass, and the LimitRanger's
//! container defaults only when a LimitRange object is stored.

use chrono::{DateTime, TimeZone, Utc};
use kdrift_rebalance::PodInfo;
use kdrift_store::sql;
use kdrift_store::Reader;
use serde::Serialize;
use serde_json::{json, Map, Value};

use crate::AnalyzeError;

/// Where a pod's spec came from when its own object is not stored.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SpecFrom {
    /// Always `owner's template`: every value derived from this spec
    /// (requests, constraints, fails, shortfalls) is from the owner's template.
    pub source: &'static str,
    /// Kind of the object whose template gave the spec (`Job`, `CronJob`, `ReplicaSet`, …).
    pub kind: String,
    /// Its namespace.
    pub namespace: String,
    /// Its name.
    pub name: String,
    /// When the version used was observed (UTC).
    pub observed_at: DateTime<Utc>,
    /// Whether that version was observed after `chosen_for` (the earliest
    /// after it: no earlier version is stored).
    pub observed_after: bool,
    /// The instant the version was chosen for (UTC): the pod's creation, or
    /// for a CronJob the scheduled time of the Job that created the pod.
    pub chosen_for: DateTime<Utc>,
    /// The pod's owner and how it was found (`Job media/backup-29930640, by its
    /// SuccessfulCreate event`).
    pub owner: String,
    /// What API defaulting and admission added where the template is silent.
    pub added: Vec<String>,
}

impl SpecFrom {
    /// The note that says which object the spec came from.
    pub fn note(&self, namespace: &str, name: &str) -> String {
        let when =
            if self.observed_after { "the earliest stored, observed" } else { "the version current then, observed" };
        let mut note = format!(
            "the Pod object of {namespace}/{name} is not in the store: its spec is taken from its owner's template — \
             {} {}/{} ({when} {}, for {}); owner: {}",
            self.kind,
            self.namespace,
            self.name,
            kdrift_store::instant_text(self.observed_at),
            kdrift_store::instant_text(self.chosen_for),
            self.owner,
        );
        if !self.added.is_empty() {
            note.push_str(&format!("; admission adds {}", self.added.join(", ")));
        }
        note
    }
}

/// One stored version of an object.
struct Version {
    observed_at: DateTime<Utc>,
    estimated: bool,
    object: Value,
}

fn versions_at(
    store: &Reader,
    kind: &str,
    namespace: &str,
    name: &str,
    at: DateTime<Utc>,
) -> Result<Vec<(String, Version)>, AnalyzeError> {
    let rows = store.query_map(
        &sql::OWNER_VERSIONS_AT,
        kdrift_store::params![kind, namespace, name, at.timestamp_micros()],
        |r| Ok((r.get::<_, String>(0)?, r.get::<_, DateTime<Utc>>(1)?, r.get::<_, bool>(2)?, r.get::<_, String>(3)?)),
    )?;
    Ok(rows
        .into_iter()
        .filter_map(|(n, observed_at, estimated, json)| {
            let object = serde_json::from_str(&json).ok()?;
            Some((n, Version { observed_at, estimated, object }))
        })
        .collect())
}

fn version_at(
    store: &Reader,
    kind: &str,
    namespace: &str,
    name: &str,
    at: DateTime<Utc>,
) -> Result<Option<Version>, AnalyzeError> {
    Ok(versions_at(store, kind, namespace, name, at)?.into_iter().next().map(|(_, v)| v))
}

/// The scheduled time of a CronJob's Job from its name (`backup-29930640` →
/// minute 29,930,640 since the epoch) and the CronJob's name.
pub fn cronjob_schedule(job: &str) -> Option<(String, DateTime<Utc>)> {
    let (cronjob, minutes) = job.rsplit_once('-')?;
    if cronjob.is_empty() || minutes.is_empty() || !minutes.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let minutes: i64 = minutes.parse().ok()?;
    let at = Utc.timestamp_opt(minutes.checked_mul(60)?, 0).single()?;
    Some((cronjob.to_string(), at))
}

/// The pod template of an owner object: `spec.template`, or a CronJob's `spec.jobTemplate.spec.template`.
fn template_of<'a>(kind: &str, object: &'a Value) -> Option<&'a Value> {
    let t = if kind == "CronJob" {
        object.pointer("/spec/jobTemplate/spec/template")
    } else {
        object.pointer("/spec/template")
    }?;
    t.get("spec").filter(|s| s.is_object()).map(|_| t)
}

/// The pending pod's spec from its owner's template, or `None` when neither
/// the events nor the pod's name lead to a stored owner with a template.
/// `at` is the failure instant (the creation's bound when no event dates it).
///
/// # Errors
/// [`AnalyzeError::Store`] when a query fails.
pub(super) fn pod_from_owner(
    store: &Reader,
    namespace: &str,
    name: &str,
    at: DateTime<Utc>,
) -> Result<Option<(PodInfo, SpecFrom)>, AnalyzeError> {
    let creator = store.query_map(&sql::POD_CREATOR, [namespace, name], |r| {
        Ok((
            r.get::<_, Option<String>>(0)?,
            r.get::<_, Option<String>>(1)?,
            r.get::<_, Option<DateTime<Utc>>>(2)?,
            r.get::<_, Option<DateTime<Utc>>>(3)?,
        ))
    })?;
    let (kind, owner, created_at, first_seen) = creator.into_iter().next().unwrap_or((None, None, None, None));
    let created = created_at.or(first_seen).unwrap_or(at).min(at);
    // Candidates: the creator the events name, else the name's prefix.
    let mut candidates: Vec<(String, String, &'static str)> = Vec::new();
    if let (Some(k), Some(o)) = (kind, owner) {
        candidates.push((k, o, "its SuccessfulCreate event"));
    } else if let Some((prefix, suffix)) = name.rsplit_once('-') {
        let ordinal = !suffix.is_empty() && suffix.bytes().all(|b| b.is_ascii_digit());
        let kinds: &[&str] = if ordinal {
            &["StatefulSet", "Job", "ReplicaSet", "DaemonSet", "ReplicationController"]
        } else {
            &["Job", "ReplicaSet", "DaemonSet", "ReplicationController"]
        };
        candidates.extend(kinds.iter().map(|k| (k.to_string(), prefix.to_string(), "the pod name's prefix")));
    }
    for (kind, owner, found_by) in candidates {
        let owner_text = format!("{kind} {namespace}/{owner}, by {found_by}");
        let mut source = None;
        if let Some(v) = version_at(store, &kind, namespace, &owner, created)? {
            source = template_of(&kind, &v.object).cloned().map(|t| (kind.clone(), owner.clone(), created, v, t));
        }
        if source.is_none() && kind == "Job" {
            if let Some((cronjob, scheduled)) = cronjob_schedule(&owner) {
                if let Some(v) = version_at(store, "CronJob", namespace, &cronjob, scheduled)? {
                    source = template_of("CronJob", &v.object)
                        .cloned()
                        .map(|t| ("CronJob".to_string(), cronjob, scheduled, v, t));
                }
            }
        }
        let Some((from_kind, from_name, chosen_for, version, template)) = source else { continue };
        let mut added = Vec::new();
        let pod = pod_json(namespace, name, &kind, &owner, &template);
        let pod = admit(store, pod, namespace, created, &mut added)?;
        let Ok(info) = PodInfo::from_json(&pod) else { continue };
        let spec_from = SpecFrom {
            source: "owner's template",
            kind: from_kind,
            namespace: namespace.to_string(),
            name: from_name,
            observed_at: version.observed_at,
            observed_after: version.estimated,
            chosen_for,
            owner: owner_text,
            added,
        };
        return Ok(Some((info, spec_from)));
    }
    Ok(None)
}

/// The Pod the controller would create from `template`: its metadata
/// (labels, annotations), an owner reference, the labels the controller adds
/// (a Job's `job-name`, a StatefulSet's `statefulset.kubernetes.io/pod-name`)
/// and the template's spec.
fn pod_json(namespace: &str, name: &str, owner_kind: &str, owner: &str, template: &Value) -> Value {
    let meta = template.get("metadata").cloned().unwrap_or_else(|| json!({}));
    let mut labels: Map<String, Value> = meta.get("labels").and_then(Value::as_object).cloned().unwrap_or_default();
    match owner_kind {
        "Job" => {
            for key in ["job-name", "batch.kubernetes.io/job-name"] {
                labels.entry(key).or_insert_with(|| json!(owner));
            }
        }
        "StatefulSet" => {
            labels.entry("statefulset.kubernetes.io/pod-name").or_insert_with(|| json!(name));
        }
        _ => {}
    }
    json!({
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "namespace": namespace,
            "name": name,
            "labels": labels,
            "annotations": meta.get("annotations").cloned().unwrap_or_else(|| json!({})),
            "ownerReferences": [{"kind": owner_kind, "name": owner, "controller": true}],
        },
        "spec": template.get("spec").cloned().unwrap_or_else(|| json!({})),
        "status": {"phase": "Pending"},
    })
}

/// The taints the DefaultTolerationSeconds admission plugin tolerates for
/// 300 s unless the pod already tolerates them (`defaulttolerationseconds`
/// in kubernetes/plugin/pkg/admission).
const DEFAULT_TOLERATION_KEYS: [&str; 2] = ["node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"];

/// Applies what admission adds to a pod where its spec is silent, naming each addition in `added`.
fn admit(
    store: &Reader,
    mut pod: Value,
    namespace: &str,
    at: DateTime<Utc>,
    added: &mut Vec<String>,
) -> Result<Value, AnalyzeError> {
    let limit_ranges: Vec<Value> =
        versions_at(store, "LimitRange", namespace, "", at)?.into_iter().map(|(_, v)| v.object).collect();
    let priority_class = pod.pointer("/spec/priorityClassName").and_then(Value::as_str).map(str::to_string);
    let priority = match (&priority_class, pod.pointer("/spec/priority")) {
        (_, Some(p)) if !p.is_null() => None,
        (Some(class), _) => version_at(store, "PriorityClass", "", class, at)?
            .and_then(|v| v.object.get("value").and_then(Value::as_i64))
            .map(|p| (p, class.clone())),
        (None, _) => versions_at(store, "PriorityClass", "", "", at)?
            .into_iter()
            .find(|(_, v)| v.object.get("globalDefault").and_then(Value::as_bool) == Some(true))
            .and_then(|(n, v)| v.object.get("value").and_then(Value::as_i64).map(|p| (p, n))),
    };
    let Some(spec) = pod.get_mut("spec").and_then(Value::as_object_mut) else { return Ok(pod) };
    apply_defaults(spec, &limit_ranges, priority, added);
    Ok(pod)
}

/// The defaults themselves (no store): scheduler name, default tolerations,
/// priority (`(value, class)` from a stored PriorityClass) and the
/// LimitRange objects' Container defaults.
fn apply_defaults(
    spec: &mut Map<String, Value>,
    limit_ranges: &[Value],
    priority: Option<(i64, String)>,
    added: &mut Vec<String>,
) {
    if spec.get("schedulerName").and_then(Value::as_str).is_none_or(str::is_empty) {
        spec.insert("schedulerName".into(), json!("default-scheduler"));
        added.push("schedulerName default-scheduler".into());
    }
    let tolerations = spec.entry("tolerations").or_insert_with(|| json!([]));
    if !tolerations.is_array() {
        *tolerations = json!([]);
    }
    if let Some(list) = tolerations.as_array_mut() {
        for key in DEFAULT_TOLERATION_KEYS {
            let tolerated = list.iter().any(|t| {
                let k = t.get("key").and_then(Value::as_str).unwrap_or("");
                let effect = t.get("effect").and_then(Value::as_str).unwrap_or("");
                (k == key || k.is_empty()) && (effect == "NoExecute" || effect.is_empty())
            });
            if !tolerated {
                list.push(json!({"key": key, "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300}));
                added.push(format!("toleration {key}:NoExecute for 300s"));
            }
        }
    }
    if let Some((value, class)) = priority {
        spec.insert("priority".into(), json!(value));
        added.push(format!("priority {value} (PriorityClass {class})"));
    }
    for lr in limit_ranges {
        let name = lr.pointer("/metadata/name").and_then(Value::as_str).unwrap_or("?");
        let Some(items) = lr.pointer("/spec/limits").and_then(Value::as_array) else { continue };
        for item in items.iter().filter(|i| i.get("type").and_then(Value::as_str) == Some("Container")) {
            let default = item.get("default").and_then(Value::as_object);
            // A LimitRange's defaultRequest defaults to its default (SetDefaults_LimitRangeItem).
            let default_request = item.get("defaultRequest").and_then(Value::as_object).or(default);
            for field in ["containers", "initContainers"] {
                let Some(containers) = spec.get_mut(field).and_then(Value::as_array_mut) else { continue };
                for c in containers.iter_mut() {
                    let cname = c.get("name").and_then(Value::as_str).unwrap_or("?").to_string();
                    let Some(c) = c.as_object_mut() else { continue };
                    let resources = c.entry("resources").or_insert_with(|| json!({}));
                    let Some(resources) = resources.as_object_mut() else { continue };
                    // The limits as written: API defaulting made them the requests before admission.
                    let has_limits = resources.get("limits").and_then(Value::as_object).cloned().unwrap_or_default();
                    for (part, defaults) in [("limits", default), ("requests", default_request)] {
                        let Some(defaults) = defaults else { continue };
                        let set = resources.entry(part).or_insert_with(|| json!({}));
                        let Some(set) = set.as_object_mut() else { continue };
                        for (r, q) in defaults {
                            // A request defaults to the container's own limit first (API defaulting).
                            if set.contains_key(r) || (part == "requests" && has_limits.contains_key(r)) {
                                continue;
                            }
                            set.insert(r.clone(), q.clone());
                            added.push(format!("{cname} {part}.{r} {} (LimitRange {name})", q.as_str().unwrap_or("?")));
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use super::{apply_defaults, cronjob_schedule, pod_json};

    #[test]
    fn a_cronjob_job_name_gives_the_cronjob_and_the_scheduled_minute() {
        let (cronjob, at) = cronjob_schedule("nightly-backup-29930640").expect("scheduled");
        assert_eq!(cronjob, "nightly-backup");
        assert_eq!(at.to_rfc3339(), "2026-11-28T04:00:00+00:00");
        assert_eq!(cronjob_schedule("web-7d4b9c"), None, "not minutes");
        assert_eq!(cronjob_schedule("29930640"), None, "no CronJob name");
    }

    #[test]
    fn admission_adds_the_scheduler_the_default_tolerations_and_stored_limit_range_defaults() {
        let template = json!({
            "metadata": {"labels": {"app": "backup"}},
            "spec": {
                "tolerations": [{"key": "node.kubernetes.io/unreachable", "operator": "Exists"}],
                "containers": [
                    {"name": "a", "resources": {"limits": {"memory": "1Gi"}}},
                    {"name": "b"},
                ],
            },
        });
        let mut pod = pod_json("media", "backup-29930640-x7k2q", "Job", "backup-29930640", &template);
        let lr = json!({"metadata": {"name": "mem"}, "spec": {"limits": [
            {"type": "Container", "default": {"memory": "512Mi"}, "defaultRequest": {"memory": "256Mi"}},
        ]}});
        let mut added = Vec::new();
        let spec = pod.get_mut("spec").and_then(Value::as_object_mut).expect("spec");
        apply_defaults(spec, &[lr], None, &mut added);
        assert_eq!(
            added,
            [
                "schedulerName default-scheduler",
                "toleration node.kubernetes.io/not-ready:NoExecute for 300s",
                "b limits.memory 512Mi (LimitRange mem)",
                "b requests.memory 256Mi (LimitRange mem)",
            ]
        );
        let info = kdrift_rebalance::PodInfo::from_json(&pod).expect("pod");
        // a: its limit is its request (API defaulting); b: the LimitRange's defaultRequest.
        assert_eq!(info.requests.get("memory"), (1 << 30) + (256 << 20));
        assert_eq!(info.labels.get("job-name"), Some("backup-29930640"));
        assert_eq!(info.scheduler_name.as_deref(), Some("default-scheduler"));
        // Without a stored LimitRange nothing is invented.
        let mut bare = pod_json("media", "p", "Job", "j", &template);
        let mut added = Vec::new();
        apply_defaults(bare.get_mut("spec").and_then(Value::as_object_mut).expect("spec"), &[], None, &mut added);
        let info = kdrift_rebalance::PodInfo::from_json(&bare).expect("pod");
        assert_eq!(info.requests.get("memory"), 1 << 30);
    }

    /// A store holding `objects`, each observed at its time (a dump's list items).
    fn store_with(objects: Vec<(&str, Value)>) -> (tempfile::TempDir, kdrift_store::Store) {
        let dir = tempfile::tempdir().expect("tmp");
        let store = kdrift_store::Store::open(&dir.path().join("k.duckdb")).expect("create");
        let mut run = kdrift_store::RunWriter::begin(&store, "file", "test").expect("run");
        for (at, object) in objects {
            let record = kdrift_store::Record {
                object,
                origin: kdrift_store::Origin { location: "test".into(), line: None, item: None },
                observed_at: Some(at.parse().expect("time")),
                change: kdrift_store::Change::Listed,
            };
            run.stage(record).expect("stage").expect("identity");
        }
        run.commit(kdrift_store::RunStatus::Ok, 0).expect("commit");
        (dir, store)
    }

    /// A controller of `kind` with a one-container template requesting `cpu` and `memory`.
    fn owner(kind: &str, api: &str, name: &str, rv: &str, cpu: &str, memory: &str) -> Value {
        json!({
            "apiVersion": api, "kind": kind,
            "metadata": {"namespace": "web", "name": name, "uid": format!("uid-{name}"), "resourceVersion": rv},
            "spec": {"replicas": 3, "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {"containers": [{"name": "c", "image": "i", "resources": {"requests": {"cpu": cpu, "memory": memory}}}]},
            }},
        })
    }

    /// A core/v1 event about `kind/name` in `web`.
    fn event(kind: &str, name: &str, reason: &str, message: &str, at: &str, n: u32) -> Value {
        json!({
            "apiVersion": "v1", "kind": "Event",
            "metadata": {"namespace": "web", "name": format!("{name}.{n:x}"), "uid": format!("ev-{n}"), "resourceVersion": n.to_string()},
            "involvedObject": {"kind": kind, "namespace": "web", "name": name, "uid": format!("uid-{name}")},
            "reason": reason, "message": message, "type": "Normal", "count": 1,
            "firstTimestamp": at, "lastTimestamp": at,
        })
    }

    fn at(text: &str) -> chrono::DateTime<chrono::Utc> {
        text.parse().expect("time")
    }

    #[test]
    fn without_events_the_pod_name_prefix_finds_the_replicaset_and_its_requests() {
        // No SuccessfulCreate, no event at all: `api-7d4b9c-x2k9p` without its
        // last `-suffix` is ReplicaSet api-7d4b9c (a hash suffix: not a StatefulSet ordinal).
        let (_d, store) = store_with(vec![
            ("2026-11-28T06:00:00Z", owner("ReplicaSet", "apps/v1", "api-7d4b9c", "10", "250m", "512Mi")),
            ("2026-11-28T06:00:00Z", owner("StatefulSet", "apps/v1", "api-7d4b9c", "11", "4", "8Gi")),
        ]);
        let (pod, from) = super::pod_from_owner(&store, "web", "api-7d4b9c-x2k9p", at("2026-11-28T04:00:00Z"))
            .expect("query")
            .expect("derived from the ReplicaSet");
        assert_eq!((from.kind.as_str(), from.name.as_str()), ("ReplicaSet", "api-7d4b9c"));
        assert_eq!(from.owner, "ReplicaSet web/api-7d4b9c, by the pod name's prefix");
        assert!(from.observed_after, "only a later dump holds the ReplicaSet");
        assert_eq!((pod.requests.get("cpu"), pod.requests.get("memory")), (250, 512 << 20));
        assert_eq!(pod.labels.get("app"), Some("api-7d4b9c"));
        // A prefix that names no stored owner gives nothing.
        let none = super::pod_from_owner(&store, "web", "web-5f6d8-q2w3e", at("2026-11-28T04:00:00Z")).expect("query");
        assert_eq!(none.map(|(_, f)| f.kind), None);
    }

    #[test]
    fn an_ordinal_suffix_finds_the_statefulset_first_with_its_pod_name_label() {
        let (_d, store) = store_with(vec![
            ("2026-11-28T06:00:00Z", owner("ReplicaSet", "apps/v1", "db", "10", "100m", "128Mi")),
            ("2026-11-28T06:00:00Z", owner("StatefulSet", "apps/v1", "db", "11", "1500m", "2Gi")),
        ]);
        let (pod, from) =
            super::pod_from_owner(&store, "web", "db-2", at("2026-11-28T04:00:00Z")).expect("query").expect("derived");
        assert_eq!(
            (from.kind.as_str(), from.owner.as_str()),
            ("StatefulSet", "StatefulSet web/db, by the pod name's prefix")
        );
        assert_eq!((pod.requests.get("cpu"), pod.requests.get("memory")), (1500, 2 << 30));
        assert_eq!(pod.labels.get("statefulset.kubernetes.io/pod-name"), Some("db-2"));
    }

    #[test]
    fn the_successful_create_event_names_the_replicaset_and_the_version_current_at_the_creation_is_used() {
        // The ReplicaSet's template changed at 05:00 (a VPA raised the request);
        // the pod was created at 04:00: the 03:00 version's 100m / 256Mi count.
        let (_d, store) = store_with(vec![
            ("2026-11-28T03:00:00Z", owner("ReplicaSet", "apps/v1", "worker-5c8f7", "10", "100m", "256Mi")),
            ("2026-11-28T05:00:00Z", owner("ReplicaSet", "apps/v1", "worker-5c8f7", "20", "300m", "1Gi")),
            (
                "2026-11-28T04:00:00Z",
                event(
                    "ReplicaSet",
                    "worker-5c8f7",
                    "SuccessfulCreate",
                    "Created pod: pending-pod-abc12",
                    "2026-11-28T04:00:00Z",
                    1,
                ),
            ),
        ]);
        // The pod's name leads nowhere (`pending-pod`): only the event names its owner.
        let (pod, from) = super::pod_from_owner(&store, "web", "pending-pod-abc12", at("2026-11-28T04:30:00Z"))
            .expect("query")
            .expect("derived from the ReplicaSet the event names");
        assert_eq!(from.owner, "ReplicaSet web/worker-5c8f7, by its SuccessfulCreate event");
        assert_eq!((from.observed_after, from.chosen_for), (false, at("2026-11-28T04:00:00Z")));
        assert_eq!(from.observed_at, at("2026-11-28T03:00:00Z"));
        assert_eq!((pod.requests.get("cpu"), pod.requests.get("memory")), (100, 256 << 20));
    }
}
