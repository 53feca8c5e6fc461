//! Old kubectl (1.8–1.13) dumps serialised Kubernetes' *internal* types:
//! Capitalised keys (`Items`, `Reason`, `InvolvedObject`, `Spec`) and the
//! object metadata flattened into the object (`name`, `namespace`, `uid` at
//! the top). This module rewrites such documents into the public camelCase
//! shape so that everything downstream sees one format
//! (kubernetes-events.md §5).

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
];

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
/// moves flattened metadata under `metadata`.
pub fn normalise_object(value: Value) -> Value {
    let Value::Object(map) = convert(value) else { return Value::Null };
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
}
