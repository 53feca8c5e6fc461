//! A small cluster for the rebalance executor's end-to-end tests, loaded
//! into the fake API server, and a stand-in for the ReplicaSet controller
//! and the scheduler (the fake has neither): every accepted eviction gets a
//! Ready replacement pod of the same owner on a chosen node.
//!
//! Three 4000m nodes; node-1 runs eight 450m ReplicaSet pods (90 % cpu),
//! node-2 and node-3 one 400m pod each (10 %). With [`BUSY_POLICY`]
//! (thresholds cpu 40 → target 50) descheduler evicts four pods from node-1.

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use serde_json::{json, Value};

use crate::fake_kube::FakeKube;

/// The policy the tests plan with.
pub const BUSY_POLICY: &str = "apiVersion: descheduler/v1alpha2
kind: DeschedulerPolicy
profiles:
  - name: busy
    pluginConfig:
      - name: DefaultEvictor
        args:
          noEvictionPolicy: Mandatory
      - name: LowNodeUtilization
        args:
          thresholds: {cpu: 40}
          targetThresholds: {cpu: 50}
    plugins:
      balance:
        enabled: [LowNodeUtilization]
";

/// A Ready 4000m node.
pub fn node(name: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "Node",
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name, "kubernetes.io/arch": "amd64"}},
        "status": {"allocatable": {"cpu": "4000m", "memory": "8Gi", "pods": "110"},
                   "conditions": [{"type": "Ready", "status": "True"}]}})
}

/// A Running, Ready pod of ReplicaSet `rs-<name>` in namespace `apps`.
pub fn pod(name: &str, node: &str, cpu_m: i64) -> Value {
    json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"namespace": "apps", "name": name, "labels": {"app": name},
            "creationTimestamp": "2026-11-01T00:00:00Z",
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": format!("rs-{name}"),
                "uid": format!("rs-uid-{name}"), "controller": true}]},
        "spec": {"nodeName": node, "containers": [{"name": "c", "image": "busybox",
            "resources": {"requests": {"cpu": format!("{cpu_m}m")}}}]},
        "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]}})
}

/// Loads the cluster (and the namespace `apps`) into `kube`.
///
/// # Panics
/// When the fake refuses an object.
pub fn load(kube: &FakeKube) {
    kube.create(json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "apps"}})).expect("namespace");
    for n in ["node-1", "node-2", "node-3"] {
        kube.create(node(n)).expect("node");
    }
    for i in 0..8 {
        kube.create(pod(&format!("w{i}"), "node-1", 450)).expect("pod");
    }
    kube.create(pod("a", "node-2", 400)).expect("pod");
    kube.create(pod("b", "node-3", 400)).expect("pod");
}

/// Until `stop`, recreates every pod evicted from `kube` (answer 201) as
/// `<name>-r`, same owner, bound to `land_on` and Ready — what the
/// ReplicaSet controller, the scheduler and the kubelet would do.
pub fn replace_evicted(kube: &FakeKube, originals: &[Value], land_on: &str, stop: &AtomicBool) {
    let mut done = BTreeSet::new();
    while !stop.load(Ordering::SeqCst) {
        for e in kube.evictions().into_iter().filter(|e| e.code == 201) {
            if !done.insert((e.namespace.clone(), e.name.clone())) {
                continue;
            }
            let Some(old) = originals.iter().find(|p| {
                p.pointer("/metadata/name").and_then(Value::as_str) == Some(e.name.as_str())
                    && p.pointer("/metadata/namespace").and_then(Value::as_str) == Some(e.namespace.as_str())
            }) else {
                continue;
            };
            let mut new = old.clone();
            new["metadata"]["name"] = json!(format!("{}-r", e.name));
            if let Some(m) = new["metadata"].as_object_mut() {
                m.remove("uid");
                m.remove("resourceVersion");
                m.remove("creationTimestamp");
            }
            new["spec"]["nodeName"] = json!(land_on);
            kube.create(new).expect("replacement");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// A policy with plugins at both extension points (issue 36 item 7):
/// Deschedule RemovePodsViolatingNodeTaints then
/// RemovePodsHavingTooManyRestarts (threshold 5), Balance RemoveDuplicates
/// then LowNodeUtilization (cpu 40 → 50).
pub const WHOLE_POLICY: &str = "apiVersion: descheduler/v1alpha2
kind: DeschedulerPolicy
profiles:
  - name: whole
    pluginConfig:
      - name: DefaultEvictor
      - name: RemovePodsViolatingNodeTaints
      - name: RemovePodsHavingTooManyRestarts
        args:
          podRestartThreshold: 5
      - name: RemoveDuplicates
      - name: LowNodeUtilization
        args:
          thresholds: {cpu: 40}
          targetThresholds: {cpu: 50}
    plugins:
      deschedule:
        enabled: [RemovePodsViolatingNodeTaints, RemovePodsHavingTooManyRestarts]
      balance:
        enabled: [RemoveDuplicates, LowNodeUtilization]
";

/// The busy cluster plus [`load_whole_policy_extras`].
///
/// # Panics
/// When the fake refuses an object.
pub fn load_whole_policy(kube: &FakeKube) {
    load(kube);
    load_whole_policy_extras(kube);
}

/// On the loaded busy cluster, something for every plugin of [`WHOLE_POLICY`]:
/// node-2 tainted `dedicated=gpu:NoSchedule` (pod `a` does not tolerate
/// it), pod `b` on node-3 restarted 7 times, and two 100m pods `d0`, `d1`
/// of one ReplicaSet `rs-dup` on node-3.
///
/// # Panics
/// When the fake refuses an object.
pub fn load_whole_policy_extras(kube: &FakeKube) {
    set_gpu_taint(kube, true);
    let mut b = kube.get("v1", "Pod", "apps", "b").expect("pod b");
    b["status"]["containerStatuses"] =
        json!([{"name": "c", "restartCount": 7, "ready": true, "state": {"running": {}}}]);
    kube.update(b).expect("restarts");
    for d in ["d0", "d1"] {
        let mut p = pod(d, "node-3", 100);
        p["metadata"]["labels"] = json!({"app": "dup"});
        p["metadata"]["ownerReferences"][0]["name"] = json!("rs-dup");
        p["metadata"]["ownerReferences"][0]["uid"] = json!("rs-uid-dup");
        kube.create(p).expect("duplicate");
    }
}

/// Puts node-2's `dedicated=gpu:NoSchedule` taint on (`true`) or takes it off.
///
/// # Panics
/// When node-2 is missing or the fake refuses the update.
pub fn set_gpu_taint(kube: &FakeKube, on: bool) {
    let mut n = kube.get("v1", "Node", "", "node-2").expect("node-2");
    n["spec"]["taints"] =
        if on { json!([{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}]) } else { json!([]) };
    kube.update(n).expect("taint");
}
