//! Reading a pod's spec parts ([`super::spec`]) from a stored Pod object's
//! `serde_json::Value`, tolerantly (missing and `null` read as "not set"); a
//! field of the wrong JSON type is an error naming the field's path
//! (`spec.containers[0].resources.requests`).

use serde_json::Value;

use super::spec::*;
use crate::error::ModelError;
use crate::model::extract::{describe, get, get_path, Reader};
use crate::model::node::TaintEffect;
use crate::model::resources::ResourceList;

/// Reads one container; returns it and its host ports.
pub(super) fn read_container(
    r: &Reader,
    c: &Value,
    path: &str,
    init: bool,
) -> Result<(ContainerInfo, Vec<HostPort>), ModelError> {
    if !c.is_object() {
        return Err(r.bad(path, format!("expected an object, got {}", describe(c))));
    }
    let name = r.opt_str(get(c, "name"), &format!("{path}.name"))?.unwrap_or_default();
    let restart = r.opt_str(get(c, "restartPolicy"), &format!("{path}.restartPolicy"))?;
    let requests = r.resource_list(get_path(c, &["resources", "requests"]), &format!("{path}.resources.requests"))?;
    let limits = r.resource_list(get_path(c, &["resources", "limits"]), &format!("{path}.resources.limits"))?;
    let info = container_info(name, restart.as_deref(), init, requests, limits);
    let name = &info.name;
    let mut ports = Vec::new();
    for (i, p) in r.array(get(c, "ports"), &format!("{path}.ports"))?.iter().enumerate() {
        let pp = format!("{path}.ports[{i}]");
        let host_port = r.opt_i32(get(p, "hostPort"), &format!("{pp}.hostPort"))?.unwrap_or(0);
        if host_port <= 0 {
            continue;
        }
        let protocol = r
            .opt_str(get(p, "protocol"), &format!("{pp}.protocol"))?
            .filter(|s| !s.is_empty())
            .unwrap_or_else(|| "TCP".to_string());
        let host_ip = r
            .opt_str(get(p, "hostIP"), &format!("{pp}.hostIP"))?
            .filter(|s| !s.is_empty())
            .unwrap_or_else(|| "0.0.0.0".to_string());
        ports.push(HostPort { container: name.clone(), port: host_port, protocol, host_ip });
    }
    Ok((info, ports))
}

/// A container from its fields as read: its kind (an init container with
/// `restartPolicy: Always` is a sidecar) and the API server's defaulting
/// (`SetDefaults_Pod`: a limit without a request is also the request).
pub(crate) fn container_info(
    name: String,
    restart: Option<&str>,
    init: bool,
    mut requests: ResourceList,
    limits: ResourceList,
) -> ContainerInfo {
    let kind = if !init {
        ContainerKind::App
    } else if restart == Some("Always") {
        ContainerKind::Sidecar
    } else {
        ContainerKind::Init
    };
    for (k, v) in limits.iter() {
        if !requests.contains(k) {
            requests.set(k, v);
        }
    }
    ContainerInfo { name, kind, requests, limits }
}

pub(super) fn read_tolerations(r: &Reader, v: Option<&Value>) -> Result<Vec<Toleration>, ModelError> {
    let mut out = Vec::new();
    for (i, t) in r.array(v, "spec.tolerations")?.iter().enumerate() {
        let p = format!("spec.tolerations[{i}]");
        let operator = match r.opt_str(get(t, "operator"), &format!("{p}.operator"))?.as_deref() {
            None | Some("") | Some("Equal") => TolerationOperator::Equal,
            Some("Exists") => TolerationOperator::Exists,
            Some(other) => TolerationOperator::Other(other.to_string()),
        };
        let effect = r
            .opt_str(get(t, "effect"), &format!("{p}.effect"))?
            .filter(|s| !s.is_empty())
            .map(|s| TaintEffect::parse(&s));
        out.push(Toleration {
            key: r.opt_str(get(t, "key"), &format!("{p}.key"))?.unwrap_or_default(),
            operator,
            value: r.opt_str(get(t, "value"), &format!("{p}.value"))?.unwrap_or_default(),
            effect,
            toleration_seconds: r.opt_i64(get(t, "tolerationSeconds"), &format!("{p}.tolerationSeconds"))?,
        });
    }
    Ok(out)
}

pub(super) fn read_volumes(r: &Reader, v: Option<&Value>) -> Result<Vec<Volume>, ModelError> {
    let mut out = Vec::new();
    for (i, vol) in r.array(v, "spec.volumes")?.iter().enumerate() {
        let p = format!("spec.volumes[{i}]");
        let name = r.opt_str(get(vol, "name"), &format!("{p}.name"))?.unwrap_or_default();
        let source = if let Some(hp) = get(vol, "hostPath") {
            VolumeSource::HostPath {
                path: r.opt_str(get(hp, "path"), &format!("{p}.hostPath.path"))?.unwrap_or_default(),
            }
        } else if let Some(ed) = get(vol, "emptyDir") {
            VolumeSource::EmptyDir {
                medium: r.opt_str(get(ed, "medium"), &format!("{p}.emptyDir.medium"))?.filter(|s| !s.is_empty()),
            }
        } else if let Some(pvc) = get(vol, "persistentVolumeClaim") {
            VolumeSource::PersistentVolumeClaim {
                claim_name: r
                    .opt_str(get(pvc, "claimName"), &format!("{p}.persistentVolumeClaim.claimName"))?
                    .unwrap_or_default(),
            }
        } else if get(vol, "ephemeral").is_some() {
            VolumeSource::Ephemeral
        } else {
            let kind = vol
                .as_object()
                .and_then(|m| m.iter().find(|(k, v)| k.as_str() != "name" && !v.is_null()).map(|(k, _)| k.clone()))
                .unwrap_or_default();
            VolumeSource::Other(kind)
        };
        out.push(Volume { name, source });
    }
    Ok(out)
}

fn read_requirements(r: &Reader, v: Option<&Value>, path: &str) -> Result<Vec<Requirement>, ModelError> {
    let mut out = Vec::new();
    for (i, e) in r.array(v, path)?.iter().enumerate() {
        let p = format!("{path}[{i}]");
        out.push(Requirement {
            key: r.opt_str(get(e, "key"), &format!("{p}.key"))?.unwrap_or_default(),
            operator: SelectorOperator::parse(
                &r.opt_str(get(e, "operator"), &format!("{p}.operator"))?.unwrap_or_default(),
            ),
            values: r.str_list(get(e, "values"), &format!("{p}.values"))?,
        });
    }
    Ok(out)
}

pub(crate) fn read_label_selector(
    r: &Reader,
    v: Option<&Value>,
    path: &str,
) -> Result<Option<LabelSelector>, ModelError> {
    let Some(v) = v else { return Ok(None) };
    if !v.is_object() {
        return Err(r.bad(path, format!("expected an object, got {}", describe(v))));
    }
    Ok(Some(LabelSelector {
        match_labels: r.string_map(get(v, "matchLabels"), &format!("{path}.matchLabels"))?,
        match_expressions: read_requirements(r, get(v, "matchExpressions"), &format!("{path}.matchExpressions"))?,
    }))
}

fn read_node_term(r: &Reader, v: &Value, path: &str) -> Result<NodeSelectorTerm, ModelError> {
    Ok(NodeSelectorTerm {
        match_expressions: read_requirements(r, get(v, "matchExpressions"), &format!("{path}.matchExpressions"))?,
        match_fields: read_requirements(r, get(v, "matchFields"), &format!("{path}.matchFields"))?,
    })
}

fn read_pod_term(r: &Reader, v: &Value, path: &str) -> Result<PodAffinityTerm, ModelError> {
    Ok(PodAffinityTerm {
        label_selector: read_label_selector(r, get(v, "labelSelector"), &format!("{path}.labelSelector"))?,
        namespaces: r.str_list(get(v, "namespaces"), &format!("{path}.namespaces"))?,
        namespace_selector: read_label_selector(r, get(v, "namespaceSelector"), &format!("{path}.namespaceSelector"))?,
        topology_key: r.opt_str(get(v, "topologyKey"), &format!("{path}.topologyKey"))?.unwrap_or_default(),
    })
}

fn read_pod_rules(r: &Reader, v: Option<&Value>, path: &str) -> Result<PodAffinityRules, ModelError> {
    let mut rules = PodAffinityRules::default();
    let Some(v) = v else { return Ok(rules) };
    let req_path = format!("{path}.requiredDuringSchedulingIgnoredDuringExecution");
    for (i, t) in r.array(get(v, "requiredDuringSchedulingIgnoredDuringExecution"), &req_path)?.iter().enumerate() {
        rules.required.push(read_pod_term(r, t, &format!("{req_path}[{i}]"))?);
    }
    let pref_path = format!("{path}.preferredDuringSchedulingIgnoredDuringExecution");
    for (i, t) in r.array(get(v, "preferredDuringSchedulingIgnoredDuringExecution"), &pref_path)?.iter().enumerate() {
        let p = format!("{pref_path}[{i}]");
        let weight = r.opt_i32(get(t, "weight"), &format!("{p}.weight"))?.unwrap_or(0);
        let term = match get(t, "podAffinityTerm") {
            Some(pt) => read_pod_term(r, pt, &format!("{p}.podAffinityTerm"))?,
            None => PodAffinityTerm::default(),
        };
        rules.preferred.push(WeightedPodAffinityTerm { weight, term });
    }
    Ok(rules)
}

pub(crate) fn read_affinity(r: &Reader, v: Option<&Value>) -> Result<Affinity, ModelError> {
    let mut a = Affinity::default();
    let Some(v) = v else { return Ok(a) };
    if let Some(na) = get(v, "nodeAffinity") {
        let base = "spec.affinity.nodeAffinity";
        if let Some(req) = get(na, "requiredDuringSchedulingIgnoredDuringExecution") {
            let tp = format!("{base}.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms");
            let mut terms = Vec::new();
            for (i, t) in r.array(get(req, "nodeSelectorTerms"), &tp)?.iter().enumerate() {
                terms.push(read_node_term(r, t, &format!("{tp}[{i}]"))?);
            }
            a.node_affinity.required = Some(terms);
        }
        let pp = format!("{base}.preferredDuringSchedulingIgnoredDuringExecution");
        for (i, t) in r.array(get(na, "preferredDuringSchedulingIgnoredDuringExecution"), &pp)?.iter().enumerate() {
            let p = format!("{pp}[{i}]");
            let weight = r.opt_i32(get(t, "weight"), &format!("{p}.weight"))?.unwrap_or(0);
            let preference = match get(t, "preference") {
                Some(pref) => read_node_term(r, pref, &format!("{p}.preference"))?,
                None => NodeSelectorTerm::default(),
            };
            a.node_affinity.preferred.push(PreferredNodeTerm { weight, preference });
        }
    }
    a.pod_affinity = read_pod_rules(r, get(v, "podAffinity"), "spec.affinity.podAffinity")?;
    a.pod_anti_affinity = read_pod_rules(r, get(v, "podAntiAffinity"), "spec.affinity.podAntiAffinity")?;
    Ok(a)
}
