//! Schema v15 (queries/schema/v15.sql): the columns holding whole objects,
//! `observations.object` and `pod_versions.model`, are stored with zstd
//! compression, in a new store and in a v14 store once migrated, with the
//! same rows, the same primary key and the same answers as before.

use kdrift_ingest::ingest_scenario;
use kdrift_scenario::{generate, ScenarioConfig};
use kdrift_store::Store;
use kdrift_store::SCHEMA_VERSION;

/// The compression DuckDB used for each checkpointed data segment of
/// `table.column` (validity segments left out), distinct and sorted.
fn compressions(conn: kdrift_store::test_support::RawSql<'_>, table: &str, column: &str) -> Vec<String> {
    let sql = format!(
        "SELECT DISTINCT compression FROM pragma_storage_info('{table}') \
         WHERE column_name = '{column}' AND segment_type <> 'VALIDITY' ORDER BY 1"
    );
    let mut stmt = conn.prepare(&sql).expect("storage info");
    stmt.query_map([], |r| r.get(0)).expect("storage info").collect::<Result<_, _>>().expect("storage info")
}

/// Rows and a digest of every stored object and pod model, in obs_id order.
fn contents(conn: kdrift_store::test_support::RawSql<'_>) -> (i64, String, i64, String) {
    conn.query_row(
        "SELECT (SELECT count(*) FROM observations), \
                (SELECT md5(string_agg(object::VARCHAR, '|' ORDER BY obs_id)) FROM observations), \
                (SELECT count(*) FROM pod_versions), \
                (SELECT md5(string_agg(COALESCE(model, '-'), '|' ORDER BY obs_id)) FROM pod_versions)",
        [],
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
    )
    .expect("contents")
}

/// Test fixture: the two tables as schema 14 left them (DuckDB's automatic
/// compression), rebuilt the way migration 15 rebuilds them.
const DOWNGRADE_TO_V14: &str = "
    CREATE TABLE observations_v14 (
        obs_id BIGINT PRIMARY KEY, run_id BIGINT NOT NULL, observed_at TIMESTAMP NOT NULL,
        observed_at_estimated BOOLEAN NOT NULL, change VARCHAR NOT NULL, kind VARCHAR NOT NULL,
        api_version VARCHAR NOT NULL, namespace VARCHAR NOT NULL, name VARCHAR NOT NULL, uid VARCHAR,
        resource_version VARCHAR, content_hash UBIGINT NOT NULL, location VARCHAR NOT NULL, line BIGINT,
        object JSON NOT NULL);
    INSERT INTO observations_v14 BY NAME SELECT * FROM observations;
    DROP TABLE observations;
    ALTER TABLE observations_v14 RENAME TO observations;
    CREATE TABLE pod_versions_v14 AS SELECT * FROM pod_versions;
    DROP TABLE pod_versions;
    ALTER TABLE pod_versions_v14 RENAME TO pod_versions;
    DROP TABLE usage_samples; DROP TABLE usage_windows;
    UPDATE kdrift_meta SET value = '14' WHERE key = 'schema_version';
    UPDATE drain_moves_kept SET schema_version = 14;";

#[test]
fn objects_are_stored_zstd_compressed_and_a_v14_store_migrates_to_it_with_the_same_rows_and_answers() {
    assert_eq!(SCHEMA_VERSION, 18, "a new schema: check that this fixture still gives schema 14's tables");
    let scenario = generate(&ScenarioConfig { seed: 1, scale: 1 });
    let pending = scenario.facts.pending_pod.clone();
    let dir = tempfile::tempdir().expect("tmp");
    let path = dir.path().join("store.duckdb");
    let (before, why_before) = {
        let store = Store::open(&path).expect("create");
        ingest_scenario(&store, scenario, 1).expect("ingest");
        kdrift_tests::keep_moves(&store).expect("keep");
        store.conn().execute_batch("CHECKPOINT").expect("checkpoint");
        assert_eq!(compressions(store.conn(), "observations", "object"), ["ZSTD"], "a new store");
        assert_eq!(compressions(store.conn(), "pod_versions", "model"), ["ZSTD"], "a new store");
        let why = kdrift_analyze::why_pending(&store, &pending.namespace, &pending.name).expect("why").expect("report");
        (contents(store.conn()), serde_json::to_value(why).expect("json"))
    };
    assert!(before.0 > 500 && before.2 > 100, "the demo stores objects and pod versions: {before:?}");
    {
        let c = kdrift_store::test_support::RawConnection::open(&path).expect("open");
        c.execute_batch(DOWNGRADE_TO_V14).expect("downgrade");
        c.execute_batch("CHECKPOINT").expect("checkpoint");
        // The fixture is what it says: no zstd before the migration.
        assert!(!compressions(c.sql(), "observations", "object").contains(&"ZSTD".to_string()));
        assert!(!compressions(c.sql(), "pod_versions", "model").contains(&"ZSTD".to_string()));
    }
    let store = Store::open(&path).expect("migrate");
    store.conn().execute_batch("CHECKPOINT").expect("checkpoint");
    assert_eq!(compressions(store.conn(), "observations", "object"), ["ZSTD"], "migrated");
    assert_eq!(compressions(store.conn(), "pod_versions", "model"), ["ZSTD"], "migrated");
    assert_eq!(contents(store.conn()), before, "every object and model kept, unchanged");
    // The primary key came through the rebuild.
    let duplicate = store.conn().execute_batch("INSERT INTO observations SELECT * FROM observations LIMIT 1");
    let error = duplicate.expect_err("obs_id is still the primary key").to_string();
    assert!(error.to_lowercase().contains("primary key"), "{error}");
    // Nothing derived changed: the moves kept under schema 14 stay fresh.
    assert!(kdrift_analyze::moves_are_fresh(&store).expect("fresh?"));
    let why = kdrift_analyze::why_pending(&store, &pending.namespace, &pending.name).expect("why").expect("report");
    assert_eq!(serde_json::to_value(why).expect("json"), why_before, "why-pending answers as before");
}
