//! NodeAffinity: `spec.nodeSelector`, required node affinity (filter and
//! PreFilter narrowing on `metadata.name`), preferred node affinity (score).

use std::collections::{BTreeMap, BTreeSet};

use crate::model::node::NodeInfo;
use crate::model::pod::{NodeSelectorTerm, PodInfo, Requirement, SelectorOperator};

use super::FilterFailure;

/// The only field a node selector term's `matchFields` may use.
pub(crate) const NODE_NAME_FIELD: &str = "metadata.name";

/// What NodeAffinity's PreFilter leaves of the node list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum NodeNameFilter {
    /// Every node stays a candidate.
    All,
    /// Only these node names (every required term pins `metadata.name` In …).
    Only(BTreeSet<String>),
    /// The pinned names leave nothing: the pod is rejected as a whole with
    /// `pod affinity terms conflict`.
    Conflict,
}

/// NodeAffinity's PreFilter narrowing: when EVERY required node selector term
/// has a `matchFields` `metadata.name In` requirement, only the union over the
/// terms (of the intersection within each term) stays a candidate.
/// Source: kube-scheduler NodeAffinity `PreFilter`.
pub(crate) fn prefilter_node_names(pod: &PodInfo) -> NodeNameFilter {
    let Some(terms) = &pod.affinity.node_affinity.required else {
        return NodeNameFilter::All;
    };
    if terms.is_empty() {
        return NodeNameFilter::All;
    }
    let mut names: BTreeSet<String> = BTreeSet::new();
    for term in terms {
        let mut term_names: Option<BTreeSet<String>> = None;
        for r in &term.match_fields {
            if r.key == NODE_NAME_FIELD && r.operator == SelectorOperator::In {
                let set: BTreeSet<String> = r.values.iter().cloned().collect();
                term_names = Some(match term_names {
                    None => set,
                    Some(prev) => prev.intersection(&set).cloned().collect(),
                });
            }
        }
        match term_names {
            // A term without a name pin: the terms are ORed, so every node may match.
            None => return NodeNameFilter::All,
            Some(set) => names.extend(set),
        }
    }
    if names.is_empty() {
        NodeNameFilter::Conflict
    } else {
        NodeNameFilter::Only(names)
    }
}

/// One `matchExpressions` requirement against node labels; `None` when the
/// requirement is invalid (the whole term then matches nothing).
/// Source: component-helpers `nodeSelectorRequirementsAsSelector` + `labels.Requirement.Matches`.
fn label_requirement(r: &Requirement, labels: &BTreeMap<String, String>) -> Option<bool> {
    let value = labels.get(&r.key);
    match r.operator {
        SelectorOperator::In if !r.values.is_empty() => Some(value.is_some_and(|v| r.values.contains(v))),
        SelectorOperator::NotIn if !r.values.is_empty() => Some(value.is_none_or(|v| !r.values.contains(v))),
        SelectorOperator::Exists if r.values.is_empty() => Some(value.is_some()),
        SelectorOperator::DoesNotExist if r.values.is_empty() => Some(value.is_none()),
        SelectorOperator::Gt | SelectorOperator::Lt => {
            let [bound] = r.values.as_slice() else {
                return None;
            };
            let bound: i64 = bound.parse().ok()?;
            let Some(v) = value.and_then(|v| v.parse::<i64>().ok()) else {
                return Some(false);
            };
            Some(if r.operator == SelectorOperator::Gt { v > bound } else { v < bound })
        }
        _ => None,
    }
}

/// One `matchFields` requirement against the node; only `metadata.name` with
/// In/NotIn and exactly one value is valid.
/// Source: component-helpers `nodeSelectorRequirementsAsFieldSelector`.
fn field_requirement(r: &Requirement, node_name: &str) -> Option<bool> {
    if r.key != NODE_NAME_FIELD {
        return None;
    }
    let [value] = r.values.as_slice() else {
        return None;
    };
    match r.operator {
        SelectorOperator::In => Some(node_name == value),
        SelectorOperator::NotIn => Some(node_name != value),
        _ => None,
    }
}

impl NodeSelectorTerm {
    /// Whether the node satisfies every expression and field of the term. An
    /// empty term and an invalid term match no node.
    /// Source: component-helpers `nodeaffinity.NodeSelector.Match`.
    pub fn matches(&self, node: &NodeInfo) -> bool {
        if self.match_expressions.is_empty() && self.match_fields.is_empty() {
            return false;
        }
        self.match_expressions.iter().all(|r| label_requirement(r, &node.labels) == Some(true))
            && self.match_fields.iter().all(|r| field_requirement(r, &node.name) == Some(true))
    }
}

/// `spec.nodeSelector` (every label equal) and the required node affinity
/// (any term matches). Source: kube-scheduler NodeAffinity `Filter`
/// (`RequiredNodeAffinity.Match`).
pub(crate) fn filter(pod: &PodInfo, node: &NodeInfo) -> Option<FilterFailure> {
    let selector_ok = pod.node_selector.iter().all(|(k, v)| node.labels.get(k).map(String::as_str) == Some(v));
    let affinity_ok = match &pod.affinity.node_affinity.required {
        None => true,
        Some(terms) => terms.iter().any(|t| t.matches(node)),
    };
    if selector_ok && affinity_ok {
        None
    } else {
        Some(FilterFailure::NodeAffinityMismatch { node_selector: !selector_ok, required_affinity: !affinity_ok })
    }
}

/// The raw score: the sum of the weights of the preferred terms the node
/// matches. Normalised later (best node 100).
/// Source: kube-scheduler NodeAffinity `Score`.
pub(crate) fn raw_score(pod: &PodInfo, node: &NodeInfo) -> i64 {
    pod.affinity
        .node_affinity
        .preferred
        .iter()
        .filter(|t| t.weight != 0 && t.preference.matches(node))
        .map(|t| i64::from(t.weight))
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::resources::ResourceList;

    fn node(name: &str, labels: &[(&str, &str)]) -> NodeInfo {
        let mut n = NodeInfo::new(name, ResourceList::new());
        n.labels = labels.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        n
    }

    fn req(key: &str, op: &str, values: &[&str]) -> Requirement {
        Requirement {
            key: key.into(),
            operator: SelectorOperator::parse(op),
            values: values.iter().map(|s| s.to_string()).collect(),
        }
    }

    fn term(exprs: Vec<Requirement>, fields: Vec<Requirement>) -> NodeSelectorTerm {
        NodeSelectorTerm { match_expressions: exprs, match_fields: fields }
    }

    #[test]
    fn operators() {
        let n = node("n1", &[("zone", "a"), ("cores", "16")]);
        let m = |r: Requirement| term(vec![r], vec![]).matches(&n);
        assert!(m(req("zone", "In", &["a", "b"])));
        assert!(!m(req("zone", "In", &["b"])));
        assert!(m(req("zone", "NotIn", &["b"])));
        assert!(m(req("gpu", "NotIn", &["x"])));
        assert!(!m(req("zone", "NotIn", &["a"])));
        assert!(m(req("zone", "Exists", &[])));
        assert!(!m(req("gpu", "Exists", &[])));
        assert!(m(req("gpu", "DoesNotExist", &[])));
        assert!(m(req("cores", "Gt", &["8"])));
        assert!(!m(req("cores", "Gt", &["16"])));
        assert!(m(req("cores", "Lt", &["17"])));
        assert!(!m(req("zone", "Gt", &["1"]))); // not an integer label
        assert!(!m(req("gpu", "Lt", &["1"]))); // absent label
        assert!(!m(req("cores", "Gt", &["8", "9"]))); // invalid: two values
        assert!(!m(req("zone", "In", &[]))); // invalid: no values
        assert!(!m(req("zone", "Exists", &["a"]))); // invalid: values with Exists
        assert!(!m(req("zone", "Like", &["a"])));
    }

    #[test]
    fn match_fields_and_empty_terms() {
        let n = node("node-1", &[]);
        assert!(term(vec![], vec![req("metadata.name", "In", &["node-1"])]).matches(&n));
        assert!(!term(vec![], vec![req("metadata.name", "In", &["node-2"])]).matches(&n));
        assert!(term(vec![], vec![req("metadata.name", "NotIn", &["node-2"])]).matches(&n));
        assert!(!term(vec![], vec![req("metadata.name", "In", &["node-1", "node-2"])]).matches(&n));
        assert!(!term(vec![], vec![req("metadata.uid", "In", &["node-1"])]).matches(&n));
        assert!(!NodeSelectorTerm::default().matches(&n));
    }

    #[test]
    fn prefilter_narrowing() {
        let mut pod = PodInfo::new("kube-system", "ds-abc");
        assert_eq!(prefilter_node_names(&pod), NodeNameFilter::All);
        pod.affinity.node_affinity.required = Some(vec![term(vec![], vec![req("metadata.name", "In", &["node-3"])])]);
        assert_eq!(prefilter_node_names(&pod), NodeNameFilter::Only(["node-3".to_string()].into_iter().collect()));
        // Intersection inside a term: conflict.
        pod.affinity.node_affinity.required =
            Some(vec![term(vec![], vec![req("metadata.name", "In", &["a"]), req("metadata.name", "In", &["b"])])]);
        assert_eq!(prefilter_node_names(&pod), NodeNameFilter::Conflict);
        // A term without a name pin keeps every node.
        pod.affinity.node_affinity.required = Some(vec![
            term(vec![], vec![req("metadata.name", "In", &["a"])]),
            term(vec![req("zone", "Exists", &[])], vec![]),
        ]);
        assert_eq!(prefilter_node_names(&pod), NodeNameFilter::All);
    }
}
