//! The owners of the pods: Deployments with their ReplicaSets, DaemonSets,
//! the `backup` CronJob and its Jobs — their state and rendering. Pods,
//! nodes and events carry the story; these objects give it its owners
//! (ownerReferences, `pod-template-hash`, ScalingReplicaSet events).

use std::rc::Rc;

use chrono::{DateTime, Utc};
use serde_json::{json, Map, Value};

use super::catalog::{DaemonSetDef, DeploymentDef};
use super::events::ts;
use super::pods::PodTemplate;

/// One ReplicaSet (one revision of a Deployment).
#[derive(Debug)]
pub(crate) struct RsState {
    /// `<deployment>-<pod-template-hash>`.
    pub name: String,
    /// Uid.
    pub uid: String,
    /// Created.
    pub created: DateTime<Utc>,
    /// Deployment revision.
    pub revision: u32,
    /// Desired replicas.
    pub replicas: u32,
    /// Template shared by its pods.
    pub template: Rc<PodTemplate>,
}

/// One Deployment and its ReplicaSets (the last one is current).
#[derive(Debug)]
pub(crate) struct DeploymentState {
    /// Static definition (containers may be changed by a rollout).
    pub def: DeploymentDef,
    /// Uid.
    pub uid: String,
    /// Created.
    pub created: DateTime<Utc>,
    /// metadata.generation.
    pub generation: u32,
    /// ReplicaSets, oldest first.
    pub sets: Vec<RsState>,
}

impl DeploymentState {
    /// The current ReplicaSet.
    pub(crate) fn current(&self) -> Option<&RsState> {
        self.sets.last()
    }

    /// The Deployment object.
    pub(crate) fn render(&self) -> Value {
        let d = &self.def;
        let revision = self.current().map_or(1, |r| r.revision);
        let template = self.current().map_or(Value::Null, |r| template_json(&r.template, false));
        json!({
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {
                "name": d.name, "namespace": d.namespace, "uid": self.uid, "resourceVersion": "",
                "generation": self.generation, "creationTimestamp": ts(self.created),
                "labels": { "app": d.name },
                "annotations": { "deployment.kubernetes.io/revision": revision.to_string() },
            },
            "spec": {
                "replicas": d.replicas,
                "selector": { "matchLabels": { "app": d.name } },
                "strategy": { "type": "RollingUpdate", "rollingUpdate": { "maxSurge": "25%", "maxUnavailable": "25%" } },
                "revisionHistoryLimit": 10,
                "progressDeadlineSeconds": 600,
                "template": template,
            },
            "status": {
                "observedGeneration": self.generation,
                "replicas": d.replicas, "updatedReplicas": d.replicas,
                "readyReplicas": d.replicas, "availableReplicas": d.replicas,
            },
        })
    }

    /// ReplicaSet `i` of this Deployment.
    pub(crate) fn render_rs(&self, i: usize) -> Value {
        let Some(rs) = self.sets.get(i) else { return Value::Null };
        let d = &self.def;
        let hash = rs.name.rsplit('-').next().unwrap_or_default();
        json!({
            "apiVersion": "apps/v1",
            "kind": "ReplicaSet",
            "metadata": {
                "name": rs.name, "namespace": d.namespace, "uid": rs.uid, "resourceVersion": "",
                "generation": rs.revision, "creationTimestamp": ts(rs.created),
                "labels": { "app": d.name, "pod-template-hash": hash },
                "annotations": {
                    "deployment.kubernetes.io/desired-replicas": d.replicas.to_string(),
                    "deployment.kubernetes.io/max-replicas": (d.replicas + d.replicas.div_ceil(4)).to_string(),
                    "deployment.kubernetes.io/revision": rs.revision.to_string(),
                },
                "ownerReferences": [{ "apiVersion": "apps/v1", "kind": "Deployment", "name": d.name, "uid": self.uid, "controller": true, "blockOwnerDeletion": true }],
            },
            "spec": {
                "replicas": rs.replicas,
                "selector": { "matchLabels": { "app": d.name, "pod-template-hash": hash } },
                "template": template_json(&rs.template, true),
            },
            "status": {
                "replicas": rs.replicas, "fullyLabeledReplicas": rs.replicas,
                "readyReplicas": rs.replicas, "availableReplicas": rs.replicas, "observedGeneration": rs.revision,
            },
        })
    }
}

/// One DaemonSet.
#[derive(Debug)]
pub(crate) struct DaemonSetState {
    /// Definition.
    pub def: DaemonSetDef,
    /// Uid.
    pub uid: String,
    /// Created.
    pub created: DateTime<Utc>,
    /// Pod template.
    pub template: Rc<PodTemplate>,
    /// Number of nodes it runs on.
    pub scheduled: u32,
}

impl DaemonSetState {
    /// The DaemonSet object.
    pub(crate) fn render(&self) -> Value {
        let d = &self.def;
        let n = self.scheduled;
        json!({
            "apiVersion": "apps/v1",
            "kind": "DaemonSet",
            "metadata": {
                "name": d.name, "namespace": d.namespace, "uid": self.uid, "resourceVersion": "",
                "generation": 1, "creationTimestamp": ts(self.created), "labels": { "app": d.name },
            },
            "spec": {
                "selector": { "matchLabels": { "app": d.name } },
                "updateStrategy": { "type": "RollingUpdate", "rollingUpdate": { "maxUnavailable": 1, "maxSurge": 0 } },
                "template": template_json(&self.template, false),
            },
            "status": {
                "currentNumberScheduled": n, "desiredNumberScheduled": n, "numberAvailable": n,
                "numberMisscheduled": 0, "numberReady": n, "observedGeneration": 1, "updatedNumberScheduled": n,
            },
        })
    }
}

/// Pod template as embedded in a controller's spec.
pub(crate) fn template_json(t: &PodTemplate, with_hash: bool) -> Value {
    let labels: Map<String, Value> = t
        .labels
        .iter()
        .filter(|(k, _)| with_hash || k != "pod-template-hash")
        .filter(|(k, _)| !k.starts_with("batch.kubernetes.io/controller-uid") && k != "controller-uid")
        .map(|(k, v)| (k.clone(), json!(v)))
        .collect();
    let containers: Vec<Value> = t.containers.iter().map(super::pods::container_json).collect();
    let mut spec =
        json!({ "containers": containers, "restartPolicy": t.restart_policy, "schedulerName": "default-scheduler" });
    // The scheduling constraints its pods carry (a DaemonSet's per-node
    // affinity and tolerations are added by its controller, not templated).
    let affinity = t.affinity();
    if let Some(m) = spec.as_object_mut() {
        if !affinity.is_empty() {
            m.insert("affinity".into(), Value::Object(affinity));
        }
        if t.gpu_only {
            m.insert("nodeSelector".into(), json!({ super::catalog::GPU_LABEL: "true" }));
        }
    }
    json!({ "metadata": { "labels": labels }, "spec": spec })
}

/// The `backup` CronJob and what it needs to render.
#[derive(Debug, Clone)]
pub(crate) struct CronJobState {
    /// Uid.
    pub uid: String,
    /// Created.
    pub created: DateTime<Utc>,
    /// Last schedule time.
    pub last_schedule: Option<DateTime<Utc>>,
    /// Last successful run's completion.
    pub last_success: Option<DateTime<Utc>>,
    /// Active jobs (name, uid).
    pub active: Vec<(String, String)>,
    /// `metadata.generation` (1 until a spec edit).
    pub generation: i64,
}

/// Namespace of the backup CronJob.
pub(crate) const BACKUP_NS: &str = "media";
/// Name of the backup CronJob.
pub(crate) const BACKUP_CRONJOB: &str = "backup";
/// Its schedule.
pub(crate) const BACKUP_SCHEDULE: &str = "0 4 * * *";
/// Job deadline.
pub(crate) const BACKUP_DEADLINE_S: i64 = 5400;

impl CronJobState {
    /// The CronJob object.
    pub(crate) fn render(&self, template: &Value) -> Value {
        let mut status = Map::new();
        if !self.active.is_empty() {
            let active: Vec<Value> = self
                .active
                .iter()
                .map(|(n, u)| json!({ "apiVersion": "batch/v1", "kind": "Job", "name": n, "namespace": BACKUP_NS, "uid": u }))
                .collect();
            status.insert("active".into(), Value::Array(active));
        }
        if let Some(t) = self.last_schedule {
            status.insert("lastScheduleTime".into(), json!(ts(t)));
        }
        if let Some(t) = self.last_success {
            status.insert("lastSuccessfulTime".into(), json!(ts(t)));
        }
        json!({
            "apiVersion": "batch/v1",
            "kind": "CronJob",
            "metadata": { "name": BACKUP_CRONJOB, "namespace": BACKUP_NS, "uid": self.uid, "resourceVersion": "", "generation": self.generation, "creationTimestamp": ts(self.created) },
            "spec": {
                "schedule": BACKUP_SCHEDULE,
                "timeZone": "Etc/UTC",
                "concurrencyPolicy": "Forbid",
                "successfulJobsHistoryLimit": 3,
                "failedJobsHistoryLimit": 1,
                "suspend": false,
                "jobTemplate": { "spec": { "activeDeadlineSeconds": BACKUP_DEADLINE_S, "backoffLimit": 0, "template": template } },
            },
            "status": status,
        })
    }
}

/// One Job of the CronJob.
#[derive(Debug)]
pub(crate) struct JobState {
    /// `backup-<scheduled unix minutes>`.
    pub name: String,
    /// Uid.
    pub uid: String,
    /// CronJob uid.
    pub cronjob_uid: String,
    /// Created (= status.startTime).
    pub created: DateTime<Utc>,
    /// Pod template.
    pub template: Rc<PodTemplate>,
    /// Pods active / succeeded / failed.
    pub counts: (u32, u32, u32),
    /// Ready pods.
    pub ready: u32,
    /// Terminal conditions: (type, reason, message, at).
    pub conditions: Vec<(&'static str, &'static str, &'static str, DateTime<Utc>)>,
    /// Completion time.
    pub completed: Option<DateTime<Utc>>,
}

impl JobState {
    /// The Job object.
    pub(crate) fn render(&self) -> Value {
        let conditions: Vec<Value> = self
            .conditions
            .iter()
            .map(|(ty, reason, msg, at)| json!({ "type": ty, "status": "True", "reason": reason, "message": msg, "lastProbeTime": ts(*at), "lastTransitionTime": ts(*at) }))
            .collect();
        let mut status =
            json!({ "startTime": ts(self.created), "active": self.counts.0, "ready": self.ready, "terminating": 0 });
        if let Some(m) = status.as_object_mut() {
            if self.counts.1 > 0 {
                m.insert("succeeded".into(), json!(self.counts.1));
            }
            if self.counts.2 > 0 {
                m.insert("failed".into(), json!(self.counts.2));
            }
            if !conditions.is_empty() {
                m.insert("conditions".into(), Value::Array(conditions));
            }
            if let Some(t) = self.completed {
                m.insert("completionTime".into(), json!(ts(t)));
            }
            m.insert("uncountedTerminatedPods".into(), json!({}));
        }
        json!({
            "apiVersion": "batch/v1",
            "kind": "Job",
            "metadata": {
                "name": self.name, "namespace": BACKUP_NS, "uid": self.uid, "resourceVersion": "", "generation": 1,
                "creationTimestamp": ts(self.created),
                "labels": { "batch.kubernetes.io/controller-uid": self.uid, "batch.kubernetes.io/job-name": self.name, "controller-uid": self.uid, "job-name": self.name },
                "annotations": { "batch.kubernetes.io/cronjob-scheduled-timestamp": ts(self.created) },
                "ownerReferences": [{ "apiVersion": "batch/v1", "kind": "CronJob", "name": BACKUP_CRONJOB, "uid": self.cronjob_uid, "controller": true, "blockOwnerDeletion": true }],
            },
            "spec": {
                "activeDeadlineSeconds": BACKUP_DEADLINE_S,
                "backoffLimit": 0,
                "completionMode": "NonIndexed",
                "completions": 1,
                "parallelism": 1,
                "podReplacementPolicy": "TerminatingOrFailed",
                "suspend": false,
                "selector": { "matchLabels": { "batch.kubernetes.io/controller-uid": self.uid } },
                "template": template_json(&self.template, false),
            },
            "status": status,
        })
    }
}
