//! Issue 39: large YAML files (`kubectl get pods -A -o yaml`, documents
//! separated by `---`) are read a document or a List item at a time and
//! committed in batches of `--max-batch-bytes`, as JSON Lists are
//! (`cut_and_foreign_files`): every item is stored, with the same
//! observations as the whole-file reader stores, a bad item is an error
//! naming it and the others load, and input that the stream does not split
//! (a List cut off before its `kind`) is left to the whole-file reader.

use std::io::Write;

use kdrift_ingest::FileLimits;
use kdrift_store::Store;
use serde_json::{json, Value};

use crate::cut_and_foreign_files::{big_pod, errors, ingest_batched, stored, write, SMALL_BATCH};

/// Every observation of `store` but its id, run and time, one line each,
/// in the order stored.
fn observations(store: &Store) -> String {
    store
        .conn()
        .query_row(
            "SELECT string_agg(concat_ws(' | ', change, kind, api_version, namespace, name, uid, resource_version, \
             content_hash, location, line, object::VARCHAR), chr(10) ORDER BY obs_id) FROM observations",
            [],
            |r| r.get(0),
        )
        .expect("observations")
}

/// A List of `n` Pods as `kubectl get pods -o yaml` writes it: `apiVersion`,
/// `items` (unindented `- ` lines), then `kind` and `metadata`.
fn yaml_pod_list(n: usize, list_kind: &str, kindless: bool) -> String {
    let items: Vec<Value> = (0..n).map(|i| big_pod(i, kindless)).collect();
    let list = json!({"apiVersion": "v1", "items": items, "kind": list_kind, "metadata": {"resourceVersion": ""}});
    serde_yaml::to_string(&list).expect("yaml")
}

/// The 1-based line on which `needle` is found in `text`.
fn line_of(text: &str, needle: &str) -> usize {
    text[..text.find(needle).expect(needle)].lines().count() + 1
}

/// The 2,000 Pods (~1.8 MB of YAML) with a 256 KiB bound: 11 batch commits,
/// as the same Pods as a JSON List or NDJSON; read whole (the default
/// bound), none. The same observations either way, for the List, the Pods
/// as 2,000 documents, the List gzip-compressed, and a List whose items
/// lack `kind` before its `kind: PodList`.
#[test]
fn a_yaml_list_larger_than_a_batch_is_stored_in_batches_with_every_item() {
    let dir = tempfile::tempdir().expect("tmp");
    let text = yaml_pod_list(2000, "List", false);
    assert!(text.len() as u64 > 6 * SMALL_BATCH, "{}", text.len());
    assert!(text.starts_with("apiVersion: v1\nitems:\n- apiVersion: v1\n"), "{}", &text[..60]);
    let path = write(dir.path(), "pods.yaml", text.as_bytes());
    let (_d, store, file) = ingest_batched(&path, SMALL_BATCH);
    assert_eq!((file.records, file.objects, file.errors.len()), (2000, 2000, 0), "{:?}", errors(&file));
    assert_eq!(file.format, Some(kdrift_ingest::Format::Yaml));
    assert_eq!(file.batches, 11);
    let names = stored(&store, "Pod");
    assert_eq!((names.len(), names.iter().any(|n| n == "p0"), names.iter().any(|n| n == "p1999")), (2000, true, true));
    let (_d, whole_store, whole) = ingest_batched(&path, FileLimits::default().batch_bytes);
    assert_eq!((whole.records, whole.batches), (2000, 0));
    assert_eq!(observations(&store), observations(&whole_store));
    assert_eq!(observations(&store).lines().count(), 2000);

    // One Pod per document, a leading `---` and an empty document among them.
    let docs: Vec<String> = (0..2000).map(|i| serde_yaml::to_string(&big_pod(i, false)).expect("yaml")).collect();
    let docs = format!("---\n{}---\n\n---\n{}", docs[..1000].join("---\n"), docs[1000..].join("---\n"));
    let path = write(dir.path(), "docs.yaml", docs.as_bytes());
    let (_d, streamed_store, streamed) = ingest_batched(&path, SMALL_BATCH);
    assert_eq!((streamed.records, streamed.skipped, streamed.batches), (2000, 1, 11), "{:?}", errors(&streamed));
    let (_d, whole_store, whole) = ingest_batched(&path, FileLimits::default().batch_bytes);
    assert_eq!((whole.records, whole.skipped, whole.batches), (2000, 1, 0));
    assert_eq!(observations(&streamed_store), observations(&whole_store));
    assert_eq!(stored(&streamed_store, "Pod"), names);

    // Gzip: decompressed on the fly (twice), the same records in the same batches.
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(text.as_bytes()).expect("gzip");
    let path = write(dir.path(), "pods.yaml.gz", &gz.finish().expect("gzip"));
    let (_d, gz_store, file) = ingest_batched(&path, SMALL_BATCH);
    assert_eq!((file.records, file.batches, file.errors.len()), (2000, 11, 0), "{:?}", errors(&file));
    assert_eq!(stored(&gz_store, "Pod"), names);

    // Items without `kind` before the List's `kind: PodList`: Pods.
    let path = write(dir.path(), "objects.yaml", yaml_pod_list(2000, "PodList", true).as_bytes());
    let (_d, store, file) = ingest_batched(&path, SMALL_BATCH);
    assert_eq!((file.records, file.errors.len(), file.batches), (2000, 0, 11), "{:?}", errors(&file));
    let (_d, whole_store, _) = ingest_batched(&path, FileLimits::default().batch_bytes);
    assert_eq!(observations(&store), observations(&whole_store));
}

/// A bad item in the middle of a streamed YAML List (a quote left open, a
/// key twice, nested past the depth limit) is an error naming `items[i]`
/// and its line, word for word as the whole-file reader says it, and the
/// other items are stored (the same observations); a bad document among
/// 2,000 is named by its number. A List cut off before its `kind` is left
/// to the whole-file reader (no batch), which keeps all but its last item.
#[test]
fn a_bad_item_in_a_streamed_yaml_list_is_named_and_the_others_are_stored() {
    let dir = tempfile::tempdir().expect("tmp");
    let text = yaml_pod_list(2000, "List", false)
        .replacen("    name: p700\n", "    name: \"p700\n", 1)
        .replacen("    name: p1200\n", "    name: p1200\n    name: p1200\n", 1)
        .replacen(
            "    name: p1500\n",
            &format!("    name: p1500\n    deep: {}{}\n", "[".repeat(200), "]".repeat(200)),
            1,
        );
    let path = write(dir.path(), "pods.yaml", text.as_bytes());
    let (_d, store, file) = ingest_batched(&path, SMALL_BATCH);
    let (_d, whole_store, whole) = ingest_batched(&path, FileLimits::default().batch_bytes);
    assert_eq!((file.records, whole.records, whole.batches), (1997, 1997, 0));
    assert!(file.batches >= 10, "{}", file.batches);
    let got = errors(&file);
    assert_eq!(got, errors(&whole));
    let item_line = |i: usize| {
        let at = text.find(&format!("name: {}p{i}\n", if i == 700 { "\"" } else { "" })).expect("item");
        text[..text[..at].rfind("\n- ").expect("item start") + 1].lines().count() + 1
    };
    let at = |i: usize| format!("{}:{}: items[{i}]: ", path.display(), item_line(i));
    assert_eq!(got.len(), 3, "{got:?}");
    assert!(got[0].starts_with(&format!("{}invalid YAML in this item: ", at(700))), "{got:?}");
    assert!(got[0].ends_with("; it is skipped (not stored), the List's other items are loaded"), "{got:?}");
    assert!(
        got[1].starts_with(&format!(
            "{}invalid YAML in this item: .[0].metadata: the key \"name\" appears twice",
            at(1200)
        )),
        "{got:?}"
    );
    let deep = line_of(&text, "    deep: [[[");
    assert_eq!(
        got[2],
        format!(
            "{}:{deep}: items[1500]: this item nests 129 levels deep here, more than the 128 kdrift reads in a \
             YAML document (no Kubernetes object comes near; the YAML parser's own limit); it is skipped (not \
             stored), the List's other items are loaded",
            path.display()
        )
    );
    let names = stored(&store, "Pod");
    assert_eq!(names.len(), 1997);
    assert!(!names.iter().any(|n| n == "p700" || n == "p1200" || n == "p1500"));
    assert!(names.iter().any(|n| n == "p699") && names.iter().any(|n| n == "p701"));
    assert_eq!(observations(&store), observations(&whole_store));

    // A bad document among 2,000: named by its number and line.
    let mut docs: Vec<String> = (0..2000).map(|i| serde_yaml::to_string(&big_pod(i, false)).expect("yaml")).collect();
    docs[300] = docs[300].replacen("  name: p300\n", "  name: [p300\n", 1);
    let docs = docs.join("---\n");
    let path = write(dir.path(), "docs.yaml", docs.as_bytes());
    let (_d, store, file) = ingest_batched(&path, SMALL_BATCH);
    let (_d, whole_store, whole) = ingest_batched(&path, FileLimits::default().batch_bytes);
    assert_eq!((file.records, file.batches > 0), (1999, true));
    let got = errors(&file);
    assert_eq!(got, errors(&whole));
    assert_eq!(got.len(), 1, "{got:?}");
    let bad = line_of(&docs, "name: [p300");
    assert!(got[0].contains(&format!(":{}:", bad + 1)) || got[0].contains(&format!(":{bad}:")), "{got:?}");
    assert!(got[0].contains("invalid YAML in document 301: "), "{got:?}");
    assert_eq!(observations(&store), observations(&whole_store));

    // Cut off before `kind: List` (kubectl writes it after the items): read whole.
    let full = yaml_pod_list(2000, "List", false);
    let cut = &full[..full.find("name: p1999\n").expect("last item")];
    let path = write(dir.path(), "cut.yaml", cut.as_bytes());
    let (_d, _, file) = ingest_batched(&path, SMALL_BATCH);
    let (_d, _, whole) = ingest_batched(&path, FileLimits::default().batch_bytes);
    assert_eq!((file.records, file.batches, errors(&file)), (1999, 0, errors(&whole)));
    assert!(errors(&file)[0].contains("items[1999]: the file ends inside the List"), "{:?}", errors(&file));
}

/// Break-it 41 G5 (kdrift issue 34): a YAML List whose top-level `items:`
/// key appears twice (two halves of 1,000 Pods) stored none of them, where
/// its JSON form stores both: the items of both load, the second's numbered
/// on, and one error names the second `items:` line with JSON's words.
/// Streamed or read whole, the same (the stream leaves it to the whole-file
/// reader).
#[test]
fn a_yaml_list_with_items_twice_loads_the_items_of_both() {
    let dir = tempfile::tempdir().expect("tmp");
    let mut text = yaml_pod_list(2000, "List", false);
    let at = text.find("    name: p1000\n").expect("item 1000");
    let start = text[..at].rfind("\n- ").expect("item start") + 1;
    text.insert_str(start, "items:\n");
    let key_line = text[..start].lines().count() + 1;
    let path = write(dir.path(), "pods.yaml", text.as_bytes());
    let (_d, store, file) = ingest_batched(&path, SMALL_BATCH);
    let (_d, whole_store, whole) = ingest_batched(&path, FileLimits::default().batch_bytes);
    assert_eq!((file.records, whole.records), (2000, 2000), "{:?}", errors(&whole));
    assert_eq!(
        errors(&whole),
        [format!(
            "{}:{key_line}: the key \"items\" appears twice in the List; expected one: a List has one `items` array; \
             the items of both are loaded, the second's numbered on from items[1000]",
            path.display()
        )]
    );
    assert_eq!(errors(&file), errors(&whole));
    let names = stored(&store, "Pod");
    assert_eq!(names.len(), 2000);
    assert!(names.iter().any(|n| n == "p0") && names.iter().any(|n| n == "p1999"));
    assert_eq!(observations(&store), observations(&whole_store));
    // The second half's items are numbered on, at their own `- ` lines.
    let item: (String, i64) = store
        .conn()
        .query_row("SELECT location, line FROM observations WHERE name = 'p1000'", [], |r| Ok((r.get(0)?, r.get(1)?)))
        .expect("p1000");
    assert_eq!(item.1 as usize, key_line + 1, "{item:?}");
}
