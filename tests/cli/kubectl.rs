//! kubectl habits (kdrift issue 38 item 4): one duration grammar on every
//! duration flag, relative times beside RFC 3339 on every TIME flag,
//! `kdrift completion`, `kubectl kdrift`, `-o yaml|wide`, `--no-headers`
//! and `-n`/`-A`/`-l` as kubectl has them.

use assert_cmd::Command;

fn kdrift(db: &std::path::Path) -> Command {
    let mut c = Command::cargo_bin("kdrift").expect("binary");
    c.arg("--db").arg(db).env_remove("KDRIFT_DB").env_remove("KDRIFT_VL_PASSWORD").env_remove("KDRIFT_PROM_PASSWORD");
    c
}

/// The first line of stderr and of stdout of a run.
fn first_lines(c: &mut Command) -> (String, String) {
    let out = c.output().expect("runs");
    let first = |b: &[u8]| String::from_utf8_lossy(b).lines().next().unwrap_or_default().to_string();
    (first(&out.stderr), first(&out.stdout))
}

#[test]
fn every_duration_flag_reads_one_grammar_and_names_its_own_range() {
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("none.duckdb");
    let vl = ["ingest", "victorialogs", "--url", "http://127.0.0.1:1", "--attempts", "1"];
    let refused = |flag: &str, value: &str, name: &str, expected: &str| {
        format!("error: invalid value '{value}' for '{flag} <{name}>': expected {expected}, got {value:?}")
    };
    // 1m30s is taken by --retry-delay as by --ready-timeout (issue 38: it was refused).
    let accepted: Vec<(Vec<&str>, &str)> = vec![
        (
            [&vl[..], &["--retry-delay", "1m30s", "--request-timeout", "1m30s"]].concat(),
            "kdrift: error: request to http://127.0.0.1:1/select/logsql/field_names failed",
        ),
        (
            vec!["rebalance", "apply", "none.json", "--ready-timeout", "1m30s"],
            "kdrift: error: reading none.json: No such file or directory (os error 2)",
        ),
        (
            vec!["ingest", "api", "--request-timeout", "1m30s", "--kubeconfig", "/nonexistent"],
            "kdrift: error: kubeconfig /nonexistent: failed to read it: No such file or directory (os error 2)",
        ),
        (
            vec!["ingest", "api", "--request-timeout", "90", "--kubeconfig", "/nonexistent"],
            "kdrift: error: kubeconfig /nonexistent: failed to read it: No such file or directory (os error 2)",
        ),
        (vec!["skew", "--usage", "--window", "1d12h"], "kdrift: error: opening store"),
        (vec!["hotspots", "--step", "1h30m"], "kdrift: error: opening store"),
    ];
    for (i, (args, start)) in accepted.into_iter().enumerate() {
        let fresh = dir.path().join(format!("{i}.duckdb"));
        let (stderr, _) = first_lines(kdrift(&fresh).current_dir(dir.path()).args(&args));
        assert!(stderr.starts_with(start), "{args:?}: {stderr}");
    }
    let (_, stdout) = first_lines(kdrift(&db).args(["check", "--max-age", "1d12h"]));
    assert_eq!(stdout, format!("NEVER: no successful rebalance (store {}: no store; max age 1d12h)", db.display()));
    let whole = ", in whole seconds";
    let rows: Vec<(Vec<&str>, String)> = vec![
        ([&vl[..], &["--retry-delay", "1m30x"]].concat(),
         "error: invalid value '1m30x' for '--retry-delay <DURATION>': expected a duration such as 1h30m, 90s, 1d or \
          500ms (units d, h, m, s, ms), got \"1m30x\"".to_string()),
        ([&vl[..], &["--retry-delay", "2h"]].concat(), refused("--retry-delay", "2h", "DURATION", "a duration from 0s to 1h")),
        ([&vl[..], &["--request-timeout", "500ms"]].concat(),
         refused("--request-timeout", "500ms", "DURATION", "a duration from 1s to 1d")),
        (vec!["rebalance", "apply", "p.json", "--ready-timeout", "1500ms"],
         refused("--ready-timeout", "1500ms", "DURATION", &format!("0 or a duration of at least 1s{whole}"))),
        (vec!["sessions", "annotate", "--probe", "app=x=http://127.0.0.1:1/", "--every", "500ms"],
         refused("--every", "500ms", "DURATION", &format!("a duration of at least 1s{whole}"))),
        (vec!["record", "--metrics-interval", "500ms"],
         refused("--metrics-interval", "500ms", "DURATION", &format!("a duration of at least 1s{whole}"))),
        (vec!["rebalance", "plan", "--usage-window", "0s"],
         refused("--usage-window", "0s", "SPAN", &format!("a duration of at least 1s{whole}"))),
        (vec!["check", "--max-age", "0"], refused("--max-age", "0", "DURATION", &format!("a duration of at least 1s{whole}"))),
        (vec!["record", "--batch-seconds", "2h"],
         refused("--batch-seconds", "2h", "DURATION", &format!("a duration from 1s to 1h{whole}"))),
        (vec!["ingest", "api", "--request-timeout", "0"],
         refused("--request-timeout", "0", "DURATION", &format!("a duration from 1s to 1h{whole} (a bare number is seconds)"))),
        (vec!["skew", "--usage", "--window", "1w"],
         "error: invalid value '1w' for '--window <DURATION>': expected a duration such as 1h30m, 90s, 1d or 500ms \
          (units d, h, m, s, ms), got \"1w\"".to_string()),
    ];
    for (args, expected) in rows {
        let out = kdrift(&db).args(&args).output().expect("runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(stderr.lines().next().unwrap_or_default(), expected, "{args:?}");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
    }
}

#[test]
fn time_flags_take_a_duration_before_now_beside_rfc_3339() {
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("k.duckdb");
    // The first window of a pull names its start: --start 2h is two hours before now.
    let before = chrono::Utc::now();
    let prom =
        ["ingest", "prometheus", "--url", "http://127.0.0.1:1", "--attempts", "1", "--start", "2h", "--end", "1h"];
    let (stderr, _) = first_lines(kdrift(&db).args(prom));
    let after = chrono::Utc::now();
    let start = stderr
        .strip_prefix("kdrift: error: window [")
        .and_then(|rest| rest.split(',').next())
        .and_then(|t| chrono::DateTime::parse_from_rfc3339(t).ok())
        .unwrap_or_else(|| panic!("a window start in {stderr}"));
    let two_hours = chrono::Duration::hours(2);
    assert!(start >= before - two_hours && start <= after - two_hours, "{start} is not 2h before {before}..{after}");
    // RFC 3339 and microseconds still read; a word that is neither names every form.
    for at in ["2026-11-28T07:00:00+02:00", "1795838400000000", "30m", "now"] {
        let out = kdrift(&db).args(["timeline", "drains", "--since", at, "--until", "now"]).output().expect("runs");
        assert_eq!(out.status.code(), Some(1), "{at}: {}", String::from_utf8_lossy(&out.stderr));
    }
    let (stderr, _) = first_lines(kdrift(&db).args(["why-pending", "--all", "--since", "yesterday"]));
    assert_eq!(
        stderr,
        "error: invalid value 'yesterday' for '--since <TIME>': expected an RFC 3339 time such as 2026-11-13T00:00:00Z or \
         2026-11-13T02:00:00+02:00 (date, T, time, then Z or a UTC offset), or UTC microseconds since the epoch such as \
         1794528000000000, or a duration before now such as 2h, 30m or 1d12h, or now, got \"yesterday\""
    );
}
