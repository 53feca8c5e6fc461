//! Every read query in queries/ runs against a real store (the demo
//! scenario) through `kdrift query`'s catalog, with values checked.

use kdrift_ingest::ingest_scenario;
use kdrift_scenario::{generate, ScenarioConfig};
use kdrift_store::CatalogError;
use kdrift_store::InstantListError;
use kdrift_store::{list_queries, run_query};
use kdrift_tests::temp_store;
use serde_json::{json, Value};

#[test]
fn every_read_query_runs_on_the_demo_store() {
    let scenario = generate(&ScenarioConfig { seed: 2, scale: 1 });
    let facts = scenario.facts.clone();
    let (_dir, store) = temp_store();
    ingest_scenario(&store, scenario, 2).expect("ingest");
    let at = (facts.failure_at + chrono::Duration::minutes(10)).to_rfc3339();
    let values_nodes = || json!(["node-1"]).to_string();
    // The owners of the pods bound to node-1 (query node_owners).
    let values_owners = || {
        let params =
            [("nodes".to_string(), values_nodes()), ("until_us".to_string(), "2026-11-29T00:00:00Z".to_string())];
        let r = run_query(&store, "node_owners", &params).expect("node_owners");
        let owners = r.rows.iter().map(|row| json!({"namespace": row[0], "owner": row[1]}));
        Value::Array(owners.collect()).to_string()
    };
    let values = |name: &str| -> String {
        match name {
            "namespace" => facts.pending_pod.namespace.clone(),
            "name" => facts.pending_pod.name.clone(),
            "at_us" => at.clone(),
            // Before every change: the changes alone give the amounts.
            "checkpoint_us" => "0001-01-01T00:00:00Z".to_string(),
            "instants" => format!(
                "{},{}",
                (facts.failure_at + chrono::Duration::minutes(10)).timestamp_micros(),
                facts.start.timestamp_micros()
            ),
            "kind" => "Node".to_string(),
            "uid" => facts.pending_pod.uid.clone(),
            "since_us" => "2026-11-27T00:00:00Z".to_string(),
            "until_us" => "2026-11-29T00:00:00Z".to_string(),
            // Every node over since..until (2026-11-27T00:00:00Z..2026-11-29T00:00:00Z).
            "episodes" => {
                let every_node = (1..=5).map(|n| json!({"node": format!("node-{n}"), "from_us": 1795737600000000i64, "to_us": 1795910400000000i64}));
                Value::Array(every_node.collect()).to_string()
            }
            "nodes" => values_nodes(),
            "node" => "node-1".to_string(),
            // Measured usage: 15 minutes, an hour, p95, 5-minute steps.
            "max_age_micros" => "900000000".to_string(),
            "window_micros" => "3600000000".to_string(),
            "permille" => "950".to_string(),
            "step_micros" => "300000000".to_string(),
            "owners" => values_owners(),
            // The pods of those owners (query owner_pods).
            "pods" => {
                let r =
                    run_query(&store, "owner_pods", &[("owners".to_string(), values_owners())]).expect("owner_pods");
                let pods = r.rows.iter().map(|row| json!({"namespace": row[0], "name": row[1]}));
                Value::Array(pods.collect()).to_string()
            }
            "job" => facts.job_name.clone(),
            "pull_key" => "http://127.0.0.1:9428 raw".to_string(),
            "schema_version" => kdrift_store::SCHEMA_VERSION.to_string(),
            "rules_version" => kdrift_analyze::RULES_VERSION.to_string(),
            "first_operation" => "1".to_string(),
            "run_id" => "1".to_string(),
            "obs_ids" => {
                let r = run_query(&store, "pod_filter_fields_at", &[("at_us".into(), at.clone())]).expect("fields");
                json!([r.rows[0][0], r.rows[1][0]]).to_string()
            }
            "last_operation" => "2".to_string(),
            "lower_us" => "0".to_string(),
            "upper_us" => (chrono::Utc::now() + chrono::Duration::days(1)).timestamp_micros().to_string(),
            other => panic!("no test value for parameter {other}"),
        }
    };
    let mut ran = 0;
    for q in list_queries().into_iter().filter(|q| q.read_only) {
        let params: Vec<(String, String)> = q.params.iter().map(|p| (p.name.clone(), values(&p.name))).collect();
        let r = run_query(&store, q.name, &params).unwrap_or_else(|e| panic!("{}: {e}", q.name));
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
            "pod_rejections" => assert_eq!(r.rows.len(), 0, "nor rejected by a kubelet"),
            "pod_at" => assert_eq!(r.rows[0][col("uid")], Value::String(facts.pending_pod.uid.clone())),
            "nodes_at" => assert_eq!(r.rows.len(), 5),
            "nodes_at_instants" => assert_eq!(r.rows.len(), 10, "five nodes at each of two instants"),
            "requested_by_node" => {
                // At the failure node-1 holds 1942m of its 2000m (the demo's story).
                let at_us = (facts.failure_at + chrono::Duration::minutes(10)).timestamp_micros();
                let row = r
                    .rows
                    .iter()
                    .find(|row| row[col("at_us")] == at_us && row[col("node")] == "node-1")
                    .unwrap_or_else(|| panic!("no node-1 row: {:?}", r.rows));
                assert_eq!(row[col("cpu_millis")], Value::from(1942), "{row:?}");
            }
            "pods_summary_at" => assert_eq!(r.rows.len(), 2, "{:?}", r.rows),
            "requested_since_checkpoint" => {
                // The same 1942m on node-1 from the changes ingest keeps (schema v8).
                let row = r.rows.iter().find(|row| row[col("node")] == "node-1").expect("a node-1 row");
                assert_eq!(row[col("cpu_millis")], Value::from(1942), "{row:?}");
            }
            "requested_checkpoint_times" => assert!(r.rows.len() >= 2, "{:?}", r.rows),
            "objects_at" => assert_eq!(r.rows.len(), 5, "the five Node objects"),
            "latest_observation" => assert!(r.rows[0][0].is_string(), "{:?}", r.rows),
            "latest_observation_plausible" => {
                let all = run_query(&store, "latest_observation", &[]).expect("latest");
                assert_eq!(r.rows, all.rows, "the demo's times are all plausible");
            }
            "time_span_plausible" => {
                let all = run_query(&store, "time_span", &[]).expect("span");
                assert_eq!(r.rows, all.rows, "the demo's times are all plausible");
            }
            "pods_at" => assert!(r.rows.len() > 50, "{} pods", r.rows.len()),
            "pod_filter_fields_at" => {
                let pods_at = run_query(&store, "pods_at", &[("at_us".into(), at.clone())]).expect("pods_at");
                assert_eq!(r.rows.len(), pods_at.rows.len(), "the versions pods_at picks");
                let light = r.rows.iter().filter(|row| row[col("whole")] == Value::Bool(false)).count();
                assert!(light > 50, "{light} pods read from their filter fields alone");
            }
            "pod_models" => assert_eq!(r.rows.len(), 2, "the two versions asked for"),
            "store_counts" => assert_eq!(r.rows[0][col("nodes")], Value::from(5)),
            "get_schema_version" => {
                assert_eq!(r.rows[0][0], Value::String(kdrift_store::SCHEMA_VERSION.to_string()))
            }
            "event_list" => {
                let row =
                    r.rows.iter().find(|row| row[col("name")] == Value::String(facts.failed_scheduling_event.clone()));
                let row = row.unwrap_or_else(|| panic!("event_list lacks {}", facts.failed_scheduling_event));
                assert_eq!(row[col("count")], Value::from(facts.failed_scheduling_count));
                assert_eq!(row[col("reason")], Value::String("FailedScheduling".into()));
            }
            "vl_last_window_end" => assert_eq!(r.rows[0], vec![Value::Null, Value::Null], "no VictoriaLogs pull"),
            "vl_windows" => assert!(r.rows.is_empty()),
            "eviction_counts" => {
                let since_until: Vec<(String, String)> =
                    ["since_us", "until_us"].iter().map(|p| (p.to_string(), values(p))).collect();
                let all = run_query(&store, "pod_evictions", &since_until).expect("pod_evictions");
                assert!(!r.rows.is_empty() && all.rows.len() >= r.rows.len(), "{:?}", r.rows);
            }
            "scale_ups" => {
                // Over the whole history: the demo's rollouts, from the
                // ScalingReplicaSet versions ingest keeps apart (schema v13).
                let whole = [
                    ("since_us".to_string(), "0001-01-01T00:00:00Z".to_string()),
                    ("until_us".to_string(), "2100-01-01T00:00:00Z".to_string()),
                ];
                let all = run_query(&store, "scale_ups", &whole).expect("scale_ups");
                assert!(!all.rows.is_empty(), "the demo's rollouts scale ReplicaSets up");
                let message = all.columns.iter().position(|c| c == "message").expect("message column");
                let replica_set = all.columns.iter().position(|c| c == "replica_set").expect("replica_set column");
                for row in &all.rows {
                    let text = row[message].as_str().expect("a message");
                    let rs = row[replica_set].as_str().expect("a ReplicaSet");
                    assert!(text.starts_with(&format!("Scaled up replica set {rs} to ")), "{row:?}");
                }
            }
            // Every pod the demo's events name has stored objects in its namespace.
            "unstored_namespaces" => assert!(r.rows.is_empty(), "{:?}", r.rows),
            "episode_evictions" => {
                // Every node over the whole range: exactly pod_evictions' rows.
                let since_until: Vec<(String, String)> =
                    ["since_us", "until_us"].iter().map(|p| (p.to_string(), values(p))).collect();
                let all = run_query(&store, "pod_evictions", &since_until).expect("pod_evictions");
                assert!(r.rows.len() > 40, "{} rows", r.rows.len());
                assert_eq!(r.rows, all.rows);
            }
            "node_owners" => {
                assert!(r.rows.len() >= 3, "{:?}", r.rows);
                assert!(r.rows.iter().all(|row| row[col("namespace")].is_string() && row[col("owner")].is_string()));
            }
            "owner_bindings" => {
                // Every binding to node-1, and those owners' pods on other nodes.
                let since_until: Vec<(String, String)> =
                    ["since_us", "until_us"].iter().map(|p| (p.to_string(), values(p))).collect();
                let all = run_query(&store, "pod_placements", &since_until).expect("pod_placements");
                let node = all.columns.iter().position(|c| c == "node").expect("node column");
                let on_node_1: Vec<&Vec<Value>> = all.rows.iter().filter(|row| row[node] == "node-1").collect();
                assert!(on_node_1.len() > 10, "{} bindings to node-1", on_node_1.len());
                assert!(on_node_1.iter().all(|row| r.rows.contains(row)), "every binding to node-1");
                assert!(r.rows.iter().any(|row| row[col("node")] != "node-1"), "the owners' pods elsewhere");
                assert!(r.rows.len() < all.rows.len(), "not every binding");
            }
            "bindings_to_node" => {
                // Exactly pod_placements' bindings to node-1, from the beginning.
                let from_start = [
                    ("since_us".to_string(), "0001-01-01T00:00:00Z".to_string()),
                    ("until_us".to_string(), values("until_us")),
                ];
                let all = run_query(&store, "pod_placements", &from_start).expect("pod_placements");
                let on_node_1: Vec<Vec<Value>> =
                    all.rows.iter().filter(|row| row[col("node")] == "node-1").cloned().collect();
                assert!(on_node_1.len() > 10, "{} bindings to node-1", on_node_1.len());
                assert_eq!(r.rows, on_node_1);
            }
            "owner_pods" => {
                // Every pod bound to node-1 is one of its owners' pods.
                let names: Vec<&Value> = r.rows.iter().map(|row| &row[col("name")]).collect();
                assert!(names.len() > 28, "{} pods", names.len());
                let alone = [
                    ("pods".to_string(), "[]".to_string()),
                    ("nodes".to_string(), values_nodes()),
                    ("until_us".to_string(), values("until_us")),
                ];
                let bound = run_query(&store, "owner_bindings", &alone).expect("owner_bindings of node-1 alone");
                assert!(bound.rows.len() > 10, "{} bindings to node-1", bound.rows.len());
                assert!(bound.rows.iter().all(|row| names.contains(&&row[1])), "every pod bound to node-1");
            }
            "owner_evictions" => {
                let since_until: Vec<(String, String)> =
                    ["since_us", "until_us"].iter().map(|p| (p.to_string(), values(p))).collect();
                let all = run_query(&store, "pod_evictions", &since_until).expect("pod_evictions");
                assert!(!r.rows.is_empty(), "the owners' pods were evicted by the drains");
                assert!(r.rows.iter().all(|row| all.rows.contains(row)), "a part of pod_evictions");
                assert!(r.rows.len() < all.rows.len(), "not every eviction");
            }
            _ => {}
        }
        ran += 1;
    }
    assert!(ran >= 10, "ran {ran} queries");
}

#[test]
fn writes_and_bad_parameters_are_refused() {
    let (_dir, store) = temp_store();
    assert!(matches!(run_query(&store, "commit_observations", &[]), Err(CatalogError::NotARead(_))));
    assert!(matches!(run_query(&store, "nope", &[]), Err(CatalogError::Unknown(_))));
    let bad = run_query(&store, "nodes_at", &[("at_us".into(), "yesterday".into())]);
    assert!(matches!(bad, Err(CatalogError::BadValue { .. })), "{bad:?}");
    // Unit mistakes get the hint `--at` gives (new-user trial: `query` gave none).
    let at =
        |v: &str| run_query(&store, "nodes_at", &[("at_us".into(), v.into())]).expect_err("a unit mistake").to_string();
    assert!(at("1795842000000000000").ends_with("nanoseconds? (divide by 1000)"), "{}", at("1795842000000000000"));
    assert!(
        at("1795842000").ends_with("seconds (multiply by 1000000) or milliseconds (by 1000)?"),
        "{}",
        at("1795842000")
    );
    let listed = run_query(&store, "requested_by_node", &[("instants".into(), "1795842000000".into())]);
    assert!(listed.expect_err("ms").to_string().ends_with("or milliseconds (by 1000)?"));
    let extra = run_query(&store, "store_counts", &[("x".into(), "1".into())]);
    assert_eq!(
        extra.expect_err("unknown parameter").to_string(),
        "query store_counts has no parameter \"x\" (it takes none)"
    );
    let extra = run_query(&store, "nodes_at", &[("x".into(), "1".into())]);
    assert_eq!(
        extra.expect_err("unknown parameter").to_string(),
        "query nodes_at has no parameter \"x\" (it takes: at_us)"
    );
    // A list of instants: every element checked, an empty list refused (it used to give 0 rows).
    let instants = |v: &str| run_query(&store, "requested_by_node", &[("instants".into(), v.into())]);
    match instants("1795842600000000,abc") {
        Err(CatalogError::BadInstants { name, problem: InstantListError::Element(e), .. }) => {
            assert_eq!((name.as_str(), e.given.as_str()), ("instants", "abc"))
        }
        other => panic!("{other:?}"),
    }
    for empty in ["", "  "] {
        assert!(
            matches!(instants(empty), Err(CatalogError::BadInstants { problem: InstantListError::Empty, .. })),
            "{empty:?}"
        );
    }
    // An empty element is refused, not skipped.
    for (value, position) in [(" , ", 1), ("1795842600000000,,1795842600000001", 2), ("1795842600000000,", 2)] {
        match instants(value) {
            Err(CatalogError::BadInstants { problem: InstantListError::EmptyElement { position: p }, .. }) => {
                assert_eq!(p, position, "{value:?}")
            }
            other => panic!("{value:?}: {other:?}"),
        }
    }
    // A parameter given twice is refused, naming it and both values.
    let twice = run_query(
        &store,
        "nodes_at",
        &[("at_us".into(), "2026-11-28T05:00:00Z".into()), ("at_us".into(), "1795842600000000".into())],
    )
    .expect_err("twice");
    assert_eq!(
        twice.to_string(),
        "--param at_us is given 2 times (at_us=\"2026-11-28T05:00:00Z\", at_us=\"1795842600000000\"); give it once"
    );
}

#[test]
fn instants_are_rfc3339_or_microseconds_bound_as_microseconds() {
    let scenario = generate(&ScenarioConfig { seed: 1, scale: 1 });
    let (_dir, store) = temp_store();
    ingest_scenario(&store, scenario, 1).expect("ingest");
    let run = |v: &str| {
        run_query(&store, "nodes_at_instants", &[("instants".into(), v.into())]).unwrap_or_else(|e| panic!("{v}: {e}"))
    };
    let by_time = run("2026-11-28T07:10:00+02:00,2026-11-27T00:00:00Z");
    let by_us = run("1795842600000000, 1795737600000000");
    assert_eq!(by_time, by_us);
    let at_us: std::collections::BTreeSet<i64> = by_time.rows.iter().filter_map(|r| r[0].as_i64()).collect();
    assert_eq!(at_us.into_iter().collect::<Vec<_>>(), [1_795_737_600_000_000, 1_795_842_600_000_000]);
    assert_eq!(by_time.rows.len(), 10, "five nodes at each instant");
}

/// FNV-1a 64 of a text, to abbreviate long values in golden files.
fn fnv64(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3))
}

/// A value as written to a golden file: long strings and whole objects
/// (a JSON column's, compact) as their length and hash.
fn golden_value(v: &Value) -> Value {
    let abbreviated = |s: &str| Value::String(format!("<{} chars, fnv64 {:016x}>", s.chars().count(), fnv64(s)));
    match v {
        Value::String(s) if s.chars().count() > 120 => abbreviated(s),
        Value::Object(_) if v.to_string().chars().count() > 120 => abbreviated(&v.to_string()),
        other => other.clone(),
    }
}

/// The parameter values every golden run uses (the demo scenario, seed 1).
fn golden_params(query: &str, param: &str, facts: &kdrift_scenario::ScenarioFacts) -> String {
    match (query, param) {
        ("jobs" | "job_name_namespaces", "name") => facts.cronjob_name.clone(),
        (_, "namespace") => facts.pending_pod.namespace.clone(),
        (_, "name") => facts.pending_pod.name.clone(),
        (_, "job") => facts.job_name.clone(),
        (_, "kind") => "Node".into(),
        (_, "uid") => facts.pending_pod.uid.clone(),
        (_, "at_us") => (facts.failure_at + chrono::Duration::minutes(10)).to_rfc3339(),
        (_, "checkpoint_us") => "0001-01-01T00:00:00Z".into(),
        (_, "instants") => format!(
            "{},{}",
            (facts.failure_at + chrono::Duration::minutes(10)).timestamp_micros(),
            facts.start.timestamp_micros()
        ),
        (_, "since_us") => "2026-11-28T02:00:00Z".into(),
        (_, "until_us") => "2026-11-28T02:04:00Z".into(),
        // node-2 over since..until.
        (_, "episodes") => r#"[{"node":"node-2","from_us":1795831200000000,"to_us":1795831440000000}]"#.into(),
        (_, "pull_key") => "http://127.0.0.1:9428 raw".into(),
        (_, "schema_version") => kdrift_store::SCHEMA_VERSION.to_string(),
        (_, "rules_version") => kdrift_analyze::RULES_VERSION.to_string(),
        (_, "first_operation") => "1".into(),
        (_, "run_id") => "1".into(),
        (_, "obs_ids") => "[1380, 1620]".into(),
        (_, "last_operation") => "2".into(),
        (_, "lower_us") => "1970-01-01T00:00:00Z".into(),
        (_, "upper_us") => "2100-01-01T00:00:00Z".into(),
        (_, "nodes") => r#"["node-1"]"#.into(),
        (_, "node") => "node-1".into(),
        (_, "max_age_micros") => "900000000".into(),
        (_, "window_micros") => "3600000000".into(),
        (_, "permille") => "950".into(),
        (_, "step_micros") => "300000000".into(),
        (_, "owners") => {
            r#"[{"namespace":"web","owner":"api-c6w2dh2mbv"},{"namespace":"web","owner":"docs-jhwfr8w8j9"}]"#.into()
        }
        (_, "pods") => {
            r#"[{"namespace":"web","name":"api-c6w2dh2mbv-psjx4"},{"namespace":"web","name":"api-c6w2dh2mbv-zh5q2"}]"#
                .into()
        }
        (q, p) => panic!("{q}: no golden value for parameter {p}"),
    }
}

/// Every read query in queries/ against the demo store (seed 1), compared
/// with its golden file in tests/golden/queries/ (rows in the query's own
/// order, whole objects as length and hash). `KDRIFT_UPDATE_GOLDEN=1`
/// rewrites the files. Each query also runs twice (same rows: deterministic
/// order) and, from its SQL text alone, in a plain DuckDB connection on the
/// store file (`PREPARE q AS …; EXECUTE q(…)` as in the duckdb shell, no
/// kdrift code, only the schema's own macros).
#[test]
fn every_read_query_matches_its_golden_file_and_runs_from_the_sql_text_alone() {
    let scenario = generate(&ScenarioConfig { seed: 1, scale: 1 });
    let facts = scenario.facts.clone();
    let dir = tempfile::tempdir().expect("tmp");
    let path = dir.path().join("golden.duckdb");
    let store = kdrift_store::Store::open(&path).expect("store");
    ingest_scenario(&store, scenario, 1).expect("ingest");
    // As `kdrift ingest` leaves it: the drain moves kept (schema v9).
    kdrift_tests::keep_moves(&store).expect("keep the drain moves");
    let update = std::env::var_os("KDRIFT_UPDATE_GOLDEN").is_some();
    let golden_dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("golden/queries");
    let mut failures = Vec::new();
    let mut literal_runs = Vec::new();
    let reads: Vec<_> = list_queries().into_iter().filter(|q| q.read_only).collect();
    for q in &reads {
        let sql = kdrift_store::sql::by_name(q.name).expect("registered").sql;
        assert!(sql.lines().any(|l| l.starts_with("-- cli: ")), "{}: no `-- cli:` header line", q.file);
        let params: Vec<(String, String)> =
            q.params.iter().map(|p| (p.name.clone(), golden_params(q.name, &p.name, &facts))).collect();
        let r = run_query(&store, q.name, &params).unwrap_or_else(|e| panic!("{}: {e}", q.name));
        let again = run_query(&store, q.name, &params).expect("again");
        assert_eq!(r, again, "{}: two runs differ (order not deterministic)", q.name);
        let mut text = format!("-- query: {} ({})\n", q.name, q.file);
        let shown: Vec<String> = params.iter().map(|(k, v)| format!("{k}={v}")).collect();
        text.push_str(&format!("-- params: {}\n-- rows: {}\n", shown.join(" "), r.rows.len()));
        text.push_str(&r.columns.join("\t"));
        text.push('\n');
        for row in &r.rows {
            // A run's start and finish are wall-clock times: the same on no
            // two runs (a drain operation's start is the history's).
            let row: Vec<Value> = row
                .iter()
                .zip(&r.columns)
                .map(|(v, c)| {
                    if matches!(c.as_str(), "started_at" | "finished_at")
                        && !v.is_null()
                        && !q.name.starts_with("drain_")
                    {
                        Value::String("<wall clock>".into())
                    } else {
                        golden_value(v)
                    }
                })
                .collect();
            text.push_str(&serde_json::to_string(&row).expect("json"));
            text.push('\n');
        }
        let file = golden_dir.join(format!("{}.txt", q.name));
        if update {
            std::fs::create_dir_all(&golden_dir).expect("mkdir");
            std::fs::write(&file, &text).expect("write golden");
        } else {
            match std::fs::read_to_string(&file) {
                Ok(expected) if expected == text => {}
                Ok(expected) => {
                    let line = expected.lines().zip(text.lines()).position(|(a, b)| a != b).unwrap_or(0) + 1;
                    failures.push(format!("{}: differs from {} at line {line}", q.name, file.display()));
                }
                Err(e) => {
                    failures.push(format!("{}: {} ({e}); run with KDRIFT_UPDATE_GOLDEN=1", q.name, file.display()))
                }
            }
        }
        // The literal form a shell user would type.
        let literals: Vec<String> = q
            .params
            .iter()
            .zip(&params)
            .map(|(spec, (_, v))| {
                if spec.name.ends_with("_us") {
                    let t = chrono::DateTime::parse_from_rfc3339(v).expect("time");
                    t.timestamp_micros().to_string()
                } else {
                    format!("'{}'", v.replace('\'', "''"))
                }
            })
            .collect();
        literal_runs.push((
            q.name,
            sql.trim_end().trim_end_matches(';').to_string(),
            literals.join(", "),
            r.rows.len(),
        ));
    }
    drop(store);
    let plain = kdrift_store::test_support::RawConnection::open_read_only(&path).expect("plain connection");
    for (name, sql, literals, rows) in literal_runs {
        plain
            .execute_batch(&format!("DEALLOCATE PREPARE q; PREPARE q AS {sql};"))
            .or_else(|_| plain.execute_batch(&format!("PREPARE q AS {sql};")))
            .unwrap_or_else(|e| panic!("{name}: PREPARE: {e}"));
        let mut stmt =
            plain.prepare(&format!("EXECUTE q({literals})")).unwrap_or_else(|e| panic!("{name}: EXECUTE: {e}"));
        let n = stmt.query_map([], |_| Ok(())).expect("query").count();
        assert_eq!(n, rows, "{name}: the shell form returns other rows");
    }
    assert!(
        failures.is_empty(),
        "golden files differ (KDRIFT_UPDATE_GOLDEN=1 rewrites them):\n{}",
        failures.join("\n")
    );
    assert!(reads.len() >= 22, "{} read queries", reads.len());
}
