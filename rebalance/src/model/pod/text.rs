//! Reading a pod straight from its JSON text ([`PodInfo::from_json_text`]):
//! what loading the cluster at an instant does for every stored pod model
//! (150,000 at 5,000 nodes; kdrift issue 6).
//!
//! [`PodInfo::from_json`] reads a `serde_json::Value`, which first builds a
//! map per JSON object and then looks every field up by name with its JSON
//! path kept for error messages: about 80 % of the time of loading a large
//! cluster. Here the fields the model reads are deserialized into typed
//! structs instead (the rarely present, nested sections — affinity,
//! topology spread constraints, priority, a volume's source — as small
//! `Value`s read by the same functions as [`PodInfo::from_json`]; the status
//! fields the rule plugins read, conditions and container statuses, typed). The rule: this gives exactly what
//! [`PodInfo::from_json`] gives on the same text. Anything this path does not
//! accept as it is (a field of another JSON type, a bad quantity or
//! timestamp, a missing name, a duplicated key) is read again by
//! [`PodInfo::from_json`], so errors and tolerated oddities (a container
//! port that is not an object, a `spec` that is a string) come out exactly
//! as there. Tested equal on every pod of the real dumps, the demo and the
//! generated scenarios, and on random pods (`tests` below).

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::Value;

use crate::error::ModelError;
use crate::model::extract::{self, Reader};
use crate::model::labels::Labels;
use crate::model::node::TaintEffect;
use crate::model::pod::qos::QosClass;
use crate::model::pod::{
    container_info, push_image, read_affinity, read_spread_constraints, ContainerKind, ContainerStatus, HostPort,
    OwnerRef, PodCondition, PodInfo, PodPhase, PodStatusInfo, Toleration, TolerationOperator, Volume, VolumeSource,
};
use crate::model::quantity;
use crate::model::resources::ResourceList;

impl PodInfo {
    /// Reads a Pod object from its JSON text (a stored `pod_versions.model`,
    /// or a whole object): the same pod, or the same error, as
    /// [`PodInfo::from_json`] on the parsed text, at a fraction of the cost.
    ///
    /// # Errors
    /// The JSON parser's message when the text is not JSON; otherwise
    /// [`PodInfo::from_json`]'s error (naming the pod and the field).
    pub fn from_json_text(text: &str) -> Result<PodInfo, ModelTextError> {
        if let Some(pod) = read_typed(text) {
            return Ok(pod);
        }
        let v: Value = serde_json::from_str(text).map_err(ModelTextError::Json)?;
        PodInfo::from_json(&v).map_err(ModelTextError::Model)
    }
}

/// Why [`PodInfo::from_json_text`] could not read a pod (or
/// [`crate::NodeInfo::from_json_text`] a node).
#[derive(Debug, thiserror::Error)]
pub enum ModelTextError {
    /// The text is not JSON (the parser's message: line and column).
    #[error("{0}")]
    Json(serde_json::Error),
    /// The model cannot read the object ([`PodInfo::from_json`]'s or
    /// [`crate::NodeInfo::from_json`]'s error).
    #[error("{0}")]
    Model(ModelError),
}

/// Whether [`PodInfo::from_json_text`] reads `text` without falling back to
/// [`PodInfo::from_json`] (for the tests that check the fast path is the
/// one taken on real and generated pods).
#[doc(hidden)]
pub fn pod_json_reads_typed(text: &str) -> bool {
    read_typed(text).is_some()
}

/// The pod, when the typed path reads it as [`PodInfo::from_json`] would;
/// `None` sends the text to [`PodInfo::from_json`].
pub(crate) fn read_typed(text: &str) -> Option<PodInfo> {
    let Obj(doc) = serde_json::from_str::<Obj<Doc>>(text).ok()?;
    // Errors are not reported from here (the fallback names the field), so
    // the reader's object name is never used.
    let r = Reader::new(String::new());
    let meta = doc.metadata.map(Obj::into_inner).unwrap_or_default();
    let namespace = meta.namespace.filter(|s| !s.is_empty()).unwrap_or_else(|| "default".to_string());
    let mut pod = PodInfo::new(&namespace, &meta.name?);
    pod.phase = None;
    let mut rare = super::PodRare::default();
    pod.uid = meta.uid.filter(|s| !s.is_empty());
    pod.resource_version = meta.resource_version.filter(|s| !s.is_empty());
    pod.labels = meta.labels.map(StrMap::into_labels).unwrap_or_default();
    pod.annotations = meta.annotations.map(StrMap::into_labels).unwrap_or_default();
    pod.creation_timestamp = r.opt_time(meta.creation_timestamp.as_ref(), "").ok()?;
    rare.deletion_timestamp = r.opt_time(meta.deletion_timestamp.as_ref(), "").ok()?;
    pod.owners = meta
        .owner_references
        .unwrap_or_default()
        .into_iter()
        .map(|Obj(o)| OwnerRef {
            api_version: o.api_version.unwrap_or_default(),
            kind: o.kind.unwrap_or_default(),
            name: o.name.unwrap_or_default(),
            uid: o.uid.unwrap_or_default(),
            controller: o.controller.unwrap_or(false),
        })
        .collect();

    let spec = doc.spec.map(Obj::into_inner).unwrap_or_default();
    pod.node_name = spec.node_name.filter(|s| !s.is_empty());
    pod.scheduler_name = spec.scheduler_name.filter(|s| !s.is_empty()).map(Into::into);
    pod.priority = r.opt_i32(spec.priority.as_ref(), "").ok()?;
    rare.priority_class_name = spec.priority_class_name.filter(|s| !s.is_empty());
    for (i, Obj(mut c)) in spec.containers.unwrap_or_default().into_iter().enumerate() {
        push_image(&mut pod.images, i, c.image.take());
        let (info, ports) = container(&r, c, false)?;
        rare.host_ports.extend(ports);
        pod.containers.push(info);
    }
    let mut sidecar_ports = Vec::new();
    for Obj(c) in spec.init_containers.unwrap_or_default() {
        let (info, ports) = container(&r, c, true)?;
        // Only sidecars hold their host ports for the pod's lifetime (`GetHostPorts`).
        if info.kind == ContainerKind::Sidecar {
            sidecar_ports.extend(ports);
        }
        rare.init_containers.push(info);
    }
    sidecar_ports.append(&mut rare.host_ports);
    rare.host_ports = sidecar_ports;
    let resources = spec.resources.map(Obj::into_inner).unwrap_or_default();
    rare.pod_level_requests = resource_list(resources.requests).into();
    rare.pod_level_limits = resource_list(resources.limits).into();
    rare.overhead = resource_list(spec.overhead).into();
    pod.node_selector = spec.node_selector.map(StrMap::into_labels).unwrap_or_default();
    pod.affinity = read_affinity(&r, spec.affinity.as_ref()).ok()?.into();
    pod.tolerations =
        spec.tolerations.unwrap_or_default().into_iter().map(|Obj(t)| toleration(&r, t)).collect::<Option<_>>()?;
    pod.volumes = spec.volumes.unwrap_or_default().into_iter().map(|Obj(v)| volume(&r, v)).collect::<Option<_>>()?;
    rare.topology_spread_constraints = read_spread_constraints(&r, spec.topology_spread_constraints.as_ref()).ok()?;

    let mut status = doc.status.map(Obj::into_inner).unwrap_or_default();
    if let Some(phase) = status.phase.take().filter(|s| !s.is_empty()) {
        pod.phase = Some(PodPhase::parse(&phase)?);
    }
    rare.nominated_node_name = status.nominated_node_name.take().filter(|s| !s.is_empty());
    match status.qos_class.as_deref().and_then(QosClass::parse) {
        Some(q) => {
            pod.qos = q;
            pod.qos_from_status = true;
        }
        None => pod.qos_from_status = false,
    }
    pod.start_time = r.opt_time(status.start_time.take().as_ref(), "").ok()?;
    pod.status = status_info(&r, status)?;
    pod.rare = rare.into();
    pod.default_pod_level_requests();
    pod.fit_lists();
    pod.refresh_derived();
    Some(pod)
}

/// One container and its host ports, as `pod::read_container` reads them.
fn container(r: &Reader, c: Container, init: bool) -> Option<(crate::model::pod::ContainerInfo, Vec<HostPort>)> {
    let resources = c.resources.map(Obj::into_inner).unwrap_or_default();
    let requests = resource_list(resources.requests);
    let limits = resource_list(resources.limits);
    let info = container_info(c.name.unwrap_or_default(), c.restart_policy.as_deref(), init, requests, limits);
    let mut ports = Vec::new();
    for Obj(p) in c.ports.unwrap_or_default() {
        let host_port = r.opt_i32(p.host_port.as_ref(), "").ok()?.unwrap_or(0);
        if host_port <= 0 {
            continue;
        }
        let protocol = r.opt_str(p.protocol.as_ref(), "").ok()?.filter(|s| !s.is_empty());
        let host_ip = r.opt_str(p.host_ip.as_ref(), "").ok()?.filter(|s| !s.is_empty());
        ports.push(HostPort {
            container: info.name.clone(),
            port: host_port,
            protocol: protocol.unwrap_or_else(|| "TCP".to_string()),
            host_ip: host_ip.unwrap_or_else(|| "0.0.0.0".to_string()),
        });
    }
    Some((info, ports))
}

/// The status beyond phase, as `pod::read_status::read_status_info` reads it.
fn status_info(r: &Reader, s: Status) -> Option<Option<Box<PodStatusInfo>>> {
    let list = s.conditions.unwrap_or_default();
    // Pushed into an exact allocation: `collect` would reuse the larger one
    // of the deserialized list (13 conditions' room for 5, measured).
    let mut conditions = Vec::with_capacity(list.len());
    for Obj(c) in list {
        conditions.push(PodCondition {
            type_: c.type_.unwrap_or_default(),
            status: c.status.unwrap_or_default(),
            reason: c.reason.filter(|s| !s.is_empty()),
            last_transition_time: r.opt_time(c.last_transition_time.as_ref(), "").ok()?,
        });
    }
    let info = PodStatusInfo {
        reason: s.reason.filter(|s| !s.is_empty()),
        conditions,
        containers: container_statuses(r, s.container_statuses)?,
        init_containers: container_statuses(r, s.init_container_statuses)?,
        ephemeral_containers: container_statuses(r, s.ephemeral_container_statuses)?,
    };
    Some((info != PodStatusInfo::default()).then(|| Box::new(info)))
}

/// One container status list, in an exact allocation (as the conditions).
fn container_statuses(r: &Reader, list: Option<Vec<Obj<CStatus>>>) -> Option<Vec<ContainerStatus>> {
    let list = list.unwrap_or_default();
    let mut out = Vec::with_capacity(list.len());
    for Obj(c) in list {
        let state = c.state.map(Obj::into_inner).unwrap_or_default();
        let waiting = state.waiting.map(Obj::into_inner).unwrap_or_default();
        let terminated = state.terminated.map(Obj::into_inner).unwrap_or_default();
        out.push(ContainerStatus {
            name: c.name.unwrap_or_default(),
            restart_count: r.opt_i32(c.restart_count.as_ref(), "").ok()?.unwrap_or(0),
            waiting_reason: waiting.reason.filter(|s| !s.is_empty()),
            terminated_reason: terminated.reason.filter(|s| !s.is_empty()),
            terminated_exit_code: r.opt_i32(terminated.exit_code.as_ref(), "").ok()?,
        });
    }
    Some(out)
}

/// One toleration, as `pod::read_tolerations` reads it.
fn toleration(r: &Reader, t: Tol) -> Option<Toleration> {
    let operator = match t.operator.as_deref() {
        None | Some("") | Some("Equal") => TolerationOperator::Equal,
        Some("Exists") => TolerationOperator::Exists,
        Some(other) => TolerationOperator::Other(other.to_string()),
    };
    Some(Toleration {
        key: t.key.unwrap_or_default(),
        operator,
        value: t.value.unwrap_or_default(),
        effect: t.effect.filter(|s| !s.is_empty()).map(|s| TaintEffect::parse(&s)),
        toleration_seconds: r.opt_i64(t.toleration_seconds.as_ref(), "").ok()?,
    })
}

/// One volume, as `pod::read_volumes` reads it, from its fields in JSON
/// order (a volume with a repeated key goes to the fallback).
fn volume(r: &Reader, fields: Fields) -> Option<Volume> {
    let Fields(fields) = fields;
    let mut seen: Vec<&str> = Vec::with_capacity(fields.len());
    for (k, _) in &fields {
        if seen.contains(&k.as_str()) {
            return None;
        }
        seen.push(k);
    }
    let get = |key: &str| fields.iter().find(|(k, v)| k == key && !v.is_null()).map(|(_, v)| v);
    let name = r.opt_str(get("name"), "").ok()?.unwrap_or_default();
    let source = if let Some(hp) = get("hostPath") {
        VolumeSource::HostPath { path: r.opt_str(extract::get(hp, "path"), "").ok()?.unwrap_or_default() }
    } else if let Some(ed) = get("emptyDir") {
        VolumeSource::EmptyDir { medium: r.opt_str(extract::get(ed, "medium"), "").ok()?.filter(|s| !s.is_empty()) }
    } else if let Some(pvc) = get("persistentVolumeClaim") {
        VolumeSource::PersistentVolumeClaim {
            claim_name: r.opt_str(extract::get(pvc, "claimName"), "").ok()?.unwrap_or_default(),
        }
    } else if get("ephemeral").is_some() {
        VolumeSource::Ephemeral
    } else {
        let kind = fields.iter().find(|(k, v)| k != "name" && !v.is_null()).map(|(k, _)| k.clone());
        VolumeSource::Other(kind.unwrap_or_default())
    };
    Some(Volume { name, source })
}

pub(crate) fn resource_list(q: Option<Quantities>) -> ResourceList {
    q.map(|Quantities(list)| list).unwrap_or_default()
}

/// A string-to-string map read as `Reader::string_map` reads it: a null
/// value is an empty string, a repeated key keeps its last value.
/// The entries are kept as read (in order, repeats included) until made a map.
pub(crate) struct StrMap(Vec<(String, String)>);

impl StrMap {
    pub(crate) fn into_inner(self) -> BTreeMap<String, String> {
        self.0.into_iter().collect()
    }

    /// The map as a pod's [`Labels`] (a repeated key keeps its last value).
    pub(crate) fn into_labels(self) -> Labels {
        self.0.into_iter().collect()
    }
}

impl<'de> Deserialize<'de> for StrMap {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = StrMap;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an object of strings")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<StrMap, A::Error> {
                let mut out = Vec::with_capacity(map.size_hint().unwrap_or(0).min(64));
                while let Some((k, v)) = map.next_entry::<String, Option<String>>()? {
                    out.push((k, v.unwrap_or_default()));
                }
                Ok(StrMap(out))
            }
        }
        d.deserialize_map(Visit)
    }
}

/// A resource list read as `Reader::resource_list` reads it: quantity
/// strings or bare numbers, nulls skipped. A bad quantity, another JSON
/// type, or a resource named again after a value (where the last value
/// decides) fails, sending the pod to the fallback.
pub(crate) struct Quantities(ResourceList);

impl<'de> Deserialize<'de> for Quantities {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = Quantities;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an object of quantities")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Quantities, A::Error> {
                use serde::de::Error;
                let mut out = ResourceList::new();
                while let Some((name, val)) = map.next_entry::<String, Value>()? {
                    if out.contains(&name) {
                        return Err(A::Error::custom("a resource named twice"));
                    }
                    let amount = match val {
                        Value::String(s) => quantity::parse_amount(&name, &s),
                        Value::Number(n) => quantity::parse_amount(&name, &n.to_string()),
                        Value::Null => continue,
                        _ => return Err(A::Error::custom("not a quantity")),
                    };
                    out.set(&name, amount.map_err(A::Error::custom)?);
                }
                Ok(Quantities(out))
            }
        }
        d.deserialize_map(Visit)
    }
}

/// A JSON object read as `T`, and only an object: serde's derived structs
/// also accept an array of their fields in order, which
/// [`PodInfo::from_json`] reads as "no such field" (or refuses).
pub(crate) struct Obj<T>(pub(crate) T);

impl<T> Obj<T> {
    pub(crate) fn into_inner(self) -> T {
        self.0
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Obj<T> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visit<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>> serde::de::Visitor<'de> for Visit<T> {
            type Value = Obj<T>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<Obj<T>, A::Error> {
                T::deserialize(serde::de::value::MapAccessDeserializer::new(map)).map(Obj)
            }
        }
        d.deserialize_map(Visit(std::marker::PhantomData))
    }
}

#[derive(Deserialize)]
struct Doc {
    metadata: Option<Obj<Meta>>,
    spec: Option<Obj<Spec>>,
    status: Option<Obj<Status>>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct Meta {
    namespace: Option<String>,
    name: Option<String>,
    uid: Option<String>,
    resource_version: Option<String>,
    labels: Option<StrMap>,
    annotations: Option<StrMap>,
    creation_timestamp: Option<Value>,
    deletion_timestamp: Option<Value>,
    owner_references: Option<Vec<Obj<Owner>>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Owner {
    api_version: Option<String>,
    kind: Option<String>,
    name: Option<String>,
    uid: Option<String>,
    controller: Option<bool>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct Spec {
    node_name: Option<String>,
    scheduler_name: Option<String>,
    priority: Option<Value>,
    priority_class_name: Option<String>,
    containers: Option<Vec<Obj<Container>>>,
    init_containers: Option<Vec<Obj<Container>>>,
    resources: Option<Obj<Resources>>,
    overhead: Option<Quantities>,
    node_selector: Option<StrMap>,
    affinity: Option<Value>,
    tolerations: Option<Vec<Obj<Tol>>>,
    volumes: Option<Vec<Obj<Fields>>>,
    /// Rare and nested: read by the function [`PodInfo::from_json`] uses.
    topology_spread_constraints: Option<Value>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Tol {
    key: Option<String>,
    operator: Option<String>,
    value: Option<String>,
    effect: Option<String>,
    toleration_seconds: Option<Value>,
}

/// An object's fields in JSON order, repeated keys kept (a volume: its
/// name and its source, whose key is all the model reads of most sources).
struct Fields(Vec<(String, Value)>);

impl<'de> Deserialize<'de> for Fields {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = Fields;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Fields, A::Error> {
                let mut out = Vec::new();
                while let Some(entry) = map.next_entry::<String, Value>()? {
                    out.push(entry);
                }
                Ok(Fields(out))
            }
        }
        d.deserialize_map(Visit)
    }
}

#[derive(Deserialize, Default)]
struct Resources {
    requests: Option<Quantities>,
    limits: Option<Quantities>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Container {
    name: Option<String>,
    image: Option<String>,
    restart_policy: Option<String>,
    resources: Option<Obj<Resources>>,
    ports: Option<Vec<Obj<Port>>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Port {
    host_port: Option<Value>,
    protocol: Option<Value>,
    #[serde(rename = "hostIP")]
    host_ip: Option<Value>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct Status {
    phase: Option<String>,
    nominated_node_name: Option<String>,
    qos_class: Option<String>,
    reason: Option<String>,
    start_time: Option<Value>,
    conditions: Option<Vec<Obj<Cond>>>,
    container_statuses: Option<Vec<Obj<CStatus>>>,
    init_container_statuses: Option<Vec<Obj<CStatus>>>,
    ephemeral_container_statuses: Option<Vec<Obj<CStatus>>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Cond {
    #[serde(rename = "type")]
    type_: Option<String>,
    status: Option<String>,
    reason: Option<String>,
    last_transition_time: Option<Value>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct CStatus {
    name: Option<String>,
    restart_count: Option<Value>,
    state: Option<Obj<CState>>,
}

#[derive(Deserialize, Default)]
struct CState {
    waiting: Option<Obj<Waiting>>,
    terminated: Option<Obj<Terminated>>,
}

#[derive(Deserialize, Default)]
struct Waiting {
    reason: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct Terminated {
    reason: Option<String>,
    exit_code: Option<Value>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    /// [`PodInfo::from_json_text`] and [`PodInfo::from_json`] agree on the
    /// pod or on the error text.
    fn agree(v: &Value) -> Result<PodInfo, String> {
        let text = v.to_string();
        let fast = PodInfo::from_json_text(&text).map_err(|e| e.to_string());
        let slow = PodInfo::from_json(v).map_err(|e| e.to_string());
        assert_eq!(fast, slow, "{text}");
        fast
    }

    fn typical() -> Value {
        json!({
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "web-1", "namespace": "shop", "uid": "u-1", "resourceVersion": "42",
                "labels": {"app": "web", "empty": null}, "annotations": {"a": "b"},
                "creationTimestamp": "2026-11-01T10:00:00Z",
                "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-7d", "uid": "rs", "controller": true}]},
            "spec": {"nodeName": "node-1", "schedulerName": "default-scheduler", "priority": 0,
                "topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone",
                    "whenUnsatisfiable": "ScheduleAnyway", "labelSelector": {"matchLabels": {"app": "web"}}}],
                "containers": [
                    {"name": "app", "image": "web:1", "resources": {"requests": {"cpu": "250m", "memory": "64Mi"}, "limits": {"memory": "128Mi", "ephemeral-storage": 1000}},
                     "ports": [{"hostPort": 8080}, {"hostPort": "9090", "protocol": "UDP", "hostIP": "10.0.0.1"}, {"hostPort": 0}]}],
                "initContainers": [
                    {"name": "proxy", "restartPolicy": "Always", "resources": {"requests": {"cpu": "50m"}}, "ports": [{"hostPort": 15000}]},
                    {"name": "init", "resources": {"requests": {"cpu": "1"}}}],
                "overhead": {"cpu": "10m"},
                "nodeSelector": {"disk": "ssd"},
                "tolerations": [{"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300}],
                "affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                    {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": "kubernetes.io/hostname"}]}},
                "volumes": [{"name": "data", "emptyDir": {}}, {"name": "cfg", "configMap": {"name": "x"}}]},
            "status": {"phase": "Running", "qosClass": "Burstable", "startTime": "2026-11-01T10:00:01Z",
                "conditions": [{"type": "PodScheduled", "status": "True", "lastTransitionTime": "2026-11-01T10:00:01Z"},
                               {"type": "Ready", "status": "False", "reason": "ContainersNotReady", "lastProbeTime": null}],
                "containerStatuses": [{"name": "app", "restartCount": 4, "ready": false, "image": "web:1",
                    "state": {"waiting": {"reason": "CrashLoopBackOff", "message": "back-off"}},
                    "lastState": {"terminated": {"reason": "Error", "exitCode": 2}}}],
                "initContainerStatuses": [{"name": "init", "restartCount": 0,
                    "state": {"terminated": {"reason": "Completed", "exitCode": 0}}}]}
        })
    }

    #[test]
    fn a_typical_pod_is_read_by_the_typed_path_as_from_json_reads_it() {
        let v = typical();
        let pod = agree(&v).expect("readable");
        assert!(read_typed(&v.to_string()).is_some(), "the typed path must take an ordinary pod");
        // max(250 app + 50 sidecar, 1000 init + the 50 sidecar started before it) + 10 overhead
        assert_eq!(pod.requests.get("cpu"), 1060);
        assert_eq!(pod.rare.host_ports.iter().map(|p| p.port).collect::<Vec<_>>(), vec![15000, 8080, 9090]);
        assert_eq!(pod.labels.get("empty"), Some(""));
        assert_eq!(pod.owners[0].name, "web-7d");
        assert!(!pod.affinity.pod_anti_affinity.required.is_empty());
        assert_eq!(pod.images, vec!["web:1"]);
        assert_eq!(pod.rare.topology_spread_constraints[0].topology_key, "topology.kubernetes.io/zone");
        let status = pod.status();
        assert_eq!(status.conditions[1].reason.as_deref(), Some("ContainersNotReady"));
        assert_eq!(
            (status.containers[0].restart_count, status.containers[0].waiting_reason.as_deref()),
            (4, Some("CrashLoopBackOff"))
        );
        assert_eq!(status.init_containers[0].terminated_exit_code, Some(0));
        // Held for every pod of a loaded cluster: no room beyond what is read.
        assert_eq!((status.conditions.capacity(), status.containers.capacity()), (2, 1));
    }

    #[test]
    fn odd_shapes_fall_back_and_give_from_json_s_answer() {
        let cases = [
            json!([]),
            json!("pod"),
            json!({"metadata": ["default", "x"]}),
            json!({"metadata": {"namespace": "kube-system"}}),
            json!({"metadata": {"name": "x"}, "spec": "nothing"}),
            json!({"metadata": {"name": "x"}, "spec": {"containers": [["app", null]]}}),
            json!({"metadata": {"name": "x"}, "spec": {"containers": [{"name": "a", "ports": ["80", {"hostPort": -1}]}]}}),
            json!({"metadata": {"name": "x"}, "spec": {"containers": [{"resources": "big"}]}}),
            json!({"metadata": {"name": "x"}, "spec": {"containers": [{"resources": {"requests": {"cpu": "abc"}}}]}}),
            json!({"metadata": {"name": "x"}, "spec": {"containers": [{"resources": {"requests": {"cpu": true}}}]}}),
            json!({"metadata": {"name": "x"}, "spec": {"containers": [{"resources": {"requests": {"cpu": "-1"}}}]}}),
            json!({"metadata": {"name": "x"}, "spec": {"priority": "high"}}),
            json!({"metadata": {"name": "x"}, "spec": {"priority": "7"}}),
            json!({"metadata": {"name": "x"}, "spec": {"priority": 1u64 << 40}}),
            json!({"metadata": {"name": "x", "creationTimestamp": "yesterday"}}),
            json!({"metadata": {"name": "x", "creationTimestamp": ""}}),
            json!({"metadata": {"name": "x", "labels": {"a": 1}}}),
            json!({"metadata": {"name": "x", "ownerReferences": [{"controller": "yes"}]}}),
            json!({"metadata": {"name": "x"}, "status": {"phase": "Sleeping"}}),
            json!({"metadata": {"name": "x"}, "status": {"phase": "", "qosClass": "Gold"}}),
            json!({"metadata": {"name": "x"}, "status": ["Running"]}),
            json!({"metadata": {"name": "x"}, "spec": {"tolerations": {"key": "a"}}}),
            json!({"metadata": {"name": "x"}, "spec": {"tolerations": ["a", {"operator": "Gt", "tolerationSeconds": "30"}]}}),
            json!({"metadata": {"name": "x"}, "spec": {"tolerations": [{"operator": "Exists", "effect": "", "tolerationSeconds": 1.5}]}}),
            json!({"metadata": {"name": "x"}, "spec": {"volumes": [
                {"name": "a", "hostPath": "/tmp"}, {"name": "b", "emptyDir": {"medium": ""}}, {"name": "c", "secret": null, "csi": {}},
                {"name": "d", "persistentVolumeClaim": {"claimName": 7}}]}}),
            json!({"metadata": {"name": "x"}, "spec": {"volumes": [{"name": null}, {}, {"name": "e", "ephemeral": {}, "emptyDir": {}}]}}),
            json!({"metadata": {"name": "x"}, "spec": {"resources": {"limits": {"cpu": "2"}}}}),
            json!({"metadata": {"name": "x"}, "status": {"startTime": "soon", "reason": ""}}),
            json!({"metadata": {"name": "x"}, "status": {"conditions": [{"type": 1}]}}),
            json!({"metadata": {"name": "x"}, "status": {"conditions": [[]]}}),
            json!({"metadata": {"name": "x"}, "status": {"containerStatuses": [{"restartCount": "7"}], "conditions": []}}),
            json!({"metadata": {"name": "x"}, "status": {"containerStatuses": [{"restartCount": -1.5}]}}),
            json!({"metadata": {"name": "x"}, "status": {"initContainerStatuses": [{"state": {"waiting": []}}]}}),
            json!({"metadata": {"name": "x"}, "status": {"ephemeralContainerStatuses": [{"state": {"terminated": {"exitCode": "x"}}}]}}),
            json!({"metadata": {"name": "x"}, "spec": {"containers": [{"image": 1}], "initContainers": [{"image": 2}]}}),
            json!({"metadata": {"name": "x"}, "spec": {"initContainers": [{"image": 2}]}}),
            json!({"metadata": {"name": "x"}, "spec": {"topologySpreadConstraints": [{"labelSelector": "app=web"}]}}),
            json!({"metadata": {"name": "x"}, "spec": {"topologySpreadConstraints": {"maxSkew": 1}}}),
        ];
        for v in &cases {
            agree(v).ok();
        }
        // Invalid JSON text: the parser's message.
        let err = PodInfo::from_json_text("{\"metadata\": ").expect_err("not JSON");
        assert!(matches!(err, ModelTextError::Json(_)), "{err}");
    }

    #[test]
    fn tolerations_and_volumes_take_the_typed_path() {
        let v = json!({"metadata": {"name": "x"}, "spec": {
            "tolerations": [{"key": "k", "operator": "Equal", "value": "v", "effect": "NoSchedule"},
                            {"operator": "Exists", "tolerationSeconds": "300"}],
            "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": "pvc-1"}},
                        {"name": "tmp", "emptyDir": {"medium": "Memory"}},
                        {"name": "kube-api-access-x", "projected": {}}]}});
        assert!(read_typed(&v.to_string()).is_some());
        let pod = agree(&v).expect("pod");
        assert_eq!(pod.tolerations[1].toleration_seconds, Some(300));
        assert_eq!(pod.volumes[2].source, VolumeSource::Other("projected".into()));
        // A volume with a repeated key: read by from_json (first position, last value).
        let text = r#"{"metadata": {"name": "x"}, "spec": {"volumes": [{"name": "a", "secret": {}, "csi": {}, "secret": null}]}}"#;
        assert!(read_typed(text).is_none());
        let slow = PodInfo::from_json(&serde_json::from_str(text).expect("json")).expect("pod");
        assert_eq!(PodInfo::from_json_text(text).expect("pod"), slow);
    }

    #[test]
    fn a_duplicated_key_is_read_as_from_json_reads_it() {
        let text = r#"{"metadata": {"name": "a", "name": "b"}, "spec": {"containers": [{"resources": {"requests": {"cpu": "1", "cpu": "2"}}}]}}"#;
        let slow = PodInfo::from_json(&serde_json::from_str(text).expect("json")).expect("pod");
        let fast = PodInfo::from_json_text(text).expect("pod");
        assert_eq!(fast, slow);
        assert_eq!((fast.name.as_str(), fast.requests.get("cpu")), ("b", 2000));
        // A request named again as null: the last value decides (no request).
        let text = r#"{"metadata": {"name": "a"}, "spec": {"containers": [{"resources": {"requests": {"cpu": "1", "cpu": null}}}]}}"#;
        let slow = PodInfo::from_json(&serde_json::from_str(text).expect("json")).expect("pod");
        assert_eq!(PodInfo::from_json_text(text).expect("pod"), slow);
        assert!(!slow.requests.contains("cpu"));
    }

    fn scalar() -> impl Strategy<Value = Value> {
        prop_oneof![
            Just(Value::Null),
            Just(json!("")),
            Just(json!("x")),
            Just(json!(3)),
            Just(json!(-2)),
            Just(json!(true)),
            Just(json!([])),
            Just(json!({})),
        ]
    }

    fn quantity() -> impl Strategy<Value = Value> {
        prop_oneof![
            4 => Just(json!("100m")),
            4 => Just(json!("1Gi")),
            2 => Just(json!(2)),
            1 => Just(json!(0.5)),
            1 => Just(json!("1e3")),
            1 => Just(json!("abc")),
            1 => Just(json!("-1")),
            1 => Just(Value::Null),
            1 => Just(json!(["1"])),
        ]
    }

    fn maybe(v: impl Strategy<Value = Value> + 'static) -> BoxedStrategy<Option<Value>> {
        prop_oneof![2 => Just(None), 5 => v.prop_map(Some), 1 => scalar().prop_map(Some)].boxed()
    }

    fn object(fields: Vec<(&'static str, Option<Value>)>) -> Value {
        Value::Object(fields.into_iter().filter_map(|(k, v)| v.map(|v| (k.to_string(), v))).collect())
    }

    fn resources() -> BoxedStrategy<Value> {
        let list = || {
            prop::collection::vec(
                (
                    prop::sample::select(vec!["cpu", "memory", "ephemeral-storage", "nvidia.com/gpu", "pods"]),
                    quantity(),
                ),
                0..4,
            )
            .prop_map(|kv| Value::Object(kv.into_iter().map(|(k, v)| (k.to_string(), v)).collect()))
        };
        (maybe(list()), maybe(list())).prop_map(|(r, l)| object(vec![("requests", r), ("limits", l)])).boxed()
    }

    fn container() -> BoxedStrategy<Value> {
        let port = (maybe(prop_oneof![Just(json!(80)), Just(json!("81")), Just(json!(0))]), maybe(Just(json!("UDP"))))
            .prop_map(|(h, p)| object(vec![("hostPort", h), ("protocol", p), ("containerPort", Some(json!(1)))]));
        (
            maybe(Just(json!("c"))),
            maybe(Just(json!("Always"))),
            maybe(resources()),
            maybe(prop::collection::vec(port, 0..3).prop_map(Value::Array)),
            maybe(prop::sample::select(vec![json!("web:1"), json!("")])),
        )
            .prop_map(|(n, rp, res, ports, image)| {
                object(vec![("name", n), ("restartPolicy", rp), ("resources", res), ("ports", ports), ("image", image)])
            })
            .boxed()
    }

    fn toleration() -> BoxedStrategy<Value> {
        (
            maybe(Just(json!("k"))),
            maybe(prop::sample::select(vec![json!("Exists"), json!("Equal"), json!(""), json!("Gt")])),
            maybe(prop::sample::select(vec![json!("NoExecute"), json!(""), json!("Sometimes")])),
            maybe(prop::sample::select(vec![json!(300), json!("60"), json!("soon")])),
        )
            .prop_map(|(k, op, eff, secs)| {
                object(vec![("key", k), ("operator", op), ("effect", eff), ("tolerationSeconds", secs)])
            })
            .boxed()
    }

    fn volume() -> BoxedStrategy<Value> {
        let source = prop::sample::select(vec![
            ("hostPath", json!({"path": "/var"})),
            ("emptyDir", json!({"medium": "Memory"})),
            ("persistentVolumeClaim", json!({"claimName": "c"})),
            ("ephemeral", json!({})),
            ("projected", json!({})),
            ("secret", Value::Null),
        ]);
        (maybe(Just(json!("v"))), prop::collection::vec(source, 0..3))
            .prop_map(|(name, sources)| {
                let mut fields = vec![("name", name)];
                fields.extend(sources.into_iter().map(|(k, v)| (k, Some(v))));
                object(fields)
            })
            .boxed()
    }

    fn time() -> impl Strategy<Value = Value> {
        prop::sample::select(vec![json!("2026-01-01T00:00:00Z"), json!(""), json!("later")])
    }

    fn spread_constraint() -> BoxedStrategy<Value> {
        (
            maybe(prop::sample::select(vec![json!(1), json!("2"), json!(0)])),
            maybe(Just(json!("topology.kubernetes.io/zone"))),
            maybe(prop::sample::select(vec![json!("DoNotSchedule"), json!("ScheduleAnyway")])),
            maybe(prop::sample::select(vec![
                json!({"matchLabels": {"app": "web"}}),
                json!({"matchExpressions": [{"key": "a", "operator": "Exists"}]}),
            ])),
            maybe(Just(json!(2))),
            maybe(prop::sample::select(vec![json!("Honor"), json!("Ignore"), json!("")])),
            maybe(prop::sample::select(vec![json!(["pod-template-hash"]), json!([1])])),
        )
            .prop_map(|(skew, key, when, sel, min, policy, keys)| {
                object(vec![
                    ("maxSkew", skew),
                    ("topologyKey", key),
                    ("whenUnsatisfiable", when),
                    ("labelSelector", sel),
                    ("minDomains", min),
                    ("nodeAffinityPolicy", policy.clone()),
                    ("nodeTaintsPolicy", policy),
                    ("matchLabelKeys", keys),
                ])
            })
            .boxed()
    }

    fn condition() -> BoxedStrategy<Value> {
        (
            maybe(prop::sample::select(vec![json!("Ready"), json!("PodScheduled"), json!("DisruptionTarget")])),
            maybe(prop::sample::select(vec![json!("True"), json!("False")])),
            maybe(prop::sample::select(vec![json!("PodFailed"), json!("")])),
            maybe(time()),
        )
            .prop_map(|(t, st, reason, at)| {
                object(vec![
                    ("type", t),
                    ("status", st),
                    ("reason", reason),
                    ("lastTransitionTime", at),
                    ("message", Some(json!("m"))),
                ])
            })
            .boxed()
    }

    fn container_status() -> BoxedStrategy<Value> {
        let reason = || maybe(prop::sample::select(vec![json!("CrashLoopBackOff"), json!("OOMKilled"), json!("")]));
        let terminated = (reason(), maybe(prop::sample::select(vec![json!(137), json!("1"), json!(0)])))
            .prop_map(|(r, code)| object(vec![("reason", r), ("exitCode", code)]));
        let state =
            (maybe(reason().prop_map(|r| object(vec![("reason", r)]))), maybe(terminated), maybe(Just(json!({}))))
                .prop_map(|(w, t, running)| object(vec![("waiting", w), ("terminated", t), ("running", running)]));
        (maybe(Just(json!("c"))), maybe(prop::sample::select(vec![json!(0), json!(5), json!("3")])), maybe(state))
            .prop_map(|(n, restarts, state)| {
                object(vec![("name", n), ("restartCount", restarts), ("state", state), ("ready", Some(json!(true)))])
            })
            .boxed()
    }

    fn pod() -> BoxedStrategy<Value> {
        let labels = prop::collection::btree_map("[a-c]", prop_oneof![Just(json!("v")), Just(Value::Null)], 0..3)
            .prop_map(|m| Value::Object(m.into_iter().collect()));
        let meta = (
            maybe(Just(json!("ns"))),
            maybe(Just(json!("p"))),
            maybe(labels),
            maybe(Just(json!("2026-01-01T00:00:00Z"))),
        )
            .prop_map(|(ns, n, l, t)| {
                object(vec![("namespace", ns), ("name", n), ("labels", l), ("creationTimestamp", t)])
            });
        let spec = (
            maybe(Just(json!("node-1"))),
            maybe(prop_oneof![Just(json!(5)), Just(json!("6"))]),
            maybe(prop::collection::vec(container(), 0..3).prop_map(Value::Array)),
            maybe(prop::collection::vec(container(), 0..2).prop_map(Value::Array)),
            maybe(resources()),
            maybe(prop_oneof![Just(json!({"cpu": "5m"})), Just(json!({"cpu": "x"}))]),
            maybe(prop::collection::vec(toleration(), 0..3).prop_map(Value::Array)),
            maybe(prop::collection::vec(volume(), 0..3).prop_map(Value::Array)),
            maybe(prop::collection::vec(spread_constraint(), 0..2).prop_map(Value::Array)),
        )
            .prop_map(|(node, prio, cs, ics, res, oh, tols, vols, tsc)| {
                object(vec![
                    ("nodeName", node),
                    ("priority", prio),
                    ("containers", cs),
                    ("initContainers", ics),
                    ("resources", res),
                    ("overhead", oh),
                    ("tolerations", tols),
                    ("volumes", vols),
                    ("topologySpreadConstraints", tsc),
                ])
            });
        let statuses = || maybe(prop::collection::vec(container_status(), 0..3).prop_map(Value::Array));
        let status = (
            maybe(prop::sample::select(vec![json!("Running"), json!("Succeeded"), json!("Zombie")])),
            maybe(prop::sample::select(vec![json!("Guaranteed"), json!("BestEffort"), json!("Gold")])),
            maybe(prop::sample::select(vec![json!("Evicted"), json!("")])),
            maybe(time()),
            maybe(prop::collection::vec(condition(), 0..3).prop_map(Value::Array)),
            statuses(),
            statuses(),
            statuses(),
        )
            .prop_map(|(ph, q, reason, start, conds, cs, ics, ecs)| {
                object(vec![
                    ("phase", ph),
                    ("qosClass", q),
                    ("reason", reason),
                    ("startTime", start),
                    ("conditions", conds),
                    ("containerStatuses", cs),
                    ("initContainerStatuses", ics),
                    ("ephemeralContainerStatuses", ecs),
                ])
            });
        (maybe(meta), maybe(spec), maybe(status))
            .prop_map(|(m, sp, st)| object(vec![("metadata", m), ("spec", sp), ("status", st)]))
            .boxed()
    }

    proptest! {
        #[test]
        fn the_text_path_agrees_with_from_json_on_random_pods(v in pod()) {
            agree(&v).ok();
            // And the store's cut model reads as the whole object.
            prop_assert!(crate::model::fields::pod_model_fields_agree(&v), "{v}");
        }
    }
}
