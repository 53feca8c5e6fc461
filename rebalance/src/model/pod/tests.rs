//! Unit tests of reading a Pod: requests (PodRequests), QoS, spec parts.

use super::*;
use serde_json::json;

use crate::model::node::{Taint, TaintEffect};

fn pod(spec: Value) -> PodInfo {
    PodInfo::from_json(&json!({"metadata": {"name": "p", "namespace": "ns"}, "spec": spec})).expect("valid pod")
}

const MI: i64 = 1024 * 1024;

#[test]
fn app_containers_add_up() {
    let p = pod(json!({"containers": [
        {"name": "a", "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}}},
        {"name": "b", "resources": {"requests": {"cpu": "250m", "nvidia.com/gpu": "1"}}}
    ]}));
    assert_eq!(p.requests, ResourceList::from_pairs(&[("cpu", 350), ("memory", 64 * MI), ("nvidia.com/gpu", 1)]));
    assert_eq!(p.qos, QosClass::Burstable);
}

#[test]
fn init_container_bigger_than_app_containers_wins() {
    let p = pod(json!({
        "initContainers": [
            {"name": "migrate", "resources": {"requests": {"cpu": "2", "memory": "32Mi"}}},
            {"name": "warm", "resources": {"requests": {"memory": "1Gi"}}}
        ],
        "containers": [{"name": "app", "resources": {"requests": {"cpu": "500m", "memory": "256Mi"}}}]
    }));
    // cpu: max(500, 2000) = 2000; memory: max(256Mi, 32Mi, 1Gi) = 1Gi.
    assert_eq!(p.requests, ResourceList::from_pairs(&[("cpu", 2000), ("memory", 1024 * MI)]));
}

#[test]
fn sidecars_add_to_app_containers_and_to_later_init_containers() {
    let p = pod(json!({
        "initContainers": [
            {"name": "early-init", "resources": {"requests": {"cpu": "900m"}}},
            {"name": "mesh", "restartPolicy": "Always", "resources": {"requests": {"cpu": "200m", "memory": "100Mi"}}},
            {"name": "late-init", "resources": {"requests": {"cpu": "800m"}}}
        ],
        "containers": [{"name": "app", "resources": {"requests": {"cpu": "300m", "memory": "50Mi"}}}]
    }));
    // app + sidecar = 500m; early-init alone = 900m; late-init + sidecar = 1000m.
    assert_eq!(p.requests.get("cpu"), 1000);
    // memory: app + sidecar = 150Mi (init containers ask for none).
    assert_eq!(p.requests.get("memory"), 150 * MI);
    assert_eq!(p.rare.init_containers[1].kind, ContainerKind::Sidecar);
    assert_eq!(p.rare.init_containers[0].kind, ContainerKind::Init);
}

#[test]
fn overhead_is_added_and_pod_level_requests_override() {
    let p = pod(json!({
        "overhead": {"cpu": "250m", "memory": "120Mi"},
        "containers": [{"name": "app", "resources": {"requests": {"cpu": "1", "memory": "1Gi", "ephemeral-storage": "1Gi"}}}]
    }));
    assert_eq!(
        p.requests,
        ResourceList::from_pairs(&[("cpu", 1250), ("memory", 1144 * MI), ("ephemeral-storage", 1024 * MI)])
    );

    let p = pod(json!({
        "resources": {"requests": {"cpu": "3"}, "limits": {"memory": "2Gi"}},
        "overhead": {"cpu": "100m"},
        "containers": [
            {"name": "a", "resources": {"requests": {"cpu": "1", "ephemeral-storage": "1Gi"}}},
            {"name": "b"}
        ]
    }));
    // Pod-level cpu replaces the 1 core; memory defaults from the pod-level limit
    // (no container requests memory); ephemeral-storage stays from containers.
    assert_eq!(
        p.requests,
        ResourceList::from_pairs(&[("cpu", 3100), ("memory", 2048 * MI), ("ephemeral-storage", 1024 * MI)])
    );
}

#[test]
fn best_effort_and_non_zero_defaults() {
    let p = pod(json!({"containers": [{"name": "a"}, {"name": "b", "resources": {"requests": {"cpu": "0"}}}]}));
    assert!(p.requests.is_all_zero());
    assert_eq!(p.qos, QosClass::BestEffort);
    // b lists cpu (as 0), so only a gets the cpu default; both get the memory default.
    assert_eq!(p.non_zero_requests.get("cpu"), 100);
    assert_eq!(p.non_zero_requests.get("memory"), 400 * MI);
}

#[test]
fn qos_classes() {
    let guaranteed = pod(json!({"containers": [
        {"name": "a", "resources": {"limits": {"cpu": "1", "memory": "1Gi"}}},
        {"name": "b", "resources": {"requests": {"cpu": "200m", "memory": "64Mi"}, "limits": {"cpu": "200m", "memory": "64Mi"}}}
    ]}));
    assert_eq!(guaranteed.qos, QosClass::Guaranteed);
    assert!(!guaranteed.qos_from_status);
    // Limits default the requests.
    assert_eq!(guaranteed.requests.get("cpu"), 1200);
    let burstable = pod(json!({"containers": [
        {"name": "a", "resources": {"requests": {"cpu": "500m", "memory": "1Gi"}, "limits": {"cpu": "1", "memory": "1Gi"}}}
    ]}));
    assert_eq!(burstable.qos, QosClass::Burstable);
    let from_status = PodInfo::from_json(&json!({
        "metadata": {"name": "s"}, "spec": {"containers": [{"name": "a"}]}, "status": {"qosClass": "Burstable"}
    }))
    .expect("valid");
    assert_eq!(from_status.qos, QosClass::Burstable);
    assert!(from_status.qos_from_status);
    assert_eq!(from_status.computed_qos(), QosClass::BestEffort);
    assert_eq!(from_status.namespace, "default");
}

#[test]
fn requests_without_limits_are_reported() {
    let p = pod(json!({"containers": [
        {"name": "a", "resources": {"requests": {"cpu": "100m", "memory": "1Gi"}, "limits": {"memory": "1Gi"}}}
    ]}));
    assert_eq!(p.requests_without_limits(), vec![("a", "cpu")]);
}

#[test]
fn reads_everything_else() {
    let p = PodInfo::from_json(&json!({
        "metadata": {
            "name": "web-0", "namespace": "prod", "uid": "u-1",
            "labels": {"app": "web"}, "annotations": {"kubernetes.io/config.source": "api"},
            "creationTimestamp": "2024-05-01T12:00:00Z", "deletionTimestamp": null,
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "StatefulSet", "name": "web", "uid": "s-1", "controller": true}]
        },
        "spec": {
            "nodeName": "node-2", "priority": 1000, "priorityClassName": "high",
            "nodeSelector": {"disk": "ssd"},
            "tolerations": [{"key": "gpu", "operator": "Exists", "effect": "NoSchedule"}, {"operator": "Exists"}],
            "affinity": {
                "nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                    {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a", "b"]}]}
                ]}, "preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 5, "preference": {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["node-3"]}]}}]},
                "podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                    {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": "kubernetes.io/hostname"}
                ], "preferredDuringSchedulingIgnoredDuringExecution": [
                    {"weight": 10, "podAffinityTerm": {"labelSelector": {"matchExpressions": [{"key": "tier", "operator": "Exists"}]}, "namespaces": ["other"], "topologyKey": "zone"}}
                ]}
            },
            "containers": [{"name": "web", "ports": [{"containerPort": 80, "hostPort": 8080}, {"containerPort": 9090}]}],
            "initContainers": [{"name": "proxy", "restartPolicy": "Always", "ports": [{"containerPort": 53, "hostPort": 53, "protocol": "UDP", "hostIP": "10.0.0.1"}]},
                               {"name": "setup", "ports": [{"containerPort": 1, "hostPort": 1}]}],
            "volumes": [
                {"name": "data", "persistentVolumeClaim": {"claimName": "data-web-0"}},
                {"name": "tmp", "emptyDir": {}},
                {"name": "cfg", "configMap": {"name": "web"}}
            ]
        },
        "status": {"phase": "Running"}
    }))
    .expect("valid pod");
    assert_eq!(p.key(), "prod/web-0");
    assert_eq!(p.uid.as_deref(), Some("u-1"));
    assert_eq!(p.node_name.as_deref(), Some("node-2"));
    assert_eq!(p.phase, Some(PodPhase::Running));
    assert!(p.counts_toward_usage());
    assert_eq!(p.priority, Some(1000));
    assert_eq!(p.rare.priority_class_name.as_deref(), Some("high"));
    assert_eq!(p.controller().map(|o| o.kind.as_str()), Some("StatefulSet"));
    assert!(!p.is_static() && !p.is_mirror() && !p.is_daemonset_pod());
    assert_eq!(p.creation_timestamp.map(|t| t.timestamp()), Some(1_714_564_800));
    assert_eq!(p.rare.deletion_timestamp, None);
    assert_eq!(p.tolerations.len(), 2);
    assert_eq!(p.tolerations[1], Toleration::exists("", None));
    assert_eq!(p.node_selector.get("disk"), Some("ssd"));
    let required = p.affinity.node_affinity.required.as_ref().expect("required terms");
    assert_eq!(required[0].match_expressions[0].operator, SelectorOperator::In);
    assert_eq!(p.affinity.node_affinity.preferred[0].weight, 5);
    assert_eq!(p.affinity.node_affinity.preferred[0].preference.match_fields[0].key, "metadata.name");
    assert_eq!(p.affinity.pod_anti_affinity.required[0].topology_key, "kubernetes.io/hostname");
    assert_eq!(p.affinity.pod_anti_affinity.preferred[0].term.namespaces, vec!["other".to_string()]);
    assert!(p.affinity.pod_affinity.is_empty());
    assert_eq!(
        p.rare.host_ports,
        vec![
            HostPort { container: "proxy".into(), port: 53, protocol: "UDP".into(), host_ip: "10.0.0.1".into() },
            HostPort { container: "web".into(), port: 8080, protocol: "TCP".into(), host_ip: "0.0.0.0".into() },
        ]
    );
    assert!(p.has_local_storage());
    assert_eq!(p.pvc_names(), vec!["data-web-0"]);
    assert_eq!(p.volumes[2].source, VolumeSource::Other("configMap".into()));
}

#[test]
fn tolerant_of_nulls_and_missing_sections() {
    let p = PodInfo::from_json(&json!({
        "metadata": {"name": "x", "namespace": "default", "labels": null, "ownerReferences": null},
        "spec": {"containers": [{"name": "a", "resources": {"requests": null, "limits": {"cpu": null}}}], "nodeName": ""},
        "status": {}
    }))
    .expect("valid pod");
    assert!(p.requests.is_empty());
    assert_eq!(p.node_name, None);
    assert_eq!(p.phase, None);
    assert!(!p.counts_toward_usage());
    let bare = PodInfo::from_json(&json!({"metadata": {"name": "bare"}})).expect("valid pod");
    assert!(bare.containers.is_empty());
    assert_eq!(bare.qos, QosClass::BestEffort);
}

#[test]
fn errors_name_the_pod_and_the_field() {
    let err = PodInfo::from_json(&json!({
        "metadata": {"name": "x", "namespace": "default"},
        "spec": {"containers": [{"name": "a"}, {"name": "b", "resources": {"requests": {"cpu": "abc"}}}]}
    }))
    .expect_err("bad cpu");
    assert!(
        err.to_string()
            .starts_with("pod default/x: spec.containers[1].resources.requests.cpu: \"abc\" is not a quantity"),
        "{err}"
    );
    let err = PodInfo::from_json(&json!({
        "metadata": {"name": "x", "namespace": "default"},
        "spec": {"containers": [{"name": "a", "resources": {"limits": {"memory": "-1"}}}]}
    }))
    .expect_err("negative");
    assert_eq!(
        err.to_string(),
        "pod default/x: spec.containers[0].resources.limits.memory: \"-1\" is out of range: a resource amount cannot be negative"
    );
    let err = PodInfo::from_json(&json!({"metadata": {"name": "x", "creationTimestamp": "yesterday"}}))
        .expect_err("bad time");
    assert_eq!(
        err.to_string(),
        "pod default/x: metadata.creationTimestamp: \"yesterday\" is not an RFC 3339 timestamp (expected e.g. 2024-05-01T12:00:00Z)"
    );
    let err = PodInfo::from_json(&json!({"metadata": {"name": "x"}, "spec": {"priority": "high"}}))
        .expect_err("bad priority");
    assert_eq!(err.to_string(), "pod default/x: spec.priority: expected an integer, got string \"high\"");
    let err = PodInfo::from_json(&json!({"metadata": {"namespace": "kube-system"}})).expect_err("no name");
    assert_eq!(err.to_string(), "pod kube-system/?: metadata.name is missing");
    let err = PodInfo::from_json(&json!({"metadata": {"name": "x"}, "status": {"phase": "Sleeping"}}))
        .expect_err("bad phase");
    assert_eq!(
        err.to_string(),
        "pod default/x: status.phase: \"Sleeping\" is not a pod phase (expected Pending, Running, Succeeded, Failed or Unknown)"
    );
}

#[test]
fn toleration_matching() {
    let t = Taint::new("node.kubernetes.io/unschedulable", "", TaintEffect::NoSchedule);
    assert!(Toleration::exists("node.kubernetes.io/unschedulable", Some(TaintEffect::NoSchedule)).tolerates(&t));
    assert!(Toleration::exists("", None).tolerates(&t));
    assert!(Toleration::equal("node.kubernetes.io/unschedulable", "", None).tolerates(&t));
    assert!(!Toleration::equal("node.kubernetes.io/unschedulable", "x", None).tolerates(&t));
    assert!(!Toleration::exists("node.kubernetes.io/unschedulable", Some(TaintEffect::NoExecute)).tolerates(&t));
    assert!(!Toleration::exists("other", None).tolerates(&t));
    let weird = Toleration { operator: TolerationOperator::Other("Gt".into()), ..Toleration::exists("", None) };
    assert!(!weird.tolerates(&t));
}

#[test]
fn label_selector_matching() {
    let labels: crate::Labels = [("app".to_string(), "plex".to_string())].into_iter().collect();
    assert!(LabelSelector::default().matches(&labels));
    assert!(LabelSelector::from_labels(&[("app", "plex")]).matches(&labels));
    assert!(!LabelSelector::from_labels(&[("app", "web")]).matches(&labels));
    let expr = |op: &str, values: &[&str]| LabelSelector {
        match_labels: std::collections::BTreeMap::new(),
        match_expressions: vec![Requirement {
            key: "tier".into(),
            operator: SelectorOperator::parse(op),
            values: values.iter().map(|s| s.to_string()).collect(),
        }],
    };
    assert!(expr("NotIn", &["db"]).matches(&labels)); // absent key matches NotIn
    assert!(expr("DoesNotExist", &[]).matches(&labels));
    assert!(!expr("Exists", &[]).matches(&labels));
    assert!(!expr("In", &["db"]).matches(&labels));
    assert!(!expr("In", &[]).matches(&labels)); // invalid: In without values
    assert!(!expr("Gt", &["1"]).matches(&labels)); // invalid for label selectors
}
