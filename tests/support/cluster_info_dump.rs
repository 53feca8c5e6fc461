//! A `kubectl cluster-info dump --output-directory` tree as kubectl 1.8
//! wrote it (pkg/kubectl/cmd/clusterinfo_dump.go): `nodes.json`, then per
//! namespace `events.json`, `replication-controllers.json`,
//! `services.json`, `daemonsets.json`, `deployments.json`,
//! `replicasets.json`, `pods.json` and each pod's `POD/logs.txt`. Its
//! `printers.JSONPrinter` printed the internal clientset's types:
//! Capitalised field names, `ObjectMeta` flattened into each object (and
//! into pod templates), the List's `ListMeta` flattened (`selfLink`,
//! `resourceVersion`), `Items`, no `kind` anywhere; `ownerReferences` and
//! `LabelSelector`s keep their camelCase (metav1 types with JSON tags).
//!
//! Besides what `cluster-info dump` writes, namespace `media` holds the
//! other kinds kdrift reads (`jobs.json`, `cronjobs.json`,
//! `statefulsets.json`, `poddisruptionbudgets.json`, `pods.json`) and the
//! top holds `namespaces.json` and `priorityclasses.json`, in the same
//! internal form without a `selfLink`: their kind comes from the file name.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

/// One object the tree holds, as kdrift must store it: kind, namespace,
/// name, apiVersion, and its controller owner (`kind/name`, `""` for none).
pub type Expected = (&'static str, &'static str, &'static str, &'static str, &'static str);

/// Every object of [`write_tree`], in the order of [`Expected`]'s fields
/// sorted by kind, namespace, name. The Service is not among them: kdrift
/// skips Services.
pub const EXPECTED: &[Expected] = &[
    ("CronJob", "media", "backup", "batch/v1", ""),
    ("DaemonSet", "default", "fluentd", "extensions/v1beta1", ""),
    ("Deployment", "default", "web", "extensions/v1beta1", ""),
    ("Event", "default", "web-5d4f8b7c9-abcde.15a7c0a3b6d2e001", "v1", ""),
    ("Job", "media", "backup-1520000000", "batch/v1", "CronJob/backup"),
    ("Namespace", "", "media", "v1", ""),
    ("Node", "", "n1", "v1", ""),
    ("Pod", "default", "fluentd-xk2p9", "v1", "DaemonSet/fluentd"),
    ("Pod", "default", "legacy-rc-q8z2m", "v1", "ReplicationController/legacy-rc"),
    ("Pod", "default", "web-5d4f8b7c9-abcde", "v1", "ReplicaSet/web-5d4f8b7c9"),
    ("Pod", "media", "backup-1520000000-x7k2p", "v1", "Job/backup-1520000000"),
    ("Pod", "media", "db-0", "v1", "StatefulSet/db"),
    ("PodDisruptionBudget", "media", "db", "policy/v1", ""),
    ("PriorityClass", "", "high", "scheduling.k8s.io/v1", ""),
    ("ReplicaSet", "default", "web-5d4f8b7c9", "extensions/v1beta1", "Deployment/web"),
    ("ReplicationController", "default", "legacy-rc", "v1", ""),
    ("StatefulSet", "media", "db", "apps/v1", ""),
];

/// The files of [`write_tree`] (relative paths) and what each holds:
/// (path, records stored, records skipped).
pub const FILES: &[(&str, u64, u64)] = &[
    ("default/daemonsets.json", 1, 0),
    ("default/deployments.json", 1, 0),
    ("default/events.json", 1, 0),
    ("default/pods.json", 3, 0),
    ("default/replicasets.json", 1, 0),
    ("default/replication-controllers.json", 1, 0),
    ("default/services.json", 0, 1),
    ("kube-system/daemonsets.json", 0, 0),
    ("kube-system/deployments.json", 0, 0),
    ("kube-system/events.json", 0, 0),
    ("kube-system/pods.json", 0, 0),
    ("kube-system/replicasets.json", 0, 0),
    ("kube-system/replication-controllers.json", 0, 0),
    ("kube-system/services.json", 0, 0),
    ("media/cronjobs.json", 1, 0),
    ("media/jobs.json", 1, 0),
    ("media/poddisruptionbudgets.json", 1, 0),
    ("media/pods.json", 2, 0),
    ("media/statefulsets.json", 1, 0),
    ("namespaces.json", 1, 0),
    ("nodes.json", 1, 0),
    ("priorityclasses.json", 1, 0),
];

/// The container logs of [`write_tree`] (`NAMESPACE/POD/logs.txt`).
pub const LOGS: &[&str] = &["default/fluentd-xk2p9/logs.txt", "default/web-5d4f8b7c9-abcde/logs.txt"];

/// An internal List as the 1.8 JSONPrinter printed it (pretty-printed):
/// `selfLink` (when given), `resourceVersion`, `Items`.
pub fn internal_list(self_link: Option<&str>, items: Vec<Value>) -> String {
    let mut list = serde_json::Map::new();
    if let Some(link) = self_link {
        list.insert("selfLink".into(), json!(link));
    }
    list.insert("resourceVersion".into(), json!("4225"));
    list.insert("Items".into(), Value::Array(items));
    serde_json::to_string_pretty(&Value::Object(list)).expect("json") + "\n"
}

/// Flattened `ObjectMeta` of a namespaced object.
fn meta(namespace: &str, name: &str, resource: &str, group: &str) -> serde_json::Map<String, Value> {
    let link = if group == "v1" {
        format!("/api/v1/namespaces/{namespace}/{resource}/{name}")
    } else {
        format!("/apis/{group}/namespaces/{namespace}/{resource}/{name}")
    };
    let mut m = serde_json::Map::new();
    m.insert("name".into(), json!(name));
    m.insert("namespace".into(), json!(namespace));
    m.insert("selfLink".into(), json!(link));
    m.insert("uid".into(), json!(format!("u-{namespace}-{name}")));
    m.insert("resourceVersion".into(), json!("3206"));
    m.insert("creationTimestamp".into(), json!("2018-03-02T14:00:00Z"));
    m
}

/// An owner reference (metav1: camelCase keys even in internal dumps).
fn owned_by(api_version: &str, kind: &str, namespace: &str, name: &str) -> Value {
    json!([{"apiVersion": api_version, "kind": kind, "name": name, "uid": format!("u-{namespace}-{name}"),
            "controller": true, "blockOwnerDeletion": true}])
}

/// An internal `PodSpec` with one container requesting `cpu` and `memory`.
fn pod_spec(container: &str, cpu: &str, memory: &str, node: &str) -> Value {
    json!({
        "Volumes": null, "InitContainers": null,
        "Containers": [{
            "Name": container, "Image": format!("{container}:1.0"), "Command": null, "Args": null,
            "WorkingDir": "", "Ports": null, "EnvFrom": null, "Env": null,
            "Resources": {"Limits": null, "Requests": {"cpu": cpu, "memory": memory}},
            "VolumeMounts": null, "LivenessProbe": null, "ReadinessProbe": null, "Lifecycle": null,
            "TerminationMessagePath": "/dev/termination-log", "TerminationMessagePolicy": "File",
            "ImagePullPolicy": "IfNotPresent", "SecurityContext": null, "Stdin": false, "StdinOnce": false,
            "TTY": false
        }],
        "RestartPolicy": "Always", "TerminationGracePeriodSeconds": 30, "ActiveDeadlineSeconds": null,
        "DNSPolicy": "ClusterFirst", "NodeSelector": null, "ServiceAccountName": "default",
        "AutomountServiceAccountToken": null, "NodeName": node,
        "SecurityContext": {"HostNetwork": false, "HostPID": false, "HostIPC": false, "SELinuxOptions": null,
                            "RunAsUser": null, "RunAsNonRoot": null, "SupplementalGroups": null, "FSGroup": null},
        "ImagePullSecrets": null, "Hostname": "", "Subdomain": "", "Affinity": null,
        "SchedulerName": "default-scheduler", "Tolerations": null, "HostAliases": null,
        "PriorityClassName": "", "Priority": null
    })
}

/// An internal `PodTemplateSpec`: `ObjectMeta` flattened next to `Spec`.
fn template(app: &str, cpu: &str, memory: &str) -> Value {
    json!({"creationTimestamp": null, "labels": {"app": app}, "Spec": pod_spec(app, cpu, memory, "")})
}

fn object(mut metadata: serde_json::Map<String, Value>, fields: Value) -> Value {
    if let Value::Object(f) = fields {
        metadata.extend(f);
    }
    Value::Object(metadata)
}

fn pod(namespace: &str, name: &str, app: &str, owner: Value) -> Value {
    let mut m = meta(namespace, name, "pods", "v1");
    m.insert("labels".into(), json!({"app": app}));
    m.insert("ownerReferences".into(), owner);
    object(
        m,
        json!({
            "Spec": pod_spec(app, "100m", "64Mi", "n1"),
            "Status": {"Phase": "Running", "Conditions": [{"Type": "PodScheduled", "Status": "True",
                "LastProbeTime": null, "LastTransitionTime": "2018-03-02T14:00:01Z", "Reason": "", "Message": ""}],
                "Message": "", "Reason": "", "NominatedNodeName": "", "HostIP": "10.0.0.5", "PodIP": "172.17.0.4",
                "StartTime": "2018-03-02T14:00:01Z", "QOSClass": "Burstable", "InitContainerStatuses": null,
                "ContainerStatuses": null}
        }),
    )
}

fn node() -> Value {
    json!({
        "name": "n1", "selfLink": "/api/v1/nodes/n1", "uid": "u-n1", "resourceVersion": "4220",
        "creationTimestamp": "2018-03-02T13:00:00Z", "labels": {"kubernetes.io/hostname": "n1"},
        "Spec": {"PodCIDR": "10.244.0.0/24", "ExternalID": "n1", "ProviderID": "", "Unschedulable": false,
                 "Taints": null, "ConfigSource": null},
        "Status": {
            "Capacity": {"cpu": "2", "memory": "4042284Ki", "pods": "110"},
            "Allocatable": {"cpu": "2", "memory": "3939884Ki", "pods": "110"},
            "Phase": "", "Conditions": [{"Type": "Ready", "Status": "True",
                "LastHeartbeatTime": "2018-03-02T15:00:00Z", "LastTransitionTime": "2018-03-02T13:00:10Z",
                "Reason": "KubeletReady", "Message": "kubelet is posting ready status"}],
            "Addresses": [{"Type": "InternalIP", "Address": "10.0.0.5"}],
            "DaemonEndpoints": {"KubeletEndpoint": {"Port": 10250}},
            "NodeInfo": {"MachineID": "m", "SystemUUID": "s", "BootID": "b", "KernelVersion": "4.9.0",
                "OSImage": "Buildroot 2017.02", "ContainerRuntimeVersion": "docker://17.9.0",
                "KubeletVersion": "v1.8.0", "KubeProxyVersion": "v1.8.0", "OperatingSystem": "linux",
                "Architecture": "amd64"},
            "Images": null, "VolumesInUse": null, "VolumesAttached": null
        }
    })
}

/// `default`: what `cluster-info dump` writes for a namespace.
fn default_namespace() -> Vec<(&'static str, Option<&'static str>, Vec<Value>)> {
    let ns = "default";
    let mut event = meta(ns, "web-5d4f8b7c9-abcde.15a7c0a3b6d2e001", "events", "v1");
    event.remove("creationTimestamp");
    let event = object(
        event,
        json!({
            "InvolvedObject": {"Kind": "Pod", "Namespace": ns, "Name": "web-5d4f8b7c9-abcde",
                "UID": "u-default-web-5d4f8b7c9-abcde", "APIVersion": "v1", "ResourceVersion": "3206",
                "FieldPath": ""},
            "Reason": "Scheduled", "Message": "Successfully assigned web-5d4f8b7c9-abcde to n1",
            "Source": {"Component": "default-scheduler", "Host": ""},
            "FirstTimestamp": "2018-03-02T14:00:01Z", "LastTimestamp": "2018-03-02T14:00:01Z", "Count": 1,
            "Type": "Normal"
        }),
    );
    let mut rc = meta(ns, "legacy-rc", "replicationcontrollers", "v1");
    rc.insert("labels".into(), json!({"app": "legacy"}));
    let rc = object(
        rc,
        json!({"Spec": {"Replicas": 1, "MinReadySeconds": 0, "Selector": {"app": "legacy"},
                        "Template": template("legacy", "50m", "32Mi")},
               "Status": {"Replicas": 1, "FullyLabeledReplicas": 1, "ReadyReplicas": 1, "AvailableReplicas": 1,
                          "ObservedGeneration": 1, "Conditions": null}}),
    );
    let svc = object(
        meta(ns, "kubernetes", "services", "v1"),
        json!({"Spec": {"Type": "ClusterIP", "Ports": [{"Name": "https", "Protocol": "TCP", "Port": 443,
                   "TargetPort": 8443, "NodePort": 0}], "Selector": null, "ClusterIP": "10.96.0.1",
                   "ExternalIPs": null, "SessionAffinity": "ClientIP", "LoadBalancerIP": "",
                   "ExternalName": ""},
               "Status": {"LoadBalancer": {"Ingress": null}}}),
    );
    let ext = "extensions/v1beta1";
    let ds = object(
        meta(ns, "fluentd", "daemonsets", ext),
        json!({"Spec": {"Selector": {"matchLabels": {"app": "fluentd"}}, "Template": template("fluentd", "100m", "200Mi"),
                        "UpdateStrategy": {"Type": "OnDelete", "RollingUpdate": null}, "MinReadySeconds": 0,
                        "TemplateGeneration": 1, "RevisionHistoryLimit": 10},
               "Status": {"CurrentNumberScheduled": 1, "NumberMisscheduled": 0, "DesiredNumberScheduled": 1,
                          "NumberReady": 1, "ObservedGeneration": 1, "UpdatedNumberScheduled": 1,
                          "NumberAvailable": 1, "NumberUnavailable": 0, "CollisionCount": null}}),
    );
    let mut dep = meta(ns, "web", "deployments", ext);
    dep.insert("annotations".into(), json!({"deployment.kubernetes.io/revision": "1"}));
    let dep = object(
        dep,
        json!({"Spec": {"Replicas": 1, "Selector": {"matchLabels": {"app": "web"}},
                        "Template": template("web", "100m", "64Mi"),
                        "Strategy": {"Type": "RollingUpdate", "RollingUpdate": {"MaxUnavailable": 1, "MaxSurge": 1}},
                        "MinReadySeconds": 0, "RevisionHistoryLimit": 2, "Paused": false, "RollbackTo": null,
                        "ProgressDeadlineSeconds": 600},
               "Status": {"ObservedGeneration": 1, "Replicas": 1, "UpdatedReplicas": 1, "ReadyReplicas": 1,
                          "AvailableReplicas": 1, "UnavailableReplicas": 0, "Conditions": null,
                          "CollisionCount": null}}),
    );
    let mut rs = meta(ns, "web-5d4f8b7c9", "replicasets", ext);
    rs.insert("ownerReferences".into(), owned_by(ext, "Deployment", ns, "web"));
    let rs = object(
        rs,
        json!({"Spec": {"Replicas": 1, "MinReadySeconds": 0, "Selector": {"matchLabels": {"app": "web"}},
                        "Template": template("web", "100m", "64Mi")},
               "Status": {"Replicas": 1, "FullyLabeledReplicas": 1, "ReadyReplicas": 1, "AvailableReplicas": 1,
                          "ObservedGeneration": 1, "Conditions": null}}),
    );
    let pods = vec![
        pod(ns, "fluentd-xk2p9", "fluentd", owned_by(ext, "DaemonSet", ns, "fluentd")),
        pod(ns, "legacy-rc-q8z2m", "legacy", owned_by("v1", "ReplicationController", ns, "legacy-rc")),
        pod(ns, "web-5d4f8b7c9-abcde", "web", owned_by(ext, "ReplicaSet", ns, "web-5d4f8b7c9")),
    ];
    let link = |r: &str| -> Option<&'static str> {
        Some(match r {
            "events" => "/api/v1/namespaces/default/events",
            "replicationcontrollers" => "/api/v1/namespaces/default/replicationcontrollers",
            "services" => "/api/v1/namespaces/default/services",
            "daemonsets" => "/apis/extensions/v1beta1/namespaces/default/daemonsets",
            "deployments" => "/apis/extensions/v1beta1/namespaces/default/deployments",
            "replicasets" => "/apis/extensions/v1beta1/namespaces/default/replicasets",
            _ => "/api/v1/namespaces/default/pods",
        })
    };
    vec![
        ("events.json", link("events"), vec![event]),
        ("replication-controllers.json", link("replicationcontrollers"), vec![rc]),
        ("services.json", link("services"), vec![svc]),
        ("daemonsets.json", link("daemonsets"), vec![ds]),
        ("deployments.json", link("deployments"), vec![dep]),
        ("replicasets.json", link("replicasets"), vec![rs]),
        ("pods.json", link("pods"), pods),
    ]
}

/// `media`: the other kinds kdrift reads, internal form, no `selfLink`.
fn media_namespace() -> Vec<(&'static str, Option<&'static str>, Vec<Value>)> {
    let ns = "media";
    let job_template = json!({"creationTimestamp": null,
        "Spec": {"Parallelism": 1, "Completions": 1, "ActiveDeadlineSeconds": 3600, "BackoffLimit": 6,
                 "Selector": null, "ManualSelector": null, "Template": template("backup", "500m", "2Gi")}});
    let cronjob = object(
        meta(ns, "backup", "cronjobs", "batch/v1beta1"),
        json!({"Spec": {"Schedule": "0 4 * * *", "StartingDeadlineSeconds": null, "ConcurrencyPolicy": "Forbid",
                        "Suspend": false, "JobTemplate": job_template, "SuccessfulJobsHistoryLimit": 3,
                        "FailedJobsHistoryLimit": 1},
               "Status": {"Active": null, "LastScheduleTime": "2018-03-02T04:00:00Z"}}),
    );
    let mut job = meta(ns, "backup-1520000000", "jobs", "batch/v1");
    job.insert("ownerReferences".into(), owned_by("batch/v1beta1", "CronJob", ns, "backup"));
    let job = object(
        job,
        json!({"Spec": {"Parallelism": 1, "Completions": 1, "ActiveDeadlineSeconds": 3600, "BackoffLimit": 6,
                        "Selector": {"matchLabels": {"controller-uid": "u-media-backup-1520000000"}},
                        "ManualSelector": null, "Template": template("backup", "500m", "2Gi")},
               "Status": {"Conditions": null, "StartTime": "2018-03-02T04:00:00Z", "CompletionTime": null,
                          "Active": 1, "Succeeded": 0, "Failed": 0}}),
    );
    let sts = object(
        meta(ns, "db", "statefulsets", "apps/v1beta2"),
        json!({"Spec": {"Replicas": 1, "Selector": {"matchLabels": {"app": "db"}}, "Template": template("db", "1", "1Gi"),
                        "VolumeClaimTemplates": [{"name": "data", "creationTimestamp": null,
                            "Spec": {"AccessModes": ["ReadWriteOnce"], "Selector": null,
                                     "Resources": {"Limits": null, "Requests": {"storage": "10Gi"}},
                                     "VolumeName": "", "StorageClassName": null},
                            "Status": {"Phase": "", "AccessModes": null, "Capacity": null, "Conditions": null}}],
                        "ServiceName": "db", "PodManagementPolicy": "OrderedReady",
                        "UpdateStrategy": {"Type": "RollingUpdate", "RollingUpdate": {"Partition": 0}},
                        "RevisionHistoryLimit": 10},
               "Status": {"ObservedGeneration": 1, "Replicas": 1, "ReadyReplicas": 1, "CurrentReplicas": 1,
                          "UpdatedReplicas": 1, "CurrentRevision": "db-6d7b", "UpdateRevision": "db-6d7b",
                          "CollisionCount": null}}),
    );
    let pdb = object(
        meta(ns, "db", "poddisruptionbudgets", "policy/v1beta1"),
        json!({"Spec": {"MinAvailable": 1, "Selector": {"matchLabels": {"app": "db"}}, "MaxUnavailable": null},
               "Status": {"ObservedGeneration": 1, "DisruptedPods": null, "PodDisruptionsAllowed": 0,
                          "CurrentHealthy": 1, "DesiredHealthy": 1, "ExpectedPods": 1}}),
    );
    let pods = vec![
        pod(ns, "backup-1520000000-x7k2p", "backup", owned_by("batch/v1", "Job", ns, "backup-1520000000")),
        pod(ns, "db-0", "db", owned_by("apps/v1beta2", "StatefulSet", ns, "db")),
    ];
    vec![
        ("cronjobs.json", None, vec![cronjob]),
        ("jobs.json", None, vec![job]),
        ("statefulsets.json", None, vec![sts]),
        ("poddisruptionbudgets.json", None, vec![pdb]),
        ("pods.json", None, pods),
    ]
}

fn write(path: &Path, body: &str) {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).expect("mkdir");
    }
    std::fs::write(path, body).expect("write");
}

/// Writes the tree under `root` ([`FILES`], [`LOGS`]) and returns `root`.
pub fn write_tree(root: &Path) -> PathBuf {
    write(&root.join("nodes.json"), &internal_list(Some("/api/v1/nodes"), vec![node()]));
    for (file, link, items) in default_namespace() {
        write(&root.join("default").join(file), &internal_list(link, items));
        // kube-system: every file, every List empty (`Items` null for Services, as an empty slice printed).
        let link = link.map(|l| l.replace("/default/", "/kube-system/"));
        let empty = if file == "services.json" { Value::Null } else { json!([]) };
        let body = internal_list(link.as_deref(), vec![]).replace("\"Items\": []", &format!("\"Items\": {empty}"));
        write(&root.join("kube-system").join(file), &body);
    }
    for (file, link, items) in media_namespace() {
        write(&root.join("media").join(file), &internal_list(link, items));
    }
    let namespace = json!({"name": "media", "selfLink": "/api/v1/namespaces/media", "uid": "u-ns-media",
        "resourceVersion": "12", "creationTimestamp": "2018-03-01T00:00:00Z",
        "Spec": {"Finalizers": ["kubernetes"]}, "Status": {"Phase": "Active"}});
    write(&root.join("namespaces.json"), &internal_list(None, vec![namespace]));
    let class = json!({"name": "high", "selfLink": "/apis/scheduling.k8s.io/v1alpha1/priorityclasses/high",
        "uid": "u-pc-high", "resourceVersion": "13", "creationTimestamp": "2018-03-01T00:00:00Z",
        "Value": 1000000, "GlobalDefault": false, "Description": "backups first"});
    write(&root.join("priorityclasses.json"), &internal_list(None, vec![class]));
    for log in LOGS {
        let (ns, pod) =
            log.split_once('/').map(|(ns, rest)| (ns, rest.split('/').next().unwrap_or(""))).unwrap_or_default();
        let container = pod.split('-').next().unwrap_or(pod);
        write(
            &root.join(log),
            &format!(
                "==== START logs for container {container} of pod {ns}/{pod} ====\n172.17.0.1 - - \
                 [02/Mar/2018:14:00:05 +0000] \"GET / HTTP/1.1\" 200 612\n==== END logs for container \
                 {container} of pod {ns}/{pod} ====\n"
            ),
        );
    }
    root.to_path_buf()
}
