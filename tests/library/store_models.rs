//! Schema v16 (queries/schema/v16.sql): a store written before the pod
//! model read container statuses, images, conditions and spread
//! constraints holds pod models cut without them; opened by this kdrift,
//! every model is derived again from its whole object, with its usage
//! columns, so that the rule plugins see restarts and images of pods
//! stored before the upgrade.

use kdrift_ingest::{ingest_files, NoProgress};
use kdrift_store::test_support::{values, RawValue};
use kdrift_store::{Store, SCHEMA_VERSION};
use serde_json::Value;

/// Two pods on node-1: web-1 restarting (7 restarts, CrashLoopBackOff),
/// and bad-1, whose restartCount is not a number (readable before v16,
/// when the model did not read it).
const PODS: &str = r#"{"apiVersion":"v1","kind":"List","items":[
{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web-1","namespace":"shop","uid":"w1","creationTimestamp":"2026-01-01T00:00:00Z"},
 "spec":{"nodeName":"node-1","containers":[{"name":"app","image":"web:1","resources":{"requests":{"cpu":"300m","memory":"64Mi"}}}],
  "topologySpreadConstraints":[{"maxSkew":1,"topologyKey":"topology.kubernetes.io/zone","whenUnsatisfiable":"DoNotSchedule",
   "labelSelector":{"matchLabels":{"app":"web"}}}]},
 "status":{"phase":"Running","startTime":"2026-01-01T00:00:01Z",
  "conditions":[{"type":"Ready","status":"False","reason":"ContainersNotReady","lastTransitionTime":"2026-01-01T00:05:00Z"},
   {"type":"PodScheduled","status":"True","lastTransitionTime":"2026-01-01T00:00:01Z"}],
  "containerStatuses":[{"name":"app","restartCount":7,"image":"web:1","state":{"waiting":{"reason":"CrashLoopBackOff"}}}]}},
{"apiVersion":"v1","kind":"Pod","metadata":{"name":"bad-1","namespace":"shop","uid":"b1","creationTimestamp":"2026-01-01T00:00:00Z"},
 "spec":{"nodeName":"node-1","containers":[{"name":"app","image":"bad:1","resources":{"requests":{"cpu":"100m","memory":"32Mi"}}}]},
 "status":{"phase":"Running","containerStatuses":[{"name":"app","restartCount":"many"}]}}]}"#;

/// Test fixture: a pod model as schema 15's `pod_model_fields` cut it
/// (no image, spread constraints, status reason/startTime, container
/// statuses, nor conditions but PodScheduled and DisruptionTarget).
fn cut_as_v15(model: &mut Value) {
    if let Some(containers) = model.pointer_mut("/spec/containers").and_then(Value::as_array_mut) {
        for c in containers.iter_mut().filter_map(Value::as_object_mut) {
            c.remove("image");
        }
    }
    if let Some(spec) = model.pointer_mut("/spec").and_then(Value::as_object_mut) {
        spec.remove("topologySpreadConstraints");
    }
    if let Some(status) = model.pointer_mut("/status").and_then(Value::as_object_mut) {
        for key in ["reason", "startTime", "containerStatuses", "initContainerStatuses", "ephemeralContainerStatuses"] {
            status.remove(key);
        }
        if let Some(Value::Array(conditions)) = status.get_mut("conditions") {
            conditions.retain(|c| matches!(c["type"].as_str(), Some("PodScheduled" | "DisruptionTarget")));
        }
    }
}

#[test]
fn a_v15_store_gets_restarts_images_and_spread_constraints_in_its_pod_models_when_opened() {
    assert_eq!(SCHEMA_VERSION, 18, "a new schema: check that this fixture still gives schema 15's tables");
    let dir = tempfile::tempdir().expect("tmp");
    let path = dir.path().join("store.duckdb");
    let file = dir.path().join("pods.json");
    std::fs::write(&file, PODS).expect("write");
    {
        let store = Store::open(&path).expect("create");
        let report = ingest_files(&store, &[file], &mut NoProgress).expect("ingest");
        // This kdrift reads bad-1's restartCount: an input error, the version still stored.
        assert_eq!(report.error_count(), 1);
        kdrift_tests::keep_moves(&store).expect("keep");
    }
    {
        // Test fixture: the store as schema 15 left it: models cut without the
        // new fields, bad-1 readable (its 100m counted on node-1), the
        // requested amounts derived from that, the kept moves fresh.
        let c = kdrift_store::test_support::RawConnection::open(&path).expect("open");
        let models: Vec<(i64, String)> = {
            let mut stmt = c.prepare("SELECT obs_id, model FROM pod_versions ORDER BY obs_id").expect("prepare");
            stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?))).expect("models").collect::<Result<_, _>>().expect("rows")
        };
        assert_eq!(models.len(), 2);
        for (obs_id, text) in models {
            let mut model: Value = serde_json::from_str(&text).expect("model JSON");
            cut_as_v15(&mut model);
            let params = [RawValue::Text(model.to_string()), RawValue::BigInt(obs_id)];
            c.execute("UPDATE pod_versions SET model = ? WHERE obs_id = ?", values(&params)).expect("old model");
        }
        c.execute_batch(
            "UPDATE pod_versions SET model_error = NULL, usage_node = 'node-1', requests_cpu = 100, \
             requests_memory = 33554432, scheduling_terms = false WHERE name = 'bad-1';
             DROP TABLE usage_samples; DROP TABLE usage_windows;
             UPDATE kdrift_meta SET value = '15' WHERE key = 'schema_version';
             UPDATE drain_moves_kept SET schema_version = 15;",
        )
        .expect("downgrade");
        for q in kdrift_store::REQUESTED_DERIVATIONS {
            c.execute(q.sql, [-1i64, 0]).expect(q.name);
        }
        let old: String =
            c.query_row("SELECT model FROM pod_versions WHERE name = 'web-1'", [], |r| r.get(0)).expect("model");
        assert!(!old.contains("restartCount") && !old.contains("web:1"), "the fixture is schema 15's: {old}");
    }
    let at = chrono::DateTime::parse_from_rfc3339("2026-02-01T00:00:00Z").expect("t").with_timezone(&chrono::Utc);
    {
        // Before: what schema 15 counted on node-1 (300m + bad-1's 100m).
        // (Both pods request memory: a node whose pods request none reads
        // `memory: 0` from the aggregates but no memory pod by pod, which
        // `assert_amounts_agree` below would flag; not this migration's.)
        let c = kdrift_store::test_support::RawConnection::open(&path).expect("open");
        let cpu: i64 = c
            .query_row("SELECT sum(requests_cpu) FROM pod_versions WHERE usage_node = 'node-1'", [], |r| r.get(0))
            .expect("sum");
        assert_eq!(cpu, 400);
    }
    let store = Store::open_existing(&path).expect("migrated, then opened read-only");
    let version = kdrift_store::run_query(&store, "get_schema_version", &[]).expect("version");
    assert_eq!(version.rows[0][0], Value::String(SCHEMA_VERSION.to_string()));
    // The product's read of the state at an instant sees what the rule plugins read.
    let cluster = kdrift_analyze::ClusterAt::load(&store, at).expect("state");
    let names: Vec<&str> = cluster.pods.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["web-1"], "bad-1 is now unreadable, as at ingest");
    let web = &cluster.pods[0];
    assert_eq!(web.images, vec!["web:1"]);
    let status = web.status();
    assert_eq!(status.containers[0].restart_count, 7);
    assert_eq!(status.containers[0].waiting_reason.as_deref(), Some("CrashLoopBackOff"));
    assert_eq!(web.start_time.map(|t| t.to_rfc3339()).as_deref(), Some("2026-01-01T00:00:01+00:00"));
    assert_eq!(status.conditions.iter().map(|c| c.type_.as_str()).collect::<Vec<_>>(), ["Ready", "PodScheduled"]);
    assert_eq!(web.rare.topology_spread_constraints[0].topology_key, "topology.kubernetes.io/zone");
    // bad-1's usage columns were read again: its error is stored, and the
    // requested amounts derived again leave its 100m out.
    let error: Option<String> = store
        .conn()
        .query_row("SELECT model_error FROM pod_versions WHERE name = 'bad-1'", [], |r| r.get(0))
        .expect("error");
    assert_eq!(
        error.as_deref(),
        Some("pod shop/bad-1: status.containerStatuses[0].restartCount: expected an integer, got string \"many\"")
    );
    let amounts = kdrift_analyze::amounts_at(&store, &[at]).expect("amounts");
    assert_eq!(amounts[0].usage_of("node-1").requested.get("cpu"), 300);
    assert!(kdrift_tests::assert_amounts_agree(&store, 10) >= 1);
    // Every model is what this kdrift's ingest writes for its object.
    assert_eq!(kdrift_tests::assert_model_fields_agree(&store), 2);
    // A usage column changed: the moves kept under schema 15 are stale.
    assert!(!kdrift_analyze::moves_are_fresh(&store).expect("fresh?"));
}
