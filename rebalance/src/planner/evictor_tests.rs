//! Tests of the DefaultEvictor filters as the planner applies them: one
//! candidate pod on an overutilized node, and the exact message it gets.

use super::tests::{lnu, node, now, owner, pod, policy_with, run_of, MI};
use super::*;
use crate::model::pod::{Volume, VolumeSource};
use crate::policy::{DefaultEvictorArgs, PodProtection};

/// Plans a cluster where `subject` (900m on node a) is the only candidate and
/// returns the skip message, or "evicted".
fn outcome(evictor: DefaultEvictorArgs, subject: PodInfo, extra: impl FnOnce(&mut Snapshot)) -> String {
    let mut s =
        Snapshot::new(vec![node("a", 1000, 1024 * MI, 110), node("b", 1000, 1024 * MI, 110)], vec![subject], now());
    extra(&mut s);
    let p = plan(&s, &policy_with(evictor, lnu(&[("cpu", 20.0)], &[("cpu", 50.0)])), &PlanOptions::default());
    if p.evictions_total == 1 {
        return "evicted".to_string();
    }
    run_of(&p).skipped.first().map(|s| s.message.clone()).unwrap_or_else(|| format!("{p:#?}"))
}

fn subject() -> PodInfo {
    pod("default", "s", "a", 900, 0)
}

#[test]
fn default_evictor_filter_messages() {
    let d = DefaultEvictorArgs::default;
    assert_eq!(outcome(d(), subject(), |_| {}), "evicted");
    let mut p = subject();
    p.annotations.insert("kubernetes.io/config.mirror".into(), "x".into());
    assert_eq!(
        outcome(d(), p, |_| {}),
        "pod is a mirror pod — static pod from a's kubelet manifest: deleting its mirror would not stop it"
    );
    let mut p = subject();
    p.annotations.insert("kubernetes.io/config.source".into(), "file".into());
    assert_eq!(outcome(d(), p, |_| {}), "pod is a static pod");
    let mut p = subject();
    p.rare.deletion_timestamp = Some(now());
    assert_eq!(outcome(d(), p, |_| {}), "pod is terminating");
    let mut p = subject();
    p.owners.clear();
    assert_eq!(outcome(d(), p, |_| {}), "pod does not have any ownerRefs");
    let mut p = subject();
    p.volumes = vec![Volume { name: "h".into(), source: VolumeSource::HostPath { path: "/x".into() } }];
    assert_eq!(outcome(d(), p, |_| {}), "pod has local storage and is protected against eviction");
    let mut p = subject();
    p.owners = vec![owner("DaemonSet", "ds")];
    assert_eq!(outcome(d(), p, |_| {}), "daemonset pods are protected against eviction");
    let mut p = subject();
    p.priority = Some(SYSTEM_CRITICAL_PRIORITY);
    assert_eq!(
        outcome(d(), p, |_| {}),
        "[pod has system critical priority and is protected against eviction, pod has higher priority than specified priority class threshold]"
    );
    // The evict annotation bypasses everything.
    let mut p = subject();
    p.owners = vec![owner("DaemonSet", "ds")];
    p.annotations.insert(EVICT_ANNOTATION.into(), "true".into());
    assert_eq!(outcome(d(), p, |_| {}), "evicted");
}

#[test]
fn evictor_options_messages() {
    let with = |f: fn(&mut DefaultEvictorArgs)| {
        let mut a = DefaultEvictorArgs::default();
        f(&mut a);
        a
    };
    // Priority threshold by value and by PriorityClass name.
    let mut p = subject();
    p.priority = Some(100);
    let t = with(|a| a.priority_threshold = Some(crate::policy::PriorityThreshold { value: Some(100), name: None }));
    assert_eq!(outcome(t, p.clone(), |_| {}), "pod has higher priority than specified priority class threshold");
    let t = with(|a| {
        a.priority_threshold = Some(crate::policy::PriorityThreshold { value: None, name: Some("hi".into()) })
    });
    assert_eq!(outcome(t.clone(), p.clone(), |s| s.priority_classes.push(("hi".into(), 1000))), "evicted");
    // An unknown class leaves the threshold at 0 upstream: every pod with a priority is protected.
    assert_eq!(outcome(t, p, |_| {}), "pod has higher priority than specified priority class threshold");
    // FailedBarePods disabled still protects running bare pods.
    let mut bare = subject();
    bare.owners.clear();
    let a = with(|a| a.pod_protections.default_disabled = vec![PodProtection::FailedBarePods]);
    assert_eq!(outcome(a, bare, |_| {}), "pod does not have any ownerRefs and is not in failed phase");
    // PodsWithPVC and PodsWithoutPDB (extra).
    let mut pvc = subject();
    pvc.volumes =
        vec![Volume { name: "d".into(), source: VolumeSource::PersistentVolumeClaim { claim_name: "data".into() } }];
    let a = with(|a| a.pod_protections.extra_enabled = vec![PodProtection::PodsWithPVC]);
    assert_eq!(outcome(a, pvc.clone(), |_| {}), "pod with PVC is protected against eviction");
    let a = with(|a| {
        a.pod_protections.extra_enabled = vec![PodProtection::PodsWithPVC];
        a.pod_protections.protected_storage_classes = Some(vec!["local-path".into()]);
    });
    let add_pvc = |class: &str| {
        let class = class.to_string();
        move |s: &mut Snapshot| {
            s.pvcs.push(Pvc { namespace: "default".into(), name: "data".into(), storage_class: Some(class) })
        }
    };
    assert_eq!(
        outcome(a.clone(), pvc.clone(), add_pvc("local-path")),
        "pod using protected storage class \"local-path\""
    );
    assert_eq!(outcome(a.clone(), pvc.clone(), add_pvc("nfs")), "evicted");
    // An unknown claim protects the pod with upstream's lookup error.
    assert_eq!(
        outcome(a, pvc, |_| {}),
        "failed to get persistent volume claim \"default\"/\"data\": persistentvolumeclaim \"data\" not found"
    );
    let a = with(|a| a.pod_protections.extra_enabled = vec![PodProtection::PodsWithoutPDB]);
    assert_eq!(
        outcome(a.clone(), subject(), |_| {}),
        "pod does not have a PodDisruptionBudget and is protected against eviction"
    );
    let pdb = |s: &mut Snapshot| {
        s.pdbs.push(Pdb {
            namespace: "default".into(),
            name: "all".into(),
            selector: Some(Default::default()),
            disruptions_allowed: Some(1),
            min_available: None,
            max_unavailable: None,
        })
    };
    assert_eq!(outcome(a, subject(), pdb), "evicted");
    // labelSelector, minReplicas, minPodAge.
    let a = with(|a| a.label_selector = Some(crate::model::pod::LabelSelector::from_labels(&[("app", "web")])));
    assert_eq!(
        outcome(a, subject(), |_| {}),
        "pod labels do not match the labelSelector filter in the policy parameter"
    );
    let a = with(|a| a.min_replicas = 3);
    assert_eq!(outcome(a, subject(), |_| {}), "owner has 1 replicas which is less than minReplicas of 3");
    let a = with(|a| a.min_pod_age = Some(crate::policy::GoDuration::parse("2h").expect("valid")));
    assert_eq!(outcome(a, subject(), |_| {}), "pod age is not older than MinPodAge: 2h0m0s seconds");
    let a = with(|a| a.min_pod_age = Some(crate::policy::GoDuration::parse("30m").expect("valid")));
    assert_eq!(outcome(a, subject(), |_| {}), "evicted");
    // noEvictionPolicy: Mandatory.
    let mut p = subject();
    p.annotations.insert(PREFER_NO_EVICTION.into(), "true".into());
    let a = with(|a| a.no_eviction_policy = Some(crate::policy::NoEvictionPolicy::Mandatory));
    assert_eq!(
        outcome(a, p.clone(), |_| {}),
        "pod has the descheduler.alpha.kubernetes.io/prefer-no-eviction annotation and noEvictionPolicy is Mandatory"
    );
    assert_eq!(outcome(DefaultEvictorArgs::default(), p, |_| {}), "evicted");
}

#[test]
fn pre_eviction_filter_messages() {
    // nodeFit: the only other node is too small.
    let a = DefaultEvictorArgs { node_fit: true, ..Default::default() };
    let shrink = |s: &mut Snapshot| s.nodes[1] = node("b", 800, 1024 * MI, 110);
    assert_eq!(
        outcome(a.clone(), subject(), shrink),
        "pod does not fit on any other node because of nodeSelector(s), Taint(s), or nodes marked as unschedulable \
         (b: insufficient cpu (requests 900m, 800m free))"
    );
    assert_eq!(outcome(a.clone(), subject(), |_| {}), "evicted");
    let mut sel = subject();
    sel.node_selector.insert("disk".into(), "ssd".into());
    assert!(outcome(a, sel, |_| {}).starts_with("pod does not fit on any other node"));
    // namespaceLabelSelector applies only with matchLabels.
    let a = DefaultEvictorArgs {
        namespace_label_selector: Some(crate::model::pod::LabelSelector::from_labels(&[("team", "a")])),
        ..Default::default()
    };
    assert_eq!(
        outcome(a.clone(), subject(), |_| {}),
        "pod namespace do not match the namespaceLabelSelector filter in the policy parameter"
    );
    let ns = |s: &mut Snapshot| {
        s.namespaces.push(Namespace {
            name: "default".into(),
            labels: [("team".to_string(), "a".to_string())].into_iter().collect(),
        })
    };
    assert_eq!(outcome(a, subject(), ns), "evicted");
}
