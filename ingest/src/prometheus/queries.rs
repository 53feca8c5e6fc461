//! The PromQL a pull asks, by name: the default queries for the exporters
//! clusters run, and `--query NAME=PROMQL` overrides.
//!
//! | name | default | gives |
//! |---|---|---|
//! | `node_cpu` | node-exporter: non-idle `node_cpu_seconds_total` rate per instance | cores → millicores |
//! | `node_memory` | node-exporter: `MemTotal − MemAvailable` per instance | bytes |
//! | `pod_cpu` | cAdvisor (kubelet): `container_cpu_usage_seconds_total` rate per pod | cores → millicores |
//! | `pod_memory` | cAdvisor: `container_memory_working_set_bytes` per pod | bytes |
//! | `node_info` | kube-state-metrics: `kube_node_info` by node and internal_ip | the node ↔ instance map |
//!
//! The cAdvisor queries keep `container!=""` (the pod cgroup's own series)
//! and `container!="POD"` (the pause container) out, as metrics-server's
//! sum of containers does. Every query keeps the `node` and `instance`
//! labels, which name the node (`super::series`).

use super::error::PromError;

/// What a query's values are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Measure {
    /// A node's CPU, in cores.
    NodeCpu,
    /// A node's memory, in bytes.
    NodeMemory,
    /// A pod's CPU, in cores.
    PodCpu,
    /// A pod's memory working set, in bytes.
    PodMemory,
    /// `kube_node_info`'s labels (the values are ignored).
    NodeInfo,
}

/// The default queries, in the order they are asked (`node_info` first:
/// the others need its map).
pub const DEFAULTS: [(&str, Measure, &str); 5] = [
    ("node_info", Measure::NodeInfo, "max by (node, internal_ip) (kube_node_info)"),
    (
        "node_cpu",
        Measure::NodeCpu,
        r#"sum by (node, instance) (rate(node_cpu_seconds_total{mode!="idle",mode!="iowait",mode!="steal"}[5m]))"#,
    ),
    (
        "node_memory",
        Measure::NodeMemory,
        "sum by (node, instance) (node_memory_MemTotal_bytes - node_memory_MemAvailable_bytes)",
    ),
    (
        "pod_cpu",
        Measure::PodCpu,
        r#"sum by (namespace, pod, node, instance) (rate(container_cpu_usage_seconds_total{container!="",container!="POD"}[5m]))"#,
    ),
    (
        "pod_memory",
        Measure::PodMemory,
        r#"sum by (namespace, pod, node, instance) (container_memory_working_set_bytes{container!="",container!="POD"})"#,
    ),
];

/// One query of a pull.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NamedPromql {
    /// Its name (`node_cpu`, …).
    pub name: &'static str,
    /// What its values are.
    pub measure: Measure,
    /// The PromQL.
    pub promql: String,
}

/// The queries of a pull: the defaults with `overrides` (`NAME=PROMQL`; an
/// empty PROMQL leaves that query out, e.g. `pod_cpu=` where no cAdvisor
/// metrics are scraped).
///
/// # Errors
/// [`PromError::Options`] for an unknown name, a name given twice, or no
/// usage query left.
pub fn resolve(overrides: &[(String, String)]) -> Result<Vec<NamedPromql>, PromError> {
    let names: Vec<&str> = DEFAULTS.iter().map(|d| d.0).collect();
    let mut out: Vec<NamedPromql> =
        DEFAULTS.iter().map(|&(name, measure, q)| NamedPromql { name, measure, promql: q.to_string() }).collect();
    let mut seen = std::collections::HashSet::new();
    for (name, promql) in overrides {
        let Some(q) = out.iter_mut().find(|q| q.name == name.as_str()) else {
            return Err(PromError::Options(format!(
                "--query {name}=…: unknown query name; expected one of {}",
                names.join(", ")
            )));
        };
        if !seen.insert(name.clone()) {
            return Err(PromError::Options(format!("--query {name} is given twice; give it once")));
        }
        q.promql = promql.trim().to_string();
    }
    out.retain(|q| !q.promql.is_empty());
    if !out.iter().any(|q| q.measure != Measure::NodeInfo) {
        return Err(PromError::Options("every usage query is left out (--query NAME= with nothing after =)".into()));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overrides_replace_or_drop_defaults_and_unknown_names_are_refused() {
        let q = resolve(&[("pod_cpu".into(), String::new()), ("node_memory".into(), "up".into())]).expect("ok");
        let shown: Vec<(&str, &str)> = q.iter().map(|q| (q.name, q.promql.as_str())).collect();
        assert_eq!(shown.len(), 4);
        assert_eq!(shown[2], ("node_memory", "up"));
        assert!(!shown.iter().any(|(n, _)| *n == "pod_cpu"));
        let err = resolve(&[("cpu".into(), "x".into())]).expect_err("unknown").to_string();
        assert_eq!(
            err,
            "--query cpu=…: unknown query name; expected one of node_info, node_cpu, node_memory, pod_cpu, pod_memory"
        );
    }
}
