//! The store under a memory limit (issue 39): DuckDB's `memory_limit` and
//! temporary directory as a store is opened with them, an input larger
//! than the limit ingested under it, and an object too big for the limit:
//! an input error naming it and the limit to raise, the records around it
//! stored (issue 34); in a run that holds one transaction, the run's
//! failure naming the limit. Two objects too big, or objects that fit
//! alone after others as big: every good record stored (issue 34, break-it
//! 39b).

use std::io::Write;
use std::path::Path;

use kdrift_ingest::{ingest_files, NoProgress};
use kdrift_store::{NoMigrationProgress, OpenOptions, RunStatus, Store};

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
    // Without options: the default (1 GiB until a store of many 1 MiB
    // objects checkpoints under 128 MiB: break-it 38 F1).
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
fn a_json_list_larger_than_the_memory_limit_is_ingested_under_it() {
    let dir = tempfile::tempdir().expect("tmp");
    let file = dir.path().join("pods.json");
    // 1,600 Pods of 64 KiB: 100 MiB of JSON under a 96 MiB limit (12 MiB
    // batches). Before issue 39 a JSON file was committed in one batch, and
    // DuckDB failed ("failed to allocate data of size 16.0 MiB") under 128
    // MiB already; a batch of 64 KiB Pods still needs about 7 times its
    // bytes (under 80 MiB, 10 MiB batches fail in derive_pod_versions).
    write_pod_list(&file, 1_600, 64 << 10);
    let size = std::fs::metadata(&file).expect("size").len();
    assert!(size > 96 * MIB, "the input ({size} bytes) is larger than the limit");
    let store = open_limited(&dir.path().join("k.duckdb"), 96 * MIB);
    let report = ingest_files(&store, std::slice::from_ref(&file), &mut NoProgress).expect("ingested under 96 MiB");
    assert_eq!(report.status, RunStatus::Ok);
    assert_eq!((report.counts.records, report.counts.added, report.counts.duplicates), (1_600, 1_600, 0));
    let counts = store.counts().expect("counts");
    assert_eq!((counts.observations, counts.pods, counts.runs), (1_600, 1_600, 1));
}

/// An Event `e.I` in namespace `ns` whose message is `message`.
fn event(i: u32, message: &str) -> serde_json::Value {
    serde_json::json!({
        "apiVersion": "v1", "kind": "Event",
        "metadata": {"name": format!("e.{i}"), "namespace": "ns", "uid": format!("u-{i}"),
                     "resourceVersion": format!("{i}"), "creationTimestamp": "2026-12-01T00:00:00Z"},
        "involvedObject": {"kind": "Pod", "namespace": "ns", "name": "p"},
        "reason": "Huge", "message": message, "type": "Warning", "count": 1,
        "firstTimestamp": "2026-12-01T00:00:00Z", "lastTimestamp": "2026-12-01T00:00:00Z"
    })
}

/// The message of an 8 MiB Event: too big for DuckDB under 16 MiB. Its
/// message is held in the staging table (object and fields), in
/// `observations` and in `event_versions` as its batch commits. (An Event
/// of 16 MiB failed under 64 MiB, and one of 32 MiB under 128 MiB, until
/// issue 39 took the derivations' fields out in Rust.)
fn big_message() -> String {
    "x".repeat(8 << 20)
}

/// `n` with `,` between thousands (as input errors write sizes).
fn thousands(n: usize) -> String {
    kdrift_rebalance::thousands(n as u64)
}

/// The one-column rows of `sql` (joined with ` ` per row).
fn rows(store: &Store, sql: &str) -> Vec<String> {
    store.conn().prepare(sql).and_then(|mut s| s.query_map([], |r| r.get(0))?.collect()).expect(sql)
}

#[test]
fn an_object_too_big_for_the_memory_limit_is_an_input_error_naming_it_and_the_others_are_stored() {
    let dir = tempfile::tempdir().expect("tmp");
    let file = dir.path().join("events.ndjson");
    // The third line too big under 16 MiB, between small Events: its batch
    // (lines 1-3, committed as the big one passes 2 MiB, an eighth of the
    // limit) ran out of memory in derive_event_versions and was lost
    // whole, and the error named the query, not the line (issue 34, F2).
    let lines = [event(1, "one"), event(2, "two"), event(3, &big_message()), event(4, "four"), event(5, "five")];
    let text: String = lines.iter().map(|e| format!("{e}\n")).collect();
    std::fs::write(&file, text).expect("write");
    let path = dir.path().join("k.duckdb");
    let store = open_limited(&path, 16 * MIB);
    let report = ingest_files(&store, std::slice::from_ref(&file), &mut NoProgress).expect("the others are stored");
    assert_eq!(report.status, RunStatus::Partial);
    assert_eq!((report.counts.records, report.counts.added, report.counts.duplicates), (4, 4, 0));
    let f = &report.files[0];
    assert_eq!((f.records, f.events, f.added, f.duplicates, f.error_total()), (4, 4, 4, 0, 1));
    let bytes = thousands(lines[2].to_string().len());
    let expected = format!(
        "{}:3: Event ns/e.3 ({bytes} bytes of JSON): DuckDB ran out of memory storing it alone; expected an object \
         DuckDB can store under --memory-limit 16MiB: raise it, e.g. --memory-limit 128MiB (this object is not \
         stored; the other records are)",
        file.display()
    );
    assert_eq!(f.errors.iter().map(ToString::to_string).collect::<Vec<_>>(), std::slice::from_ref(&expected));
    // In the store: the four others with their derived rows; the run
    // partial with one error, its row naming the line, the file's counts.
    let counts = store.counts().expect("counts");
    assert_eq!((counts.observations, counts.events, counts.event_versions, counts.runs), (4, 4, 4, 1));
    assert_eq!(rows(&store, "SELECT name FROM event_versions ORDER BY name"), ["e.1", "e.2", "e.4", "e.5"]);
    assert_eq!(
        rows(&store, "SELECT concat_ws(' ', status, records_read, duplicates, errors) FROM ingest_runs"),
        ["partial 4 0 1"]
    );
    assert_eq!(
        rows(&store, "SELECT concat_ws(' ', line, records_read, events_read, errors) FROM ingest_errors, ingest_files"),
        ["3 4 4 1"]
    );
    let stored = expected.split_once(":3: ").map(|(_, message)| message.to_string());
    assert_eq!(rows(&store, "SELECT message FROM ingest_errors"), [stored.expect("a message")]);
    drop(store);
    assert!(!Path::new(&format!("{}.tmp", path.display())).exists());
}

#[test]
fn a_final_commit_out_of_memory_is_stored_in_parts_and_names_the_list_item_left_out() {
    use kdrift_store::{Change, Origin, Record, RunWriter};
    let dir = tempfile::tempdir().expect("tmp");
    let store = open_limited(&dir.path().join("k.duckdb"), 16 * MIB);
    // Staged as one batch (no batch bound here, as `ingest api` stages a
    // snapshot): the run's final commit runs out of memory.
    let mut writer = RunWriter::begin(&store, "file", "events.json").expect("begin");
    let big = big_message();
    for (i, message) in [(0, "zero"), (1, big.as_str()), (2, "two"), (3, "three")] {
        let origin = Origin { location: "events.json".into(), line: Some(1), item: Some(i) };
        let record = Record { object: event(i as u32, message), origin, observed_at: None, change: Change::Listed };
        writer.stage(record).expect("staged").expect("an object");
    }
    writer.record_file("events.json", "json", 4, 4, 0, 0, 0);
    let committed = writer.commit(RunStatus::Ok, 0).expect("the others are stored");
    assert_eq!(committed.status, RunStatus::Partial);
    assert_eq!((committed.counts.records, committed.counts.added, committed.counts.duplicates), (3, 3, 0));
    assert_eq!(committed.per_location, [("events.json".to_string(), 3)]);
    let [left_out] = &committed.rejected[..] else { panic!("{:?}", committed.rejected) };
    assert_eq!((left_out.origin.item, left_out.kind.as_str(), left_out.name.as_str()), (Some(1), "Event", "e.1"));
    assert_eq!(left_out.bytes as usize, event(1, &big).to_string().len());
    assert_eq!(rows(&store, "SELECT concat_ws(' ', status, records_read, errors) FROM ingest_runs"), ["partial 3 1"]);
    assert_eq!(
        rows(&store, "SELECT concat_ws(' ', item, records_read, events_read, errors) FROM ingest_errors, ingest_files"),
        ["1 3 3 1"]
    );
    assert_eq!(rows(&store, "SELECT name FROM event_versions ORDER BY name"), ["e.0", "e.2", "e.3"]);
}

#[test]
fn a_big_object_gives_a_held_transaction_up_and_alone_is_left_out() {
    use kdrift_store::{Change, Origin, Record, RunWriter};
    let dir = tempfile::tempdir().expect("tmp");
    let path = dir.path().join("k.duckdb");
    let store = open_limited(&path, 16 * MIB);
    // A run whose batches are moved inside one transaction (a VictoriaLogs
    // window) could not leave a big object out (DuckDB has no savepoints):
    // the object failed the run whole (break-it 40 F3). The transaction is
    // now committed before the big object, and the run goes on batch by batch.
    let mut writer = RunWriter::begin(&store, "victorialogs", "window").expect("begin");
    writer.hold_transaction().expect("held");
    let stage = |writer: &mut RunWriter<'_>, i: u32, message: &str| {
        let origin = Origin { location: "window".into(), line: Some(u64::from(i)), item: None };
        let record = Record { object: event(i, message), origin, observed_at: None, change: Change::Listed };
        writer.stage(record).expect("staged").expect("an object");
    };
    stage(&mut writer, 1, "small");
    writer.move_batch(0).expect("moved inside the transaction");
    assert!(!writer.released());
    stage(&mut writer, 2, &big_message());
    assert!(writer.released(), "given up at the big object");
    // Event 1 is committed: another connection sees it.
    assert_eq!(rows(&store, "SELECT concat_ws(' ', status, records_read) FROM ingest_runs"), ["running 1"]);
    writer.move_batch(0).expect("the big one left out");
    stage(&mut writer, 3, "three");
    let committed = writer.commit(RunStatus::Ok, 0).expect("committed");
    assert_eq!(committed.status, RunStatus::Partial);
    assert_eq!((committed.counts.records, committed.counts.added), (2, 2));
    let [left_out] = &committed.rejected[..] else { panic!("{:?}", committed.rejected) };
    assert_eq!((left_out.origin.line, left_out.name.as_str()), (Some(2), "e.2"));
    assert!(left_out.message.contains("DuckDB ran out of memory storing it alone"), "{}", left_out.message);
    assert_eq!(rows(&store, "SELECT name FROM event_versions ORDER BY name"), ["e.1", "e.3"]);
    assert_eq!(rows(&store, "SELECT concat_ws(' ', status, records_read, errors) FROM ingest_runs"), ["partial 2 1"]);
    drop(store);
    assert!(!Path::new(&format!("{}.tmp", path.display())).exists());
}

#[test]
fn objects_of_24_mib_are_stored_under_128_mib_with_their_derived_rows() {
    let dir = tempfile::tempdir().expect("tmp");
    let file = dir.path().join("big.ndjson");
    let text = "word x ".repeat((24 << 20) / 7);
    // An Event whose message is 24 MiB, and a Pod whose annotation is (the
    // model keeps annotations: the Pod's model is as big).
    let event = serde_json::json!({
        "apiVersion": "v1", "kind": "Event",
        "metadata": {"name": "e.1", "namespace": "ns", "uid": "u-1", "resourceVersion": "1",
                     "creationTimestamp": "2026-12-01T00:00:00Z"},
        "involvedObject": {"kind": "Pod", "namespace": "ns", "name": "big", "uid": "pod-uid"},
        "reason": "Huge", "message": text, "type": "Warning", "count": 3,
        "source": {"component": "kubelet", "host": "node-7"},
        "firstTimestamp": "2026-12-01T00:00:00Z", "lastTimestamp": "2026-12-01T00:05:00Z"
    });
    let pod = serde_json::json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "big", "namespace": "ns", "uid": "pod-uid", "resourceVersion": "2",
                     "creationTimestamp": "2026-12-01T00:00:00Z", "annotations": {"example.com/config": text},
                     "ownerReferences": [{"kind": "ReplicaSet", "name": "big-7d9f", "uid": "rs", "apiVersion": "apps/v1"}]},
        "spec": {"nodeName": "node-7", "containers": [{"name": "c", "image": "x",
                 "resources": {"requests": {"cpu": "250m", "memory": "64Mi"}}}]},
        "status": {"phase": "Running", "conditions": [
            {"type": "PodScheduled", "status": "True", "lastTransitionTime": "2026-12-01T00:00:01Z"}]}
    });
    std::fs::write(&file, format!("{event}\n{pod}\n")).expect("write");
    let store = open_limited(&dir.path().join("k.duckdb"), 128 * MIB);
    // Before issue 39's fields were taken out in Rust: "failed to allocate
    // data of size 64.0 MiB" in derive_pod_versions (the Pod parsed whole),
    // and the Event in derive_event_versions.
    let report = ingest_files(&store, std::slice::from_ref(&file), &mut NoProgress).expect("stored under 128 MiB");
    assert_eq!(report.status, RunStatus::Ok);
    assert_eq!((report.counts.records, report.counts.added), (2, 2));
    let rows = |sql: &str| -> Vec<String> {
        store.conn().prepare(sql).and_then(|mut s| s.query_map([], |r| r.get(0))?.collect()).expect(sql)
    };
    assert_eq!(
        rows(
            "SELECT concat_ws(' ', event_key, type, reason, length(message), involved_kind, involved_namespace, \
             involved_name, involved_uid, reporting_component, source_host, first_time, last_time, count) FROM event_versions"
        ),
        [format!(
            "ns/e.1 Warning Huge {} Pod ns big pod-uid kubelet node-7 2026-12-01 00:00:00 2026-12-01 00:05:00 3",
            text.len()
        )]
    );
    assert_eq!(
        rows(
            "SELECT concat_ws(' ', namespace, name, node_name, phase, owner_kind, owner_name, scheduled_at, \
             requests_cpu, requests_memory) FROM pod_versions"
        ),
        ["ns big node-7 Running ReplicaSet big-7d9f 2026-12-01 00:00:01 250 67108864"]
    );
}

/// `good` small Events `e.0`, `e.1`, … with an Event `e.9000`, `e.9001`, …
/// of `big` bytes of message after every `good / (bigs + 1)`-th, as
/// compact JSON lines, and the big ones' line numbers (1-based).
fn events_around_big_ones(good: u32, bigs: u32, big: usize) -> (Vec<String>, Vec<usize>) {
    let step = good / (bigs + 1);
    let mut lines = Vec::new();
    let mut at = Vec::new();
    for i in 0..good {
        lines.push(event(i, "0/3 nodes are available: 3 Insufficient cpu.").to_string());
        let k = (i + 1) / step;
        if (i + 1) % step == 0 && k <= bigs {
            // Each message its own (no two share a content hash).
            lines.push(event(9000 + k - 1, &format!("{k}{}", "y".repeat(big))).to_string());
            at.push(lines.len());
        }
    }
    (lines, at)
}

/// Ingests `file` under `limit` and checks that every one of the `good`
/// small Events is stored with its derived row, the run is partial, and
/// the only errors are the big Events, by `names` (where each was read).
fn check_every_good_event_stored(file: &Path, limit: u64, good: u64, names: &[String]) {
    let dir = file.parent().expect("dir");
    let store = open_limited(&dir.join("k.duckdb"), limit);
    let report = ingest_files(&store, &[file.to_path_buf()], &mut NoProgress).expect("the good records are stored");
    assert_eq!(report.status, RunStatus::Partial);
    assert_eq!((report.counts.records, report.counts.added, report.counts.duplicates), (good, good, 0));
    let f = &report.files[0];
    assert_eq!((f.records, f.events, f.error_total()), (good, good, names.len() as u64));
    let errors: Vec<String> = f.errors.iter().map(ToString::to_string).collect();
    assert_eq!(errors.len(), names.len(), "{errors:?}");
    for (error, name) in errors.iter().zip(names) {
        assert!(error.starts_with(name), "{error} names {name}");
        assert!(error.contains("DuckDB ran out of memory storing it alone"), "{error}");
    }
    let counts = store.counts().expect("counts");
    assert_eq!((counts.observations, counts.event_versions, counts.runs), (good as i64, good as i64, 1));
    assert_eq!(
        rows(&store, "SELECT count(*)::VARCHAR FROM event_versions WHERE name NOT LIKE 'e.900_'"),
        [good.to_string()]
    );
    assert_eq!(
        rows(&store, "SELECT concat_ws(' ', status, records_read, errors) FROM ingest_runs"),
        [format!("partial {good} {}", names.len())]
    );
}

#[test]
fn two_objects_too_big_among_good_ndjson_lines_are_the_only_errors_and_every_good_one_is_stored() {
    let dir = tempfile::tempdir().expect("tmp");
    let file = dir.path().join("events.ndjson");
    // Under 16 MiB, two Events of 8 MiB among 60 small ones. The second
    // one's bulk load into the staging table ran out of memory (the first
    // one's deleted staging rows still held it) and failed the whole run:
    // 20 of 60 stored (break-it 39b F1: 100 of 300 with 30 MiB under 64 MiB).
    let (lines, at) = events_around_big_ones(60, 2, 8 << 20);
    std::fs::write(&file, lines.iter().map(|l| format!("{l}\n")).collect::<String>()).expect("write");
    let names: Vec<String> = at
        .iter()
        .zip(["e.9000", "e.9001"])
        .map(|(line, e)| format!("{}:{line}: Event ns/{e} (", file.display()))
        .collect();
    check_every_good_event_stored(&file, 16 * MIB, 60, &names);
}

#[test]
fn two_objects_too_big_among_good_json_list_items_are_the_only_errors_and_every_good_one_is_stored() {
    let dir = tempfile::tempdir().expect("tmp");
    let file = dir.path().join("events.json");
    // The same as a List (read as a stream): 0 of 300 stored in break-it 39b.
    let (lines, at) = events_around_big_ones(60, 2, 8 << 20);
    std::fs::write(
        &file,
        format!("{{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[\n{}\n]}}\n", lines.join(",\n")),
    )
    .expect("write");
    let names: Vec<String> = at
        .iter()
        .zip(["e.9000", "e.9001"])
        // FILE:LINE: items[I] (break-it 40 F11: the line was missing).
        .map(|(line, e)| format!("{}:{}: items[{}]: Event ns/{e} (", file.display(), line + 1, line - 1))
        .collect();
    check_every_good_event_stored(&file, 16 * MIB, 60, &names);
}

#[test]
fn objects_that_each_fit_alone_are_all_stored_however_many_come_before() {
    let dir = tempfile::tempdir().expect("tmp");
    let file = dir.path().join("events.ndjson");
    // Four Events of 3 MiB under 16 MiB (break-it 39b F2: three of 12 MiB
    // under 64 MiB). The staging rows of the ones stored before, deleted,
    // still held their memory: the third was refused "storing it alone".
    let (lines, _) = events_around_big_ones(50, 4, 3 << 20);
    std::fs::write(&file, lines.iter().map(|l| format!("{l}\n")).collect::<String>()).expect("write");
    let store = open_limited(&dir.path().join("k.duckdb"), 16 * MIB);
    let report = ingest_files(&store, std::slice::from_ref(&file), &mut NoProgress).expect("stored");
    let errors: Vec<String> = report.files[0].errors.iter().map(ToString::to_string).collect();
    assert_eq!(errors, Vec::<String>::new());
    assert_eq!(report.status, RunStatus::Ok);
    assert_eq!((report.counts.records, report.counts.added), (54, 54));
    assert_eq!(rows(&store, "SELECT count(*)::VARCHAR FROM event_versions WHERE name LIKE 'e.900_'"), ["4"]);
}

/// A JSON List of `good` small Events with one of `big` bytes of message
/// in the middle, ingested under `limit` with batches of `batch_bytes` at
/// most (the file streamed when it holds a quarter of that): every good
/// item stored, the big one the only error.
fn one_big_in_the_middle_of_a_list(limit: u64, batch_bytes: u64, good: u32, big: usize) {
    use kdrift_ingest::{ingest_files_with, FileLimits, Interrupt};
    let dir = tempfile::tempdir().expect("tmp");
    let file = dir.path().join("events.json");
    let (lines, at) = events_around_big_ones(good, 1, big);
    std::fs::write(
        &file,
        format!("{{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[\n{}\n]}}\n", lines.join(",\n")),
    )
    .expect("write");
    let store = open_limited(&dir.path().join("k.duckdb"), limit);
    let limits = FileLimits { batch_bytes, ..FileLimits::default() };
    let report = ingest_files_with(&store, std::slice::from_ref(&file), &limits, &mut NoProgress, &Interrupt::new())
        .expect("the good records are stored");
    let errors: Vec<String> = report.files[0].errors.iter().map(ToString::to_string).collect();
    let name = format!("{}:{}: items[{}]: Event ns/e.9000 (", file.display(), at[0] + 1, at[0] - 1);
    let [error] = &errors[..] else { panic!("one error expected: {errors:?}") };
    assert!(error.starts_with(&name) && error.contains("ran out of memory storing it alone"), "{error}");
    assert_eq!(report.status, RunStatus::Partial);
    let good = u64::from(good);
    assert_eq!((report.counts.records, report.counts.added, report.counts.duplicates), (good, good, 0));
    let counts = store.counts().expect("counts");
    assert_eq!((counts.observations, counts.event_versions), (good as i64, good as i64));
    assert_eq!(
        rows(&store, "SELECT concat_ws(' ', status, records_read, errors) FROM ingest_runs"),
        [format!("partial {good} 1")]
    );
}

#[test]
fn the_items_after_an_object_too_big_in_a_json_list_are_all_stored() {
    // Under 16 MiB, one Event of 12 MiB among 100 small ones, as List
    // items read as a stream in batches of 16 MiB (the default 64 MiB was
    // not bounded by the limit): the big one left out, and every item
    // after it refused as "storing it alone" too, its deleted staging rows
    // still holding its memory (break-it 40 F1: 50 of 100 stored with
    // 60 MiB under 64 MiB; here too, with 11 or 13 MiB; 6 and 9 MiB passed).
    one_big_in_the_middle_of_a_list(16 * MIB, 16 * MIB, 100, 12 << 20);
}

#[test]
fn the_objects_after_one_too_big_in_a_batch_are_all_stored() {
    use kdrift_store::{Change, Origin, Record, RunWriter};
    let dir = tempfile::tempdir().expect("tmp");
    let store = open_limited(&dir.path().join("k.duckdb"), 16 * MIB);
    // One batch (no bound: `ingest api` stages an EventList so) of 100
    // small Events with one of 12 MiB in the middle: its commit in parts
    // left the big one out, and then each small one after it too, the big
    // one's deleted staging rows holding the memory (break-it 40 F1: an
    // EventList of 100 with one of 60 MiB under 64 MiB, 50 stored).
    let mut writer = RunWriter::begin(&store, "api", "events").expect("begin");
    let big = "y".repeat(12 << 20);
    for i in 0..101u32 {
        let message = if i == 50 { big.as_str() } else { "0/3 nodes are available: 3 Insufficient cpu." };
        let origin = Origin { location: "events".into(), line: None, item: Some(u64::from(i)) };
        let record = Record { object: event(i, message), origin, observed_at: None, change: Change::Listed };
        writer.stage(record).expect("staged").expect("an object");
    }
    let committed = writer.commit(RunStatus::Ok, 0).expect("the others are stored");
    let left_out: Vec<_> = committed.rejected.iter().map(|r| (r.origin.item, r.name.clone())).collect();
    assert_eq!(left_out, [(Some(50), "e.50".to_string())]);
    assert_eq!((committed.status, committed.counts.records, committed.counts.added), (RunStatus::Partial, 100, 100));
    assert_eq!(rows(&store, "SELECT count(*)::VARCHAR FROM event_versions WHERE name <> 'e.50'"), ["100"]);
}
