//! Pod state and its rendering as a full core/v1 Pod object, version by
//! version: Pending, bound, ContainerCreating, Running, evicted
//! (DisruptionTarget), terminating (deletionTimestamp), terminated.

use std::rc::Rc;

use chrono::{DateTime, Utc};
use serde_json::{json, Map, Value};

use super::catalog::{ContainerDef, Pref, Qos, AVX2_LABEL, GPU_LABEL, I915};
use super::events::{ts, ObjRef};
use super::sim::Demand;

/// The controller that owns a pod.
#[derive(Debug, Clone)]
pub(crate) struct Owner {
    /// `apps/v1` or `batch/v1`.
    pub api_version: &'static str,
    /// `ReplicaSet`, `DaemonSet`, `Job`.
    pub kind: &'static str,
    /// Owner name.
    pub name: String,
    /// Owner uid.
    pub uid: String,
}

/// What every pod of one controller (revision) shares.
#[derive(Debug)]
pub(crate) struct PodTemplate {
    /// Namespace.
    pub namespace: String,
    /// The `app` label (Jobs: the job name).
    pub app: String,
    /// `metadata.generateName`.
    pub generate_name: String,
    /// All labels.
    pub labels: Vec<(String, String)>,
    /// Owner.
    pub owner: Owner,
    /// Containers.
    pub containers: Vec<ContainerDef>,
    /// Preferred node affinity.
    pub pref: Pref,
    /// Required pod affinity to pods labelled `app=<x>` on the same host.
    pub affinity_app: Option<String>,
    /// DaemonSet pods only run on GPU nodes.
    pub gpu_only: bool,
    /// `Always` or `Never`.
    pub restart_policy: &'static str,
    /// Job pods carry the `batch.kubernetes.io/job-tracking` finalizer.
    pub job_tracking: bool,
}

impl PodTemplate {
    /// The template's own affinity (preferred node affinity, required pod
    /// affinity), as its pods and its controller's `spec.template` carry it.
    pub(crate) fn affinity(&self) -> Map<String, Value> {
        let mut affinity = Map::new();
        if let Some(term) = pref_term(self.pref) {
            affinity.insert(
                "nodeAffinity".into(),
                json!({ "preferredDuringSchedulingIgnoredDuringExecution": [{ "weight": 100, "preference": term }] }),
            );
        }
        if let Some(app) = &self.affinity_app {
            affinity.insert(
                "podAffinity".into(),
                json!({ "requiredDuringSchedulingIgnoredDuringExecution": [{
                    "labelSelector": { "matchLabels": { "app": app } },
                    "topologyKey": "kubernetes.io/hostname",
                }] }),
            );
        }
        affinity
    }

    /// The pod's requests as the scheduler sums them.
    pub(crate) fn demand(&self) -> Demand {
        Demand::of(&self.containers)
    }

    fn qos(&self) -> &'static str {
        if self.containers.iter().all(|c| c.qos == Qos::BestEffort) {
            "BestEffort"
        } else if self.containers.iter().all(|c| c.qos == Qos::Guaranteed) {
            "Guaranteed"
        } else {
            "Burstable"
        }
    }
}

/// Phase of a pod.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Phase {
    /// Pending.
    Pending,
    /// Running.
    Running,
    /// Succeeded.
    Succeeded,
    /// Failed (not used by the story yet, kept for completeness).
    #[allow(dead_code)]
    Failed,
}

/// One pod's current state.
#[derive(Debug)]
pub(crate) struct PodState {
    /// Name.
    pub name: String,
    /// Uid.
    pub uid: String,
    /// Shared template.
    pub template: Rc<PodTemplate>,
    /// Creation time.
    pub created: DateTime<Utc>,
    /// Bound node (index into the node list) and its name.
    pub node: Option<(usize, &'static str)>,
    /// Host IP of the bound node.
    pub host_ip: Option<&'static str>,
    /// When it was bound.
    pub scheduled_at: Option<DateTime<Utc>>,
    /// Unschedulable since, with the message.
    pub unschedulable: Option<(DateTime<Utc>, String)>,
    /// Kubelet accepted the pod (status.startTime).
    pub start_time: Option<DateTime<Utc>>,
    /// Containers running since.
    pub running_since: Option<DateTime<Utc>>,
    /// Ready since (None: not ready).
    pub ready_since: Option<DateTime<Utc>>,
    /// Not ready since (after being ready).
    pub unready_since: Option<DateTime<Utc>>,
    /// Phase.
    pub phase: Phase,
    /// Container restarts.
    pub restart_count: u32,
    /// One container id per container.
    pub container_ids: Vec<String>,
    /// Pod IP.
    pub pod_ip: Option<String>,
    /// DisruptionTarget condition time.
    pub disruption: Option<DateTime<Utc>>,
    /// deletionTimestamp and grace period.
    pub deletion: Option<(DateTime<Utc>, i64)>,
    /// Containers terminated at, exit code.
    pub terminated: Option<(DateTime<Utc>, i32)>,
    /// Job tracking finalizer still present.
    pub finalizer: bool,
    /// Deleted from the API.
    pub gone: bool,
}

impl PodState {
    /// A new, unscheduled pod.
    pub(crate) fn new(name: String, uid: String, template: Rc<PodTemplate>, created: DateTime<Utc>) -> Self {
        let finalizer = template.job_tracking;
        PodState {
            name,
            uid,
            template,
            created,
            node: None,
            host_ip: None,
            scheduled_at: None,
            unschedulable: None,
            start_time: None,
            running_since: None,
            ready_since: None,
            unready_since: None,
            phase: Phase::Pending,
            restart_count: 0,
            container_ids: Vec::new(),
            pod_ip: None,
            disruption: None,
            deletion: None,
            terminated: None,
            finalizer,
            gone: false,
        }
    }

    /// Bound to a node, not terminal and not deleted: counts against the node.
    pub(crate) fn occupies(&self) -> bool {
        !self.gone && self.node.is_some() && matches!(self.phase, Phase::Pending | Phase::Running)
    }

    /// Reference for events about this pod.
    pub(crate) fn obj_ref(&self) -> ObjRef {
        ObjRef {
            api_version: "v1",
            kind: "Pod",
            name: self.name.clone(),
            namespace: Some(self.template.namespace.to_string()),
            uid: self.uid.clone(),
            field_path: None,
        }
    }

    /// The full Pod object in its current state.
    pub(crate) fn render(&self) -> Value {
        let t = &self.template;
        let labels: Map<String, Value> = t.labels.iter().map(|(k, v)| (k.clone(), json!(v))).collect();
        let mut meta = json!({
            "name": self.name,
            "generateName": t.generate_name,
            "namespace": t.namespace,
            "uid": self.uid,
            "resourceVersion": "",
            "creationTimestamp": ts(self.created),
            "labels": labels,
            "ownerReferences": [{
                "apiVersion": t.owner.api_version,
                "kind": t.owner.kind,
                "name": t.owner.name,
                "uid": t.owner.uid,
                "controller": true,
                "blockOwnerDeletion": true,
            }],
        });
        if let Some(m) = meta.as_object_mut() {
            if let Some((at, grace)) = self.deletion {
                m.insert("deletionTimestamp".into(), json!(ts(at)));
                m.insert("deletionGracePeriodSeconds".into(), json!(grace));
            }
            if self.finalizer {
                m.insert("finalizers".into(), json!(["batch.kubernetes.io/job-tracking"]));
            }
        }
        json!({
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": meta,
            "spec": self.render_spec(),
            "status": self.render_status(),
        })
    }

    fn render_spec(&self) -> Value {
        let t = &self.template;
        let containers: Vec<Value> = t.containers.iter().map(container_json).collect();
        let mut spec = json!({
            "containers": containers,
            "restartPolicy": t.restart_policy,
            "terminationGracePeriodSeconds": 30,
            "dnsPolicy": "ClusterFirst",
            "serviceAccountName": "default",
            "schedulerName": "default-scheduler",
            "priority": 0,
            "preemptionPolicy": "PreemptLowerPriority",
            "enableServiceLinks": true,
        });
        let Some(m) = spec.as_object_mut() else { return spec };
        let mut affinity = t.affinity();
        if t.owner.kind == "DaemonSet" {
            if let Some((_, node)) = self.node {
                affinity.insert(
                    "nodeAffinity".into(),
                    json!({ "requiredDuringSchedulingIgnoredDuringExecution": { "nodeSelectorTerms": [{
                        "matchFields": [{ "key": "metadata.name", "operator": "In", "values": [node] }],
                    }] } }),
                );
            }
            m.insert(
                "tolerations".into(),
                json!([
                    { "operator": "Exists" },
                    { "key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute" },
                    { "key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute" },
                    { "key": "node.kubernetes.io/unschedulable", "operator": "Exists", "effect": "NoSchedule" },
                ]),
            );
            if t.gpu_only {
                m.insert("nodeSelector".into(), json!({ GPU_LABEL: "true" }));
            }
        } else {
            m.insert("tolerations".into(), json!([
                { "key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300 },
                { "key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300 },
            ]));
        }
        if !affinity.is_empty() {
            m.insert("affinity".into(), Value::Object(affinity));
        }
        if let Some((_, node)) = self.node {
            m.insert("nodeName".into(), json!(node));
        }
        spec
    }

    fn render_status(&self) -> Value {
        let phase = match self.phase {
            Phase::Pending => "Pending",
            Phase::Running => "Running",
            Phase::Succeeded => "Succeeded",
            Phase::Failed => "Failed",
        };
        let mut status = json!({ "phase": phase });
        let Some(m) = status.as_object_mut() else { return status };
        let mut conds: Vec<Value> = Vec::new();
        let cond = |ty: &str, ok: bool, at: DateTime<Utc>, reason: Option<&str>| {
            let mut c = json!({ "type": ty, "status": if ok { "True" } else { "False" }, "lastProbeTime": null, "lastTransitionTime": ts(at) });
            if let (Some(r), Some(o)) = (reason, c.as_object_mut()) {
                o.insert("reason".into(), json!(r));
            }
            c
        };
        if let Some(at) = self.disruption {
            let mut c = cond("DisruptionTarget", true, at, Some("EvictionByEvictionAPI"));
            if let Some(o) = c.as_object_mut() {
                o.insert("message".into(), json!("Eviction API: evicting"));
            }
            conds.push(c);
        }
        if let Some(start) = self.start_time {
            let sandbox_ok = self.terminated.is_none();
            let sandbox_at = self.terminated.map(|(t, _)| t).or(self.running_since).unwrap_or(start);
            conds.push(cond("PodReadyToStartContainers", sandbox_ok && self.running_since.is_some(), sandbox_at, None));
            conds.push(cond("Initialized", true, start, None));
            let not_ready_reason =
                if self.terminated.is_some() { Some("PodCompleted") } else { Some("ContainersNotReady") };
            let (ready, at, reason) = match (self.ready_since, self.unready_since) {
                (Some(r), _) => (true, r, None),
                (None, Some(u)) => (false, u, not_ready_reason),
                (None, None) => (false, start, not_ready_reason),
            };
            conds.push(cond("Ready", ready, at, reason));
            conds.push(cond("ContainersReady", ready, at, reason));
        }
        match (self.scheduled_at, &self.unschedulable) {
            (Some(at), _) => conds.push(cond("PodScheduled", true, at, None)),
            (None, Some((at, msg))) => {
                let mut c = cond("PodScheduled", false, *at, Some("Unschedulable"));
                if let Some(o) = c.as_object_mut() {
                    o.insert("message".into(), json!(msg));
                }
                conds.push(c);
            }
            (None, None) => {}
        }
        if !conds.is_empty() {
            m.insert("conditions".into(), Value::Array(conds));
        }
        if let (Some(start), Some(host)) = (self.start_time, self.host_ip) {
            m.insert("hostIP".into(), json!(host));
            m.insert("hostIPs".into(), json!([{ "ip": host }]));
            if let Some(ip) = &self.pod_ip {
                m.insert("podIP".into(), json!(ip));
                m.insert("podIPs".into(), json!([{ "ip": ip }]));
            }
            m.insert("startTime".into(), json!(ts(start)));
            let statuses: Vec<Value> =
                self.template.containers.iter().enumerate().map(|(i, c)| self.container_status(i, c)).collect();
            m.insert("containerStatuses".into(), Value::Array(statuses));
        }
        m.insert("qosClass".into(), json!(self.template.qos()));
        status
    }

    fn container_status(&self, i: usize, c: &ContainerDef) -> Value {
        let id = self.container_ids.get(i).map(|s| format!("containerd://{s}"));
        let state = match (self.terminated, self.running_since) {
            (Some((end, code)), started) => json!({ "terminated": {
                "exitCode": code,
                "reason": if code == 0 { "Completed" } else { "Error" },
                "startedAt": started.map(ts),
                "finishedAt": ts(end),
                "containerID": id,
            } }),
            (None, Some(since)) => json!({ "running": { "startedAt": ts(since) } }),
            (None, None) => json!({ "waiting": { "reason": "ContainerCreating" } }),
        };
        let mut s = json!({
            "name": c.name,
            "image": c.image,
            "imageID": image_id(&c.image),
            "ready": self.ready_since.is_some(),
            "restartCount": self.restart_count,
            "started": self.running_since.is_some() && self.terminated.is_none(),
            "state": state,
            "lastState": {},
        });
        if let (Some(id), Some(o), true) = (id, s.as_object_mut(), self.running_since.is_some()) {
            o.insert("containerID".into(), json!(id));
        }
        s
    }
}

fn pref_term(pref: Pref) -> Option<Value> {
    match pref {
        Pref::None => None,
        Pref::FastHosts => Some(json!({ "matchExpressions": [{
            "key": "kubernetes.io/hostname", "operator": "In", "values": ["node-1", "node-2", "node-3", "node-4"],
        }] })),
        Pref::Avx2 => {
            Some(json!({ "matchExpressions": [{ "key": AVX2_LABEL, "operator": "In", "values": ["true"] }] }))
        }
    }
}

/// `100m`, `2`, `1500m`.
pub(crate) fn cpu_qty(m: i64) -> String {
    if m % 1000 == 0 {
        (m / 1000).to_string()
    } else {
        format!("{m}m")
    }
}

/// `128Mi`, `1Gi`.
pub(crate) fn mem_qty(mi: i64) -> String {
    if mi % 1024 == 0 {
        format!("{}Gi", mi / 1024)
    } else {
        format!("{mi}Mi")
    }
}

/// A container as written in a pod spec or a controller's pod template.
pub(crate) fn container_json(c: &ContainerDef) -> Value {
    let mut requests = Map::new();
    let mut limits = Map::new();
    match c.qos {
        Qos::BestEffort => {}
        Qos::Burstable => {
            // A Burstable container may request memory only (no CPU request at all).
            if c.cpu_m > 0 {
                requests.insert("cpu".into(), json!(cpu_qty(c.cpu_m)));
            }
            requests.insert("memory".into(), json!(mem_qty(c.mem_mi)));
            limits.insert("memory".into(), json!(mem_qty(c.mem_mi * 2)));
        }
        Qos::Guaranteed => {
            for m in [&mut requests, &mut limits] {
                m.insert("cpu".into(), json!(cpu_qty(c.cpu_m)));
                m.insert("memory".into(), json!(mem_qty(c.mem_mi)));
            }
        }
    }
    if c.i915 > 0 {
        requests.insert(I915.into(), json!(c.i915.to_string()));
        limits.insert(I915.into(), json!(c.i915.to_string()));
    }
    let mut resources = Map::new();
    if !limits.is_empty() {
        resources.insert("limits".into(), Value::Object(limits));
    }
    if !requests.is_empty() {
        resources.insert("requests".into(), Value::Object(requests));
    }
    json!({
        "name": c.name,
        "image": c.image,
        "imagePullPolicy": "IfNotPresent",
        "resources": resources,
        "terminationMessagePath": "/dev/termination-log",
        "terminationMessagePolicy": "File",
    })
}

/// A stable, seed-independent digest for an image reference.
pub(crate) fn image_id(image: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in image.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    let mut r = super::rng::SplitMix64::new(h);
    let repo = image.split(':').next().unwrap_or(image);
    let repo = if !repo.contains('/') {
        format!("docker.io/library/{repo}")
    } else if repo.split('/').next().is_some_and(|h| h.contains('.')) {
        repo.to_string()
    } else {
        format!("docker.io/{repo}")
    };
    format!("{repo}@sha256:{}", r.hex(64))
}
