//! Files a new user's first trial met: Lists cut off by `head` (JSON and
//! YAML), UTF-16 files PowerShell's `>` writes, `kubectl cluster-info dump`
//! saved from stdout with its container logs, a `kubectl get` table saved
//! as `.json`, and Secrets and ConfigMaps, which are never stored. Inputs
//! are generated in temporary directories; the real fixtures are read in
//! place.

use std::io::Write;
use std::path::{Path, PathBuf};

use kdrift_ingest::FileSummary;
use kdrift_ingest::{ingest_files, NoProgress};

use kdrift_store::run_query;
use kdrift_store::RunStatus;
use kdrift_store::Store;
use kdrift_tests::{real_fixtures_or_skip, temp_store};
use serde_json::{json, Value};

pub(crate) fn write(dir: &Path, name: &str, body: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::File::create(&p).and_then(|mut f| f.write_all(body)).expect("write");
    p
}

/// A core/v1 Event named `ev-{i}` in namespace `d`.
fn event(i: usize) -> Value {
    json!({
        "apiVersion": "v1", "kind": "Event",
        "metadata": {"name": format!("ev-{i}"), "namespace": "d", "uid": format!("u-{i}")},
        "involvedObject": {"kind": "Pod", "namespace": "d", "name": format!("p{i}"), "uid": format!("pu-{i}")},
        "reason": "FailedScheduling", "message": "0/2 nodes are available: 2 Insufficient cpu.",
        "count": 1, "type": "Warning",
        "firstTimestamp": "2026-01-01T00:00:00Z", "lastTimestamp": "2026-01-01T00:00:00Z"
    })
}

/// A kubectl List of `n` events as JSON, one item per line: item `i` is
/// on line `4 + i`.
fn json_list(n: usize) -> String {
    let items: Vec<String> = (0..n).map(|i| format!("        {}", event(i))).collect();
    format!(
        "{{\n    \"apiVersion\": \"v1\",\n    \"items\": [\n{}\n    ],\n    \"kind\": \"List\",\n    \"metadata\": \
         {{\n        \"resourceVersion\": \"\"\n    }}\n}}\n",
        items.join(",\n")
    )
}

/// A kubectl List of `n` events as YAML, as `kubectl get -o yaml` writes it
/// (`apiVersion`, `items`, `kind: List`, `metadata`).
fn yaml_list(n: usize) -> String {
    let items: Vec<Value> = (0..n).map(event).collect();
    serde_yaml::to_string(
        &json!({"apiVersion": "v1", "items": items, "kind": "List", "metadata": {"resourceVersion": ""}}),
    )
    .expect("yaml")
}

/// The lines of `text` up to and including line `n` (`head -n`).
fn head_n(text: &str, n: usize) -> String {
    text.split_inclusive('\n').take(n).collect()
}

pub(crate) fn errors(f: &FileSummary) -> Vec<String> {
    f.errors.iter().map(ToString::to_string).collect()
}

/// The names of the stored objects of `kind` (any time).
pub(crate) fn stored(store: &Store, kind: &str) -> Vec<String> {
    let params = [("kind".to_string(), kind.to_string()), ("at_us".to_string(), "2100-01-01T00:00:00Z".to_string())];
    let result = run_query(store, "objects_at", &params).expect("objects_at");
    let name = result.columns.iter().position(|c| c == "name").expect("name column");
    result.rows.iter().map(|r| r[name].as_str().unwrap_or_default().to_string()).collect()
}

#[test]
fn a_json_list_cut_off_keeps_its_complete_items_and_names_the_cut_one() {
    let (dir, store) = temp_store();
    let full = json_list(20);
    let inside = full.find("\"ev-14\"").expect("item 14") + 3;
    let in_item = write(dir.path(), "in-item.json", &full.as_bytes()[..inside]);
    let after_comma = full[..full.find("\"ev-1\"").expect("item 1")].rfind(",\n").expect("comma") + 1;
    let between = write(dir.path(), "between.json", &full.as_bytes()[..after_comma]);
    let tail = full.find("\"resourceVersion\": \"\"").expect("tail") + 5;
    let after = write(dir.path(), "after.json", &full.as_bytes()[..tail]);
    let whole = write(dir.path(), "whole.json", full.as_bytes());
    let not_a_list = serde_json::to_string_pretty(&event(99)).expect("json");
    let object = write(dir.path(), "object.json", &not_a_list.as_bytes()[..not_a_list.len() - 20]);
    let report = ingest_files(&store, &[in_item, between, after, whole, object], &mut NoProgress).expect("ingest");
    assert_eq!(report.status, RunStatus::Partial);
    let f = &report.files;
    let loc = |i: usize| f[i].location.clone();
    assert_eq!(f[0].events, 14);
    assert_eq!(
        errors(&f[0]),
        [format!(
            "{}:18: items[14]: the file ends inside this item: it is cut off (truncated?) and not stored; the 14 \
             items before it are loaded",
            loc(0)
        )]
    );
    assert_eq!(f[1].events, 1);
    assert_eq!(
        errors(&f[1]),
        [format!(
            "{}:4: the file ends inside the List's items, after 1 item (truncated?): they are loaded; any after them \
             are missing",
            loc(1)
        )]
    );
    assert_eq!(f[2].events, 20);
    assert_eq!(
        errors(&f[2]),
        [format!(
            "{}:27: the file ends after the List's items, before the List's end (truncated?); all 20 items are loaded",
            loc(2)
        )]
    );
    assert_eq!((f[3].events, f[3].errors.len()), (20, 0));
    // A cut single object keeps today's error.
    assert_eq!(f[4].events, 0);
    assert_eq!(errors(&f[4]).len(), 1);
    assert!(
        errors(&f[4])[0].ends_with(
            ": the file ends in the middle of a JSON document (truncated?); expected a \
                                    Kubernetes object or list"
        ),
        "{:?}",
        errors(&f[4])
    );
    let mut names = stored(&store, "Event");
    names.sort_by_key(|n| n[3..].parse::<u32>().expect("number"));
    assert_eq!(names, (0..20).map(|i| format!("ev-{i}")).collect::<Vec<_>>());
}

#[test]
#[cfg_attr(kdrift_no_real_fixtures, ignore = "../shared/fixtures/real is absent (a clone elsewhere); CI always has it")]
fn real_lists_cut_by_head_keep_the_items_before_the_cut() {
    let Some(real) = real_fixtures_or_skip("real_lists_cut_by_head_keep_the_items_before_the_cut") else { return };
    let dumps = real.join("dumps");
    let (dir, store) = temp_store();
    // `head -c 20000` of an old internal-type EventList (`Items`).
    let legacy = std::fs::read(dumps.join("erwee402__multi-k8s__default__events.json")).expect("read");
    let json = write(dir.path(), "trunc.json", &legacy[..20000]);
    // `head -n 34` and `head -n 3629` of `kubectl get events -o yaml`.
    let yaml = std::fs::read_to_string(dumps.join("jgyy__ckad__default__events.yaml")).expect("read");
    let cut2 = write(dir.path(), "cut2.yaml", head_n(&yaml, 34).as_bytes());
    let cut3 = write(dir.path(), "cut3.yaml", head_n(&yaml, 3629).as_bytes());
    let report = ingest_files(&store, &[json, cut2, cut3], &mut NoProgress).expect("ingest");
    let f = &report.files;
    assert_eq!(f[0].events, 14);
    assert_eq!(
        errors(&f[0]),
        [format!(
            "{}:467: items[14]: the file ends inside this item: it is cut off (truncated?) and not stored; the 14 \
             items before it are loaded",
            f[0].location
        )]
    );
    let cut = "the file ends inside the List: kubectl writes `kind: List` after the items and it is missing (cut off \
               or truncated?), so this last item may be incomplete and is not stored";
    assert_eq!(f[1].events, 1);
    assert_eq!(
        errors(&f[1]),
        [format!(
            "{}:27: items[1]: {cut} (as it stands: Event has neither metadata.name nor metadata.uid); the item \
             before it is loaded",
            f[1].location
        )]
    );
    assert_eq!(f[2].events, 135);
    assert_eq!(
        errors(&f[2]),
        [format!(
            "{}:3615: items[135]: {cut} (as it stands: Event has neither metadata.name nor metadata.uid); the 135 \
             items before it are loaded",
            f[2].location
        )]
    );
    // What loaded is the files' first events.
    let names = stored(&store, "Event");
    for first in ["client-deployment-6c68fd7497-828dw.1589efe7dfc704b0", "minikube.1689e61b78fbb832"] {
        assert!(names.iter().any(|n| n == first), "{first}: {names:?}");
    }
}

#[test]
fn a_yaml_list_cut_inside_its_items_reports_its_last_item() {
    let (dir, store) = temp_store();
    let full = yaml_list(5);
    let lines: Vec<&str> = full.lines().collect();
    let starts: Vec<usize> =
        lines.iter().enumerate().filter(|(_, l)| l.starts_with("- ")).map(|(i, _)| i + 1).collect();
    assert_eq!(starts.len(), 5);
    // Cut two lines into the last item; cut inside a quoted string of it.
    let cut = write(dir.path(), "cut.yaml", head_n(&full, starts[4] + 1).as_bytes());
    let message_line = (starts[4]..lines.len()).find(|i| lines[*i].contains("message:")).expect("message line");
    let mut quoted = head_n(&full, message_line);
    quoted.push_str("  message: '0/2 nodes are");
    let quoted = write(dir.path(), "quoted.yaml", quoted.as_bytes());
    let whole = write(dir.path(), "whole.yaml", full.as_bytes());
    let report = ingest_files(&store, &[cut, quoted, whole], &mut NoProgress).expect("ingest");
    let f = &report.files;
    let cut = "the file ends inside the List: kubectl writes `kind: List` after the items and it is missing (cut off \
               or truncated?), so this last item may be incomplete and is not stored";
    assert_eq!(f[0].events, 4);
    assert_eq!(
        errors(&f[0]),
        [format!(
            "{}:{}: items[4]: {cut} (as it stands: Event has neither metadata.name nor metadata.uid); the 4 items \
             before it are loaded",
            f[0].location, starts[4]
        )]
    );
    assert_eq!(f[1].events, 4);
    let e = errors(&f[1]);
    assert_eq!(e.len(), 1);
    assert!(
        e[0].starts_with(&format!("{}:{}: items[4]: {cut} (its YAML is incomplete: ", f[1].location, starts[4])),
        "{e:?}"
    );
    assert!(e[0].ends_with("); the 4 items before it are loaded"), "{e:?}");
    assert_eq!((f[2].events, f[2].errors.len()), (5, 0));
}

/// `text` as UTF-16, little- or big-endian, with or without a byte-order mark.
fn utf16(text: &str, big: bool, mark: bool) -> Vec<u8> {
    let mut out = Vec::new();
    if mark {
        out.extend_from_slice(if big { b"\xFE\xFF" } else { b"\xFF\xFE" });
    }
    for u in text.encode_utf16() {
        out.extend_from_slice(&if big { u.to_be_bytes() } else { u.to_le_bytes() });
    }
    out
}

#[test]
fn utf16_files_load_like_their_utf8_copies() {
    let (dir, store) = temp_store();
    let json = json_list(3).replace("\n", "\r\n");
    let files = [
        write(dir.path(), "le.json", &utf16(&json, false, true)),
        write(dir.path(), "be.yaml", &utf16(&yaml_list(4), true, true)),
        write(dir.path(), "nomark.json", &utf16(&json, false, false)),
        write(dir.path(), "events.txt", &utf16(&yaml_list(2), false, true)),
    ];
    assert!(kdrift_ingest::refused_files(&files).is_empty());
    let report = ingest_files(&store, &files, &mut NoProgress).expect("ingest");
    let got: Vec<(u64, usize)> = report.files.iter().map(|f| (f.events, f.errors.len())).collect();
    assert_eq!(got, [(3, 0), (4, 0), (3, 0), (2, 0)], "{:?}", report.files);
    assert_eq!(report.status, RunStatus::Ok);
    // A cut one: the same error as its UTF-8 copy, after one about the half character.
    let cut = write(dir.path(), "cut.json", &utf16(&json, false, true)[..json.find("\"ev-1\"").expect("ev-1") * 2 + 5]);
    let report = ingest_files(&store, &[cut], &mut NoProgress).expect("ingest");
    let e = errors(&report.files[0]);
    assert_eq!(e.len(), 2, "{e:?}");
    assert!(e[0].contains("is UTF-16 (as PowerShell's `>` and `Out-File` write it)"), "{e:?}");
    assert!(
        e[1].ends_with(
            ":5: items[1]: the file ends inside this item: it is cut off (truncated?) and not stored; \
                            the item before it is loaded"
        ),
        "{e:?}"
    );
}

#[test]
fn a_kubectl_table_saved_as_json_is_not_told_to_be_yaml() {
    let (dir, store) = temp_store();
    let table = write(
        dir.path(),
        "pods.json",
        b"NAME    READY   STATUS    RESTARTS   AGE\nweb-0   1/1     Running   0          3d\n",
    );
    let report = ingest_files(&store, &[table], &mut NoProgress).expect("ingest");
    let f = &report.files[0];
    assert_eq!(
        errors(f),
        [format!(
            "{}:1:1: expected JSON (a Kubernetes object or list, opening with `{{` or `[`), found \"NAME    READY   \
             STATUS    RESTARTS   AGE\"; a file ending .json is read as JSON only (a `kubectl get` table is no \
             dump: add `-o json`)",
            f.location
        )]
    );
}

/// A list printed as `kubectl cluster-info dump` prints it (4-space indent).
fn pretty_list(kind: &str, items: Vec<Value>) -> String {
    let doc = json!({"kind": kind, "apiVersion": "v1", "metadata": {"resourceVersion": "9"}, "items": items});
    let mut out = Vec::new();
    let mut ser =
        serde_json::Serializer::with_formatter(&mut out, serde_json::ser::PrettyFormatter::with_indent(b"    "));
    serde::Serialize::serialize(&doc, &mut ser).expect("json");
    String::from_utf8(out).expect("utf8") + "\n"
}

fn pod(name: &str) -> Value {
    json!({"metadata": {"name": name, "namespace": "kube-system", "uid": format!("u-{name}")},
           "spec": {"nodeName": "n1", "containers": [{"name": "c"}]}, "status": {"phase": "Running"}})
}

#[test]
fn cluster_info_dump_from_stdout_skips_the_container_logs() {
    let (dir, store) = temp_store();
    let node = json!({"metadata": {"name": "n1", "uid": "u-n1"}, "status": {"allocatable": {"cpu": "2"}}});
    let logs = |pod: &str, body: &str| {
        format!(
            "==== START logs for container c of pod kube-system/{pod} ====\n{body}==== END logs for container c of \
             pod kube-system/{pod} ====\n"
        )
    };
    let dump = [
        pretty_list("NodeList", vec![node]),
        pretty_list("EventList", (0..3).map(event).collect()),
        pretty_list("ReplicationControllerList", vec![]),
        pretty_list("PodList", vec![pod("a"), pod("b")]),
        logs("a", "I0101 00:00:00.000000       1 server.go:1] started\n{\"level\":\"info\",\"msg\":\"json log\"}\n"),
        logs("b", "a log without a final newline"),
        pretty_list("EventList", vec![event(3)]),
    ]
    .concat();
    let file = write(dir.path(), "cidump.json", dump.as_bytes());
    let report = ingest_files(&store, &[file], &mut NoProgress).expect("ingest");
    let f = &report.files[0];
    assert_eq!(errors(f), Vec::<String>::new());
    assert_eq!((f.events, f.objects, f.skipped), (4, 3, 2));
    assert_eq!(report.status, RunStatus::Ok);
}

#[test]
fn secrets_and_configmaps_are_counted_as_skipped_and_never_stored() {
    let (dir, store) = temp_store();
    let secret = |name: &str| {
        json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": name, "namespace": "d"},
               "data": {"password": "aHVudGVyMg=="}})
    };
    let config = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm", "namespace": "d"},
                        "data": {"token": "x"}});
    let pod_d = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web", "namespace": "d", "uid": "w"}});
    let single = write(dir.path(), "secret.yaml", serde_yaml::to_string(&secret("s1")).expect("yaml").as_bytes());
    let list = write(
        dir.path(),
        "mixed.json",
        json!({"kind": "List", "items": [config, pod_d, secret("s2")]}).to_string().as_bytes(),
    );
    // Items without a kind of a SecretList, and a watch event.
    let bare = json!({"metadata": {"name": "s3", "namespace": "d"}, "data": {"k": "dg=="}});
    let lines = [
        json!({"kind": "SecretList", "apiVersion": "v1", "items": [bare]}).to_string(),
        json!({"type": "ADDED", "object": secret("s4")}).to_string(),
        event(1).to_string(),
    ];
    let ndjson = write(dir.path(), "watch.ndjson", lines.join("\n").as_bytes());
    let report = ingest_files(&store, &[single, list, ndjson], &mut NoProgress).expect("ingest");
    let got: Vec<(u64, u64, usize)> = report.files.iter().map(|f| (f.records, f.skipped, f.errors.len())).collect();
    assert_eq!(got, [(0, 1, 0), (1, 2, 0), (1, 2, 0)], "{:?}", report.files);
    assert_eq!(stored(&store, "Secret"), Vec::<String>::new());
    assert_eq!(stored(&store, "ConfigMap"), Vec::<String>::new());
    assert_eq!(stored(&store, "Pod"), ["web"]);
}

#[test]
fn a_yaml_list_cut_inside_its_closing_lines_keeps_every_item() {
    // Cut inside `kind: List` / `metadata:` (break-it): `kind: Li` was read
    // as an object of kind Li, and a cut in `metadata` failed the whole
    // document: 0 of 5 items stored.
    let (dir, store) = temp_store();
    let full = yaml_list(5);
    let kind_at = full.find("\nkind: List").expect("kind line") + 1;
    let kind_line = full[..kind_at].lines().count() + 1;
    let cuts = [
        ("li.yaml", full[..kind_at + "kind: Li".len()].to_string()),
        ("meta.yaml", full[..full.find("\nmetadata:").expect("metadata") + "\nmeta".len()].to_string()),
        ("quoted.yaml", full[..full.len() - 2].to_string()), // `resourceVersion: '`
    ];
    let files: Vec<PathBuf> = cuts.iter().map(|(name, text)| write(dir.path(), name, text.as_bytes())).collect();
    let whole = write(dir.path(), "whole.yaml", full.as_bytes());
    let report = ingest_files(&store, &[&files[..], &[whole]].concat(), &mut NoProgress).expect("ingest");
    for f in &report.files[..3] {
        assert_eq!(f.events, 5, "{}: {:?}", f.location, f.errors);
        assert_eq!(
            errors(f),
            [format!(
                "{}:{kind_line}: the file ends inside the List's closing lines (kubectl writes `kind: List` and \
                 `metadata` after the items; cut off or truncated?): all 5 items are loaded",
                f.location
            )]
        );
    }
    assert_eq!((report.files[3].events, report.files[3].errors.len()), (5, 0), "the whole file");
}

#[test]
fn a_log_section_without_its_end_line_does_not_swallow_the_objects_after_it() {
    let (dir, store) = temp_store();
    let dump = [
        pretty_list("NodeList", vec![json!({"metadata": {"name": "n1", "uid": "u-n1"}})]),
        "==== START logs for container c of pod kube-system/a ====\nI0101 log\n{\"level\":\"info\"}\n".to_string(),
        pretty_list("EventList", (0..3).map(event).collect()),
        // The dump cut inside its last log: the rest is log, no error.
        "==== START logs for container c of pod kube-system/b ====\nI0101 half a li".to_string(),
    ]
    .concat();
    let start_line = dump[..dump.find("==== START").expect("start")].lines().count() + 1;
    let objects_line = start_line + 3;
    let file = write(dir.path(), "cidump.json", dump.as_bytes());
    let report = ingest_files(&store, &[file], &mut NoProgress).expect("ingest");
    let f = &report.files[0];
    assert_eq!((f.events, f.objects, f.skipped), (3, 1, 2));
    assert_eq!(
        errors(f),
        [format!(
            "{}:{start_line}: this container-log section (`==== START logs for …`) has no `==== END logs for …` line; \
             read as log up to the Kubernetes object on line {objects_line}",
            f.location
        )]
    );
}

#[test]
fn a_secret_is_not_stored_whatever_the_case_of_its_kind() {
    let (dir, store) = temp_store();
    let items: Vec<Value> = ["secret", "SECRET", " Secret", "configmap"]
        .iter()
        .enumerate()
        .map(|(i, kind)| {
            json!({"apiVersion": "v1", "kind": kind, "metadata": {"name": format!("s{i}"), "namespace": "d"},
                   "stringData": {"pw": "PLANTED"}})
        })
        .collect();
    let file = write(dir.path(), "lower.json", json!({"kind": "List", "items": items}).to_string().as_bytes());
    let report = ingest_files(&store, &[file], &mut NoProgress).expect("ingest");
    assert_eq!((report.files[0].records, report.files[0].skipped), (0, 4));
    assert_eq!(report.counts.records, 0);
}

/// Break-it 34: a kubeconfig given a `metadata.name` was stored verbatim as
/// an object of unknown kind, its user's token with it. It is an input
/// error naming the file (the List's item), the objects around it load;
/// and `kubectl get secrets -o json` (a List of Secrets, `data` and
/// `stringData`) stores nothing of them, in a whole-read or streamed List.
#[test]
fn a_kubeconfig_is_an_input_error_never_stored_and_no_secret_value_is_stored() {
    const TOKEN: &str = "kubeconfigPlantedTok9Qz";
    const SECRET_PLAIN: &str = "secretPlantedValue7Wx";
    let (dir, store) = temp_store();
    let kubeconfig = format!(
        "apiVersion: v1\nkind: Config\nmetadata:\n  name: mine\nclusters:\n- name: c\n  cluster: {{server: \
         'https://10.0.0.1:6443'}}\nusers:\n- name: u\n  user: {{token: {TOKEN}}}\ncontexts:\n- name: c\n  \
         context: {{cluster: c, user: u}}\ncurrent-context: c\n"
    );
    let single = write(dir.path(), "config.yaml", kubeconfig.as_bytes());
    let config_item = json!({"apiVersion": "v1", "kind": "Config", "metadata": {"name": "k"},
                             "users": [{"name": "u", "user": {"token": TOKEN}}]});
    let mixed = write(
        dir.path(),
        "mixed.json",
        json!({"kind": "List", "items": [pod("a"), config_item, pod("b")]}).to_string().as_bytes(),
    );
    let secret = |i: usize| {
        json!({"apiVersion": "v1", "kind": "Secret", "type": "Opaque",
               "metadata": {"name": format!("s{i}"), "namespace": "d"},
               "data": {"password": base64_of(SECRET_PLAIN)}, "stringData": {"plain": SECRET_PLAIN}})
    };
    let secrets = json!({"apiVersion": "v1", "kind": "List", "items": (0..400).map(secret).collect::<Vec<_>>(),
                         "metadata": {"resourceVersion": ""}});
    let secrets = write(dir.path(), "secrets.json", serde_json::to_string_pretty(&secrets).expect("json").as_bytes());
    let report = ingest_files(&store, &[single, mixed, secrets.clone()], &mut NoProgress).expect("ingest");
    let f = &report.files;
    let refused = "a kubeconfig (kind Config), not cluster history: not stored (it holds credentials); expected \
                   Kubernetes objects, e.g. `kubectl get pods -A -o json`";
    assert_eq!(errors(&f[0]), [format!("{}:1: {refused}", f[0].location)]);
    // The item's line (break-it 40 F11), here the one line of the List.
    assert_eq!(errors(&f[1]), [format!("{}:1: items[1]: {refused}", f[1].location)]);
    let got: Vec<(u64, u64, usize)> = f.iter().map(|f| (f.records, f.skipped, f.errors.len())).collect();
    assert_eq!(got, [(0, 0, 1), (2, 0, 1), (0, 400, 0)]);
    assert_eq!(stored(&store, "Pod"), ["a", "b"]);
    assert_eq!(stored(&store, "Config"), Vec::<String>::new());
    // The same Secrets streamed item by item (a List past a quarter of the batch bound).
    let (_d, streamed_store, streamed) = ingest_batched(&secrets, 16 << 10);
    assert_eq!((streamed.records, streamed.skipped, streamed.errors.len()), (0, 400, 0));
    drop(streamed_store);
    drop(store);
    let text = kdrift_tests::leaks::store_text(&dir.path().join("test.duckdb"));
    for planted in [TOKEN, SECRET_PLAIN, &base64_of(SECRET_PLAIN)] {
        assert!(!text.contains(planted), "{planted} stored");
    }
    assert!(text.contains("not cluster history"), "the refusal is stored with the run");
}

fn base64_of(s: &str) -> String {
    kdrift_tests::leaks::base64_of(s)
}

/// Every stored object of the given kinds: (kind, namespace, name,
/// apiVersion, controller owner as `kind/name` or `""`), sorted.
fn stored_identities(store: &Store, kinds: &[&str]) -> Vec<(String, String, String, String, String)> {
    let mut out = Vec::new();
    for kind in kinds {
        let params =
            [("kind".to_string(), kind.to_string()), ("at_us".to_string(), "2100-01-01T00:00:00Z".to_string())];
        let result = run_query(store, "objects_at", &params).expect("objects_at");
        let col = |name: &str| result.columns.iter().position(|c| c == name).expect("column");
        let (ns, name, object) = (col("namespace"), col("name"), col("object"));
        for row in &result.rows {
            let o = &row[object];
            let owner = match (
                o.pointer("/metadata/ownerReferences/0/kind").and_then(Value::as_str),
                o.pointer("/metadata/ownerReferences/0/name").and_then(Value::as_str),
            ) {
                (Some(k), Some(n)) => format!("{k}/{n}"),
                _ => String::new(),
            };
            assert_eq!(o["kind"], *kind, "{o}");
            out.push((
                kind.to_string(),
                row[ns].as_str().unwrap_or_default().to_string(),
                row[name].as_str().unwrap_or_default().to_string(),
                o["apiVersion"].as_str().unwrap_or_default().to_string(),
                owner,
            ));
        }
    }
    out.sort();
    out
}

#[test]
fn every_resource_file_of_a_kubectl_1_8_cluster_info_dump_is_stored_with_its_kind_and_owner() {
    // kubectl 1.8–1.13 printed internal types: no `kind` on the Lists or
    // their items, so only Events, Pods and Nodes were recognised (by file
    // name and selfLink) and every Deployment, ReplicaSet, DaemonSet and
    // ReplicationController item was an error ("object has no `kind`"),
    // the Services too.
    use kdrift_tests::cluster_info_dump::{write_tree, EXPECTED, FILES, LOGS};
    let (dir, store) = temp_store();
    let tree = write_tree(&dir.path().join("cluster-state"));
    let report = ingest_files(&store, std::slice::from_ref(&tree), &mut NoProgress).expect("ingest");
    let per_file: Vec<(String, u64, u64, Vec<String>)> = report
        .files
        .iter()
        .map(|f| {
            let rel = f.location.strip_prefix(&format!("{}/", tree.display())).unwrap_or(&f.location).to_string();
            (rel, f.records, f.skipped, errors(f))
        })
        .collect();
    let expected: Vec<(String, u64, u64, Vec<String>)> =
        FILES.iter().map(|(path, records, skipped)| (path.to_string(), *records, *skipped, Vec::new())).collect();
    assert_eq!(per_file, expected);
    let ignored: Vec<String> = report.ignored.iter().map(|p| p.replace(&format!("{}/", tree.display()), "")).collect();
    assert_eq!(ignored, LOGS, "the container logs are listed as ignored, not errors");
    assert_eq!((report.status, report.error_count()), (RunStatus::Ok, 0));

    let kinds: std::collections::BTreeSet<&str> = EXPECTED.iter().map(|e| e.0).chain(["Service"]).collect();
    let kinds: Vec<&str> = kinds.into_iter().collect();
    let got = stored_identities(&store, &kinds);
    let want: Vec<(String, String, String, String, String)> = EXPECTED
        .iter()
        .map(|(k, ns, n, v, o)| (k.to_string(), ns.to_string(), n.to_string(), v.to_string(), o.to_string()))
        .collect();
    assert_eq!(got, want);

    // The templates' flattened metadata is under `metadata`, as the public
    // types have it: the owners' pod templates read like a v1 pod's.
    let object = |kind: &str, name: &str| {
        let params =
            [("kind".to_string(), kind.to_string()), ("at_us".to_string(), "2100-01-01T00:00:00Z".to_string())];
        let result = run_query(&store, "objects_at", &params).expect("objects_at");
        let (n, o) = (
            result.columns.iter().position(|c| c == "name").expect("name"),
            result.columns.iter().position(|c| c == "object").expect("object"),
        );
        result.rows.iter().find(|r| r[n] == name).map(|r| r[o].clone()).expect("stored")
    };
    let cronjob = object("CronJob", "backup");
    let pod_template = &cronjob["spec"]["jobTemplate"]["spec"]["template"];
    assert_eq!(pod_template["metadata"]["labels"]["app"], "backup");
    assert_eq!(pod_template["spec"]["containers"][0]["resources"]["requests"]["memory"], "2Gi");
    assert_eq!(object("Job", "backup-1520000000")["spec"]["activeDeadlineSeconds"], 3600);
    let rs = object("ReplicaSet", "web-5d4f8b7c9");
    assert_eq!(rs["spec"]["template"]["metadata"]["labels"]["app"], "web");
    assert_eq!(rs["spec"]["selector"]["matchLabels"]["app"], "web");
    assert_eq!(object("ReplicationController", "legacy-rc")["spec"]["selector"]["app"], "legacy");
    assert_eq!(object("StatefulSet", "db")["spec"]["volumeClaimTemplates"][0]["metadata"]["name"], "data");
    let pdb = object("PodDisruptionBudget", "db");
    assert_eq!(
        (pdb["status"]["disruptionsAllowed"].as_i64(), pdb["spec"]["minAvailable"].as_i64()),
        (Some(0), Some(1))
    );
    assert_eq!(object("PriorityClass", "high")["value"], 1_000_000);
    assert_eq!(object("Namespace", "media")["status"]["phase"], "Active");
}

#[test]
fn a_json_list_with_one_bad_item_keeps_every_other_item() {
    let (dir, store) = temp_store();
    // Item 4 (the 5th of 10, on line 8) misses a comma inside.
    let comma = json_list(10).replacen("\"name\":\"ev-4\",", "\"name\":\"ev-4\"", 1);
    assert_ne!(comma, json_list(10));
    // Item 6 of 11 (line 10) holds a byte that is not UTF-8 in a string.
    let mut utf8 = json_list(11).into_bytes();
    let at = utf8.windows(6).position(|w| w == b"\"ev-6\"").expect("ev-6") + 3;
    utf8[at] = 0xff;
    // The same on one line (`kubectl get -o json | jq -c .`).
    let mut one_line = serde_json::to_vec(&json!({"apiVersion": "v1", "kind": "EventList",
        "items": (0..11).map(event).collect::<Vec<_>>()}))
    .expect("json");
    let at = one_line.windows(6).position(|w| w == b"\"ev-6\"").expect("ev-6") + 3;
    one_line[at] = 0xff;
    let files = [
        write(dir.path(), "comma.json", comma.as_bytes()),
        write(dir.path(), "utf8.json", &utf8),
        write(dir.path(), "one-line.json", &one_line),
    ];
    let report = ingest_files(&store, &files, &mut NoProgress).expect("ingest");
    assert_eq!(report.status, RunStatus::Partial);
    let f = &report.files;
    let got: Vec<(u64, usize)> = f.iter().map(|f| (f.events, f.errors.len())).collect();
    assert_eq!(got, [(9, 1), (10, 1), (10, 1)], "{:?}", f.iter().map(errors).collect::<Vec<_>>());
    assert_eq!(
        errors(&f[0]),
        [format!(
            "{}:8:68: items[4]: invalid JSON: expected `,` or `}}`; this item is skipped (not stored); the List's \
             other items are loaded",
            f[0].location
        )]
    );
    // Each at the error's line and column (break-it 41 L5: the item's line, and another in the text).
    let e = &errors(&f[1])[0];
    assert!(
        e.starts_with(&format!("{}:10:", f[1].location))
            && e.contains(": items[6]: invalid JSON: invalid unicode code point; this item is skipped"),
        "{e}"
    );
    let e = &errors(&f[2])[0];
    assert!(e.starts_with(&format!("{}:1:", f[2].location)) && e.contains(": items[6]: invalid JSON: "), "{e}");
    let mut names = stored(&store, "Event");
    names.sort_by_key(|n| n[3..].parse::<u32>().expect("number"));
    // ev-4 from utf8.json and one-line.json, ev-6 from comma.json.
    assert_eq!(names, (0..11).map(|i| format!("ev-{i}")).collect::<Vec<_>>());
    let (_other_dir, store) = temp_store();
    ingest_files(&store, &files[1..], &mut NoProgress).expect("ingest");
    let mut names = stored(&store, "Event");
    names.sort_by_key(|n| n[3..].parse::<u32>().expect("number"));
    assert_eq!(names, (0..11).filter(|i| *i != 6).map(|i| format!("ev-{i}")).collect::<Vec<_>>());
}

#[test]
fn pretty_printed_objects_saved_as_ndjson_load_as_a_stream_of_values() {
    // Break-it 32 N7: `jq '.items[]'` without `-c` saved as `.ndjson` stored 0 of 10.
    let dir = tempfile::tempdir().expect("tmp");
    let pretty: String = (0..10).map(|i| serde_json::to_string_pretty(&event(i)).expect("json") + "\n").collect();
    let pretty = write(dir.path(), "events.ndjson", pretty.as_bytes());
    // A genuinely bad line (an object cut on line 1) keeps its own error.
    let lines: String = (0..3).map(|i| event(i).to_string() + "\n").collect();
    let bad = write(dir.path(), "bad.ndjson", format!("{{\"kind\":\n{lines}").as_bytes());
    let (_d, store) = temp_store();
    let report = ingest_files(&store, &[pretty, bad], &mut NoProgress).expect("ingest");
    let mut names = stored(&store, "Event");
    names.sort();
    let mut want: Vec<String> = (0..10).map(|i| format!("ev-{i}")).collect();
    want.sort();
    assert_eq!(names, want);
    assert_eq!(report.files[0].errors.len(), 0, "{:?}", errors(&report.files[0]));
    assert_eq!(report.files[0].records, 10);
    assert_eq!(report.files[1].records, 3);
    let bad_errors = errors(&report.files[1]);
    assert_eq!(bad_errors.len(), 1, "{bad_errors:?}");
    assert!(bad_errors[0].contains("bad.ndjson:1"), "{bad_errors:?}");
}

/// A Pod `p{i}` of about 1 KiB as `kubectl get pods -o json` prints it;
/// without `kind` and `apiVersion` when `kindless`.
pub(crate) fn big_pod(i: usize, kindless: bool) -> Value {
    let mut pod = json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": format!("p{i}"), "namespace": "d", "uid": format!("pu-{i}"),
            "creationTimestamp": "2026-01-01T00:00:00Z", "resourceVersion": format!("{}", 1000 + i),
            "labels": {"app": "web", "pod-template-hash": "5d8f7c9b6"},
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-5d8f7c9b6",
                "uid": "rs-1", "controller": true}]},
        "spec": {"nodeName": format!("node-{}", i % 7), "schedulerName": "default-scheduler",
            "containers": [{"name": "app", "image": "registry.example/web:1.2.3",
                "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}, "limits": {"memory": "256Mi"}},
                "args": ["--port=8080", "--note=a \"quoted\" ] } [ { text"]}]},
        "status": {"phase": "Running", "podIP": format!("10.0.{}.{}", i / 250, i % 250),
            "startTime": "2026-01-01T00:00:05Z",
            "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": "2026-01-01T00:00:09Z"}]}
    });
    if kindless {
        let map = pod.as_object_mut().expect("object");
        map.remove("kind");
        map.remove("apiVersion");
    }
    pod
}

/// A List of `n` Pods as kubectl prints it: `apiVersion`, `items`, then
/// `kind` and `metadata` (the items come before the List's kind);
/// `list_kind` is the List's, the items lack theirs when `kindless`.
fn big_pod_list(n: usize, list_kind: &str, kindless: bool) -> String {
    let items: Vec<Value> = (0..n).map(|i| big_pod(i, kindless)).collect();
    let list = json!({"apiVersion": "v1", "items": items, "kind": list_kind, "metadata": {"resourceVersion": ""}});
    serde_json::to_string_pretty(&list).expect("json")
}

/// `path` ingested into a new store with `batch_bytes`: the report's one file and the store.
pub(crate) fn ingest_batched(path: &Path, batch_bytes: u64) -> (tempfile::TempDir, Store, FileSummary) {
    use kdrift_ingest::{ingest_files_with, FileLimits, Interrupt};
    let (dir, store) = temp_store();
    let limits = FileLimits { batch_bytes, ..FileLimits::default() };
    let report =
        ingest_files_with(&store, &[path.to_path_buf()], &limits, &mut NoProgress, &Interrupt::new()).expect("ingest");
    let file = report.files.into_iter().next().expect("one file");
    (dir, store, file)
}

/// The small batch of the streaming tests: 256 KiB.
pub(crate) const SMALL_BATCH: u64 = 256 << 10;

/// Issue 39: a JSON List is read item by item and committed in batches of
/// `--max-batch-bytes` (memory holds one batch, not the file): 2,000 Pods
/// (~3 MB) with a 256 KiB bound are stored in 11 batch commits, every Pod
/// once, with the same records as the whole-file reader and as the same
/// Pods given as NDJSON (which commits as many batches). Read whole
/// (before), no batch was committed while the file was read.
#[test]
fn a_json_list_larger_than_a_batch_is_stored_in_batches_with_every_item() {
    let dir = tempfile::tempdir().expect("tmp");
    let text = big_pod_list(2000, "List", false);
    assert!(text.len() as u64 > 8 * SMALL_BATCH, "{}", text.len());
    let path = write(dir.path(), "pods.json", text.as_bytes());
    let (_d, store, file) = ingest_batched(&path, SMALL_BATCH);
    assert_eq!((file.records, file.objects, file.errors.len()), (2000, 2000, 0), "{:?}", errors(&file));
    assert_eq!(file.batches, 11);
    assert_eq!(store.counts().expect("counts").pods, 2000);
    let names = stored(&store, "Pod");
    assert_eq!((names.len(), names.iter().any(|n| n == "p0"), names.iter().any(|n| n == "p1999")), (2000, true, true));
    // The default bound (64 MiB): read whole, nothing committed before the run's end.
    let (_d, whole_store, whole) = ingest_batched(&path, kdrift_ingest::FileLimits::default().batch_bytes);
    assert_eq!((whole.records, whole.batches), (2000, 0));
    assert_eq!(stored(&whole_store, "Pod"), names);
    // The same Pods as NDJSON: as many batches.
    let lines: Vec<String> = (0..2000).map(|i| big_pod(i, false).to_string()).collect();
    let ndjson = write(dir.path(), "pods.ndjson", (lines.join("\n") + "\n").as_bytes());
    let (_d, _, streamed) = ingest_batched(&ndjson, SMALL_BATCH);
    assert_eq!((streamed.records, streamed.batches), (2000, 11));
}

/// Issue 39: a streamed JSON List cut off inside an item keeps every
/// complete item (committed in batches) and names the cut one, word for
/// word as the whole-file reader does; gzip-compressed, the same.
#[test]
fn a_streamed_list_cut_off_or_gzipped_keeps_its_complete_items_as_read_whole() {
    let dir = tempfile::tempdir().expect("tmp");
    let text = big_pod_list(2000, "List", false);
    let cut_at = text.find("\"name\": \"p1500\"").expect("p1500") + 10;
    let path = write(dir.path(), "pods.json", &text.as_bytes()[..cut_at]);
    let item_line = text[..text[..cut_at].rfind("\n    {\n").expect("item start") + 1].lines().count() + 1;
    let (_d, store, file) = ingest_batched(&path, SMALL_BATCH);
    let want = format!(
        "{}:{item_line}: items[1500]: the file ends inside this item: it is cut off (truncated?) and not stored; \
         the 1500 items before it are loaded",
        path.display()
    );
    assert_eq!(errors(&file), std::slice::from_ref(&want));
    assert_eq!((file.records, store.counts().expect("counts").pods), (1500, 1500));
    assert_eq!(file.batches, 8);
    let (_d, _, whole) = ingest_batched(&path, kdrift_ingest::FileLimits::default().batch_bytes);
    assert_eq!((whole.records, whole.batches, errors(&whole)), (1500, 0, vec![want]));
    // Cut between items, and after them (the List's `kind` and `metadata` lost).
    for (cut, records, message) in [
        (cut_at + text[cut_at..].find("\n    {\n").expect("next item") + 1, 1501, "the file ends inside the List's items, after 1501 items (truncated?): they are loaded; any after them are missing"),
        (text.find("\"kind\": \"List\"").expect("kind"), 2000, "the file ends after the List's items, before the List's end (truncated?); all 2000 items are loaded"),
    ] {
        let path = write(dir.path(), "cut.json", &text.as_bytes()[..cut]);
        let (_d, _, file) = ingest_batched(&path, SMALL_BATCH);
        let (_d, _, whole) = ingest_batched(&path, kdrift_ingest::FileLimits::default().batch_bytes);
        assert_eq!((file.records, errors(&file)), (records, errors(&whole)));
        assert!(file.batches > 0 && errors(&file)[0].ends_with(message), "{:?}", errors(&file));
    }
    // Gzip: decompressed on the fly, the same records in the same batches.
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(text.as_bytes()).expect("gzip");
    let path = write(dir.path(), "pods.json.gz", &gz.finish().expect("gzip"));
    let (_d, store, file) = ingest_batched(&path, SMALL_BATCH);
    assert_eq!((file.records, file.batches, file.errors.len()), (2000, 11, 0), "{:?}", errors(&file));
    assert_eq!(store.counts().expect("counts").pods, 2000);
}

/// Issue 39: items without `kind` before the List's `kind: PodList` (the
/// stream learns the List's kind in a first pass) are Pods; a List with a
/// bad item is left to the whole-file reader, which skips that item only.
#[test]
fn a_streamed_lists_kindless_items_before_its_kind_take_it_and_a_bad_item_is_read_whole() {
    let dir = tempfile::tempdir().expect("tmp");
    let path = write(dir.path(), "objects.json", big_pod_list(2000, "PodList", true).as_bytes());
    let (_d, store, file) = ingest_batched(&path, SMALL_BATCH);
    assert_eq!((file.records, file.errors.len(), file.batches), (2000, 0, 11), "{:?}", errors(&file));
    assert_eq!(store.counts().expect("counts").pods, 2000);
    // A `,` missing between two items: read whole, said once, every item loads.
    let text = big_pod_list(2000, "List", false);
    let at = text.find("\"name\": \"p700\"").expect("p700");
    let comma = text[..at].rfind("},").expect("comma");
    let text = format!("{}}}{}", &text[..comma], &text[comma + 2..]);
    let path = write(dir.path(), "pods.json", text.as_bytes());
    let (_d, _, file) = ingest_batched(&path, SMALL_BATCH);
    assert_eq!((file.records, file.batches), (2000, 0));
    let errors = errors(&file);
    assert!(
        errors.len() == 1 && errors[0].contains("a `,` is missing between items[699] and items[700]"),
        "{errors:?}"
    );
}

/// Issue 34 (break-it 39): a List with `items` twice stored none of the
/// items of either array. The items of both load (the second's numbered on
/// after the first's), and one error names the second `items` key's line
/// and column and what was expected; the streamed reader of large Lists
/// says the same as the whole-file reader.
#[test]
fn a_list_with_its_items_twice_keeps_the_items_of_both() {
    let dir = tempfile::tempdir().expect("tmp");
    let array = |range: std::ops::Range<usize>| serde_json::to_string(&range.map(event).collect::<Vec<_>>());
    let (a, b) = (array(0..5).expect("json"), array(5..10).expect("json"));
    let text = format!("{{\"kind\":\"List\",\"apiVersion\":\"v1\",\"items\":{a},\"items\":{b}}}\n");
    let column = text.rfind("\"items\"").expect("second items") + 1;
    let path = write(dir.path(), "twice.json", text.as_bytes());
    let (_d, store, file) = ingest_batched(&path, kdrift_ingest::FileLimits::default().batch_bytes);
    assert_eq!(
        errors(&file),
        [format!(
            "{}:1:{column}: the key \"items\" appears twice in the List; expected one: a List has one `items` array; \
             the items of both are loaded, the second's numbered on from items[5]",
            path.display()
        )]
    );
    assert_eq!((file.records, file.events), (10, 10));
    let mut names = stored(&store, "Event");
    names.sort_by_key(|n| n[3..].parse::<u32>().expect("number"));
    assert_eq!(names, (0..10).map(|i| format!("ev-{i}")).collect::<Vec<_>>());
    // Streamed (larger than a quarter of the batch), pretty-printed: the
    // same records and the same error, at the second key's line.
    let pods = |range: std::ops::Range<usize>| range.map(|i| big_pod(i, false)).collect::<Vec<_>>();
    let first = serde_json::to_string_pretty(&json!({"apiVersion": "v1", "items": pods(0..300)})).expect("json");
    let second = serde_json::to_string_pretty(&json!({"items": pods(300..600), "kind": "List"})).expect("json");
    let text = format!("{},\n{}", first.trim_end().strip_suffix('}').expect("}"), &second[1..]);
    assert!(text.len() as u64 > SMALL_BATCH, "{}", text.len());
    let at = text.rfind("\"items\"").expect("second items");
    let (line, column) = (text[..at].lines().count(), at - text[..at].rfind('\n').expect("line"));
    let path = write(dir.path(), "pods.json", text.as_bytes());
    let (_d, store, file) = ingest_batched(&path, SMALL_BATCH);
    let want = format!(
        "{}:{line}:{column}: the key \"items\" appears twice in the List; expected one: a List has one `items` \
         array; the items of both are loaded, the second's numbered on from items[300]",
        path.display()
    );
    assert_eq!(errors(&file), std::slice::from_ref(&want));
    assert!(file.batches > 1, "streamed: {}", file.batches);
    assert_eq!((file.records, store.counts().expect("counts").pods), (600, 600));
    let (_d, whole_store, whole) = ingest_batched(&path, kdrift_ingest::FileLimits::default().batch_bytes);
    assert_eq!((whole.records, whole.batches, errors(&whole)), (600, 0, vec![want]));
    assert_eq!(stored(&whole_store, "Pod"), stored(&store, "Pod"));
}

/// Break-it 39 F1: YAML aliases repeat their anchor's value, so a 103 KB
/// file (an anchor of 100 KB used 1,000 times) stored a 100 MB object and
/// a 1 MB one peaked at 8.2 GB. An item (or document) expanding past 64
/// times its text plus 64 MiB is an input error naming it; the items
/// around it are stored.
#[test]
fn a_yaml_item_whose_aliases_expand_too_much_is_an_error_and_the_others_load() {
    let dir = tempfile::tempdir().expect("tmp");
    let item = |i: usize| {
        format!(
            "- apiVersion: v1\n  kind: Event\n  metadata: {{name: ev-{i}, namespace: default}}\n  involvedObject: \
             {{kind: Pod, name: p-{i}, namespace: default}}\n  reason: Started\n  message: started\n  \
             lastTimestamp: \"2026-11-27T10:00:00Z\"\n"
        )
    };
    let anchor = "x".repeat(64 << 10);
    let aliases = "      - *big\n".repeat(1300);
    let bomb = format!(
        "- apiVersion: v1\n  kind: Event\n  metadata: {{name: bomb, namespace: default}}\n  involvedObject: {{kind: \
         Pod, name: b, namespace: default}}\n  reason: Started\n  message: &big {anchor}\n  annotations:\n    more:\n\
         {aliases}"
    );
    let text = format!("apiVersion: v1\nkind: List\nitems:\n{}{}{}{}", item(0), item(1), bomb, item(2));
    let path = write(dir.path(), "aliases.yaml", text.as_bytes());
    let (_d, store, file) = ingest_batched(&path, kdrift_ingest::FileLimits::default().batch_bytes);
    let errors = errors(&file);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].starts_with(&format!("{}:18: ", path.display()))
            && errors[0].contains("this item expands past ")
            && errors[0].contains("its aliases (`*name`) repeat their anchors' values"),
        "{}",
        errors[0]
    );
    let mut names = stored(&store, "Event");
    names.sort();
    assert_eq!(names, ["ev-0", "ev-1", "ev-2"]);
}
