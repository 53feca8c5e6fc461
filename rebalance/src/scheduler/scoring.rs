//! The scheduler's scoring configuration: NodeResourcesFit's
//! `scoringStrategy` (LeastAllocated, MostAllocated,
//! RequestedToCapacityRatio, each over weighted resources) and the score
//! plugins' weights, as a KubeSchedulerConfiguration sets them — pure data
//! ([`ScoringConfig`]), read by [`ScoringConfig::from_yaml`]
//! (`scoring_config.rs`) and used by every score the model gives.
//!
//! Sources (kube-scheduler, `pkg/scheduler/framework/plugins/noderesources`):
//! `resource_allocation.go` (which amounts each resource scores on),
//! `least_allocated.go`, `most_allocated.go`, `requested_to_capacity_ratio.go`
//! and `helper/shape_score.go` (the broken-linear shape);
//! `apis/config/v1/defaults.go` (`SetDefaults_NodeResourcesFitArgs`) and
//! `apis/config/validation/validation_pluginargs.go`
//! (`ValidateNodeResourcesFitArgs`) for defaults and messages.
//!
//! The default ([`ScoringConfig::default`]) is the default profile: LeastAllocated
//! over cpu and memory with weight 1 each, and the default plugin weights;
//! the scheduler model keeps its fast path for it
//! ([`ScoringConfig::is_default`]).

use serde::Serialize;

use crate::model::resources::{CPU, EPHEMERAL_STORAGE, MEMORY};

use super::resources_fit::MAX_NODE_SCORE;
use super::NodeSlot;

/// `config.MaxCustomPriorityScore`: shape scores are 0–10, scaled to the
/// node score range (× 10).
pub const MAX_CUSTOM_PRIORITY_SCORE: i64 = 10;

/// NodeResourcesFit's scoring strategy type (`scoringStrategy.type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum StrategyType {
    /// Favors the nodes with the most free resources (the default).
    LeastAllocated,
    /// Favors the nodes with the fewest free resources: bin packing, what
    /// descheduler's HighNodeUtilization is meant to run with.
    MostAllocated,
    /// Scores each resource's utilization through a user-defined shape.
    RequestedToCapacityRatio,
}

impl StrategyType {
    /// The name as configured (`MostAllocated`).
    pub fn name(self) -> &'static str {
        match self {
            StrategyType::LeastAllocated => "LeastAllocated",
            StrategyType::MostAllocated => "MostAllocated",
            StrategyType::RequestedToCapacityRatio => "RequestedToCapacityRatio",
        }
    }

    /// The type called `name` (case-sensitive, as upstream).
    pub fn parse(name: &str) -> Option<StrategyType> {
        [StrategyType::LeastAllocated, StrategyType::MostAllocated, StrategyType::RequestedToCapacityRatio]
            .into_iter()
            .find(|t| t.name() == name)
    }
}

/// One resource the strategy scores, with its weight (`resources[]`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ResourceSpec {
    /// The resource name (`cpu`, `memory`, `nvidia.com/gpu`, …).
    pub name: String,
    /// Its weight, 1–100 (0 in a file defaults to 1).
    pub weight: i64,
}

/// One point of RequestedToCapacityRatio's shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ShapePoint {
    /// Utilization in percent, 0–100.
    pub utilization: i64,
    /// Score at that utilization, 0–10 (scaled × 10 to 0–100 when scoring).
    pub score: i64,
}

/// NodeResourcesFit's `scoringStrategy`, defaulted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ScoringStrategy {
    /// The type.
    #[serde(rename = "type")]
    pub kind: StrategyType,
    /// The scored resources, in order (default cpu and memory, weight 1).
    pub resources: Vec<ResourceSpec>,
    /// RequestedToCapacityRatio's shape (empty for the other types).
    pub shape: Vec<ShapePoint>,
}

impl Default for ScoringStrategy {
    fn default() -> Self {
        ScoringStrategy { kind: StrategyType::LeastAllocated, resources: default_resources(), shape: Vec::new() }
    }
}

/// `defaultResourceSpec`: cpu and memory, weight 1 each.
pub(crate) fn default_resources() -> Vec<ResourceSpec> {
    vec![ResourceSpec { name: CPU.to_string(), weight: 1 }, ResourceSpec { name: MEMORY.to_string(), weight: 1 }]
}

/// The score plugins' weights (0: the plugin does not score). Defaults: the
/// v1 default profile (`apis/config/v1/default_plugins.go`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ScoreWeights {
    /// NodeResourcesFit (1).
    pub node_resources_fit: i64,
    /// NodeResourcesBalancedAllocation (1).
    pub balanced_allocation: i64,
    /// TaintToleration (3).
    pub taint_toleration: i64,
    /// NodeAffinity (2).
    pub node_affinity: i64,
    /// InterPodAffinity (2).
    pub inter_pod_affinity: i64,
    /// PodTopologySpread (2), for its score where modelled.
    pub pod_topology_spread: i64,
}

impl Default for ScoreWeights {
    fn default() -> Self {
        ScoreWeights {
            node_resources_fit: 1,
            balanced_allocation: 1,
            taint_toleration: 3,
            node_affinity: 2,
            inter_pod_affinity: 2,
            pod_topology_spread: 2,
        }
    }
}

impl ScoreWeights {
    /// The plugin names and their weight, in the default profile's order.
    pub fn named(&self) -> [(&'static str, i64); 6] {
        [
            ("TaintToleration", self.taint_toleration),
            ("NodeAffinity", self.node_affinity),
            ("NodeResourcesFit", self.node_resources_fit),
            ("NodeResourcesBalancedAllocation", self.balanced_allocation),
            ("PodTopologySpread", self.pod_topology_spread),
            ("InterPodAffinity", self.inter_pod_affinity),
        ]
    }

    /// The weight slot of the plugin called `name`, if modelled.
    pub(crate) fn slot(&mut self, name: &str) -> Option<&mut i64> {
        match name {
            "TaintToleration" => Some(&mut self.taint_toleration),
            "NodeAffinity" => Some(&mut self.node_affinity),
            "NodeResourcesFit" => Some(&mut self.node_resources_fit),
            "NodeResourcesBalancedAllocation" => Some(&mut self.balanced_allocation),
            "PodTopologySpread" => Some(&mut self.pod_topology_spread),
            "InterPodAffinity" => Some(&mut self.inter_pod_affinity),
            _ => None,
        }
    }
}

/// How the scheduler scores feasible nodes: NodeResourcesFit's strategy and
/// the plugin weights. Pure data; [`Default`] is the default profile.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Default)]
pub struct ScoringConfig {
    /// NodeResourcesFit's scoring strategy.
    pub strategy: ScoringStrategy,
    /// The score plugins' weights.
    pub weights: ScoreWeights,
    /// Where it was read from (a file path, `--scoring most-allocated`),
    /// `None` for the default.
    pub source: Option<String>,
}

impl ScoringConfig {
    /// The default profile with NodeResourcesFit's strategy `kind` over cpu
    /// and memory (weight 1); RequestedToCapacityRatio gets upstream's
    /// bin-packing example shape `0 → 0, 100 → 10`.
    pub fn with_strategy(kind: StrategyType) -> ScoringConfig {
        let shape = match kind {
            StrategyType::RequestedToCapacityRatio => {
                vec![ShapePoint { utilization: 0, score: 0 }, ShapePoint { utilization: 100, score: 10 }]
            }
            _ => Vec::new(),
        };
        ScoringConfig {
            strategy: ScoringStrategy { kind, resources: default_resources(), shape },
            weights: ScoreWeights::default(),
            source: None,
        }
    }

    /// True for the default profile's scoring (whatever the `source`): the
    /// scheduler model's bounded fast path applies.
    pub fn is_default(&self) -> bool {
        self.strategy == ScoringStrategy::default() && self.weights == ScoreWeights::default()
    }

    /// One line for headers: `NodeResourcesFit MostAllocated (cpu 1, memory
    /// 1)`, the shape for RequestedToCapacityRatio, then the weights that
    /// differ from the default profile.
    pub fn describe(&self) -> String {
        let s = &self.strategy;
        let resources: Vec<String> = s.resources.iter().map(|r| format!("{} {}", r.name, r.weight)).collect();
        let mut out = format!("NodeResourcesFit {} ({})", s.kind.name(), resources.join(", "));
        if !s.shape.is_empty() {
            let points: Vec<String> = s.shape.iter().map(|p| format!("{} % → {}", p.utilization, p.score)).collect();
            out.push_str(&format!(", shape {}", points.join(", ")));
        }
        let defaults = ScoreWeights::default().named();
        let changed: Vec<String> = self
            .weights
            .named()
            .iter()
            .zip(defaults)
            .filter(|(now, was)| now.1 != was.1)
            .map(|((name, w), _)| if *w == 0 { format!("{name} off") } else { format!("{name} ×{w}") })
            .collect();
        if !changed.is_empty() {
            out.push_str(&format!("; weights {}", changed.join(", ")));
        }
        out
    }
}

/// `schedutil.IsScalarResourceName`: extended resources (a domain-prefixed
/// name outside `kubernetes.io/`, not `requests.`), hugepages, prefixed
/// native (`*kubernetes.io/*`) and attachable-volume resources. A pod that
/// does not request such a resource is not scored on it.
pub(crate) fn is_scalar(name: &str) -> bool {
    let prefixed_native = name.contains("kubernetes.io/");
    let extended = name.contains('/') && !prefixed_native && !name.starts_with("requests.");
    extended || prefixed_native || name.starts_with("hugepages-") || name.starts_with("attachable-volumes-")
}

/// `(allocatable, requested)` of one resource for the score: the node's
/// non-zero requested cpu/memory plus the pod's non-zero request; for other
/// resources the node's requested plus the pod's request; `(0, 0)` (skipped)
/// for a scalar resource the pod does not request or a resource the node
/// does not list. Source: `resourceAllocationScorer.calculateResourceAllocatableRequest`
/// (`useRequested: false`) and `calculatePodResourceRequest`.
fn allocatable_requested(slot: &NodeSlot<'_>, pod: &crate::model::pod::PodInfo, name: &str) -> (i64, i64) {
    let non_zero = matches!(name, CPU | MEMORY);
    let pod_request = if non_zero { pod.non_zero_requests.get(name) } else { pod.requests.get(name) };
    if pod_request == 0 && is_scalar(name) {
        return (0, 0);
    }
    let alloc = &slot.node.allocatable;
    if non_zero {
        return (alloc.get(name), slot.non_zero_requested.get(name).saturating_add(pod_request));
    }
    if name == EPHEMERAL_STORAGE || alloc.contains(name) {
        return (alloc.get(name), slot.requested.get(name).saturating_add(pod_request));
    }
    (0, 0)
}

/// `leastRequestedScore`: `(capacity − requested) × 100 / capacity`, 0 when over.
fn least_requested(requested: i64, capacity: i64) -> i64 {
    if capacity <= 0 || requested > capacity {
        return 0;
    }
    ((i128::from(capacity) - i128::from(requested)) * i128::from(MAX_NODE_SCORE) / i128::from(capacity)) as i64
}

/// `mostRequestedScore`: `min(requested, capacity) × 100 / capacity`.
fn most_requested(requested: i64, capacity: i64) -> i64 {
    if capacity <= 0 {
        return 0;
    }
    let requested = requested.clamp(0, capacity);
    (i128::from(requested) * i128::from(MAX_NODE_SCORE) / i128::from(capacity)) as i64
}

/// `scaledUtilization(requested, capacity, 100)`: exact, within 0–100.
fn scaled_utilization(requested: i64, capacity: i64) -> i64 {
    if capacity <= 0 || requested <= 0 {
        return 0;
    }
    if requested >= capacity {
        return 100;
    }
    (i128::from(requested) * 100 / i128::from(capacity)) as i64
}

/// `helper.BuildBrokenLinearFunction` on `shape` with scores already scaled:
/// the first point's score below it, the last's above, linear (integer
/// division, truncating toward zero as Go does) in between.
pub(crate) fn broken_linear(shape: &[ShapePoint], p: i64) -> i64 {
    for (i, point) in shape.iter().enumerate() {
        if p <= point.utilization {
            if i == 0 {
                return point.score;
            }
            let prev = shape[i - 1];
            return prev.score
                + (point.score - prev.score) * (p - prev.utilization) / (point.utilization - prev.utilization);
        }
    }
    shape.last().map_or(0, |p| p.score)
}

/// NodeResourcesFit's score (0–100) of `pod` on `slot` with `strategy`.
/// Per resource with a positive allocatable: LeastAllocated and
/// MostAllocated weigh each resource's score and divide the sum by the
/// weights (integer division); RequestedToCapacityRatio maps the utilization
/// through the shape (× 10), counts only positive resource scores, and rounds
/// the weighted mean (half away from zero, Go's `math.Round`). No resource
/// scored: 0.
pub(crate) fn fit_score(strategy: &ScoringStrategy, slot: &NodeSlot<'_>, pod: &crate::model::pod::PodInfo) -> i64 {
    let scale = MAX_NODE_SCORE / MAX_CUSTOM_PRIORITY_SCORE;
    let scaled: Vec<ShapePoint> =
        strategy.shape.iter().map(|p| ShapePoint { utilization: p.utilization, score: p.score * scale }).collect();
    let (mut score, mut weights): (i128, i128) = (0, 0);
    for r in &strategy.resources {
        let (capacity, requested) = allocatable_requested(slot, pod, &r.name);
        if capacity == 0 {
            continue;
        }
        let one = match strategy.kind {
            StrategyType::LeastAllocated => least_requested(requested, capacity),
            StrategyType::MostAllocated => most_requested(requested, capacity),
            StrategyType::RequestedToCapacityRatio => {
                let utilization = if requested > capacity { 100 } else { scaled_utilization(requested, capacity) };
                let s = broken_linear(&scaled, utilization);
                if s <= 0 {
                    continue;
                }
                s
            }
        };
        score += i128::from(one) * i128::from(r.weight);
        weights += i128::from(r.weight);
    }
    if weights == 0 {
        return 0;
    }
    match strategy.kind {
        StrategyType::RequestedToCapacityRatio => ((2 * score + weights) / (2 * weights)) as i64,
        _ => (score / weights) as i64,
    }
}

/// The supported types, as `field.NotSupported` lists them.
const SUPPORTED: &str = "\"LeastAllocated\", \"MostAllocated\", \"RequestedToCapacityRatio\"";

/// `ValidateNodeResourcesFitArgs`' scoring-strategy part, on the values as
/// read and defaulted (`type` as written, `requestedToCapacityRatio` absent
/// or its shape): every error as apimachinery's `field.Error` prints it,
/// under `path` (`profiles[0].pluginConfig[0].args`).
pub(crate) fn validate_strategy(
    path: &str,
    kind: &str,
    resources: &[ResourceSpec],
    shape: Option<&[ShapePoint]>,
) -> Vec<String> {
    let strategy = if path.is_empty() { "scoringStrategy".to_string() } else { format!("{path}.scoringStrategy") };
    let mut errs = Vec::new();
    if StrategyType::parse(kind).is_none() {
        errs.push(format!("{strategy}.type: Unsupported value: {kind:?}: supported values: {SUPPORTED}"));
    }
    for (i, r) in resources.iter().enumerate() {
        if r.weight <= 0 || r.weight > 100 {
            errs.push(format!(
                "{strategy}.resources[{i}].weight: Invalid value: {}: resource weight of {} not in valid range (0, 100]",
                r.weight, r.name
            ));
        }
    }
    let ratio = format!("{strategy}.requestedToCapacityRatio");
    if kind == StrategyType::RequestedToCapacityRatio.name() {
        match shape {
            None => {
                errs.push(format!("{ratio}: Required value: must be specified when type is RequestedToCapacityRatio"))
            }
            Some(shape) => errs.extend(validate_shape(shape, &format!("{ratio}.shape"))),
        }
    } else if shape.is_some() {
        errs.push(format!("{ratio}: Forbidden: must be nil when type is not RequestedToCapacityRatio"));
    }
    errs
}

/// `validateFunctionShape`: at least one point, utilizations strictly
/// increasing (first offender only), utilization 0–100, score 0–10.
fn validate_shape(shape: &[ShapePoint], path: &str) -> Vec<String> {
    if shape.is_empty() {
        return vec![format!("{path}: Required value: at least one point must be specified")];
    }
    let mut errs = Vec::new();
    if let Some(i) = (1..shape.len()).find(|&i| shape[i - 1].utilization >= shape[i].utilization) {
        errs.push(format!(
            "{path}[{i}].utilization: Invalid value: {}: values must be sorted in increasing order",
            shape[i].utilization
        ));
    }
    for (i, p) in shape.iter().enumerate() {
        if !(0..=100).contains(&p.utilization) {
            errs.push(format!(
                "{path}[{i}].utilization: Invalid value: {}: not in valid range [0, 100]",
                p.utilization
            ));
        }
        if !(0..=MAX_CUSTOM_PRIORITY_SCORE).contains(&p.score) {
            errs.push(format!("{path}[{i}].score: Invalid value: {}: not in valid range [0, 10]", p.score));
        }
    }
    errs
}
