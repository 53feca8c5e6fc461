//! `DefaultEvictor` plugin arguments: which pods may be evicted at all.
//!
//! Field names, defaults and validation messages follow descheduler v0.36
//! `pkg/framework/plugins/defaultevictor/{types,validation}.go`. How the
//! arguments act on pods is in [`crate::planner`].

use serde::Serialize;
use serde_yaml::Value;

use super::duration::GoDuration;
use super::error::PolicyError;
use super::reader::{mapping, string, strings, Obj};
use super::selector::{label_selector_value, read_label_selector, read_string_selector};
use crate::model::pod::LabelSelector;

/// A pod protection policy name (`podProtections.defaultDisabled` /
/// `extraEnabled`). Source: descheduler v0.36 `defaultevictor/types.go`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum PodProtection {
    /// On by default: pods with a hostPath or emptyDir volume.
    PodsWithLocalStorage,
    /// On by default: pods with priority >= 2000000000 (and the priority threshold).
    SystemCriticalPods,
    /// On by default: pods without ownerReferences.
    FailedBarePods,
    /// On by default: pods with an ownerReference of kind DaemonSet.
    DaemonSetPods,
    /// Extra: pods with a persistentVolumeClaim volume.
    PodsWithPVC,
    /// Extra: pods no PodDisruptionBudget selects.
    PodsWithoutPDB,
    /// Extra: pods with `spec.resourceClaims`.
    PodsWithResourceClaims,
    /// A name descheduler does not know (validation rejects it).
    Other(String),
}

/// The protections enabled by default, in descheduler's order
/// (`defaultPodProtections`).
pub const DEFAULT_PROTECTIONS: [PodProtection; 4] = [
    PodProtection::PodsWithLocalStorage,
    PodProtection::SystemCriticalPods,
    PodProtection::FailedBarePods,
    PodProtection::DaemonSetPods,
];

/// The protections that can be enabled in `extraEnabled`, in descheduler's
/// order (`extraPodProtections` as of v0.36).
pub const EXTRA_PROTECTIONS: [PodProtection; 3] =
    [PodProtection::PodsWithPVC, PodProtection::PodsWithoutPDB, PodProtection::PodsWithResourceClaims];

impl PodProtection {
    /// Parses the policy spelling; unknown names are kept as [`PodProtection::Other`].
    pub fn parse(s: &str) -> PodProtection {
        match s {
            "PodsWithLocalStorage" => PodProtection::PodsWithLocalStorage,
            "SystemCriticalPods" => PodProtection::SystemCriticalPods,
            "FailedBarePods" => PodProtection::FailedBarePods,
            "DaemonSetPods" => PodProtection::DaemonSetPods,
            "PodsWithPVC" => PodProtection::PodsWithPVC,
            "PodsWithoutPDB" => PodProtection::PodsWithoutPDB,
            "PodsWithResourceClaims" => PodProtection::PodsWithResourceClaims,
            other => PodProtection::Other(other.to_string()),
        }
    }

    /// The policy spelling.
    pub fn as_str(&self) -> &str {
        match self {
            PodProtection::PodsWithLocalStorage => "PodsWithLocalStorage",
            PodProtection::SystemCriticalPods => "SystemCriticalPods",
            PodProtection::FailedBarePods => "FailedBarePods",
            PodProtection::DaemonSetPods => "DaemonSetPods",
            PodProtection::PodsWithPVC => "PodsWithPVC",
            PodProtection::PodsWithoutPDB => "PodsWithoutPDB",
            PodProtection::PodsWithResourceClaims => "PodsWithResourceClaims",
            PodProtection::Other(s) => s,
        }
    }
}

/// `podProtections`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct PodProtections {
    /// `defaultDisabled`: default protections switched off.
    pub default_disabled: Vec<PodProtection>,
    /// `extraEnabled`: extra protections switched on.
    pub extra_enabled: Vec<PodProtection>,
    /// `config.PodsWithPVC.protectedStorageClasses[].name`: when set and
    /// non-empty, PodsWithPVC protects only pods whose claims use one of
    /// these storage classes.
    pub protected_storage_classes: Option<Vec<String>>,
}

/// `priorityThreshold`: pods with a priority at or above it are protected
/// (only while SystemCriticalPods protection is on).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct PriorityThreshold {
    /// `value`: the priority itself.
    pub value: Option<i32>,
    /// `name`: a PriorityClass whose value is the threshold.
    pub name: Option<String>,
}

/// `noEvictionPolicy`: how the `descheduler.alpha.kubernetes.io/prefer-no-eviction`
/// annotation acts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum NoEvictionPolicy {
    /// Only sorts annotated pods last.
    Preferred,
    /// Annotated pods are never evicted.
    Mandatory,
    /// Anything else (validation rejects it).
    Other(String),
}

impl NoEvictionPolicy {
    /// The policy spelling.
    pub fn as_str(&self) -> &str {
        match self {
            NoEvictionPolicy::Preferred => "Preferred",
            NoEvictionPolicy::Mandatory => "Mandatory",
            NoEvictionPolicy::Other(s) => s,
        }
    }
}

/// `DefaultEvictor` args. Every field defaults to "not set".
/// Source: descheduler v0.36 `DefaultEvictorArgs`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct DefaultEvictorArgs {
    /// `nodeSelector`: the nodes nodeFit looks at (string selector).
    pub node_selector: Option<String>,
    /// `labelSelector`: only pods matching it are evictable.
    pub label_selector: Option<LabelSelector>,
    /// `namespaceLabelSelector`: only pods in namespaces matching it are
    /// evictable (applied only when `matchLabels` is non-empty, as upstream).
    pub namespace_label_selector: Option<LabelSelector>,
    /// `priorityThreshold`.
    pub priority_threshold: Option<PriorityThreshold>,
    /// `nodeFit`: the pod must fit some other Ready node.
    pub node_fit: bool,
    /// `minReplicas`: owners with fewer pods protect them (only when > 1).
    pub min_replicas: u32,
    /// `minPodAge`.
    pub min_pod_age: Option<GoDuration>,
    /// `noEvictionPolicy`.
    pub no_eviction_policy: Option<NoEvictionPolicy>,
    /// `podProtections`.
    pub pod_protections: PodProtections,
    /// Deprecated `evictLocalStoragePods`.
    pub evict_local_storage_pods: Option<bool>,
    /// Deprecated `evictDaemonSetPods`.
    pub evict_daemon_set_pods: Option<bool>,
    /// Deprecated `evictSystemCriticalPods`.
    pub evict_system_critical_pods: Option<bool>,
    /// Deprecated `evictFailedBarePods`.
    pub evict_failed_bare_pods: Option<bool>,
    /// Deprecated `ignorePvcPods`.
    pub ignore_pvc_pods: Option<bool>,
    /// Deprecated `ignorePodsWithoutPDB`.
    pub ignore_pods_without_pdb: Option<bool>,
}

const FIELDS: [&str; 15] = [
    "nodeSelector",
    "labelSelector",
    "namespaceLabelSelector",
    "priorityThreshold",
    "nodeFit",
    "minReplicas",
    "minPodAge",
    "noEvictionPolicy",
    "podProtections",
    "evictLocalStoragePods",
    "evictDaemonSetPods",
    "evictSystemCriticalPods",
    "evictFailedBarePods",
    "ignorePvcPods",
    "ignorePodsWithoutPDB",
];

impl DefaultEvictorArgs {
    /// True when a deprecated boolean is set to `true` (Go cannot tell
    /// `false` from unset, so only `true` counts as "used").
    pub fn uses_deprecated_fields(&self) -> bool {
        [
            self.evict_local_storage_pods,
            self.evict_daemon_set_pods,
            self.evict_system_critical_pods,
            self.evict_failed_bare_pods,
            self.ignore_pvc_pods,
            self.ignore_pods_without_pdb,
        ]
        .contains(&Some(true))
    }

    /// The protections in force: `podProtections` when either list is
    /// non-empty (defaults minus `defaultDisabled`, plus `extraEnabled`),
    /// otherwise the deprecated booleans. Source: descheduler v0.36
    /// `getEffectivePodProtections` / `legacyGetPodProtections`.
    pub fn effective_protections(&self) -> Vec<PodProtection> {
        let p = &self.pod_protections;
        if !p.default_disabled.is_empty() || !p.extra_enabled.is_empty() {
            let mut out: Vec<PodProtection> =
                DEFAULT_PROTECTIONS.iter().filter(|d| !p.default_disabled.contains(d)).cloned().collect();
            out.extend(p.extra_enabled.iter().cloned());
            return out;
        }
        let on = |b: Option<bool>| b == Some(true);
        let mut out = Vec::new();
        if !on(self.evict_local_storage_pods) {
            out.push(PodProtection::PodsWithLocalStorage);
        }
        if !on(self.evict_daemon_set_pods) {
            out.push(PodProtection::DaemonSetPods);
        }
        if !on(self.evict_system_critical_pods) {
            out.push(PodProtection::SystemCriticalPods);
        }
        if !on(self.evict_failed_bare_pods) {
            out.push(PodProtection::FailedBarePods);
        }
        if on(self.ignore_pvc_pods) {
            out.push(PodProtection::PodsWithPVC);
        }
        if on(self.ignore_pods_without_pdb) {
            out.push(PodProtection::PodsWithoutPDB);
        }
        out
    }

    /// descheduler v0.36 `ValidateDefaultEvictorArgs`: every error, in
    /// upstream order (priority threshold, noEvictionPolicy, deprecated
    /// fields mixed with podProtections, then each list's invalid names and
    /// duplicates).
    pub fn validate(&self) -> Vec<String> {
        let mut errs = Vec::new();
        if let Some(t) = &self.priority_threshold {
            if t.value.is_some() && t.name.as_deref().is_some_and(|n| !n.is_empty()) {
                errs.push(
                    "priority threshold misconfigured, only one of priorityThreshold fields can be set".to_string(),
                );
            }
        }
        if let Some(NoEvictionPolicy::Other(_)) = &self.no_eviction_policy {
            errs.push(r#"noEvictionPolicy accepts only ["Preferred" "Mandatory"] values"#.to_string());
        }
        let p = &self.pod_protections;
        if self.uses_deprecated_fields() && (!p.default_disabled.is_empty() || !p.extra_enabled.is_empty()) {
            errs.push(
                "cannot use Deprecated fields alongside PodProtections.ExtraEnabled or PodProtections.DefaultDisabled"
                    .to_string(),
            );
        }
        check_list(&p.default_disabled, &DEFAULT_PROTECTIONS, "DefaultDisabled", &mut errs);
        check_list(&p.extra_enabled, &EXTRA_PROTECTIONS, "ExtraEnabled", &mut errs);
        errs
    }

    /// Reads the args mapping at `o`.
    pub(crate) fn read(o: &Obj<'_>) -> Result<DefaultEvictorArgs, PolicyError> {
        o.only(&FIELDS)?;
        let mut a = DefaultEvictorArgs {
            node_selector: read_string_selector(o, "nodeSelector")?,
            node_fit: o.bool("nodeFit")?.unwrap_or(false),
            min_replicas: o.uint("minReplicas")?.unwrap_or(0),
            evict_local_storage_pods: o.bool("evictLocalStoragePods")?,
            evict_daemon_set_pods: o.bool("evictDaemonSetPods")?,
            evict_system_critical_pods: o.bool("evictSystemCriticalPods")?,
            evict_failed_bare_pods: o.bool("evictFailedBarePods")?,
            ignore_pvc_pods: o.bool("ignorePvcPods")?,
            ignore_pods_without_pdb: o.bool("ignorePodsWithoutPDB")?,
            ..DefaultEvictorArgs::default()
        };
        if let Some(s) = o.obj("labelSelector")? {
            a.label_selector = Some(read_label_selector(&s)?);
        }
        if let Some(s) = o.obj("namespaceLabelSelector")? {
            a.namespace_label_selector = Some(read_label_selector(&s)?);
        }
        if let Some(t) = o.obj("priorityThreshold")? {
            t.only(&["value", "name"])?;
            a.priority_threshold = Some(PriorityThreshold {
                value: t.int("value", i64::from(i32::MIN), i64::from(i32::MAX))?.map(|v| v as i32),
                name: t.str("name")?.filter(|n| !n.is_empty()),
            });
        }
        if let Some(text) = o.str("minPodAge")? {
            a.min_pod_age = Some(GoDuration::parse(&text).map_err(|e| PolicyError::field(&o.at("minPodAge"), e))?);
        }
        a.no_eviction_policy = o.str("noEvictionPolicy")?.filter(|s| !s.is_empty()).map(|s| match s.as_str() {
            "Preferred" => NoEvictionPolicy::Preferred,
            "Mandatory" => NoEvictionPolicy::Mandatory,
            _ => NoEvictionPolicy::Other(s),
        });
        if let Some(p) = o.obj("podProtections")? {
            p.only(&["defaultDisabled", "extraEnabled", "config"])?;
            let names = |key: &str| -> Result<Vec<PodProtection>, PolicyError> {
                Ok(p.str_list(key)?.iter().map(|s| PodProtection::parse(s)).collect())
            };
            a.pod_protections.default_disabled = names("defaultDisabled")?;
            a.pod_protections.extra_enabled = names("extraEnabled")?;
            if let Some(c) = p.obj("config")? {
                c.only(&["PodsWithPVC"])?;
                if let Some(pvc) = c.obj("PodsWithPVC")? {
                    pvc.only(&["protectedStorageClasses"])?;
                    let mut classes = Vec::new();
                    for (path, v) in pvc.list("protectedStorageClasses")? {
                        let sc = Obj::new(v, &path)?;
                        sc.only(&["name"])?;
                        classes.push(sc.str("name")?.ok_or_else(|| PolicyError::field(&sc.at("name"), "is required"))?);
                    }
                    a.pod_protections.protected_storage_classes = Some(classes);
                }
            }
        }
        Ok(a)
    }

    /// The args in policy form (only set fields are written).
    pub(crate) fn to_value(&self) -> Value {
        let names = |l: &[PodProtection]| -> Option<Value> {
            (!l.is_empty()).then(|| strings(&l.iter().map(|p| p.as_str().to_string()).collect::<Vec<_>>()))
        };
        let p = &self.pod_protections;
        let config = p.protected_storage_classes.as_ref().map(|classes| {
            let list = classes.iter().map(|c| mapping(vec![("name", Some(string(c)))])).collect();
            mapping(vec![(
                "PodsWithPVC",
                Some(mapping(vec![("protectedStorageClasses", Some(Value::Sequence(list)))])),
            )])
        });
        let protections =
            (!p.default_disabled.is_empty() || !p.extra_enabled.is_empty() || config.is_some()).then(|| {
                mapping(vec![
                    ("defaultDisabled", names(&p.default_disabled)),
                    ("extraEnabled", names(&p.extra_enabled)),
                    ("config", config),
                ])
            });
        mapping(vec![
            ("nodeSelector", self.node_selector.as_deref().map(string)),
            ("labelSelector", self.label_selector.as_ref().map(label_selector_value)),
            ("namespaceLabelSelector", self.namespace_label_selector.as_ref().map(label_selector_value)),
            (
                "priorityThreshold",
                self.priority_threshold.as_ref().map(|t| {
                    mapping(vec![
                        ("value", t.value.map(|v| Value::Number(v.into()))),
                        ("name", t.name.as_deref().map(string)),
                    ])
                }),
            ),
            ("nodeFit", self.node_fit.then_some(Value::Bool(true))),
            ("minReplicas", (self.min_replicas > 0).then(|| Value::Number(self.min_replicas.into()))),
            ("minPodAge", self.min_pod_age.map(|d| string(&d.to_string()))),
            ("noEvictionPolicy", self.no_eviction_policy.as_ref().map(|n| string(n.as_str()))),
            ("podProtections", protections),
            ("evictLocalStoragePods", self.evict_local_storage_pods.map(Value::Bool)),
            ("evictDaemonSetPods", self.evict_daemon_set_pods.map(Value::Bool)),
            ("evictSystemCriticalPods", self.evict_system_critical_pods.map(Value::Bool)),
            ("evictFailedBarePods", self.evict_failed_bare_pods.map(Value::Bool)),
            ("ignorePvcPods", self.ignore_pvc_pods.map(Value::Bool)),
            ("ignorePodsWithoutPDB", self.ignore_pods_without_pdb.map(Value::Bool)),
        ])
    }
}

/// Invalid names, then duplicates, of one protection list.
fn check_list(list: &[PodProtection], valid: &[PodProtection], field: &str, errs: &mut Vec<String>) {
    let options: Vec<&str> = valid.iter().map(PodProtection::as_str).collect();
    for p in list {
        if !valid.contains(p) {
            errs.push(format!(
                "invalid pod protection policy in {field}: {:?}. Valid options are: [{}]",
                p.as_str(),
                options.join(" ")
            ));
        }
    }
    let mut seen = Vec::new();
    for p in list {
        if seen.contains(&p) {
            errs.push(format!("PodProtections.{field} contains duplicate entries"));
            break;
        }
        seen.push(p);
    }
}
