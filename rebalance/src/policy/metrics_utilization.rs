//! LowNodeUtilization's `metricsUtilization`: classify on measured usage
//! instead of requests, and its validation.
//!
//! Source: descheduler v0.36 `nodeutilization/types.go` (`MetricsUtilization`,
//! `Prometheus`), `validation.go` (`ValidateLowNodeUtilizationArgs`),
//! `lownodeutilization.go` (`validatePrometheusMetricsUtilization`, run when
//! the plugin is built, fatal at startup) and `usageclients.go`
//! (`newUsageClient`: "metrics source is empty", "unrecognized metrics
//! source"); `../shared/reference/descheduler-plugins.md` §4.1.

use serde::Serialize;
use serde_yaml::Value;

use super::error::PolicyError;
use super::lnu::ResourceThresholds;
use super::reader::{mapping, string, Obj};

/// `source: KubernetesMetrics`: usage from metrics-server (`metrics.k8s.io`).
pub const KUBERNETES_METRICS: &str = "KubernetesMetrics";
/// `source: Prometheus`: usage from one Prometheus instant query.
pub const PROMETHEUS_METRICS: &str = "Prometheus";
/// The one threshold key the Prometheus source accepts (upstream
/// `MetricResource`): the query's value per node, 0–1, as a percent.
pub const METRIC_RESOURCE: &str = "MetricResource";

/// `metricsUtilization.prometheus`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct PrometheusQuery {
    /// `query`: a PromQL instant query returning one sample per node, labelled
    /// `instance=<node name>`, valued in [0, 1].
    pub query: String,
}

/// `metricsUtilization`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct MetricsUtilization {
    /// `source`: [`KUBERNETES_METRICS`] or [`PROMETHEUS_METRICS`] (kept as
    /// written; anything else fails each run as upstream's usage client does).
    pub source: Option<String>,
    /// `prometheus`.
    pub prometheus: Option<PrometheusQuery>,
    /// `metricsServer` (deprecated): means `source: KubernetesMetrics`.
    pub metrics_server: bool,
}

/// The usage source a run reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum MetricsSource {
    /// Node and pod usage (cpu millicores, memory bytes) as metrics-server reports it.
    KubernetesMetrics,
    /// One value in [0, 1] per node (`MetricResource`); no pod usage.
    Prometheus,
}

impl MetricsUtilization {
    /// The source a run uses, or upstream's usage-client error
    /// (`newUsageClient`, wrapped by the caller in "error initializing usage
    /// client: ").
    pub fn source(&self) -> Result<MetricsSource, String> {
        match self.source.as_deref() {
            Some(KUBERNETES_METRICS) => Ok(MetricsSource::KubernetesMetrics),
            Some(PROMETHEUS_METRICS) => Ok(MetricsSource::Prometheus),
            None | Some("") if self.metrics_server => Ok(MetricsSource::KubernetesMetrics),
            None | Some("") => Err("metrics source is empty".to_string()),
            Some(_) => Err("unrecognized metrics source".to_string()),
        }
    }

    /// The Prometheus query, when set.
    pub fn query(&self) -> Option<&str> {
        self.prometheus.as_ref().map(|p| p.query.as_str())
    }

    /// descheduler v0.36 `ValidateLowNodeUtilizationArgs`' metrics checks,
    /// then `validatePrometheusMetricsUtilization` (plugin build): the first
    /// error, with upstream's exact text.
    pub(crate) fn validate(&self, thresholds: &ResourceThresholds, targets: &ResourceThresholds) -> Result<(), String> {
        let source = self.source.as_deref();
        if source == Some(KUBERNETES_METRICS) && self.metrics_server {
            return Err(format!("it is not allowed to set both \"{KUBERNETES_METRICS}\" source and metricsServer"));
        }
        if source == Some(KUBERNETES_METRICS) && self.prometheus.is_some() {
            return Err(format!(
                "prometheus configuration is not allowed to set when source is set to \"{KUBERNETES_METRICS}\""
            ));
        }
        if source == Some(PROMETHEUS_METRICS) && self.query().is_none_or(str::is_empty) {
            return Err(format!("prometheus query is required when metrics source is set to \"{PROMETHEUS_METRICS}\""));
        }
        if source == Some(PROMETHEUS_METRICS) {
            for (field, map) in [("thresholds", thresholds), ("targetThresholds", targets)] {
                if map.len() != 1 || !map.contains_key(METRIC_RESOURCE) {
                    return Err(format!(
                        "{field} are expected to specify a single instance of \"{METRIC_RESOURCE}\" resource, got {} \
                         instead",
                        go_map(map)
                    ));
                }
            }
        }
        Ok(())
    }

    /// Reads the mapping at `o`.
    pub(crate) fn read(o: &Obj<'_>) -> Result<MetricsUtilization, PolicyError> {
        o.only(&["source", "prometheus", "metricsServer"])?;
        let prometheus = match o.obj("prometheus")? {
            Some(p) => {
                p.only(&["query"])?;
                Some(PrometheusQuery { query: p.str("query")?.unwrap_or_default() })
            }
            None => None,
        };
        Ok(MetricsUtilization {
            source: o.str("source")?,
            prometheus,
            metrics_server: o.bool("metricsServer")?.unwrap_or(false),
        })
    }

    /// The mapping in policy form.
    pub(crate) fn to_value(&self) -> Value {
        mapping(vec![
            ("source", self.source.as_deref().map(string)),
            ("prometheus", self.prometheus.as_ref().map(|p| mapping(vec![("query", Some(string(&p.query)))]))),
            ("metricsServer", self.metrics_server.then_some(Value::Bool(true))),
        ])
    }
}

/// Go's `%v` of a `map[ResourceName]float64`: `map[cpu:30 memory:20.5]`
/// (keys sorted, as fmt prints maps).
fn go_map(map: &ResourceThresholds) -> String {
    let items: Vec<String> = map.iter().map(|(k, v)| format!("{k}:{v}")).collect();
    format!("map[{}]", items.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::plugins::test_support::validation_vectors;
    use crate::policy::LowNodeUtilizationArgs;

    fn t(pairs: &[(&str, f64)]) -> ResourceThresholds {
        pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
    }

    fn args(m: MetricsUtilization) -> LowNodeUtilizationArgs {
        LowNodeUtilizationArgs {
            thresholds: t(&[("cpu", 20.0), ("memory", 20.0), ("example.com/foo", 20.0)]),
            target_thresholds: t(&[("cpu", 80.0), ("memory", 80.0), ("example.com/foo", 80.0)]),
            metrics_utilization: Some(m),
            ..Default::default()
        }
    }

    /// `validation_test.go` TestValidateLowNodeUtilizationPluginConfig's three
    /// metrics cases (the other ten are `policy::tests`' threshold checks).
    #[test]
    fn upstream_validation_vectors_of_the_metrics_source() {
        let source = |s: &str| Some(s.to_string());
        let cases = [
            (
                "setting both kubernetes metrics source and metricsserver",
                Some(args(MetricsUtilization {
                    source: source(KUBERNETES_METRICS),
                    metrics_server: true,
                    ..Default::default()
                })),
                Some("it is not allowed to set both \"KubernetesMetrics\" source and metricsServer"),
            ),
            (
                "missing prometheus query",
                Some(args(MetricsUtilization { source: source(PROMETHEUS_METRICS), ..Default::default() })),
                Some("prometheus query is required when metrics source is set to \"Prometheus\""),
            ),
            (
                "prometheus set when source set to kubernetes metrics",
                Some(args(MetricsUtilization {
                    source: source(KUBERNETES_METRICS),
                    prometheus: Some(PrometheusQuery::default()),
                    ..Default::default()
                })),
                Some("prometheus configuration is not allowed to set when source is set to \"KubernetesMetrics\""),
            ),
        ];
        validation_vectors("LowNodeUtilization metricsUtilization", &cases, LowNodeUtilizationArgs::validate);
    }

    #[test]
    fn prometheus_needs_exactly_metric_resource_thresholds() {
        let prom = MetricsUtilization {
            source: Some(PROMETHEUS_METRICS.into()),
            prometheus: Some(PrometheusQuery { query: "instance:node_cpu:rate:sum".into() }),
            ..Default::default()
        };
        assert_eq!(
            args(prom.clone()).validate().expect_err("cpu thresholds with Prometheus"),
            "thresholds are expected to specify a single instance of \"MetricResource\" resource, got \
             map[cpu:20 example.com/foo:20 memory:20] instead"
        );
        let ok = LowNodeUtilizationArgs {
            thresholds: t(&[(METRIC_RESOURCE, 30.0)]),
            target_thresholds: t(&[(METRIC_RESOURCE, 50.5)]),
            metrics_utilization: Some(prom),
            ..Default::default()
        };
        assert_eq!(ok.validate(), Ok(()));
        assert_eq!(MetricsUtilization::default().source(), Err("metrics source is empty".to_string()));
        let old = MetricsUtilization { metrics_server: true, ..Default::default() };
        assert_eq!(old.source(), Ok(MetricsSource::KubernetesMetrics));
        let odd = MetricsUtilization { source: Some("Graphite".into()), ..Default::default() };
        assert_eq!(odd.source(), Err("unrecognized metrics source".to_string()));
    }
}

#[cfg(test)]
mod round_trip {
    use crate::policy::Policy;

    #[test]
    fn the_prometheus_source_reads_back_from_the_policy_it_writes() {
        let yaml = "apiVersion: descheduler/v1alpha2
kind: DeschedulerPolicy
profiles:
  - name: p
    pluginConfig:
      - name: LowNodeUtilization
        args:
          thresholds: {MetricResource: 30}
          targetThresholds: {MetricResource: 50}
          metricsUtilization:
            source: Prometheus
            prometheus: {query: 'instance:node_cpu:rate:sum'}
    plugins:
      balance:
        enabled: [LowNodeUtilization]
";
        let p = Policy::from_yaml(yaml).expect("valid");
        let again = Policy::from_yaml(&p.to_yaml().expect("yaml")).expect("reads back");
        assert_eq!(p, again);
        let m = again.profiles[0].low_node_utilization().and_then(|a| a.metrics_utilization.clone()).expect("set");
        assert_eq!(m.query(), Some("instance:node_cpu:rate:sum"));
        assert!(crate::policy::lnu::threshold_name_warnings(&again).is_empty(), "MetricResource is no typo here");
        let bad = yaml.replace("query: 'instance:node_cpu:rate:sum'", "qurey: x");
        assert_eq!(
            Policy::from_yaml(&bad).expect_err("unknown field").to_string(),
            "profiles[0].pluginConfig[0].args.metricsUtilization.prometheus.qurey: unknown field (expected one of: query)"
        );
    }
}
