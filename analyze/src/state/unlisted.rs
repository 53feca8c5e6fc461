//! The pods a state loaded for the filters holds in part only, and how a
//! report reads the ones it shows: either pods listed from their filter
//! fields ([`ClusterAt::load_for_filters`], read whole by their versions) or
//! pods not listed at all, counted by their node's summed requests
//! ([`ClusterAt::load_summed`], read by node with query `pods_on_nodes_at`).
//! One type so that why-pending shows a node's pods and amounts the same way
//! whichever load it used.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use kdrift_rebalance::{ClusterState, PodInfo, ResourceList, SummedPods};
use kdrift_store::sql;
use kdrift_store::Reader;

use super::for_filters::{read_models, whole, FilterVersions};
#[cfg(doc)]
use super::ClusterAt;
use super::{read_pods, ModelRow};
use crate::AnalyzeError;

/// What a state loaded for the filters did not read whole.
#[derive(Debug, Clone)]
pub enum Unlisted {
    /// Every pod is listed; those read from their filter fields alone have these versions.
    FilterFields(FilterVersions),
    /// Pods not listed, counted by their nodes' sums.
    Summed {
        /// Per node name, the summed requests of the pods not listed (cpu
        /// millicores, memory bytes, others in their units; `pods` = their number).
        summed: SummedPods,
        /// The pending pod (namespace, name): never among the summed pods.
        pending: (String, String),
    },
}

impl Default for Unlisted {
    fn default() -> Self {
        Unlisted::FilterFields(FilterVersions::default())
    }
}

impl Unlisted {
    /// The summed requests counted toward `node` on top of its listed pods
    /// (`None`: none, or every pod is listed).
    pub fn summed_on(&self, node: &str) -> Option<&ResourceList> {
        match self {
            Unlisted::FilterFields(_) => None,
            Unlisted::Summed { summed, .. } => summed.get(node),
        }
    }

    /// Pods counted on `node` by their sums only (0 when every pod is listed).
    pub fn summed_pods_on(&self, node: &str) -> usize {
        self.summed_on(node).map_or(0, |r| usize::try_from(r.get(kdrift_rebalance::PODS)).unwrap_or(0))
    }

    /// Every pod counting toward each of `nodes` at `at`, whole (every field
    /// the model reads): the listed pods of `cs` on the node and, for a
    /// summed load, the stored pods the sums stand for (query
    /// `pods_on_nodes_at`, then `pod_models`). Per node: the stored pods by
    /// namespace and name, then the pods known only from events, as
    /// `cs.by_node()` lists a whole load's. A model that no longer reads is
    /// left out.
    ///
    /// # Errors
    /// [`AnalyzeError::Store`] when a query fails.
    pub fn pods_on(
        &self,
        store: &Reader,
        at: DateTime<Utc>,
        cs: &ClusterState,
        event_only: &[String],
        nodes: &[&str],
    ) -> Result<HashMap<String, Vec<PodInfo>>, AnalyzeError> {
        let by_node = cs.by_node();
        match self {
            Unlisted::FilterFields(versions) => {
                let shown: Vec<&PodInfo> = nodes.iter().flat_map(|n| by_node.pods_on(n).iter().copied()).collect();
                let whole_pods = versions.whole(store, &shown)?;
                Ok(nodes
                    .iter()
                    .map(|n| {
                        let pods = by_node.pods_on(n).iter().map(|p| whole(p, &whole_pods).clone()).collect();
                        (n.to_string(), pods)
                    })
                    .collect())
            }
            Unlisted::Summed { pending: (ns, name), .. } => {
                let list = serde_json::to_string(nodes).unwrap_or_else(|_| "[]".into());
                let rows = store.query_map(
                    &sql::PODS_ON_NODES_AT,
                    kdrift_store::params![at.timestamp_micros(), list, ns, name],
                    |r| {
                        Ok((
                            r.get::<_, i64>(0)?,
                            r.get::<_, String>(1)?,
                            r.get::<_, String>(2)?,
                            r.get::<_, String>(3)?,
                        ))
                    },
                )?;
                let ids: Vec<i64> = rows.iter().map(|r| r.0).collect();
                let mut models = read_models(store, &ids)?;
                let (on, texts): (Vec<String>, Vec<ModelRow>) = rows
                    .into_iter()
                    .filter_map(|(id, ns, name, node)| models.remove(&id).map(|json| (node, (ns, name, false, json))))
                    .unzip();
                // Each with the node the sums counted it toward.
                let summed: Vec<(String, PodInfo)> =
                    on.into_iter().zip(read_pods(&texts, at)).filter_map(|(n, p)| Some((n, p.ok()?))).collect();
                let event_only: std::collections::HashSet<&str> = event_only.iter().map(String::as_str).collect();
                Ok(nodes
                    .iter()
                    .map(|n| {
                        let listed = by_node.pods_on(n).iter().map(|p| (*p).clone());
                        let mut pods: Vec<PodInfo> =
                            listed.chain(summed.iter().filter(|(on, _)| on == n).map(|(_, p)| p.clone())).collect();
                        // Stable: versions of one name keep their order.
                        pods.sort_by(|a, b| {
                            let late = |p: &PodInfo| event_only.contains(p.key().as_str());
                            (late(a), &a.namespace, &a.name).cmp(&(late(b), &b.namespace, &b.name))
                        });
                        (n.to_string(), pods)
                    })
                    .collect())
            }
        }
    }
}
