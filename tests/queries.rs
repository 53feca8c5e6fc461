//! Every read query in queries/ runs against a real store (the demo
//! scenario) through `kdrift query`'s catalog, with values checked.

use kdrift_ingest::demo::ingest_scenario;
use kdrift_ingest::scenario::{generate, ScenarioConfig};
use kdrift_ingest::store::catalog::{self, CatalogError};
use kdrift_tests::temp_store;
use serde_json::Value;

#[test]
fn every_read_query_runs_on_the_demo_store() {
    let scenario = generate(&ScenarioConfig { seed: 2, scale: 1 });
    let facts = scenario.facts.clone();
    let (_dir, store) = temp_store();
    ingest_scenario(&store, scenario, 2).expect("ingest");
    let at = (facts.failure_at + chrono::Duration::minutes(10)).to_rfc3339();
    let values = |name: &str| -> String {
        match name {
            "namespace" => facts.pending_pod.namespace.clone(),
            "name" => facts.pending_pod.name.clone(),
            "at_us" => at.clone(),
            "kind" => "Node".to_string(),
            "pull_key" => "http://127.0.0.1:9428 account=0 project=0 layout=raw filter=".to_string(),
            other => panic!("no test value for parameter {other}"),
        }
    };
    let mut ran = 0;
    for q in catalog::list().into_iter().filter(|q| q.read_only) {
        let params: Vec<(String, String)> = q.params.iter().map(|p| (p.name.clone(), values(&p.name))).collect();
        let r = catalog::run(&store, q.name, &params).unwrap_or_else(|e| panic!("{}: {e}", q.name));
        let col =
            |c: &str| r.columns.iter().position(|x| x == c).unwrap_or_else(|| panic!("{}: no column {c}", q.name));
        match q.name {
            "pending_pods" => {
                assert_eq!(r.rows.len(), 1);
                assert_eq!(r.rows[0][col("name")], Value::String(facts.pending_pod.name.clone()));
                assert_eq!(r.rows[0][col("occurrences")], Value::from(facts.failed_scheduling_count));
            }
            "pod_failures" => assert_eq!(r.rows.len(), 1),
            "pod_scheduled" => assert_eq!(r.rows.len(), 0, "the pending pod was never scheduled"),
            "pod_at" => assert_eq!(r.rows[0][col("uid")], Value::String(facts.pending_pod.uid.clone())),
            "nodes_at" => assert_eq!(r.rows.len(), 5),
            "objects_at" => assert_eq!(r.rows.len(), 5, "the five Node objects"),
            "latest_observation" => assert!(r.rows[0][0].is_string(), "{:?}", r.rows),
            "pods_at" => assert!(r.rows.len() > 50, "{} pods", r.rows.len()),
            "store_counts" => assert_eq!(r.rows[0][col("nodes")], Value::from(5)),
            "get_schema_version" => assert_eq!(r.rows[0][0], Value::String("2".into())),
            "event_list" => {
                let row =
                    r.rows.iter().find(|row| row[col("name")] == Value::String(facts.failed_scheduling_event.clone()));
                let row = row.unwrap_or_else(|| panic!("event_list lacks {}", facts.failed_scheduling_event));
                assert_eq!(row[col("count")], Value::from(facts.failed_scheduling_count));
                assert_eq!(row[col("reason")], Value::String("FailedScheduling".into()));
            }
            "vl_last_window_end" => assert_eq!(r.rows[0], vec![Value::Null, Value::Null], "no VictoriaLogs pull"),
            "vl_windows" => assert!(r.rows.is_empty()),
            _ => {}
        }
        ran += 1;
    }
    assert!(ran >= 10, "ran {ran} queries");
}

#[test]
fn writes_and_bad_parameters_are_refused() {
    let (_dir, store) = temp_store();
    assert!(matches!(catalog::run(&store, "commit_observations", &[]), Err(CatalogError::NotARead(_))));
    assert!(matches!(catalog::run(&store, "nope", &[]), Err(CatalogError::Unknown(_))));
    let bad = catalog::run(&store, "nodes_at", &[("at_us".into(), "yesterday".into())]);
    assert!(matches!(bad, Err(CatalogError::BadValue { .. })), "{bad:?}");
    let extra = catalog::run(&store, "store_counts", &[("x".into(), "1".into())]);
    assert!(matches!(extra, Err(CatalogError::UnknownParam { .. })));
}
