//! Old kubectl (1.8–1.13) dumps serialised Kubernetes' *internal* types:
//! Capitalised keys (`Items`, `Reason`, `InvolvedObject`, `Spec`) and the
//! object metadata flattened into the object (`name`, `namespace`, `uid` at
//! the top). This module rewrites such documents into the public camelCase
//! shape so that everything downstream sees one format
//! (kubernetes-events.md §5). The metadata flattened into pod templates
//! (`Spec.Template`, a CronJob's `Spec.JobTemplate`, a StatefulSet's
//! `Spec.VolumeClaimTemplates`) goes under their `metadata` too, and the
//! few internal field names whose public JSON name differs are renamed
//! ([`RENAMED_FIELDS`]).

use serde_json::{Map, Value};

/// Metadata fields that internal types flattened into the object itself.
const FLATTENED_METADATA: &[&str] = &[
    "name",
    "generateName",
    "namespace",
    "selfLink",
    "uid",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "labels",
    "annotations",
    "ownerReferences",
    "finalizers",
    "clusterName",
    "initializers",
    "managedFields",
];

/// Keys whose values are maps with user- or resource-defined keys: their keys
/// are data, never renamed.
const DATA_MAPS: &[&str] = &[
    "labels",
    "annotations",
    "capacity",
    "allocatable",
    "requests",
    "limits",
    "nodeSelector",
    "matchLabels",
    "overhead",
    "data",
    "stringData",
    "binaryData",
    "selector",
    "disruptedPods",
];

/// Internal Go field names whose public JSON name is not their camelCase:
/// (path of the containing object, name after [`camel_key`], public name).
/// policy/v1beta1 and policy/v1 PodDisruptionBudgetStatus:
/// `PodDisruptionsAllowed int32 json:"disruptionsAllowed"`.
pub const RENAMED_FIELDS: &[(&str, &str, &str)] = &[("/status", "podDisruptionsAllowed", "disruptionsAllowed")];

/// True when a document looks like an internal-type dump: a Capitalised
/// `Items`, or an object with Capitalised field names next to flattened
/// metadata.
pub fn is_legacy(doc: &Value) -> bool {
    let Some(map) = doc.as_object() else { return false };
    if map.contains_key("Items") {
        return true;
    }
    let capitalised = ["Reason", "InvolvedObject", "Spec", "Status", "Message"].iter().any(|k| map.contains_key(*k));
    capitalised && !map.contains_key("metadata")
}

/// The public JSON name of an internal Go field name: the leading run of
/// capitals is lower-cased, keeping the last one when a lower-case letter
/// follows (`APIVersion` → `apiVersion`, `UID` → `uid`, `HostIP` → `hostIP`,
/// `QOSClass` → `qosClass`, `SELinuxOptions` → `seLinuxOptions`).
pub fn camel_key(key: &str) -> String {
    let chars: Vec<char> = key.chars().collect();
    let upper = chars.iter().take_while(|c| c.is_ascii_uppercase()).count();
    if upper == 0 {
        return key.to_string();
    }
    let lower_n = if upper == chars.len() || upper == 1 { upper } else { upper - 1 };
    chars.iter().enumerate().map(|(i, c)| if i < lower_n { c.to_ascii_lowercase() } else { *c }).collect()
}

fn convert(value: Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut out = Map::with_capacity(map.len());
            for (k, v) in map {
                let key = camel_key(&k);
                let v =
                    if DATA_MAPS.contains(&key.as_str()) && v.is_object() { convert_data_map(v) } else { convert(v) };
                out.insert(key, v);
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(items.into_iter().map(convert).collect()),
        other => other,
    }
}

/// Data maps keep their keys, but a `selector` may be a LabelSelector
/// (`MatchLabels`, `MatchExpressions`) whose field names must be renamed.
fn convert_data_map(v: Value) -> Value {
    let Value::Object(map) = v else { return v };
    let is_label_selector = map.contains_key("MatchLabels") || map.contains_key("MatchExpressions");
    if is_label_selector {
        return convert(Value::Object(map));
    }
    Value::Object(map)
}

/// Rewrites one internal-type object into the public shape: renames keys and
/// moves flattened metadata under `metadata` (also in its templates).
pub fn normalise_object(value: Value) -> Value {
    let Value::Object(map) = convert(value) else { return Value::Null };
    let mut out = nest_metadata(map);
    nest_template_metadata(&mut out);
    for (pointer, internal, public) in RENAMED_FIELDS {
        if let Some(Value::Object(parent)) = out.pointer_mut(pointer) {
            if !parent.contains_key(*public) {
                if let Some(v) = parent.remove(*internal) {
                    parent.insert((*public).to_string(), v);
                }
            }
        }
    }
    out
}

/// An object (or template) with its flattened metadata fields moved under
/// `metadata`; unchanged when it has a `metadata` already.
fn nest_metadata(map: Map<String, Value>) -> Value {
    if map.contains_key("metadata") {
        return Value::Object(map);
    }
    let mut metadata = Map::new();
    let mut rest = Map::with_capacity(map.len());
    for (k, v) in map {
        if FLATTENED_METADATA.contains(&k.as_str()) {
            metadata.insert(k, v);
        } else {
            rest.insert(k, v);
        }
    }
    let mut out = Map::with_capacity(rest.len() + 1);
    out.insert("metadata".into(), Value::Object(metadata));
    out.extend(rest);
    Value::Object(out)
}

/// Nests the metadata of the templates internal types embed `ObjectMeta`
/// in: `spec.template` (PodTemplateSpec: ReplicaSet, Deployment,
/// DaemonSet, StatefulSet, Job, ReplicationController), `spec.jobTemplate`
/// and its `spec.template` (CronJob), `spec.volumeClaimTemplates[*]`
/// (StatefulSet).
fn nest_template_metadata(object: &mut Value) {
    let Some(spec) = object.get_mut("spec").and_then(Value::as_object_mut) else { return };
    for key in ["template", "jobTemplate"] {
        if let Some(template) = spec.get_mut(key).filter(|t| t.is_object()) {
            if let Value::Object(map) = std::mem::take(template) {
                *template = nest_metadata(map);
                // A CronJob's job template holds the pod template.
                nest_template_metadata(template);
            }
        }
    }
    if let Some(Value::Array(claims)) = spec.get_mut("volumeClaimTemplates") {
        for claim in claims.iter_mut().filter(|c| c.is_object()) {
            if let Value::Object(map) = std::mem::take(claim) {
                *claim = nest_metadata(map);
            }
        }
    }
}

/// Rewrites a whole internal-type document: a list (`Items`) or one object.
pub fn normalise_document(doc: Value) -> Value {
    let Value::Object(mut map) = doc else { return doc };
    if let Some(items) = map.remove("Items") {
        let items = match items {
            Value::Array(items) => Value::Array(items.into_iter().map(normalise_object).collect()),
            other => other,
        };
        let mut out = Map::new();
        for (k, v) in map {
            out.insert(camel_key(&k), v);
        }
        out.insert("items".into(), items);
        return Value::Object(out);
    }
    normalise_object(Value::Object(map))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn camel_key_follows_go_json_names() {
        for (go, json) in [
            ("APIVersion", "apiVersion"),
            ("UID", "uid"),
            ("HostIP", "hostIP"),
            ("QOSClass", "qosClass"),
            ("SELinuxOptions", "seLinuxOptions"),
            ("InvolvedObject", "involvedObject"),
            ("TCPSocket", "tcpSocket"),
            ("name", "name"),
            ("PodCIDR", "podCIDR"),
        ] {
            assert_eq!(camel_key(go), json, "{go}");
        }
    }

    #[test]
    fn normalises_internal_event_list() {
        let doc = json!({"Items": [{
            "name": "p.1589", "namespace": "default", "uid": "u1", "resourceVersion": "3211",
            "InvolvedObject": {"Kind": "Pod", "Name": "p", "UID": "u0"},
            "Reason": "Scheduled", "Count": 1,
            "Source": {"Component": "default-scheduler", "Host": ""},
            "labels": {"App": "x"}
        }]});
        assert!(is_legacy(&doc));
        let out = normalise_document(doc);
        let e = &out["items"][0];
        assert_eq!(e["metadata"]["name"], "p.1589");
        assert_eq!(e["metadata"]["uid"], "u1");
        assert_eq!(e["involvedObject"]["uid"], "u0");
        assert_eq!(e["source"]["component"], "default-scheduler");
        assert_eq!(e["count"], 1);
        // Label keys are data: never renamed.
        assert_eq!(e["metadata"]["labels"]["App"], "x");
    }

    #[test]
    fn resource_maps_keep_their_keys() {
        let pod = json!({"name": "p", "Spec": {"Containers": [{"Resources": {"Requests": {"cpu": "100m"}}}]}});
        let out = normalise_object(pod);
        assert_eq!(out["spec"]["containers"][0]["resources"]["requests"]["cpu"], "100m");
    }

    #[test]
    fn template_metadata_is_nested_and_internal_names_renamed() {
        // Internal PodTemplateSpec / JobTemplateSpec embed ObjectMeta: flattened.
        let cronjob = json!({"name": "backup", "namespace": "media",
            "Spec": {"Schedule": "0 4 * * *", "JobTemplate": {"creationTimestamp": null, "labels": {"App": "b"},
                "Spec": {"BackoffLimit": 6, "Template": {"creationTimestamp": null, "labels": {"App": "b"},
                    "Spec": {"Containers": [{"Name": "c"}]}}}}}});
        let out = normalise_object(cronjob);
        assert_eq!(out["metadata"]["name"], "backup");
        let job = &out["spec"]["jobTemplate"];
        assert_eq!(job["metadata"]["labels"]["App"], "b");
        assert_eq!(job["spec"]["backoffLimit"], 6);
        assert_eq!(job["spec"]["template"]["metadata"]["labels"]["App"], "b");
        assert_eq!(job["spec"]["template"]["spec"]["containers"][0]["name"], "c");
        assert!(job["spec"]["template"].get("labels").is_none());
        let sts = normalise_object(json!({"name": "db", "Spec": {"Template": {"labels": {"a": "b"}, "Spec": {}},
            "VolumeClaimTemplates": [{"name": "data", "Spec": {"AccessModes": ["ReadWriteOnce"]}}]}}));
        assert_eq!(sts["spec"]["volumeClaimTemplates"][0]["metadata"]["name"], "data");
        assert_eq!(sts["spec"]["volumeClaimTemplates"][0]["spec"]["accessModes"][0], "ReadWriteOnce");
        assert_eq!(sts["spec"]["template"]["metadata"]["labels"]["a"], "b");
        let pdb = normalise_object(json!({"name": "web", "Spec": {"MinAvailable": 1},
            "Status": {"PodDisruptionsAllowed": 2, "DisruptedPods": {"Web-0": "2019-03-08T08:55:25Z"}}}));
        assert_eq!(pdb["status"]["disruptionsAllowed"], 2);
        assert!(pdb["status"].get("podDisruptionsAllowed").is_none());
        assert_eq!(pdb["status"]["disruptedPods"]["Web-0"], "2019-03-08T08:55:25Z", "pod names are data");
    }
}
