//! The store on a real DuckDB file: creation, refusal of foreign or newer
//! files, append-only runs, dedupe, and bad input that keeps good records.

use std::io::Write;

use kdrift_ingest::{ingest_files, NoProgress};
use kdrift_store::run_query;
use kdrift_store::{Reader, Store};
use kdrift_store::{StoreError, SCHEMA_VERSION};
use kdrift_tests::temp_store;

#[test]
fn a_new_store_is_created_and_reopened() {
    let dir = tempfile::tempdir().expect("tmp");
    let path = dir.path().join("k.duckdb");
    assert!(matches!(Store::open_existing(&path), Err(StoreError::Missing { .. })));
    drop(Store::open(&path).expect("create"));
    let store = Store::open_existing(&path).expect("reopen");
    assert_eq!(store.counts().expect("counts").observations, 0);
}

#[test]
fn a_foreign_duckdb_file_is_refused() {
    let dir = tempfile::tempdir().expect("tmp");
    // Test fixtures: someone else's databases, one holding a table, one
    // only a view, one only a sequence.
    for (name, ddl) in [
        ("table", "CREATE TABLE accounts (id INTEGER)"),
        ("view", "CREATE VIEW answer AS SELECT 42 AS a"),
        ("sequence", "CREATE SEQUENCE ids"),
    ] {
        let path = dir.path().join(format!("{name}.duckdb"));
        kdrift_store::test_support::RawConnection::open(&path).expect("open").execute_batch(ddl).expect("create");
        let err = Store::open(&path).expect_err("must refuse");
        assert!(matches!(err, StoreError::NotAStore { .. }), "{name}: {err}");
        assert!(err.to_string().contains("not a kdrift store"), "{name}: {err}");
        let c = kdrift_store::test_support::RawConnection::open(&path).expect("reopen");
        let tables: i64 = c.query_row("SELECT count(*) FROM duckdb_tables()", [], |r| r.get(0)).expect("count");
        assert_eq!(tables, i64::from(name == "table"), "{name}: nothing of kdrift's was written");
        assert!(err.to_string().ends_with("refusing to write into it"), "{name}: {err}");
    }
}

#[test]
fn an_empty_duckdb_file_opened_to_read_says_there_is_nothing_to_read_not_that_it_refuses_to_write() {
    // Break-it finding: `kdrift query runs` on an empty DuckDB file said
    // "refusing to write into it", though it only reads.
    let dir = tempfile::tempdir().expect("tmp");
    let path = dir.path().join("empty.duckdb");
    drop(kdrift_store::test_support::RawConnection::open(&path).expect("create"));
    let err = Store::open_existing(&path).expect_err("no kdrift store");
    assert!(matches!(err, StoreError::NotAStore { reading: true, .. }), "{err}");
    assert_eq!(
        err.to_string(),
        format!(
            "{} is a DuckDB database but not a kdrift store (no kdrift_meta table); there is nothing of kdrift's in \
             it to read",
            path.display()
        )
    );
}

#[test]
fn rows_an_older_kdrift_left_in_the_stored_staging_table_are_emptied_on_open() {
    let dir = tempfile::tempdir().expect("tmp");
    let path = dir.path().join("k.duckdb");
    drop(Store::open(&path).expect("create"));
    {
        // Test fixture: an older kdrift, killed mid-run, left a staged row in the file.
        let c = kdrift_store::test_support::RawConnection::open(&path).expect("open");
        c.execute_batch(
            "INSERT INTO staging_observations (seq, observed_at_us, observed_at_estimated, change, kind, \
             api_version, namespace, name, content_hash, location, object) \
             VALUES (1, 0, false, 'LISTED', 'Event', 'v1', 'default', 'e', 7, 'old', '{}')",
        )
        .expect("leftover");
    }
    let store = Store::open(&path).expect("reopen");
    let other = store.try_clone().expect("second connection");
    let left = other.raw_i64("SELECT count(*) FROM staging_observations").expect("count");
    assert_eq!(left, 0, "the stored staging table is emptied before any TEMP one shadows it");
    assert_eq!(store.counts().expect("counts").observations, 0, "and nothing of it was committed");
}

#[test]
fn a_newer_store_is_refused_with_a_clear_message() {
    let dir = tempfile::tempdir().expect("tmp");
    let path = dir.path().join("new.duckdb");
    drop(Store::open(&path).expect("create"));
    {
        // Test fixture: pretend a future kdrift wrote it.
        let c = kdrift_store::test_support::RawConnection::open(&path).expect("open");
        c.execute("UPDATE kdrift_meta SET value = '99' WHERE key = 'schema_version'", []).expect("bump");
    }
    let err = Store::open(&path).expect_err("must refuse");
    match &err {
        StoreError::TooNew { found, supported, .. } => {
            assert_eq!((*found, *supported), (99, SCHEMA_VERSION));
        }
        other => panic!("unexpected {other}"),
    }
    assert!(err.to_string().contains("upgrade kdrift"), "{err}");
}

#[test]
fn a_version_1_store_is_migrated_to_the_current_version_and_keeps_its_data() {
    let dir = tempfile::tempdir().expect("tmp");
    let path = dir.path().join("v1.duckdb");
    let file = write(dir.path(), "events.json", EVENT_A.as_bytes());
    {
        let store = Store::open(&path).expect("create");
        ingest_files(&store, std::slice::from_ref(&file), &mut NoProgress).expect("ingest");
    }
    {
        // Test fixture: the store as kdrift 0.1 (schema 1) left it.
        let c = kdrift_store::test_support::RawConnection::open(&path).expect("open");
        c.execute_batch(&format!(
            "DROP TABLE usage_samples; DROP TABLE usage_windows; DROP TABLE vl_windows; {DROP_V14} {DROP_V13} {DROP_V12} {DROP_V11} {DROP_V10} {DROP_V9} {DROP_V8} {DROP_V6} {DROP_V5} {DROP_V4} {DROP_V3} UPDATE kdrift_meta SET value = '1' WHERE key = 'schema_version'"
        ))
        .expect("downgrade");
    }
    let store = Store::open(&path).expect("migrate");
    let version = kdrift_store::run_query(&store, "get_schema_version", &[]).expect("version");
    assert_eq!(version.rows[0][0], serde_json::Value::String(SCHEMA_VERSION.to_string()));
    assert_eq!(SCHEMA_VERSION, 18);
    assert!(kdrift_store::run_query(&store, "vl_windows", &[]).expect("vl_windows exists").rows.is_empty());
    assert!(kdrift_store::run_query(&store, "usage_windows", &[]).expect("usage_windows exists").rows.is_empty());
    assert_eq!(store.counts().expect("counts").events, 1, "the data stays");
}

/// Test fixture: gives a store the derived state schema v6 left: schema 7
/// changed no table but the version order (queries/schema/v7.sql), so the
/// derivations that order versions run again with every version's
/// resourceVersion blanked (the order is then v6's: observed_at, obs_id),
/// then the resourceVersions are put back from `observations`.
fn downgrade_to_v6_order(path: &std::path::Path) {
    let store = Store::open(path).expect("open");
    let c = store.conn();
    c.execute_batch(
        "UPDATE pod_versions SET resource_version = NULL; UPDATE node_versions SET resource_version = NULL;",
    )
    .expect("blank resourceVersions");
    store.rederive_everything().expect("rederive in v6's order");
    c.execute_batch(
        "UPDATE pod_versions SET resource_version = o.resource_version FROM observations o \
           WHERE o.obs_id = pod_versions.obs_id; \
         UPDATE node_versions SET resource_version = o.resource_version FROM observations o \
           WHERE o.obs_id = node_versions.obs_id; \
         UPDATE kdrift_meta SET value = '6' WHERE key = 'schema_version';",
    )
    .expect("downgrade");
    c.execute_batch(DROP_V14).expect("drop schema 14's column");
    c.execute_batch(DROP_V13).expect("drop schema 13's tables");
    c.execute_batch(DROP_V12).expect("drop schema 12's tables");
    c.execute_batch(DROP_V11).expect("drop schema 11's tables");
    c.execute_batch(DROP_V10).expect("drop schema 10's columns");
    c.execute_batch(DROP_V9).expect("drop schema 9's tables");
    c.execute_batch(DROP_V8).expect("drop schema 8's tables");
}

/// Test fixture: undoes schema v10 (the filter fields of pod versions).
const DROP_V10: &str = "ALTER TABLE pod_versions DROP COLUMN labels; ALTER TABLE pod_versions DROP COLUMN scheduling_terms; \
    ALTER TABLE staging_observations DROP COLUMN labels; ALTER TABLE staging_observations DROP COLUMN scheduling_terms;";

/// Test fixture: undoes schema v14 (the pod versions first observed late, flagged).
const DROP_V14: &str = "ALTER TABLE pod_versions DROP COLUMN first_seen_late;";

/// Test fixture: undoes schema v13 (the ScalingReplicaSet event versions kept apart).
const DROP_V13: &str = "DROP TABLE replica_set_scalings;";

/// Test fixture: undoes schema v12 (the kept drain episodes, the bindings' sort record).
const DROP_V12: &str = "DROP TABLE drain_episodes; DROP TABLE pod_bindings_sorted;";

/// Test fixture: undoes schema v11 (the name index).
const DROP_V11: &str = "DROP MACRO first_obs_naming; DROP MACRO last_obs_naming; DROP TABLE name_index; \
    DROP TABLE name_index_sorted; DROP TABLE pod_namespaces;";

/// Test fixture: undoes schema v9 (the kept drain moves).
const DROP_V9: &str = "DROP TABLE drain_moves; DROP TABLE drain_moves_kept;";

/// Test fixture: undoes schema v8 (the requested-amount changes and checkpoints).
const DROP_V8: &str = "DROP MACRO requested_changed_since; DROP MACRO hour_after; DROP TABLE requested_changes; \
    DROP TABLE requested_checkpoints; DROP TABLE requested_checkpoint_times;";

#[test]
fn a_version_6_store_gets_the_version_order_of_ties_when_migrated() {
    use kdrift_tests::tied_versions::{ingest, orders, Answers};
    let orders = orders();
    // A fresh store, the history in the apiserver's order.
    let (fresh_dir, fresh) = kdrift_tests::temp_store();
    ingest(&fresh, fresh_dir.path(), &orders[0].1);
    let expected = Answers::of(&fresh);
    // The later version of each tie ingested first, as schema 6 kept it.
    let dir = tempfile::tempdir().expect("tmp");
    let path = dir.path().join("v6.duckdb");
    ingest(&Store::open(&path).expect("create"), dir.path(), &orders[1].1);
    downgrade_to_v6_order(&path);
    {
        // Test fixture check: v6's intervals are the ingest order's (n1's cordoned version is its newest).
        let c = kdrift_store::test_support::RawConnection::open(&path).expect("open");
        let newest: String = c
            .query_row(
                "SELECT resource_version FROM node_versions WHERE name = 'n1' AND valid_until = 'infinity'",
                [],
                |r| r.get(0),
            )
            .expect("n1's newest version");
        assert_eq!(newest, "100", "the fixture leaves the v6 state");
    }
    let migrated = Store::open_existing(&path).expect("migrated, then opened read-only");
    let version = kdrift_store::run_query(&migrated, "get_schema_version", &[]).expect("version");
    assert_eq!(version.rows[0][0], serde_json::Value::String(SCHEMA_VERSION.to_string()));
    let got = Answers::of(&migrated);
    assert_eq!(got.last_versions, ["101", "92", "103"]);
    assert_eq!(got.pods[2], Vec::<String>::new(), "the pod is gone after the deletion");
    assert_eq!(got.differences(&expected), Vec::<&str>::new(), "the migrated store answers as a fresh one");
    assert_eq!(got, expected);
}

/// Test fixture: undoes schema v6 (node signals as a table).
const DROP_V6: &str = "DROP MACRO TABLE batch_nodes; DROP TABLE node_signals;";

/// Test fixture: undoes schema v5 (bindings and eviction evidence as tables),
/// giving back v4's `event_only_bindings`.
const DROP_V5: &str = "DROP MACRO TABLE batch_pods; DROP TABLE pod_bindings; DROP TABLE eviction_evidence; \
    CREATE TABLE event_only_bindings (namespace VARCHAR NOT NULL, name VARCHAR NOT NULL, uid VARCHAR NOT NULL, \
    node VARCHAR NOT NULL, bound_at TIMESTAMP NOT NULL, owner_kind VARCHAR, owner_name VARCHAR, created_at TIMESTAMP);";

/// Test fixture: undoes schema v4 (version intervals, usage columns, event-only bindings, macros).
const DROP_V4: &str = "DROP MACRO TABLE pod_versions_at; DROP MACRO TABLE node_versions_at; \
    DROP TABLE event_only_bindings; \
    ALTER TABLE staging_observations DROP COLUMN usage_node; ALTER TABLE staging_observations DROP COLUMN requests_cpu; \
    ALTER TABLE staging_observations DROP COLUMN requests_memory; \
    ALTER TABLE staging_observations DROP COLUMN requests_other; ALTER TABLE staging_observations DROP COLUMN model_error; \
    ALTER TABLE pod_versions DROP COLUMN valid_until; ALTER TABLE pod_versions DROP COLUMN first_version; \
    ALTER TABLE pod_versions DROP COLUMN usage_node; ALTER TABLE pod_versions DROP COLUMN requests_cpu; \
    ALTER TABLE pod_versions DROP COLUMN requests_memory; ALTER TABLE pod_versions DROP COLUMN requests_other; \
    ALTER TABLE pod_versions DROP COLUMN model_error; \
    ALTER TABLE node_versions DROP COLUMN valid_until; ALTER TABLE node_versions DROP COLUMN first_version;";

/// Test fixture: undoes schema v3 (the `model` columns).
const DROP_V3: &str = "ALTER TABLE staging_observations DROP COLUMN model; \
    ALTER TABLE pod_versions DROP COLUMN model; ALTER TABLE pod_versions DROP COLUMN scheduled_at; \
    ALTER TABLE pod_versions DROP COLUMN disrupted_at; ALTER TABLE pod_versions DROP COLUMN disruption; \
    ALTER TABLE node_versions DROP COLUMN model;";

const POD_AND_NODE: &str = r#"{"apiVersion":"v1","kind":"List","items":[
{"apiVersion":"v1","kind":"Node","metadata":{"name":"node-1","creationTimestamp":"2026-01-01T00:00:00Z"},"status":{"allocatable":{"cpu":"2","memory":"4Gi","pods":"110"},"images":[{"names":["big/image:1"],"sizeBytes":1}]}},
{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web-1","namespace":"shop","uid":"w1","creationTimestamp":"2026-01-01T00:00:00Z",
 "managedFields":[{"manager":"kubectl"}]},"spec":{"nodeName":"node-1","containers":[{"name":"app","image":"web:1",
 "resources":{"requests":{"cpu":"300m","memory":"64Mi"}}}]},"status":{"phase":"Running"}}]}"#;

#[test]
fn a_version_2_store_is_migrated_even_when_opened_for_analysis() {
    let dir = tempfile::tempdir().expect("tmp");
    let path = dir.path().join("v2.duckdb");
    let file = write(dir.path(), "objects.json", POD_AND_NODE.as_bytes());
    {
        let store = Store::open(&path).expect("create");
        ingest_files(&store, std::slice::from_ref(&file), &mut NoProgress).expect("ingest");
        // Written at ingest: the fields the model reads (the container's image
        // too: RemoveDuplicates), without managedFields or the node's image list.
        let pods = kdrift_store::run_query(&store, "pods_at", &[("at_us".into(), "2026-02-01T00:00:00Z".into())])
            .expect("pods_at");
        let object = &pods.rows[0][6];
        assert!(object.is_object(), "a JSON column's object: {object}");
        let text = object.to_string();
        assert!(text.contains("300m") && !text.contains("managedFields") && text.contains("web:1"), "{text}");
    }
    {
        // Test fixture: the store as schema 2 left it.
        let c = kdrift_store::test_support::RawConnection::open(&path).expect("open");
        c.execute_batch(&format!(
            "{DROP_V14} {DROP_V13} {DROP_V12} {DROP_V11} {DROP_V10} {DROP_V9} {DROP_V8} {DROP_V6} {DROP_V5} {DROP_V4} {DROP_V3} UPDATE kdrift_meta SET value = '2' WHERE key = 'schema_version'"
        ))
        .expect("downgrade");
    }
    let store = Store::open_existing(&path).expect("migrated, then opened read-only");
    let version = kdrift_store::run_query(&store, "get_schema_version", &[]).expect("version");
    assert_eq!(version.rows[0][0], serde_json::Value::String(SCHEMA_VERSION.to_string()));
    // Versions stored before the migration carry their whole object.
    let at = chrono::DateTime::parse_from_rfc3339("2026-02-01T00:00:00Z").expect("t").with_timezone(&chrono::Utc);
    let cluster = kdrift_analyze::ClusterAt::load(&store, at).expect("state");
    assert_eq!(cluster.nodes.len(), 1);
    assert_eq!(cluster.nodes[0].allocatable.get("cpu"), 2000);
    assert_eq!(cluster.pods.len(), 1);
    assert_eq!(cluster.pods[0].requests.get("cpu"), 300);
    assert_eq!(cluster.pods[0].node_name.as_deref(), Some("node-1"));
    // v4 columns backfilled from those objects: the per-node aggregates see the pod's 300m.
    let amounts = kdrift_analyze::amounts_at(&store, &[at]).expect("amounts");
    assert_eq!(amounts[0].usage_of("node-1").requested.get("cpu"), 300);
    assert_eq!(amounts[0].usage_of("node-1").requested.get("pods"), 1);
    // v5: the bindings table, filled by the migration from the stored version.
    let (from, to) = (kdrift_analyze::beginning(), kdrift_analyze::far_future());
    let placed = kdrift_analyze::placements(&store, from, to).expect("placements");
    let placed: Vec<_> = placed.iter().map(|p| (p.name.as_str(), p.node.as_str(), p.known_from.as_str())).collect();
    assert_eq!(placed, vec![("web-1", "node-1", "object")]);
}

#[test]
fn a_version_3_store_gets_intervals_and_requested_amounts_when_migrated() {
    let dir = tempfile::tempdir().expect("tmp");
    let path = dir.path().join("v3.duckdb");
    let file = write(dir.path(), "objects.json", POD_AND_NODE.as_bytes());
    // The same pod a day later, on another node with 500m: two versions, two intervals.
    let moved = POD_AND_NODE
        .replace("\"nodeName\":\"node-1\"", "\"nodeName\":\"node-2\"")
        .replace("300m", "500m")
        .replace("\"name\":\"node-1\"", "\"name\":\"node-2\"")
        .replace(
            "\"status\":{\"phase\":\"Running\"}",
            "\"status\":{\"phase\":\"Running\",\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\",\"lastTransitionTime\":\"2026-01-02T00:00:00Z\"}]}",
        );
    assert!(moved.contains("2026-01-02"));
    let later = write(dir.path(), "later.json", moved.as_bytes());
    {
        let store = Store::open(&path).expect("create");
        let report = ingest_files(&store, &[file], &mut NoProgress).expect("ingest");
        assert_eq!(report.error_count(), 0);
        let report = ingest_files(&store, &[later], &mut NoProgress).expect("ingest later");
        assert_eq!(report.error_count(), 0);
    }
    {
        // Test fixture: the store as kdrift 0.1 with schema v3 left it.
        let c = kdrift_store::test_support::RawConnection::open(&path).expect("open");
        c.execute_batch(&format!(
            "{DROP_V14} {DROP_V13} {DROP_V12} {DROP_V11} {DROP_V10} {DROP_V9} {DROP_V8} {DROP_V6} {DROP_V5} {DROP_V4} UPDATE kdrift_meta SET value = '3' WHERE key = 'schema_version'"
        ))
        .expect("downgrade");
    }
    let store = Store::open_existing(&path).expect("migrated, then opened read-only");
    // The files carry no observation time: each version is dated by its newest timestamp.
    let t = |s: &str| chrono::DateTime::parse_from_rfc3339(s).expect("t").with_timezone(&chrono::Utc);
    let amounts =
        kdrift_analyze::amounts_at(&store, &[t("2026-01-01T12:00:00Z"), t("2026-01-03T00:00:00Z")]).expect("amounts");
    assert_eq!(amounts[0].usage_of("node-1").requested.get("cpu"), 300, "the first version's interval");
    assert_eq!(amounts[0].usage_of("node-2").requested.get("pods"), 0);
    assert_eq!(amounts[1].usage_of("node-2").requested.get("cpu"), 500, "the second version's interval");
    assert_eq!(amounts[1].usage_of("node-1").requested.get("cpu"), 0, "the pod left node-1");
    assert!(kdrift_tests::assert_amounts_agree(&store, 10) >= 6);
    // Migration 10 filled the filter fields from the stored models.
    assert!(kdrift_tests::assert_filter_load_agrees(&store, 10) >= 1);
}

fn write(dir: &std::path::Path, name: &str, body: &[u8]) -> std::path::PathBuf {
    let p = dir.join(name);
    std::fs::File::create(&p).and_then(|mut f| f.write_all(body)).expect("write");
    p
}

const EVENT_A: &str = r#"{"apiVersion":"v1","kind":"Event","metadata":{"name":"p.1","namespace":"default","uid":"e1"},"involvedObject":{"kind":"Pod","namespace":"default","name":"p","uid":"pu"},"reason":"FailedScheduling","message":"0/3 nodes are available: 3 Insufficient memory.","count":4,"firstTimestamp":"2026-01-01T00:00:00Z","lastTimestamp":"2026-01-01T00:10:00Z","type":"Warning"}"#;

#[test]
fn bad_lines_are_reported_and_good_ones_kept() {
    let (dir, store) = temp_store();
    let body = format!(
        "{EVENT_A}\n{{\"kind\": \"Event\", oops\n{}\n",
        EVENT_A.replace("p.1", "p.2").replace("\"count\":4", "\"count\":2")
    );
    let file = write(dir.path(), "events.ndjson", body.as_bytes());
    let missing = dir.path().join("nope.json");
    let report = ingest_files(&store, &[file, missing], &mut NoProgress).expect("ingest");
    assert_eq!(report.error_count(), 2);
    let bad = report.files.iter().find(|f| f.location.ends_with("events.ndjson")).expect("file");
    assert_eq!(bad.records, 2);
    assert_eq!(bad.errors[0].origin.line, Some(2));
    assert!(bad.errors[0].to_string().contains("events.ndjson:2:"), "{}", bad.errors[0]);
    assert_eq!(format!("{:?}", report.status), "Partial");
    let pods = kdrift_analyze::pending_pods(&store).expect("pending");
    assert_eq!(pods.len(), 1);
    assert_eq!(pods[0].occurrences, 6, "two distinct events: 4 + 2");
}

#[test]
fn an_ndjson_file_whose_first_line_is_bad_loads_every_other_line() {
    // A header line (a shipper's, a `#` comment) before the objects: that
    // line's error, the rest loaded — whether the first two lines are
    // bad or only the first (the streaming reader looks at two lines, the
    // whole-file parser at all).
    let (dir, store) = temp_store();
    let second = EVENT_A.replace("p.1", "p.2").replace("\"count\":4", "\"count\":2");
    let one_bad = write(dir.path(), "one.ndjson", format!("# exported\n{EVENT_A}\n{second}\n").as_bytes());
    let two_bad = write(dir.path(), "two.jsonl", format!("not json\n\n# again\n{EVENT_A}\n").as_bytes());
    let report = ingest_files(&store, &[one_bad, two_bad], &mut NoProgress).expect("ingest");
    let of = |name: &str| report.files.iter().find(|f| f.location.ends_with(name)).expect("file");
    assert_eq!((of("one.ndjson").records, of("one.ndjson").errors.len()), (2, 1));
    assert_eq!(of("one.ndjson").errors[0].origin.line, Some(1));
    assert_eq!((of("two.jsonl").records, of("two.jsonl").errors.len()), (1, 2));
    let lines: Vec<_> = of("two.jsonl").errors.iter().map(|e| e.origin.line).collect();
    assert_eq!(lines, [Some(1), Some(3)]);
    assert_eq!(format!("{:?}", report.status), "Partial");
    let pods = kdrift_analyze::pending_pods(&store).expect("pending");
    assert_eq!(pods[0].occurrences, 6, "two distinct events: 4 + 2");
}

#[test]
fn a_file_of_objects_one_per_line_under_comment_lines_is_read_line_by_line_whatever_its_name() {
    // New-user finding: a `#`-headed log saved as `.txt` was read as YAML
    // ("more than one document is not supported"), its objects lost. The
    // comments are now those lines' errors and every object loads; a
    // YAML file under comments is still YAML.
    let (dir, store) = temp_store();
    let second = EVENT_A.replace("p.1", "p.2").replace("\"count\":4", "\"count\":2");
    let txt =
        write(dir.path(), "saved.txt", format!("# kubectl get events\n# -o json\n{EVENT_A}\n{second}\n").as_bytes());
    let yaml = "# a pod\napiVersion: v1\nkind: Pod\nmetadata:\n  name: y\n  namespace: default\n  uid: u-y\n  \
                resourceVersion: \"1\"\n  creationTimestamp: \"2026-11-27T00:00:00Z\"\nspec:\n  containers: []\n";
    let yaml = write(dir.path(), "pod.txt", yaml.as_bytes());
    let report = ingest_files(&store, &[txt, yaml], &mut NoProgress).expect("ingest");
    let of = |name: &str| report.files.iter().find(|f| f.location.ends_with(name)).expect("file");
    assert_eq!(of("saved.txt").format.map(|f| f.as_str()), Some("ndjson"));
    assert_eq!((of("saved.txt").records, of("saved.txt").errors.len()), (2, 2));
    let lines: Vec<_> = of("saved.txt").errors.iter().map(|e| e.origin.line).collect();
    assert_eq!(lines, [Some(1), Some(2)]);
    assert_eq!(of("pod.txt").format.map(|f| f.as_str()), Some("yaml"));
    assert_eq!((of("pod.txt").records, of("pod.txt").errors.len()), (1, 0), "{:?}", of("pod.txt").errors);
    let pods = kdrift_analyze::pending_pods(&store).expect("pending");
    assert_eq!(pods[0].occurrences, 6, "two distinct events: 4 + 2");
}

#[test]
fn a_higher_count_of_the_same_event_replaces_never_adds() {
    let (dir, store) = temp_store();
    let first = write(dir.path(), "a.json", EVENT_A.as_bytes());
    ingest_files(&store, &[first], &mut NoProgress).expect("ingest");
    // The same event (same name) seen later with count 9: the highest count wins.
    let later = EVENT_A.replace("\"count\":4", "\"count\":9").replace("00:10:00Z", "00:40:00Z");
    let second = write(dir.path(), "b.json", later.as_bytes());
    ingest_files(&store, &[second], &mut NoProgress).expect("ingest");
    // An older copy arriving last does not lower it.
    let third = write(dir.path(), "c.json", EVENT_A.replace("\"count\":4", "\"count\":3").as_bytes());
    ingest_files(&store, &[third], &mut NoProgress).expect("ingest");
    let pods = kdrift_analyze::pending_pods(&store).expect("pending");
    assert_eq!(pods[0].occurrences, 9);
    assert_eq!(store.counts().expect("counts").events, 1);
    assert_eq!(store.counts().expect("counts").event_versions, 3, "every version is kept (append-only)");
}

#[test]
fn gzip_and_combined_prefix() {
    use flate2::write::GzEncoder;
    let (dir, store) = temp_store();
    let ev = EVENT_A.replace("0/3 nodes", "(combined from similar events): 0/3 nodes");
    let mut gz = GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(ev.as_bytes()).expect("gz");
    let file = write(dir.path(), "events.json.gz", &gz.finish().expect("gz"));
    let report = ingest_files(&store, &[file], &mut NoProgress).expect("ingest");
    assert_eq!(report.counts.added, 1);
    let pods = kdrift_analyze::pending_pods(&store).expect("pending");
    assert_eq!(pods[0].latest_message, "0/3 nodes are available: 3 Insufficient memory.");
    let corrupt = write(dir.path(), "broken.json.gz", &[0x1f, 0x8b, 8, 0, 1, 2, 3]);
    let report = ingest_files(&store, &[corrupt], &mut NoProgress).expect("ingest");
    assert!(report.files[0].errors[0].message.contains("gzip"), "{:?}", report.files[0].errors);
}

/// A core/v1 Event about `involved` (kind, name) in `default`.
fn event_line(name: &str, reason: &str, kind: &str, involved: &str, message: &str, at: &str) -> String {
    serde_json::json!({
        "apiVersion": "v1", "kind": "Event",
        "metadata": {"name": name, "namespace": "default", "uid": format!("uid-{name}")},
        "involvedObject": {"kind": kind, "namespace": "default", "name": involved},
        "reason": reason, "message": message, "count": 1, "type": "Normal",
        "firstTimestamp": at, "lastTimestamp": at
    })
    .to_string()
}

/// (name, node, owner) of each event-only binding, through the `kdrift query` catalog.
fn event_only_bindings(store: &Store) -> Vec<(String, String, String)> {
    let at = vec![("at_us".to_string(), "2026-02-01T00:00:00Z".to_string())];
    let result = kdrift_store::run_query(store, "event_only_placements", &at).expect("query");
    let col = |name: &str| result.columns.iter().position(|c| c == name).expect("column");
    let (n, node, owner) = (col("name"), col("node"), col("owner_name"));
    let text = |v: &serde_json::Value| v.as_str().unwrap_or("-").to_string();
    result.rows.iter().map(|r| (text(&r[n]), text(&r[node]), text(&r[owner]))).collect()
}

#[test]
fn event_only_bindings_follow_each_run_for_the_pods_it_names() {
    let (dir, store) = temp_store();
    let scheduled = |pod: &str, node: &str, at: &str| {
        event_line(
            &format!("{pod}.s"),
            "Scheduled",
            "Pod",
            pod,
            &format!("Successfully assigned default/{pod} to {node}"),
            at,
        )
    };
    // Run 1: two pods known only from their Scheduled events.
    let one = format!(
        "{}\n{}\n",
        scheduled("w-1", "node-1", "2026-01-01T00:00:00Z"),
        scheduled("w-2", "node-2", "2026-01-01T00:01:00Z")
    );
    ingest_files(&store, &[write(dir.path(), "one.ndjson", one.as_bytes())], &mut NoProgress).expect("run 1");
    let s = |a: &str, b: &str, c: &str| (a.to_string(), b.to_string(), c.to_string());
    assert_eq!(event_only_bindings(&store), vec![s("w-1", "node-1", "-"), s("w-2", "node-2", "-")]);
    // Run 2: w-1's owner created it (SuccessfulCreate), and w-2's object arrives bound to node-2.
    let created =
        event_line("web.c", "SuccessfulCreate", "ReplicaSet", "web-7d", "Created pod: w-1", "2026-01-01T00:00:00Z");
    let w2 = r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"w-2","namespace":"default","uid":"u2","creationTimestamp":"2026-01-01T00:01:00Z"},"spec":{"nodeName":"node-2","containers":[{"name":"c","resources":{"requests":{"cpu":"100m"}}}]},"status":{"phase":"Running"}}"#;
    let two = format!("{created}\n{w2}\n");
    ingest_files(&store, &[write(dir.path(), "two.ndjson", two.as_bytes())], &mut NoProgress).expect("run 2");
    assert_eq!(event_only_bindings(&store), vec![s("w-1", "node-1", "web-7d")], "w-2 is known from its object now");
    // Run 3: another pod's Scheduled event; w-1's binding, named by no row of this run, stays as it was.
    let three = format!("{}\n", scheduled("w-3", "node-3", "2026-01-01T00:02:00Z"));
    ingest_files(&store, &[write(dir.path(), "three.ndjson", three.as_bytes())], &mut NoProgress).expect("run 3");
    assert_eq!(event_only_bindings(&store), vec![s("w-1", "node-1", "web-7d"), s("w-3", "node-3", "-")]);
    // A full rebuild (what the v5 migration runs) gives the same table.
    store.execute(&kdrift_store::sql::CLEAR_POD_BINDINGS, kdrift_store::params![-1i64, 0i64]).expect("clear");
    assert!(event_only_bindings(&store).is_empty());
    store.execute(&kdrift_store::sql::DERIVE_POD_BINDINGS, kdrift_store::params![-1i64, 0i64]).expect("rebuild");
    assert_eq!(event_only_bindings(&store), vec![s("w-1", "node-1", "web-7d"), s("w-3", "node-3", "-")]);
}

#[test]
fn a_file_that_is_not_a_duckdb_database_is_refused_and_left_unchanged() {
    let dir = tempfile::tempdir().expect("tmp");
    let body = br#"{"apiVersion":"v1","kind":"List","items":[]}"#;
    for name in ["dump.json", "nodes.csv"] {
        let path = write(dir.path(), name, body);
        for err in [Store::open(&path).err(), Store::open_existing(&path).err()] {
            let err = err.expect("refused");
            assert!(matches!(err, StoreError::NotDuckDb { .. }), "{err}");
            assert!(err.to_string().contains(name) && err.to_string().contains("not a DuckDB database"), "{err}");
        }
        assert_eq!(std::fs::read(&path).expect("read"), body, "{name} is left as it was");
    }
}

#[test]
fn a_directory_an_empty_file_and_a_missing_directory_are_refused_with_what_to_do() {
    let dir = tempfile::tempdir().expect("tmp");
    let message = |err: StoreError| {
        assert!(matches!(err, StoreError::BadPath { .. }), "{err}");
        err.to_string()
    };
    // A directory, for writing and for reading.
    let d = dir.path().display();
    for err in [Store::open(dir.path()).err(), Store::open_existing(dir.path()).err()] {
        assert_eq!(
            message(err.expect("refused")),
            format!("{d} cannot hold a kdrift store: it is a directory; name a file in it, e.g. {d}/kdrift.duckdb")
        );
    }
    // An empty file (e.g. left by `touch`), for writing and for reading; it is left as it was.
    let empty = write(dir.path(), "empty.duckdb", b"");
    for err in [Store::open(&empty).err(), Store::open_existing(&empty).err()] {
        assert_eq!(
            message(err.expect("refused")),
            format!(
                "{} cannot hold a kdrift store: it is an empty file (0 bytes), which DuckDB does not open; delete it, \
                 or name a path that does not exist yet (ingest creates the store there)",
                empty.display()
            )
        );
    }
    assert_eq!(std::fs::metadata(&empty).expect("still there").len(), 0);
    // A new store in a directory that does not exist: nothing is created.
    let nested = dir.path().join("no-such-dir").join("k.duckdb");
    let Err(err) = Store::open(&nested) else { panic!("a store in a missing directory was opened") };
    assert_eq!(
        message(err),
        format!(
            "{} cannot hold a kdrift store: the directory {} does not exist; create it first",
            nested.display(),
            dir.path().join("no-such-dir").display()
        )
    );
    assert!(!dir.path().join("no-such-dir").exists());
    // A new store in an existing directory, and a bare file name, are fine.
    assert!(Store::open(&dir.path().join("new.duckdb")).is_ok());
    // It was made under a temporary name and linked into place (a process
    // killed while DuckDB created the file left it 0 bytes long, refused by
    // every later command): no temporary file is left.
    let mut names: Vec<String> = std::fs::read_dir(dir.path())
        .expect("list")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["empty.duckdb", "new.duckdb"]);
    assert!(Store::open_existing(&dir.path().join("new.duckdb")).expect("a whole store").counts().is_ok());
}

/// (status, records_read, errors) of run `run_id`, and its `ingest_errors` messages.
fn run_row(store: &Store, run_id: i64) -> ((String, i64, i64), Vec<String>) {
    let row = store
        .conn()
        .query_row("SELECT status, records_read, errors FROM ingest_runs WHERE run_id = ?", [run_id], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?))
        })
        .expect("run row");
    let mut stmt = store.conn().prepare("SELECT message FROM ingest_errors WHERE run_id = ?").expect("prepare");
    let messages =
        stmt.query_map([run_id], |r| r.get(0)).expect("errors").collect::<Result<Vec<String>, _>>().expect("rows");
    (row, messages)
}

#[test]
fn a_run_left_running_by_a_process_that_ended_is_closed_as_failed_when_the_store_is_next_opened_for_writing() {
    use kdrift_store::{sql, UnclosedRun, ABANDONED_RUN_MESSAGE};
    let dir = tempfile::tempdir().expect("dir");
    let path = dir.path().join("store.duckdb");
    // What a killed `kdrift ingest` (or one whose connection a fatal DuckDB
    // error made unusable) leaves: its run row `running`, nobody to close it.
    let (dead, done) = {
        let store = Store::open(&path).expect("open");
        let begin = |location: &str| -> i64 {
            store
                .query_one(&sql::BEGIN_RUN, kdrift_store::params!["file", location, 1_000_000i64, "0.0.0"], |r| {
                    r.get(0)
                })
                .expect("begin run")
        };
        let dead = begin("big.ndjson");
        let done = begin("small.json");
        store
            .execute(&sql::FINISH_RUN, kdrift_store::params![done, "ok", 2_000_000i64, 0i64, 0i64, 0i64])
            .expect("finish");
        (dead, done)
    };
    let finished_at = |store: &Store, run_id: i64| -> Option<i64> {
        store
            .conn()
            .query_row("SELECT epoch_us(finished_at) FROM ingest_runs WHERE run_id = ?", [run_id], |r| r.get(0))
            .expect("finished_at")
    };
    // A read-only open (an analysis) changes nothing, but names the run
    // (its process has ended: none could read the store while it wrote).
    {
        let store = Store::open_existing(&path).expect("open read-only");
        assert_eq!(run_row(&store, dead).0 .0, "running");
        assert_eq!(finished_at(&store, dead), None);
        assert_eq!(store.unclosed_runs(), [UnclosedRun { run_id: dead, location: "big.ndjson".to_string() }]);
        assert!(store.abandoned_runs().is_empty());
    }
    // Still there for the next read-only open.
    assert_eq!(Store::open_existing(&path).expect("open read-only").unclosed_runs().len(), 1);
    // The next writer closes it, and only it, with `finished_at` set to when.
    let before = chrono::Utc::now().timestamp_micros();
    let store = Store::open(&path).expect("reopen");
    let after = chrono::Utc::now().timestamp_micros();
    assert!(store.unclosed_runs().is_empty());
    let ((status, _, _), messages) = run_row(&store, dead);
    assert_eq!(status, "failed");
    let closed_at = finished_at(&store, dead).expect("finished_at is set");
    assert!((before..=after).contains(&closed_at), "{before} <= {closed_at} <= {after}");
    assert_eq!(finished_at(&store, done), Some(2_000_000), "a closed run keeps its own");
    assert_eq!(messages, vec![ABANDONED_RUN_MESSAGE.to_string()]);
    let ((status, _, _), messages) = run_row(&store, done);
    assert_eq!((status.as_str(), messages.len()), ("ok", 0));
    let location: String = store
        .conn()
        .query_row("SELECT location FROM ingest_errors WHERE run_id = ?", [dead], |r| r.get(0))
        .expect("error row");
    assert_eq!(location, "big.ndjson");
    // `kdrift query runs` counts that error (it said ERRORS 0), and `run_errors` lists it.
    let runs = kdrift_store::run_query(&store, "runs", &[]).expect("runs");
    let col = |c: &str| runs.columns.iter().position(|x| x == c).expect("column");
    let row = runs.rows.iter().find(|r| r[col("run_id")] == serde_json::json!(dead)).expect("the dead run");
    assert_eq!(row[col("errors")], serde_json::json!(1), "{row:?}");
    let errors =
        kdrift_store::run_query(&store, "run_errors", &[("run_id".into(), dead.to_string())]).expect("run_errors");
    assert_eq!(errors.rows.len(), 1);
    assert_eq!(errors.rows[0][4], serde_json::json!(ABANDONED_RUN_MESSAGE));
    // Closed once: opening again adds no second error row.
    drop(store);
    let store = Store::open(&path).expect("reopen again");
    assert_eq!(run_row(&store, dead).1.len(), 1);
    assert_eq!(finished_at(&store, dead), Some(closed_at), "closed once");
    drop(store);
    assert!(Store::open_existing(&path).expect("open read-only").unclosed_runs().is_empty());
}

#[test]
fn a_run_aborted_by_a_store_error_in_a_batch_commit_is_closed_as_failed() {
    use kdrift_store::RunWriter;
    use kdrift_store::{Change, Origin, Record};
    let (_dir, store) = temp_store();
    let record = |name: &str| Record {
        object: serde_json::from_str(&EVENT_A.replace("p.1", name)).expect("event"),
        origin: Origin { location: "stream".into(), line: None, item: None },
        observed_at: None,
        change: Change::Listed,
    };
    let mut writer = RunWriter::begin(&store, "file", "stream").expect("begin");
    let run_id = writer.run_id();
    writer.stage(record("p.1")).expect("store").expect("object");
    writer.commit_batch(0).expect("first batch");
    writer.stage(record("p.2")).expect("store").expect("object");
    // A store broken under the run: the next batch's derivation fails.
    store.conn().execute_batch("DROP TABLE pod_bindings").expect("drop");
    let err = writer.commit_batch(0).expect_err("the batch commit fails");
    assert_eq!(err.to_string(), "query clear_pod_bindings (derive/clear_pod_bindings.sql) failed");
    drop(writer);
    let ((status, records, errors), messages) = run_row(&store, run_id);
    assert_eq!((status.as_str(), records, errors), ("failed", 1, 1), "the first batch stays, counted");
    assert_eq!(messages.len(), 1, "{messages:?}");
    assert!(
        messages[0].starts_with(
            "run aborted by a store error: query clear_pod_bindings (derive/clear_pod_bindings.sql) failed: "
        ),
        "{messages:?}"
    );
    assert!(messages[0].contains("pod_bindings does not exist"), "the driver's text: {messages:?}");
    assert_eq!(store.counts().expect("counts").events, 1, "the failed batch is not stored");
}

/// What `kdrift record` relies on to retry a failed batch commit (issue 38):
/// the batch stays staged, and the next commit stores it whole, once.
#[test]
fn a_batch_whose_commit_failed_is_stored_whole_by_the_next_commit() {
    use kdrift_store::RunWriter;
    use kdrift_store::{Change, Origin, Record};
    let (_dir, store) = temp_store();
    let record = |name: &str| Record {
        object: serde_json::from_str(&EVENT_A.replace("p.1", name)).expect("event"),
        origin: Origin { location: "stream".into(), line: None, item: None },
        observed_at: None,
        change: Change::Listed,
    };
    let mut writer = RunWriter::begin(&store, "api", "stream").expect("begin");
    writer.stage(record("p.1")).expect("store").expect("object");
    writer.stage(record("p.2")).expect("store").expect("object");
    store.conn().execute_batch("ALTER TABLE pod_bindings RENAME TO pod_bindings_aside").expect("rename");
    writer.commit_batch(0).expect_err("the batch commit fails");
    assert_eq!(store.counts().expect("counts").events, 0, "rolled back");
    assert_eq!(writer.pending(), 2, "still staged");
    writer.stage(record("p.3")).expect("store").expect("object");
    store.conn().execute_batch("ALTER TABLE pod_bindings_aside RENAME TO pod_bindings").expect("rename back");
    let counts = writer.commit_batch(0).expect("the next commit");
    assert_eq!((counts.records, counts.added, counts.duplicates), (3, 3, 0));
    assert_eq!(store.counts().expect("counts").events, 3, "each version once");
}

#[test]
fn a_files_summary_is_stored_with_its_records_or_not_at_all() {
    use kdrift_store::{Change, Origin, Record};
    use kdrift_store::{RunStatus, RunWriter};
    let (_dir, store) = temp_store();
    let record = |name: &str| Record {
        object: serde_json::from_str(&EVENT_A.replace("p.1", name)).expect("event"),
        origin: Origin { location: "events.ndjson".into(), line: Some(1), item: None },
        observed_at: None,
        change: Change::Listed,
    };
    let files_of = |run_id: i64| -> Vec<(String, String, i64, i64, i64)> {
        let mut q = store
            .conn()
            .prepare("SELECT location, format, records_read, events_read, errors FROM ingest_files WHERE run_id = ?")
            .expect("prepare");
        q.query_map([run_id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)))
            .expect("query")
            .collect::<Result<_, _>>()
            .expect("rows")
    };
    let mut writer = RunWriter::begin(&store, "file", "events.ndjson").expect("begin");
    let stored = writer.run_id();
    writer.stage(record("p.1")).expect("store").expect("object");
    writer.record_file("events.ndjson", "ndjson", 1, 1, 0, 0, 2);
    assert!(files_of(stored).is_empty(), "nothing is written before the commit");
    writer.commit(RunStatus::Partial, 2).expect("commit");
    assert_eq!(files_of(stored), vec![("events.ndjson".into(), "ndjson".into(), 1, 1, 2)]);

    // The final commit fails (a store broken under the run, as a process
    // killed in its commit): the summary of the records it lost goes too.
    let mut writer = RunWriter::begin(&store, "file", "later.ndjson").expect("begin");
    let lost = writer.run_id();
    writer.stage(record("p.2")).expect("store").expect("object");
    writer.record_file("later.ndjson", "ndjson", 1, 1, 0, 0, 0);
    store.conn().execute_batch("DROP TABLE pod_bindings").expect("drop");
    writer.commit(RunStatus::Ok, 0).expect_err("the final commit fails");
    assert!(files_of(lost).is_empty(), "a summary of records not stored: {:?}", files_of(lost));
    assert_eq!(run_row(&store, lost).0 .0, "failed");
    assert_eq!(store.counts().expect("counts").events, 1, "only the first run's event");
}

#[test]
fn staged_records_stay_in_the_writers_connection_and_never_reach_the_store_file() {
    use kdrift_store::{Change, Origin, Record};
    use kdrift_store::{RunWriter, APPENDER_FLUSH_ROWS};
    let (_dir, store) = temp_store();
    let staged = APPENDER_FLUSH_ROWS + 100;
    let mut writer = RunWriter::begin(&store, "file", "stream").expect("begin");
    for i in 0..staged {
        let record = Record {
            object: serde_json::from_str(&EVENT_A.replace("p.1", &format!("p.{i}"))).expect("event"),
            origin: Origin { location: "stream".into(), line: Some(i + 1), item: None },
            observed_at: None,
            change: Change::Listed,
        };
        writer.stage(record).expect("store").expect("object");
    }
    // The appender flushed its first APPENDER_FLUSH_ROWS rows. The staging
    // table is a TEMP table (ingest/create_staging.sql): the writer's
    // connection sees them, another connection (as another process after
    // a crash) sees none. A stored staging table took them in a commit of
    // their own, through the WAL and its checkpoints (BENCHMARKS.md, session 24).
    let count = |s: &Reader| -> i64 { s.raw_i64("SELECT count(*) FROM staging_observations").expect("count") };
    assert_eq!(count(&store), APPENDER_FLUSH_ROWS as i64, "the writer's connection holds the flushed rows");
    let other = store.try_clone().expect("second connection");
    assert_eq!(count(&other), 0, "nothing staged is in the store file");
    let counts = writer.commit(kdrift_store::RunStatus::Ok, 0).expect("commit").counts;
    assert_eq!((counts.records, counts.added), (staged, staged));
    assert_eq!(count(&store), 0, "the commit empties the staging table");
    assert_eq!(other.counts().expect("counts").events, staged as i64, "the commit is in the store file");
}

#[test]
fn duckdb_runs_on_one_thread_while_a_run_is_open_and_on_its_default_after_however_the_run_ends() {
    use kdrift_store::{RunStatus, RunWriter};
    let (_dir, store) = temp_store();
    let threads = |s: &Store| -> i64 {
        s.conn().query_row("SELECT current_setting('threads')::BIGINT", [], |r| r.get(0)).expect("threads")
    };
    let default = threads(&store);
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get()) as i64;
    assert_eq!(default, cores, "DuckDB's default: one thread per core");
    let writer = RunWriter::begin(&store, "file", "committed").expect("begin");
    assert_eq!(threads(&store), 1, "the run's records are prepared by kdrift's threads");
    writer.commit(RunStatus::Ok, 0).expect("commit");
    assert_eq!(threads(&store), default, "after a commit");
    let writer = RunWriter::begin(&store, "file", "abandoned").expect("begin");
    assert_eq!(threads(&store), 1);
    writer.abandon(0).expect("abandon");
    assert_eq!(threads(&store), default, "after an abandoned run");
    {
        let _aborted = RunWriter::begin(&store, "file", "aborted").expect("begin");
        assert_eq!(threads(&store), 1);
    }
    assert_eq!(threads(&store), default, "after a run its writer dropped uncommitted");
}

#[test]
fn a_version_9_store_migrates_and_why_pending_answers_as_before_from_the_history_then_from_the_kept_moves() {
    use kdrift_ingest::ingest_scenario;
    use kdrift_scenario::{generate, ScenarioConfig};
    let scenario = generate(&ScenarioConfig { seed: 1, scale: 1 });
    let pending = scenario.facts.pending_pod.clone();
    let dir = tempfile::tempdir().expect("tmp");
    let path = dir.path().join("v9.duckdb");
    let before = {
        let store = Store::open(&path).expect("create");
        ingest_scenario(&store, scenario, 1).expect("ingest");
        kdrift_tests::keep_moves(&store).expect("keep");
        let report =
            kdrift_analyze::why_pending(&store, &pending.namespace, &pending.name).expect("why").expect("report");
        serde_json::to_value(report).expect("json")
    };
    {
        // Test fixture: the store as schema 9 left it, its moves kept then.
        let c = kdrift_store::test_support::RawConnection::open(&path).expect("open");
        c.execute_batch(&format!(
            "{DROP_V14} {DROP_V13} {DROP_V12} {DROP_V11} {DROP_V10} UPDATE kdrift_meta SET value = '9' WHERE key = 'schema_version'; \
             UPDATE drain_moves_kept SET schema_version = 9;"
        ))
        .expect("downgrade");
    }
    let store = Store::open_existing(&path).expect("migrated, then opened read-only");
    // Migration 12 keeps no drain episode: the moves kept under schema 9 are
    // stale until the next ingest keeps both (why-pending matches them from
    // the history meanwhile).
    assert!(!kdrift_analyze::moves_are_fresh(&store).expect("fresh?"), "kept without their episodes");
    // Migration 12 sorted the bindings by node.
    let (out_of_order, bindings) = bindings_out_of_node_order(&store);
    assert_eq!(out_of_order, 0, "of {bindings} bindings");
    assert!(bindings > 50, "{bindings} bindings");
    // Migration 11 indexed every stored version by name, sorted whole.
    let (outside, rows): (i64, i64) =
        store.conn().query_row(ROWS_OUTSIDE_THEIR_NAME_BOUND, [], |r| Ok((r.get(0)?, r.get(1)?))).expect("bound");
    assert_eq!(outside, 0, "of {rows} rows looked up by name");
    let sorted: i64 =
        store.conn().query_row("SELECT max(sorted_rows) FROM name_index_sorted", [], |r| r.get(0)).expect("sorted");
    assert_eq!(sorted, rows, "every entry sorted by the migration");
    assert_eq!(pod_namespaces(&store), distinct_pod_namespaces(&store), "every stored pod's namespace once");
    let (filled, flagged): (i64, i64) = store
        .conn()
        .query_row("SELECT count(labels), count(*) FILTER (WHERE scheduling_terms) FROM pod_versions", [], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .expect("columns");
    assert!(filled > 50, "{filled} versions with labels");
    assert!(flagged > 0, "the demo's pods with pod affinity terms are read whole");
    let after = kdrift_analyze::why_pending(&store, &pending.namespace, &pending.name).expect("why").expect("report");
    assert_eq!(serde_json::to_value(after).expect("json"), before, "why-pending answers as before the migration");
    assert!(kdrift_tests::assert_filter_load_agrees(&store, 10) > 50);
    drop(store);
    // As the next ingest does: the moves and episodes kept; read from them, the same answer.
    let store = Store::open(&path).expect("open for writing");
    assert!(kdrift_tests::keep_moves(&store).expect("keep").computed, "stale moves are kept again");
    assert!(kdrift_analyze::moves_are_fresh(&store).expect("fresh?"));
    let episodes: i64 =
        store.conn().query_row("SELECT count(*) FROM drain_episodes", [], |r| r.get(0)).expect("episodes");
    assert!(episodes >= 5, "{episodes} episodes kept");
    let kept = kdrift_analyze::why_pending(&store, &pending.namespace, &pending.name).expect("why").expect("report");
    assert_eq!(serde_json::to_value(kept).expect("json"), before, "why-pending answers the same from the kept rows");
}

/// Every stored row a lookup by name reads lies between the name's first and
/// last `name_index` entry (schema v11): `outside` counts the rows that do
/// not, for each kind of row the readers look up — a pod's versions, an
/// event under its involved object, a controller's "Created pod: NAME" /
/// "Deleted pod: NAME" under the pod it names, a node's versions (and a pod
/// stored without a namespace also under `default`).
const ROWS_OUTSIDE_THEIR_NAME_BOUND: &str = "
    WITH named AS (
        SELECT namespace, name, obs_id FROM pod_versions
        UNION ALL SELECT 'default', name, obs_id FROM pod_versions WHERE namespace = ''
        UNION ALL SELECT '', name, obs_id FROM node_versions
        UNION ALL SELECT COALESCE(involved_namespace, ''), involved_name, obs_id FROM event_versions
            WHERE involved_name IS NOT NULL
        UNION ALL SELECT COALESCE(involved_namespace, ''), substr(message, 14), obs_id FROM event_versions
            WHERE reason IN ('SuccessfulCreate', 'SuccessfulDelete') AND message SIMILAR TO '(Created|Deleted) pod: .*'
    )
    SELECT count(*) FILTER (WHERE NOT COALESCE(obs_id BETWEEN first_obs_naming(namespace, name)
                                                        AND last_obs_naming(namespace, name), false)),
           count(*)
    FROM named";

/// `pod_namespaces` (schema v11), sorted.
fn pod_namespaces(store: &Store) -> Vec<String> {
    let mut stmt = store.conn().prepare("SELECT namespace FROM pod_namespaces ORDER BY 1").expect("pod_namespaces");
    stmt.query_map([], |r| r.get(0)).expect("pod_namespaces").collect::<Result<_, _>>().expect("pod_namespaces")
}

/// The distinct namespaces of the stored pod versions (`default` for one
/// stored without), sorted.
fn distinct_pod_namespaces(store: &Store) -> Vec<String> {
    let mut stmt = store
        .conn()
        .prepare(
            "SELECT DISTINCT CASE WHEN namespace = '' THEN 'default' ELSE namespace END FROM pod_versions ORDER BY 1",
        )
        .expect("ns");
    stmt.query_map([], |r| r.get(0)).expect("ns").collect::<Result<_, _>>().expect("ns")
}

/// The rows of one named query, each as its values' debug text.
fn rows_of(
    store: &Store,
    q: &kdrift_store::NamedQuery,
    params: &[kdrift_store::test_support::RawValue],
) -> Vec<String> {
    let mut stmt = store.conn().prepare(q.sql).expect(q.name);
    stmt.query_debug(params).expect(q.name)
}

/// What why-pending's lookups by pod name answer for every pod name the
/// store knows (its versions and its events), in order.
fn lookups_by_pod_name(store: &Store) -> Vec<String> {
    use kdrift_store::sql;
    use kdrift_store::test_support::RawValue as V;
    let pods: Vec<(String, String)> = {
        let mut stmt = store
            .conn()
            .prepare(
                "SELECT namespace, name FROM pod_versions UNION SELECT involved_namespace, involved_name \
                 FROM event_versions WHERE involved_kind = 'Pod' AND involved_name IS NOT NULL ORDER BY ALL",
            )
            .expect("pods");
        stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?))).expect("pods").collect::<Result<_, _>>().expect("pods")
    };
    let mut out = Vec::new();
    for (ns, name) in pods {
        let (n, p) = (V::Text(ns.clone()), V::Text(name.clone()));
        out.push(format!("{ns}/{name}"));
        out.extend(rows_of(store, &sql::POD_FAILURES, &[n.clone(), p.clone()]));
        out.extend(rows_of(store, &sql::POD_SCHEDULED, &[n.clone(), p.clone(), V::BigInt(0)]));
        out.extend(rows_of(store, &sql::POD_DELETIONS, &[n.clone(), p.clone(), V::Text(String::new()), V::BigInt(0)]));
        out.extend(rows_of(store, &sql::POD_AT, &[n, p, V::BigInt(4_000_000_000_000_000), V::Text(String::new())]));
    }
    out
}

#[test]
fn the_name_index_bounds_every_lookup_by_name_batch_by_batch_and_is_sorted_after_an_ingest() {
    use kdrift_ingest::ingest_scenario;
    use kdrift_scenario::{generate, ScenarioConfig};
    let scenario = generate(&ScenarioConfig { seed: 1, scale: 1 });
    let pending = scenario.facts.pending_pod.clone();
    let (dir, store) = temp_store();
    ingest_scenario(&store, scenario, 1).expect("ingest");
    // Run 2, later: a pod in a new namespace; the pending pod's owner deletes
    // it, and a Job of the same namespace creates a pod of that name again
    // and then hits its deadline.
    let event = |name: &str, reason: &str, kind: &str, involved: &str, message: &str| {
        serde_json::json!({
            "apiVersion": "v1", "kind": "Event",
            "metadata": {"name": name, "namespace": pending.namespace, "uid": format!("uid-{name}")},
            "involvedObject": {"kind": kind, "namespace": pending.namespace, "name": involved},
            "reason": reason, "message": message, "count": 1, "type": "Normal",
            "firstTimestamp": "2030-01-01T00:00:00Z", "lastTimestamp": "2030-01-01T00:00:00Z"
        })
        .to_string()
    };
    let deleted = format!("Deleted pod: {}", pending.name);
    let created = format!("Created pod: {}", pending.name);
    let late_pod = serde_json::json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "late-pod", "namespace": "late-ns", "uid": "u-late", "creationTimestamp": "2030-01-01T00:00:00Z"},
        "spec": {"containers": [{"name": "c"}]}, "status": {"phase": "Pending"}})
    .to_string();
    let lines = [
        late_pod,
        event("late.d", "SuccessfulDelete", "Job", "late-owner", &deleted),
        event("late.c", "SuccessfulCreate", "Job", "late-job", &created),
        event("late.x", "DeadlineExceeded", "Job", "late-job", "Job was active longer than specified deadline"),
    ];
    let file = write(dir.path(), "late.ndjson", (lines.join("\n") + "\n").as_bytes());
    assert_eq!(ingest_files(&store, &[file], &mut NoProgress).expect("run 2").error_count(), 0);

    let (outside, rows): (i64, i64) =
        store.conn().query_row(ROWS_OUTSIDE_THEIR_NAME_BOUND, [], |r| Ok((r.get(0)?, r.get(1)?))).expect("bound");
    assert_eq!(outside, 0, "of {rows} rows looked up by name");
    let entries: i64 = store.conn().query_row("SELECT count(*) FROM name_index", [], |r| r.get(0)).expect("count");
    assert_eq!(entries, rows, "one entry per row a lookup can read");
    let stored = distinct_pod_namespaces(&store);
    assert!(stored.contains(&"late-ns".to_string()), "run 2's pod: {stored:?}");
    assert_eq!(pod_namespaces(&store), stored, "each stored pod's namespace once, batch by batch");

    // The lookups answer with the bound as without it (the macros
    // redefined to bound nothing), for every pod name of the store.
    let bounded = lookups_by_pod_name(&store);
    assert!(
        bounded.iter().any(|r| r.contains("Job late-job DeadlineExceeded")),
        "run 2's Job deadline is found through the index"
    );
    assert!(bounded.iter().any(|r| r.contains("late-owner SuccessfulDelete")), "and its owner's SuccessfulDelete");
    store
        .conn()
        .execute_batch(
            "CREATE OR REPLACE MACRO first_obs_naming(ns, n) AS (SELECT min(obs_id) FROM observations); \
             CREATE OR REPLACE MACRO last_obs_naming(ns, n) AS (SELECT max(obs_id) FROM observations);",
        )
        .expect("unbounded macros");
    assert_eq!(lookups_by_pod_name(&store), bounded);

    // Nothing sorted it yet (the CLI sorts after an ingest): sorted whole
    // once, then the tail is empty.
    assert!(store.sort_name_index().expect("sort"), "a store never sorted is sorted");
    assert!(!store.sort_name_index().expect("sort again"), "nothing appended since");
    let (out_of_order, after): (i64, i64) = store
        .conn()
        .query_row(
            "SELECT count(*) FILTER (WHERE (namespace, name, obs_id) < prev), count(*) FROM (SELECT namespace, name, \
             obs_id, lag((namespace, name, obs_id)) OVER (ORDER BY rowid) AS prev FROM name_index)",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .expect("order");
    assert_eq!((out_of_order, after), (0, entries), "in (namespace, name, obs_id) order, no entry lost");
}

/// `pod_bindings` in (node, bound_at) order, checked row by row; returns
/// (rows out of order, rows).
fn bindings_out_of_node_order(store: &Store) -> (i64, i64) {
    store
        .conn()
        .query_row(
            "SELECT count(*) FILTER (WHERE (node, bound_at) < prev), count(*) FROM (SELECT node, bound_at, \
             lag((node, bound_at)) OVER (ORDER BY rowid) AS prev FROM pod_bindings)",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .expect("order")
}

/// Every `pod_bindings` row, as text, sorted (the table's content whatever its order).
fn every_binding(store: &Store) -> Vec<String> {
    let mut stmt = store.conn().prepare("SELECT CAST(b AS VARCHAR) FROM pod_bindings b ORDER BY 1").expect("prepare");
    stmt.query_map([], |r| r.get(0)).expect("rows").collect::<Result<_, _>>().expect("rows")
}

#[test]
fn the_bindings_are_sorted_by_node_after_an_ingest_and_each_nodes_read_alone_as_in_the_whole_table() {
    use kdrift_ingest::ingest_scenario;
    use kdrift_scenario::{generate, ScenarioConfig};

    let (dir, store) = temp_store();
    ingest_scenario(&store, generate(&ScenarioConfig { seed: 1, scale: 1 }), 1).expect("ingest");
    let marker = |store: &Store| -> (i64, i64) {
        store
            .conn()
            .query_row("SELECT sorted_rows, appended_rows FROM pod_bindings_sorted", [], |r| Ok((r.get(0)?, r.get(1)?)))
            .expect("marker")
    };
    let before = every_binding(&store);
    let (sorted, appended) = marker(&store);
    assert_eq!(sorted, 0, "a new store's table was sorted empty");
    assert!(appended >= before.len() as i64, "every row a batch appended is counted: {appended}");
    assert!(store.sort_pod_bindings().expect("sort"), "a store never sorted is sorted");
    assert!(!store.sort_pod_bindings().expect("sort again"), "nothing appended since");
    assert_eq!(bindings_out_of_node_order(&store), (0, before.len() as i64), "in node order");
    assert_eq!(every_binding(&store), before, "no binding lost or changed");
    assert_eq!(marker(&store), (before.len() as i64, 0));

    // Run 2: a Scheduled event rewrites one pod's bindings at the end of the
    // table, out of node order (node-1 after the sorted part's node-5).
    let (ns, name): (String, String) = store
        .conn()
        .query_row("SELECT namespace, name FROM pod_bindings WHERE node = 'node-2' LIMIT 1", [], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .expect("a pod on node-2");
    let scheduled = serde_json::json!({
        "apiVersion": "v1", "kind": "Event",
        "metadata": {"name": "late.s", "namespace": ns, "uid": "uid-late-s"},
        "involvedObject": {"kind": "Pod", "namespace": ns, "name": name},
        "reason": "Scheduled", "message": format!("Successfully assigned {ns}/{name} to node-1"),
        "count": 1, "type": "Normal", "source": {"component": "default-scheduler"},
        "firstTimestamp": "2030-01-01T00:00:00Z", "lastTimestamp": "2030-01-01T00:00:00Z"
    });
    let file = write(dir.path(), "late.ndjson", format!("{scheduled}\n").as_bytes());
    assert_eq!(ingest_files(&store, &[file], &mut NoProgress).expect("run 2").error_count(), 0);
    let (_, appended) = marker(&store);
    assert!(appended >= 1, "run 2's rewritten rows counted");
    let (out_of_order, rows) = bindings_out_of_node_order(&store);
    assert!(out_of_order >= 1, "run 2's rows sit after the sorted part ({rows} rows)");
    // Each node's bindings, read alone, are the table's (sorted part and tail).
    let until = ("until_us".to_string(), "2031-01-01T00:00:00Z".to_string());
    let all = run_query(
        &store,
        "pod_placements",
        &[("since_us".to_string(), "0001-01-01T00:00:00Z".to_string()), until.clone()],
    )
    .expect("pod_placements");
    for node in ["node-1", "node-2", "node-5"] {
        let alone = run_query(&store, "bindings_to_node", &[("node".to_string(), node.to_string()), until.clone()])
            .expect("bindings_to_node");
        let want: Vec<_> = all.rows.iter().filter(|r| r[3] == node).cloned().collect();
        assert!(!want.is_empty(), "bindings to {node}");
        assert_eq!(alone.rows, want, "{node}'s bindings, oldest first");
    }
    let late = |rows: &[Vec<serde_json::Value>]| rows.iter().any(|r| r[1] == name.as_str() && r[3] == "node-1");
    assert!(late(&all.rows), "run 2's binding of {name} to node-1");
}

#[test]
fn a_pod_created_right_after_its_deployment_scaled_up_arrived_by_that_scale_up_before_and_after_migration_13() {
    // n1 (2 CPU) holds web-abc-1 (1500m), created 30 s after "Scaled up
    // replica set web-abc to 2 from 1", and old-1 (300m), created long
    // before any scale-up; job-1 (1000m) stays Pending on it.
    let dir = tempfile::tempdir().expect("tmp");
    let path = dir.path().join("scale-up.duckdb");
    let pod = |name: &str, cpu: &str, created: &str, node: Option<&str>, owner: Option<&str>| {
        let mut meta = serde_json::json!({"name": name, "namespace": "default", "uid": format!("u-{name}"),
            "creationTimestamp": created});
        if let Some(rs) = owner {
            meta["ownerReferences"] = serde_json::json!([{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": rs, "uid": "u-rs", "controller": true}]);
        }
        let mut spec = serde_json::json!({"containers": [{"name": "c", "resources": {"requests": {"cpu": cpu}}}]});
        let mut status = serde_json::json!({"phase": "Pending"});
        if let Some(node) = node {
            spec["nodeName"] = serde_json::json!(node);
            status = serde_json::json!({"phase": "Running"});
        }
        serde_json::json!({"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec, "status": status})
    };
    let event = |name: &str, reason: &str, kind: &str, involved: &str, message: &str, at: &str| {
        serde_json::json!({"apiVersion": "v1", "kind": "Event",
            "metadata": {"name": name, "namespace": "default", "uid": format!("u-{name}")},
            "involvedObject": {"kind": kind, "namespace": "default", "name": involved},
            "reason": reason, "message": message, "count": 1, "type": "Normal",
            "firstTimestamp": at, "lastTimestamp": at})
    };
    let node = serde_json::json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
        "status": {"allocatable": {"cpu": "2", "memory": "4Gi", "pods": "110"}}});
    let items = serde_json::json!({"kind": "List", "items": [node,
        event("web.1", "ScalingReplicaSet", "Deployment", "web", "Scaled up replica set web-abc to 2 from 1",
            "2026-01-01T00:01:00Z"),
        // Not a scale-up, and another Deployment's: neither explains a pod.
        event("web.2", "ScalingReplicaSet", "Deployment", "web", "Scaled down replica set web-old to 0 from 1",
            "2026-01-01T00:01:10Z"),
        event("api.1", "ScalingReplicaSet", "Deployment", "api", "Scaled up replica set api-x to 3 from 2",
            "2026-01-01T00:01:20Z"),
        pod("web-abc-1", "1500m", "2026-01-01T00:01:30Z", Some("n1"), Some("web-abc")),
        pod("old-1", "300m", "2025-12-01T00:00:00Z", Some("n1"), Some("web-abc")),
        pod("job-1", "1000m", "2026-01-01T00:04:00Z", None, None),
        event("job-1.f", "FailedScheduling", "Pod", "job-1", "0/1 nodes are available: 1 Insufficient cpu.",
            "2026-01-01T00:05:00Z")]});
    let file = write(dir.path(), "cluster.json", items.to_string().as_bytes());
    let arrivals = |store: &Store| -> Vec<(String, serde_json::Value)> {
        let report = kdrift_analyze::why_pending(store, "default", "job-1").expect("why").expect("report");
        let json = serde_json::to_value(&report).expect("json");
        let holders = json["why_full"]["fills"][0]["holders"].as_array().expect("holders").clone();
        holders.iter().map(|h| (h["name"].as_str().expect("name").to_string(), h["arrival"].clone())).collect()
    };
    let expected = vec![
        (
            "web-abc-1".to_string(),
            serde_json::json!({"kind": "scale-up", "deployment": "default/web",
                "message": "Scaled up replica set web-abc to 2 from 1", "at": "2026-01-01T00:01:00Z"}),
        ),
        ("old-1".to_string(), serde_json::json!({"kind": "created", "owner": "ReplicaSet/web-abc"})),
    ];
    {
        let store = Store::open(&path).expect("create");
        assert_eq!(ingest_files(&store, &[file], &mut NoProgress).expect("ingest").error_count(), 0);
        assert_eq!(arrivals(&store), expected, "from the scalings ingest kept");
        kdrift_tests::keep_moves(&store).expect("keep");
    }
    // Test fixture: the store as schema 12 left it (no scalings kept apart,
    // the moves kept under 12).
    kdrift_store::test_support::RawConnection::open(&path)
        .expect("open")
        .execute_batch(&format!(
            "{DROP_V14} {DROP_V13} UPDATE kdrift_meta SET value = '12' WHERE key = 'schema_version'; \
             UPDATE drain_moves_kept SET schema_version = 12;"
        ))
        .expect("downgrade");
    let store = Store::open(&path).expect("migrate");
    assert!(kdrift_analyze::moves_are_fresh(&store).expect("fresh?"), "migration 13 changes no move");
    assert_eq!(arrivals(&store), expected, "from the scalings migration 13 copied");
    let kept: i64 =
        store.conn().query_row("SELECT count(*) FROM replica_set_scalings", [], |r| r.get(0)).expect("count");
    assert_eq!(kept, 3, "every ScalingReplicaSet version, once");
}

#[test]
fn input_errors_are_reported_and_stored_in_line_order() {
    // A streamed chunk's parse errors were found, reported and stored before
    // its records' model problems: line 2200 came before line 2100 (in the
    // second chunk; the first is read apart).
    let (dir, store) = temp_store();
    let good = |i: u32| {
        format!(
            r#"{{"apiVersion":"v1","kind":"Event","metadata":{{"name":"e{i}","namespace":"d"}},"reason":"Pulled","involvedObject":{{"kind":"Pod","name":"p","namespace":"d"}},"lastTimestamp":"2026-01-01T00:00:01Z"}}"#
        )
    };
    // A Pod the cluster model cannot read: stored, and an input error.
    let pod = r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"d","uid":"u"},"spec":{"nodeName":"n1","containers":[{"name":"c","resources":{"requests":{"cpu":"lots"}}}]}}"#;
    let lines: Vec<String> = (1..=3000)
        .map(|i| match i {
            2100 => pod.to_string(),
            2200 => "not json".to_string(),
            _ => good(i),
        })
        .collect();
    let file = write(dir.path(), "events.ndjson", (lines.join("\n") + "\n").as_bytes());
    let report = ingest_files(&store, &[file], &mut NoProgress).expect("ingest");
    let reported: Vec<Option<u64>> = report.files[0].errors.iter().map(|e| e.origin.line).collect();
    assert_eq!(reported, [Some(2100), Some(2200)], "{:?}", report.files[0].errors);
    assert_eq!(report.counts.records, 2999);
    let stored = kdrift_store::run_query(&store, "run_errors", &[("run_id".into(), report.run_id.to_string())])
        .expect("run_errors");
    let lines: Vec<&serde_json::Value> = stored.rows.iter().map(|r| &r[1]).collect();
    assert_eq!(lines, [&serde_json::json!(2100), &serde_json::json!(2200)], "{:?}", stored.rows);
}

#[test]
fn a_store_creation_left_by_a_killed_process_is_removed_and_a_running_ones_kept() {
    // A process killed while creating a store left `.NAME.creating-PID`
    // (and its WAL) beside it, never cleaned up.
    let dir = tempfile::tempdir().expect("tmp");
    let dead = format!(".k.duckdb.creating-{}", u32::MAX); // above any PID
    let alive = ".k.duckdb.creating-1".to_string(); // init: always running (not this process: its own name)
    for name in [dead.clone(), format!("{dead}.wal"), alive.clone()] {
        write(dir.path(), &name, b"half a store");
    }
    Store::open(&dir.path().join("k.duckdb")).expect("create");
    let mut names: Vec<String> = std::fs::read_dir(dir.path())
        .expect("list")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, [alive, "k.duckdb".to_string()]);
}
