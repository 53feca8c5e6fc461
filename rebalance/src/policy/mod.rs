//! Descheduler policy files (`apiVersion: descheduler/v1alpha2`, `kind:
//! DeschedulerPolicy`) read into typed structs, validated with descheduler's
//! own messages, and written back out.
//!
//! Accepted inputs ([`Policy::from_yaml`]):
//! - the policy itself;
//! - a Helm values file: its `deschedulerPolicy:` key, merged over the
//!   chart's defaults as the chart renders it ([`helm`]);
//! - the chart's ConfigMap (`data."policy.yaml"`).
//!
//! Unknown fields are REJECTED with the full field path
//! (`profiles[0].pluginConfig[0].args.thresholdz: unknown field (expected one
//! of: ...)`) in every section kdrift models: the policy's top level,
//! profiles, plugin sets, and the `DefaultEvictor` and `LowNodeUtilization`
//! args. Sections it does not model are KEPT verbatim: other plugins' args,
//! `metricsCollector`, `metricsProviders`, `metricsUtilization`. This is
//! stricter than descheduler (whose decoder drops unknown fields silently),
//! on purpose: a misspelt `targetThreshold` there silently changes behaviour.
//!
//! [`Policy::to_yaml`] always writes the plain policy form; parsing it gives
//! back an equal [`Policy`].

pub mod duration;
mod error;
pub mod evictor;
pub mod helm;
pub mod lnu;
pub mod metrics_utilization;
pub mod plugins;
pub(crate) mod reader;
mod repair;
pub mod selector;
#[cfg(test)]
pub(crate) mod tests;
pub mod v1alpha1;

use serde_yaml::Value;

pub use duration::GoDuration;
pub use error::{aggregate, PolicyError};
pub use evictor::{DefaultEvictorArgs, NoEvictionPolicy, PodProtection, PodProtections, PriorityThreshold};
pub use lnu::{EvictionLimits, LowNodeUtilizationArgs, Namespaces, ResourceThresholds};
pub use metrics_utilization::{
    MetricsSource, MetricsUtilization, PrometheusQuery, KUBERNETES_METRICS, METRIC_RESOURCE, PROMETHEUS_METRICS,
};
pub use plugins::duplicates::RemoveDuplicatesArgs;
pub use plugins::failed_pods::RemoveFailedPodsArgs;
pub use plugins::high_node_utilization::HighNodeUtilizationArgs;
pub use plugins::inter_pod_anti_affinity::RemovePodsViolatingInterPodAntiAffinityArgs;
pub use plugins::node_affinity::RemovePodsViolatingNodeAffinityArgs;
pub use plugins::node_taints::RemovePodsViolatingNodeTaintsArgs;
pub use plugins::pod_lifetime::PodLifeTimeArgs;
pub use plugins::too_many_restarts::RemovePodsHavingTooManyRestartsArgs;
pub use plugins::topology_spread::RemovePodsViolatingTopologySpreadConstraintArgs;
pub use plugins::{
    extension_point_of, ExtensionPoint, PodScope, HIGH_NODE_UTILIZATION, POD_LIFE_TIME, REMOVE_DUPLICATES,
    REMOVE_FAILED_PODS, REMOVE_PODS_HAVING_TOO_MANY_RESTARTS, REMOVE_PODS_VIOLATING_INTER_POD_ANTI_AFFINITY,
    REMOVE_PODS_VIOLATING_NODE_AFFINITY, REMOVE_PODS_VIOLATING_NODE_TAINTS,
    REMOVE_PODS_VIOLATING_TOPOLOGY_SPREAD_CONSTRAINT,
};
pub use selector::StringSelector;

use reader::{describe, mapping, string, strings, Obj};

/// The only policy API version kdrift reads.
pub const API_VERSION: &str = "descheduler/v1alpha2";
/// The policy kind.
pub const KIND: &str = "DeschedulerPolicy";
/// The `DefaultEvictor` plugin name.
pub const DEFAULT_EVICTOR: &str = "DefaultEvictor";
/// The `LowNodeUtilization` plugin name.
pub const LOW_NODE_UTILIZATION: &str = "LowNodeUtilization";

/// Plugins registered in descheduler v0.36 (`pluginregistry`); a
/// `pluginConfig` entry naming anything else is a validation error.
pub const KNOWN_PLUGINS: [&str; 11] = [
    "DefaultEvictor",
    "LowNodeUtilization",
    "HighNodeUtilization",
    "RemoveDuplicates",
    "RemoveFailedPods",
    "RemovePodsHavingTooManyRestarts",
    "RemovePodsViolatingInterPodAntiAffinity",
    "RemovePodsViolatingNodeAffinity",
    "RemovePodsViolatingNodeTaints",
    "RemovePodsViolatingTopologySpreadConstraint",
    "PodLifeTime",
];

/// Which form a policy was read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PolicyForm {
    /// A `DeschedulerPolicy` document.
    Policy,
    /// A Helm values file (`deschedulerPolicy:`), merged over the chart defaults.
    HelmValues,
    /// A ConfigMap whose `data."policy.yaml"` holds the policy.
    ConfigMap,
}

/// A descheduler policy. Source: descheduler v0.36 `v1alpha2.DeschedulerPolicy`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Policy {
    /// `profiles`, in order (descheduler runs them in this order).
    pub profiles: Vec<Profile>,
    /// `nodeSelector`: a string label selector choosing the nodes to work on.
    pub node_selector: Option<String>,
    /// `maxNoOfPodsToEvictPerNode` (per cycle, all plugins).
    pub max_no_of_pods_to_evict_per_node: Option<u32>,
    /// `maxNoOfPodsToEvictPerNamespace` (per cycle, all plugins).
    pub max_no_of_pods_to_evict_per_namespace: Option<u32>,
    /// `maxNoOfPodsToEvictTotal` (per cycle, all plugins).
    pub max_no_of_pods_to_evict_total: Option<u32>,
    /// `evictionFailureEventNotification`.
    pub eviction_failure_event_notification: Option<bool>,
    /// `gracePeriodSeconds` for the Eviction's delete options.
    pub grace_period_seconds: Option<i64>,
    /// `metricsCollector` (deprecated), kept as written.
    pub metrics_collector: Option<Value>,
    /// `metricsProviders`, kept as written.
    pub metrics_providers: Option<Value>,
}

/// One `profiles[]` entry.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Profile {
    /// `name`.
    pub name: String,
    /// `pluginConfig`, in order.
    pub plugin_config: Vec<PluginConfig>,
    /// `plugins`.
    pub plugins: Plugins,
}

/// `plugins`: which plugins run at each extension point.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Plugins {
    /// `presort`.
    pub presort: PluginSet,
    /// `sort`.
    pub sort: PluginSet,
    /// `deschedule`.
    pub deschedule: PluginSet,
    /// `balance` (LowNodeUtilization runs only when enabled here).
    pub balance: PluginSet,
    /// `filter`.
    pub filter: PluginSet,
    /// `preEvictionFilter` (the Go field tag is `preevictionfilter`; both spellings are read).
    pub pre_eviction_filter: PluginSet,
}

/// `enabled` / `disabled` plugin names.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PluginSet {
    /// `enabled`.
    pub enabled: Vec<String>,
    /// `disabled`.
    pub disabled: Vec<String>,
}

/// One `pluginConfig[]` entry.
#[derive(Debug, Clone, PartialEq)]
pub struct PluginConfig {
    /// `name`.
    pub name: String,
    /// `args`, typed for the plugins kdrift models.
    pub args: PluginArgs,
}

/// Plugin arguments.
#[derive(Debug, Clone, PartialEq)]
pub enum PluginArgs {
    /// `DefaultEvictor` args.
    DefaultEvictor(Box<DefaultEvictorArgs>),
    /// `LowNodeUtilization` args.
    LowNodeUtilization(Box<LowNodeUtilizationArgs>),
    /// `RemovePodsViolatingNodeAffinity` args.
    RemovePodsViolatingNodeAffinity(Box<RemovePodsViolatingNodeAffinityArgs>),
    /// `RemovePodsViolatingNodeTaints` args.
    RemovePodsViolatingNodeTaints(Box<RemovePodsViolatingNodeTaintsArgs>),
    /// `RemovePodsViolatingInterPodAntiAffinity` args.
    RemovePodsViolatingInterPodAntiAffinity(Box<RemovePodsViolatingInterPodAntiAffinityArgs>),
    /// `PodLifeTime` args.
    PodLifeTime(Box<PodLifeTimeArgs>),
    /// `RemoveFailedPods` args.
    RemoveFailedPods(Box<RemoveFailedPodsArgs>),
    /// `RemovePodsHavingTooManyRestarts` args.
    RemovePodsHavingTooManyRestarts(Box<RemovePodsHavingTooManyRestartsArgs>),
    /// `RemoveDuplicates` args.
    RemoveDuplicates(Box<RemoveDuplicatesArgs>),
    /// `RemovePodsViolatingTopologySpreadConstraint` args.
    RemovePodsViolatingTopologySpreadConstraint(Box<RemovePodsViolatingTopologySpreadConstraintArgs>),
    /// `HighNodeUtilization` args.
    HighNodeUtilization(Box<HighNodeUtilizationArgs>),
    /// A plugin descheduler v0.36 does not register (out-of-tree): its args
    /// kept as written (`None` when absent).
    Other(Option<Value>),
}

impl Profile {
    /// The `DefaultEvictor` args of this profile (descheduler adds a default
    /// one when the profile has none: every field unset).
    pub fn default_evictor(&self) -> DefaultEvictorArgs {
        self.plugin_config
            .iter()
            .find_map(|c| match &c.args {
                PluginArgs::DefaultEvictor(a) => Some((**a).clone()),
                _ => None,
            })
            .unwrap_or_default()
    }

    /// The `LowNodeUtilization` args, if configured.
    pub fn low_node_utilization(&self) -> Option<&LowNodeUtilizationArgs> {
        self.plugin_config.iter().find_map(|c| match &c.args {
            PluginArgs::LowNodeUtilization(a) => Some(&**a),
            _ => None,
        })
    }

    /// The `pluginConfig` args of `plugin`, if the profile configures it.
    pub fn plugin_args(&self, plugin: &str) -> Option<&PluginArgs> {
        self.plugin_config.iter().find(|c| c.name == plugin).map(|c| &c.args)
    }

    /// True when `LowNodeUtilization` is in `plugins.balance.enabled`.
    pub fn balances_low_node_utilization(&self) -> bool {
        self.plugins.balance.enabled.iter().any(|n| n == LOW_NODE_UTILIZATION)
    }
}

impl Policy {
    /// Whether some profile's LowNodeUtilization sets `metricsUtilization`
    /// (its plan then reads [`crate::Snapshot::measured`]).
    pub fn uses_measured_usage(&self) -> bool {
        self.profiles.iter().any(|p| p.low_node_utilization().is_some_and(|a| a.metrics_utilization.is_some()))
    }

    /// Reads and validates a policy from YAML text in any accepted form.
    pub fn from_yaml(text: &str) -> Result<Policy, PolicyError> {
        Policy::from_yaml_with_form(text).map(|(p, _)| p)
    }

    /// Like [`Policy::from_yaml`], also saying which form the text had.
    pub fn from_yaml_with_form(text: &str) -> Result<(Policy, PolicyForm), PolicyError> {
        let (policy, form) = Policy::from_yaml_unvalidated(text)?;
        policy.validate()?;
        Ok((policy, form))
    }

    /// Reads a policy in any accepted form without [`Policy::validate`]:
    /// for saying what a policy v0.36 refuses would do once fixed
    /// ([`Policy::without_invalid_plugins`]). Errors: YAML, a field of the
    /// wrong shape, an unknown field, a v1alpha1 policy.
    pub fn from_yaml_unvalidated(text: &str) -> Result<(Policy, PolicyForm), PolicyError> {
        let doc: Value = serde_yaml::from_str(text).map_err(|e| PolicyError::Yaml(e.to_string()))?;
        let root = Obj::new(&doc, "")?;
        if root.str("apiVersion")?.as_deref() == Some(v1alpha1::API_VERSION_V1ALPHA1) {
            return Err(v1alpha1::refusal("apiVersion", &doc));
        }
        let (policy, form) = if root.get("deschedulerPolicy").is_some() || root.map.contains_key("deschedulerPolicy") {
            let api = root.str("deschedulerPolicyAPIVersion")?;
            let api = api.as_deref().unwrap_or(helm::CHART_DEFAULT_API_VERSION);
            if api == v1alpha1::API_VERSION_V1ALPHA1 {
                return Err(v1alpha1::refusal(
                    "deschedulerPolicyAPIVersion",
                    root.get("deschedulerPolicy").unwrap_or(&Value::Null),
                ));
            }
            if api != API_VERSION {
                return Err(PolicyError::field(
                    "deschedulerPolicyAPIVersion",
                    format!("{api:?} is not supported (kdrift reads {API_VERSION} only)"),
                ));
            }
            let defaults: Value =
                serde_yaml::from_str(helm::CHART_DEFAULT_POLICY).map_err(|e| PolicyError::Yaml(e.to_string()))?;
            let user = root.get("deschedulerPolicy").cloned().unwrap_or(Value::Null);
            if !user.is_null() && !user.is_mapping() {
                return Err(PolicyError::field(
                    "deschedulerPolicy",
                    format!("expected a mapping, got {}", describe(&user)),
                ));
            }
            // `deschedulerPolicy:` left empty renders the chart defaults.
            let merged = if user.is_null() { defaults } else { helm::coalesce(&defaults, &user) };
            (read_policy(&Obj::new(&merged, "deschedulerPolicy")?, false)?, PolicyForm::HelmValues)
        } else if root.str("kind")?.as_deref() == Some("ConfigMap") {
            let data = root
                .obj("data")?
                .ok_or_else(|| PolicyError::field("data", "a descheduler ConfigMap needs data.\"policy.yaml\""))?;
            let inner =
                data.str("policy.yaml")?.ok_or_else(|| PolicyError::field("data.policy.yaml", "is required"))?;
            let (p, _) = Policy::from_yaml_unvalidated(&inner)?;
            return Ok((p, PolicyForm::ConfigMap));
        } else {
            (read_policy(&root, true)?, PolicyForm::Policy)
        };
        Ok((policy, form))
    }

    /// descheduler v0.36 `validateDeschedulerConfiguration` and the profile
    /// build (`NewProfile`): for every profile, a v0.36 plugin enabled at an
    /// extension point it does not implement (`profile "NAME" configures
    /// deschedule extension point of non-existing plugins:
    /// map[LowNodeUtilization:{}]`) or without its `pluginConfig`
    /// (`unable to create "NAME" profile: unable to build X plugin: unable
    /// to find "X" plugin config`); for every `pluginConfig` entry, the
    /// plugin's own validation error (`in profile NAME: <message>`); all
    /// collected; the policy node selector is also checked.
    ///
    /// Departure: a plugin name v0.36 does not register is accepted (an
    /// out-of-tree plugin; the plan names it as not modelled) unless it is a
    /// near miss of a v0.36 name (`plugin LowNodeUtilisation in pluginConfig
    /// not registered (did you mean LowNodeUtilization?)`).
    pub fn validate(&self) -> Result<(), PolicyError> {
        if let Some(sel) = &self.node_selector {
            StringSelector::parse(sel, "nodeSelector")?;
        }
        let mut errs = Vec::new();
        for profile in &self.profiles {
            errs.extend(profile_build_errors(profile));
            for pc in &profile.plugin_config {
                errs.extend(config_error(profile, pc));
            }
        }
        if errs.is_empty() {
            Ok(())
        } else {
            Err(PolicyError::Invalid(errs))
        }
    }

    /// This policy with LowNodeUtilization alone: every other plugin
    /// disabled and its `pluginConfig` dropped (DefaultEvictor kept). For
    /// questions about LowNodeUtilization's thresholds only (which pair
    /// moves pods off a node), so that other plugins' evictions — e.g.
    /// RemoveDuplicates evicting the same copies every night while the
    /// landing model puts them back — do not decide the answer.
    pub fn low_node_utilization_only(&self) -> Policy {
        let mut p = self.clone();
        for profile in &mut p.profiles {
            profile.plugins.deschedule.enabled.clear();
            profile.plugins.balance.enabled.retain(|n| n == LOW_NODE_UTILIZATION);
            profile.plugin_config.retain(|c| c.name == LOW_NODE_UTILIZATION || c.name == DEFAULT_EVICTOR);
        }
        p
    }

    /// This policy with every resource of every `LowNodeUtilization`
    /// profile's `thresholds` set to `threshold` and of its
    /// `targetThresholds` set to `target` (the configured resources are
    /// kept, nothing else changes); validated.
    pub fn with_uniform_thresholds(&self, threshold: f64, target: f64) -> Result<Policy, PolicyError> {
        let mut p = self.clone();
        for pc in p.profiles.iter_mut().flat_map(|pr| pr.plugin_config.iter_mut()) {
            if let PluginArgs::LowNodeUtilization(args) = &mut pc.args {
                args.thresholds.values_mut().for_each(|v| *v = threshold);
                args.target_thresholds.values_mut().for_each(|v| *v = target);
            }
        }
        p.validate()?;
        Ok(p)
    }

    /// Writes the policy as a `DeschedulerPolicy` YAML document (plain
    /// form, fields in a fixed order, unset fields left out).
    pub fn to_yaml(&self) -> Result<String, PolicyError> {
        serde_yaml::to_string(&self.to_value()).map_err(|e| PolicyError::Write(e.to_string()))
    }

    /// The policy as a YAML tree.
    pub fn to_value(&self) -> Value {
        let uint = |v: Option<u32>| v.map(|n| Value::Number(n.into()));
        let profiles: Vec<Value> = self.profiles.iter().map(profile_value).collect();
        mapping(vec![
            ("apiVersion", Some(string(API_VERSION))),
            ("kind", Some(string(KIND))),
            ("nodeSelector", self.node_selector.as_deref().map(string)),
            ("maxNoOfPodsToEvictPerNode", uint(self.max_no_of_pods_to_evict_per_node)),
            ("maxNoOfPodsToEvictPerNamespace", uint(self.max_no_of_pods_to_evict_per_namespace)),
            ("maxNoOfPodsToEvictTotal", uint(self.max_no_of_pods_to_evict_total)),
            ("evictionFailureEventNotification", self.eviction_failure_event_notification.map(Value::Bool)),
            ("gracePeriodSeconds", self.grace_period_seconds.map(|n| Value::Number(n.into()))),
            ("metricsCollector", self.metrics_collector.clone()),
            ("metricsProviders", self.metrics_providers.clone()),
            ("profiles", Some(Value::Sequence(profiles))),
        ])
    }
}

/// The v0.36 plugin `name` is a likely misspelling of (same name ignoring
/// case, or at most 3 edits away), if any.
fn near_known_plugin(name: &str) -> Option<&'static str> {
    KNOWN_PLUGINS.iter().copied().find(|k| k.eq_ignore_ascii_case(name) || strsim::levenshtein(k, name) <= 3)
}

/// The validation error of one `pluginConfig` entry of `profile` (its
/// args as v0.36 validates them; a near miss of a v0.36 plugin name), as
/// [`Policy::validate`] words it; `None` when it is fine (an out-of-tree
/// plugin included).
fn config_error(profile: &Profile, pc: &PluginConfig) -> Option<String> {
    if !KNOWN_PLUGINS.contains(&pc.name.as_str()) {
        // An out-of-tree plugin is reported by the plan as not modelled; a
        // near miss of a v0.36 name is a typo.
        return near_known_plugin(&pc.name).map(|known| {
            format!(
                "in profile {}: plugin {} in pluginConfig not registered (did you mean {known}?)",
                profile.name, pc.name
            )
        });
    }
    let checked = match &pc.args {
        PluginArgs::DefaultEvictor(a) => error::validated(&a.validate()),
        PluginArgs::LowNodeUtilization(a) => a.validate().map_err(|e| e.to_string()),
        PluginArgs::RemovePodsViolatingNodeAffinity(a) => a.validate(),
        PluginArgs::RemovePodsViolatingNodeTaints(a) => a.validate(),
        PluginArgs::RemovePodsViolatingInterPodAntiAffinity(a) => a.validate(),
        PluginArgs::PodLifeTime(a) => a.validate(),
        PluginArgs::RemoveFailedPods(a) => a.validate(),
        PluginArgs::RemovePodsHavingTooManyRestarts(a) => a.validate(),
        PluginArgs::RemoveDuplicates(a) => a.validate(),
        PluginArgs::RemovePodsViolatingTopologySpreadConstraint(a) => a.validate(),
        PluginArgs::HighNodeUtilization(a) => a.validate(),
        _ => Ok(()),
    };
    checked.err().map(|e| format!("in profile {}: {e}", profile.name))
}

/// The profile-build errors of descheduler v0.36 `NewProfile` for v0.36
/// plugins (unregistered names are left to the plan's warnings).
fn profile_build_errors(profile: &Profile) -> Vec<String> {
    let mut errs = Vec::new();
    let points = [
        ("deschedule", &profile.plugins.deschedule.enabled, Some(ExtensionPoint::Deschedule)),
        ("balance", &profile.plugins.balance.enabled, Some(ExtensionPoint::Balance)),
        ("filter", &profile.plugins.filter.enabled, None),
        ("preEvictionFilter", &profile.plugins.pre_eviction_filter.enabled, None),
    ];
    for (key, enabled, point) in points {
        let mut wrong: Vec<&str> = enabled
            .iter()
            .map(String::as_str)
            .filter(|n| KNOWN_PLUGINS.contains(n))
            .filter(|n| match point {
                Some(p) => extension_point_of(n) != Some(p),
                None => *n != DEFAULT_EVICTOR,
            })
            .collect();
        wrong.sort_unstable();
        wrong.dedup();
        if !wrong.is_empty() {
            // Go prints the `sets.Set[string]` difference as a map, keys sorted.
            let set: Vec<String> = wrong.iter().map(|n| format!("{n}:{{}}")).collect();
            let key = if key == "preEvictionFilter" { "preEvictionFilter" } else { key };
            errs.push(format!(
                "profile {:?} configures {key} extension point of non-existing plugins: map[{}]",
                profile.name,
                set.join(" ")
            ));
        }
    }
    let mut seen: Vec<&str> = Vec::new();
    for n in profile.plugins.deschedule.enabled.iter().chain(&profile.plugins.balance.enabled) {
        let n = n.as_str();
        if extension_point_of(n).is_some() && profile.plugin_args(n).is_none() && !seen.contains(&n) {
            seen.push(n);
            errs.push(format!(
                "unable to create {:?} profile: unable to build {n} plugin: unable to find {n:?} plugin config",
                profile.name
            ));
        }
    }
    errs
}

const TOP_FIELDS: [&str; 11] = [
    "apiVersion",
    "kind",
    "profiles",
    "nodeSelector",
    "maxNoOfPodsToEvictPerNode",
    "maxNoOfPodsToEvictPerNamespace",
    "maxNoOfPodsToEvictTotal",
    "evictionFailureEventNotification",
    "gracePeriodSeconds",
    "metricsCollector",
    "metricsProviders",
];

/// Reads the policy mapping; `require_type` asks for `apiVersion`/`kind`
/// (the Helm chart adds them itself).
fn read_policy(o: &Obj<'_>, require_type: bool) -> Result<Policy, PolicyError> {
    o.only(&TOP_FIELDS)?;
    match o.str("apiVersion")? {
        Some(v) if v == API_VERSION => {}
        Some(v) => {
            return Err(PolicyError::field(
                &o.at("apiVersion"),
                format!("{v:?} is not supported (kdrift reads {API_VERSION} only)"),
            ))
        }
        None if require_type => {
            return Err(PolicyError::field(&o.at("apiVersion"), format!("is required (expected {API_VERSION})")))
        }
        None => {}
    }
    if let Some(k) = o.str("kind")? {
        if k != KIND {
            return Err(PolicyError::field(&o.at("kind"), format!("expected {KIND}, got {k:?}")));
        }
    }
    let mut profiles = Vec::new();
    for (path, v) in o.list("profiles")? {
        profiles.push(read_profile(&Obj::new(v, &path)?)?);
    }
    let node_selector = selector::read_string_selector(o, "nodeSelector")?;
    Ok(Policy {
        profiles,
        node_selector,
        max_no_of_pods_to_evict_per_node: o.uint("maxNoOfPodsToEvictPerNode")?,
        max_no_of_pods_to_evict_per_namespace: o.uint("maxNoOfPodsToEvictPerNamespace")?,
        max_no_of_pods_to_evict_total: o.uint("maxNoOfPodsToEvictTotal")?,
        eviction_failure_event_notification: o.bool("evictionFailureEventNotification")?,
        grace_period_seconds: o.int("gracePeriodSeconds", 0, i64::MAX)?,
        metrics_collector: o.get("metricsCollector").cloned(),
        metrics_providers: o.get("metricsProviders").cloned(),
    })
}

fn read_profile(o: &Obj<'_>) -> Result<Profile, PolicyError> {
    o.only(&["name", "pluginConfig", "plugins"])?;
    let name = o.str("name")?.ok_or_else(|| PolicyError::field(&o.at("name"), "is required"))?;
    let mut plugin_config = Vec::new();
    for (path, v) in o.list("pluginConfig")? {
        let pc = Obj::new(v, &path)?;
        pc.only(&["name", "args"])?;
        let pname = pc.str("name")?.ok_or_else(|| PolicyError::field(&pc.at("name"), "is required"))?;
        let args = if KNOWN_PLUGINS.contains(&pname.as_str()) { pc.obj("args")? } else { None };
        let args = match pname.as_str() {
            DEFAULT_EVICTOR => PluginArgs::DefaultEvictor(Box::new(match &args {
                Some(a) => DefaultEvictorArgs::read(a)?,
                None => DefaultEvictorArgs::default(),
            })),
            LOW_NODE_UTILIZATION => PluginArgs::LowNodeUtilization(Box::new(match &args {
                Some(a) => LowNodeUtilizationArgs::read(a)?,
                None => LowNodeUtilizationArgs::default(),
            })),
            REMOVE_PODS_VIOLATING_NODE_AFFINITY => PluginArgs::RemovePodsViolatingNodeAffinity(Box::new(
                RemovePodsViolatingNodeAffinityArgs::read(args.as_ref())?,
            )),
            REMOVE_PODS_VIOLATING_NODE_TAINTS => PluginArgs::RemovePodsViolatingNodeTaints(Box::new(
                RemovePodsViolatingNodeTaintsArgs::read(args.as_ref())?,
            )),
            REMOVE_PODS_VIOLATING_INTER_POD_ANTI_AFFINITY => PluginArgs::RemovePodsViolatingInterPodAntiAffinity(
                Box::new(RemovePodsViolatingInterPodAntiAffinityArgs::read(args.as_ref())?),
            ),
            POD_LIFE_TIME => PluginArgs::PodLifeTime(Box::new(PodLifeTimeArgs::read(args.as_ref())?)),
            REMOVE_FAILED_PODS => PluginArgs::RemoveFailedPods(Box::new(RemoveFailedPodsArgs::read(args.as_ref())?)),
            REMOVE_PODS_HAVING_TOO_MANY_RESTARTS => PluginArgs::RemovePodsHavingTooManyRestarts(Box::new(
                RemovePodsHavingTooManyRestartsArgs::read(args.as_ref())?,
            )),
            REMOVE_DUPLICATES => PluginArgs::RemoveDuplicates(Box::new(RemoveDuplicatesArgs::read(args.as_ref())?)),
            REMOVE_PODS_VIOLATING_TOPOLOGY_SPREAD_CONSTRAINT => {
                PluginArgs::RemovePodsViolatingTopologySpreadConstraint(Box::new(
                    RemovePodsViolatingTopologySpreadConstraintArgs::read(args.as_ref())?,
                ))
            }
            HIGH_NODE_UTILIZATION => {
                PluginArgs::HighNodeUtilization(Box::new(HighNodeUtilizationArgs::read(args.as_ref())?))
            }
            _ => PluginArgs::Other(pc.get("args").cloned()),
        };
        plugin_config.push(PluginConfig { name: pname, args });
    }
    let mut plugins = Plugins::default();
    if let Some(p) = o.obj("plugins")? {
        p.only(&["presort", "sort", "deschedule", "balance", "filter", "preEvictionFilter", "preevictionfilter"])?;
        let set = |key: &str| -> Result<PluginSet, PolicyError> {
            match p.obj(key)? {
                None => Ok(PluginSet::default()),
                Some(s) => {
                    s.only(&["enabled", "disabled"])?;
                    Ok(PluginSet { enabled: s.str_list("enabled")?, disabled: s.str_list("disabled")? })
                }
            }
        };
        plugins.presort = set("presort")?;
        plugins.sort = set("sort")?;
        plugins.deschedule = set("deschedule")?;
        plugins.balance = set("balance")?;
        plugins.filter = set("filter")?;
        plugins.pre_eviction_filter = set("preEvictionFilter")?;
        let lower = set("preevictionfilter")?;
        plugins.pre_eviction_filter.enabled.extend(lower.enabled);
        plugins.pre_eviction_filter.disabled.extend(lower.disabled);
    }
    Ok(Profile { name, plugin_config, plugins })
}

fn profile_value(p: &Profile) -> Value {
    let configs: Vec<Value> = p
        .plugin_config
        .iter()
        .map(|c| {
            let args = match &c.args {
                PluginArgs::DefaultEvictor(a) => Some(a.to_value()),
                PluginArgs::LowNodeUtilization(a) => Some(a.to_value()),
                PluginArgs::RemovePodsViolatingNodeAffinity(a) => a.to_value(),
                PluginArgs::RemovePodsViolatingNodeTaints(a) => a.to_value(),
                PluginArgs::RemovePodsViolatingInterPodAntiAffinity(a) => a.to_value(),
                PluginArgs::PodLifeTime(a) => a.to_value(),
                PluginArgs::RemoveFailedPods(a) => a.to_value(),
                PluginArgs::RemovePodsHavingTooManyRestarts(a) => a.to_value(),
                PluginArgs::RemoveDuplicates(a) => a.to_value(),
                PluginArgs::RemovePodsViolatingTopologySpreadConstraint(a) => a.to_value(),
                PluginArgs::HighNodeUtilization(a) => a.to_value(),
                PluginArgs::Other(v) => v.clone(),
            };
            mapping(vec![("name", Some(string(&c.name))), ("args", args)])
        })
        .collect();
    let set = |s: &PluginSet| -> Option<Value> {
        (!s.enabled.is_empty() || !s.disabled.is_empty()).then(|| {
            mapping(vec![
                ("enabled", (!s.enabled.is_empty()).then(|| strings(&s.enabled))),
                ("disabled", (!s.disabled.is_empty()).then(|| strings(&s.disabled))),
            ])
        })
    };
    let pl = &p.plugins;
    mapping(vec![
        ("name", Some(string(&p.name))),
        ("pluginConfig", Some(Value::Sequence(configs))),
        (
            "plugins",
            Some(mapping(vec![
                ("presort", set(&pl.presort)),
                ("sort", set(&pl.sort)),
                ("deschedule", set(&pl.deschedule)),
                ("balance", set(&pl.balance)),
                ("filter", set(&pl.filter)),
                ("preEvictionFilter", set(&pl.pre_eviction_filter)),
            ])),
        ),
    ])
}
