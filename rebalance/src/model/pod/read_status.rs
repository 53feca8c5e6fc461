//! Reading what descheduler's rule plugins read of a pod beyond scheduling
//! ([`super::status`]) from a stored Pod object's `serde_json::Value`:
//! `status.reason`, `status.startTime`, `status.conditions`, the container
//! statuses, `spec.containers[].image` and `spec.topologySpreadConstraints`.
//!
//! The rule is [`super::read`]'s: missing and `null` read as "not set"; a
//! field of the wrong JSON type (a `restartCount` that is not an integer, a
//! condition that is not an object) or a bad timestamp is an error naming
//! the field's path (`status.containerStatuses[0].restartCount`). An empty
//! string reads as unset for the optional strings (`reason`s, policies).
//! [`super::text`] reads the same fields typed and must agree.

use chrono::{DateTime, Utc};
use serde_json::Value;

use super::read_label_selector;
use super::status::{ContainerStatus, PodCondition, PodStatusInfo, TopologySpreadConstraint};
use crate::error::ModelError;
use crate::model::extract::{describe, get, Reader};

/// The container status lists under `status`, in [`PodStatusInfo`]'s order.
const CONTAINER_STATUS_LISTS: [&str; 3] = ["containerStatuses", "initContainerStatuses", "ephemeralContainerStatuses"];

/// `v` as an object, or the error naming `path` (absent reads as `None`).
fn object<'a>(r: &Reader, v: Option<&'a Value>, path: &str) -> Result<Option<&'a Value>, ModelError> {
    match v {
        None => Ok(None),
        Some(o) if o.is_object() => Ok(Some(o)),
        Some(other) => Err(r.bad(path, format!("expected an object, got {}", describe(other)))),
    }
}

/// An error naming `path` unless `v` is an object.
fn must_be_object(r: &Reader, v: &Value, path: &str) -> Result<(), ModelError> {
    object(r, Some(v), path).map(|_| ())
}

/// A pod's `status.startTime` and the rest of its status beyond phase.
pub(super) type StatusRead = (Option<DateTime<Utc>>, Option<Box<PodStatusInfo>>);

/// An optional string where `""` reads as unset.
fn opt_nonempty(r: &Reader, v: Option<&Value>, path: &str) -> Result<Option<String>, ModelError> {
    Ok(r.opt_str(v, path)?.filter(|s| !s.is_empty()))
}

/// The status beyond phase of a pod whose `status` is `status` (an object,
/// or absent); `None` when every field is unset, so that a pod without them
/// holds no allocation ([`super::PodInfo::status`]); with it
/// `status.startTime` ([`super::PodInfo::start_time`]), read in its place
/// among the fields (so that a status with several bad fields names the
/// same one first as before).
pub(super) fn read_status_info(r: &Reader, status: Option<&Value>) -> Result<StatusRead, ModelError> {
    let Some(status) = status else { return Ok((None, None)) };
    let mut info =
        PodStatusInfo { reason: opt_nonempty(r, get(status, "reason"), "status.reason")?, ..PodStatusInfo::default() };
    let start_time = r.opt_time(get(status, "startTime"), "status.startTime")?;
    let conditions = r.array(get(status, "conditions"), "status.conditions")?;
    info.conditions.reserve_exact(conditions.len());
    for (i, c) in conditions.iter().enumerate() {
        let p = format!("status.conditions[{i}]");
        must_be_object(r, c, &p)?;
        info.conditions.push(PodCondition {
            type_: r.opt_str(get(c, "type"), &format!("{p}.type"))?.unwrap_or_default(),
            status: r.opt_str(get(c, "status"), &format!("{p}.status"))?.unwrap_or_default(),
            reason: opt_nonempty(r, get(c, "reason"), &format!("{p}.reason"))?,
            last_transition_time: r.opt_time(get(c, "lastTransitionTime"), &format!("{p}.lastTransitionTime"))?,
        });
    }
    for key in CONTAINER_STATUS_LISTS {
        let list = read_container_statuses(r, get(status, key), &format!("status.{key}"))?;
        match key {
            "containerStatuses" => info.containers = list,
            "initContainerStatuses" => info.init_containers = list,
            _ => info.ephemeral_containers = list,
        }
    }
    Ok((start_time, (info != PodStatusInfo::default()).then(|| Box::new(info))))
}

fn read_container_statuses(r: &Reader, v: Option<&Value>, path: &str) -> Result<Vec<ContainerStatus>, ModelError> {
    let list = r.array(v, path)?;
    let mut out = Vec::with_capacity(list.len());
    for (i, cs) in list.iter().enumerate() {
        let p = format!("{path}[{i}]");
        must_be_object(r, cs, &p)?;
        let state = object(r, get(cs, "state"), &format!("{p}.state"))?;
        let waiting = match state {
            Some(s) => object(r, get(s, "waiting"), &format!("{p}.state.waiting"))?,
            None => None,
        };
        let terminated = match state {
            Some(s) => object(r, get(s, "terminated"), &format!("{p}.state.terminated"))?,
            None => None,
        };
        out.push(ContainerStatus {
            name: r.opt_str(get(cs, "name"), &format!("{p}.name"))?.unwrap_or_default(),
            restart_count: r.opt_i32(get(cs, "restartCount"), &format!("{p}.restartCount"))?.unwrap_or(0),
            waiting_reason: match waiting {
                Some(w) => opt_nonempty(r, get(w, "reason"), &format!("{p}.state.waiting.reason"))?,
                None => None,
            },
            terminated_reason: match terminated {
                Some(t) => opt_nonempty(r, get(t, "reason"), &format!("{p}.state.terminated.reason"))?,
                None => None,
            },
            terminated_exit_code: match terminated {
                Some(t) => r.opt_i32(get(t, "exitCode"), &format!("{p}.state.terminated.exitCode"))?,
                None => None,
            },
        });
    }
    Ok(out)
}

/// Adds app container `index`'s image to `images` ([`super::PodInfo::images`]:
/// one per container, `""` for a container without one, or none at all
/// while no container so far names one).
pub(crate) fn push_image(images: &mut Vec<String>, index: usize, image: Option<String>) {
    match image.filter(|s| !s.is_empty()) {
        Some(image) => {
            images.resize(index, String::new());
            images.push(image);
        }
        None if !images.is_empty() => images.push(String::new()),
        None => {}
    }
}

/// `spec.topologySpreadConstraints` (also read by [`super::text`], which
/// hands over the list as a `Value`: rare and nested).
pub(crate) fn read_spread_constraints(
    r: &Reader,
    v: Option<&Value>,
) -> Result<Vec<TopologySpreadConstraint>, ModelError> {
    let list = r.array(v, "spec.topologySpreadConstraints")?;
    let mut out = Vec::with_capacity(list.len());
    for (i, c) in list.iter().enumerate() {
        let p = format!("spec.topologySpreadConstraints[{i}]");
        must_be_object(r, c, &p)?;
        out.push(TopologySpreadConstraint {
            max_skew: r.opt_i32(get(c, "maxSkew"), &format!("{p}.maxSkew"))?.unwrap_or(0),
            topology_key: r.opt_str(get(c, "topologyKey"), &format!("{p}.topologyKey"))?.unwrap_or_default(),
            when_unsatisfiable: r
                .opt_str(get(c, "whenUnsatisfiable"), &format!("{p}.whenUnsatisfiable"))?
                .unwrap_or_default(),
            label_selector: read_label_selector(r, get(c, "labelSelector"), &format!("{p}.labelSelector"))?,
            min_domains: r.opt_i32(get(c, "minDomains"), &format!("{p}.minDomains"))?,
            node_affinity_policy: opt_nonempty(r, get(c, "nodeAffinityPolicy"), &format!("{p}.nodeAffinityPolicy"))?,
            node_taints_policy: opt_nonempty(r, get(c, "nodeTaintsPolicy"), &format!("{p}.nodeTaintsPolicy"))?,
            match_label_keys: r.str_list(get(c, "matchLabelKeys"), &format!("{p}.matchLabelKeys"))?,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::PodInfo;
    use super::*;

    fn read(status: Value, spec: Value) -> Result<PodInfo, String> {
        PodInfo::from_json(&json!({"metadata": {"name": "p", "namespace": "ns"}, "spec": spec, "status": status}))
            .map_err(|e| e.to_string())
    }

    #[test]
    fn status_images_and_spread_constraints_are_read() {
        let pod = read(
            json!({"phase": "Failed", "reason": "Evicted", "startTime": "2026-11-01T10:00:00Z",
                "conditions": [{"type": "Ready", "status": "False", "reason": "PodFailed",
                                "lastTransitionTime": "2026-11-01T10:05:00Z", "lastProbeTime": null},
                               {"type": "PodScheduled", "status": "True", "reason": ""}],
                "containerStatuses": [
                    {"name": "app", "restartCount": 12, "state": {"waiting": {"reason": "CrashLoopBackOff"}},
                     "lastState": {"terminated": {"reason": "Error", "exitCode": 1}}},
                    {"name": "log", "restartCount": "3", "state": {"terminated": {"reason": "OOMKilled", "exitCode": 137}}}],
                "initContainerStatuses": [{"name": "init", "state": {"terminated": {"reason": "Completed", "exitCode": 0}}}],
                "ephemeralContainerStatuses": [{"name": "debug", "restartCount": 1, "state": {"running": {}}}]}),
            json!({"containers": [{"name": "app", "image": "web:1"}, {"name": "log"}, {"name": "x", "image": "fluent:2"}],
                "initContainers": [{"name": "init", "image": "busybox"}],
                "topologySpreadConstraints": [
                    {"maxSkew": 2, "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "DoNotSchedule",
                     "labelSelector": {"matchLabels": {"app": "web"}}, "minDomains": 3, "nodeAffinityPolicy": "Ignore",
                     "nodeTaintsPolicy": "Honor", "matchLabelKeys": ["pod-template-hash"]},
                    {"maxSkew": 1, "topologyKey": "kubernetes.io/hostname", "whenUnsatisfiable": "ScheduleAnyway",
                     "nodeTaintsPolicy": ""}]}),
        )
        .expect("readable");
        // One image per app container, "" for the one without (init containers not included).
        assert_eq!(pod.images, vec!["web:1", "", "fluent:2"]);
        let s = pod.status();
        assert_eq!(s.reason.as_deref(), Some("Evicted"));
        assert_eq!(pod.start_time.map(|t| t.to_rfc3339()).as_deref(), Some("2026-11-01T10:00:00+00:00"));
        assert_eq!(
            s.conditions[0],
            PodCondition {
                type_: "Ready".into(),
                status: "False".into(),
                reason: Some("PodFailed".into()),
                last_transition_time: Some("2026-11-01T10:05:00Z".parse().expect("time")),
            }
        );
        assert_eq!(s.conditions[1].reason, None, "an empty reason reads as unset");
        assert_eq!(
            s.containers,
            vec![
                ContainerStatus {
                    name: "app".into(),
                    restart_count: 12,
                    waiting_reason: Some("CrashLoopBackOff".into()),
                    terminated_reason: None,
                    terminated_exit_code: None,
                },
                ContainerStatus {
                    name: "log".into(),
                    restart_count: 3,
                    waiting_reason: None,
                    terminated_reason: Some("OOMKilled".into()),
                    terminated_exit_code: Some(137),
                },
            ]
        );
        assert_eq!(s.init_containers[0].terminated_reason.as_deref(), Some("Completed"));
        assert_eq!((s.ephemeral_containers[0].name.as_str(), s.ephemeral_containers[0].restart_count), ("debug", 1));
        let tsc = &pod.rare.topology_spread_constraints;
        assert_eq!(
            (tsc[0].max_skew, tsc[0].min_domains, tsc[0].node_affinity_policy.as_deref()),
            (2, Some(3), Some("Ignore"))
        );
        assert_eq!(tsc[0].label_selector.as_ref().map(|l| l.match_labels.len()), Some(1));
        assert_eq!(tsc[1].when_unsatisfiable, "ScheduleAnyway");
        assert_eq!((tsc[1].label_selector.is_none(), tsc[1].node_taints_policy.as_deref()), (true, None));
    }

    #[test]
    fn a_pod_without_these_fields_holds_no_allocation_for_them() {
        let pod = read(
            json!({"phase": "Running", "conditions": [], "containerStatuses": null, "reason": ""}),
            json!({"containers": [{"name": "a"}, {"name": "b", "image": ""}], "topologySpreadConstraints": []}),
        )
        .expect("readable");
        assert!(pod.status.is_none(), "no status beyond phase: {:?}", pod.status);
        assert_eq!(pod.status(), &PodStatusInfo::default());
        assert_eq!((pod.images.capacity(), pod.rare.topology_spread_constraints.capacity()), (0, 0));
        // A later container's image fills the ones before with "".
        let pod = read(json!({}), json!({"containers": [{"name": "a"}, {"name": "b", "image": "x:1"}]})).expect("pod");
        assert_eq!(pod.images, vec!["", "x:1"]);
    }

    #[test]
    fn bad_values_are_errors_naming_the_field() {
        let cases = [
            (json!({"containerStatuses": [{"name": "a", "restartCount": "many"}]}), json!({}),
             "pod ns/p: status.containerStatuses[0].restartCount: expected an integer, got string \"many\""),
            (json!({"initContainerStatuses": [{"state": {"terminated": {"exitCode": true}}}]}), json!({}),
             "pod ns/p: status.initContainerStatuses[0].state.terminated.exitCode: expected an integer, got boolean true"),
            (json!({"ephemeralContainerStatuses": [{"state": "running"}]}), json!({}),
             "pod ns/p: status.ephemeralContainerStatuses[0].state: expected an object, got string \"running\""),
            (json!({"startTime": "yesterday"}), json!({}),
             "pod ns/p: status.startTime: \"yesterday\" is not an RFC 3339 timestamp (expected e.g. 2024-05-01T12:00:00Z)"),
            (json!({"conditions": [{"type": "Ready", "lastTransitionTime": "2026-13-01T00:00:00Z"}]}), json!({}),
             "pod ns/p: status.conditions[0].lastTransitionTime: \"2026-13-01T00:00:00Z\" is not an RFC 3339 timestamp (expected e.g. 2024-05-01T12:00:00Z)"),
            (json!({"conditions": ["Ready"]}), json!({}),
             "pod ns/p: status.conditions[0]: expected an object, got string \"Ready\""),
            (json!({"reason": 3}), json!({}), "pod ns/p: status.reason: expected a string, got number 3"),
            (json!({}), json!({"containers": [{"name": "a", "image": ["x"]}]}),
             "pod ns/p: spec.containers[0].image: expected a string, got an array"),
            (json!({}), json!({"topologySpreadConstraints": [{"maxSkew": 1u64 << 40}]}),
             "pod ns/p: spec.topologySpreadConstraints[0].maxSkew: 1099511627776 does not fit in 32 bits"),
            (json!({}), json!({"topologySpreadConstraints": [{"matchLabelKeys": ["a", 1]}]}),
             "pod ns/p: spec.topologySpreadConstraints[0].matchLabelKeys[1]: expected a string, got number 1"),
        ];
        for (status, spec, want) in cases {
            assert_eq!(read(status, spec).expect_err(want), want);
        }
    }
}
