//! The scale generator's cluster: nodes (8 CPU / 32 GiB, rendered here),
//! Deployment pods (rendered by the demo's pod builder), a random-fit
//! placement that respects CPU room and cordons, and the initial listing.

use std::rc::Rc;

use chrono::{DateTime, Duration, Utc};
use serde_json::{json, Map, Value};

use super::super::catalog::{ContainerDef, Pref, Qos};
use super::super::events::{ts, ObjRef};
use super::super::pods::{Owner, Phase, PodState, PodTemplate};
use super::super::rng::SplitMix64;
use super::super::ObjectChange;
use super::{Out, ScaleConfig};

/// Allocatable CPU of every node, millicores.
pub(crate) const NODE_CPU_M: i64 = 8_000;
/// Allocatable memory of every node, MiB.
pub(crate) const NODE_MEM_MI: i64 = 32_000;
/// Pods per Deployment.
const REPLICAS: u32 = 30;
/// Namespaces the Deployments are spread over.
const NAMESPACES: u32 = 50;

/// One node's state.
pub(crate) struct ScaleNode {
    pub name: &'static str,
    pub address: &'static str,
    pub uid: String,
    pub boot_id: String,
    pub cordoned_at: Option<DateTime<Utc>>,
    /// Ready condition: (status, reason, message, since).
    pub ready: (&'static str, &'static str, &'static str, DateTime<Utc>),
    /// CPU requested by the pods bound to it, millicores.
    pub cpu_used_m: i64,
    /// Pod slots bound to it.
    pub pods: Vec<u32>,
}

/// One Deployment (its ReplicaSet owns the pods).
pub(crate) struct Deployment {
    pub template: Rc<PodTemplate>,
    pub rs_ref: ObjRef,
    pub cpu_m: i64,
}

/// The cluster: nodes, deployments, and one slot per running pod.
pub(crate) struct Cluster {
    pub nodes: Vec<ScaleNode>,
    pub deployments: Vec<Deployment>,
    /// The pod in each slot and its deployment.
    pub slots: Vec<(PodState, u32)>,
    pub rng: SplitMix64,
    pub created: DateTime<Utc>,
}

fn leak(s: String) -> &'static str {
    Box::leak(s.into_boxed_str())
}

impl Cluster {
    /// Nodes, deployments and every pod placed and Running at `start`.
    pub(crate) fn new(config: &ScaleConfig, start: DateTime<Utc>) -> Self {
        let mut rng = SplitMix64::stream(config.seed, "scale");
        let created = start - Duration::days(90);
        let nodes = (0..config.nodes.max(1))
            .map(|i| ScaleNode {
                name: leak(format!("node-{:05}", i + 1)),
                address: leak(format!("10.{}.{}.{}", 16 + i / 65_536, (i / 256) % 256, i % 256)),
                uid: rng.uuid(),
                boot_id: rng.uuid(),
                cordoned_at: None,
                ready: ("True", "KubeletReady", "kubelet is posting ready status", created),
                cpu_used_m: 0,
                pods: Vec::new(),
            })
            .collect();
        let deployments = (0..config.pods.div_ceil(REPLICAS).max(1)).map(|d| deployment(&mut rng, d)).collect();
        let mut cluster = Cluster { nodes, deployments, slots: Vec::new(), rng, created };
        for p in 0..config.pods {
            let d = p / REPLICAS;
            let mut pod = cluster.new_pod(d, created + Duration::seconds(i64::from(p % 86_400)));
            let n = cluster.place(cluster.deployments[d as usize].cpu_m);
            let since = pod.created + Duration::seconds(3);
            cluster.bind(&mut pod, n, since);
            cluster.run(&mut pod, since);
            cluster.nodes[n as usize].pods.push(p);
            cluster.slots.push((pod, d));
        }
        cluster
    }

    /// A new, unscheduled pod of deployment `d` created at `at`.
    pub(crate) fn new_pod(&mut self, d: u32, at: DateTime<Utc>) -> PodState {
        let template = self.deployments[d as usize].template.clone();
        let name = format!("{}{}", template.generate_name, self.rng.name_suffix(5));
        PodState::new(name, self.rng.uuid(), template, at)
    }

    /// Binds `pod` to node `n` at `at` (books its CPU).
    pub(crate) fn bind(&mut self, pod: &mut PodState, n: u32, at: DateTime<Utc>) {
        let node = &mut self.nodes[n as usize];
        node.cpu_used_m += pod.template.containers.iter().map(|c| c.cpu_m).sum::<i64>();
        pod.node = Some((n as usize, node.name));
        pod.scheduled_at = Some(at);
    }

    /// Kubelet started `pod` at `at`: Running and Ready.
    pub(crate) fn run(&mut self, pod: &mut PodState, at: DateTime<Utc>) {
        let n = pod.node.map_or(0, |(n, _)| n);
        pod.host_ip = Some(self.nodes[n].address);
        pod.start_time = Some(at);
        pod.pod_ip = Some(format!("10.{}.{}.{}", 128 + n / 256, n % 256, 2 + self.rng.below(250)));
        pod.container_ids = vec![self.rng.hex(64)];
        pod.phase = Phase::Running;
        pod.running_since = Some(at + Duration::milliseconds(900));
        pod.ready_since = Some(at + Duration::seconds(2));
    }

    /// Frees the CPU `pod` held on its node and forgets the slot there.
    pub(crate) fn unbind(&mut self, slot: u32) {
        let (pod, _) = &self.slots[slot as usize];
        let cpu: i64 = pod.template.containers.iter().map(|c| c.cpu_m).sum();
        if let Some((n, _)) = pod.node {
            let node = &mut self.nodes[n];
            node.cpu_used_m -= cpu;
            node.pods.retain(|&s| s != slot);
        }
    }

    /// A schedulable node with room for `cpu_m`: random tries, then a scan.
    pub(crate) fn place(&mut self, cpu_m: i64) -> u32 {
        let len = self.nodes.len() as u64;
        let fits = |n: &ScaleNode| n.cordoned_at.is_none() && n.cpu_used_m + cpu_m <= NODE_CPU_M * 95 / 100;
        for _ in 0..32 {
            let n = self.rng.below(len) as usize;
            if fits(&self.nodes[n]) {
                return n as u32;
            }
        }
        let from = self.rng.below(len) as usize;
        (0..self.nodes.len())
            .map(|i| (from + i) % self.nodes.len())
            .find(|&n| fits(&self.nodes[n]))
            .or_else(|| (0..self.nodes.len()).find(|&n| self.nodes[n].cordoned_at.is_none()))
            .unwrap_or(0) as u32
    }

    /// Lists every node and pod at `at` (watch ADDED), emitting as it goes.
    pub(crate) fn list_all(&self, out: &mut Out<'_>, at: DateTime<Utc>) {
        for n in 0..self.nodes.len() {
            out.push(at, ObjectChange::Added, self.render_node(n));
        }
        for (i, (pod, _)) in self.slots.iter().enumerate() {
            out.push(at, ObjectChange::Added, pod.render());
            // Nothing else is queued yet: hand the listing on as it goes.
            if i % 1024 == 0 {
                out.flush(None);
            }
        }
    }

    /// Every node, rendered.
    pub(crate) fn node_objects(&self) -> impl Iterator<Item = Value> + '_ {
        (0..self.nodes.len()).map(|n| self.render_node(n))
    }

    /// Every pod in a slot, rendered.
    pub(crate) fn pod_objects(&self) -> impl Iterator<Item = Value> + '_ {
        self.slots.iter().filter(|(p, _)| !p.gone).map(|(p, _)| p.render())
    }

    /// The kubelet's reference to node `n` (uid = node name).
    pub(crate) fn node_ref(&self, n: usize) -> ObjRef {
        let name = self.nodes[n].name.to_string();
        ObjRef { api_version: "v1", kind: "Node", name: name.clone(), namespace: None, uid: name, field_path: None }
    }

    /// Node `n` as a full core/v1 Node.
    pub(crate) fn render_node(&self, n: usize) -> Value {
        let node = &self.nodes[n];
        let pool = format!("pool-{}", n % 8);
        let mut spec = json!({ "podCIDR": format!("10.{}.{}.0/24", 128 + n / 256, n % 256) });
        if let (Some(at), Some(m)) = (node.cordoned_at, spec.as_object_mut()) {
            m.insert("unschedulable".into(), json!(true));
            m.insert(
                "taints".into(),
                json!([{ "key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule", "timeAdded": ts(at) }]),
            );
        }
        let resources = |mem_mi: i64| {
            json!({ "cpu": (NODE_CPU_M / 1000).to_string(), "memory": format!("{}Ki", mem_mi * 1024),
                    "pods": "110", "ephemeral-storage": "101203972Ki", "hugepages-2Mi": "0" })
        };
        let (status, reason, message, since) = node.ready;
        let mut labels = Map::new();
        for (k, v) in [
            ("kubernetes.io/arch", "amd64"),
            ("kubernetes.io/os", "linux"),
            ("kubernetes.io/hostname", node.name),
            ("node.kubernetes.io/instance-type", "m6i.2xlarge"),
            ("topology.kubernetes.io/zone", ["zone-a", "zone-b", "zone-c"][n % 3]),
            ("pool", pool.as_str()),
        ] {
            labels.insert(k.into(), json!(v));
        }
        json!({
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": { "name": node.name, "uid": node.uid, "resourceVersion": "",
                          "creationTimestamp": ts(self.created), "labels": labels },
            "spec": spec,
            "status": {
                "addresses": [{ "address": node.address, "type": "InternalIP" }, { "address": node.name, "type": "Hostname" }],
                "allocatable": resources(NODE_MEM_MI),
                "capacity": resources(NODE_MEM_MI + 1_000),
                "conditions": [
                    { "type": "MemoryPressure", "status": "False", "reason": "KubeletHasSufficientMemory",
                      "lastHeartbeatTime": ts(since), "lastTransitionTime": ts(self.created) },
                    { "type": "Ready", "status": status, "reason": reason, "message": message,
                      "lastHeartbeatTime": ts(since), "lastTransitionTime": ts(since) },
                ],
                "nodeInfo": { "bootID": node.boot_id, "kubeletVersion": "v1.33.5", "kernelVersion": "6.1.0-40-amd64",
                              "containerRuntimeVersion": "containerd://1.7.24", "osImage": "Debian GNU/Linux 12 (bookworm)",
                              "operatingSystem": "linux", "architecture": "amd64" },
            },
        })
    }
}

/// Deployment `d`: `svc-NNNNN` in `team-NN`, one container requesting
/// 50m–400m CPU and 64–1024 MiB (every tenth BestEffort).
fn deployment(rng: &mut SplitMix64, d: u32) -> Deployment {
    let namespace = format!("team-{:02}", d % NAMESPACES);
    let name = format!("svc-{:05}", d + 1);
    let rs = format!("{name}-{}", rng.hex(10));
    let rs_uid = rng.uuid();
    let (qos, cpu_m, mem_mi) = if d.is_multiple_of(10) {
        (Qos::BestEffort, 0, 0)
    } else {
        (Qos::Burstable, 50 + 10 * rng.below(36) as i64, 64 * (1 + rng.below(16) as i64))
    };
    let template = Rc::new(PodTemplate {
        namespace: namespace.clone(),
        app: name.clone(),
        generate_name: format!("{rs}-"),
        labels: vec![("app".into(), name.clone()), ("pod-template-hash".into(), rs[name.len() + 1..].to_string())],
        owner: Owner { api_version: "apps/v1", kind: "ReplicaSet", name: rs.clone(), uid: rs_uid.clone() },
        containers: vec![ContainerDef {
            name: "app",
            image: format!("registry.example/{name}:1.{}.0", d % 7),
            cpu_m,
            mem_mi,
            i915: 0,
            qos,
        }],
        pref: Pref::None,
        affinity_app: None,
        gpu_only: false,
        restart_policy: "Always",
        job_tracking: false,
    });
    let rs_ref = ObjRef {
        api_version: "apps/v1",
        kind: "ReplicaSet",
        name: rs,
        namespace: Some(namespace),
        uid: rs_uid,
        field_path: None,
    };
    Deployment { template, rs_ref, cpu_m }
}
