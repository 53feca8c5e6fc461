//! `-n NAMESPACE`, `-A` and `-l SELECTOR` as kubectl has them, for the
//! commands that list pods: `why-pending --all`, `timeline drains` (the
//! pods each drain moved) and `skew --usage` (the pods driving a node).
//! The selector is a label selector in apimachinery's string form
//! (`app=web`, `tier!=db`, `env in (a,b)`, `env notin (a)`, `gpu`, `!gpu`,
//! comma-separated, all must hold), read by descheduler's own parser
//! ([`kdrift_rebalance::StringSelector`], what a policy's `nodeSelector`
//! takes); labels are each pod's latest stored version's
//! ([`kdrift_analyze::pod_labels`]).

use std::collections::{BTreeMap, HashMap};

use clap::Args;
use kdrift_rebalance::StringSelector;
use kdrift_store::Reader;

/// `-n`, `-A`, `-l` (flattened into the commands that take them).
#[derive(Debug, Clone, Args, Default)]
pub struct PodSelectArgs {
    /// Only the pods of this namespace (default: every namespace).
    #[arg(short = 'n', long, value_name = "NAMESPACE", conflicts_with = "all_namespaces")]
    pub namespace: Option<String>,
    /// Every namespace (the default; kubectl's -A).
    #[arg(short = 'A', long)]
    pub all_namespaces: bool,
    /// Only the pods whose labels match: `app=web`, `tier!=db`, `env in (a,b)`, `env notin (a)`, `gpu`,
    /// `!gpu`, comma-separated (all must hold).
    #[arg(short = 'l', long, value_name = "SELECTOR", value_parser = parse_selector)]
    pub selector: Option<StringSelector>,
}

impl PodSelectArgs {
    /// True when a namespace or a selector narrows the pods.
    pub fn narrows(&self) -> bool {
        self.namespace.is_some() || self.selector.is_some()
    }
}

/// Parses `-l` (pure; used by clap).
pub fn parse_selector(s: &str) -> Result<StringSelector, String> {
    let selector = StringSelector::parse(s, "-l").map_err(|e| e.to_string())?;
    if selector.requirements.is_empty() {
        return Err("expected a label selector such as app=web or 'env in (a,b)', got an empty one".into());
    }
    Ok(selector)
}

/// The pods a command keeps: in the namespace, matching the selector.
pub struct PodFilter {
    namespace: Option<String>,
    selector: Option<StringSelector>,
    labels: kdrift_analyze::PodLabels,
}

impl PodFilter {
    /// The filter of `namespace` and `selector`; the store's labels are read only for a selector.
    ///
    /// # Errors
    /// Reading the labels failed.
    pub fn new(store: &Reader, namespace: Option<&str>, selector: Option<&StringSelector>) -> anyhow::Result<Self> {
        let labels = if selector.is_some() { kdrift_analyze::pod_labels(store)? } else { HashMap::new() };
        Ok(PodFilter { namespace: namespace.map(str::to_string), selector: selector.cloned(), labels })
    }

    /// Whether pod `namespace/name` is kept (a pod with no stored labels has none).
    pub fn keeps(&self, namespace: &str, name: &str) -> bool {
        if self.namespace.as_deref().is_some_and(|ns| ns != namespace) {
            return false;
        }
        let Some(selector) = &self.selector else { return true };
        let none = BTreeMap::new();
        selector.matches(self.labels.get(&(namespace.to_string(), name.to_string())).unwrap_or(&none))
    }

    /// Whether a label selector was given and the store holds no labels
    /// of this pod (no Pod object: it is known from events only), so the
    /// selector cannot match it.
    pub fn labels_unknown(&self, namespace: &str, name: &str) -> bool {
        self.selector.is_some() && !self.labels.contains_key(&(namespace.to_string(), name.to_string()))
    }

    /// What was asked, for messages: `namespace media, labels app=web`.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(ns) = &self.namespace {
            parts.push(format!("namespace {ns}"));
        }
        if let Some(s) = &self.selector {
            parts.push(format!("labels {}", s.text));
        }
        parts.join(", ")
    }
}

/// Keeps, in each operation, the moved pods `filter` keeps, and the
/// operations that moved one; each operation's counts (pods moved,
/// replacements landed per node, moved again, not replaced) are those of
/// the pods kept.
pub fn drains(timeline: &mut kdrift_analyze::DrainTimeline, filter: &PodFilter) {
    for op in &mut timeline.operations {
        for e in &mut op.episodes {
            e.evicted.retain(|p| filter.keeps(&p.namespace, &p.name));
        }
        let moved: Vec<&kdrift_analyze::MovedPod> = op.episodes.iter().flat_map(|e| &e.evicted).collect();
        op.pods_moved = moved.len();
        op.not_replaced = moved.iter().filter(|p| p.replacement.is_none()).count();
        let evicted: std::collections::HashSet<(&str, &str)> =
            moved.iter().map(|p| (p.namespace.as_str(), p.name.as_str())).collect();
        let mut landed: BTreeMap<String, (usize, usize)> = BTreeMap::new();
        for r in moved.iter().filter_map(|p| p.replacement.as_ref()) {
            let entry = landed.entry(r.node.clone()).or_default();
            entry.0 += 1;
            entry.1 += usize::from(evicted.contains(&(r.namespace.as_str(), r.name.as_str())));
        }
        op.landed = landed
            .into_iter()
            .map(|(node, (pods, moved_again))| kdrift_analyze::Landing { node, pods, moved_again })
            .collect();
        op.landed.sort_by(|a, b| b.pods.cmp(&a.pods).then_with(|| a.node.cmp(&b.node)));
    }
    timeline.operations.retain(|op| op.pods_moved > 0);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selectors_read_as_kubectl_takes_them() {
        let labels = |pairs: &[(&str, &str)]| -> BTreeMap<String, String> {
            pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
        };
        let web = labels(&[("app", "web"), ("env", "prod")]);
        let db = labels(&[("app", "db"), ("gpu", "")]);
        for (text, on_web, on_db) in [
            ("app=web", true, false),
            ("app==web", true, false),
            ("app!=web", false, true),
            ("env in (prod,dev)", true, false),
            ("env notin (prod)", false, true),
            ("gpu", false, true),
            ("!gpu", true, false),
            ("app in (web,db),!gpu", true, false),
        ] {
            let s = parse_selector(text).expect(text);
            assert_eq!((s.matches(&web), s.matches(&db)), (on_web, on_db), "{text}");
        }
        assert!(parse_selector("").is_err());
        assert!(parse_selector("env in (a").is_err());
    }
}
