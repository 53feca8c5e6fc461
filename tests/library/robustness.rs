//! Regression tests for input that once broke kdrift (found by trying to
//! break it): huge counts, reused pod names, time-zone offsets, damaged
//! files, odd file-system entries, foreign or shared stores.

use std::io::Write;
use std::path::{Path, PathBuf};

use kdrift_analyze::{pending_pods, why_pending};
use kdrift_ingest::{ingest_files, NoProgress};
use kdrift_store::Store;
use kdrift_store::StoreError;
use kdrift_tests::temp_store;

fn write(dir: &Path, name: &str, body: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::File::create(&p).and_then(|mut f| f.write_all(body)).expect("write");
    p
}

/// One core/v1 FailedScheduling (or other) event as a JSON line.
#[allow(clippy::too_many_arguments)]
fn ev(
    name: &str,
    pod: &str,
    uid: &str,
    reason: &str,
    msg: &str,
    count: serde_json::Value,
    first: &str,
    last: &str,
) -> String {
    serde_json::json!({
        "apiVersion": "v1", "kind": "Event",
        "metadata": {"name": name, "namespace": "d"},
        "involvedObject": {"kind": "Pod", "namespace": "d", "name": pod, "uid": uid},
        "reason": reason, "message": msg, "count": count,
        "firstTimestamp": first, "lastTimestamp": last, "type": "Warning"
    })
    .to_string()
}

const FS: &str = "0/2 nodes are available: 2 Insufficient cpu.";

/// `n` FailedScheduling events as NDJSON lines, named `{prefix}.{i}` for pods `p{i}`.
fn failed_scheduling_lines(prefix: &str, n: usize) -> String {
    (0..n)
        .map(|i| {
            let name = format!("{prefix}.{i}");
            ev(
                &name,
                &format!("p{i}"),
                "u",
                "FailedScheduling",
                FS,
                1.into(),
                "2026-01-01T00:00:00Z",
                "2026-01-01T00:00:00Z",
            ) + "\n"
        })
        .collect()
}

/// `bytes` gzip-compressed.
fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(bytes).expect("gz");
    gz.finish().expect("gz")
}

/// A Scheduled event binding `d/web-0` (`uid`, `""` for none) to n1 at `at`.
fn web0_scheduled(name: &str, uid: &str, at: &str) -> String {
    ev(name, "web-0", uid, "Scheduled", "Successfully assigned d/web-0 to n1", 1.into(), at, at)
}

/// `nodes.json` in `dir`: nodes n1..=n`count`, 1 CPU each.
fn one_cpu_nodes(dir: &Path, count: u32) -> PathBuf {
    let items: Vec<serde_json::Value> = (1..=count)
        .map(|i| {
            serde_json::json!({"apiVersion": "v1", "kind": "Node",
                "metadata": {"name": format!("n{i}"), "uid": format!("u-n{i}"), "creationTimestamp": "2026-01-01T00:00:00Z"},
                "status": {"allocatable": {"cpu": "1", "memory": "4Gi", "pods": "110"}}})
        })
        .collect();
    write(dir, "nodes.json", serde_json::json!({"kind": "List", "items": items}).to_string().as_bytes())
}

#[test]
fn int32_counts_sum_without_overflow_and_larger_ones_are_rejected() {
    let (dir, store) = temp_store();
    let max = serde_json::json!(2147483647);
    let lines = [
        ev("a.1", "big", "u", "FailedScheduling", FS, max.clone(), "2026-01-01T00:00:00Z", "2026-01-01T01:00:00Z"),
        ev("a.2", "big", "u", "FailedScheduling", FS, max.clone(), "2026-01-01T00:00:00Z", "2026-01-01T01:00:00Z"),
        ev("a.3", "big", "u", "FailedScheduling", FS, max, "2026-01-01T00:00:00Z", "2026-01-01T01:00:00Z"),
        ev(
            "a.4",
            "big",
            "u",
            "FailedScheduling",
            FS,
            serde_json::json!(9223372036854775807u64),
            "2026-01-01T00:00:00Z",
            "2026-01-01T01:00:00Z",
        ),
    ];
    let f = write(dir.path(), "big.ndjson", lines.join("\n").as_bytes());
    let report = ingest_files(&store, &[f], &mut NoProgress).expect("ingest");
    assert_eq!(report.files[0].records, 3);
    assert_eq!(report.files[0].errors.len(), 1);
    assert!(
        report.files[0].errors[0].to_string().contains("big.ndjson:4: Event d/a.4: count:"),
        "{}",
        report.files[0].errors[0]
    );
    let r = why_pending(&store, "d", "big").expect("query").expect("report");
    assert_eq!(r.history.occurrences, 3 * 2147483647);
    assert_eq!(pending_pods(&store).expect("all")[0].occurrences, 3 * 2147483647);
}

#[test]
fn a_reused_pod_name_is_explained_as_the_newest_pod_only() {
    let (dir, store) = temp_store();
    let mut lines = vec![
        ev("old.1", "web-0", "OLD", "FailedScheduling", FS, 10.into(), "2026-01-01T01:00:00Z", "2026-01-01T01:20:00Z"),
        web0_scheduled("old.2", "OLD", "2026-01-01T01:21:00Z"),
        ev(
            "new.1",
            "web-0",
            "NEW",
            "FailedScheduling",
            "0/2 nodes are available: 2 Too many pods.",
            4.into(),
            "2026-01-01T05:00:00Z",
            "2026-01-01T05:30:00Z",
        ),
    ];
    lines.push(String::new());
    let f = write(dir.path(), "reuse.ndjson", lines.join("\n").as_bytes());
    ingest_files(&store, &[f], &mut NoProgress).expect("ingest");
    let r = why_pending(&store, "d", "web-0").expect("query").expect("report");
    assert_eq!(r.uid, "NEW");
    assert_eq!(r.history.occurrences, 4);
    assert_eq!(r.history.outcome, "pending");
    assert_eq!(r.reasons[0].reason, "Too many pods");
    assert!(r.notes.iter().any(|n| n.contains("earlier pod with the same name")), "{:?}", r.notes);
}

/// A pod object of `d/web-0` (`uid`), requesting `cpu`, bound to `node`
/// when given; its newest timestamp (what a dump's version is dated by) is
/// `seen`.
fn web0(uid: &str, cpu: &str, node: Option<&str>, created: &str, seen: &str) -> serde_json::Value {
    let mut spec = serde_json::json!({"containers": [{"name": "app", "resources": {"requests": {"cpu": cpu}}}]});
    if let Some(n) = node {
        spec["nodeName"] = serde_json::json!(n);
    }
    serde_json::json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "web-0", "namespace": "d", "uid": uid, "creationTimestamp": created},
        "spec": spec,
        "status": {"phase": if node.is_some() { "Running" } else { "Pending" },
                   "conditions": [{"type": "PodScheduled", "status": if node.is_some() { "True" } else { "False" },
                                   "lastTransitionTime": seen}]}
    })
}

#[test]
fn a_reused_pod_name_is_evaluated_with_its_own_object_not_the_earlier_pods() {
    // why-pending read the pod's requests, and its deletion, from the
    // version of its *name* at the failure: the earlier web-0 (1500m, seen
    // before the failure) instead of the pending one (100m, dumped after).
    let (dir, store) = temp_store();
    let failed =
        ev("new.1", "web-0", "NEW", "FailedScheduling", FS, 4.into(), "2026-01-01T05:00:00Z", "2026-01-01T05:30:00Z");
    let files = [
        one_cpu_nodes(dir.path(), 2),
        write(
            dir.path(),
            "old.json",
            web0("OLD", "1500m", Some("n1"), "2026-01-01T01:00:00Z", "2026-01-01T01:21:00Z").to_string().as_bytes(),
        ),
        write(dir.path(), "events.ndjson", failed.as_bytes()),
        write(
            dir.path(),
            "new.json",
            web0("NEW", "100m", None, "2026-01-01T05:00:00Z", "2026-01-01T05:40:00Z").to_string().as_bytes(),
        ),
    ];
    let report = ingest_files(&store, &files, &mut NoProgress).expect("ingest");
    assert_eq!(report.error_count(), 0, "{:?}", report.files);
    let r = why_pending(&store, "d", "web-0").expect("query").expect("report");
    assert_eq!(r.uid, "NEW");
    let state = r.state.as_ref().expect("state");
    assert!(state.pod_known);
    assert_eq!(state.pod_requests, vec![("cpu".to_string(), 100)], "the pending pod's own request");
    assert_eq!(state.shortfalls, vec![], "100m fits on 1 CPU: no shortfall from the other pod's 1500m");
    assert_eq!(r.history.outcome, "pending");

    // The earlier pod deleted (a watch's DELETED), the pending one known
    // from its events only: it was not "deleted unscheduled".
    let (dir, store) = temp_store();
    let old = web0("OLD", "1500m", Some("n1"), "2026-01-01T01:00:00Z", "2026-01-01T01:21:00Z");
    let watch = [
        serde_json::json!({"type": "ADDED", "object": old}).to_string(),
        serde_json::json!({"type": "DELETED", "object": old}).to_string(),
    ];
    let files = [
        one_cpu_nodes(dir.path(), 2),
        write(dir.path(), "watch.ndjson", watch.join("\n").as_bytes()),
        write(dir.path(), "events.ndjson", failed.as_bytes()),
    ];
    ingest_files(&store, &files, &mut NoProgress).expect("ingest");
    let r = why_pending(&store, "d", "web-0").expect("query").expect("report");
    assert_eq!((r.history.outcome, r.history.deleted_at), ("pending", None), "{:?}", r.history);
    assert!(!r.state.as_ref().expect("state").pod_known, "no object of the pending pod is stored");
}

#[test]
fn a_pending_pod_dumped_after_its_binding_is_evaluated_without_its_later_node() {
    // Its stored version (Running on n1, seen after the failure) carried
    // spec.nodeName: "NodeName excluded 1 node(s): n2" at a failure where
    // the pod had no node yet.
    let (dir, store) = temp_store();
    let events = [
        ev("f.1", "web-0", "NEW", "FailedScheduling", FS, 4.into(), "2026-01-01T05:00:00Z", "2026-01-01T05:30:00Z"),
        web0_scheduled("s.1", "NEW", "2026-01-01T05:50:00Z"),
    ];
    let files = [
        one_cpu_nodes(dir.path(), 2),
        write(dir.path(), "events.ndjson", events.join("\n").as_bytes()),
        write(
            dir.path(),
            "pod.json",
            web0("NEW", "100m", Some("n1"), "2026-01-01T05:00:00Z", "2026-01-01T06:00:00Z").to_string().as_bytes(),
        ),
    ];
    ingest_files(&store, &files, &mut NoProgress).expect("ingest");
    let r = why_pending(&store, "d", "web-0").expect("query").expect("report");
    let state = r.state.as_ref().expect("state");
    assert!(state.pod_known);
    assert_eq!(state.constraints, vec![], "no NodeName exclusion");
    assert_eq!(state.left, ["n1", "n2"]);
}

#[test]
fn a_uid_less_version_of_another_pod_does_not_stand_for_the_pending_one() {
    let (dir, store) = temp_store();
    let mut old = web0("", "1500m", Some("n1"), "2026-01-01T01:00:00Z", "2026-01-01T01:21:00Z");
    old["metadata"].as_object_mut().expect("metadata").remove("uid");
    let failed =
        ev("new.1", "web-0", "NEW", "FailedScheduling", FS, 4.into(), "2026-01-01T05:00:00Z", "2026-01-01T05:30:00Z");
    let files = [
        one_cpu_nodes(dir.path(), 1),
        write(dir.path(), "old.json", old.to_string().as_bytes()),
        write(dir.path(), "events.ndjson", failed.as_bytes()),
        write(
            dir.path(),
            "new.json",
            web0("NEW", "100m", None, "2026-01-01T05:00:00Z", "2026-01-01T05:40:00Z").to_string().as_bytes(),
        ),
    ];
    ingest_files(&store, &files, &mut NoProgress).expect("ingest");
    let r = why_pending(&store, "d", "web-0").expect("query").expect("report");
    assert_eq!(r.state.as_ref().expect("state").pod_requests, vec![("cpu".to_string(), 100)]);
}

#[test]
fn a_binding_before_a_later_failure_of_the_name_is_not_the_outcome() {
    // Events without a uid merge two pods of one name: the first bound at
    // 01:00, the second failing from 05:00. It said "scheduled on n1 at
    // 01:00" for failures that went on until 05:30.
    let (dir, store) = temp_store();
    let lines = [
        ev("a.1", "web-0", "", "FailedScheduling", FS, 2.into(), "2026-01-01T00:50:00Z", "2026-01-01T00:59:00Z"),
        web0_scheduled("a.2", "", "2026-01-01T01:00:00Z"),
        ev("b.1", "web-0", "", "FailedScheduling", FS, 4.into(), "2026-01-01T05:00:00Z", "2026-01-01T05:30:00Z"),
    ];
    let f = write(dir.path(), "e.ndjson", lines.join("\n").as_bytes());
    ingest_files(&store, &[f], &mut NoProgress).expect("ingest");
    let r = why_pending(&store, "d", "web-0").expect("query").expect("report");
    assert_eq!((r.history.outcome, r.history.scheduled.is_none()), ("pending", true), "{:?}", r.history);
    let all = pending_pods(&store).expect("all");
    assert_eq!((all.len(), all[0].scheduled_at), (1, None));
}

#[test]
fn time_zone_offsets_are_converted_to_utc() {
    let (dir, store) = temp_store();
    let line = ev(
        "tz.1",
        "tz",
        "u",
        "FailedScheduling",
        FS,
        2.into(),
        "2026-11-27T06:00:00+02:00",
        "2026-11-27T06:30:00+02:00",
    );
    let f = write(dir.path(), "tz.json", line.as_bytes());
    ingest_files(&store, &[f], &mut NoProgress).expect("ingest");
    let p = &pending_pods(&store).expect("all")[0];
    assert_eq!(p.first_failure.to_rfc3339(), "2026-11-27T04:00:00+00:00");
    assert_eq!(p.pending_seconds, 1800);
}

#[test]
fn damaged_files_keep_every_good_record() {
    let (dir, store) = temp_store();
    let good = |i: usize| {
        ev(
            &format!("g.{i}"),
            &format!("p{i}"),
            "u",
            "FailedScheduling",
            FS,
            1.into(),
            "2026-01-01T00:00:00Z",
            "2026-01-01T00:00:00Z",
        )
    };
    // NDJSON whose first line is bad.
    let nd =
        write(dir.path(), "first-bad.ndjson", format!("{{oops\n{}\n{}\n{}\n", good(1), good(2), good(3)).as_bytes());
    // Concatenated pretty documents with a bad one in the middle.
    let pretty = |i: usize| {
        serde_json::to_string_pretty(&serde_json::from_str::<serde_json::Value>(&good(i)).expect("json"))
            .expect("pretty")
    };
    let cat = write(
        dir.path(),
        "watch.json",
        format!("{}\n{}\n{{\n \"kind\": oops\n}}\n{}\n{}\n", pretty(4), pretty(5), pretty(6), pretty(7)).as_bytes(),
    );
    // YAML with a bad document in the middle.
    let yaml = write(
        dir.path(),
        "multi.yaml",
        b"kind: Node\nmetadata:\n  name: n1\n---\nkind: [unclosed\n---\nkind: Node\nmetadata:\n  name: n3\n",
    );
    // A byte-order mark before NDJSON.
    let bom = write(dir.path(), "bom.ndjson", format!("\u{feff}{}\n{}\n", good(8), good(9)).as_bytes());
    // An empty file, a bare array, items that are not a list, an OpenTelemetry record.
    let empty = write(dir.path(), "empty.json", b"  \n");
    let array = write(dir.path(), "array.json", format!("[{}, {}]", good(10), good(11)).as_bytes());
    let items = write(dir.path(), "items.json", br#"{"kind":"EventList","items":{"a":1}}"#);
    let otel = write(
        dir.path(),
        "otel.ndjson",
        br#"{"_msg":"x","_time":"2026-01-01T00:00:00Z","k8s.event.reason":"FailedScheduling","k8s.object.name":"p"}"#,
    );
    let report =
        ingest_files(&store, &[nd, cat, yaml, bom, empty, array, items, otel], &mut NoProgress).expect("ingest");
    let file = |n: &str| report.files.iter().find(|f| f.location.ends_with(n)).expect(n);
    assert_eq!((file("first-bad.ndjson").records, file("first-bad.ndjson").errors[0].origin.line), (3, Some(1)));
    assert_eq!(file("watch.json").records, 4, "{:?}", file("watch.json").errors);
    assert_eq!(file("multi.yaml").records, 2, "{:?}", file("multi.yaml").errors);
    let line = file("multi.yaml").errors[0].origin.line.expect("line");
    assert!((5..=6).contains(&line), "the bad document starts on line 5: {line}");
    assert_eq!((file("bom.ndjson").records, file("bom.ndjson").errors.len()), (2, 0));
    assert!(file("empty.json").errors[0].message.contains("empty"));
    assert_eq!(file("array.json").records, 2);
    assert!(file("items.json").errors[0].message.contains("expected a list"), "{:?}", file("items.json").errors);
    assert!(
        file("otel.ndjson").errors[0].message.contains("OpenTelemetry k8sevents"),
        "{:?}",
        file("otel.ndjson").errors
    );
}

/// Several JSON values on one line (glued `{…}{…}`, blank-separated, old-Mac
/// `\r` line ends) all load, in the small-file and the streamed chunked
/// reader alike; text after a value that is not JSON is an error at its
/// file, line and column, and the values around it load (kdrift issue 34:
/// all but the first value of a line were dropped, exit 0, no error).
#[test]
fn every_value_on_a_line_loads_and_text_after_one_is_an_error_naming_its_line_and_column() {
    let (dir, store) = temp_store();
    let good = |i: usize| {
        ev(
            &format!("v.{i}"),
            &format!("p{i}"),
            "u",
            "FailedScheduling",
            FS,
            1.into(),
            "2026-01-01T00:00:00Z",
            "2026-01-01T00:00:00Z",
        )
    };
    let glued =
        write(dir.path(), "glued.ndjson", format!("{}{}\n{} {}\n", good(1), good(2), good(3), good(4)).as_bytes());
    let mac = write(dir.path(), "mac.ndjson", format!("{}\r{}\r{}\r", good(5), good(6), good(7)).as_bytes());
    let tail = write(dir.path(), "tail.ndjson", format!("{} garbage\n{}\n", good(8), good(9)).as_bytes());
    // Not named NDJSON: read as such by content, and as one JSON stream.
    let cat = write(dir.path(), "cat.json", format!("{}{}\n{}\n", good(10), good(11), good(12)).as_bytes());
    let one = write(dir.path(), "one.json", format!("{}{}\r{}", good(13), good(14), good(15)).as_bytes());
    // Past one chunk of the parallel reader (2,048 lines): 3,000 lines of two values each.
    let many: String = (0..3000).map(|i| format!("{}{}\n", good(100 + 2 * i), good(101 + 2 * i))).collect();
    let many = write(dir.path(), "many.ndjson", many.as_bytes());
    let report = ingest_files(&store, &[glued, mac, tail, cat, one, many], &mut NoProgress).expect("ingest");
    let file = |n: &str| report.files.iter().find(|f| f.location.ends_with(n)).expect(n);
    for (name, records) in [
        ("glued.ndjson", 4),
        ("mac.ndjson", 3),
        ("tail.ndjson", 2),
        ("cat.json", 3),
        ("one.json", 3),
        ("many.ndjson", 6000),
    ] {
        let f = file(name);
        assert_eq!((f.records, f.added), (records, records), "{name}: {:?}", f.errors);
        if name != "tail.ndjson" {
            assert_eq!(f.errors, [], "{name}");
        }
    }
    let errors: Vec<String> = file("tail.ndjson").errors.iter().map(ToString::to_string).collect();
    assert_eq!(
        errors,
        [format!(
            "{}:1:{}: invalid JSON: expected value, after 1 complete JSON value on this line (read); the rest of the \
             line is not read; expected one JSON object per line (a Kubernetes object or a log record)",
            file("tail.ndjson").location,
            good(8).len() + 2
        )]
    );
    assert_eq!((report.counts.records, report.counts.added), (6015, 6015));
}

#[test]
fn a_truncated_gzip_keeps_the_records_before_the_damage() {
    let (dir, store) = temp_store();
    let full = gzip(failed_scheduling_lines("z", 2000).as_bytes());
    let cut = write(dir.path(), "cut.ndjson.gz", &full[..full.len() * 2 / 3]);
    let report = ingest_files(&store, &[cut], &mut NoProgress).expect("ingest");
    let f = &report.files[0];
    assert!(f.records > 500 && f.records < 2000, "{} records", f.records);
    assert!(f.errors.iter().any(|e| e.message.contains("gzip")), "{:?}", f.errors);
}

/// Break-it 41 G11: `m1 + "GARBAGE" + m2` stored m1's 200 records of
/// 400 (`invalid gzip header`). The garbage is skipped to the next member
/// header, an input error names its bytes and the line it comes before,
/// and the later member's records load: streamed NDJSON and a file read
/// whole (a List, its members split mid-item, trailing bytes after it).
#[test]
fn garbage_between_gzip_members_is_skipped_and_the_records_after_it_load() {
    let (dir, store) = temp_store();
    let m1 = gzip(failed_scheduling_lines("a", 200).as_bytes());
    let m2 = gzip(failed_scheduling_lines("b", 200).as_bytes());
    let ndjson = write(dir.path(), "between.ndjson.gz", &[m1.clone(), b"GARBAGE".to_vec(), m2].concat());
    let items: Vec<String> = failed_scheduling_lines("c", 50).lines().map(str::to_string).collect();
    let list = format!("{{\"kind\":\"EventList\",\"apiVersion\":\"v1\",\n\"items\":[\n{}\n]}}\n", items.join(",\n"));
    let half = list.len() / 2;
    let whole = [gzip(&list.as_bytes()[..half]), b"JUNK".to_vec(), gzip(&list.as_bytes()[half..]), vec![0, 0]].concat();
    let whole = write(dir.path(), "list.json.gz", &whole);
    let report = ingest_files(&store, &[ndjson, whole], &mut NoProgress).expect("ingest");
    let file = |n: &str| report.files.iter().find(|f| f.location.ends_with(n)).expect(n);
    let f = file("between.ndjson.gz");
    assert_eq!(f.records, 400, "{:?}", f.errors);
    let errors: Vec<String> = f.errors.iter().map(ToString::to_string).collect();
    let (from, to) = (m1.len(), m1.len() + 7);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].ends_with(&format!(
            "between.ndjson.gz:201: compressed bytes {from} to {to} (7 bytes between two gzip members) are not gzip \
             data: skipped to the next gzip member (1f 8b 08) at byte {to}, whose records are read; the lines before \
             and after are kept"
        )),
        "{errors:?}"
    );
    let f = file("list.json.gz");
    assert_eq!(f.records, 50, "{:?}", f.errors);
    let errors: Vec<String> = f.errors.iter().map(ToString::to_string).collect();
    assert_eq!(errors.len(), 2, "{errors:?}");
    assert!(errors[0].contains("(4 bytes between two gzip members) are not gzip data: skipped"), "{errors:?}");
    assert!(
        errors[1].contains("list.json.gz:54: the 2 bytes after the last gzip member")
            && errors[1].ends_with("ignored, as gzip -d ignores trailing garbage; the records before it are kept"),
        "{errors:?}"
    );
    assert_eq!(store.counts().expect("counts").observations, 450);
}

#[cfg(unix)]
#[test]
fn symlink_loops_end_and_fifos_are_not_read() {
    let (dir, store) = temp_store();
    let root = dir.path().join("dump");
    std::fs::create_dir_all(root.join("sub")).expect("mkdir");
    write(
        &root,
        "events.json",
        ev("l.1", "p", "u", "FailedScheduling", FS, 1.into(), "2026-01-01T00:00:00Z", "2026-01-01T00:00:00Z")
            .as_bytes(),
    );
    std::os::unix::fs::symlink(".", root.join("self")).expect("symlink");
    std::os::unix::fs::symlink("..", root.join("sub/up")).expect("symlink");
    let fifo = root.join("b.json");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status().is_ok_and(|s| s.success());
    let report = ingest_files(&store, &[root.clone(), root], &mut NoProgress).expect("ingest");
    let read: Vec<&String> = report.files.iter().filter(|f| f.format.is_some()).map(|f| &f.location).collect();
    assert_eq!(read.len(), 1, "each file once: {read:?}");
    assert_eq!(report.counts.records, 1);
    if made {
        // A dump's name that is no regular file is an input error, not a
        // file ignored as no dump (break-it 34 L3).
        assert!(!report.ignored.iter().any(|i| i.ends_with("b.json")), "{:?}", report.ignored);
        let errors: Vec<String> = report.files.iter().flat_map(|f| &f.errors).map(ToString::to_string).collect();
        assert!(
            errors.iter().any(|e| e.contains("b.json")
                && e.contains("not a regular file (a FIFO, socket or device would never end): not read")),
            "{errors:?}"
        );
    }
}

/// A symlink named like a dump that leads nowhere (dangling, or a loop) is
/// an input error naming it; the other files load (break-it 34 L3: it was
/// counted among the files that are no dump).
#[cfg(unix)]
#[test]
fn a_dump_named_symlink_that_leads_nowhere_is_an_input_error() {
    let (dir, store) = temp_store();
    let root = dir.path().join("dump");
    std::fs::create_dir_all(&root).expect("mkdir");
    write(
        &root,
        "events.json",
        ev("l.1", "p", "u", "FailedScheduling", FS, 1.into(), "2026-01-01T00:00:00Z", "2026-01-01T00:00:00Z")
            .as_bytes(),
    );
    std::os::unix::fs::symlink("/nonexistent/x.json", root.join("broken.json")).expect("symlink");
    std::os::unix::fs::symlink("loop.json", root.join("loop.json")).expect("symlink");
    std::os::unix::fs::symlink("/nonexistent/notes", root.join("notes.txt")).expect("symlink");
    let report = ingest_files(&store, &[root], &mut NoProgress).expect("ingest");
    assert_eq!(report.counts.records, 1);
    let errors: Vec<String> = report.files.iter().flat_map(|f| &f.errors).map(ToString::to_string).collect();
    assert_eq!(errors.len(), 2, "{errors:?}");
    assert!(
        errors.iter().any(|e| e.contains("broken.json") && e.contains("a symlink that leads nowhere?")),
        "{errors:?}"
    );
    assert!(
        errors.iter().any(|e| e.contains("loop.json") && e.contains("a symlink that leads nowhere?")),
        "{errors:?}"
    );
    assert!(report.ignored.iter().any(|i| i.ends_with("notes.txt")), "not a dump's name: ignored as before");
}

#[test]
fn analysis_opens_read_only_and_never_writes_into_a_foreign_file() {
    let dir = tempfile::tempdir().expect("tmp");
    let foreign = dir.path().join("empty.duckdb");
    drop(kdrift_store::test_support::RawConnection::open(&foreign).expect("create empty duckdb"));
    let before = std::fs::metadata(&foreign).expect("meta").len();
    assert!(matches!(Store::open_existing(&foreign), Err(StoreError::NotAStore { .. })));
    assert_eq!(std::fs::metadata(&foreign).expect("meta").len(), before, "nothing written");
    // A real store: two analyses at once.
    let path = dir.path().join("k.duckdb");
    drop(Store::open(&path).expect("create"));
    let a = Store::open_existing(&path).expect("first reader");
    let b = Store::open_existing(&path).expect("second reader");
    assert_eq!(a.counts().expect("a").runs, b.counts().expect("b").runs);
}

#[test]
fn unreadable_pod_and_node_values_are_reported_at_ingest() {
    let (dir, store) = temp_store();
    let body = r#"{"kind":"List","items":[
      {"apiVersion":"v1","kind":"Node","metadata":{"name":"n1"},"status":{"allocatable":{"cpu":"-1","pods":"110"}}},
      {"apiVersion":"v1","kind":"Pod","metadata":{"name":"pw","namespace":"d"},"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"abc"}}}]}},
      {"apiVersion":"v1","kind":"Pod","metadata":{"name":"ok","namespace":"d"},"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"100m"}}}]}},
      {"apiVersion":"v1","kind":"Pod","metadata":{"name":"pa","namespace":"d"},"spec":{"containers":[{"name":"c","resources":{"requests":{"memory":"1Qi"}}}]}}
    ]}"#;
    let f = write(dir.path(), "objects.json", body.as_bytes());
    let report = ingest_files(&store, &[f], &mut NoProgress).expect("ingest");
    let file = &report.files[0];
    assert_eq!(file.records, 4, "every version is stored");
    assert_eq!(file.errors.len(), 3, "{:?}", file.errors);
    assert_eq!(file.errors[0].origin.item, Some(0));
    assert!(file.errors[1].to_string().contains("items[1]"), "{}", file.errors[1]);
    assert!(file.errors[1].message.contains("\"abc\""), "{}", file.errors[1].message);
    // The per-node aggregates leave the unreadable objects out and name
    // them, pods in namespace/name order, at every instant asked.
    let at = chrono::Utc::now() + chrono::Duration::hours(1);
    let amounts = kdrift_analyze::amounts_at(&store, &[at, at + chrono::Duration::hours(1)]).expect("amounts");
    for a in &amounts {
        let names: Vec<&str> = a.unreadable.iter().map(|u| u.split(':').next().unwrap_or("")).collect();
        assert_eq!(names, ["Node n1", "Pod d/pa", "Pod d/pw"], "{:?}", a.unreadable);
        assert!(a.unreadable[2].ends_with("spec.containers[0].resources.requests.cpu: \"abc\" is not a quantity (expected a number with an optional suffix, such as 100m, 0.5, 2, 1e3, 128Mi or 1G)"), "{}", a.unreadable[2]);
    }
    assert!(kdrift_tests::assert_amounts_agree(&store, 4) >= 4);
    kdrift_tests::assert_filter_load_agrees(&store, 4);
}

fn t(s: &str) -> chrono::DateTime<chrono::Utc> {
    chrono::DateTime::parse_from_rfc3339(s).expect("time").with_timezone(&chrono::Utc)
}

const NODE_N1: &str = r#"{"apiVersion":"v1","kind":"Node","metadata":{"name":"n1","creationTimestamp":"2026-01-01T00:00:00Z"},"status":{"allocatable":{"cpu":"2","memory":"4Gi","pods":"110"},"conditions":[{"type":"Ready","status":"True","lastTransitionTime":"2026-01-01T00:00:00Z"}]}}"#;

#[test]
fn a_scheduled_event_naming_no_pod_is_left_out_and_the_state_still_loads() {
    // It used to end every state load in "Invalid column type Null" (scheduled_coverage).
    let (dir, store) = temp_store();
    let scheduled = |name: &str, involved: serde_json::Value| {
        serde_json::json!({
            "apiVersion": "v1", "kind": "Event",
            "metadata": {"name": name, "namespace": "default", "uid": format!("uid-{name}")},
            "involvedObject": involved, "reason": "Scheduled", "type": "Normal", "count": 1,
            "message": "Successfully assigned default/p to n1",
            "firstTimestamp": "2026-01-01T00:10:00Z", "lastTimestamp": "2026-01-01T00:10:00Z"
        })
        .to_string()
    };
    let body = format!(
        "{}\n{}\n{NODE_N1}\n",
        scheduled("nameless.1", serde_json::json!({"kind": "Pod"})),
        scheduled("p.1", serde_json::json!({"kind": "Pod", "namespace": "default", "name": "p"}))
    );
    let file = write(dir.path(), "events.ndjson", body.as_bytes());
    let report = ingest_files(&store, &[file], &mut NoProgress).expect("ingest");
    assert_eq!(report.counts.records, 3);
    let all = [("since_us".to_string(), "0".to_string()), ("until_us".to_string(), "2030-01-01T00:00:00Z".to_string())];
    let placed = kdrift_store::run_query(&store, "pod_placements", &all).expect("placements");
    let names: Vec<&str> = placed.rows.iter().map(|r| r[1].as_str().unwrap_or("<null>")).collect();
    assert_eq!(names, vec!["p"], "only the named pod is bound");
    let state = kdrift_analyze::ClusterAt::load(&store, t("2026-01-01T00:20:00Z")).expect("state loads");
    let on_n1: Vec<&str> = state.pods.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(on_n1, vec!["p"], "the pod known from its Scheduled event is on n1");
}

#[test]
fn eviction_evidence_on_a_node_with_any_characters_in_its_name_is_attached() {
    // Episodes go to SQL as JSON: a comma, a pipe or spaces in a node name used to drop its evidence.
    let (dir, store) = temp_store();
    let node = " pipe|node, x ";
    let killing = serde_json::json!({
        "apiVersion": "v1", "kind": "Event",
        "metadata": {"name": "w.k", "namespace": "default", "uid": "uid-k"},
        "involvedObject": {"kind": "Pod", "namespace": "default", "name": "w", "uid": "w1"},
        "source": {"component": "kubelet", "host": node},
        "reason": "Killing", "message": "Stopping container app", "type": "Normal", "count": 1,
        "firstTimestamp": "2026-01-01T00:05:00Z", "lastTimestamp": "2026-01-01T00:05:00Z"
    });
    let file = write(dir.path(), "events.ndjson", format!("{killing}\n").as_bytes());
    ingest_files(&store, &[file], &mut NoProgress).expect("ingest");
    let (from, to) = (t("2026-01-01T00:00:00Z"), t("2026-01-01T01:00:00Z"));
    let got = kdrift_analyze::eviction_evidence_in(&store, &[(node, from, to)], from, to).expect("evidence");
    let got: Vec<(&str, Option<&str>, &str)> =
        got.iter().map(|e| (e.name.as_str(), e.node.as_deref(), e.evidence.as_str())).collect();
    assert_eq!(got, vec![("w", Some(node), "Killing")]);
    let other = kdrift_analyze::eviction_evidence_in(&store, &[("pipe", from, to)], from, to).expect("other");
    assert!(other.is_empty(), "another node's range takes none: {other:?}");
}

#[test]
fn versions_tied_on_their_observation_time_are_ordered_by_resource_version_whatever_the_ingest_order() {
    // Ingest order used to break the tie: a cordon and an uncordon at one
    // instant left the node cordoned, a DELETED version losing to the
    // older MODIFIED one kept the pod alive forever.
    use kdrift_rebalance::NodeClass;
    use kdrift_tests::tied_versions::{ingest, orders, Answers};
    let mut first: Option<Answers> = None;
    for (order, runs) in orders() {
        let (dir, store) = temp_store();
        ingest(&store, dir.path(), &runs);
        let a = Answers::of(&store);
        let owned = |v: &[(&str, bool)]| v.iter().map(|(n, u)| (n.to_string(), *u)).collect::<Vec<_>>();
        assert_eq!(
            a.nodes,
            vec![
                owned(&[("n2", false)]),
                owned(&[("n1", false), ("n2", false)]),
                owned(&[("n1", false), ("n2", false)])
            ],
            "{order}: no node stays cordoned (n2 before every version: its last version at the earliest instant)"
        );
        assert_eq!(a.pods, vec![vec![], vec!["shop/p".to_string()], vec![]], "{order}: the pod is gone after T2");
        assert_eq!(a.last_versions, ["101", "92", "103"], "{order}: the newest version of n1, n2 and the pod");
        assert_eq!(a.pod_at[2][0][1], "DELETED", "{order}: pod_at after the deletion");
        let text = |v: &serde_json::Value| v.as_str().unwrap_or("<not text>").to_string();
        let signals: Vec<[String; 3]> =
            a.history_rows[0].iter().map(|r| [text(&r[0]), text(&r[1]), text(&r[2])]).collect();
        let s = |n: &str, at: &str, what: &str| [n.to_string(), at.to_string(), what.to_string()];
        assert_eq!(
            signals,
            vec![
                s("n1", "2026-01-01T01:00:00Z", "cordon"),
                s("n1", "2026-01-01T01:00:00Z", "uncordon"),
                s("n2", "2026-01-01T00:00:00Z", "cordon"),
                s("n2", "2026-01-01T00:00:00Z", "uncordon"),
            ],
            "{order}: node signals"
        );
        let n1 = a.skew.nodes.iter().find(|n| n.requested.node == "n1").expect("n1 in skew");
        assert!(!n1.requested.unschedulable, "{order}");
        assert_eq!(n1.requested.get("cpu").map(|c| c.requested), Some(0), "{order}: the deleted pod's 500m is gone");
        assert_eq!(n1.class, Some(NodeClass::Underutilized), "{order}: {}", n1.why);
        match &first {
            None => first = Some(a),
            Some(f) => {
                assert_eq!(a.differences(f), Vec::<&str>::new(), "{order}: these answers differ from the first order's")
            }
        }
    }
}

/// A StatefulSet pod keeps its name from move to move: `db-0` starts on n3,
/// drain #1 (of n3) sends it to n1, drain #2 (of n1) back to n3, where it
/// holds 500m when `apps/big-7f-abc` (600m) finds no room. Why n3 is full
/// names drain #2 (from n1) for it, not its first move anywhere, and drain
/// #2's landing on n3 counts that one binding, not also the earlier `db-0`
/// bound to n3 before drain #1 (both once wrong, found by trying to break it).
#[test]
fn a_pod_name_reused_from_move_to_move_is_explained_by_its_own_move() {
    use serde_json::{json, Value};
    let at = |minutes: i64, seconds: i64| {
        (t("2026-11-01T00:00:00Z") + chrono::Duration::minutes(minutes) + chrono::Duration::seconds(seconds))
            .to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
    };
    let mut events: Vec<Value> = Vec::new();
    let mut ev = |kind: &str, name: &str, uid: &str, reason: &str, message: &str, when: String, host: Option<&str>| {
        let n = events.len();
        let ns = if kind == "Pod" { "apps" } else { "default" };
        let mut object = json!({"kind": kind, "name": name, "uid": uid, "apiVersion": "v1"});
        if kind == "Pod" {
            object["namespace"] = json!("apps");
        }
        let component = match reason {
            "Scheduled" | "FailedScheduling" => "default-scheduler",
            _ => "kubelet",
        };
        events.push(json!({
            "apiVersion": "v1", "kind": "Event",
            "metadata": {"name": format!("{name}.{n:08x}"), "namespace": ns, "uid": format!("ev-{n}"), "creationTimestamp": when},
            "involvedObject": object, "reason": reason, "message": message,
            "firstTimestamp": when, "lastTimestamp": when, "count": 1,
            "source": {"component": component, "host": host.unwrap_or("")},
            "type": if reason == "FailedScheduling" { "Warning" } else { "Normal" }
        }));
    };
    let scheduled = |pod: &str, node: &str| format!("Successfully assigned apps/{pod} to {node}");
    ev("Pod", "db-0", "db0-a", "Scheduled", &scheduled("db-0", "n3"), at(-60, 0), None);
    // Drain #1: n3.
    ev(
        "Node",
        "n3",
        "uid-n3",
        "NodeNotSchedulable",
        "Node n3 status is now: NodeNotSchedulable",
        at(60, 0),
        Some("n3"),
    );
    ev("Pod", "db-0", "db0-a", "Killing", "Stopping container c", at(60, 10), Some("n3"));
    ev("Pod", "db-0", "db0-b", "Scheduled", &scheduled("db-0", "n1"), at(60, 40), None);
    ev("Node", "n3", "uid-n3", "NodeSchedulable", "Node n3 status is now: NodeSchedulable", at(65, 0), Some("n3"));
    // Drain #2: n1.
    ev(
        "Node",
        "n1",
        "uid-n1",
        "NodeNotSchedulable",
        "Node n1 status is now: NodeNotSchedulable",
        at(180, 0),
        Some("n1"),
    );
    ev("Pod", "db-0", "db0-b", "Killing", "Stopping container c", at(180, 10), Some("n1"));
    ev("Pod", "db-0", "db0-c", "Scheduled", &scheduled("db-0", "n3"), at(180, 40), None);
    ev("Node", "n1", "uid-n1", "NodeSchedulable", "Node n1 status is now: NodeSchedulable", at(185, 0), Some("n1"));
    let message = "0/3 nodes are available: 3 Insufficient cpu. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.";
    ev("Pod", "big-7f-abc", "big", "FailedScheduling", message, at(300, 0), None);

    let node = |name: &str| {
        json!({"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "uid": format!("uid-{name}"), "creationTimestamp": "2026-10-01T00:00:00Z",
                         "labels": {"kubernetes.io/hostname": name}},
            "spec": {},
            "status": {"allocatable": {"cpu": "1000m", "memory": "8Gi", "pods": "110"},
                       "capacity": {"cpu": "1000m", "memory": "8Gi", "pods": "110"},
                       "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": "2026-10-01T00:00:00Z"}]}})
    };
    let pod = |name: &str, uid: &str, node: Option<&str>, cpu: &str, when: String, owner: (&str, &str)| {
        let mut spec = json!({"containers": [{"name": "c", "image": "x", "resources": {"requests": {"cpu": cpu, "memory": "64Mi"}}}]});
        let mut condition = json!({"type": "PodScheduled", "status": "True", "lastTransitionTime": when});
        match node {
            Some(n) => spec["nodeName"] = json!(n),
            None => {
                condition = json!({"type": "PodScheduled", "status": "False", "reason": "Unschedulable", "lastTransitionTime": when})
            }
        }
        json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"namespace": "apps", "name": name, "uid": uid, "creationTimestamp": when,
                         "labels": {"app": name.split('-').next().unwrap_or(name)},
                         "ownerReferences": [{"apiVersion": "apps/v1", "kind": owner.0, "name": owner.1, "uid": format!("o-{}", owner.1), "controller": true}]},
            "spec": spec,
            "status": {"phase": if node.is_some() { "Running" } else { "Pending" }, "conditions": [condition]}})
    };
    let fills: Vec<Value> = [("n1", "500m"), ("n2", "500m"), ("n3", "200m")]
        .iter()
        .map(|(n, cpu)| {
            pod(
                &format!("fill{n}-x-1"),
                &format!("f-{n}"),
                Some(n),
                cpu,
                at(-60, 0),
                ("ReplicaSet", &format!("fill{n}-x")),
            )
        })
        .collect();
    let mut last = fills.clone();
    last.push(pod("db-0", "db0-c", Some("n3"), "500m", at(180, 40), ("StatefulSet", "db")));
    last.push(pod("big-7f-abc", "big", None, "600m", at(250, 0), ("ReplicaSet", "big-7f")));
    let list = |items: Vec<Value>| json!({"apiVersion": "v1", "kind": "List", "items": items}).to_string();

    let dir = tempfile::tempdir().expect("dir");
    let files = vec![
        write(dir.path(), "events.json", list(events).as_bytes()),
        write(dir.path(), "nodes.json", list(["n1", "n2", "n3"].iter().map(|n| node(n)).collect()).as_bytes()),
        write(dir.path(), "pods0.json", list(fills).as_bytes()),
        write(dir.path(), "pods1.json", list(last).as_bytes()),
    ];
    let (_guard, store) = temp_store();
    let report = ingest_files(&store, &files, &mut NoProgress).expect("ingest");
    assert_eq!(report.error_count(), 0, "{:?}", report.files.iter().flat_map(|f| &f.errors).next());

    let timeline = kdrift_analyze::drain_timeline(&store, None, None).expect("timeline");
    let moves: Vec<(usize, String, Option<String>)> = timeline
        .operations
        .iter()
        .flat_map(|op| op.episodes.iter().flat_map(move |e| e.evicted.iter().map(move |m| (op.number, m))))
        .map(|(n, m)| (n, m.from_node.clone(), m.replacement.as_ref().map(|r| r.node.clone())))
        .collect();
    assert_eq!(moves, [(1, "n3".to_string(), Some("n1".to_string())), (2, "n1".to_string(), Some("n3".to_string()))]);

    let report = why_pending(&store, "apps", "big-7f-abc").expect("why-pending").expect("a report");
    let json = serde_json::to_value(&report).expect("json");
    let fills = json["why_full"]["fills"].as_array().expect("fills");
    let n3 = fills.iter().find(|f| f["node"] == "n3").unwrap_or_else(|| panic!("no n3 in {fills:#?}"));
    let db0 = n3["holders"].as_array().expect("holders").iter().find(|h| h["name"] == "db-0").expect("db-0 holds n3");
    assert_eq!(db0["arrival"]["kind"], "drain", "{db0:#}");
    assert_eq!(
        (db0["arrival"]["operation"].as_u64(), db0["arrival"]["from_node"].as_str()),
        (Some(2), Some("n1")),
        "{db0:#}"
    );
    let bursts: Vec<(u64, u64, u64, i64)> = n3["bursts"]
        .as_array()
        .expect("bursts")
        .iter()
        .map(|b| {
            let n = |k: &str| b[k].as_u64().unwrap_or(u64::MAX);
            (n("operation"), n("landed"), n("still_there"), b["holding"].as_i64().unwrap_or(-1))
        })
        .collect();
    assert_eq!(bursts, [(2, 1, 1, 500)], "{:#}", n3["bursts"]);
}

#[test]
fn a_pod_stored_without_a_namespace_is_one_pod_with_its_namesake_in_default() {
    // Break-it trial: `filler` without a namespace (800m, a ReplicaSet's) and
    // `default/filler` with the same uid (700m, a StatefulSet's) on one node:
    // why-pending listed both holders as the StatefulSet's 700m. Since
    // schema v12 both are `default/filler` with one uid: two versions of one
    // pod, of which the later (700m) is the pod at the instant, whole or not.
    let (dir, store) = temp_store();
    let pod = |ns: Option<&str>, cpu: &str, owner: &str| {
        let mut meta = serde_json::json!({"name": "filler", "uid": "u-f", "creationTimestamp": "2026-01-01T00:00:00Z",
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": owner, "name": "x", "uid": "o", "controller": true}]});
        if let Some(ns) = ns {
            meta["namespace"] = serde_json::json!(ns);
        }
        serde_json::json!({"apiVersion": "v1", "kind": "Pod", "metadata": meta,
            "spec": {"nodeName": "n1", "containers": [{"name": "c", "resources": {"requests": {"cpu": cpu}}}]},
            "status": {"phase": "Running"}})
    };
    let node = serde_json::json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
        "status": {"allocatable": {"cpu": "2", "memory": "4Gi", "pods": "110"}}});
    let items = serde_json::json!({"kind": "List", "items": [node, pod(None, "800m", "ReplicaSet"),
        pod(Some("default"), "700m", "StatefulSet")]});
    let f = write(dir.path(), "pods.json", items.to_string().as_bytes());
    assert_eq!(ingest_files(&store, &[f], &mut NoProgress).expect("ingest").error_count(), 0);
    // Each pod read whole later is the one loaded (whole_pods equal to `load`'s, in order).
    kdrift_tests::assert_filter_load_agrees(&store, 4);
    let at = chrono::Utc::now() + chrono::Duration::hours(1);
    let (cluster, _) = kdrift_analyze::ClusterAt::load_for_filters(&store, at, false).expect("load");
    let pods: Vec<(String, i64)> = cluster.pods.iter().map(|p| (p.key(), p.requests.get("cpu"))).collect();
    assert_eq!(pods, [("default/filler".to_string(), 700)], "one pod, its later version");
    let whole = kdrift_analyze::ClusterAt::load(&store, at).expect("load whole");
    let pods: Vec<(String, i64)> = whole.pods.iter().map(|p| (p.key(), p.requests.get("cpu"))).collect();
    assert_eq!(pods, [("default/filler".to_string(), 700)], "the same pod, loaded whole");
}

#[test]
fn a_pod_stored_without_a_namespace_is_the_default_pod_its_events_name() {
    // Break-it trial (session 19): `web-1` stored without a namespace on n1
    // (800m) and its Scheduled event naming default/web-1 counted it twice
    // (once more as a pod known only from events), and the pending `job-1`,
    // stored without a namespace too, was "not in the store" when asked as
    // default/job-1, the namespace its FailedScheduling names.
    let (dir, store) = temp_store();
    let pod = |name: &str, cpu: &str, node: Option<&str>| {
        let mut spec = serde_json::json!({"containers": [{"name": "c", "resources": {"requests": {"cpu": cpu}}}]});
        let mut status = serde_json::json!({"phase": "Pending"});
        if let Some(node) = node {
            spec["nodeName"] = serde_json::json!(node);
            status = serde_json::json!({"phase": "Running"});
        }
        serde_json::json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "uid": format!("u-{name}"), "creationTimestamp": "2026-01-01T00:00:00Z"},
            "spec": spec, "status": status})
    };
    let event = |name: &str, reason: &str, involved: &str, message: &str, at: &str| {
        serde_json::json!({"apiVersion": "v1", "kind": "Event",
            "metadata": {"name": name, "namespace": "default", "uid": format!("u-{name}")},
            "involvedObject": {"kind": "Pod", "namespace": "default", "name": involved},
            "reason": reason, "message": message, "count": 1, "type": "Normal",
            "firstTimestamp": at, "lastTimestamp": at})
    };
    let node = serde_json::json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
        "status": {"allocatable": {"cpu": "2", "memory": "4Gi", "pods": "110"}}});
    // `gone-1`, pending too, deleted at 00:07 (its deletionTimestamp).
    let mut gone = pod("gone-1", "100m", None);
    gone["metadata"]["deletionTimestamp"] = serde_json::json!("2026-01-01T00:07:00Z");
    let items = serde_json::json!({"kind": "List", "items": [node, pod("web-1", "800m", Some("n1")),
        pod("job-1", "1500m", None),
        gone,
        event("web-1.s", "Scheduled", "web-1", "Successfully assigned default/web-1 to n1", "2026-01-01T00:01:00Z"),
        event("job-1.f", "FailedScheduling", "job-1", "0/1 nodes are available: 1 Insufficient cpu.",
            "2026-01-01T00:05:00Z"),
        event("gone-1.f", "FailedScheduling", "gone-1", "0/1 nodes are available: 1 Insufficient cpu.",
            "2026-01-01T00:05:00Z")]});
    let f = write(dir.path(), "dump.json", items.to_string().as_bytes());
    assert_eq!(ingest_files(&store, &[f], &mut NoProgress).expect("ingest").error_count(), 0);
    kdrift_tests::assert_filter_load_agrees(&store, 4);
    let at = "2026-01-01T00:05:00Z".parse::<chrono::DateTime<chrono::Utc>>().expect("time");
    let cluster = kdrift_analyze::ClusterAt::load(&store, at).expect("load");
    assert!(cluster.event_only_pods.is_empty(), "web-1 is stored: {:?}", cluster.event_only_pods);
    let on_n1: Vec<(&str, i64)> = cluster
        .pods
        .iter()
        .filter(|p| p.node_name.as_deref() == Some("n1"))
        .map(|p| (p.name.as_str(), p.requests.get("cpu")))
        .collect();
    assert_eq!(on_n1, [("web-1", 800)], "counted once");
    let report = why_pending(&store, "default", "job-1").expect("why").expect("a report");
    let json = serde_json::to_value(&report).expect("json");
    let state = &json["state"];
    assert_eq!(state["pod_known"], true, "the stored pod is the one explained: {state:#}");
    assert_eq!(state["nodes"][0]["pods"], 1, "web-1 counted once: {state:#}");
    let short: Vec<(&str, i64, i64, i64)> = state["shortfalls"]
        .as_array()
        .expect("shortfalls")
        .iter()
        .map(|s| {
            (
                s["node"].as_str().unwrap_or("-"),
                s["requested"].as_i64().unwrap_or(-1),
                s["free"].as_i64().unwrap_or(-1),
                s["short"].as_i64().unwrap_or(-1),
            )
        })
        .collect();
    assert_eq!(short, [("n1", 1500, 1200, 300)], "2000m − 800m free, 300m short: {state:#}");
    // Every pod the events name is stored (as `default`'s): no lower bound.
    assert_eq!(state["requested_is_lower_bound"], false, "{state:#}");
    // The list of every pending pod sees gone-1's deletion, as its own view does.
    let listed = pending_pods(&store).expect("pending pods");
    let gone = listed.iter().find(|p| p.name == "gone-1").expect("gone-1 listed");
    assert_eq!(
        (gone.namespace.as_str(), gone.deleted_at.map(|t| t.to_rfc3339())),
        ("default", Some("2026-01-01T00:07:00+00:00".into()))
    );
}

#[test]
fn a_deleted_pod_stored_without_a_namespace_is_not_revived_by_its_scheduled_event() {
    // Break-it trial (session 20): `web-1` stored without a namespace, bound
    // to n1 and deleted at 00:06 (a watch's DELETED), came back at 00:08 as
    // a pod known only from its Scheduled event naming default/web-1: its
    // deletion was keyed under '' and its binding under `default`.
    let (dir, store) = temp_store();
    let web1 = serde_json::json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "web-1", "uid": "u-web-1", "creationTimestamp": "2026-01-01T00:00:00Z"},
        "spec": {"nodeName": "n1", "containers": [{"name": "c", "resources": {"requests": {"cpu": "800m"}}}]},
        "status": {"phase": "Running"}});
    let mut deleted = web1.clone();
    deleted["metadata"]["deletionTimestamp"] = serde_json::json!("2026-01-01T00:06:00Z");
    let watch = [
        serde_json::json!({"type": "ADDED", "object": web1}).to_string(),
        serde_json::json!({"type": "DELETED", "object": deleted}).to_string(),
    ];
    let node = serde_json::json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
        "status": {"allocatable": {"cpu": "2", "memory": "4Gi", "pods": "110"}}});
    let scheduled = serde_json::json!({"apiVersion": "v1", "kind": "Event",
        "metadata": {"name": "web-1.s", "namespace": "default", "uid": "u-web-1.s"},
        "involvedObject": {"kind": "Pod", "namespace": "default", "name": "web-1", "uid": "u-web-1"},
        "reason": "Scheduled", "message": "Successfully assigned default/web-1 to n1", "count": 1, "type": "Normal",
        "firstTimestamp": "2026-01-01T00:01:00Z", "lastTimestamp": "2026-01-01T00:01:00Z"});
    let files = [
        write(dir.path(), "node.json", node.to_string().as_bytes()),
        write(dir.path(), "watch.ndjson", watch.join("\n").as_bytes()),
        write(dir.path(), "events.json", scheduled.to_string().as_bytes()),
    ];
    assert_eq!(ingest_files(&store, &files, &mut NoProgress).expect("ingest").error_count(), 0);
    let at = |t: &str| t.parse::<chrono::DateTime<chrono::Utc>>().expect("time");
    let on_n1 = |t: &str| -> (Vec<String>, Vec<String>) {
        let cluster = kdrift_analyze::ClusterAt::load(&store, at(t)).expect("load");
        let on: Vec<String> =
            cluster.pods.iter().filter(|p| p.node_name.as_deref() == Some("n1")).map(|p| p.key()).collect();
        (on, cluster.event_only_pods)
    };
    assert_eq!(on_n1("2026-01-01T00:05:00Z"), (vec!["default/web-1".to_string()], vec![]), "stored, counted once");
    assert_eq!(on_n1("2026-01-01T00:08:00Z"), (vec![], vec![]), "deleted at 00:06: gone, not revived");
    let bindings = |store: &Store| -> Vec<(String, String, String)> {
        let mut stmt =
            store.conn().prepare("SELECT namespace, name, known_from FROM pod_bindings ORDER BY ALL").expect("prepare");
        stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .expect("rows")
            .collect::<Result<_, _>>()
            .expect("rows")
    };
    let one = vec![("default".to_string(), "web-1".to_string(), "both".to_string())];
    assert_eq!(bindings(&store), one, "the object's binding and the event's are one");

    // The same store as schema 11 would keep it with web-1 stored and named
    // without a namespace: its versions and its Scheduled event under ''
    // (indexed there), its bindings derived apart. Migration 12 makes them
    // `default`'s (the event's own namespace).
    let path = dir.path().join("test.duckdb");
    store
        .conn()
        .execute_batch(
            "DELETE FROM name_index WHERE namespace = 'default' AND name = 'web-1'; \
             INSERT INTO name_index SELECT '', name, obs_id FROM pod_versions WHERE name = 'web-1' \
               UNION ALL SELECT '', involved_name, obs_id FROM event_versions WHERE involved_name = 'web-1'; \
             UPDATE pod_versions SET namespace = '' WHERE name = 'web-1'; \
             UPDATE event_versions SET involved_namespace = '' WHERE involved_name = 'web-1';",
        )
        .expect("downgrade the rows");
    store.rederive_everything().expect("derive as schema 11 did");
    let under_blank = vec![(String::new(), "web-1".to_string(), "both".to_string())];
    assert_eq!(bindings(&store), under_blank, "as schema 11 derived it");
    drop(store);
    kdrift_store::test_support::RawConnection::open(&path)
        .expect("open")
        .execute_batch(
            "ALTER TABLE pod_versions DROP COLUMN first_seen_late; DROP TABLE replica_set_scalings; DROP TABLE drain_episodes; DROP TABLE pod_bindings_sorted; \
             UPDATE kdrift_meta SET value = '11' WHERE key = 'schema_version';",
        )
        .expect("downgrade the schema");
    let store = Store::open(&path).expect("migrate");
    assert_eq!(bindings(&store), one, "migrated: one binding again");
    let unnamespaced: (i64, i64, i64) = store
        .conn()
        .query_row(
            "SELECT (SELECT count(*) FROM pod_versions WHERE namespace = ''), \
                    (SELECT count(*) FROM event_versions WHERE involved_namespace = ''), \
                    (SELECT count(*) FROM name_index WHERE namespace = 'default' AND name = 'web-1')",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .expect("count");
    assert_eq!(unnamespaced, (0, 0, 3), "two pod versions and the event indexed as `default`'s");
    let on_n1 = |t: &str| -> (Vec<String>, Vec<String>) {
        let cluster = kdrift_analyze::ClusterAt::load(&store, at(t)).expect("load");
        let on: Vec<String> =
            cluster.pods.iter().filter(|p| p.node_name.as_deref() == Some("n1")).map(|p| p.key()).collect();
        (on, cluster.event_only_pods)
    };
    assert_eq!(on_n1("2026-01-01T00:05:00Z"), (vec!["default/web-1".to_string()], vec![]), "migrated: counted once");
    assert_eq!(on_n1("2026-01-01T00:08:00Z"), (vec![], vec![]), "migrated: gone, not revived");
}

#[test]
fn an_event_naming_no_namespace_for_its_pod_is_about_the_pod_in_the_events_namespace() {
    // Break-it trial (session 20): a FailedScheduling event recorded in `web`
    // whose involvedObject names no namespace was listed by `--all` as
    // `/big` and could not be explained by any name.
    let (dir, store) = temp_store();
    let node = serde_json::json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
        "status": {"allocatable": {"cpu": "1", "memory": "4Gi", "pods": "110"}}});
    let big = serde_json::json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "big", "namespace": "web", "uid": "u-big", "creationTimestamp": "2026-01-01T00:00:00Z"},
        "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "1500m"}}}]},
        "status": {"phase": "Pending"}});
    let failed = serde_json::json!({"apiVersion": "v1", "kind": "Event",
        "metadata": {"name": "big.f", "namespace": "web", "uid": "u-big.f"},
        "involvedObject": {"kind": "Pod", "name": "big", "uid": "u-big"},
        "reason": "FailedScheduling", "message": "0/1 nodes are available: 1 Insufficient cpu.", "count": 1,
        "type": "Warning", "firstTimestamp": "2026-01-01T00:05:00Z", "lastTimestamp": "2026-01-01T00:05:00Z"});
    let items = serde_json::json!({"kind": "List", "items": [node, big, failed]});
    let f = write(dir.path(), "dump.json", items.to_string().as_bytes());
    assert_eq!(ingest_files(&store, &[f], &mut NoProgress).expect("ingest").error_count(), 0);
    let listed: Vec<(String, String)> =
        pending_pods(&store).expect("pending pods").into_iter().map(|p| (p.namespace, p.name)).collect();
    assert_eq!(listed, [("web".to_string(), "big".to_string())]);
    let report = why_pending(&store, "web", "big").expect("why").expect("a report");
    let state = report.state.as_ref().expect("state");
    assert!(state.pod_known, "the stored web/big is the pod explained");
    let short: Vec<(&str, i64, i64, i64)> =
        state.shortfalls.iter().map(|s| (s.node.as_str(), s.requested, s.free, s.short)).collect();
    assert_eq!(short, [("n1", 1500, 1000, 500)]);
}

#[test]
fn one_binding_named_by_two_scheduled_events_is_stored_once_and_an_event_naming_no_pod_is_not_listed() {
    // Break-it trial (session 21): the same Scheduled event under two names,
    // one without the pod's uid (a kubectl dump next to a VictoriaLogs
    // pull), stored the binding twice, and drain moves matched one
    // replacement to two evicted pods; a FailedScheduling event naming no
    // pod failed `why-pending --all` for the whole store.
    let (dir, store) = temp_store();
    let node = serde_json::json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
        "status": {"allocatable": {"cpu": "1", "memory": "4Gi", "pods": "110"}}});
    let pod = |name: &str, node: Option<&str>| {
        let mut spec = serde_json::json!({"containers": [{"name": "c", "resources": {"requests": {"cpu": "600m"}}}]});
        if let Some(n) = node {
            spec["nodeName"] = serde_json::json!(n);
        }
        serde_json::json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "web", "uid": format!("u-{name}"), "creationTimestamp": "2026-01-01T00:00:00Z"},
            "spec": spec, "status": {"phase": if node.is_some() { "Running" } else { "Pending" }}})
    };
    let event = |name: &str, reason: &str, involved: serde_json::Value, message: &str| {
        serde_json::json!({"apiVersion": "v1", "kind": "Event",
            "metadata": {"name": name, "namespace": "web", "uid": format!("u-{name}")},
            "involvedObject": involved, "reason": reason, "message": message, "count": 1, "type": "Normal",
            "firstTimestamp": "2026-01-01T00:01:00Z", "lastTimestamp": "2026-01-01T00:01:00Z"})
    };
    let assigned = "Successfully assigned web/a to n1";
    let items = serde_json::json!({"kind": "List", "items": [node, pod("a", Some("n1")), pod("b", None),
        event("a.1", "Scheduled", serde_json::json!({"kind": "Pod", "namespace": "web", "name": "a", "uid": "u-a"}), assigned),
        event("a.2", "Scheduled", serde_json::json!({"kind": "Pod", "namespace": "web", "name": "a"}), assigned),
        event("b.f", "FailedScheduling", serde_json::json!({"kind": "Pod", "namespace": "web", "name": "b", "uid": "u-b"}),
            "0/1 nodes are available: 1 Insufficient cpu."),
        event("x.f", "FailedScheduling", serde_json::json!({"kind": "Pod"}), "0/1 nodes are available: 1 Insufficient cpu.")]});
    let f = write(dir.path(), "dump.json", items.to_string().as_bytes());
    assert_eq!(ingest_files(&store, &[f], &mut NoProgress).expect("ingest").error_count(), 0);
    let mut stmt =
        store.conn().prepare("SELECT name, node, known_from FROM pod_bindings ORDER BY ALL").expect("prepare");
    let bindings: Vec<(String, String, String)> = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .expect("rows")
        .collect::<Result<_, _>>()
        .expect("rows");
    assert_eq!(bindings, [("a".to_string(), "n1".to_string(), "both".to_string())], "one binding, once");
    let listed: Vec<(String, String)> = pending_pods(&store)
        .expect("listed despite the nameless event")
        .into_iter()
        .map(|p| (p.namespace, p.name))
        .collect();
    assert_eq!(listed, [("web".to_string(), "b".to_string())]);
}

#[test]
fn a_creation_time_at_the_end_of_duckdbs_range_is_reported_and_the_file_around_it_loads() {
    // Found by trying to break schema v14: an hour added to this
    // creationTimestamp left DuckDB's range and failed the whole batch.
    let (dir, store) = temp_store();
    let pod = |name: &str, created: &str| {
        serde_json::json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "default", "uid": format!("u-{name}"), "creationTimestamp": created},
            "spec": {"nodeName": "n1", "containers": [{"name": "c", "resources": {"requests": {"cpu": "500m"}}}]},
            "status": {"phase": "Running"}})
    };
    let list = serde_json::json!({"apiVersion": "v1", "kind": "List", "items": [
        {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1", "uid": "un1"},
         "status": {"allocatable": {"cpu": "2", "memory": "8Gi", "pods": "110"}}},
        pod("ok", "2026-11-02T00:00:00Z"),
        pod("odd", "294247-01-10T03:30:00Z"),
    ]});
    let file = write(dir.path(), "pods.json", list.to_string().as_bytes());
    let report = ingest_files(&store, &[file], &mut NoProgress).expect("ingest");
    assert_eq!(report.files[0].records, 3, "{:?}", report.files[0].errors);
    let flags: (i64, i64) = store
        .conn()
        .query_row("SELECT count(*), count(*) FILTER (WHERE first_seen_late) FROM pod_versions", [], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .expect("flags");
    assert_eq!(flags, (2, 0), "both pods stored; neither first observed an hour after its creation");
}

/// Issue 34, finding 5: a gzip bomb (1 MiB of gzip expanding to 256 MiB of
/// spaces) is refused once it passes its cap, without holding the expansion;
/// the files beside it load, and a raised cap reads a real file whole.
#[test]
fn a_gzip_that_expands_past_its_cap_is_refused_and_the_files_beside_it_load() {
    use flate2::write::GzEncoder;
    use kdrift_ingest::DecompressedCap;
    use kdrift_ingest::{ingest_files_with, FileLimits, Interrupt};
    let (dir, store) = temp_store();
    let mut gz = GzEncoder::new(Vec::new(), flate2::Compression::best());
    let spaces = vec![b' '; 1 << 20];
    for _ in 0..256 {
        gz.write_all(&spaces).expect("gz");
    }
    let bomb = write(dir.path(), "bomb.json.gz", &gz.finish().expect("gz"));
    let compressed = std::fs::metadata(&bomb).expect("meta").len();
    assert!(compressed < 1 << 20, "{compressed} bytes");
    let good = write(
        dir.path(),
        "events.json",
        ev("g.1", "p", "u", "FailedScheduling", FS, 1.into(), "2026-01-01T00:00:00Z", "2026-01-01T00:00:00Z")
            .as_bytes(),
    );
    let report = ingest_files(&store, &[bomb.clone(), good], &mut NoProgress).expect("ingest");
    assert_eq!(report.counts.records, 1, "the good file loads");
    let bomb_summary = report.files.iter().find(|f| f.location.ends_with("bomb.json.gz")).expect("bomb row");
    assert_eq!(bomb_summary.records, 0);
    let message = bomb_summary.errors.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n");
    assert!(
        message.contains("bomb.json.gz: gzip data expands to more than 64 MiB (67108864 bytes, the default cap")
            && message.contains("--max-decompressed SIZE"),
        "{message}"
    );
    // A gzip of real events over a small explicit cap: refused; under a raised one: loaded.
    let body = failed_scheduling_lines("c", 200);
    let events = write(dir.path(), "events.ndjson.gz", &gzip(body.as_bytes()));
    let small = FileLimits { decompressed: DecompressedCap::Bytes(body.len() as u64 / 2), ..FileLimits::default() };
    let report = ingest_files_with(&store, std::slice::from_ref(&events), &small, &mut NoProgress, &Interrupt::new())
        .expect("ingest");
    let f = &report.files[0];
    assert!(f.records > 0 && f.records < 200, "the lines before the cap load: {}", f.records);
    assert!(f.errors.iter().any(|e| e.message.contains("the cap --max-decompressed sets")), "{:?}", f.errors);
    let raised = FileLimits { decompressed: DecompressedCap::Bytes(body.len() as u64), ..FileLimits::default() };
    let report = ingest_files_with(&store, &[events], &raised, &mut NoProgress, &Interrupt::new()).expect("ingest");
    assert_eq!((report.files[0].records, report.files[0].errors.len()), (200, 0));
}

/// Break-it 41 G6 (issue 34): a gzip JSON List that expands past its cap
/// inside an item (one of 4 MiB of one letter after 100 events) stored none
/// of the items before it, where its NDJSON form keeps the lines before the
/// cap: the complete items before the cap load, the one it cuts is
/// reported, and the cap is named with its flag. Read whole, or with a
/// batch that streams it (the stream leaves it to the whole-file reader).
#[test]
fn a_gzip_json_list_past_its_cap_keeps_the_items_before_it() {
    use kdrift_ingest::{ingest_files_with, DecompressedCap, FileLimits, Interrupt};
    let (dir, store) = temp_store();
    let mut items: Vec<String> = failed_scheduling_lines("c", 300).lines().map(str::to_string).collect();
    let y = "y".repeat(4 << 20);
    let big =
        ev("big.0", "pbig", "u", "FailedScheduling", &y, 1.into(), "2026-01-01T00:00:00Z", "2026-01-01T00:00:00Z");
    items.insert(100, big);
    let list = format!("{{\"apiVersion\":\"v1\",\"kind\":\"EventList\",\"items\":[{}]}}", items.join(",\n"));
    // The cap falls 1 MiB into the big item.
    let cap = (list.find("yyyy").expect("big item") + (1 << 20)) as u64;
    let path = write(dir.path(), "events.json.gz", &gzip(list.as_bytes()));
    for batch_bytes in [FileLimits::default().batch_bytes, 64 << 10] {
        let limits = FileLimits { decompressed: DecompressedCap::Bytes(cap), batch_bytes, ..FileLimits::default() };
        let report =
            ingest_files_with(&store, std::slice::from_ref(&path), &limits, &mut NoProgress, &Interrupt::new())
                .expect("ingest");
        let f = &report.files[0];
        let errors: Vec<String> = f.errors.iter().map(ToString::to_string).collect();
        assert_eq!(f.records, 100, "the items before the cap load: {errors:?}");
        assert_eq!(errors.len(), 2, "{errors:?}");
        assert!(errors[0].contains("events.json.gz: gzip data expands to more than "), "{errors:?}");
        assert!(
            errors[0].ends_with(&format!(
                " ({cap} bytes, the cap --max-decompressed sets); stopped decompressing (a decompression bomb, or a \
                 dump that compresses unusually well: raise the cap with --max-decompressed SIZE, e.g. \
                 --max-decompressed 8GiB)"
            )),
            "{errors:?}"
        );
        // Item k starts on line k + 1.
        assert!(
            errors[1].ends_with(
                "events.json.gz:101: items[100]: the file ends inside this item: it is cut off (truncated?) and not \
                 stored; the 100 items before it are loaded"
            ),
            "{errors:?}"
        );
    }
}

/// Issue 34, finding 7: lines bigger than the reader's whole queue budget
/// (32 MiB) go through one at a time and load (the batch bound in bytes
/// itself: `ndjson_stream`'s unit test).
#[test]
fn ndjson_lines_bigger_than_the_read_ahead_budget_load_one_at_a_time() {
    use kdrift_ingest::QUEUED_BYTES;
    let (dir, store) = temp_store();
    let pad = "x".repeat(QUEUED_BYTES + (1 << 20));
    let mut body = String::new();
    for i in 0..3 {
        let mut e: serde_json::Value = serde_json::from_str(&ev(
            &format!("big.{i}"),
            &format!("p{i}"),
            "u",
            "FailedScheduling",
            FS,
            1.into(),
            "2026-01-01T00:00:00Z",
            "2026-01-01T00:00:00Z",
        ))
        .expect("event");
        e["metadata"]["annotations"] = serde_json::json!({ "pad": pad });
        body.push_str(&e.to_string());
        body.push('\n');
    }
    let file = write(dir.path(), "big.ndjson", body.as_bytes());
    let report = ingest_files(&store, &[file], &mut NoProgress).expect("ingest");
    assert_eq!((report.counts.records, report.files[0].errors.len()), (3, 0));
    assert_eq!(store.counts().expect("counts").observations, 3);
}

/// Issue 34, finding 9: a FIFO named as the store is refused at once (it
/// blocked, waiting for a writer, and ignored the first SIGTERM).
#[cfg(unix)]
#[test]
fn a_fifo_named_as_the_store_is_refused_without_blocking() {
    let dir = tempfile::tempdir().expect("tmp");
    let fifo = dir.path().join("k.duckdb");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status().is_ok_and(|s| s.success());
    if !made {
        eprintln!("skipped: mkfifo failed");
        return;
    }
    let started = std::time::Instant::now();
    for opened in [Store::open(&fifo).map(drop), Store::open_existing(&fifo).map(drop)] {
        let err = opened.expect_err("a FIFO is no store").to_string();
        assert!(err.contains("it is a FIFO (named pipe), not a regular file; --db must name a store file"), "{err}");
    }
    assert!(started.elapsed() < std::time::Duration::from_secs(30), "refused without waiting for a writer");
}

/// Break-it 41 G14: a FIFO where DuckDB keeps the store's write-ahead log
/// (`k.duckdb.wal`, the store itself new or existing) blocked the open for
/// good, SIGTERM ignored; now refused at once, naming it. So are the logs a
/// checkpoint or recovery writes beside it, and a directory there.
#[cfg(unix)]
#[test]
fn a_fifo_or_directory_where_the_store_keeps_its_write_ahead_log_is_refused_without_blocking() {
    let dir = tempfile::tempdir().expect("tmp");
    let store = dir.path().join("k.duckdb");
    let started = std::time::Instant::now();
    for suffix in [".wal", ".wal.checkpoint", ".wal.recovery"] {
        let side = dir.path().join(format!("k.duckdb{suffix}"));
        let made = std::process::Command::new("mkfifo").arg(&side).status().is_ok_and(|s| s.success());
        if !made {
            eprintln!("skipped: mkfifo failed");
            return;
        }
        let err = Store::open(&store).map(drop).expect_err("a FIFO is no log").to_string();
        let expected = format!(
            "{} cannot hold a kdrift store: {} is a FIFO (named pipe), not a regular file, where DuckDB keeps the \
             store's write-ahead log; remove it, or name another --db",
            store.display(),
            side.display()
        );
        assert_eq!(err, expected, "{suffix}");
        std::fs::remove_file(&side).expect("remove");
    }
    // A store that exists: opened for writing and for reading.
    drop(Store::open(&store).expect("a new store"));
    let wal = dir.path().join("k.duckdb.wal");
    let _ = std::fs::remove_file(&wal);
    assert!(std::process::Command::new("mkfifo").arg(&wal).status().is_ok_and(|s| s.success()));
    for opened in [Store::open(&store).map(drop), Store::open_existing(&store).map(drop)] {
        let err = opened.expect_err("a FIFO is no log").to_string();
        assert!(err.contains("k.duckdb.wal is a FIFO (named pipe), not a regular file"), "{err}");
    }
    std::fs::remove_file(&wal).expect("remove");
    std::fs::create_dir(&wal).expect("mkdir");
    let err = Store::open(&store).map(drop).expect_err("a directory is no log").to_string();
    assert!(err.contains("k.duckdb.wal is a directory, not a regular file"), "{err}");
    assert!(started.elapsed() < std::time::Duration::from_secs(30), "refused without waiting for a writer");
}

/// Issue 34, finding 6: YAML nested 100,000 levels deep (a 200 KB
/// document) is refused before the YAML parser sees it — whose work grows
/// with the square of the depth (38 s) — and the documents beside it load.
#[test]
fn yaml_nested_past_the_depth_limit_is_refused_unparsed_and_its_neighbours_load() {
    let (dir, store) = temp_store();
    let good = |name: &str| {
        format!(
            "apiVersion: v1\nkind: Node\nmetadata:\n  name: {name}\n  uid: u-{name}\nstatus:\n  allocatable:\n    cpu: \"1\"\n"
        )
    };
    let deep = format!("{}x\n", "- ".repeat(100_000));
    let body = format!("{}---\n{deep}---\n{}", good("n1"), good("n2"));
    let file = write(dir.path(), "nodes.yaml", body.as_bytes());
    let report = ingest_files(&store, &[file], &mut NoProgress).expect("ingest");
    let f = &report.files[0];
    assert_eq!(f.records, 2, "both neighbours load");
    assert_eq!(f.errors.len(), 1, "{:?}", f.errors);
    let e = f.errors[0].to_string();
    assert!(
        e.ends_with(
            "nodes.yaml:10: YAML document 2 nests 129 levels deep here, more than the 128 kdrift reads (no \
             Kubernetes object comes near; the YAML parser's own limit); not parsed; expected a Kubernetes object \
             or list"
        ),
        "{e}"
    );
}

/// Issue 34, finding 10: one event dated 9999-12-31 is kept and flagged at
/// ingest, but moves neither "now" (skew) nor the report's range.
#[test]
fn an_event_dated_9999_is_kept_and_flagged_but_is_never_now_nor_a_range_edge() {
    let (dir, store) = temp_store();
    let nodes = one_cpu_nodes(dir.path(), 2);
    let normal = ev("ok.1", "p", "u", "FailedScheduling", FS, 1.into(), "2026-01-01T00:00:00Z", "2026-01-01T01:00:00Z");
    let future =
        ev("odd.1", "q", "v", "FailedScheduling", FS, 1.into(), "2026-01-01T00:00:00Z", "9999-12-31T00:00:00Z");
    let events = write(dir.path(), "events.ndjson", format!("{normal}\n{future}\n").as_bytes());
    let report = ingest_files(&store, &[nodes, events], &mut NoProgress).expect("ingest");
    assert_eq!(report.counts.records, 4, "both events and both nodes are kept");
    let warning = report.warnings.iter().find(|w| w.contains("before 1970 or more than a day from now"));
    let warning = warning.unwrap_or_else(|| panic!("no warning: {:?}", report.warnings));
    assert!(warning.starts_with("1 stored object version has a time before 1970"), "{warning}");
    assert!(warning.contains("(e.g. Event d/odd.1 at 9999-12-31T00:00:00Z)"), "{warning}");
    let (first, last) = kdrift_analyze::time_span(&store).expect("span").expect("non-empty");
    assert_eq!(last.format("%Y").to_string(), "2026", "the range ends at the last plausible instant: {last}");
    assert!(first.format("%Y").to_string().as_str() >= "2025", "{first}");
    let now = kdrift_analyze::latest_observation(&store).expect("latest").expect("some");
    assert_eq!(now.format("%Y").to_string(), "2026", "{now}");
}

/// Break-it 41 G7: an Event time before 1970 was stored as another of the
/// event's times (its creationTimestamp), and a leap second (`23:59:60`) as
/// its firstTimestamp, silently. Now the one before 1970 is kept as given
/// and flagged like 9999; the leap second, which Kubernetes never writes,
/// is an input error naming the line and the field; Go's zero time still
/// means unset.
#[test]
fn an_event_time_before_1970_is_kept_and_flagged_and_a_leap_second_is_an_input_error() {
    let (dir, store) = temp_store();
    let with_created = |line: String, created: &str| {
        let mut v: serde_json::Value = serde_json::from_str(&line).expect("json");
        v["metadata"]["creationTimestamp"] = created.into();
        v.to_string()
    };
    let created = "2026-01-01T05:00:00Z";
    let old = with_created(
        ev("old.1", "p", "u", "BackOff", "m", 1.into(), "1969-06-01T00:00:00Z", "1969-06-01T00:00:00Z"),
        created,
    );
    let leap = with_created(
        ev("leap.1", "q", "v", "BackOff", "m", 1.into(), "2026-01-01T00:00:00Z", "2026-11-20T23:59:60Z"),
        created,
    );
    let unset = with_created(
        ev("unset.1", "r", "w", "BackOff", "m", 1.into(), "0001-01-01T00:00:00Z", "2026-01-01T01:00:00Z"),
        created,
    );
    let file = write(dir.path(), "events.ndjson", format!("{old}\n{leap}\n{unset}\n").as_bytes());
    let report = ingest_files(&store, &[file], &mut NoProgress).expect("ingest");
    assert_eq!(report.counts.records, 2, "the one before 1970 and the unset one are kept");
    let errors: Vec<String> = report.files[0].errors.iter().map(ToString::to_string).collect();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].ends_with(
            "events.ndjson:2: Event d/leap.1: lastTimestamp: \"2026-11-20T23:59:60Z\" is a leap second (second 60), \
             which Kubernetes never writes; expected RFC 3339 with seconds 00 to 59, e.g. 2026-11-28T04:00:00Z"
        ),
        "{errors:?}"
    );
    let warning = report.warnings.iter().find(|w| w.contains("before 1970 or more than a day from now"));
    let warning = warning.unwrap_or_else(|| panic!("no warning: {:?}", report.warnings));
    assert!(warning.starts_with("1 stored object version has a time before 1970"), "{warning}");
    assert!(warning.contains("(e.g. Event d/old.1 at 1969-06-01T00:00:00Z)"), "{warning}");
    let rows: Vec<String> = store
        .conn()
        .prepare("SELECT name || ' ' || strftime(first_time, '%Y-%m-%dT%H:%M:%S') || ' ' || strftime(last_time, '%Y-%m-%dT%H:%M:%S') FROM event_versions ORDER BY name")
        .and_then(|mut s| s.query_map([], |r| r.get(0))?.collect())
        .expect("event_versions");
    assert_eq!(
        rows,
        [
            "old.1 1969-06-01T00:00:00 1969-06-01T00:00:00",
            // Go's zero time is unset: the next time in the list, the creationTimestamp.
            "unset.1 2026-01-01T05:00:00 2026-01-01T01:00:00",
        ]
    );
    let (first, _) = kdrift_analyze::time_span(&store).expect("span").expect("non-empty");
    assert_eq!(first.format("%Y").to_string(), "2026", "the range starts at the first plausible instant: {first}");
}

/// Issue 34, finding 10: a duplicate key is an input error naming the key
/// and where it stands (serde_json kept the last value silently), in an
/// NDJSON line as in a List's item; the records around it load.
#[test]
fn an_object_with_a_duplicate_key_is_an_error_and_its_neighbours_load() {
    let event = |name: &str| {
        ev(name, "p", "u", "FailedScheduling", FS, 1.into(), "2026-01-01T00:00:00Z", "2026-01-01T00:00:00Z")
    };
    let dup = event("dup.1").replacen("\"reason\":", "\"reason\":\"Scheduled\",\"reason\":", 1);
    let (a, b) = (event("a.1"), event("b.1"));
    let ndjson = format!("{a}\n{dup}\n{b}\n");
    let list = format!("{{\"kind\": \"List\", \"apiVersion\": \"v1\", \"items\": [\n{a},\n{dup},\n{b}\n]}}\n");
    for (name, body, at) in [("events.ndjson", ndjson, "events.ndjson:2:"), ("events.json", list, "items[1]")] {
        let (dir, store) = temp_store();
        let file = write(dir.path(), name, body.as_bytes());
        let report = ingest_files(&store, &[file], &mut NoProgress).expect("ingest");
        let f = &report.files[0];
        assert_eq!(f.records, 2, "{name}");
        let errors: Vec<String> = f.errors.iter().map(ToString::to_string).collect();
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(
            errors[0].contains(at) && errors[0].contains("the key \"reason\" appears twice in one object"),
            "{errors:?}"
        );
    }
}

/// Nodes n1 and n2 (1 CPU, 4 GiB each; n2 tainted `dedicated=gpu:NoSchedule`)
/// and `d/db-0` on n1 (`app=db`, 3 GiB requested), as a later dump has them.
fn db_cluster(dir: &Path) -> Vec<PathBuf> {
    let node = |name: &str, taints: serde_json::Value| {
        serde_json::json!({"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "uid": format!("u-{name}"), "creationTimestamp": "2026-11-01T00:00:00Z",
                         "labels": {"kubernetes.io/hostname": name}},
            "spec": {"taints": taints},
            "status": {"allocatable": {"cpu": "1", "memory": "4Gi", "pods": "110"},
                       "conditions": [{"type": "Ready", "status": "True"}]}})
    };
    let nodes = serde_json::json!({"kind": "List", "items": [
        node("n1", serde_json::json!([])),
        node("n2", serde_json::json!([{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}])),
    ]});
    let db = serde_json::json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "db-0", "namespace": "d", "uid": "u-db", "labels": {"app": "db"},
                     "creationTimestamp": "2026-11-01T00:00:00Z"},
        "spec": {"nodeName": "n1", "containers": [{"name": "db", "resources": {"requests": {"memory": "3Gi"}}}]},
        "status": {"phase": "Running", "startTime": "2026-11-01T00:00:05Z"}});
    vec![
        write(dir, "nodes.json", nodes.to_string().as_bytes()),
        write(dir, "pods.json", serde_json::json!({"kind": "List", "items": [db]}).to_string().as_bytes()),
    ]
}

#[test]
fn a_pod_whose_object_is_gone_is_evaluated_from_its_cronjobs_template_current_at_the_jobs_scheduled_time() {
    // Issue 33 item 1: the Job and its pod are gone, the events and the
    // CronJob remain. The Job name's suffix (minute 29,930,640 = 2026-11-28
    // 04:00) picks the CronJob version that created it (2 GiB), not the
    // later edit (100 MiB), and admission's defaults are added.
    let (dir, store) = temp_store();
    let cronjob = |rv: &str, memory: &str, last_schedule: &str| {
        serde_json::json!({"apiVersion": "batch/v1", "kind": "CronJob",
            "metadata": {"name": "backup", "namespace": "d", "uid": "u-cj", "resourceVersion": rv,
                         "creationTimestamp": "2026-11-01T00:00:00Z"},
            "spec": {"schedule": "0 4 * * *", "jobTemplate": {"spec": {"template": {
                "metadata": {"labels": {"app": "backup"}},
                "spec": {"restartPolicy": "Never",
                    "affinity": {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                        {"labelSelector": {"matchLabels": {"app": "db"}}, "topologyKey": "kubernetes.io/hostname"}]}},
                    "containers": [{"name": "backup", "resources": {"requests": {"memory": memory}}}]}}}}},
            "status": {"lastScheduleTime": last_schedule}})
    };
    let pod = "backup-29930640-x7k2q";
    let event = |name: &str, kind: &str, object: &str, reason: &str, msg: &str, at: &str| {
        serde_json::json!({"apiVersion": "v1", "kind": "Event",
            "metadata": {"name": name, "namespace": "d"},
            "involvedObject": {"kind": kind, "namespace": "d", "name": object, "uid": format!("u-{object}")},
            "reason": reason, "message": msg, "count": 1, "type": "Normal",
            "firstTimestamp": at, "lastTimestamp": at})
        .to_string()
    };
    let events = [
        event(
            "e1",
            "Job",
            "backup-29930640",
            "SuccessfulCreate",
            &format!("Created pod: {pod}"),
            "2026-11-28T04:00:01Z",
        ),
        event(
            "e2",
            "Pod",
            pod,
            "FailedScheduling",
            "0/2 nodes are available: 1 Insufficient memory, 1 node(s) had untolerated taint {dedicated: gpu}. \
             preemption: 0/2 nodes are available: 1 No preemption victims found for incoming pod, 1 Preemption is \
             not helpful for scheduling.",
            "2026-11-28T04:00:02Z",
        ),
    ];
    let mut files = db_cluster(dir.path());
    files.push(write(dir.path(), "events.ndjson", events.join("\n").as_bytes()));
    let versions = [cronjob("100", "2Gi", "2026-11-27T04:00:00Z"), cronjob("200", "100Mi", "2026-11-28T10:00:00Z")];
    files.push(write(dir.path(), "cronjob-v1.json", versions[0].to_string().as_bytes()));
    files.push(write(dir.path(), "cronjob-v2.json", versions[1].to_string().as_bytes()));
    let report = ingest_files(&store, &files, &mut NoProgress).expect("ingest");
    assert_eq!(report.error_count(), 0, "{:?}", report.files);

    let r = why_pending(&store, "d", pod).expect("query").expect("report");
    let state = r.state.as_ref().expect("state");
    assert!(state.pod_known, "from the owner's template");
    let from = state.spec_from.as_ref().expect("spec_from");
    assert_eq!((from.source, from.kind.as_str(), from.name.as_str()), ("owner's template", "CronJob", "backup"));
    assert_eq!(from.chosen_for.to_rfc3339(), "2026-11-28T04:00:00+00:00");
    assert_eq!(from.observed_at.to_rfc3339(), "2026-11-27T04:00:00+00:00", "the version current at 04:00");
    assert_eq!(from.owner, "Job d/backup-29930640, by its SuccessfulCreate event");
    assert_eq!(
        from.added,
        [
            "schedulerName default-scheduler",
            "toleration node.kubernetes.io/not-ready:NoExecute for 300s",
            "toleration node.kubernetes.io/unreachable:NoExecute for 300s"
        ]
    );
    assert_eq!(state.pod_requests, vec![("memory".to_string(), 2 << 30)]);
    assert_eq!(state.left, ["n1"]);
    let excluded: Vec<(&str, &[String])> =
        state.constraints.iter().map(|c| (c.plugin.as_str(), c.nodes.as_slice())).collect();
    assert_eq!(excluded, [("TaintToleration", &["n2".to_string()][..]), ("InterPodAffinity", &["n2".to_string()][..])]);
    let short: Vec<(&str, &str, i64, i64)> =
        state.shortfalls.iter().map(|s| (s.node.as_str(), s.resource.as_str(), s.free, s.short)).collect();
    assert_eq!(short, [("n1", "memory", 1 << 30, 1 << 30)]);
    assert_eq!(state.matches_event, Some(true), "{:?}", state.reconstructed_message);
    assert!(
        r.notes.iter().any(|n| n.starts_with(&format!(
            "the Pod object of d/{pod} is not in the store: its spec is taken from its owner's template — CronJob \
             d/backup (the version current then, observed 2026-11-27T04:00:00Z, for 2026-11-28T04:00:00Z)"
        ))),
        "{:?}",
        r.notes
    );
    let mut json = serde_json::to_value(&r).expect("json");
    assert_eq!(json["state"]["spec_from"]["kind"], "CronJob");

    // The same chain as with the pod's own object (as the Job controller created it) stored.
    let own = serde_json::json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": pod, "namespace": "d", "uid": format!("u-{pod}"), "creationTimestamp": "2026-11-28T04:00:01Z",
                     "labels": {"app": "backup", "job-name": "backup-29930640"},
                     "ownerReferences": [{"kind": "Job", "name": "backup-29930640", "controller": true}]},
        "spec": versions[0]["spec"]["jobTemplate"]["spec"]["template"]["spec"].clone(),
        "status": {"phase": "Pending"}});
    let (dir2, owned) = temp_store();
    files.push(write(dir2.path(), "own.json", own.to_string().as_bytes()));
    assert_eq!(ingest_files(&owned, &files, &mut NoProgress).expect("ingest").error_count(), 0);
    let reference = serde_json::to_value(why_pending(&owned, "d", pod).expect("query").expect("report")).expect("json");
    assert_eq!(reference["state"]["spec_from"], serde_json::Value::Null);
    json["state"]["spec_from"] = serde_json::Value::Null;
    assert_eq!(json["state"], reference["state"]);
    assert_eq!(json["why_full"], reference["why_full"]);
}

#[test]
fn a_pasted_pending_pod_with_an_unschedulable_condition_is_evidence_without_any_event() {
    // Issue 33 item 7: `kubectl get pod -o yaml` of a Pending pod, no event.
    let (dir, store) = temp_store();
    let message = "0/2 nodes are available: 1 Insufficient memory, 1 node(s) had untolerated taint {dedicated: gpu}.";
    let pod = serde_json::json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "web-1", "namespace": "d", "uid": "u-web1", "labels": {"app": "web"},
                     "creationTimestamp": "2026-11-28T04:59:58Z"},
        "spec": {"schedulerName": "default-scheduler",
                 "containers": [{"name": "web", "resources": {"requests": {"memory": "1536Mi"}}}]},
        "status": {"phase": "Pending", "conditions": [{"type": "PodScheduled", "status": "False",
            "reason": "Unschedulable", "message": message, "lastTransitionTime": "2026-11-28T05:00:00Z"}]}});
    let mut files = db_cluster(dir.path());
    files.push(write(dir.path(), "web-1.json", pod.to_string().as_bytes()));
    let report = ingest_files(&store, &files, &mut NoProgress).expect("ingest");
    assert_eq!(report.error_count(), 0, "{:?}", report.files);

    let r = why_pending(&store, "d", "web-1").expect("query").expect("the condition is evidence");
    assert_eq!(r.latest_message, message);
    assert_eq!(r.history.first_failure.to_rfc3339(), "2026-11-28T05:00:00+00:00");
    assert_eq!((r.history.occurrences, r.history.failure_events), (1, 1));
    let state = r.state.as_ref().expect("state");
    assert!(state.pod_known && state.spec_from.is_none(), "its own object");
    let short: Vec<(&str, i64)> = state.shortfalls.iter().map(|s| (s.node.as_str(), s.short)).collect();
    assert_eq!(short, [("n1", 512 << 20)]);
    assert_eq!(state.matches_event, Some(true));
    let all = pending_pods(&store).expect("all");
    let listed: Vec<(&str, &str, &str)> =
        all.iter().map(|p| (p.name.as_str(), p.uid.as_str(), p.latest_message.as_str())).collect();
    assert_eq!(listed, [("web-1", "u-web1", message)]);
    assert_eq!(all[0].first_failure.to_rfc3339(), "2026-11-28T05:00:00+00:00");
}

/// Triggers the interrupt as soon as a file starts to be read (as a SIGINT
/// during its parse would).
struct InterruptWhenReading(kdrift_ingest::Interrupt);
impl kdrift_ingest::Progress for InterruptWhenReading {
    fn reading(&mut self, _location: &str) {
        self.0.trigger();
    }
}

#[test]
fn an_interrupt_during_a_whole_file_parse_stops_it_within_a_few_mb() {
    let (dir, store) = temp_store();
    let n = 40_000;
    let events: Vec<String> = (0..n)
        .map(|i| ev(&format!("e{i}"), &format!("p{i}"), &format!("u{i}"), "FailedScheduling", FS, 1.into(), "", ""))
        .collect();
    let body = format!("{{\"kind\": \"EventList\",\n\"items\": [\n{}\n]}}\n", events.join(",\n"));
    assert!(body.len() > 8 << 20, "{} bytes", body.len());
    let file = write(dir.path(), "events.json", body.as_bytes());
    let interrupt = kdrift_ingest::Interrupt::new();
    let mut progress = InterruptWhenReading(interrupt.clone());
    let report = kdrift_ingest::ingest_files_until(&store, &[file], &mut progress, &interrupt).expect("ingest");
    assert!(report.interrupted);
    assert_eq!(report.status, kdrift_store::RunStatus::Failed);
    // The parse stopped at its first value read after the trigger, the
    // List's `kind` on line 1 (each value's parse looks at the interrupt:
    // break-it 41 G4; it was 4 MiB into the List, about 1 item in 3), not
    // after its 40,000 items.
    let errors = &report.files[0].errors;
    assert_eq!(errors.len(), 1, "{errors:?}");
    let stopped = &errors[0];
    assert_eq!((stopped.origin.line, stopped.origin.item), (Some(1), None));
    assert_eq!(
        stopped.message,
        "reading stopped here on an interrupt (SIGINT or SIGTERM): the rest of the file is not read"
    );
    let mut stmt = store.conn().prepare("SELECT message FROM ingest_errors WHERE run_id = 1").expect("prepare");
    let mut messages: Vec<String> =
        stmt.query_map([], |r| r.get(0)).expect("errors").collect::<Result<_, _>>().expect("rows");
    messages.sort();
    assert_eq!(messages, [stopped.message.clone(), kdrift_ingest::INTERRUPTED_RUN_MESSAGE.to_string()]);
    assert_eq!(store.counts().expect("counts").observations, 0);

    // Gzip-compressed: the decompression stops at once.
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(body.as_bytes()).expect("gzip");
    let file = write(dir.path(), "events.json.gz", &gz.finish().expect("gzip"));
    let (_other_dir, store) = temp_store();
    let interrupt = kdrift_ingest::Interrupt::new();
    let mut progress = InterruptWhenReading(interrupt.clone());
    let report = kdrift_ingest::ingest_files_until(&store, &[file], &mut progress, &interrupt).expect("ingest");
    assert!(report.interrupted);
    let errors: Vec<String> = report.files[0].errors.iter().map(ToString::to_string).collect();
    assert_eq!(
        errors,
        [format!(
            "{}: reading stopped on an interrupt (SIGINT or SIGTERM) after 0 decompressed bytes: the file is not read",
            report.files[0].location
        )]
    );
}

/// Break-it 40 F4: blank lines do not count towards the lines that decide
/// whether a file is NDJSON, and a file of them was read whole without a
/// look at the interrupt (100 MB of `\n`: SIGINT acted after 27 s, at its
/// end; a `.ndjson.gz` of them the same).
#[test]
fn an_interrupt_stops_an_ndjson_file_of_blank_lines_within_a_mib() {
    let (dir, _keep) = temp_store();
    let event = |name: &str| ev(name, "p", &format!("u-{name}"), "FailedScheduling", FS, 1.into(), "", "");
    let body = format!("{}\n{}{}\n", event("e1"), "\n".repeat(8 << 20), event("e2"));
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(body.as_bytes()).expect("gzip");
    let plain = write(dir.path(), "blank.ndjson", body.as_bytes());
    let zipped = write(dir.path(), "blank.ndjson.gz", &gz.finish().expect("gzip"));
    for file in [plain, zipped] {
        let (_other_dir, store) = temp_store();
        let interrupt = kdrift_ingest::Interrupt::new();
        let mut progress = InterruptWhenReading(interrupt.clone());
        let report = kdrift_ingest::ingest_files_until(&store, &[file], &mut progress, &interrupt).expect("ingest");
        assert!(report.interrupted);
        assert_eq!(report.status, kdrift_store::RunStatus::Failed);
        let errors: Vec<String> = report.files[0].errors.iter().map(ToString::to_string).collect();
        // Stopped at the first look, after 1 MiB, not after its 8 Mi blank lines.
        let line = (1 << 20) - (event("e1").len() + 1) + 2;
        assert_eq!(
            errors,
            [format!(
                "{}:{line}: reading stopped here on an interrupt (SIGINT or SIGTERM): the rest of the file is not read",
                report.files[0].location
            )]
        );
        assert_eq!(store.counts().expect("counts").observations, 0);
    }
}

/// Break-it: YAML kept the last of two `reason:` keys silently while JSON
/// refused it; a YAML document with a key twice is its error too.
#[test]
fn a_yaml_document_with_a_duplicate_key_is_an_error_as_in_json() {
    let (dir, store) = temp_store();
    let doc = |name: &str, reason: &str| {
        format!(
            "apiVersion: v1\nkind: Event\nmetadata:\n  name: {name}\n  namespace: d\ninvolvedObject:\n  kind: Pod\n  \
             namespace: d\n  name: p\nreason: FailedScheduling\n{reason}message: m\nfirstTimestamp: \
             \"2026-01-01T00:00:00Z\"\nlastTimestamp: \"2026-01-01T00:00:00Z\"\n"
        )
    };
    let body = format!("{}---\n{}---\n{}", doc("a.1", ""), doc("dup.1", "reason: Scheduled\n"), doc("b.1", ""));
    let file = write(dir.path(), "events.yaml", body.as_bytes());
    let report = ingest_files(&store, &[file], &mut NoProgress).expect("ingest");
    let f = &report.files[0];
    assert_eq!(f.records, 2);
    let errors: Vec<String> = f.errors.iter().map(ToString::to_string).collect();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(errors[0].contains("document 2") && errors[0].contains("the key \"reason\" appears twice"), "{errors:?}");
}

/// Break-it: 70,000 spaces before a List are no empty file.
#[test]
fn a_list_after_more_blank_space_than_the_head_read_is_not_called_empty() {
    let dir = tempfile::tempdir().expect("tmp");
    let list = serde_json::json!({"kind": "List", "items": [serde_json::from_str::<serde_json::Value>(&ev(
        "sp.1", "p", "u", "FailedScheduling", FS, 1.into(), "2026-01-01T00:00:00Z", "2026-01-01T00:00:00Z"
    )).expect("event")]});
    let file = write(dir.path(), "events.json", format!("{}{list}\n", " ".repeat(70_000)).as_bytes());
    assert!(kdrift_ingest::refused_files(std::slice::from_ref(&file)).is_empty());
    let store = Store::open(&dir.path().join("k.duckdb")).expect("store");
    let report = ingest_files(&store, &[file], &mut NoProgress).expect("ingest");
    assert_eq!((report.counts.records, report.files[0].errors.len()), (1, 0));
}

/// Issue 34, break-it F6: an NDJSON file of ONE good line and then a gzip
/// bomb or a damaged tail kept nothing (the head that decides the format
/// gave up on the read error), while two good lines loaded. The line loads,
/// and the error names the file, the line and byte offset where reading
/// stopped and what was expected there.
#[test]
fn one_good_ndjson_line_before_a_gzip_bomb_or_a_damaged_tail_is_kept() {
    use kdrift_ingest::DecompressedCap;
    use kdrift_ingest::{ingest_files_with, FileLimits, Interrupt};
    let (dir, store) = temp_store();
    let line = failed_scheduling_lines("one", 1);
    // A bomb: the line, then 8 MiB of spaces over a 1 MiB cap.
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    gz.write_all(line.as_bytes()).expect("gz");
    gz.write_all(&vec![b' '; 8 << 20]).expect("gz");
    let bomb = write(dir.path(), "bomb.ndjson.gz", &gz.finish().expect("gz"));
    // A damaged tail: the line, then a second one (of text that does not
    // compress) cut in its gzip stream.
    let mut seed = 7u64;
    let noise: String = (0..200_000)
        .map(|_| {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            char::from(b'a' + (seed >> 59) as u8)
        })
        .collect();
    let other = failed_scheduling_lines("two", 1);
    let full = gzip(format!("{other}{{\"kind\":\"Event\",\"message\":\"{noise}\"}}\n").as_bytes());
    let cut = write(dir.path(), "cut.json.gz", &full[..full.len() - 1000]);
    let limits = FileLimits { decompressed: DecompressedCap::Bytes(1 << 20), ..FileLimits::default() };
    let report = ingest_files_with(&store, &[bomb, cut], &limits, &mut NoProgress, &Interrupt::new()).expect("ingest");
    let file = |n: &str| report.files.iter().find(|f| f.location.ends_with(n)).expect(n);
    for name in ["bomb.ndjson.gz", "cut.json.gz"] {
        let f = file(name);
        assert_eq!(f.records, 1, "{name}: {:?}", f.errors);
        assert_eq!(f.errors.len(), 1, "{name}: {:?}", f.errors);
        assert_eq!(f.errors[0].origin.line, Some(2), "{name}: {:?}", f.errors);
    }
    let offset = line.len();
    assert_eq!(other.len(), offset);
    let bomb = file("bomb.ndjson.gz").errors[0].to_string();
    assert!(
        bomb.ends_with(&format!(
            "bomb.ndjson.gz:2: reading stopped at byte {offset} of the decompressed data: gzip data expands \
             to more than 1 MiB (1048576 bytes, the cap --max-decompressed sets); stopped decompressing (a \
             decompression bomb, or a dump that compresses unusually well: raise the cap with --max-decompressed \
             SIZE, e.g. --max-decompressed 8GiB); the lines before it are kept (expected one JSON object per line \
             (a Kubernetes object or a log record))"
        )),
        "{bomb}"
    );
    let cut = file("cut.json.gz").errors[0].to_string();
    assert!(
        cut.contains(&format!("cut.json.gz:2: reading stopped at byte {offset} of the decompressed data: gzip data is corrupt or truncated"))
            && cut.ends_with("the lines before it are kept (expected one JSON object per line (a Kubernetes object or a log record))"),
        "{cut}"
    );
    assert_eq!(store.counts().expect("counts").observations, 2);
}

/// Break-it F4: credential-shaped text inside valid records (an Event's
/// message, an annotation, a container's env) was stored as data. It is
/// masked before the store; every other value is stored as it was; a
/// Secret is never stored, from a file or handed in directly.
#[test]
fn credentials_in_records_are_masked_before_the_store_and_secrets_never_stored() {
    let (dir, store) = temp_store();
    let jwt = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJzeXN0ZW06c2EifQ.c2lnbmF0dXJl";
    let leaky = ev(
        "leak.1",
        "web-0",
        "u-web0",
        "Unhealthy",
        &format!("Readiness probe failed: 401 for Authorization: Bearer {jwt} at https://probe:hunter2pw@web-0:8443/"),
        1.into(),
        "2026-01-01T00:00:00Z",
        "2026-01-01T00:00:00Z",
    );
    let failed = failed_scheduling_lines("fs", 1);
    let pod = serde_json::json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "p0", "namespace": "d", "uid": "u", "resourceVersion": "4242",
            "annotations": {"example.com/hook": "password=hunter2pw", "example.com/owner": "team-a"}},
        "spec": {"nodeName": "n1", "containers": [{"name": "c", "image": "registry.example.com/app:1.0",
            "env": [{"name": "DB_PASSWORD", "value": "hunter2pw"}, {"name": "MODE", "value": "fast"}],
            "resources": {"requests": {"cpu": "100m"}}}]}});
    let secret = serde_json::json!({"apiVersion": "v1", "kind": "Secret", "type": "Opaque",
        "metadata": {"name": "db", "namespace": "d"}, "data": {"password": "aHVudGVyMnB3"}});
    let file = write(dir.path(), "mixed.ndjson", format!("{leaky}\n{failed}{pod}\n{secret}\n").as_bytes());
    let report = ingest_files(&store, &[file], &mut NoProgress).expect("ingest");
    assert_eq!((report.files[0].records, report.files[0].skipped, report.files[0].errors.len()), (3, 1, 0));
    let object = |kind: &str, name: &str| -> serde_json::Value {
        let text: String = store
            .conn()
            .query_row("SELECT object::VARCHAR FROM observations WHERE kind = ? AND name = ?", [kind, name], |r| {
                r.get(0)
            })
            .expect("row");
        serde_json::from_str(&text).expect("json")
    };
    assert_eq!(
        object("Event", "leak.1")["message"],
        "Readiness probe failed: 401 for Authorization: Bearer *** at https://probe:***@web-0:8443/"
    );
    let stored = object("Pod", "p0");
    assert_eq!(
        stored["metadata"]["annotations"],
        serde_json::json!({"example.com/hook": "password=***", "example.com/owner": "team-a"})
    );
    assert_eq!(
        stored["spec"]["containers"][0]["env"],
        serde_json::json!([{"name": "DB_PASSWORD", "value": "***"}, {"name": "MODE", "value": "fast"}])
    );
    // The rest as it was: the scheduler's message, names, image, uid, resourceVersion, requests.
    assert_eq!(object("Event", "fs.0")["message"], FS);
    assert_eq!(
        (&stored["metadata"]["uid"], &stored["metadata"]["resourceVersion"], &stored["spec"]["nodeName"]),
        (&serde_json::json!("u"), &serde_json::json!("4242"), &serde_json::json!("n1"))
    );
    assert_eq!(stored["spec"]["containers"][0]["image"], "registry.example.com/app:1.0");
    assert_eq!(stored["spec"]["containers"][0]["resources"], serde_json::json!({"requests": {"cpu": "100m"}}));
    let all: String = store
        .conn()
        .query_row("SELECT string_agg(object::VARCHAR, '|') FROM observations", [], |r| r.get(0))
        .expect("all");
    for secret in ["hunter2pw", jwt, "aHVudGVyMnB3"] {
        assert!(!all.contains(secret), "{secret} stored");
    }
    // A Secret handed in directly (an API or log source) is refused too.
    let record = kdrift_store::Record {
        object: secret,
        origin: kdrift_store::Origin { location: "api".into(), line: None, item: None },
        observed_at: None,
        change: kdrift_store::Change::Listed,
    };
    let report = kdrift_ingest::ingest_records(&store, "api", "api", [record]).expect("ingest");
    assert_eq!(report.counts.records, 0);
    let errors: Vec<String> = report.files.iter().flat_map(|f| f.errors.iter().map(|e| e.message.clone())).collect();
    assert_eq!(
        errors,
        ["Secret d/db: not stored: kdrift never stores a Secret (it reads nothing from one, and its data would travel \
          with every copy of the store)"]
    );
    let secrets: i64 =
        store.conn().query_row("SELECT count(*) FROM observations WHERE kind = 'Secret'", [], |r| r.get(0)).expect("n");
    assert_eq!(secrets, 0);
    // Break-it 40 F6: kinds that carry a token (not a JWT: no shape masks
    // it) were stored with it. From a source: refused, named; from a
    // file: skipped like a Secret, the Pod beside them stored.
    let token = "opaque-token-Qw3rTy9Uiop";
    let request = serde_json::json!({"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest",
        "metadata": {"name": "tr", "namespace": "d"}, "spec": {"audiences": ["api"]},
        "status": {"token": token, "expirationTimestamp": "2026-11-28T05:00:00Z"}});
    let record = kdrift_store::Record {
        object: request.clone(),
        origin: kdrift_store::Origin { location: "api".into(), line: None, item: None },
        observed_at: None,
        change: kdrift_store::Change::Listed,
    };
    let report = kdrift_ingest::ingest_records(&store, "api", "api", [record]).expect("ingest");
    let errors: Vec<String> = report.files.iter().flat_map(|f| f.errors.iter().map(|e| e.message.clone())).collect();
    assert_eq!(
        errors,
        ["TokenRequest d/tr: not stored: a TokenRequest carries a credential (kdrift reads nothing from one, and it \
          would travel with every copy of the store)"]
    );
    let file = dir.path().join("tokens.json");
    let exec = serde_json::json!({"apiVersion": "client.authentication.k8s.io/v1", "kind": "ExecCredential",
        "metadata": {"name": "ec"}, "status": {"token": token}});
    let pod = serde_json::json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "beside", "namespace": "d",
        "uid": "u-beside", "resourceVersion": "1"}, "spec": {"containers": [{"name": "c", "image": "i"}]}});
    let list = serde_json::json!({"apiVersion": "v1", "kind": "List", "items": [request, exec, pod]});
    std::fs::write(&file, list.to_string()).expect("write");
    let report = ingest_files(&store, &[file], &mut NoProgress).expect("ingest");
    assert_eq!((report.counts.records, report.files[0].skipped), (1, 2));
    let all: String = store
        .conn()
        .query_row("SELECT string_agg(object::VARCHAR, '|') FROM observations", [], |r| r.get(0))
        .expect("all");
    assert!(!all.contains(token), "the token stored");
    assert!(all.contains("\"beside\""), "the Pod beside them not stored");
    // Break-it 40 F6 (left over): a field named like a secret in any other
    // kind was masked only by its shape; its value is masked whole, the
    // object's other fields (a reference named `secretName`) kept.
    let csr = serde_json::json!({"apiVersion": "certificates.k8s.io/v1", "kind": "CertificateSigningRequest",
        "metadata": {"name": "csr", "uid": "u-csr", "resourceVersion": "1"},
        "spec": {"request": "LS0t", "signerName": "x", "password": token,
                 "config": {"adminPassword": "Adm1nPw-Zq8Lp4", "secretName": "db-creds", "enabled": "true"}}});
    let file = dir.path().join("csr.json");
    std::fs::write(&file, csr.to_string()).expect("write");
    let report = ingest_files(&store, &[file], &mut NoProgress).expect("ingest");
    assert_eq!(report.counts.records, 1);
    let stored: serde_json::Value = serde_json::from_str(
        &store
            .conn()
            .query_row("SELECT object::VARCHAR FROM observations WHERE kind = 'CertificateSigningRequest'", [], |r| {
                r.get::<_, String>(0)
            })
            .expect("csr"),
    )
    .expect("json");
    assert_eq!(
        stored["spec"],
        serde_json::json!({"request": "LS0t", "signerName": "x", "password": "***",
                           "config": {"adminPassword": "***", "secretName": "db-creds", "enabled": "true"}})
    );
}

/// Issue 34 A (break-it MEDIUM 6): a credential kdrift holds (here as the
/// kubeconfig's token would be), echoed bare by a server inside otherwise
/// valid records (an Event's message, an annotation, a label value), from
/// the API or a file, in raw, base64, hex, URL-encoded and JSON-escaped
/// form, was stored as it came.
#[test]
fn a_held_credential_echoed_in_any_record_field_is_never_stored() {
    use base64::Engine;
    const TOKEN: &str = "kd34-held-Zr8mW2xQ5nB7";
    kdrift_rebalance::hold([TOKEN]);
    let b64 = base64::engine::general_purpose::STANDARD.encode(TOKEN);
    let hex: String = TOKEN.bytes().map(|b| format!("{b:02X}")).collect();
    let url: String = TOKEN.bytes().map(|b| format!("%{b:02x}")).collect();
    let json_escaped: String = TOKEN.chars().map(|c| format!("\\u{:04x}", c as u32)).collect();
    let (dir, store) = temp_store();
    let echo = ev(
        "echo.1",
        "web-0",
        "u-web0",
        "FailedMount",
        &format!("MountVolume.SetUp failed: token {TOKEN} rejected by the CSI driver"),
        1.into(),
        "2026-01-01T00:00:00Z",
        "2026-01-01T00:00:00Z",
    );
    let failed = failed_scheduling_lines("fs", 1);
    let file = write(dir.path(), "echo.ndjson", format!("{echo}\n{failed}").as_bytes());
    let report = ingest_files(&store, &[file], &mut NoProgress).expect("ingest");
    assert_eq!((report.files[0].records, report.files[0].errors.len()), (2, 0));
    let node = serde_json::json!({"apiVersion": "v1", "kind": "Node",
        "metadata": {"name": "node-7", "uid": "4f1e-node7", "resourceVersion": "99",
            "labels": {"kubernetes.io/hostname": "node-7", "example.com/seen": TOKEN},
            "annotations": {"example.com/b64": b64, "example.com/hex": format!("dump {hex}"),
                "example.com/url": format!("https://hook/?t={url}"),
                "example.com/json": format!("{{\"auth\":\"{json_escaped}\"}}")}},
        "status": {"allocatable": {"cpu": "4", "memory": "8Gi"}}});
    let record = kdrift_store::Record {
        object: node,
        origin: kdrift_store::Origin { location: "api".into(), line: None, item: None },
        observed_at: None,
        change: kdrift_store::Change::Listed,
    };
    let report = kdrift_ingest::ingest_records(&store, "api", "api", [record]).expect("ingest");
    assert_eq!(report.counts.records, 1);
    let all: String = store
        .conn()
        .query_row("SELECT string_agg(object::VARCHAR, '|') FROM observations", [], |r| r.get(0))
        .expect("all");
    for form in [TOKEN, b64.as_str(), hex.as_str(), &hex.to_lowercase(), url.as_str(), &json_escaped] {
        assert!(!all.contains(form), "{form} stored: {all}");
    }
    let object = |kind: &str, name: &str| -> serde_json::Value {
        let text: String = store
            .conn()
            .query_row("SELECT object::VARCHAR FROM observations WHERE kind = ? AND name = ?", [kind, name], |r| {
                r.get(0)
            })
            .expect("row");
        serde_json::from_str(&text).expect("json")
    };
    let event = object("Event", "echo.1");
    assert_eq!(event["message"], "MountVolume.SetUp failed: token *** rejected by the CSI driver");
    assert_eq!(event["involvedObject"]["uid"], "u-web0");
    assert_eq!(object("Event", "fs.0")["message"], FS);
    let node = object("Node", "node-7");
    assert_eq!(
        node["metadata"]["labels"],
        serde_json::json!({"kubernetes.io/hostname": "node-7", "example.com/seen": "***"})
    );
    assert_eq!(
        node["metadata"]["annotations"],
        serde_json::json!({"example.com/b64": "***", "example.com/hex": "dump ***",
            "example.com/url": "https://hook/?t=***", "example.com/json": "{\"auth\":\"***\"}"})
    );
    assert_eq!((&node["metadata"]["uid"], &node["metadata"]["resourceVersion"]), (&"4f1e-node7".into(), &"99".into()));
}

/// Break-it 31 F1: a held credential cut at BOTH ends by the echo (20 of
/// its 26 characters, raw, in base64, in hex from an odd nibble) and one
/// cookie value of a held `Cookie:` header were stored as they came: only
/// prefixes and suffixes were looked for, and a header was held whole.
/// Stored with a mask where the piece was, the text around it kept.
#[test]
fn a_held_credential_cut_at_both_ends_or_one_held_cookie_is_stored_masked() {
    use base64::Engine;
    const TOKEN: &str = "kd31-held-Lv7Tq3Wz9Rx2Yp5N";
    kdrift_rebalance::hold([TOKEN, "sid=CkVal8Zq2Lm9; theme=dark"]);
    let piece = &TOKEN[3..23];
    let hex: String = TOKEN.bytes().map(|b| format!("{b:02X}")).collect();
    let messages = [
        (format!("token piece {piece} rejected"), "token piece *** rejected".to_string()),
        (
            format!("b64 {}, retry", base64::engine::general_purpose::STANDARD.encode(piece)),
            "b64 ***, retry".to_string(),
        ),
        (format!("dump {} end", &hex[1..41]), "dump *** end".to_string()),
        ("session CkVal8Zq2Lm9 expired; theme=dark kept".into(), "session *** expired; theme=dark kept".into()),
        // 11 characters cut at both ends: kept (an ordinary word is that long).
        (format!("x {} y", &TOKEN[3..14]), format!("x {} y", &TOKEN[3..14])),
    ];
    let (dir, store) = temp_store();
    let lines: Vec<String> = messages
        .iter()
        .enumerate()
        .map(|(i, (said, _))| {
            ev(
                &format!("cut.{i}"),
                "web-0",
                "u-web0",
                "FailedMount",
                said,
                1.into(),
                "2026-01-01T00:00:00Z",
                "2026-01-01T00:00:00Z",
            )
        })
        .collect();
    let file = write(dir.path(), "cut.ndjson", lines.join("\n").as_bytes());
    let report = ingest_files(&store, &[file], &mut NoProgress).expect("ingest");
    assert_eq!((report.files[0].records, report.files[0].errors.len()), (5, 0));
    for (i, (_, stored)) in messages.iter().enumerate() {
        let text: String = store
            .conn()
            .query_row(
                "SELECT object::VARCHAR FROM observations WHERE kind = 'Event' AND name = ?",
                [format!("cut.{i}")],
                |r| r.get(0),
            )
            .expect("row");
        let event: serde_json::Value = serde_json::from_str(&text).expect("json");
        assert_eq!(event["message"], stored.as_str(), "cut.{i}");
        assert_eq!(event["involvedObject"]["name"], "web-0");
    }
}

/// Issue 34 C: a key twice deep inside an item of a List file (here
/// `items[3].metadata.labels.app`) is that item's error naming the key's
/// path; the other items, and an NDJSON line's neighbours, load.
#[test]
fn a_nested_duplicate_key_is_the_items_error_naming_its_path() {
    let (dir, store) = temp_store();
    let item = |i: usize| {
        format!(
            "{{\"kind\":\"Pod\",\"metadata\":{{\"name\":\"p{i}\",\"namespace\":\"d\",\"labels\":{{\"app\":\"a\"}}}}}}"
        )
    };
    let mut items: Vec<String> = (0..5).map(item).collect();
    items[3] = items[3].replace("\"app\":\"a\"", "\"app\":\"a\",\"app\":\"b\"");
    let list = format!("{{\"kind\":\"PodList\",\"apiVersion\":\"v1\",\"items\":[{}]}}", items.join(",\n"));
    let json = write(dir.path(), "pods.json", list.as_bytes());
    let lines = format!(
        "{}\n{}\n{}\n",
        item(10),
        item(11).replace("\"namespace\":\"d\"", "\"namespace\":\"d\",\"namespace\":\"e\""),
        item(12)
    );
    let ndjson = write(dir.path(), "pods.ndjson", lines.as_bytes());
    let report = ingest_files(&store, &[json, ndjson], &mut NoProgress).expect("ingest");
    let errors: Vec<String> = report.files.iter().flat_map(|f| f.errors.iter().map(|e| e.to_string())).collect();
    assert_eq!(errors.len(), 2, "{errors:?}");
    assert!(
        errors[0].ends_with(
            "pods.json:4:84: items[3]: invalid JSON: the key \"app\" appears twice in one object (at \
             metadata.labels.app; which value is meant is unknown); this item is skipped (not stored); the List's \
             other items are loaded"
        ),
        "{errors:?}"
    );
    assert!(
        errors[1].contains(
            "pods.ndjson:2:70: invalid JSON: the key \"namespace\" appears twice in one object (at \
             metadata.namespace; which value is meant is unknown)"
        ),
        "{errors:?}"
    );
    let n: i64 =
        store.conn().query_row("SELECT count(*) FROM observations WHERE kind = 'Pod'", [], |r| r.get(0)).expect("n");
    assert_eq!(n, 6);
}

/// Break-it (issue 34) HIGH 1 and 3: a server that echoes the kubeconfig's
/// token into an object's name, an Event's name and its involvedObject had
/// it stored raw in the identity columns (the identity was read before
/// masking) and quoted in a bad item's error (`items[1] (default/q-TOKEN)`);
/// a short held value (here `4417`, as a header `X-Scope-OrgID: 4417`)
/// masked every quantity and timestamp holding it.
#[test]
fn a_held_token_in_a_name_is_stored_masked_and_a_short_one_masks_no_data() {
    use kdrift_ingest::{snapshot_cluster, ManualClock, SnapshotOptions};
    use kdrift_rebalance::{ClusterOptions, Scope, DEFAULT_REQUEST_TIMEOUT};
    const TOKEN: &str = "sectok7h3k9q2w8e5r1t";
    kdrift_rebalance::hold(["4417"]);
    let kube = kdrift_tests::fake_kube::FakeKube::start();
    let created = "2026-11-27T10:00:00Z";
    let pod = |name: String, label: &str| {
        serde_json::json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "default", "creationTimestamp": created,
                "labels": {"build": label}},
            "spec": {"nodeName": "node-1", "containers": [{"name": "c", "image": "img:4417",
                "resources": {"requests": {"cpu": "4417m", "memory": "4417Mi"}}}]},
            "status": {"phase": "Running"}})
    };
    kube.create(pod(format!("p-{TOKEN}"), "4417")).expect("pod");
    kube.create(pod(format!("q-{TOKEN}"), "dup")).expect("pod");
    kube.create(serde_json::json!({"apiVersion": "v1", "kind": "Event",
        "metadata": {"name": format!("e1.{TOKEN}"), "namespace": "default"},
        "involvedObject": {"kind": "Pod", "name": format!("p-{TOKEN}"), "namespace": "default"},
        "reason": "Started", "message": "started at 4417m", "type": "Normal", "count": 1,
        "firstTimestamp": created, "lastTimestamp": created}))
        .expect("event");
    kube.rewrite_lists("\"build\":\"dup\"", "\"build\":\"dup\",\"build\":\"twice\"");
    let dir = tempfile::tempdir().expect("tmp");
    let kubeconfig = dir.path().join("kubeconfig");
    std::fs::write(&kubeconfig, kube.kubeconfig(None).replace("token: fake-token", &format!("token: {TOKEN}")))
        .expect("kubeconfig");
    let (_d, store) = temp_store();
    let opts = ClusterOptions { kubeconfig: Some(kubeconfig), context: None };
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    let snapshot = || {
        rt.block_on(async {
            let c = opts.open().await.expect("connect");
            let options = SnapshotOptions {
                cluster: c.url.clone(),
                scope: Scope::AllNamespaces,
                page_size: 10,
                request_timeout: DEFAULT_REQUEST_TIMEOUT,
                max_page_bytes: kdrift_rebalance::MAX_PAGE_BYTES,
                interrupt: None,
                retry: kdrift_ingest::Retry { first_delay: std::time::Duration::from_millis(10), ..Default::default() },
            };
            let clock = ManualClock::new(t("2026-11-27T10:05:00Z"));
            snapshot_cluster(&store, &c.client, &options, &clock).await.expect("snapshot")
        })
    };
    let report = snapshot();
    let pods = report.resources.iter().find(|r| r.resource == "pods").expect("pods");
    assert_eq!(pods.item_errors.len(), 1, "{:?}", pods.item_errors);
    assert!(
        pods.item_errors[0].ends_with(
            "items[1] (default/***): the key \"build\" appears twice in one object (at metadata.labels.build; \
             which value is meant is unknown); the item is skipped, the page's other items are kept"
        ),
        "{}",
        pods.item_errors[0]
    );
    let rows = |sql: &str| -> Vec<String> {
        store.conn().prepare(sql).and_then(|mut s| s.query_map([], |r| r.get(0))?.collect()).expect(sql)
    };
    assert_eq!(
        rows(
            "SELECT kind || ' ' || api_version || ' ' || namespace || '/' || name || ' ' || \
             (object->>'$.metadata.creationTimestamp') FROM observations WHERE kind IN ('Pod', 'Event') \
             ORDER BY kind, api_version"
        )[2],
        "Pod v1 default/*** 2026-11-27T10:00:00Z"
    );
    assert_eq!(
        rows(
            "SELECT kind || ' ' || api_version || ' ' || namespace || '/' || name FROM observations \
             WHERE kind IN ('Pod', 'Event') ORDER BY kind, api_version"
        ),
        ["Event events.k8s.io/v1 default/***", "Event v1 default/***", "Pod v1 default/***"]
    );
    assert_eq!(
        rows(
            "SELECT DISTINCT event_key || ' ' || name || ' ' || involved_name || ' ' || message || ' ' || \
             first_time::VARCHAR FROM event_versions"
        ),
        ["default/*** *** *** started at 4417m 2026-11-27 10:00:00"]
    );
    // The short held value masks no data: quantities, labels, images and times kept.
    assert_eq!(
        rows(
            "SELECT (object->'$.metadata.labels')::VARCHAR || ' ' || (object->'$.spec.containers[0].image')::VARCHAR \
             || ' ' || (object->'$.spec.containers[0].resources')::VARCHAR FROM observations WHERE kind = 'Pod'"
        ),
        [r#"{"build":"4417"} "img:4417" {"requests":{"cpu":"4417m","memory":"4417Mi"}}"#]
    );
    // The token is nowhere in the store.
    let all = rows(
        "SELECT string_agg(t::VARCHAR, '|') FROM (SELECT o AS t FROM observations o UNION ALL \
         SELECT e FROM event_versions e UNION ALL SELECT x FROM events x UNION ALL SELECT r FROM ingest_errors r)",
    );
    assert!(!all[0].contains(TOKEN) && all[0].contains("4417m"), "{all:?}");
    // Again: the masked names are the stored ones, nothing new or vanished.
    let again = snapshot();
    assert_eq!(again.counts.added, 0, "{:?}", again.counts);
    assert_eq!(rows("SELECT count(*)::VARCHAR FROM observations WHERE upper(change) = 'DELETED'"), ["0"]);
}

/// Issue 34 (break-it pass `mkmask.py`): 49 credentials planted in Event
/// messages and in a pod's annotations (JSON inside one), args, probe
/// headers, env and status; 31 were stored as they came. None is stored
/// now, and ten benign values next to them are stored exactly.
#[test]
fn none_of_the_planted_credentials_of_the_break_it_file_is_stored() {
    use serde_json::json;
    const T: &str = "2026-11-27T10:00:00Z";
    let messages = [
        ("camel_dbPassword", "connect failed dbPassword=Hx7qPw93zz"),
        ("pgpassword", "PGPASSWORD=Hx7qPw93zb psql -h db"),
        ("db_pass", "DB_PASS=Hx7qPw93zc ./run"),
        ("accessToken_json", r#"{"accessToken":"Hx7qPw93zdAbCdEf12"}"#),
        ("clientSecret", "clientSecret: Hx7qPw93ze"),
        ("docker_auth", r#"{"auths":{"reg.io":{"auth":"dXNlcjpIeDdxUHc5M3pm"}}}"#),
        ("pgp_key", "-----BEGIN PGP PRIVATE KEY BLOCK-----\nHx7qPw93zgPGPBODY\n-----END PGP PRIVATE KEY BLOCK-----"),
        ("pem_noend", "key: -----BEGIN RSA PRIVATE KEY-----\nHx7qPw93zhMIIEow"),
        ("url_at_pw", "https://bob:Hx7q@Pw93zi@db.example.com/x"),
        ("passphrase", "passphrase=Hx7qPw93zj"),
        ("x_auth_token", "X-Auth-Token: Hx7qPw93zk"),
        ("proxy_auth", "Proxy-Authorization: Digest username=bob, response=Hx7qPw93zl"),
        ("aws_secret", "aws_secret_access_key = Hx7qPw93zm/AbCd"),
        ("private_key_hyphen", "private-key: Hx7qPw93zn"),
        ("auth_eq", "auth=Hx7qPw93zo&user=bob"),
        ("bearer_lower", "Authorization: Bearer hxqpwzpabcdefgh"),
        ("bearer_quote", r#""Authorization": "Bearer Hx7qPw93zq""#),
        ("authorization_eq", "authorization=Hx7qPw93zr"),
        ("sk_live", "stripe sk_live_Hx7qPw93zsAbCdEfGhIjKl"),
        ("google", "key AIzaSyHx7qPw93ztAbCdEfGhIjKlMnOpQrStUv"),
        ("npm", "npm_Hx7qPw93zuAbCdEfGhIjKlMnOpQrStUvWx"),
        ("openai", "sk-proj-Hx7qPw93zvAbCdEfGhIjKlMnOp"),
        ("token_colon_lower", "token: hxqpwzwlowercaseonly"),
        ("curl_user", "curl --user bob:Hx7qPw93zx http://x"),
        ("curl_u_nospace", "curl -ubob:Hx7qPw93zy http://x"),
        ("mysql_pass", "mysql --password=Hx7qPw93zz1 db"),
        ("sshpass", "sshpass -p Hx7qPw93zz2 ssh host"),
        ("redis_a", "redis-cli -a Hx7qPw93zz3 ping"),
        ("htpasswd", "bob:$apr1$Hx7qPw93$zz4abcdefghijkl"),
        ("cookie_lower", "cookie: session=Hx7qPw93zz5"),
        ("pw_unicode_sep", "password\u{a0}=\u{a0}Hx7qPw93zz6"),
        ("password_is", "the password is Hx7qPw93zz7"),
        ("pw_fullwidth", "ｐａｓｓｗｏｒｄ=Hx7qPw93zz8"),
        ("pass_json_esc", r"password\u003dHx7qPw93zz9"),
        ("basic_b64_cut", "Basic"),
        ("failed_scheduling", FS),
    ];
    let mut lines: Vec<String> = messages
        .iter()
        .enumerate()
        .map(|(i, (name, message))| {
            json!({"apiVersion": "v1", "kind": "Event",
                "metadata": {"name": format!("ev-{name}"), "namespace": "default", "uid": format!("uid-{i}"),
                    "resourceVersion": (i + 1).to_string()},
                "involvedObject": {"kind": "Pod", "name": "p1", "namespace": "default"}, "reason": "Test",
                "message": message, "type": "Warning", "firstTimestamp": T, "lastTimestamp": T, "count": 1})
            .to_string()
        })
        .collect();
    let image = "ghcr.io/org/app@sha256:0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9";
    let cfg = json!({"password": "Ann7qPw93a1", "url": "https://u:Ann7qPw93a2@h/x", "msg": "Bearer Ann7qPw93a3",
        "replicas": 3});
    let pod = json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "pp", "namespace": "default", "uid": "5e1c77d0-1b2a-4c3d-9e8f-0a1b2c3d4e5f",
            "resourceVersion": "900", "creationTimestamp": T,
            "annotations": {"cfg": cfg.to_string(), "plain": "Bearer Ann7qPw93a4"}},
        "spec": {"nodeName": "ip-10-0-1-23.ec2.internal", "containers": [{"name": "c", "image": image,
            "args": ["--dbPassword", "Ann7qPw93a5", "--pass", "Ann7qPw93a6", "-passwordAnn7qPw93a7",
                "--auth-token=Ann7qPw93a8", "--token-ttl=30s"],
            "livenessProbe": {"httpGet": {"path": "/h", "port": 80,
                "httpHeaders": [{"name": "Authorization", "value": "Bearer Ann7qPw93a9"}]}},
            "env": [{"name": "DATABASE_URL", "value": "postgres://u:Ann7qPw93b1@db/x"},
                {"name": "PASS", "value": "Ann7qPw93b2"}, {"name": "AUTH", "value": "Ann7qPw93b3"},
                {"name": "DB_PWD", "value": "Ann7qPw93b4"}, {"name": "AUTHOR", "value": "jane-doe"}],
            "resources": {"requests": {"cpu": "250m", "memory": "64Mi"}},
            "lifecycle": {"postStart": {"httpGet": {"path": "/x?token=Ann7qPw93b5", "port": 80}}}}]},
        "status": {"phase": "Running", "reason": "password=Ann7qPw93b6"}});
    lines.push(pod.to_string());
    let (dir, store) = temp_store();
    let file = write(dir.path(), "mask.ndjson", (lines.join("\n") + "\n").as_bytes());
    let report = ingest_files(&store, &[file], &mut NoProgress).expect("ingest");
    assert_eq!((report.files[0].records, report.files[0].errors.len()), (37, 0), "{:?}", report.files[0].errors);
    let all: String = store
        .conn()
        .query_row("SELECT string_agg(object::VARCHAR, '|') FROM observations", [], |r| r.get(0))
        .expect("all");
    let mut planted: Vec<String> = ["zb", "zc", "zdAbCdEf12", "ze", "zgPGPBODY", "zhMIIEow", "zj", "zk", "zl", "zm"]
        .iter()
        .chain(&["zn", "zo", "zq", "zr", "zsAbCdEfGhIjKl", "ztAbCdEfGhIjKlMnOpQrStUv", "zuAbCdEfGhIjKlMnOpQrStUvWx"])
        .chain(&["zvAbCdEfGhIjKlMnOp", "zx", "zy", "zz", "zz1", "zz2", "zz3", "zz5", "zz6", "zz7", "zz8", "zz9"])
        .map(|s| format!("Hx7qPw93{s}"))
        .collect();
    planted.extend((1..=9).map(|i| format!("Ann7qPw93a{i}")));
    planted.extend((1..=6).map(|i| format!("Ann7qPw93b{i}")));
    planted.extend(["Hx7q@Pw93zi", "Hx7qPw93$zz4abcdefghijkl", "dXNlcjpIeDdxUHc5M3pm"].map(String::from));
    planted.extend(["hxqpwzpabcdefgh", "hxqpwzwlowercaseonly"].map(String::from));
    assert_eq!(planted.len(), 49);
    let stored: Vec<&String> = planted.iter().filter(|s| all.contains(s.as_str())).collect();
    assert!(stored.is_empty(), "{} of {} stored: {stored:?}", stored.len(), planted.len());
    let text = |kind: &str, name: &str| -> serde_json::Value {
        let text: String = store
            .conn()
            .query_row("SELECT object::VARCHAR FROM observations WHERE kind = ? AND name = ?", [kind, name], |r| {
                r.get(0)
            })
            .expect("row");
        serde_json::from_str(&text).expect("json")
    };
    let stored = text("Pod", "pp");
    let c = &stored["spec"]["containers"][0];
    let benign = [
        (text("Event", "ev-failed_scheduling")["message"].clone(), json!(FS)),
        (text("Event", "ev-basic_b64_cut")["message"].clone(), json!("Basic")),
        (text("Event", "ev-pgpassword")["metadata"]["uid"].clone(), json!("uid-1")),
        (stored["metadata"]["uid"].clone(), json!("5e1c77d0-1b2a-4c3d-9e8f-0a1b2c3d4e5f")),
        (stored["metadata"]["resourceVersion"].clone(), json!("900")),
        (stored["spec"]["nodeName"].clone(), json!("ip-10-0-1-23.ec2.internal")),
        (c["image"].clone(), json!(image)),
        (c["args"][6].clone(), json!("--token-ttl=30s")),
        (c["env"][4].clone(), json!({"name": "AUTHOR", "value": "jane-doe"})),
        (c["resources"].clone(), json!({"requests": {"cpu": "250m", "memory": "64Mi"}})),
    ];
    for (got, want) in benign {
        assert_eq!(got, want);
    }
    assert_eq!(stored["metadata"]["creationTimestamp"], T);
}

/// Issue 34 (break-it MEDIUM 7): a bad line quoted in an input error was
/// shown on stderr and stored in `ingest_errors` with the credentials in
/// it; the shapes are masked in both, the good line loads.
#[test]
fn an_input_error_quoting_a_bad_line_shows_and_stores_no_credential() {
    let (dir, store) = temp_store();
    let bad = "password=FrgnPwQ5 Bearer FrgnT0kQ6xyzabc not json";
    let file = write(dir.path(), "bad.ndjson", format!("{bad}\n{}", failed_scheduling_lines("ok", 1)).as_bytes());
    let report = ingest_files(&store, &[file], &mut NoProgress).expect("ingest");
    let f = &report.files[0];
    assert_eq!((f.records, f.errors.len()), (1, 1), "{:?}", f.errors);
    let shown = f.errors[0].to_string();
    let stored: Vec<String> = {
        let mut stmt = store.conn().prepare("SELECT message FROM ingest_errors").expect("prepare");
        stmt.query_map([], |r| r.get(0)).expect("query").map(|m| m.expect("row")).collect()
    };
    assert_eq!(stored.len(), 1);
    for text in [&shown, &stored[0]] {
        assert!(!text.contains("FrgnPwQ5") && !text.contains("FrgnT0kQ6xyzabc"), "{text}");
    }
    assert!(shown.contains("password=*** Bearer ***") || !shown.contains("password="), "{shown}");
}

/// Break-it 34 M1: 300,000 bad NDJSON lines around 10 good ones kept
/// ~1.1 KB per error (413 MB) and printed one line each. The first 100 of
/// a file are kept and stored, one more error counts the rest, and the
/// run's and the file's error counts are the true totals.
#[test]
fn a_file_of_many_bad_lines_keeps_the_first_hundred_errors_and_counts_the_rest() {
    let (dir, store) = temp_store();
    let good: Vec<String> = failed_scheduling_lines("g", 10).lines().map(String::from).collect();
    let mut body = String::new();
    for (i, line) in good.iter().enumerate() {
        body.push_str(line);
        body.push('\n');
        for _ in 0..(if i < 9 { 2_000 } else { 0 }) {
            body.push_str("{\"x\":1}\n");
        }
    }
    let f = write(dir.path(), "manyerr.ndjson", body.as_bytes());
    let report = ingest_files(&store, std::slice::from_ref(&f), &mut NoProgress).expect("ingest");
    let file = &report.files[0];
    assert_eq!((file.records, file.errors.len(), file.errors_not_kept), (10, 101, 17_900));
    assert_eq!((file.error_total(), report.error_count()), (18_000, 18_000));
    assert_eq!(file.errors[0].origin.line, Some(2));
    let location = f.display().to_string();
    assert_eq!(
        file.errors[100].to_string(),
        format!(
            "{location}: … and 17,900 more errors like these in {location} (only the first 100 are shown and \
             stored; the others are counted)"
        )
    );
    let stored: i64 = store
        .conn()
        .query_row("SELECT count(*) FROM ingest_errors WHERE run_id = ?", [report.run_id], |r| r.get(0))
        .expect("errors");
    let (run_errors, file_errors): (i64, i64) = store
        .conn()
        .query_row(
            "SELECT r.errors, f.errors FROM ingest_runs r JOIN ingest_files f USING (run_id) WHERE run_id = ?",
            [report.run_id],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .expect("counts");
    assert_eq!((stored, run_errors, file_errors), (101, 18_000, 18_000));
    assert_eq!(store.counts().expect("counts").events, 10);
}

/// Break-it 34 L2: an identity field of the wrong JSON type (`metadata.uid:
/// 7` was stored as a null uid; `kind: 5`, `metadata.namespace: 7`,
/// `apiVersion: ["v1"]` loaded) is an error naming the item, the field and
/// the type; the item is skipped, its neighbours stored.
#[test]
fn an_identity_field_of_the_wrong_type_skips_that_item_naming_field_and_type() {
    let dir = tempfile::tempdir().expect("tmp");
    let (_d, store) = temp_store();
    let event = |i: usize| {
        serde_json::json!({"apiVersion": "v1", "kind": "Event",
            "metadata": {"name": format!("e{i}"), "namespace": "default", "uid": format!("u{i}"), "resourceVersion": "10"},
            "involvedObject": {"kind": "Pod", "name": format!("p{i}"), "namespace": "default"},
            "reason": "FailedScheduling", "message": FS, "count": 1, "type": "Warning",
            "firstTimestamp": "2026-11-27T10:00:00Z", "lastTimestamp": "2026-11-27T10:00:00Z"})
    };
    let cases = [
        (
            "uidnum",
            "/metadata/uid",
            serde_json::json!(7),
            "Event default/e5: metadata.uid: expected a string, found the number 7",
        ),
        ("kindnum", "/kind", serde_json::json!(5), "default/e5: kind: expected a string, found the number 5"),
        (
            "nsnum",
            "/metadata/namespace",
            serde_json::json!(7),
            "Event e5: metadata.namespace: expected a string, found the number 7",
        ),
        (
            "apivbad",
            "/apiVersion",
            serde_json::json!(["v1"]),
            "Event default/e5: apiVersion: expected a string, found a list",
        ),
    ];
    for (name, pointer, value, message) in cases {
        let mut items: Vec<serde_json::Value> = (0..10).map(event).collect();
        *items[5].pointer_mut(pointer).expect(pointer) = value.clone();
        let list = serde_json::json!({"apiVersion": "v1", "kind": "List", "items": items});
        let json = write(dir.path(), &format!("{name}.json"), list.to_string().as_bytes());
        let lines: Vec<String> = items.iter().map(ToString::to_string).collect();
        let ndjson = write(dir.path(), &format!("{name}.ndjson"), lines.join("\n").as_bytes());
        let report = ingest_files(&store, &[json.clone(), ndjson.clone()], &mut NoProgress).expect("ingest");
        for (file, at) in
            report.files.iter().zip([format!("{}:1: items[5]", json.display()), format!("{}:6", ndjson.display())])
        {
            assert_eq!(file.records, 9, "{name}");
            let errors: Vec<String> = file.errors.iter().map(ToString::to_string).collect();
            assert_eq!(errors, [format!("{at}: {message}")], "{name}");
        }
    }
}

/// Issue 34: an object or event name holding a control character (a
/// newline, ESC) was stored silently, then printed raw outside tables. No
/// Kubernetes name holds one (DNS-1123, path segment names): such an item
/// is an input error naming its place, the field and what was expected,
/// with the name written visibly; the items around it are stored.
#[test]
fn a_name_holding_a_control_character_is_an_input_error_and_its_neighbours_are_stored() {
    let dir = tempfile::tempdir().expect("tmp");
    let (_d, store) = temp_store();
    let pod = |ns: &str, name: &str| {
        serde_json::json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": ns, "uid": format!("u-{}", name.len())},
            "spec": {"containers": [{"name": "c", "image": "nginx"}]}, "status": {"phase": "Pending"}})
    };
    let event = |involved: serde_json::Value| {
        serde_json::json!({"apiVersion": "v1", "kind": "Event",
            "metadata": {"name": "e.1", "namespace": "default", "uid": "e1"},
            "involvedObject": involved, "reason": "FailedScheduling", "message": FS, "count": 1, "type": "Warning",
            "firstTimestamp": "2026-11-27T10:00:00Z", "lastTimestamp": "2026-11-27T10:00:00Z"})
    };
    let new_event = serde_json::json!({"apiVersion": "events.k8s.io/v1", "kind": "Event",
        "metadata": {"name": "e.2", "namespace": "default", "uid": "e2"},
        "regarding": {"kind": "Pod", "name": "p", "namespace": "de\tfault"}, "reason": "FailedScheduling",
        "note": FS, "type": "Warning", "eventTime": "2026-11-27T10:00:00.000000Z"});
    let items = vec![
        pod("default", "web-1"),
        pod("default", "web\n-2"),
        pod("d\u{1b}[2J", "web-3"),
        event(serde_json::json!({"kind": "Pod", "name": "p\u{7}", "namespace": "default"})),
        new_event,
        event(serde_json::json!({"kind": "Pod", "name": "p", "namespace": "default"})),
    ];
    let list = serde_json::json!({"apiVersion": "v1", "kind": "List", "items": items});
    let file = write(dir.path(), "names.json", list.to_string().as_bytes());
    let report = ingest_files(&store, std::slice::from_ref(&file), &mut NoProgress).expect("ingest");
    let f = &report.files[0];
    assert_eq!(f.records, 2, "the good pod and the good event");
    let errors: Vec<String> = f.errors.iter().map(ToString::to_string).collect();
    let at = |i: usize| format!("{}:1: items[{i}]", file.display());
    assert_eq!(
        errors,
        [
            format!(
                "{}: Pod default/web\\n-2: metadata.name: expected a Kubernetes name (DNS-1123: no control \
                 character), found \"web\\n-2\" holding \\n",
                at(1)
            ),
            format!(
                "{}: Pod d\\e[2J/web-3: metadata.namespace: expected a Kubernetes name (DNS-1123: no control \
                 character), found \"d\\e[2J\" holding \\e",
                at(2)
            ),
            format!(
                "{}: Event default/e.1: involvedObject.name: expected a Kubernetes name (DNS-1123: no control \
                 character), found \"p\\x07\" holding \\x07",
                at(3)
            ),
            format!(
                "{}: Event default/e.2: regarding.namespace: expected a Kubernetes name (DNS-1123: no control \
                 character), found \"de\\tfault\" holding \\t",
                at(4)
            ),
        ]
    );
    let names: Vec<String> = store
        .conn()
        .prepare("SELECT name FROM observations ORDER BY name")
        .expect("prepare")
        .query_map([], |r| r.get(0))
        .expect("names")
        .collect::<Result<_, _>>()
        .expect("rows");
    assert_eq!(names, ["e.1", "web-1"]);
}

/// Break-it 41 G3 (issue 34): one object whose text is a long array of
/// small numbers was parsed whole with no bound (a 60 MB NDJSON line
/// peaked at 3.45 GB, a 30 MB YAML flow list at 3.3 GB). Under a lowered
/// `--max-parsed-bytes` (256 KiB) an object that would take more parsed
/// (20,000 `1,`: about 2.4 MB) is not built: an input error names its line
/// (and `items[1]` in a List) and the limit, and the objects around it load
/// (NDJSON, a JSON List, YAML documents, a YAML List). Under the default
/// cap it loads.
#[test]
fn an_object_past_the_parsed_cap_is_an_error_and_the_objects_around_it_load() {
    use kdrift_ingest::{ingest_files_with, FileLimits, Interrupt};
    let (dir, store) = temp_store();
    let at = "2026-01-01T00:00:00Z";
    let event = |name: &str| ev(name, "p", "u", "FailedScheduling", FS, 1.into(), at, at);
    let ones = format!("[{}1]", "1,".repeat(20_000));
    let wide = event("wide").replacen('{', &format!("{{\"x\":{ones},"), 1);
    let cap = FileLimits { parsed_bytes: 256 << 10, ..FileLimits::default() };
    let limit = format!("more than {} bytes parsed", 256 << 10);
    let read = |name: &str, body: String, limits: &FileLimits| {
        let path = write(dir.path(), name, body.as_bytes());
        let report = ingest_files_with(&store, &[path], limits, &mut NoProgress, &Interrupt::new()).expect("ingest");
        let f = &report.files[0];
        (f.records, f.errors.iter().map(ToString::to_string).collect::<Vec<_>>())
    };
    let yaml_event = |name: &str, indent: &str, extra: &str| {
        format!(
            "apiVersion: v1\n{indent}kind: Event\n{indent}metadata: {{name: {name}, namespace: d}}\n{indent}\
             involvedObject: {{kind: Pod, namespace: d, name: p, uid: u}}\n{indent}reason: FailedScheduling\n\
             {indent}message: m\n{indent}firstTimestamp: {at}\n{indent}lastTimestamp: {at}\n{extra}"
        )
    };
    let cases = [
        ("wide.ndjson", format!("{}\n{wide}\n{}\n", event("a"), event("b")), ":2:", None),
        (
            "wide-list.json",
            format!(
                "{{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[\n{},\n{wide},\n{}\n]}}\n",
                event("a"),
                event("b")
            ),
            ":3",
            Some("items[1]"),
        ),
        (
            "wide.yaml",
            format!(
                "{}---\n{}---\n{}",
                yaml_event("a", "", ""),
                yaml_event("wide", "", &format!("x: {ones}\n")),
                yaml_event("b", "", "")
            ),
            ":10",
            None,
        ),
        (
            "wide-list.yaml",
            format!(
                "apiVersion: v1\nkind: List\nitems:\n- {}- {}- {}",
                yaml_event("a", "  ", ""),
                yaml_event("wide", "  ", &format!("  x: {ones}\n")),
                yaml_event("b", "  ", "")
            ),
            ":12",
            Some("items[1]"),
        ),
    ];
    for (name, body, line, item) in cases {
        let (records, errors) = read(name, body.clone(), &cap);
        assert_eq!((records, errors.len()), (2, 1), "{name}: {errors:?}");
        let e = &errors[0];
        assert!(e.contains(&format!("{name}{line}")), "{name}: the line: {e}");
        assert!(e.contains(&limit) && e.contains("--max-parsed-bytes"), "{name}: the limit: {e}");
        assert!(item.is_none_or(|i| e.contains(i)), "{name}: the item: {e}");
        // Under the default cap (1025 MiB) it loads.
        let (records, errors) = read(&format!("default-{name}"), body, &FileLimits::default());
        assert_eq!((records, errors.len()), (3, 0), "{name}: {errors:?}");
    }
}

/// Break-it 41 G4 (issue 34): SIGINT inside the parse of one large
/// document was honoured only once it ended (60 s on a 30 MB YAML
/// document, 23 s on a 60 MB NDJSON line). The interrupt, triggered as a
/// file's reading starts (after the reader's last look before it), now
/// stops the parse of its first object: nothing of it is read, and the
/// error says where reading stopped (line 1), in NDJSON, JSON and YAML.
#[test]
fn an_interrupt_stops_the_parse_of_an_object() {
    use kdrift_ingest::{ingest_files_with, FileLimits, Interrupt, Progress};
    struct TriggerOnRead(Interrupt);
    impl Progress for TriggerOnRead {
        fn reading(&mut self, _location: &str) {
            self.0.trigger();
        }
    }
    let (dir, store) = temp_store();
    let at = "2026-01-01T00:00:00Z";
    let event = |name: &str| ev(name, "p", "u", "FailedScheduling", FS, 1.into(), at, at);
    let ones = format!("[{}1]", "1,".repeat(100_000));
    let wide = event("wide").replacen('{', &format!("{{\"x\":{ones},"), 1);
    let yaml = format!(
        "apiVersion: v1\nkind: Event\nmetadata: {{name: w, namespace: d}}\ninvolvedObject: {{kind: Pod, namespace: \
         d, name: p, uid: u}}\nreason: FailedScheduling\nmessage: m\nfirstTimestamp: {at}\nlastTimestamp: {at}\nx: \
         {ones}\n"
    );
    for (name, body) in
        [("wide.ndjson", format!("{wide}\n{}\n", event("b"))), ("wide.json", wide.clone()), ("wide.yaml", yaml)]
    {
        let path = write(dir.path(), name, body.as_bytes());
        let interrupt = Interrupt::new();
        let mut progress = TriggerOnRead(interrupt.clone());
        let report =
            ingest_files_with(&store, &[path], &FileLimits::default(), &mut progress, &interrupt).expect("ingest");
        assert!(report.interrupted, "{name}");
        let f = &report.files[0];
        let errors: Vec<String> = f.errors.iter().map(ToString::to_string).collect();
        assert_eq!(f.records, 0, "{name}: {errors:?}");
        assert!(
            errors.first().is_some_and(|e| e.contains(&format!("{name}:1")) && e.contains("reading stopped here")),
            "{name}: {errors:?}"
        );
    }
}

/// Break-it 42 H4: in a minified List (one line), items[200] cut inside a
/// string (`"reason":"FailedSchedu`) and followed directly by items[201]
/// took that good item along: 398 of 399 stored, only items[200] named.
#[test]
fn an_item_cut_inside_a_string_on_a_one_line_list_loses_no_good_item() {
    let (dir, store) = temp_store();
    let item = |i: usize| {
        format!(
            "{{\"apiVersion\":\"v1\",\"kind\":\"Event\",\"metadata\":{{\"name\":\"good-{i}.x\",\"namespace\":\
             \"default\",\"uid\":\"u{i}\",\"resourceVersion\":\"{}\"}},\"involvedObject\":{{\"kind\":\"Pod\",\
             \"namespace\":\"default\",\"name\":\"p{i}\"}},\"reason\":\"FailedScheduling\",\"message\":\"m\",\
             \"firstTimestamp\":\"2026-11-20T10:{:02}:{:02}Z\",\"lastTimestamp\":\"2026-11-20T10:{:02}:{:02}Z\",\
             \"count\":1,\"type\":\"Warning\"}}",
            i + 1,
            i / 60,
            i % 60,
            i / 60,
            i % 60
        )
    };
    let mut items: Vec<String> = (0..400).map(item).collect();
    let cut = items[200].find("FailedScheduling").expect("reason") + 12;
    items[200].truncate(cut);
    let list = format!("{{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[{}]}}", items.join(","));
    let json = write(dir.path(), "min.json", list.as_bytes());
    let report = ingest_files(&store, &[json], &mut NoProgress).expect("ingest");
    let errors: Vec<String> = report.files.iter().flat_map(|f| f.errors.iter().map(|e| e.to_string())).collect();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(errors[0].contains("min.json:1:") && errors[0].contains(": items[200]: invalid JSON: "), "{errors:?}");
    let n: i64 =
        store.conn().query_row("SELECT count(*) FROM observations WHERE kind = 'Event'", [], |r| r.get(0)).expect("n");
    assert_eq!(n, 399);
    let next: i64 = store
        .conn()
        .query_row("SELECT count(*) FROM observations WHERE name = 'good-201.x'", [], |r| r.get(0))
        .expect("201");
    assert_eq!(next, 1);
}

/// `n` FailedScheduling events `{prefix}.{i}` as a List the way `kubectl
/// get -o json` prints it: items one a line from line 4, then `kind` (line
/// `n + 5`) and `metadata` after them.
fn kubectl_json_list(prefix: &str, n: usize) -> String {
    let items: Vec<String> = failed_scheduling_lines(prefix, n).lines().map(|l| format!("        {l}")).collect();
    format!(
        "{{\n    \"apiVersion\": \"v1\",\n    \"items\": [\n{}\n    ],\n    \"kind\": \"List\",\n    \"metadata\": \
         {{\n        \"resourceVersion\": \"\"\n    }}\n}}\n",
        items.join(",\n")
    )
}

/// Ingests `path` read whole and streamed (a 64 KiB batch): the file's
/// records added and its errors, for each.
fn ingest_both_ways(store: &Store, path: &Path) -> Vec<(u64, Vec<String>)> {
    use kdrift_ingest::{ingest_files_with, FileLimits, Interrupt};
    [FileLimits::default().batch_bytes, 64 << 10]
        .into_iter()
        .map(|batch_bytes| {
            let limits = FileLimits { batch_bytes, ..FileLimits::default() };
            let report = ingest_files_with(store, &[path.to_path_buf()], &limits, &mut NoProgress, &Interrupt::new())
                .expect("ingest");
            let f = &report.files[0];
            (f.records, f.errors.iter().map(ToString::to_string).collect())
        })
        .collect()
}

/// Break-it 42 H1: one syntax error in a JSON List's own fields (after
/// its items, or before them) lost all 400 items. The items load, and the
/// error names the place, read whole and streamed.
#[test]
fn a_syntax_error_in_a_json_lists_own_fields_keeps_its_items() {
    let ok = kubectl_json_list("env", 400);
    let header = "\"apiVersion\": \"v1\",\n    \"items\"";
    for (from, to, at, what) in [
        ("\"resourceVersion\": \"\"", "\"resourceVersion\" \"\"", "407:27", "invalid JSON: expected `:`"),
        ("\"kind\": \"List\",", "\"kind\": \"List\"", "406:5", "invalid JSON: expected `,` or `}` after a value"),
        ("\"resourceVersion\": \"\"", "\"resourceVersion\": \"\",", "408:5", "invalid JSON: trailing comma"),
        ("\"kind\": \"List\"", "\"kind\": List", "405:13", "invalid JSON: expected value"),
        (header, "\"apiVersion\": \"v1\"\n    \"items\"", "3:5", "invalid JSON: expected `,` or `}` after a value"),
    ] {
        assert_eq!(ok.matches(from).count(), 1, "{from}");
        let (dir, store) = temp_store();
        let path = write(dir.path(), "events.json", ok.replace(from, to).as_bytes());
        for (records, errors) in ingest_both_ways(&store, &path) {
            assert_eq!(records, 400, "{to}: {errors:?}");
            assert_eq!(errors.len(), 1, "{to}: {errors:?}");
            assert!(
                errors[0].ends_with(&format!(
                    "events.json:{at}: {what}, in the List's own fields (outside its items); its items are loaded, \
                     the rest of its fields is not read"
                )),
                "{to}: {errors:?}"
            );
        }
        assert_eq!(store.counts().expect("counts").events, 400, "{to}");
    }
}

/// Break-it 43 N1: a JSON List whose `items` key itself is damaged (no
/// `:` after it, or written without its quotes) lost all 400 items, read
/// whole and streamed. The array after it is read as the List's items, and
/// one error says the key is damaged.
#[test]
fn a_json_list_whose_items_key_is_damaged_keeps_its_items() {
    let ok = kubectl_json_list("key", 400);
    for (to, at, what, how) in [
        ("\"items\" [", "3:13", "invalid JSON: expected `:` after the key \"items\"", "no `:` after it"),
        ("items: [", "3:5", "invalid JSON: expected value", "written without its quotes"),
        ("\"Items\"  [", "3:14", "invalid JSON: expected `:` after the key \"Items\"", "no `:` after it"),
    ] {
        assert_eq!(ok.matches("\"items\": [").count(), 1);
        let (dir, store) = temp_store();
        let path = write(dir.path(), "events.json", ok.replace("\"items\": [", to).as_bytes());
        let key = if to.contains("Items") { "Items" } else { "items" };
        for (records, errors) in ingest_both_ways(&store, &path) {
            assert_eq!(records, 400, "{to}: {errors:?}");
            assert_eq!(errors.len(), 1, "{to}: {errors:?}");
            assert!(
                errors[0].ends_with(&format!(
                    "events.json:{at}: {what}: the List's key \"{key}\" is damaged ({how}); the array after it is \
                     read as the List's items (400 read, the good ones loaded), the rest of its fields is not read"
                )),
                "{to}: {errors:?}"
            );
        }
        assert_eq!(store.counts().expect("counts").events, 400, "{to}");
    }
}

/// Break-it 43 L1: a YAML document opening with a byte-order mark
/// (`cat a.yaml b.yaml`, b.yaml saved on Windows) was lost ("more than one
/// document"), read whole and streamed; an Event whose kind holds one was
/// stored as an object of that kind.
#[test]
fn a_bom_opening_a_yaml_document_is_dropped_and_one_inside_a_kind_is_refused() {
    let doc = |i: usize| {
        format!(
            "apiVersion: v1\nkind: Event\nmetadata:\n  name: bom.{i}\n  namespace: d\ninvolvedObject: {{kind: Pod, \
             namespace: d, name: p{i}}}\nreason: FailedScheduling\nmessage: m\nfirstTimestamp: \
             \"2026-01-01T00:00:00Z\"\nlastTimestamp: \"2026-01-01T00:00:00Z\"\ncount: 1\n"
        )
    };
    let mut text = String::new();
    for i in 0..200 {
        match i {
            0 => {}
            50 => text.push_str("\u{feff}---\n"),
            100 => text.push_str("---\n\u{feff}"),
            _ => text.push_str("---\n"),
        }
        text.push_str(&doc(i));
    }
    let (dir, store) = temp_store();
    let path = write(dir.path(), "cat.yaml", text.as_bytes());
    for (records, errors) in ingest_both_ways(&store, &path) {
        assert_eq!(records, 200, "{errors:?}");
        assert!(errors.is_empty(), "{errors:?}");
    }
    assert_eq!(store.counts().expect("counts").events, 200);

    let mut lines: Vec<String> = failed_scheduling_lines("kb", 200).lines().map(str::to_string).collect();
    lines[100] = lines[100].replacen("\"kind\":\"Event\"", "\"kind\":\"\u{feff}Event\"", 1);
    assert!(lines[100].contains('\u{feff}'));
    let (dir, store) = temp_store();
    let path = write(dir.path(), "kind.ndjson", (lines.join("\n") + "\n").as_bytes());
    let report = ingest_files(&store, &[path], &mut NoProgress).expect("ingest");
    let errors: Vec<String> = report.files.iter().flat_map(|f| f.errors.iter().map(ToString::to_string)).collect();
    assert_eq!(report.files[0].records, 199, "{errors:?}");
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].contains("kind.ndjson:101:")
            && errors[0].contains(
                "kind: expected a Kubernetes name (DNS-1123: no control character), found \"\\u{feff}Event\" \
                 holding \\u{feff}"
            ),
        "{errors:?}"
    );
    assert_eq!(store.counts().expect("counts").events, 199);
}

/// Break-it 42 H3: JSON saved as `.yaml` (`kubectl get -o json >
/// events.yaml`), or a YAML List with its items in flow style (`items: [
/// … ]`), with one bad item lost all 400: the other 399 load, the bad one
/// is named at its line, read whole and streamed.
#[test]
fn json_named_yaml_and_flow_style_yaml_items_keep_the_good_items() {
    let json = kubectl_json_list("fl", 400);
    let mut items: Vec<String> = failed_scheduling_lines("fl", 400).lines().map(str::to_string).collect();
    items[200] = items[200].replace("\"reason\":", "\"reason\"");
    assert!(!items[200].contains("\"reason\":"));
    let bad_json =
        json.replacen(&failed_scheduling_lines("fl", 400).lines().nth(200).expect("item").to_string(), &items[200], 1);
    let flow = format!("apiVersion: v1\nkind: List\nitems: [\n{}\n]\n", items.join(",\n"));
    // Item k on line k + 4 in both.
    for (name, body) in [("events.yaml", bad_json), ("flow.yaml", flow)] {
        let (dir, store) = temp_store();
        let path = write(dir.path(), name, body.as_bytes());
        for (records, errors) in ingest_both_ways(&store, &path) {
            assert_eq!(records, 399, "{name}: {errors:?}");
            assert_eq!(errors.len(), 1, "{name}: {errors:?}");
            assert!(errors[0].contains(&format!("{name}:204:")), "{name}: {errors:?}");
            assert!(
                errors[0].ends_with(
                    ": items[200]: invalid JSON: expected `:`; this item is skipped (not stored); the List's other \
                     items are loaded"
                ),
                "{name}: {errors:?}"
            );
        }
        assert_eq!(store.counts().expect("counts").events, 399, "{name}");
    }
    // Real YAML flow style still reads as YAML: a document opening with
    // `{` and a plain key, and one whose JSON-looking start breaks as JSON.
    let (dir, store) = temp_store();
    for (i, body) in [
        "{apiVersion: v1, kind: Event, metadata: {name: y.0, namespace: d}, involvedObject: {kind: Pod, namespace: d, \
         name: p}, reason: FailedScheduling, message: m, firstTimestamp: '2026-01-01T00:00:00Z'}\n",
        "{\"apiVersion\": v1, kind: Event, metadata: {name: y.1, namespace: d}, involvedObject: {kind: Pod, \
         namespace: d, name: p}, reason: FailedScheduling, message: m, firstTimestamp: '2026-01-01T00:00:00Z'}\n",
    ]
    .into_iter()
    .enumerate()
    {
        let path = write(dir.path(), &format!("flow{i}.yaml"), body.as_bytes());
        let (records, errors) = ingest_both_ways(&store, &path).remove(0);
        assert_eq!((records, errors), (1, Vec::<String>::new()), "{body}");
    }
    // Flow-style items that are no JSON, with a bad one: one error saying how to write them.
    let body = "apiVersion: v1\nkind: List\nitems: [\n{kind: Event, metadata: {name: a}},\n{kind: Event, metadata: \
                {name: b}\n]\n";
    let path = write(dir.path(), "plain.yaml", body.as_bytes());
    let (records, errors) = ingest_both_ways(&store, &path).remove(0);
    assert_eq!(records, 0, "{errors:?}");
    assert!(
        errors.len() == 1 && errors[0].contains("plain.yaml:") && errors[0].contains("write them as a block list"),
        "{errors:?}"
    );
}
