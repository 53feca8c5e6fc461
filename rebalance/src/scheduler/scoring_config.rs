//! Reading a [`ScoringConfig`] from a KubeSchedulerConfiguration
//! (`kubescheduler.config.k8s.io/v1`) YAML file: the profile of
//! `default-scheduler` (the one that schedules replacement pods), its
//! NodeResourcesFit `pluginConfig` args (`scoringStrategy`) and its score
//! plugins' weights.
//!
//! Every field of the sections read is checked (an unknown one is refused
//! with its path, `profiles[0].pluginConfig[0].args.scoringStrategy.typo`);
//! the other top-level settings (leader election, client connection,
//! extenders, …) are accepted and not modelled, as are other plugins' args.
//! Defaults are upstream's `SetDefaults_NodeResourcesFitArgs` (no strategy:
//! LeastAllocated; no resources: cpu and memory; weight 0: 1), then
//! `ValidateNodeResourcesFitArgs` with its messages under
//! `profiles[i].pluginConfig[j].args`, aggregated as
//! `ValidateKubeSchedulerConfiguration` prints them.
//!
//! Plugin weights, as the framework resolves them (`getScoreWeights`,
//! `expandMultiPointPlugins`, v1 `mergePlugins`): a plugin listed in
//! `plugins.score.enabled` takes that weight; otherwise the default
//! profile's multi-point plugins (minus `multiPoint.disabled`, `*` for all,
//! plus `multiPoint.enabled`) score with the listed or default weight unless
//! `plugins.score.disabled` names them (or `*`); a weight of 0 means 1.
//! Disabling filter plugins is not modelled (the filters always run).

use serde_yaml::Value;

use super::scoring::{
    default_resources, validate_strategy, ResourceSpec, ScoreWeights, ScoringConfig, ScoringStrategy, ShapePoint,
    StrategyType,
};
use crate::policy::reader::{as_int, Obj};
use crate::policy::PolicyError;

/// The API version read.
pub const SCHEDULER_API_VERSION: &str = "kubescheduler.config.k8s.io/v1";

/// The profile whose scoring the landing simulation uses.
pub const DEFAULT_SCHEDULER: &str = "default-scheduler";

/// Top-level fields of KubeSchedulerConfiguration v1.
const TOP_FIELDS: &[&str] = &[
    "apiVersion",
    "kind",
    "parallelism",
    "leaderElection",
    "clientConnection",
    "healthzBindAddress",
    "metricsBindAddress",
    "enableProfiling",
    "enableContentionProfiling",
    "percentageOfNodesToScore",
    "podInitialBackoffSeconds",
    "podMaxBackoffSeconds",
    "profiles",
    "extenders",
    "delayCacheUntilActive",
];

/// The extension points of `plugins`.
const EXTENSION_POINTS: &[&str] = &[
    "preEnqueue",
    "queueSort",
    "preFilter",
    "filter",
    "postFilter",
    "preScore",
    "score",
    "reserve",
    "permit",
    "preBind",
    "bind",
    "postBind",
    "multiPoint",
];

/// One `plugins.<point>` set: enabled `(name, weight)` and disabled names.
#[derive(Default)]
struct PluginSet {
    enabled: Vec<(String, i64)>,
    disabled: Vec<String>,
}

impl PluginSet {
    fn read(o: Option<Obj<'_>>) -> Result<PluginSet, PolicyError> {
        let Some(o) = o else { return Ok(PluginSet::default()) };
        o.only(&["enabled", "disabled"])?;
        let read = |key: &str| -> Result<Vec<(String, i64)>, PolicyError> {
            o.list(key)?
                .into_iter()
                .map(|(path, v)| {
                    let p = Obj::new(v, &path)?;
                    p.only(&["name", "weight"])?;
                    let name = p.str("name")?.ok_or_else(|| PolicyError::field(&p.at("name"), "required"))?;
                    Ok((name, p.int("weight", 0, i64::from(i32::MAX))?.unwrap_or(0)))
                })
                .collect()
        };
        Ok(PluginSet { enabled: read("enabled")?, disabled: read("disabled")?.into_iter().map(|(n, _)| n).collect() })
    }

    fn disables(&self, name: &str) -> bool {
        self.disabled.iter().any(|d| d == name || d == "*")
    }

    fn weight_of(&self, name: &str) -> Option<i64> {
        self.enabled.iter().find(|(n, _)| n == name).map(|(_, w)| *w)
    }
}

impl ScoringConfig {
    /// Reads a KubeSchedulerConfiguration (v1) YAML text; `source` is kept
    /// in [`ScoringConfig::source`] (the file path). No profile: the
    /// default profile.
    ///
    /// # Errors
    /// [`PolicyError::Yaml`] for text that is not YAML,
    /// [`PolicyError::Field`] for a wrong or unknown field (with its path),
    /// a wrong `apiVersion`/`kind`, or no `default-scheduler` profile;
    /// [`PolicyError::Invalid`] with kube-scheduler's validation messages.
    pub fn from_yaml(text: &str, source: &str) -> Result<ScoringConfig, PolicyError> {
        let doc: Value = serde_yaml::from_str(text).map_err(|e| PolicyError::Yaml(e.to_string()))?;
        let root = Obj::new(&doc, "")?;
        root.only(TOP_FIELDS)?;
        match root.str("apiVersion")?.as_deref() {
            Some(SCHEDULER_API_VERSION) => {}
            Some(other) => {
                return Err(PolicyError::field(
                    "apiVersion",
                    format!("{other:?} is not supported (kdrift reads {SCHEDULER_API_VERSION} only)"),
                ))
            }
            None => return Err(PolicyError::field("apiVersion", format!("required ({SCHEDULER_API_VERSION})"))),
        }
        match root.str("kind")?.as_deref() {
            Some("KubeSchedulerConfiguration") => {}
            other => {
                return Err(PolicyError::field(
                    "kind",
                    format!(
                        "expected KubeSchedulerConfiguration, got {}",
                        other.map_or("nothing".into(), |k| format!("{k:?}"))
                    ),
                ))
            }
        }
        let profiles = root.list("profiles")?;
        let mut config = ScoringConfig { source: Some(source.to_string()), ..ScoringConfig::default() };
        let mut found = profiles.is_empty();
        let mut errors = Vec::new();
        let mut names: Vec<String> = Vec::new();
        for (path, v) in &profiles {
            let p = Obj::new(v, path)?;
            p.only(&["schedulerName", "percentageOfNodesToScore", "plugins", "pluginConfig"])?;
            let name = p.str("schedulerName")?.unwrap_or_else(|| DEFAULT_SCHEDULER.to_string());
            // `ValidateKubeSchedulerConfiguration`: scheduler names are unique.
            if names.contains(&name) {
                errors.push(format!("{path}.schedulerName: Duplicate value: {name:?}"));
            }
            names.push(name.clone());
            // Every profile is validated; the default scheduler's is used.
            let (strategy, weights) = read_profile(&p, &mut errors)?;
            if name == DEFAULT_SCHEDULER && !found {
                found = true;
                config.strategy = strategy;
                config.weights = weights;
            }
        }
        if !errors.is_empty() {
            return Err(PolicyError::Invalid(errors));
        }
        if !found {
            return Err(PolicyError::field(
                "profiles",
                format!("no profile has schedulerName {DEFAULT_SCHEDULER} (the scheduler of the replacement pods)"),
            ));
        }
        Ok(config)
    }
}

/// One profile's strategy and weights; validation errors go to `errors`.
fn read_profile(p: &Obj<'_>, errors: &mut Vec<String>) -> Result<(ScoringStrategy, ScoreWeights), PolicyError> {
    let mut strategy = ScoringStrategy::default();
    let mut seen: Vec<String> = Vec::new();
    for (path, v) in p.list("pluginConfig")? {
        let c = Obj::new(v, &path)?;
        c.only(&["name", "args"])?;
        let name = c.str("name")?.ok_or_else(|| PolicyError::field(&c.at("name"), "required"))?;
        if seen.contains(&name) {
            errors.push(format!("{path}: Duplicate value: {name:?}"));
        }
        seen.push(name.clone());
        if name == "NodeResourcesFit" {
            let args_path = c.at("args");
            let args = match c.get("args") {
                Some(v) => Some(Obj::new(v, &args_path)?),
                None => None,
            };
            strategy = read_fit_args(args, &args_path, errors)?;
        }
    }
    let weights = match p.obj("plugins")? {
        Some(plugins) => {
            plugins.only(EXTENSION_POINTS)?;
            let mut sets = Vec::new();
            for point in EXTENSION_POINTS {
                sets.push((*point, PluginSet::read(plugins.obj(point)?)?));
            }
            let set = |name: &str| sets.iter().find(|(n, _)| *n == name).map(|(_, s)| s);
            let empty = PluginSet::default();
            resolve_weights(set("score").unwrap_or(&empty), set("multiPoint").unwrap_or(&empty))
        }
        None => ScoreWeights::default(),
    };
    Ok((strategy, weights))
}

/// The score weights of the modelled plugins (see the module docs).
fn resolve_weights(score: &PluginSet, multi_point: &PluginSet) -> ScoreWeights {
    let defaults = ScoreWeights::default();
    let mut out = defaults;
    // A listed weight of 0 means 1 (`getScoreWeights`).
    let listed = |w: i64| if w == 0 { 1 } else { w };
    for (name, default_weight) in defaults.named() {
        let weight = match score.weight_of(name) {
            Some(w) => listed(w),
            None => {
                let in_multi_point = multi_point.weight_of(name);
                if (in_multi_point.is_none() && multi_point.disables(name)) || score.disables(name) {
                    0
                } else {
                    in_multi_point.map_or(default_weight, listed)
                }
            }
        };
        if let Some(slot) = out.slot(name) {
            *slot = weight;
        }
    }
    out
}

/// NodeResourcesFit's args, defaulted and validated.
fn read_fit_args(args: Option<Obj<'_>>, path: &str, errors: &mut Vec<String>) -> Result<ScoringStrategy, PolicyError> {
    let Some(args) = args else { return Ok(ScoringStrategy::default()) };
    args.only(&["apiVersion", "kind", "ignoredResources", "ignoredResourceGroups", "scoringStrategy"])?;
    for key in ["ignoredResources", "ignoredResourceGroups"] {
        if !args.str_list(key)?.is_empty() {
            return Err(PolicyError::field(
                &args.at(key),
                "not modelled by kdrift (NodeResourcesFit's filter would skip these resources); remove it to simulate",
            ));
        }
    }
    let Some(s) = args.obj("scoringStrategy")? else { return Ok(ScoringStrategy::default()) };
    s.only(&["type", "resources", "requestedToCapacityRatio"])?;
    let kind = s.str("type")?.unwrap_or_default();
    let mut resources = Vec::new();
    for (rpath, v) in s.list("resources")? {
        let r = Obj::new(v, &rpath)?;
        r.only(&["name", "weight"])?;
        let name = r.str("name")?.unwrap_or_default();
        let weight = r.int("weight", i64::MIN, i64::MAX)?.unwrap_or(0);
        resources.push(ResourceSpec { name, weight: if weight == 0 { 1 } else { weight } });
    }
    if resources.is_empty() {
        resources = default_resources();
    }
    let shape = match s.get("requestedToCapacityRatio") {
        None => None,
        Some(v) => {
            let o = Obj::new(v, &s.at("requestedToCapacityRatio"))?;
            o.only(&["shape"])?;
            let mut points = Vec::new();
            for (ppath, v) in o.list("shape")? {
                let p = Obj::new(v, &ppath)?;
                p.only(&["utilization", "score"])?;
                let int = |key: &str| -> Result<i64, PolicyError> {
                    match p.get(key) {
                        Some(v) => as_int(v, &p.at(key), i64::from(i32::MIN), i64::from(i32::MAX)),
                        None => Ok(0),
                    }
                };
                points.push(ShapePoint { utilization: int("utilization")?, score: int("score")? });
            }
            Some(points)
        }
    };
    let found = validate_strategy(path, &kind, &resources, shape.as_deref());
    if !found.is_empty() {
        errors.extend(found);
        return Ok(ScoringStrategy::default());
    }
    let kind = StrategyType::parse(&kind).unwrap_or(StrategyType::LeastAllocated);
    Ok(ScoringStrategy { kind, resources, shape: shape.unwrap_or_default() })
}

/// `--scoring NAME`: `least-allocated`, `most-allocated` or
/// `requested-to-capacity-ratio` (also the upstream spelling), as
/// [`ScoringConfig::with_strategy`] over cpu and memory.
///
/// # Errors
/// An unknown name, listing the accepted ones.
pub fn scoring_shorthand(name: &str) -> Result<ScoringConfig, String> {
    let kind = match name {
        "least-allocated" | "LeastAllocated" => StrategyType::LeastAllocated,
        "most-allocated" | "MostAllocated" => StrategyType::MostAllocated,
        "requested-to-capacity-ratio" | "RequestedToCapacityRatio" => StrategyType::RequestedToCapacityRatio,
        other => {
            return Err(format!(
                "--scoring {other:?}: expected least-allocated, most-allocated or requested-to-capacity-ratio"
            ))
        }
    };
    let mut config = ScoringConfig::with_strategy(kind);
    config.source = Some(format!("--scoring {name}"));
    Ok(config)
}
