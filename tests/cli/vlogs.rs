//! `kdrift ingest victorialogs` as a user runs it against the fake
//! VictoriaLogs: credentials from the environment and files reach the
//! server but never stdout or stderr (even with -vv debug logs, and in
//! errors), a URL with credentials is refused without echoing them, a 400
//! body is shown, and a stopped pull resumes with --resume. Against
//! hostile servers (a proxy echoing the request's headers in a 200 that is
//! not JSON, in a 400 whose 4096-byte cut a credential straddles, URL-
//! encoded or JSON-escaped; redirects to another port), no form of a
//! credential reaches stdout, stderr or the store's `ingest_errors`, and
//! nothing reaches another origin.

use assert_cmd::Command;
use chrono::Duration;
use kdrift_ingest::Layout;
use kdrift_tests::fake_vlogs::scripted::{Reply, Request, Scripted};
use kdrift_tests::fake_vlogs::{FakeVlogs, Fault};
use kdrift_tests::leaks::{html_escaped, ingest_errors, json_escaped, unicode_escaped, url_encoded, HOSTILE};
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

/// Break-it 35 F8: `--max-batch-bytes` (as `ingest file`'s) bounds what a
/// window stages: with 1 byte, each row is moved into the store on its own
/// inside its window's transaction (`-vv` logs each move), each window
/// still commits once, and the same 30 rows are stored as with the
/// default (no move: each window's rows fit one batch).
#[test]
fn max_batch_bytes_moves_a_windows_rows_in_batches_and_each_window_commits_once() {
    let vl = loaded();
    let dir = tempfile::tempdir().expect("tmp");
    for (n, flags, moved) in [(1, vec![], 0), (2, vec!["--max-batch-bytes", "1"], 30)] {
        let db = dir.path().join(format!("b{n}.duckdb"));
        let out = kdrift(&db, &vl.url())
            .args(["-vv", "--user", "kdrift"])
            .args(&flags)
            .env("KDRIFT_VL_PASSWORD", PASSWORD)
            .assert()
            .success()
            .get_output()
            .clone();
        let text = output(&out);
        let count = |what: &str| text.lines().filter(|l| l.contains(what)).count();
        assert_eq!(count("batch moved"), moved, "{flags:?}: {text}");
        assert_eq!(count("batch committed"), 3, "{flags:?}: one commit per window");
        assert!(text.contains("(layout raw, detected) in 3 windows: 30 new"), "{text}");
    }
    let db = dir.path().join("b3.duckdb");
    let out = kdrift(&db, &vl.url()).args(["--max-batch-bytes", "lots"]).assert().code(2).get_output().clone();
    assert!(output(&out).contains("invalid value 'lots' for '--max-batch-bytes <SIZE>'"), "{}", output(&out));
    let mut help = Command::cargo_bin("kdrift").expect("binary");
    let help = output(&help.args(["ingest", "victorialogs", "--help"]).output().expect("help"));
    assert!(help.contains("--max-batch-bytes <SIZE>") && help.contains("[default: 64MiB]"), "{help}");
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

/// One `/hits` bucket of 5 rows at the start: one window to pull.
fn one_bucket() -> String {
    format!(r#"{{"hits":[{{"fields":{{}},"timestamps":["{START}"],"values":[5]}}],"hits_total":5}}"#)
}

/// A pull with the hostile credentials (Basic and an API key header),
/// `-vv` logs on, the layout forced (no `/field_names`), 2 attempts.
fn hostile_pull(db: &std::path::Path, url: &str) -> Command {
    let mut c = kdrift(db, url);
    c.args(["-vv", "--layout", "raw", "--attempts", "2", "--user", HOSTILE.user]).envs(HOSTILE.env());
    c
}

/// stdout, stderr and the store's `ingest_errors` rows of a pull, checked
/// for every form of the credentials; returns stderr.
fn assert_nothing_leaked(out: &std::process::Output, db: &std::path::Path) -> String {
    HOSTILE.assert_absent(&String::from_utf8_lossy(&out.stdout), "stdout");
    HOSTILE.assert_absent(&String::from_utf8_lossy(&out.stderr), "stderr");
    for message in ingest_errors(db) {
        HOSTILE.assert_absent(&message, "ingest_errors");
    }
    String::from_utf8_lossy(&out.stderr).to_string()
}

fn headers_line(r: &Request) -> String {
    // The credentials first: the old quote of 300 characters showed them whole.
    let mut line = format!(
        "proxy debug: authorization={}; x-api-key={};",
        r.header("authorization").unwrap_or("-"),
        r.header("x-api-key").unwrap_or("-")
    );
    for (name, value) in &r.headers {
        line.push_str(&format!(" {name}={value};"));
    }
    line
}

#[test]
fn a_200_that_is_not_json_echoing_the_headers_shows_and_stores_no_credential() {
    // The whole Basic credential was printed and stored (quoted up to 300 characters, unredacted).
    let proxy = Scripted::start(|r| match r.path.as_str() {
        "/select/logsql/hits" => Reply::new(200, one_bucket()),
        _ => Reply::new(200, format!("{}\n<html>more</html>\n", headers_line(r))),
    });
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("k.duckdb");
    let out = hostile_pull(&db, &proxy.url()).assert().code(2).get_output().clone();
    let stderr = assert_nothing_leaked(&out, &db);
    assert!(stderr.contains("line 1 of the response is not JSON"), "{stderr}");
    assert!(stderr.contains("proxy debug: authorization=***; x-api-key=***;"), "{stderr}");
    let errors = ingest_errors(&db);
    assert_eq!(errors.len(), 2, "one abandoned run per attempt: {errors:?}");
    assert!(errors.iter().all(|e| e.contains("authorization=***; x-api-key=***;")), "{errors:?}");
    // The credentials did reach the server (that is what it echoed).
    let query = proxy.seen().into_iter().find(|r| r.path == "/select/logsql/query").expect("a query");
    assert_eq!(query.header("authorization"), Some(format!("Basic {}", HOSTILE.basic()).as_str()));
    assert_eq!(query.header("x-api-key"), Some(HOSTILE.header_value));
}

#[test]
fn a_400_body_with_a_credential_straddling_its_cut_shows_no_part_of_it() {
    // Error bodies were cut to 4096 bytes before redaction: the part of a
    // credential before the cut survived (15 of 17 password characters).
    let basic = format!("Basic {}", HOSTILE.basic());
    let straddling: Vec<(&str, String, usize)> = vec![
        ("the password", HOSTILE.password.to_string(), 9),
        ("the base64 credential", basic.clone(), 36),
        ("the API key", HOSTILE.header_value.to_string(), 12),
    ];
    for (what, secret, before_cut) in straddling {
        let head = format!("bad request; you sent authorization={basic} x-api-key={} and ", HOSTILE.header_value);
        // Longer than kdrift reads of it: the read ends in the z's.
        // A blank before it: a credential inside a longer token masks the
        // whole token (here the dots).
        let body = format!("{head}{} {secret} {}", ".".repeat(4095 - before_cut - head.len()), "z".repeat(30_000));
        assert_eq!(&body[4096 - before_cut..4096], &secret[..before_cut]);
        let proxy = Scripted::start(move |r| match r.path.as_str() {
            "/select/logsql/hits" => Reply::new(200, one_bucket()),
            _ => Reply::new(400, body.clone()),
        });
        let dir = tempfile::tempdir().expect("tmp");
        let db = dir.path().join("k.duckdb");
        let out = hostile_pull(&db, &proxy.url()).assert().code(2).get_output().clone();
        let stderr = assert_nothing_leaked(&out, &db);
        assert!(
            stderr.contains("HTTP 400: bad request; you sent authorization=*** x-api-key=*** and ...."),
            "{what}: {stderr}"
        );
        assert!(stderr.contains(". *** zzz") || stderr.contains(". Basic *** zzz"), "{what}: {stderr}");
    }
}

#[test]
fn credentials_kdrift_does_not_hold_in_an_error_body_are_masked_on_stderr_as_in_the_store() {
    // Break-it 41 G2: a body echoing another client's headers was masked by
    // shape in the stored error, but printed raw in the final error line.
    let body = "bad request\nProxy-Authorization: Basic dXNlcjpzb21lb3RoZXJwYXNzd29yZDEyMw==\n\
                Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJvdGhlciJ9.c2lnbmF0dXJlc2lnbmF0dXJl\n\
                X-Api-Key: sk-proj-abcdefghijklmnopqrstuvwx\n";
    let proxy = Scripted::start(move |r| match r.path.as_str() {
        "/select/logsql/hits" => Reply::new(200, one_bucket()),
        _ => Reply::new(400, body.to_string()),
    });
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("k.duckdb");
    let out = hostile_pull(&db, &proxy.url()).assert().code(2).get_output().clone();
    let stderr = assert_nothing_leaked(&out, &db);
    let last = stderr.lines().rfind(|l| l.starts_with("kdrift: error: ")).expect("the error line");
    assert!(last.contains("HTTP 400: bad request"), "{last}");
    for shown in ["dXNlcjpzb21lb3RoZXJwYXNzd29yZDEyMw", "eyJzdWIiOiJvdGhlciJ9", "abcdefghijklmnopqrstuvwx"] {
        assert!(!stderr.contains(shown), "{shown} on stderr: {stderr}");
        assert!(ingest_errors(&db).iter().all(|e| !e.contains(shown)), "{shown} stored");
    }
    assert!(last.contains("Proxy-Authorization: Basic ***"), "{last}");
}

#[test]
fn an_environment_proxys_credentials_echoed_by_it_are_masked_for_victorialogs_and_prometheus() {
    // Break-it 41 G1: HTTP_PROXY's user:password was not held: a proxy's 407
    // page echoing the request printed it raw on stderr and stored it.
    let password = "ProxyPassw0rdSecretZZ9";
    // It echoes the header and what it decoded of it.
    let proxy = Scripted::start(move |r| {
        let seen = r.header("proxy-authorization").unwrap_or("-").to_string();
        Reply::new(407, format!("proxy auth failed for Proxy-Authorization={seen} (puser:{password}) x"))
    });
    let proxy_url = format!("http://puser:{password}@{}", proxy.url().trim_start_matches("http://"));
    for source in ["victorialogs", "prometheus"] {
        let dir = tempfile::tempdir().expect("tmp");
        let db = dir.path().join("k.duckdb");
        let mut c = Command::cargo_bin("kdrift").expect("binary");
        c.arg("--db").arg(&db).args(["ingest", source, "--url", "http://192.0.2.1:9428", "--attempts", "1"]);
        c.args(["--start", START, "--end", END]);
        if source == "prometheus" {
            c.args(["--step", "60s"]);
        } else {
            c.args(["--layout", "raw"]);
        }
        for name in ["NO_PROXY", "no_proxy", "HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy"] {
            c.env_remove(name);
        }
        let out = c.env("HTTP_PROXY", &proxy_url).assert().code(2).get_output().clone();
        let text = output(&out);
        assert!(text.contains("407"), "{source}: the proxy was asked: {text}");
        assert!(text.contains("proxy auth failed for Proxy-Authorization="), "{source}: {text}");
        assert!(!text.contains(password), "{source}: {text}");
        let basic = kdrift_tests::fake_vlogs::handlers::basic_header("puser", password);
        assert!(!text.contains(&basic[6..26]), "{source}: {text}");
        assert!(text.contains("Proxy-Authorization=Basic ***") || text.contains("Proxy-Authorization=***"), "{text}");
        if db.exists() {
            assert!(ingest_errors(&db).iter().all(|e| !e.contains(password)), "{source}: stored");
        }
    }
}

#[test]
fn an_environment_proxy_whose_port_is_no_port_is_refused_before_any_request() {
    // Break-it 43 N2: `HTTP_PROXY=http://user:pw@host:99999` (or 65536, -1,
    // 3128abc) was read as no port at all: every request went to port 80 of
    // that host, with Proxy-Authorization. Refused, naming the variable, the
    // password masked; nothing is sent, not even to --url.
    let password = "ProxyPassw0rdSecretN2x";
    let server = Scripted::start(|_| Reply::new(200, ""));
    for (source, name, port) in [
        ("victorialogs", "HTTP_PROXY", "99999"),
        ("prometheus", "HTTP_PROXY", "65536"),
        ("victorialogs", "ALL_PROXY", "-1"),
        ("prometheus", "https_proxy", "3128abc"),
    ] {
        let dir = tempfile::tempdir().expect("tmp");
        let db = dir.path().join("k.duckdb");
        let mut c = Command::cargo_bin("kdrift").expect("binary");
        c.arg("--db").arg(&db).args(["ingest", source, "--url", &server.url(), "--attempts", "1"]);
        c.args(["--start", START, "--end", END]);
        if source == "prometheus" {
            c.args(["--step", "60s"]);
        } else {
            c.args(["--layout", "raw"]);
        }
        for other in ["NO_PROXY", "no_proxy", "HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy", "ALL_PROXY"] {
            c.env_remove(other);
        }
        c.env_remove("all_proxy");
        let out =
            c.env(name, format!("http://puser:{password}@127.0.0.1:{port}")).assert().failure().get_output().clone();
        let text = output(&out);
        assert!(
            text.contains(&format!(
                "the proxy {name}=http://puser:***@127.0.0.1:{port}: its port \"{port}\" is not a number from 1 to \
                 65535 (sent as it is, the request would go to port 80 of that host); correct or unset it"
            )),
            "{source} {name}: {text}"
        );
        assert!(!text.contains(password), "{source}: {text}");
    }
    assert_eq!(server.seen().len(), 0, "a request was sent");
}

#[test]
fn url_encoded_json_escaped_and_html_echoes_of_the_credentials_are_masked() {
    let basic = format!("Basic {}", HOSTILE.basic());
    let body = format!(
        "{{\"error\":\"unauthorized\",\"authorization\":\"{}\",\"password\":\"{}\",\"pw\":\"{}\",\
         \"echo\":\"{}\",\"key\":\"{}\",\"html\":\"{}\",\"key_json\":\"{}\"}}",
        json_escaped(&basic),
        json_escaped(HOSTILE.password),
        unicode_escaped(HOSTILE.password),
        url_encoded(&basic),
        url_encoded(HOSTILE.header_value),
        html_escaped(HOSTILE.password),
        json_escaped(HOSTILE.header_value),
    );
    let proxy = Scripted::start(move |_| Reply::new(401, body.clone()));
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("k.duckdb");
    let out = hostile_pull(&db, &proxy.url()).assert().code(2).get_output().clone();
    let stderr = assert_nothing_leaked(&out, &db);
    assert!(
        stderr.contains(
            "HTTP 401: {\"error\":\"unauthorized\",\"authorization\":\"***\",\"password\":\"***\",\"pw\":\"***\",\
             \"echo\":\"***\",\"key\":\"***\",\"html\":\"***\",\"key_json\":\"***\"}"
        ),
        "{stderr}"
    );
}

#[test]
fn redirects_are_refused_unless_asked_and_never_followed_to_another_origin() {
    // Redirects were followed: reqwest dropped Authorization on the other
    // origin, but the extra headers (API keys) went there, over http too.
    let elsewhere = Scripted::start(|_| Reply::new(200, one_bucket()));
    let to = elsewhere.url();
    let proxy = Scripted::start(move |r| Reply::redirect(307, format!("{to}{}?k=x", r.path)));
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("k.duckdb");
    let out = hostile_pull(&db, &proxy.url()).assert().code(2).get_output().clone();
    let stderr = assert_nothing_leaked(&out, &db);
    let origin = elsewhere.url();
    assert!(
        stderr.contains(&format!(
            "HTTP 307: the server redirects to {origin}; kdrift follows no redirect unless --follow-redirects is given"
        )),
        "{stderr}"
    );
    let out = hostile_pull(&db, &proxy.url()).arg("--follow-redirects").assert().code(2).get_output().clone();
    let stderr = assert_nothing_leaked(&out, &db);
    assert!(
        stderr.contains(&format!("HTTP 307: the server redirects to another origin, {origin}; kdrift follows a redirect only to the same origin")),
        "{stderr}"
    );
    let seen = elsewhere.seen();
    assert!(seen.iter().all(|r| r.header("authorization").is_none() && r.header("x-api-key").is_none()), "{seen:?}");
    assert!(seen.is_empty(), "nothing is asked of another origin: {seen:?}");
    assert_eq!(proxy.seen().len(), 2, "one refused redirect per run");

    // The same origin (a vmauth prefix moved): followed with the flag, the credentials kept.
    let moved = Scripted::start(|r| match r.path.strip_prefix("/vl") {
        Some("/select/logsql/hits") => Reply::new(200, one_bucket()),
        Some(_) => Reply::new(200, ""),
        None => Reply::redirect(if r.path.ends_with("/hits") { 307 } else { 308 }, format!("/vl{}", r.path)),
    });
    let out = hostile_pull(&db, &moved.url()).assert().code(2).get_output().clone();
    let stderr = assert_nothing_leaked(&out, &db);
    assert!(stderr.contains(&format!("the server redirects to {}; ", moved.url())), "{stderr}");
    assert!(moved.seen().iter().all(|r| !r.path.starts_with("/vl")), "not followed without the flag");
    let out = hostile_pull(&db, &moved.url()).arg("--follow-redirects").assert().success().get_output().clone();
    assert_nothing_leaked(&out, &db);
    let followed: Vec<Request> = moved.seen().into_iter().filter(|r| r.path.starts_with("/vl/")).collect();
    assert_eq!(
        followed.iter().map(|r| r.path.as_str()).collect::<Vec<_>>(),
        ["/vl/select/logsql/hits", "/vl/select/logsql/query"]
    );
    let basic = format!("Basic {}", HOSTILE.basic());
    for r in &followed {
        assert_eq!((r.method.as_str(), r.header("authorization")), ("POST", Some(basic.as_str())), "{r:?}");
        assert_eq!(r.header("x-api-key"), Some(HOSTILE.header_value), "{r:?}");
        assert!(r.body.contains("query="), "the form goes along: {r:?}");
    }
}

/// Against the real VictoriaLogs: the README's field filter on rows of the
/// msg-json layout exits 2 naming the filter (not the range) when the
/// layout is detected, and exits 0 with a warning on stderr when it is
/// forced; the suggested `_msg:` filter pulls the 30 rows.
#[test]
fn the_readme_field_filter_on_msg_json_rows_is_named_with_the_filter_that_works() {
    let Some(vl) = kdrift_tests::real_vlogs::RealVlogs::start_or_skip("the_readme_field_filter_on_msg_json_rows")
    else {
        return;
    };
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
    assert_eq!(ship(&vl.url(), Layout::MsgJson, &events, None), 30);
    vl.flush();
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("k.duckdb");
    let filter = "reason:in(FailedScheduling, Scheduled)";
    let advice = "for msg-json, filter with words or phrases of _msg (its fields are inside _msg, so a field filter \
                  such as reason:… matches nothing), e.g. --filter '_msg:FailedScheduling or _msg:Scheduled'";
    let range = format!("[{START}, {END})");

    let out = kdrift(&db, &vl.url()).args(["--filter", filter]).assert().code(2).get_output().clone();
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!(
            "kdrift: error: {}/select/logsql/field_names: --filter '{filter}' matched no row in {range}, so no layout \
             can be detected (without it the rows there are of the msg-json layout); {advice}\n",
            vl.url()
        )
    );

    let out = kdrift(&db, &vl.url()).args(["--filter", filter, "--layout", "msg-json"]).assert().success();
    let out = out.get_output();
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!(
            "kdrift: warning: --filter '{filter}' matched no row in {range}, while without it the range holds 30 \
             row(s) of the msg-json layout; {advice}\n"
        )
    );

    let out = kdrift(&db, &vl.url()).args(["--filter", "_msg:FailedScheduling or _msg:Scheduled"]).assert().success();
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    assert!(stdout.contains("30 rows from"), "{stdout}");
}

/// Break-it 41 G10: `Content-Length: 5` in `--headers-file` cut every
/// request body to `query`, `Host: evil.example` was sent as given. A
/// framing or hop-by-hop header is refused before any request, naming the
/// file, its line and the header, for VictoriaLogs and Prometheus alike,
/// and from `KDRIFT_VL_HEADERS`.
#[test]
fn a_framing_header_in_the_headers_file_is_refused_before_any_request_naming_its_line() {
    let server = Scripted::start(|_| Reply::new(200, one_bucket()));
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("k.duckdb");
    let headers = dir.path().join("headers");
    std::fs::write(&headers, "X-Api-Key: HdrSecretHost123456\nContent-Length: 5\nHost: evil.example\n").expect("write");
    let expected = format!(
        "kdrift: error: credentials: the headers file {} line 2: the header Content-Length frames or routes the \
         request (a hop-by-hop or framing header, RFC 9110 §7.6.1 and RFC 9112 §6): kdrift's HTTP client sets it \
         itself, and a given one would cut the request's body or send it elsewhere; remove the line\n",
        headers.display()
    );
    let out =
        kdrift(&db, &server.url()).args(["--attempts", "1", "--headers-file"]).arg(&headers).output().expect("run");
    assert_eq!((out.status.code(), String::from_utf8_lossy(&out.stderr).to_string()), (Some(2), expected.clone()));
    let mut prom = Command::cargo_bin("kdrift").expect("binary");
    let out = prom
        .arg("--db")
        .arg(&db)
        .args(["ingest", "prometheus", "--url", &server.url(), "--start", START, "--end", END, "--headers-file"])
        .arg(&headers)
        .output()
        .expect("run");
    assert_eq!((out.status.code(), String::from_utf8_lossy(&out.stderr).to_string()), (Some(2), expected));
    let out =
        kdrift(&db, &server.url()).env("KDRIFT_VL_HEADERS", "X-Scope: a\nhost: evil.example").output().expect("run");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with("kdrift: error: credentials: the variable KDRIFT_VL_HEADERS line 2: the header Host frames"),
        "{stderr}"
    );
    assert!(server.seen().is_empty(), "nothing is asked: {:?}", server.seen());
    assert!(!db.exists(), "no store is created");
}

/// Break-it 41 G13: `--password-file` sent everything but the final line
/// break: a UTF-8 BOM, spaces around the password, a second line. The
/// file is read as kubectl reads a tokenFile: the BOM, the line break and
/// the spaces around (said on stderr, never the value) are not sent; a
/// second line of text is refused before any request, naming the file and
/// the line.
#[test]
fn a_password_file_is_its_first_line_without_bom_or_spaces_and_a_second_line_is_refused() {
    let vl = loaded();
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("k.duckdb");
    let pw = dir.path().join("pw");
    std::fs::write(&pw, format!("\u{feff}  {PASSWORD} \r\n\r\n")).expect("write");
    let out = kdrift(&db, &vl.url()).args(["--user", "kdrift", "--password-file"]).arg(&pw).output().expect("run");
    let text = output(&out);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("in 3 windows: 30 new"), "{text}");
    assert!(
        text.contains(&format!(
            "the password file {} line 1 has spaces or tabs before or after the value; kdrift does not send them",
            pw.display()
        )),
        "{text}"
    );
    assert!(!text.contains(PASSWORD), "{text}");
    let asked = vl.seen().len();
    std::fs::write(&pw, format!("{PASSWORD}\nsecondLineSecret999888\n")).expect("write");
    let out = kdrift(&db, &vl.url()).args(["--user", "kdrift", "--password-file"]).arg(&pw).output().expect("run");
    assert_eq!(
        (out.status.code(), String::from_utf8_lossy(&out.stderr).to_string()),
        (
            Some(2),
            format!(
                "kdrift: error: credentials: the password file {} line 2: a second line of text; expected the \
                 password alone on the first line (a line break after it is fine; the lines are not shown: they may \
                 be credentials)\n",
                pw.display()
            )
        )
    );
    assert_eq!(vl.seen().len(), asked, "nothing asked");
}
