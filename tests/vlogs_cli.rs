//! `kdrift ingest victorialogs` as a user runs it against the fake
//! VictoriaLogs: credentials from the environment and files reach the
//! server but never stdout or stderr (even with -vv debug logs, and in
//! errors), a URL with credentials is refused without echoing them, a 400
//! body is shown, and a stopped pull resumes with --resume.

use assert_cmd::Command;
use chrono::Duration;
use kdrift_ingest::victorialogs::Layout;
use kdrift_tests::fake_vlogs::{FakeVlogs, Fault};
use kdrift_tests::shippers::{ship, Seen, Sighting};
use kdrift_tests::vl_pull::utc;
use serde_json::json;

const PASSWORD: &str = "pa55-W0rd-xyzzy-7731";
const START: &str = "2026-11-27T00:00:00Z";
const END: &str = "2026-11-27T06:00:00Z";

fn loaded() -> FakeVlogs {
    let events: Vec<Sighting> = (0..30)
        .map(|i| {
            let t = utc(START) + Duration::minutes(12 * i);
            let ts = t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
            Sighting {
                observed_at: t,
                seen: Seen::Added,
                object: json!({"metadata": {"name": format!("db-{i}.1"), "namespace": "data"},
                               "involvedObject": {"kind": "Pod", "namespace": "data", "name": format!("db-{i}")},
                               "reason": "FailedScheduling", "type": "Warning", "count": 1,
                               "message": "0/3 nodes are available: 3 Insufficient memory.",
                               "firstTimestamp": ts, "lastTimestamp": ts}),
            }
        })
        .collect();
    let vl = FakeVlogs::start();
    assert_eq!(ship(&vl.url(), Layout::Raw, &events, None), 30);
    vl.require_basic("kdrift", PASSWORD);
    vl
}

fn kdrift(db: &std::path::Path, url: &str) -> Command {
    let mut c = Command::cargo_bin("kdrift").expect("binary");
    c.arg("--db").arg(db).args(["ingest", "victorialogs", "--url", url, "--start", START, "--end", END]);
    c.args(["--window-rows", "10", "--retry-delay", "10ms"]).env_remove("KDRIFT_VL_PASSWORD");
    c
}

fn output(o: &std::process::Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

#[test]
fn credentials_reach_the_server_and_never_the_output() {
    let vl = loaded();
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("k.duckdb");
    let out = kdrift(&db, &vl.url())
        .args(["-vv", "--user", "kdrift"])
        .env("KDRIFT_VL_PASSWORD", PASSWORD)
        .assert()
        .success()
        .get_output()
        .clone();
    let text = output(&out);
    assert!(text.contains("30 rows from http://127.0.0.1:"), "{text}");
    assert!(text.contains("(layout raw, detected) in 3 windows: 30 new"), "{text}");
    assert!(!text.contains(PASSWORD), "the password leaked:\n{text}");
    let selects: Vec<_> = vl.seen().into_iter().filter(|s| s.path.starts_with("/select/")).collect();
    assert!(selects.len() >= 5 && selects.iter().all(|s| s.authorized && s.status == 200), "{selects:?}");

    // From a file, JSON output; a second run adds nothing.
    let pw = dir.path().join("pw");
    std::fs::write(&pw, format!("{PASSWORD}\n")).expect("write");
    let out = kdrift(&db, &vl.url())
        .args(["-o", "json", "--user", "kdrift", "--password-file"])
        .arg(&pw)
        .assert()
        .success()
        .get_output()
        .clone();
    assert!(!output(&out).contains(PASSWORD));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON report");
    assert_eq!(v["layout"], "raw");
    assert_eq!(v["windows"].as_array().map(Vec::len), Some(3));
    assert!(v["windows"].as_array().into_iter().flatten().all(|w| w["added"] == 0 && w["duplicates"] == 10));

    // A wrong password: 401, exit 2, neither password printed.
    let out = kdrift(&db, &vl.url())
        .args(["-vv", "--user", "kdrift"])
        .env("KDRIFT_VL_PASSWORD", "wrong-secret-123")
        .assert()
        .code(2)
        .get_output()
        .clone();
    let text = output(&out);
    assert!(text.contains("HTTP 401: Unauthorized"), "{text}");
    assert!(!text.contains("wrong-secret-123") && !text.contains(PASSWORD), "{text}");
}

#[test]
fn a_url_with_credentials_is_refused_without_echoing_them() {
    let vl = loaded();
    let dir = tempfile::tempdir().expect("tmp");
    let url = vl.url().replace("http://", &format!("http://kdrift:{PASSWORD}@"));
    let out = kdrift(&dir.path().join("k.duckdb"), &url).assert().code(2).get_output().clone();
    let text = output(&out);
    assert!(text.contains("credentials in the URL"), "{text}");
    assert!(!text.contains(PASSWORD), "{text}");
    assert!(vl.seen().iter().all(|s| !s.path.starts_with("/select/")), "nothing was sent");
}

#[test]
fn a_url_without_its_scheme_is_refused_with_the_url_it_meant() {
    // `127.0.0.1:9428` said "not a URL (relative URL without a base)".
    let dir = tempfile::tempdir().expect("tmp");
    for (url, problem) in [
        ("127.0.0.1:9428", "not a URL (relative URL without a base)"),
        ("localhost:9428", "scheme \"localhost\" is not HTTP"),
    ] {
        let out = kdrift(&dir.path().join("k.duckdb"), url).assert().code(2).get_output().clone();
        let text = output(&out);
        assert!(text.contains(&format!("{problem}; expected http:// or https://, e.g. http://{url}")), "{url}: {text}");
    }
    // A scheme-less URL with credentials is not echoed back.
    let url = format!("kdrift:{PASSWORD}@127.0.0.1:9428");
    let out = kdrift(&dir.path().join("k.duckdb"), &url).assert().code(2).get_output().clone();
    assert!(!output(&out).contains(PASSWORD), "{}", output(&out));
}

#[test]
fn a_400_body_is_shown_and_a_stopped_pull_resumes() {
    let vl = loaded();
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("k.duckdb");
    let run = |extra: &[&str]| {
        kdrift(&db, &vl.url()).args(["--user", "kdrift"]).args(extra).env("KDRIFT_VL_PASSWORD", PASSWORD).assert()
    };
    vl.inject(Fault::BadRequest, Some(1), None);
    let out = run(&[]).code(2).get_output().clone();
    let text = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(text.contains("HTTP 400: cannot parse query [_time:[2026-11-27T00:00:00Z"), "{text}");

    vl.inject(Fault::Truncate { lines: 2 }, None, Some("_time:[2026-11-27T04:00:00Z"));
    let out = run(&[]).code(2).get_output().clone();
    let text = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(text.contains("window [2026-11-27T04:00:00Z, 2026-11-27T06:00:00Z)"), "{text}");
    assert!(text.contains("attempt 1 failed") && text.contains("retrying in 10ms"), "{text}");
    assert!(text.contains("the 2 window(s) committed before the failure stay"), "{text}");

    vl.clear_faults();
    let out = run(&["--resume"]).success().get_output().clone();
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(stdout.contains("resumed after the last committed window, at 2026-11-27T04:00:00Z"), "{stdout}");
    assert!(stdout.contains("10 rows from"), "{stdout}");
}

#[test]
fn a_start_after_the_end_is_refused_before_any_store_exists_and_a_pull_that_stored_nothing_prints_no_summary() {
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("k.duckdb");
    let mut c = Command::cargo_bin("kdrift").expect("binary");
    c.arg("--db").arg(&db).args(["ingest", "victorialogs", "--url", "http://127.0.0.1:9"]);
    let out = c.args(["--start", END, "--end", START]).assert().code(2).get_output().clone();
    let text = output(&out);
    assert!(text.contains(&format!("--start ({END}) must be before --end ({START})")), "{text}");
    assert!(out.stdout.is_empty(), "no summary: {text}");
    assert!(!db.exists(), "no store created");
    // Nothing listens on port 9: the pull fails before its first window.
    let out = kdrift(&db, "http://127.0.0.1:9").args(["--attempts", "1"]).assert().code(2).get_output().clone();
    assert!(out.stdout.is_empty(), "no summary of a pull that stored nothing: {}", output(&out));
    assert!(!String::from_utf8_lossy(&out.stderr).is_empty());
}
