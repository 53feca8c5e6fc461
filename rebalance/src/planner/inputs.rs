//! What the policy reads that the snapshot lacks: a DefaultEvictor setting
//! that needs objects of a kind (Namespace, PodDisruptionBudget,
//! PriorityClass, PersistentVolumeClaim) of which the snapshot holds none
//! decides for every pod (a store that was not given that kind, a cluster
//! without one). Said once per plan, and only for the settings the policy
//! uses: a plan whose policy needs none of these kinds says nothing of them.

use std::collections::BTreeSet;

use super::Snapshot;
use crate::policy::{PodProtection, Policy};

/// One line per kind the policy needs and the snapshot lacks, each with the
/// setting and its profiles: `no PodDisruptionBudget objects:
/// PodsWithoutPDB (profile default) protects every pod`. Conditions as the
/// DefaultEvictor applies them (`evictor.rs`): a `namespaceLabelSelector`
/// with `matchLabels` keeps every pod whose namespace is missing; the
/// PodsWithoutPDB protection every pod no PDB covers; a `priorityThreshold`
/// by `name` (no `value`) resolves only from a PriorityClass; PodsWithPVC
/// with `protectedStorageClasses` protects a pod whose claim is missing.
pub(crate) fn missing_object_warnings(snapshot: &Snapshot, policy: &Policy) -> Vec<String> {
    let (mut namespaces, mut pdbs, mut classes, mut pvcs) =
        (Vec::new(), Vec::new(), BTreeSet::<String>::new(), Vec::new());
    for profile in &policy.profiles {
        let args = profile.default_evictor();
        let name = profile.name.as_str();
        if args.namespace_label_selector.as_ref().is_some_and(|s| !s.match_labels.is_empty()) {
            namespaces.push(name);
        }
        let protections = args.effective_protections();
        if protections.contains(&PodProtection::PodsWithoutPDB) {
            pdbs.push(name);
        }
        if let Some(class) = args.priority_threshold.as_ref().filter(|t| t.value.is_none()).and_then(|t| t.name.clone())
        {
            classes.insert(class);
        }
        if protections.contains(&PodProtection::PodsWithPVC)
            && args.pod_protections.protected_storage_classes.as_ref().is_some_and(|c| !c.is_empty())
        {
            pvcs.push(name);
        }
    }
    let profiles = |names: &[&str]| {
        let word = if names.len() == 1 { "profile" } else { "profiles" };
        format!("{word} {}", names.join(", "))
    };
    let mut out = Vec::new();
    if snapshot.namespaces.is_empty() && !namespaces.is_empty() {
        out.push(format!(
            "no Namespace objects: namespaceLabelSelector ({}) matches no namespace, so it keeps every pod",
            profiles(&namespaces)
        ));
    }
    if snapshot.pdbs.is_empty() && !pdbs.is_empty() {
        out.push(format!("no PodDisruptionBudget objects: PodsWithoutPDB ({}) protects every pod", profiles(&pdbs)));
    }
    if snapshot.priority_classes.is_empty() && !classes.is_empty() {
        let names: Vec<String> = classes.iter().map(|c| format!("{c:?}")).collect();
        out.push(format!("no PriorityClass objects: priorityThreshold name {} cannot be resolved", names.join(", ")));
    }
    if snapshot.pvcs.is_empty() && !pvcs.is_empty() {
        out.push(format!(
            "no PersistentVolumeClaim objects: PodsWithPVC with protectedStorageClasses ({}) protects every pod \
             with a claim (not found)",
            profiles(&pvcs)
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::missing_object_warnings;
    use crate::planner::tests::{lnu, policy_with};
    use crate::planner::Snapshot;
    use crate::policy::{DefaultEvictorArgs, PodProtection, PodProtections, PriorityThreshold};

    fn empty() -> Snapshot {
        Snapshot::new(Vec::new(), Vec::new(), chrono::DateTime::UNIX_EPOCH)
    }

    fn warnings(evictor: DefaultEvictorArgs) -> Vec<String> {
        missing_object_warnings(&empty(), &policy_with(evictor, lnu(&[("cpu", 20.0)], &[("cpu", 50.0)])))
    }

    #[test]
    fn a_kind_the_snapshot_lacks_is_named_only_when_the_policy_uses_it() {
        assert_eq!(warnings(DefaultEvictorArgs::default()), Vec::<String>::new(), "the default evictor needs none");
        let every = DefaultEvictorArgs {
            namespace_label_selector: Some(crate::model::pod::LabelSelector::from_labels(&[("team", "a")])),
            priority_threshold: Some(PriorityThreshold { value: None, name: Some("high".into()) }),
            pod_protections: PodProtections {
                extra_enabled: vec![PodProtection::PodsWithoutPDB, PodProtection::PodsWithPVC],
                protected_storage_classes: Some(vec!["local-path".into()]),
                ..Default::default()
            },
            ..Default::default()
        };
        assert_eq!(
            warnings(every),
            [
                "no Namespace objects: namespaceLabelSelector (profile test) matches no namespace, so it keeps every pod",
                "no PodDisruptionBudget objects: PodsWithoutPDB (profile test) protects every pod",
                "no PriorityClass objects: priorityThreshold name \"high\" cannot be resolved",
                "no PersistentVolumeClaim objects: PodsWithPVC with protectedStorageClasses (profile test) protects \
                 every pod with a claim (not found)",
            ]
        );
        // A threshold by value needs no PriorityClass; the deprecated boolean enables PodsWithoutPDB too.
        let by_value = DefaultEvictorArgs {
            priority_threshold: Some(PriorityThreshold { value: Some(100), name: None }),
            ignore_pods_without_pdb: Some(true),
            ..Default::default()
        };
        assert_eq!(
            warnings(by_value),
            ["no PodDisruptionBudget objects: PodsWithoutPDB (profile test) protects every pod"]
        );
    }
}
