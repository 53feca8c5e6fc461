//! The API resources kdrift reads from a cluster, and their URL paths.
//! [`HISTORY_RESOURCES`] is what `kdrift ingest api` lists and
//! `kdrift record` watches (issue 3): events (both APIs), pods, nodes,
//! namespaces, PodDisruptionBudgets, PriorityClasses and the owner chain
//! kinds. The rebalance executor uses the same definitions.

/// One API resource (a group/version/plural served by the apiserver).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ResourceKind {
    /// API group, `""` for the core group.
    pub group: &'static str,
    /// API version, e.g. `v1`.
    pub version: &'static str,
    /// Object kind, e.g. `Pod`.
    pub kind: &'static str,
    /// Plural resource name in URLs, e.g. `pods`.
    pub plural: &'static str,
    /// Whether objects live in a namespace.
    pub namespaced: bool,
}

/// Which namespaces to read, as kubectl's `-n NAMESPACE` / `-A` say.
/// Cluster-scoped resources ignore it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scope {
    /// Every namespace (`-A`, `--all-namespaces`).
    AllNamespaces,
    /// One namespace (`-n`, or the kubeconfig context's namespace).
    Namespace(String),
}

impl std::fmt::Display for Scope {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Scope::AllNamespaces => write!(f, "all namespaces"),
            Scope::Namespace(ns) => write!(f, "namespace {ns}"),
        }
    }
}

impl ResourceKind {
    /// `apiVersion` of its objects: `v1`, `apps/v1`, …
    pub fn api_version(&self) -> String {
        if self.group.is_empty() {
            self.version.to_string()
        } else {
            format!("{}/{}", self.group, self.version)
        }
    }

    /// `kind` of its list: `PodList`, …
    pub fn list_kind(&self) -> String {
        format!("{}List", self.kind)
    }

    /// The name kdrift uses in messages and reports: `pods`,
    /// `events.events.k8s.io`, `deployments.apps` (kubectl's
    /// `resource.group` form).
    pub fn name(&self) -> String {
        if self.group.is_empty() {
            self.plural.to_string()
        } else {
            format!("{}.{}", self.plural, self.group)
        }
    }

    /// The API path prefix: `/api/v1` or `/apis/<group>/<version>`.
    pub fn group_path(&self) -> String {
        if self.group.is_empty() {
            format!("/api/{}", self.version)
        } else {
            format!("/apis/{}/{}", self.group, self.version)
        }
    }

    /// The collection path for `scope`: `/api/v1/pods` (all namespaces, or a
    /// cluster-scoped resource) or `/api/v1/namespaces/<ns>/pods`.
    pub fn collection_path(&self, scope: &Scope) -> String {
        match scope {
            Scope::Namespace(ns) if self.namespaced => {
                format!("{}/namespaces/{}/{}", self.group_path(), ns, self.plural)
            }
            _ => format!("{}/{}", self.group_path(), self.plural),
        }
    }

    /// Finds a resource of [`HISTORY_RESOURCES`] by `apiVersion` and `kind`.
    pub fn by_kind(api_version: &str, kind: &str) -> Option<&'static ResourceKind> {
        HISTORY_RESOURCES.iter().find(|r| r.kind == kind && r.api_version() == api_version)
    }
}

const fn rk(
    group: &'static str,
    version: &'static str,
    kind: &'static str,
    plural: &'static str,
    namespaced: bool,
) -> ResourceKind {
    ResourceKind { group, version, kind, plural, namespaced }
}

/// Every resource whose history kdrift keeps, in listing order (cluster
/// shape first, then owners, pods, and events last).
pub const HISTORY_RESOURCES: &[ResourceKind] = &[
    rk("", "v1", "Namespace", "namespaces", false),
    rk("", "v1", "Node", "nodes", false),
    rk("scheduling.k8s.io", "v1", "PriorityClass", "priorityclasses", false),
    rk("policy", "v1", "PodDisruptionBudget", "poddisruptionbudgets", true),
    rk("apps", "v1", "Deployment", "deployments", true),
    rk("apps", "v1", "ReplicaSet", "replicasets", true),
    rk("apps", "v1", "StatefulSet", "statefulsets", true),
    rk("apps", "v1", "DaemonSet", "daemonsets", true),
    rk("batch", "v1", "CronJob", "cronjobs", true),
    rk("batch", "v1", "Job", "jobs", true),
    rk("", "v1", "Pod", "pods", true),
    rk("", "v1", "Event", "events", true),
    rk("events.k8s.io", "v1", "Event", "events", true),
];

/// metrics-server's NodeMetrics (`metrics.k8s.io/v1beta1`, `nodes`): a
/// node's CPU and memory usage at an instant (`kdrift ingest api`,
/// `kdrift record`; issue 37). Read-only, no resourceVersion, not watched.
pub const NODE_METRICS: ResourceKind = rk("metrics.k8s.io", "v1beta1", "NodeMetrics", "nodes", false);

/// metrics-server's PodMetrics (`metrics.k8s.io/v1beta1`, `pods`): each
/// container's CPU and memory usage at an instant (see [`NODE_METRICS`]).
pub const POD_METRICS: ResourceKind = rk("metrics.k8s.io", "v1beta1", "PodMetrics", "pods", true);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_follow_the_api_conventions() {
        let pods = ResourceKind::by_kind("v1", "Pod").expect("pods");
        assert_eq!(pods.collection_path(&Scope::AllNamespaces), "/api/v1/pods");
        assert_eq!(pods.collection_path(&Scope::Namespace("media".into())), "/api/v1/namespaces/media/pods");
        let nodes = ResourceKind::by_kind("v1", "Node").expect("nodes");
        assert_eq!(nodes.collection_path(&Scope::Namespace("media".into())), "/api/v1/nodes");
        let ev = ResourceKind::by_kind("events.k8s.io/v1", "Event").expect("events");
        assert_eq!(ev.collection_path(&Scope::Namespace("d".into())), "/apis/events.k8s.io/v1/namespaces/d/events");
        assert_eq!(ev.name(), "events.events.k8s.io");
        assert_eq!(ev.list_kind(), "EventList");
        let pdb = ResourceKind::by_kind("policy/v1", "PodDisruptionBudget").expect("pdb");
        assert_eq!(pdb.name(), "poddisruptionbudgets.policy");
    }

    #[test]
    fn every_resource_is_listed_once() {
        let mut names: Vec<String> = HISTORY_RESOURCES.iter().map(ResourceKind::name).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), HISTORY_RESOURCES.len());
        assert_eq!(HISTORY_RESOURCES.len(), 13);
    }
}
