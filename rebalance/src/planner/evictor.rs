//! The DefaultEvictor as it acts on pods: `Filter` (which pods are removable
//! at all) and `PreEvictionFilter` (nodeFit, namespaceLabelSelector).
//!
//! Source: descheduler v0.36 `pkg/framework/plugins/defaultevictor/defaultevictor.go`.
//! Filter order: the `descheduler.alpha.kubernetes.io/evict` annotation makes
//! a pod evictable at once; `noEvictionPolicy: Mandatory` with the
//! prefer-no-eviction annotation makes it non-evictable at once; otherwise
//! every failing check is collected: mirror, static, terminating, then the
//! protections in upstream's order (SystemCriticalPods with the priority
//! threshold, FailedBarePods, PodsWithLocalStorage, DaemonSetPods,
//! PodsWithPVC, PodsWithoutPDB, PodsWithResourceClaims), then
//! `labelSelector`, `minReplicas`, `minPodAge`. A mirror pod's skip adds
//! what it is in kdrift's words ([`mirror_note`]) after upstream's checks.
//!
//! Interpretations, all documented where they apply:
//! - the priority threshold is resolved like descheduler's `setDefaultEvictor`:
//!   default 2000000000; a PriorityClass name looked up in
//!   `Snapshot::priority_classes`; any error (unknown class, value above
//!   2000000000) only logs upstream and leaves the threshold at 0 — every pod
//!   with a priority is then protected. The plan warns about it.
//! - `minPodAge` measures from `metadata.creationTimestamp` (the model has no
//!   `status.startTime`, which is at most the scheduling latency later); a pod
//!   without a timestamp is protected, as upstream protects one without a
//!   start time.
//! - PodsWithResourceClaims cannot be evaluated (the model does not read
//!   `spec.resourceClaims`): it protects nothing, and the plan warns.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::rc::Rc;

use chrono::{DateTime, Utc};

use super::node_fit::{FitState, NodeFit};
use super::plan::SkipReason;
use super::Snapshot;
use crate::model::pod::{LabelSelector, PodInfo, PodPhase};
use crate::policy::{DefaultEvictorArgs, GoDuration, NoEvictionPolicy, PodProtection, StringSelector};

/// The annotation that makes any pod evictable.
pub const EVICT_ANNOTATION: &str = "descheduler.alpha.kubernetes.io/evict";
/// `SystemCriticalPriority`.
pub const SYSTEM_CRITICAL_PRIORITY: i32 = 2_000_000_000;

/// The outcome of the Filter for one pod.
pub(crate) enum FilterOutcome {
    /// Removable.
    Evictable,
    /// Not removable.
    Fails(SkipReason),
}

/// A configured DefaultEvictor over a snapshot.
pub(crate) struct Evictor<'a> {
    args: DefaultEvictorArgs,
    protections: Vec<PodProtection>,
    threshold: i32,
    protected_classes: Option<BTreeSet<String>>,
    now: DateTime<Utc>,
    min_age: Option<GoDuration>,
    owner_pods: HashMap<&'a str, usize>,
    namespaces: BTreeMap<&'a str, &'a BTreeMap<String, String>>,
    snapshot: &'a Snapshot,
    node_fit: Option<NodeFit<'a>>,
}

/// What a mirror pod is, in kdrift's words: the API object the kubelet
/// creates for a static pod it runs from a manifest file; deleting (or
/// evicting) it only makes the kubelet recreate the mirror, the pod keeps
/// running.
pub(crate) fn mirror_note(pod: &PodInfo) -> String {
    let node = pod.node_name.as_deref().unwrap_or("its node");
    format!("static pod from {node}'s kubelet manifest: deleting its mirror would not stop it")
}

/// Resolves the priority threshold like `setDefaultEvictor` +
/// `GetPriorityValueFromPriorityThreshold`; the error text when upstream
/// would log one (the threshold is then 0).
pub(crate) fn resolve_threshold(args: &DefaultEvictorArgs, classes: &[(String, i32)]) -> (i32, Option<String>) {
    let Some(t) = &args.priority_threshold else {
        return (SYSTEM_CRITICAL_PRIORITY, None);
    };
    let value = match (t.value, &t.name) {
        (Some(v), _) => v,
        (None, Some(name)) => match classes.iter().find(|(n, _)| n == name) {
            Some((_, v)) => *v,
            None => {
                return (
                    0,
                    Some(format!(
                        "unable to get priority value from the priority class: priorityclasses.scheduling.k8s.io {name:?} not found"
                    )),
                )
            }
        },
        (None, None) => SYSTEM_CRITICAL_PRIORITY,
    };
    if value > SYSTEM_CRITICAL_PRIORITY {
        return (0, Some(format!("priority threshold can't be greater than {SYSTEM_CRITICAL_PRIORITY}")));
    }
    (value, None)
}

impl<'a> Evictor<'a> {
    /// Builds the evictor; `warnings` receives what cannot be modelled
    /// exactly. Its nodeFit uses `fit_state` (the cycle's, built once) when
    /// given, else indexes the snapshot's pods itself.
    pub(crate) fn new(
        snapshot: &'a Snapshot,
        args: DefaultEvictorArgs,
        warnings: &mut Vec<String>,
        fit_state: Option<Rc<FitState<'a>>>,
    ) -> Evictor<'a> {
        let protections = args.effective_protections();
        let (threshold, err) = resolve_threshold(&args, &snapshot.priority_classes);
        if let Some(e) = err {
            warnings.push(format!(
                "Failed to get threshold priority from args: {e} (descheduler then uses a threshold of 0: every pod with a priority >= 0 is protected)"
            ));
        }
        if protections.contains(&PodProtection::PodsWithResourceClaims) {
            warnings.push("PodsWithResourceClaims is enabled but the pod model does not read spec.resourceClaims; it protects no pod here".to_string());
        }
        let protected_classes = args
            .pod_protections
            .protected_storage_classes
            .as_ref()
            .filter(|c| !c.is_empty())
            .map(|c| c.iter().cloned().collect());
        let mut owner_pods: HashMap<&str, usize> = HashMap::new();
        for p in &snapshot.pods {
            for o in &p.owners {
                *owner_pods.entry(o.uid.as_str()).or_insert(0) += 1;
            }
        }
        let namespaces = snapshot.namespaces.iter().map(|n| (n.name.as_str(), &n.labels)).collect();
        let node_fit = args.node_fit.then(|| {
            let selector = args
                .node_selector
                .as_deref()
                .and_then(|s| StringSelector::parse(s, "nodeSelector").ok())
                .unwrap_or_default();
            let nodes =
                snapshot.nodes.iter().filter(|n| n.ready != Some(false) && selector.matches(&n.labels)).collect();
            match fit_state {
                Some(state) => NodeFit::sharing(nodes, state),
                None => NodeFit::new(nodes, &snapshot.pods),
            }
        });
        Evictor {
            min_age: args.min_pod_age,
            args,
            protections,
            threshold,
            protected_classes,
            now: snapshot.now,
            owner_pods,
            namespaces,
            snapshot,
            node_fit,
        }
    }

    fn on(&self, p: PodProtection) -> bool {
        self.protections.contains(&p)
    }

    /// DefaultEvictor `Filter`.
    pub(crate) fn filter(&self, pod: &PodInfo) -> FilterOutcome {
        if pod.annotations.contains_key(EVICT_ANNOTATION) {
            return FilterOutcome::Evictable;
        }
        if self.args.no_eviction_policy == Some(NoEvictionPolicy::Mandatory) && super::order::prefers_no_eviction(pod) {
            return FilterOutcome::Fails(SkipReason::MandatoryNoEviction);
        }
        let mut checks = Vec::new();
        if pod.is_mirror() {
            checks.push("pod is a mirror pod".to_string());
        }
        if pod.is_static() {
            checks.push("pod is a static pod".to_string());
        }
        if pod.is_terminating() {
            checks.push("pod is terminating".to_string());
        }
        if self.on(PodProtection::SystemCriticalPods) {
            if pod.priority.is_some_and(|p| p >= SYSTEM_CRITICAL_PRIORITY) {
                checks.push("pod has system critical priority and is protected against eviction".to_string());
            }
            if pod.priority.is_some_and(|p| p >= self.threshold) {
                checks.push("pod has higher priority than specified priority class threshold".to_string());
            }
        }
        if pod.owners.is_empty() {
            if self.on(PodProtection::FailedBarePods) {
                checks.push("pod does not have any ownerRefs".to_string());
            } else if pod.phase != Some(PodPhase::Failed) {
                checks.push("pod does not have any ownerRefs and is not in failed phase".to_string());
            }
        }
        if self.on(PodProtection::PodsWithLocalStorage) && pod.has_local_storage() {
            checks.push("pod has local storage and is protected against eviction".to_string());
        }
        if self.on(PodProtection::DaemonSetPods) && pod.is_daemonset_pod() {
            checks.push("daemonset pods are protected against eviction".to_string());
        }
        if self.on(PodProtection::PodsWithPVC) {
            if let Some(msg) = self.pvc_check(pod) {
                checks.push(msg);
            }
        }
        if self.on(PodProtection::PodsWithoutPDB) && !self.covered_by_pdb(pod) {
            checks.push("pod does not have a PodDisruptionBudget and is protected against eviction".to_string());
        }
        if let Some(sel) = self.args.label_selector.as_ref().filter(|s| !s.is_empty()) {
            if !sel.matches(&pod.labels) {
                checks.push("pod labels do not match the labelSelector filter in the policy parameter".to_string());
            }
        }
        if self.args.min_replicas > 1 && pod.owners.len() == 1 {
            let n = self.owner_pods.get(pod.owners[0].uid.as_str()).copied().unwrap_or(0);
            if n < self.args.min_replicas as usize {
                checks.push(format!(
                    "owner has {n} replicas which is less than minReplicas of {}",
                    self.args.min_replicas
                ));
            }
        }
        if let Some(min) = self.min_age {
            let old_enough =
                pod.creation_timestamp.is_some_and(|t| self.now.signed_duration_since(t) >= min.to_chrono());
            if !old_enough {
                checks.push(format!("pod age is not older than MinPodAge: {min} seconds"));
            }
        }
        if checks.is_empty() {
            FilterOutcome::Evictable
        } else {
            let note = pod.is_mirror().then(|| mirror_note(pod));
            FilterOutcome::Fails(SkipReason::NotEvictable { checks, note })
        }
    }

    /// PodsWithPVC: any claim, or (with protected storage classes) a claim
    /// of a protected class; an unknown claim or one without a class protects
    /// the pod with upstream's lookup error.
    fn pvc_check(&self, pod: &PodInfo) -> Option<String> {
        let claims = pod.pvc_names();
        if claims.is_empty() {
            return None;
        }
        let Some(protected) = &self.protected_classes else {
            return Some("pod with PVC is protected against eviction".to_string());
        };
        let mut classes = BTreeSet::new();
        for c in claims {
            let pvc = self.snapshot.pvcs.iter().find(|v| v.namespace == pod.namespace && v.name == c);
            match pvc {
                None => {
                    return Some(format!(
                        "failed to get persistent volume claim {:?}/{c:?}: persistentvolumeclaim {c:?} not found",
                        pod.namespace
                    ))
                }
                Some(v) => match v.storage_class.as_deref().filter(|s| !s.is_empty()) {
                    None => return Some(format!("failed to resolve storage class for pod {:?}/{c:?}", pod.namespace)),
                    Some(sc) => {
                        classes.insert(sc);
                    }
                },
            }
        }
        classes.into_iter().find(|c| protected.contains(*c)).map(|c| format!("pod using protected storage class {c:?}"))
    }

    /// descheduler `IsPodCoveredByPDB`: a PDB in the pod's namespace whose
    /// selector matches (a missing selector matches nothing, `{}` everything).
    fn covered_by_pdb(&self, pod: &PodInfo) -> bool {
        self.snapshot.pdbs.iter().any(|b| {
            b.namespace == pod.namespace && b.selector.as_ref().is_some_and(|s: &LabelSelector| s.matches(&pod.labels))
        })
    }

    /// DefaultEvictor `PreEvictionFilter`: nodeFit, then
    /// `namespaceLabelSelector` (only when it has `matchLabels`, as upstream;
    /// a namespace missing from the snapshot does not match).
    pub(crate) fn pre_eviction(&self, pod: &PodInfo) -> Option<SkipReason> {
        if let Some(fit) = &self.node_fit {
            if !fit.fits_any_other_node(pod) {
                return Some(SkipReason::NodeFit { why: fit.why_no_other_node(pod) });
            }
        }
        if let Some(sel) = self.args.namespace_label_selector.as_ref().filter(|s| !s.match_labels.is_empty()) {
            let ok = self.namespaces.get(pod.namespace.as_str()).is_some_and(|l| sel.matches(l));
            if !ok {
                return Some(SkipReason::NamespaceLabelSelector);
            }
        }
        None
    }
}
