//! The API resources the fake apiserver serves, with what discovery says
//! about each (verbs, short names, categories) and where objects are kept:
//! core/v1 and events.k8s.io/v1 events are one storage seen through two APIs,
//! as in a real cluster.

/// One served resource.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Served {
    /// API group, `""` for core.
    pub group: &'static str,
    /// Version.
    pub version: &'static str,
    /// Kind.
    pub kind: &'static str,
    /// Plural (URL) name.
    pub plural: &'static str,
    /// Singular name (discovery).
    pub singular: &'static str,
    /// Namespaced or cluster-scoped.
    pub namespaced: bool,
    /// kubectl short names.
    pub short_names: &'static [&'static str],
    /// Storage shared between API views (`events` for both event APIs).
    pub storage: &'static str,
}

impl Served {
    /// `v1`, `apps/v1`, …
    pub fn api_version(&self) -> String {
        if self.group.is_empty() {
            self.version.to_string()
        } else {
            format!("{}/{}", self.group, self.version)
        }
    }

    /// `pods`, `deployments.apps`, `events.events.k8s.io`.
    pub fn name(&self) -> String {
        if self.group.is_empty() {
            self.plural.to_string()
        } else {
            format!("{}.{}", self.plural, self.group)
        }
    }
}

#[allow(clippy::too_many_arguments)]
const fn s(
    group: &'static str,
    version: &'static str,
    kind: &'static str,
    plural: &'static str,
    singular: &'static str,
    namespaced: bool,
    short_names: &'static [&'static str],
    storage: &'static str,
) -> Served {
    Served { group, version, kind, plural, singular, namespaced, short_names, storage }
}

/// Everything served, in discovery order.
pub const SERVED: &[Served] = &[
    s("", "v1", "Namespace", "namespaces", "namespace", false, &["ns"], "namespaces"),
    s("", "v1", "Node", "nodes", "node", false, &["no"], "nodes"),
    s("", "v1", "Pod", "pods", "pod", true, &["po"], "pods"),
    s("", "v1", "Event", "events", "event", true, &["ev"], "events"),
    s("events.k8s.io", "v1", "Event", "events", "event", true, &["ev"], "events"),
    s("policy", "v1", "PodDisruptionBudget", "poddisruptionbudgets", "poddisruptionbudget", true, &["pdb"], "pdbs"),
    s(
        "scheduling.k8s.io",
        "v1",
        "PriorityClass",
        "priorityclasses",
        "priorityclass",
        false,
        &["pc"],
        "priorityclasses",
    ),
    s("apps", "v1", "Deployment", "deployments", "deployment", true, &["deploy"], "deployments"),
    s("apps", "v1", "ReplicaSet", "replicasets", "replicaset", true, &["rs"], "replicasets"),
    s("apps", "v1", "StatefulSet", "statefulsets", "statefulset", true, &["sts"], "statefulsets"),
    s("apps", "v1", "DaemonSet", "daemonsets", "daemonset", true, &["ds"], "daemonsets"),
    s("batch", "v1", "Job", "jobs", "job", true, &[], "jobs"),
    s("batch", "v1", "CronJob", "cronjobs", "cronjob", true, &["cj"], "cronjobs"),
];

/// Index into [`SERVED`].
pub type ResourceId = usize;

/// Finds a resource by group, version and plural.
pub fn find(group: &str, version: &str, plural: &str) -> Option<ResourceId> {
    SERVED.iter().position(|r| r.group == group && r.version == version && r.plural == plural)
}

/// Finds the resource objects of `apiVersion` + `kind` are written through.
pub fn by_kind(api_version: &str, kind: &str) -> Option<ResourceId> {
    SERVED.iter().position(|r| r.kind == kind && r.api_version() == api_version)
}

/// Finds a resource by its `plural[.group]` name.
pub fn by_name(name: &str) -> Option<ResourceId> {
    SERVED.iter().position(|r| r.name() == name)
}

/// The groups (besides core) with their version, in discovery order.
pub fn groups() -> Vec<(&'static str, &'static str)> {
    let mut out: Vec<(&'static str, &'static str)> = Vec::new();
    for r in SERVED.iter().filter(|r| !r.group.is_empty()) {
        if !out.iter().any(|(g, _)| *g == r.group) {
            out.push((r.group, r.version));
        }
    }
    out
}
