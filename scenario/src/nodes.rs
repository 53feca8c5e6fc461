//! Node state, its rendering as a full core/v1 Node, and the node-level
//! steps of a drain: cordon, reboot (node-controller and kubelet events,
//! new boot id, Ready transitions, taints) and uncordon.

use std::collections::BTreeSet;

use chrono::{DateTime, Duration, Utc};
use serde_json::{json, Map, Value};

use super::catalog::{NodeDef, AVX2_LABEL, CPU_MODEL_LABEL, GPU_LABEL, I915, NODE_CPU_M, NODE_I915, NODE_PODS};
use super::events::{ts, EventType, ObjRef, Source};
use super::pods::{cpu_qty, Phase};
use super::world::World;
use super::ObjectChange;

/// The Ready condition.
#[derive(Debug, Clone)]
pub(crate) struct Readiness {
    /// `True`, `False` or `Unknown`.
    pub status: &'static str,
    /// Reason.
    pub reason: &'static str,
    /// Message.
    pub message: &'static str,
    /// lastTransitionTime.
    pub since: DateTime<Utc>,
}

/// One node's current state.
#[derive(Debug)]
pub(crate) struct NodeState {
    /// Static definition.
    pub def: &'static NodeDef,
    /// Index in the node list.
    pub idx: usize,
    /// Uid.
    pub uid: String,
    /// Creation time (before the scenario).
    pub created: DateTime<Utc>,
    /// Current boot id.
    pub boot_id: String,
    /// Kernel version (changes with the reboots: the reason for the drains).
    pub kernel: String,
    /// `spec.unschedulable`.
    pub unschedulable: bool,
    /// Ready condition.
    pub ready: Readiness,
    /// Pressure conditions are Unknown while the kubelet is silent.
    pub reachable: bool,
    /// Pressure conditions' lastTransitionTime.
    pub pressure_since: DateTime<Utc>,
    /// not-ready / unreachable taints: (key, effect, timeAdded).
    pub health_taints: Vec<(&'static str, &'static str, DateTime<Utc>)>,
    /// Images present on the node.
    pub images: BTreeSet<String>,
    /// Cordoned at (for the unschedulable taint's timeAdded).
    pub cordoned_at: Option<DateTime<Utc>>,
    /// A NoSchedule taint set with `kubectl taint` (key, value, effect):
    /// written without `timeAdded`, which the API server sets only for NoExecute.
    pub taint: Option<(&'static str, &'static str, &'static str)>,
}

impl NodeState {
    /// The scheduler cannot place pods here.
    pub(crate) fn blocked(&self) -> bool {
        self.unschedulable || self.ready.status != "True"
    }

    /// Reference used by kubelet events (uid = node name, reference §2).
    pub(crate) fn kubelet_ref(&self) -> ObjRef {
        ObjRef {
            api_version: "v1",
            kind: "Node",
            name: self.def.name.into(),
            namespace: None,
            uid: self.def.name.into(),
            field_path: None,
        }
    }

    /// Reference used by node-controller events (the real uid).
    pub(crate) fn controller_ref(&self) -> ObjRef {
        ObjRef { uid: self.uid.clone(), ..self.kubelet_ref() }
    }

    /// The full Node object.
    pub(crate) fn render(&self) -> Value {
        let d = self.def;
        let mut labels = Map::new();
        for (k, v) in [
            ("beta.kubernetes.io/arch", "amd64"),
            ("beta.kubernetes.io/os", "linux"),
            ("kubernetes.io/arch", "amd64"),
            ("kubernetes.io/hostname", d.name),
            ("kubernetes.io/os", "linux"),
            ("feature.node.kubernetes.io/cpu-model.family", "6"),
            ("feature.node.kubernetes.io/cpu-model.vendor_id", "Intel"),
            (CPU_MODEL_LABEL, if d.fast { "154" } else { "156" }),
        ] {
            labels.insert(k.into(), json!(v));
        }
        if d.fast {
            labels.insert(AVX2_LABEL.into(), json!("true"));
            labels.insert(GPU_LABEL.into(), json!("true"));
        }
        let mut spec =
            json!({ "podCIDR": format!("10.42.{}.0/24", self.idx), "podCIDRs": [format!("10.42.{}.0/24", self.idx)] });
        let mut taints: Vec<Value> = Vec::new();
        for (key, effect, at) in &self.health_taints {
            taints.push(json!({ "key": key, "effect": effect, "timeAdded": ts(*at) }));
        }
        if let Some((key, value, effect)) = self.taint {
            taints.push(json!({ "key": key, "value": value, "effect": effect }));
        }
        if let (true, Some(at)) = (self.unschedulable, self.cordoned_at) {
            taints.push(
                json!({ "key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule", "timeAdded": ts(at) }),
            );
        }
        if let Some(m) = spec.as_object_mut() {
            if self.unschedulable {
                m.insert("unschedulable".into(), json!(true));
            }
            if !taints.is_empty() {
                m.insert("taints".into(), Value::Array(taints));
            }
        }
        let resources = |mem_mi: i64| {
            let mut r = json!({
                "cpu": cpu_qty(NODE_CPU_M),
                "ephemeral-storage": "112201799Ki",
                "hugepages-1Gi": "0",
                "hugepages-2Mi": "0",
                "memory": format!("{}Ki", mem_mi * 1024),
                "pods": NODE_PODS.to_string(),
            });
            if let (true, Some(m)) = (d.fast, r.as_object_mut()) {
                m.insert(I915.into(), json!(NODE_I915.to_string()));
            }
            r
        };
        let mut allocatable = resources(d.mem_alloc_mi);
        if let Some(m) = allocatable.as_object_mut() {
            m.insert("ephemeral-storage".into(), json!("103404615041"));
        }
        let pressure = |ty: &str, ok_reason: &str, ok_msg: &str| {
            let (status, reason, message) = if self.reachable {
                ("False", ok_reason, ok_msg)
            } else {
                ("Unknown", "NodeStatusUnknown", "Kubelet stopped posting node status.")
            };
            json!({ "type": ty, "status": status, "reason": reason, "message": message,
                    "lastHeartbeatTime": ts(self.pressure_since), "lastTransitionTime": ts(self.pressure_since) })
        };
        let conditions = json!([
            pressure("MemoryPressure", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
            pressure("DiskPressure", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
            pressure("PIDPressure", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
            { "type": "Ready", "status": self.ready.status, "reason": self.ready.reason, "message": self.ready.message,
              "lastHeartbeatTime": ts(self.ready.since), "lastTransitionTime": ts(self.ready.since) },
        ]);
        json!({
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {
                "name": d.name,
                "uid": self.uid,
                "resourceVersion": "",
                "creationTimestamp": ts(self.created),
                "labels": labels,
                "annotations": {
                    "node.alpha.kubernetes.io/ttl": "0",
                    "volumes.kubernetes.io/controller-managed-attach-detach": "true",
                },
            },
            "spec": spec,
            "status": {
                "addresses": [{ "address": d.address, "type": "InternalIP" }, { "address": d.name, "type": "Hostname" }],
                "allocatable": allocatable,
                "capacity": resources(d.mem_capacity_mi),
                "conditions": conditions,
                "daemonEndpoints": { "kubeletEndpoint": { "Port": 10250 } },
                "nodeInfo": {
                    "architecture": "amd64",
                    "bootID": self.boot_id,
                    "containerRuntimeVersion": "containerd://1.7.24",
                    "kernelVersion": self.kernel,
                    "kubeProxyVersion": "",
                    "kubeletVersion": "v1.33.5",
                    "machineID": format!("{:0>32}", self.uid.replace('-', "")),
                    "operatingSystem": "linux",
                    "osImage": "Debian GNU/Linux 12 (bookworm)",
                    "systemUUID": self.uid,
                },
            },
        })
    }
}

impl World {
    fn emit_node(&mut self, n: usize, at: DateTime<Utc>) {
        let obj = self.nodes[n].render();
        self.rec.push(at, ObjectChange::Modified, obj);
    }

    fn kubelet_node_event(&mut self, n: usize, at: DateTime<Utc>, reason: &str, message: &str, kind: EventType) {
        let r = self.nodes[n].kubelet_ref();
        let host = self.nodes[n].def.name;
        self.core_event(at, &r, reason, message, kind, Source::Kubelet(host));
    }

    /// `kubectl cordon`: spec.unschedulable + taint now, the kubelet's
    /// `NodeNotSchedulable` about 10 s later.
    pub(crate) fn cordon(&mut self, n: usize, at: DateTime<Utc>) {
        self.nodes[n].unschedulable = true;
        self.nodes[n].cordoned_at = Some(at);
        self.emit_node(n, at);
        let name = self.nodes[n].def.name;
        self.kubelet_node_event(
            n,
            at + Duration::milliseconds(10_400),
            "NodeNotSchedulable",
            &format!("Node {name} status is now: NodeNotSchedulable"),
            EventType::Normal,
        );
    }

    /// `kubectl uncordon`, then the kubelet's `NodeSchedulable`.
    pub(crate) fn uncordon(&mut self, n: usize, at: DateTime<Utc>) {
        self.nodes[n].unschedulable = false;
        self.nodes[n].cordoned_at = None;
        self.emit_node(n, at);
        let name = self.nodes[n].def.name;
        self.kubelet_node_event(
            n,
            at + Duration::milliseconds(9_800),
            "NodeSchedulable",
            &format!("Node {name} status is now: NodeSchedulable"),
            EventType::Normal,
        );
    }

    /// Reboots node `n`, shutting down at `at`. Returns when it is Ready again.
    ///
    /// +40 s: node-controller marks it Unknown (`NodeNotReady` on the node and
    /// `Node is not ready` on each pod still there: the DaemonSet pods);
    /// +95 s: the kubelet starts (`Starting`, `Rebooted` with the new boot id,
    /// `NodeNotReady` while the CNI comes up); +115 s: `NodeReady`.
    pub(crate) fn reboot(&mut self, n: usize, at: DateTime<Utc>, kernel: &str) -> DateTime<Utc> {
        let name = self.nodes[n].def.name;
        let lost = at + Duration::seconds(40);
        {
            let node = &mut self.nodes[n];
            node.reachable = false;
            node.ready = Readiness {
                status: "Unknown",
                reason: "NodeStatusUnknown",
                message: "Kubelet stopped posting node status.",
                since: lost,
            };
            node.pressure_since = lost;
            node.health_taints = vec![
                ("node.kubernetes.io/unreachable", "NoSchedule", lost),
                ("node.kubernetes.io/unreachable", "NoExecute", lost + Duration::milliseconds(5)),
            ];
        }
        self.emit_node(n, lost);
        let cref = self.nodes[n].controller_ref();
        self.core_event(
            lost,
            &cref,
            "NodeNotReady",
            &format!("Node {name} status is now: NodeNotReady"),
            EventType::Normal,
            Source::Controller("node-controller"),
        );
        let residents: Vec<usize> = (0..self.pods.len())
            .filter(|&p| self.pods[p].occupies() && self.pods[p].node.map(|x| x.0) == Some(n))
            .collect();
        for (i, &p) in residents.iter().enumerate() {
            let t = lost + Duration::milliseconds(20 + 15 * i as i64);
            self.pods[p].ready_since = None;
            self.pods[p].unready_since = Some(t);
            self.emit_pod(p, t, ObjectChange::Modified);
            let r = self.pods[p].obj_ref();
            self.core_event(
                t,
                &r,
                "NodeNotReady",
                "Node is not ready",
                EventType::Warning,
                Source::Controller("node-controller"),
            );
        }

        let boot = at + Duration::seconds(95);
        let boot_id = self.rng.uuid();
        {
            let node = &mut self.nodes[n];
            node.boot_id = boot_id.clone();
            node.kernel = kernel.to_string();
            node.reachable = true;
            node.pressure_since = boot;
            node.ready = Readiness {
                status: "False",
                reason: "KubeletNotReady",
                message: "container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:Network plugin returns error: cni plugin not initialized",
                since: boot,
            };
            node.health_taints = vec![("node.kubernetes.io/not-ready", "NoSchedule", boot)];
        }
        let ms = |x: i64| boot + Duration::milliseconds(x);
        self.kubelet_node_event(n, ms(0), "Starting", "Starting kubelet.", EventType::Normal);
        self.kubelet_node_event(
            n,
            ms(120),
            "NodeAllocatableEnforced",
            "Updated Node Allocatable limit across pods",
            EventType::Normal,
        );
        for cond in ["NodeHasSufficientMemory", "NodeHasNoDiskPressure", "NodeHasSufficientPID"] {
            self.kubelet_node_event(n, ms(180), cond, &format!("Node {name} status is now: {cond}"), EventType::Normal);
        }
        self.kubelet_node_event(
            n,
            ms(240),
            "Rebooted",
            &format!("Node {name} has been rebooted, boot id: {boot_id}"),
            EventType::Warning,
        );
        self.kubelet_node_event(
            n,
            ms(260),
            "NodeNotReady",
            &format!("Node {name} status is now: NodeNotReady"),
            EventType::Normal,
        );
        self.emit_node(n, ms(300));

        let ready = at + Duration::seconds(115);
        {
            let node = &mut self.nodes[n];
            node.ready = Readiness {
                status: "True",
                reason: "KubeletReady",
                message: "kubelet is posting ready status",
                since: ready,
            };
            node.health_taints.clear();
        }
        self.emit_node(n, ready);
        self.kubelet_node_event(
            n,
            ready + Duration::milliseconds(40),
            "NodeReady",
            &format!("Node {name} status is now: NodeReady"),
            EventType::Normal,
        );

        // The DaemonSet pods come back with a new sandbox.
        for (i, &p) in residents.iter().enumerate() {
            let t = ready + Duration::milliseconds(1_500 + 700 * i as i64);
            let r = self.pods[p].obj_ref();
            self.core_event(
                t,
                &r,
                "SandboxChanged",
                "Pod sandbox changed, it will be killed and re-created.",
                EventType::Normal,
                Source::Kubelet(name),
            );
            self.pods[p].restart_count += 1;
            self.pods[p].running_since = None;
            self.restart_containers(p, t + Duration::seconds(3));
            debug_assert!(self.pods[p].phase == Phase::Running);
        }
        ready
    }
}
