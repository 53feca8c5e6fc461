//! The store under a memory limit (issue 39): DuckDB's `memory_limit` and
//! temporary directory as a store is opened with them, an input larger
//! than the limit ingested under it, and the failure of an object too big
//! for the limit, which names the limit and says to raise it.

use std::io::Write;
use std::path::Path;

use kdrift_ingest::{ingest_files, NoProgress};
use kdrift_store::{NoMigrationProgress, OpenOptions, RunStatus, Store, StoreError};

const MIB: u64 = 1 << 20;

fn open_limited(path: &Path, memory_limit: u64) -> Store {
    Store::open_with(path, &OpenOptions { memory_limit }, &NoMigrationProgress).expect("store")
}

#[test]
fn a_store_opened_with_a_memory_limit_reports_it_and_spills_beside_its_file() {
    let dir = tempfile::tempdir().expect("tmp");
    let path = dir.path().join("k.duckdb");
    let spill = format!("{}.tmp", path.display());
    let store = open_limited(&path, 64 * MIB);
    assert_eq!(store.memory_settings().expect("settings"), ("64.0 MiB".to_string(), spill.clone()));
    assert_eq!(store.memory_limit(), 64 * MIB);
    drop(store);
    let options = OpenOptions { memory_limit: 96 * MIB };
    let store = Store::open_existing_with(&path, &options, &NoMigrationProgress).expect("read-only");
    assert_eq!(store.memory_settings().expect("settings").0, "96.0 MiB");
    drop(store);
    // Without options: the default, which fits a 256 MiB container.
    let store = Store::open_existing(&path).expect("read-only");
    assert_eq!(store.memory_settings().expect("settings").0, "1.0 GiB");
    assert_eq!(kdrift_store::DEFAULT_MEMORY_LIMIT, 1024 * MIB);
    drop(store);
    assert!(!Path::new(&spill).exists(), "the empty temporary directory is removed at close");
}

/// A `kubectl get pods -o json` List of `pods` Pods, each with an
/// annotation of `annotation` bytes (a last-applied-configuration, say).
fn write_pod_list(path: &Path, pods: usize, annotation: usize) {
    let mut out = std::io::BufWriter::new(std::fs::File::create(path).expect("create"));
    writeln!(out, r#"{{"apiVersion":"v1","kind":"List","items":["#).expect("write");
    for i in 0..pods {
        // Different in every pod (no two objects share a content hash), and
        // words: long runs of digits or hex are what credential masking
        // looks into.
        let line = format!("pod big-{i} replicas three image nginx ");
        let text: String = line.repeat(annotation / line.len() + 1)[..annotation].to_string();
        let pod = serde_json::json!({
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": format!("big-{i}"), "namespace": "ns", "uid": format!("uid-{i}"),
                         "resourceVersion": format!("{}", 1000 + i), "creationTimestamp": "2026-12-01T00:00:00Z",
                         "annotations": {"example.com/config": text}},
            "spec": {"nodeName": format!("node-{}", i % 50),
                     "containers": [{"name": "c", "image": "x",
                                     "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}}}]},
            "status": {"phase": "Running"}
        });
        let sep = if i + 1 < pods { "," } else { "" };
        writeln!(out, "{pod}{sep}").expect("write");
    }
    writeln!(out, "]}}").expect("write");
}

#[test]
#[ignore = "issue 39: 1,060 Pods of 64 KiB under a 64 MiB limit fail or crawl in the commit path (never passed yet)"]
fn a_json_list_larger_than_the_memory_limit_is_ingested_under_it() {
    let dir = tempfile::tempdir().expect("tmp");
    let file = dir.path().join("pods.json");
    // 1,060 Pods of 64 KiB: 66.6 MiB of JSON under a 64 MiB limit. Before
    // issue 39 a JSON file was committed in one batch, and DuckDB failed
    // ("failed to allocate data of size 16.0 MiB") under 128 MiB already.
    write_pod_list(&file, 1_060, 64 << 10);
    let size = std::fs::metadata(&file).expect("size").len();
    assert!(size > 64 * MIB, "the input ({size} bytes) is larger than the limit");
    let store = open_limited(&dir.path().join("k.duckdb"), 64 * MIB);
    let report = ingest_files(&store, std::slice::from_ref(&file), &mut NoProgress).expect("ingested under 64 MiB");
    assert_eq!(report.status, RunStatus::Ok);
    assert_eq!((report.counts.records, report.counts.added, report.counts.duplicates), (1_060, 1_060, 0));
    let counts = store.counts().expect("counts");
    assert_eq!((counts.observations, counts.pods, counts.runs), (1_060, 1_060, 1));
}

#[test]
fn an_object_too_big_for_the_memory_limit_fails_naming_the_limit() {
    let dir = tempfile::tempdir().expect("tmp");
    let file = dir.path().join("events.ndjson");
    let event = |i: u32, message: &str| {
        serde_json::json!({
            "apiVersion": "v1", "kind": "Event",
            "metadata": {"name": format!("e.{i}"), "namespace": "ns", "uid": format!("u-{i}"),
                         "resourceVersion": format!("{i}"), "creationTimestamp": "2026-12-01T00:00:00Z"},
            "involvedObject": {"kind": "Pod", "namespace": "ns", "name": "p"},
            "reason": "Huge", "message": message, "type": "Warning", "count": 1,
            "firstTimestamp": "2026-12-01T00:00:00Z", "lastTimestamp": "2026-12-01T00:00:00Z"
        })
    };
    // One Event of 16 MiB: its derivation parses it whole, more than 64 MiB
    // of DuckDB's memory.
    let lines = [event(1, "small"), event(2, &"x".repeat(16 << 20))];
    let text: String = lines.iter().map(|e| format!("{e}\n")).collect();
    std::fs::write(&file, text).expect("write");
    let path = dir.path().join("k.duckdb");
    let store = open_limited(&path, 64 * MIB);
    let err = ingest_files(&store, std::slice::from_ref(&file), &mut NoProgress).expect_err("too big");
    assert!(matches!(err, StoreError::OutOfMemory { limit, .. } if limit == 64 * MIB), "{err:?}");
    let text = err.to_string();
    assert!(text.starts_with("DuckDB ran out of memory in query "), "{text}");
    assert!(
        text.ends_with(
            "under the memory limit of 64MiB (--memory-limit / KDRIFT_MEMORY_LIMIT): raise it, e.g. --memory-limit \
             128MiB"
        ),
        "{text}"
    );
    // The store stays usable; the run is closed as failed.
    assert_eq!(store.counts().expect("counts").runs, 1);
    drop(store);
    assert!(!Path::new(&format!("{}.tmp", path.display())).exists());
}
