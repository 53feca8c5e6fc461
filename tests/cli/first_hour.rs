//! A new user's first hour (issue 38 item 5): `ingest file -` from a pipe,
//! `kdrift version`, one time format everywhere, `query --list`, examples
//! in `--help`, tables that fit the terminal, the per-directory summary.

use assert_cmd::Command;

fn kdrift() -> Command {
    let mut cmd = Command::cargo_bin("kdrift").expect("binary");
    cmd.env_remove("KDRIFT_DB").env_remove("COLUMNS");
    cmd
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).to_string()
}

/// gzip of `bytes`.
fn gzip(bytes: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(bytes).expect("gzip");
    enc.finish().expect("gzip")
}

const EVENT_LIST: &str = r#"{"kind":"EventList","items":[{"metadata":{"name":"p.1","namespace":"d"},"involvedObject":{"kind":"Pod","name":"p","namespace":"d"},"reason":"FailedScheduling","message":"0/2 nodes are available: 2 Too many pods.","count":3}]}"#;

#[test]
fn ingest_file_dash_reads_standard_input_in_every_format_and_names_it_stdin() {
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("k.duckdb");
    let ingest = |stdin: Vec<u8>, args: &[&str]| {
        let out = kdrift().arg("--db").arg(&db).args(["ingest", "file"]).args(args).write_stdin(stdin).output();
        let out = out.expect("runs");
        (out.status.code(), text(&out.stdout), text(&out.stderr))
    };
    // `kubectl get events -A -o json | kdrift ingest file -`
    let (code, stdout, stderr) = ingest(EVENT_LIST.as_bytes().to_vec(), &["-"]);
    assert_eq!((code, stderr.as_str()), (Some(0), ""), "{stdout}");
    let rows: Vec<&str> = stdout.lines().map(str::trim_end).collect();
    assert_eq!(
        rows[1], " <stdin>   json     1        0         1              0                0         0",
        "{stdout}"
    );
    // NDJSON with a bad line: the error names <stdin> and the line; the good line loads.
    let (code, stdout, stderr) =
        ingest(b"{\"kind\":\"Node\",\"metadata\":{\"name\":\"n1\"}}\n{\"broken\n".to_vec(), &["-"]);
    assert_eq!(code, Some(2));
    assert_eq!(
        stderr,
        "kdrift: <stdin>:2:9: invalid JSON: control character (\\u0000-\\u001F) found while parsing a string; expected \
         one JSON object per line (a Kubernetes object or a log record)\n"
    );
    assert!(stdout.contains(" <stdin>   ndjson   0        1         1 "), "{stdout}");
    // gzip-compressed YAML, recognised by its magic bytes, next to a named file.
    let named = dir.path().join("node.json");
    std::fs::write(&named, r#"{"kind":"Node","metadata":{"name":"n3"}}"#).expect("write");
    let yaml = gzip(b"apiVersion: v1\nkind: Node\nmetadata:\n  name: n2\n");
    let (code, stdout, stderr) = ingest(yaml, &[named.to_str().expect("utf-8"), "-"]);
    assert_eq!((code, stderr.as_str()), (Some(0), ""), "{stdout}");
    let row = stdout.lines().find(|l| l.contains("<stdin>")).map(|l| l.split_whitespace().collect::<Vec<_>>());
    assert_eq!(row, Some(vec!["<stdin>", "yaml", "0", "1", "1", "0", "0", "0"]), "{stdout}");
    // The runs are stored as read from <stdin>, never the spooled copy's path.
    let runs = kdrift().arg("--db").arg(&db).args(["query", "runs", "-o", "json"]).output().expect("runs");
    let runs: serde_json::Value = serde_json::from_slice(&runs.stdout).expect("json");
    let locations: Vec<&str> = runs.as_array().expect("rows").iter().filter_map(|r| r["location"].as_str()).collect();
    assert_eq!(locations, [format!("{} <stdin>", named.display()).as_str(), "<stdin>", "<stdin>"]);
    // Not a dump (a `kubectl get pods` table): refused, naming <stdin>; nothing loaded.
    let (code, _, stderr) = ingest(b"NAME   READY   STATUS\nweb-1  1/1     Running\n".to_vec(), &["-"]);
    assert_eq!(code, Some(2));
    assert!(stderr.starts_with("kdrift: error: <stdin>: neither JSON, NDJSON nor YAML;"), "{stderr}");
    // Standard input is read once.
    let (code, _, stderr) = ingest(Vec::new(), &["-", "-"]);
    assert_eq!(
        (code, stderr.as_str()),
        (Some(2), "kdrift: error: - (standard input) is given 2 times: it can be read once\n")
    );
}

#[test]
fn version_names_the_build_its_commit_duckdb_and_both_schema_versions() {
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("k.duckdb");
    let commit = std::process::Command::new("git")
        .args(["rev-parse", "HEAD"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| text(&o.stdout).trim().to_string());
    let commit_line = commit.clone().unwrap_or_else(|| "unknown (built outside a git checkout)".into());
    let duckdb = kdrift_store::duckdb_version().expect("duckdb");
    let version = |args: &[&str]| {
        let out = kdrift().arg("--db").arg(&db).arg("version").args(args).output().expect("runs");
        assert_eq!((out.status.code(), text(&out.stderr)), (Some(0), String::new()));
        text(&out.stdout)
    };
    assert_eq!(
        version(&[]),
        format!(
            "kdrift:         {}\ngit commit:     {commit_line}\nDuckDB:         {duckdb}\nstore schema:   17 (this build \
             reads and writes)\nstore:          {}: none yet (created at the first ingest)\n",
            env!("CARGO_PKG_VERSION"),
            db.display()
        )
    );
    assert!(!db.exists(), "version creates no store");
    drop(kdrift_store::Store::open(&db).expect("store"));
    let v: serde_json::Value = serde_json::from_str(&version(&["-o", "json"])).expect("json");
    assert_eq!(
        v,
        serde_json::json!({
            "kdrift": env!("CARGO_PKG_VERSION"),
            "git_commit": commit,
            "duckdb": duckdb,
            "schema_version": 17,
            "store": {"path": db.display().to_string(), "schema_version": 17},
        })
    );
}
