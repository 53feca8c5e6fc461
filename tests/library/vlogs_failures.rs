//! Failures of a VictoriaLogs pull against the fake: a 400 shows the
//! server's body and is not retried; a 503 is retried and the window
//! committed; a body cut off mid-stream fails the window, which is retried
//! and never half-committed; a persistent abort names the window while the
//! earlier windows stay; `--resume` continues after the last committed
//! window; tenant headers and Bearer auth reach the server; what a hostile
//! server says is quoted redacted (a Basic password sent as an extra header
//! too, once the server decoded it), and its redirects are not followed.

use chrono::{DateTime, Duration, Utc};
use kdrift_ingest::{Auth, Failure, Layout, PullOptions, Tenant, VlError};
use kdrift_tests::fake_vlogs::{FakeVlogs, Fault};
use kdrift_tests::shippers::{ship, Seen, Sighting};
use kdrift_tests::temp_store;
use kdrift_tests::vl_pull::{pull_blocking, store_events, test_options, utc};
use serde_json::json;

const START: &str = "2026-11-27T00:00:00Z";
const END: &str = "2026-11-27T06:00:00Z";

/// 60 events, one every 6 minutes from 00:00 (10 per hour).
fn events() -> Vec<Sighting> {
    (0..60)
        .map(|i| {
            let t = utc(START) + Duration::minutes(6 * i);
            let ts = t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
            Sighting {
                observed_at: t,
                seen: Seen::Added,
                object: json!({
                    "apiVersion": "v1", "kind": "Event",
                    "metadata": {"name": format!("web-{i}.18{i:04x}"), "namespace": "shop", "uid": format!("uid-{i}"),
                                 "creationTimestamp": ts},
                    "involvedObject": {"kind": "Pod", "namespace": "shop", "name": format!("web-{i}")},
                    "reason": "BackOff", "message": format!("Back-off restarting failed container it's #{i}"),
                    "type": "Warning", "count": i % 3 + 1, "source": {"component": "kubelet", "host": "node-1"},
                    "firstTimestamp": ts, "lastTimestamp": ts, "eventTime": null
                }),
            }
        })
        .collect()
}

fn loaded() -> FakeVlogs {
    let vl = FakeVlogs::start();
    ship(&vl.url(), Layout::Raw, &events(), None);
    vl
}

/// 10 rows per window: the hour windows 00:00, 01:00, … 05:00.
fn options() -> kdrift_ingest::PullOptions {
    test_options(utc(START), utc(END), 10)
}

fn hour(h: u32) -> String {
    format!("_time:[2026-11-27T{h:02}:00:00Z")
}

fn last_times(store: &kdrift_store::Store) -> Vec<DateTime<Utc>> {
    store_events(store).values().map(|e| utc(e["last_time"].as_str().unwrap_or_default())).collect()
}

#[test]
fn a_400_shows_the_servers_body_and_is_not_retried() {
    let vl = loaded();
    vl.inject(Fault::BadRequest, None, None);
    let (_d, store) = temp_store();
    let err = pull_blocking(&store, &vl.url(), Auth::default(), &options()).expect_err("400");
    let text = format!("{:#}", anyhow_like(&err));
    assert!(
        text.contains("HTTP 400: cannot parse query [_time:[2026-11-27T00:00:00Z, 2026-11-27T01:00:00Z)"),
        "{text}"
    );
    assert!(text.contains("window [2026-11-27T00:00:00Z, 2026-11-27T01:00:00Z)"), "{text}");
    assert!(matches!(err.error, VlError::Window { attempts: 1, failure: Failure::Status { status: 400, .. }, .. }));
    assert!(err.committed.windows.is_empty());
    assert_eq!(vl.seen().iter().filter(|s| s.path == "/select/logsql/query").count(), 1, "no retry");
}

/// The error and its sources, as `anyhow`'s `{:#}` prints them.
fn anyhow_like(e: &dyn std::error::Error) -> String {
    let mut out = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        out.push_str(": ");
        out.push_str(&s.to_string());
        source = s.source();
    }
    out
}

#[test]
fn a_503_is_retried_and_the_window_committed() {
    let vl = loaded();
    vl.inject(Fault::Unavailable, Some(2), Some(&hour(0)));
    vl.inject_on("/select/logsql/field_names", Fault::Unavailable, Some(1), None);
    vl.inject_on("/select/logsql/hits", Fault::Unavailable, Some(2), None);
    let (_d, store) = temp_store();
    let r = pull_blocking(&store, &vl.url(), Auth::default(), &options()).expect("pull");
    assert_eq!(r.windows.len(), 6);
    assert_eq!(r.windows[0].attempts, 3, "two 503s, then the answer");
    assert!(r.windows[1..].iter().all(|w| w.attempts == 1));
    assert_eq!((r.rows(), r.added()), (60, 60));
    assert_eq!(store_events(&store).len(), 60);
    let answers = |path: &str| vl.seen().iter().filter(|s| s.path == path).count();
    assert_eq!((answers("/select/logsql/field_names"), answers("/select/logsql/hits")), (2, 3), "retried too");
}

#[test]
fn a_body_cut_mid_stream_fails_the_window_which_is_retried_and_never_half_committed() {
    for fault in [Fault::Truncate { lines: 4 }, Fault::ErrorText { lines: 4 }] {
        let vl = loaded();
        vl.inject(fault.clone(), Some(1), Some(&hour(2)));
        let (_d, store) = temp_store();
        let r = pull_blocking(&store, &vl.url(), Auth::default(), &options()).expect("pull");
        let w = &r.windows[2];
        assert_eq!((w.attempts, w.rows, w.added), (2, 10, 10), "{fault:?}: the retry read the whole window");
        assert_eq!(store_events(&store).len(), 60, "{fault:?}: every event once, none from the aborted attempt twice");
        assert_eq!(r.added(), 60);
    }
}

#[test]
fn a_persistent_abort_names_the_window_and_earlier_windows_stay_then_resume_continues() {
    let vl = loaded();
    vl.inject(Fault::ErrorText { lines: 3 }, None, Some(&hour(3)));
    let (_d, store) = temp_store();
    let err = pull_blocking(&store, &vl.url(), Auth::default(), &options()).expect_err("persistent abort");
    let text = anyhow_like(&err);
    assert!(
        text.contains("window [2026-11-27T03:00:00Z, 2026-11-27T04:00:00Z) of http://127.0.0.1:"),
        "the window is named: {text}"
    );
    assert!(text.contains("failed after 3 attempt(s); nothing of this window was committed"), "{text}");
    assert!(text.contains("error during query execution"), "the cause is shown: {text}");
    assert_eq!(err.committed.windows.len(), 3, "windows 00:00-03:00 committed");
    let times = last_times(&store);
    assert_eq!(times.len(), 30);
    assert!(times.iter().all(|t| *t < utc("2026-11-27T03:00:00Z")), "nothing of the failed window");

    vl.clear_faults();
    let mut resume = options();
    resume.resume = true;
    let r = pull_blocking(&store, &vl.url(), Auth::default(), &resume).expect("resumed pull");
    assert_eq!(r.resumed_from, Some(utc("2026-11-27T03:00:00Z")));
    assert_eq!(r.windows.first().map(|w| w.window.start), Some(utc("2026-11-27T03:00:00Z")));
    assert_eq!((r.windows.len(), r.rows(), r.added()), (3, 30, 30), "only the rest is pulled");
    assert_eq!(last_times(&store).len(), 60);

    let done = pull_blocking(&store, &vl.url(), Auth::default(), &resume).expect("nothing left");
    assert!(done.windows.is_empty() && done.notes.iter().any(|n| n.contains("nothing left")), "{:?}", done.notes);
}

/// Break-it 35 F8: a window's rows are moved into the store in batches of
/// `max_batch_bytes` inside the window's one transaction (here every row
/// on its own), so no window is held whole; an attempt that breaks after
/// batches were moved keeps none of them (the retry reads the window
/// whole), and a window that fails for good leaves nothing `--resume`
/// would skip.
#[test]
fn a_window_moved_in_batches_is_still_committed_whole_or_not_at_all() {
    let vl = loaded();
    vl.inject(Fault::Truncate { lines: 6 }, Some(1), Some(&hour(1)));
    vl.inject(Fault::ErrorText { lines: 7 }, None, Some(&hour(3)));
    let (_d, store) = temp_store();
    let mut opts = options();
    opts.max_batch_bytes = 1;
    let err = pull_blocking(&store, &vl.url(), Auth::default(), &opts).expect_err("hour 3 fails for good");
    assert_eq!(err.committed.windows.len(), 3, "windows 00:00-03:00 committed");
    let w = &err.committed.windows[1];
    assert_eq!((w.attempts, w.rows, w.added), (2, 10, 10), "the retry read the whole window");
    let times = last_times(&store);
    assert_eq!(times.len(), 30);
    assert!(times.iter().all(|t| *t < utc("2026-11-27T03:00:00Z")), "nothing of the failed window");
    assert_eq!(store.counts().expect("counts").observations, 30, "none of the 6 + 7 rows moved before the breaks");

    vl.clear_faults();
    let mut resume = opts.clone();
    resume.resume = true;
    let r = pull_blocking(&store, &vl.url(), Auth::default(), &resume).expect("resumed pull");
    assert_eq!(r.resumed_from, Some(utc("2026-11-27T03:00:00Z")));
    assert_eq!((r.windows.len(), r.rows(), r.added()), (3, 30, 30));
    assert_eq!(store.counts().expect("counts").observations, 60);
}

#[test]
fn tenant_headers_and_bearer_tokens_reach_the_server() {
    let vl = FakeVlogs::start();
    ship(&vl.url(), Layout::Raw, &events(), Some((3, 7)));
    vl.require_bearer("t0k3n");
    let (_d, store) = temp_store();
    let auth = Auth {
        bearer: Some(kdrift_ingest::Secret::new("t0k3n")),
        tenant: Tenant { account_id: Some(3), project_id: Some(7) },
        ..Auth::default()
    };
    let r = pull_blocking(&store, &vl.url(), auth, &options()).expect("pull");
    assert_eq!(r.rows(), 60);
    assert!(r.pull_key.contains("account=3 project=7"), "{}", r.pull_key);
    let queries: Vec<_> = vl.seen().into_iter().filter(|s| s.path == "/select/logsql/query").collect();
    assert!(queries.iter().all(|s| s.account_id.as_deref() == Some("3") && s.project_id.as_deref() == Some("7")));

    // The default tenant sees nothing of tenant 3/7; a wrong token is refused with 401.
    let (_d2, store2) = temp_store();
    let mut no_tenant = Auth { bearer: Some(kdrift_ingest::Secret::new("t0k3n")), ..Auth::default() };
    let mut opts = options();
    opts.layout = Some(Layout::Raw);
    assert_eq!(pull_blocking(&store2, &vl.url(), no_tenant.clone(), &opts).expect("pull").rows(), 0);
    no_tenant.bearer = Some(kdrift_ingest::Secret::new("wrong"));
    let err = pull_blocking(&store2, &vl.url(), no_tenant, &opts).expect_err("401");
    assert!(anyhow_like(&err).contains("HTTP 401: Unauthorized"), "{}", anyhow_like(&err));
    assert!(!format!("{err:?}").contains("wrong"), "the token never shows");
}

#[test]
fn a_line_over_the_limit_is_an_input_error_of_its_window_and_the_rows_around_it_load() {
    let vl = loaded();
    vl.inject(Fault::LongLine { lines: 3, bytes: 5_000 }, Some(1), Some(&hour(2)));
    let (_d, store) = temp_store();
    let mut opts = options();
    opts.max_line_bytes = 4_096;
    let r = pull_blocking(&store, &vl.url(), Auth::default(), &opts).expect("pull");
    let w = &r.windows[2];
    assert_eq!((w.attempts, w.rows, w.added), (1, 11, 10), "not retried: the ten rows and the long line");
    assert_eq!(w.errors.len(), 1, "{:?}", w.errors);
    assert_eq!(
        w.errors,
        [format!(
            "{}/select/logsql/query [2026-11-27T02:00:00Z, 2026-11-27T03:00:00Z):4: the line is 5000 bytes long, more \
             than the 4096 bytes kdrift reads in one line; skipped (expected one JSON object per line (a Kubernetes \
             object or a log record))",
            vl.url()
        )]
    );
    assert_eq!(store_events(&store).len(), 60, "every row loads");
}

/// `(line, column, message)` of every input error the store keeps for run `run_id`.
fn stored_errors(store: &kdrift_store::Store, run_id: i64) -> Vec<(Option<i64>, Option<i64>, String)> {
    let mut stmt = store
        .conn()
        .prepare("SELECT line, column_no, message FROM ingest_errors WHERE run_id = ? ORDER BY line")
        .expect("prepare");
    stmt.query_map([run_id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .expect("errors")
        .collect::<Result<_, _>>()
        .expect("rows")
}

#[test]
fn a_bad_response_line_is_an_input_error_of_its_window_the_other_rows_load_and_resume_goes_past_it() {
    // Every answer for the 02:00 window has a broken row after its 4th, and
    // text that is not JSON after the 05:00 window's 2nd: asking again gives them again.
    let vl = loaded();
    let cut = r#"{"_time":"2026-11-27T02:30:00Z" "_msg":"{\"kind\":\"Event\"}"}"#;
    vl.inject(Fault::BadLine { lines: 4, text: cut.into() }, None, Some(&hour(2)));
    vl.inject(Fault::BadLine { lines: 2, text: "not a row at all".into() }, None, Some(&hour(5)));
    let (_d, store) = temp_store();
    let r = pull_blocking(&store, &vl.url(), Auth::default(), &options()).expect("the pull goes on");
    assert_eq!(r.windows.len(), 6);
    let window =
        |w: usize| format!("{}/select/logsql/query [2026-11-27T0{w}:00:00Z, 2026-11-27T0{}:00:00Z)", vl.url(), w + 1);
    let (w2, w5) = (&r.windows[2], &r.windows[5]);
    assert_eq!((w2.attempts, w2.rows, w2.added), (1, 11, 10), "not retried: the ten rows and the bad line");
    assert_eq!((w5.attempts, w5.rows, w5.added), (1, 11, 10));
    let column = cut.find(" \"_msg\"").expect("gap") + 2;
    assert_eq!(
        w2.errors,
        [format!(
            "{}:5:{column}: response line 5 is not a row (invalid JSON: expected `,` or `}}`): {cut:?}; expected one \
             JSON object per line (a VictoriaLogs row); the window's other lines are stored",
            window(2)
        )]
    );
    assert_eq!(
        w5.errors,
        [format!(
            "{}:3:2: response line 3 is not a row (invalid JSON: expected ident): \"not a row at all\"; expected one \
             JSON object per line (a VictoriaLogs row); the window's other lines are stored",
            window(5)
        )]
    );
    assert!(r.windows.iter().enumerate().all(|(i, w)| i == 2 || i == 5 || w.errors.is_empty()));
    assert_eq!((r.rows(), r.added()), (62, 60));
    assert_eq!(store_events(&store).len(), 60, "every row of every window");
    // The run record keeps each error with its line and column.
    let stored = stored_errors(&store, w2.run_id);
    assert_eq!(stored.len(), 1);
    assert_eq!((stored[0].0, stored[0].1), (Some(5), Some(column as i64)));
    assert!(stored[0].2.starts_with("response line 5 is not a row"), "{}", stored[0].2);
    assert_eq!(stored_errors(&store, w5.run_id).len(), 1);

    // --resume: nothing left to pull; nothing new stored, no new error.
    let runs: i64 = store.conn().query_row("SELECT count(*) FROM ingest_runs", [], |r| r.get(0)).expect("runs");
    let errors: i64 = store.conn().query_row("SELECT count(*) FROM ingest_errors", [], |r| r.get(0)).expect("errors");
    let mut resume = options();
    resume.resume = true;
    let done = pull_blocking(&store, &vl.url(), Auth::default(), &resume).expect("resume finishes ok");
    assert!(done.windows.is_empty() && done.notes.iter().any(|n| n.contains("nothing left")), "{:?}", done.notes);
    assert_eq!((done.rows(), done.added()), (0, 0));
    assert_eq!(store_events(&store).len(), 60);
    let errors_after: i64 =
        store.conn().query_row("SELECT count(*) FROM ingest_errors", [], |r| r.get(0)).expect("errors");
    let runs_after: i64 = store.conn().query_row("SELECT count(*) FROM ingest_runs", [], |r| r.get(0)).expect("runs");
    assert_eq!((runs_after, errors_after), (runs, errors));
}

#[test]
fn two_rows_on_one_response_line_both_load_and_text_after_them_is_an_error_of_that_line() {
    // Two rows glued (a relay lost a newline) in the 01:00 window, and glued with text after them in the 04:00 one.
    let vl = loaded();
    vl.inject(Fault::Glued { lines: 3, tail: String::new() }, None, Some(&hour(1)));
    vl.inject(Fault::Glued { lines: 0, tail: " xyz".into() }, None, Some(&hour(4)));
    let (_d, store) = temp_store();
    let r = pull_blocking(&store, &vl.url(), Auth::default(), &options()).expect("pull");
    let (w1, w4) = (&r.windows[1], &r.windows[4]);
    assert_eq!((w1.attempts, w1.added, w1.errors.len()), (1, 10, 0), "{:?}", w1.errors);
    assert_eq!((w4.attempts, w4.added, w4.errors.len()), (1, 10, 1), "{:?}", w4.errors);
    let prefix = format!("{}/select/logsql/query [2026-11-27T04:00:00Z, 2026-11-27T05:00:00Z):1:", vl.url());
    assert!(w4.errors[0].starts_with(&prefix), "{}", w4.errors[0]);
    assert!(
        w4.errors[0].contains(
            ": response line 1 is not a row (invalid JSON: expected value, after 2 JSON values on this line (read)): "
        ),
        "{}",
        w4.errors[0]
    );
    assert_eq!(store_events(&store).len(), 60, "every row, the glued ones too");
}

/// Break-it 42 H2: an answer whose last line was not a row, or whose last
/// row had no final newline, lost its window for good (asked again, it is
/// the same), where the same line first was one input error. A whole
/// answer (its transfer ended normally) is read to its end: its last line
/// needs no newline, and text ending it is the window's input error.
/// VictoriaLogs' own error text is followed by an aborted connection: that
/// window is still asked again
/// (`a_body_cut_mid_stream_fails_the_window_which_is_retried_and_never_half_committed`).
#[test]
fn a_whole_answer_ending_in_a_bad_line_or_without_a_newline_keeps_its_windows_rows() {
    let vl = loaded();
    let text = "not json at the end";
    vl.inject(Fault::BadLine { lines: 10, text: text.into() }, None, Some(&hour(1)));
    vl.inject(Fault::Unterminated { text: None }, None, Some(&hour(3)));
    let cut = r#"{"_time":"2026-11-27T04:30:00Z","_msg":"{\"ki"#;
    vl.inject(Fault::Unterminated { text: Some(cut.into()) }, None, Some(&hour(4)));
    let (_d, store) = temp_store();
    let r = pull_blocking(&store, &vl.url(), Auth::default(), &options()).expect("the pull goes on");
    let window =
        |w: usize| format!("{}/select/logsql/query [2026-11-27T0{w}:00:00Z, 2026-11-27T0{}:00:00Z)", vl.url(), w + 1);
    let (w1, w3, w4) = (&r.windows[1], &r.windows[3], &r.windows[4]);
    assert_eq!((w1.attempts, w1.rows, w1.added), (1, 11, 10), "not retried: the ten rows and the bad line");
    assert_eq!(
        w1.errors,
        [format!(
            "{}:11:2: response line 11 is not a row (invalid JSON: expected ident): \"{text}\"; expected one JSON \
             object per line (a VictoriaLogs row); the window's other lines are stored",
            window(1)
        )]
    );
    assert_eq!((w3.attempts, w3.rows, w3.added, w3.errors.len()), (1, 10, 10, 0), "{:?}", w3.errors);
    assert_eq!((w4.attempts, w4.rows, w4.added, w4.errors.len()), (1, 11, 10, 1), "{:?}", w4.errors);
    assert!(
        w4.errors[0].starts_with(&format!("{}:11:", window(4)))
            && w4.errors[0].contains(": response line 11 is not a row (")
            && w4.errors[0].contains("the window's other lines are stored"),
        "{}",
        w4.errors[0]
    );
    assert_eq!((r.windows.len(), r.rows(), r.added()), (6, 62, 60));
    assert_eq!(store_events(&store).len(), 60, "every row of every window");
}

/// Triggers the interrupt when the last of the planned windows is committed.
struct InterruptAtLastCommit {
    interrupt: kdrift_ingest::Interrupt,
    planned: usize,
    done: usize,
}

impl kdrift_ingest::PullProgress for InterruptAtLastCommit {
    fn planned(&mut self, _layout: Layout, windows: &[kdrift_ingest::Window]) {
        self.planned = windows.len();
    }
    fn window_done(&mut self, _report: &kdrift_ingest::WindowReport) {
        self.done += 1;
        if self.done == self.planned {
            self.interrupt.trigger();
        }
    }
}

#[test]
fn an_interrupt_during_the_final_windows_commit_completes_the_pull_and_says_so() {
    // `ingest victorialogs` said nothing of a signal during its final
    // commit, where `ingest file` warns that the run completed and is kept.
    let vl = loaded();
    let (_dir, store) = temp_store();
    let interrupt = kdrift_ingest::Interrupt::new();
    let stoppable = kdrift_ingest::PullOptions { interrupt: interrupt.clone(), ..options() };
    let client =
        kdrift_ingest::VlClient::new(&vl.url(), Auth::default(), kdrift_ingest::Timeouts::default()).expect("client");
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    let mut progress = InterruptAtLastCommit { interrupt: interrupt.clone(), planned: 0, done: 0 };
    let report = rt.block_on(kdrift_ingest::pull(&store, &client, &stoppable, &mut progress)).expect("pull");
    assert!(interrupt.is_triggered());
    assert_eq!((report.windows.len(), report.rows(), report.interrupted_during_commit), (6, 60, true));
    assert_eq!(store_events(&store).len(), 60, "every window is kept");
    // Not interrupted: the flag stays down.
    let report = pull_blocking(&store, &vl.url(), Auth::default(), &options()).expect("pull");
    assert!(!report.interrupted_during_commit);
}

#[test]
fn a_hits_answer_that_is_not_json_is_quoted_redacted_and_a_redirect_is_not_followed() {
    use kdrift_ingest::Secret;
    use kdrift_tests::fake_vlogs::scripted::{Reply, Scripted};
    use kdrift_tests::leaks::HOSTILE;
    let auth = Auth {
        basic: Some((HOSTILE.user.into(), Secret::new(HOSTILE.password))),
        headers: vec![(HOSTILE.header_name.into(), Secret::new(HOSTILE.header_value))],
        ..Auth::default()
    };
    let forced = kdrift_ingest::PullOptions { layout: Some(Layout::Raw), ..options() };
    // A login page instead of JSON: quoted (it said only "not JSON"), redacted.
    let page = format!("<html>you sent Basic {} and {}</html>", HOSTILE.basic(), HOSTILE.header_value);
    let login = Scripted::start(move |_| Reply::new(200, page.clone()));
    let (_d, store) = temp_store();
    let err = pull_blocking(&store, &login.url(), auth.clone(), &forced).expect_err("not JSON");
    let VlError::Request { failure: Failure::BadAnswer(text), .. } = &err.error else { panic!("{:?}", err.error) };
    assert_eq!(text, "not JSON (expected value at line 1 column 1): \"<html>you sent *** and ***</html>\"");
    HOSTILE.assert_absent(&anyhow_like(&err), "the error");

    // A redirect to another port: an error naming its origin, nothing asked there.
    let elsewhere = Scripted::start(|_| Reply::new(200, "{}"));
    let to = elsewhere.url();
    let moved = Scripted::start(move |r| Reply::redirect(302, format!("{to}{}", r.path)));
    let err = pull_blocking(&store, &moved.url(), auth, &forced).expect_err("redirect");
    let VlError::Request { failure, .. } = &err.error else { panic!("{:?}", err.error) };
    assert_eq!(failure, &Failure::Redirected { status: 302, to: elsewhere.url(), following: false });
    assert!(elsewhere.seen().is_empty(), "{:?}", elsewhere.seen());
}

/// Break-it 32 N1: `Authorization: Basic <base64>` given as an extra
/// header (`--headers-file`) was held only as sent; a server that decoded
/// it showed `user:password` and the password in its 400, printed whole.
#[test]
fn a_basic_password_sent_as_an_extra_header_is_masked_once_the_server_decodes_it() {
    use kdrift_ingest::Secret;
    use kdrift_tests::fake_vlogs::scripted::{Reply, Scripted};
    const PASSWORD: &str = "HdrBasicPw5Qz8Lp4Wm2";
    let auth = Auth {
        headers: vec![("Authorization".into(), Secret::new("Basic dmx1c2VyOkhkckJhc2ljUHc1UXo4THA0V20y"))],
        ..Auth::default()
    };
    let forced = kdrift_ingest::PullOptions { layout: Some(Layout::Raw), ..options() };
    let server = Scripted::start(|_| Reply::new(400, format!("item2 [vluser:{PASSWORD}] | item3 [{PASSWORD}]")));
    let (_d, store) = temp_store();
    let err = pull_blocking(&store, &server.url(), auth, &forced).expect_err("400");
    let text = anyhow_like(&err);
    assert!(text.contains("HTTP 400: item2 [***] | item3 [***]"), "{text}");
    assert!(!text.contains("HdrBasicPw5"), "{text}");
}

/// Issue 34 C: a key twice inside the event JSON of a row (here the
/// `_msg` of kubernetes-event-exporter's stdout, `involvedObject.name`
/// written twice by a broken writer) was read silently, the last value
/// winning. It is that row's input error naming the key's path; the rows
/// around it load and the window is not retried.
#[test]
fn a_key_twice_inside_a_rows_event_json_is_that_rows_error() {
    let vl = FakeVlogs::start();
    ship(&vl.url(), Layout::MsgJson, &events(), None);
    let from = "\\\"name\\\":\\\"web-21\\\"";
    let to = "\\\"name\\\":\\\"web-x\\\",\\\"name\\\":\\\"web-21\\\"";
    vl.inject(Fault::Rewrite { from: from.into(), to: to.into() }, Some(1), Some(&hour(2)));
    let (_d, store) = temp_store();
    let r = pull_blocking(&store, &vl.url(), Auth::default(), &options()).expect("pull");
    let w = &r.windows[2];
    assert_eq!((w.attempts, w.rows, w.added), (1, 10, 9), "{:?}", w.errors);
    assert_eq!(w.errors.len(), 1, "{:?}", w.errors);
    assert!(
        w.errors[0].ends_with(
            "):9: not a valid msg-json row (event JSON in _msg): _msg JSON: the key \"name\" appears twice in one object (at involvedObject.name; which value is meant is \
             unknown) at line 1 column 251"
        ),
        "{}",
        w.errors[0]
    );
    assert_eq!(store_events(&store).len(), 59, "every other row loads");
}

/// Break-it 34 H6: a `/field_names` answer that never ended was buffered
/// whole (5.4 GB in 15 s; the read timeout never ran out while bytes kept
/// coming). It is read up to 16 MiB and is the request's error.
#[test]
fn a_json_answer_without_end_stops_at_its_cap() {
    use kdrift_tests::fake_vlogs::scripted::{Reply, Scripted};
    let forced = kdrift_ingest::PullOptions { layout: Some(Layout::Raw), ..options() };
    let server = Scripted::start(|_| Reply::endless(200, r#"{"values":["#));
    let (_d, store) = temp_store();
    let err = pull_blocking(&store, &server.url(), Auth::default(), &forced).expect_err("too big");
    let VlError::Request { failure: Failure::BadAnswer(text), url } = &err.error else { panic!("{:?}", err.error) };
    assert_eq!(
        text,
        "the answer goes on past 16777216 bytes (16 MiB), the most kdrift reads of this answer: the rest is not read"
    );
    assert!(url.ends_with("/select/logsql/field_names") || url.ends_with("/select/logsql/hits"), "{url}");
    assert_eq!(kdrift_ingest::JSON_ANSWER_LIMIT, 16 << 20);
}

#[test]
fn a_windows_errors_past_100_are_counted_and_said_once() {
    // Break-it 34 M1 for VictoriaLogs: every bad row's error was kept and
    // printed. 250 rows with neither a name nor a uid among 10 good ones, in one window.
    let vl = FakeVlogs::start();
    let mut rows = events();
    rows.truncate(10);
    for i in 0..250 {
        let mut bad = rows[i % 10].clone();
        bad.object["metadata"] = json!({"namespace": "shop"});
        bad.object["message"] = json!(format!("bad {i}"));
        rows.push(bad);
    }
    ship(&vl.url(), Layout::Raw, &rows, None);
    let (_d, store) = temp_store();
    let r = pull_blocking(&store, &vl.url(), Auth::default(), &test_options(utc(START), utc(END), 1000)).expect("pull");
    assert_eq!(r.windows.len(), 1);
    let w = &r.windows[0];
    assert_eq!((w.rows, w.added, w.errors.len(), w.error_count, r.error_count()), (260, 10, 101, 250, 250));
    assert!(w.errors[0].ends_with(":2: Event has neither metadata.name nor metadata.uid"), "{}", w.errors[0]);
    let window = format!("{}/select/logsql/query [2026-11-27T00:00:00Z, 2026-11-27T06:00:00Z)", vl.url());
    // The message is masked by every credential this process holds: another
    // test in this binary holds `4417`, which a port like 44177 contains
    // (CI failure of df9baba). The location before `: ` is kdrift's own.
    let message = kdrift_rebalance::held().redact(&format!(
        "… and 150 more errors like these in {window} (only the first 100 are shown and stored; the others are \
         counted)"
    ));
    assert_eq!(w.errors[100], format!("{window}: {message}"));
    assert_eq!(stored_errors(&store, w.run_id).len(), 101);
}

#[test]
fn a_server_trickling_its_answer_fails_at_the_request_timeout_on_hits_and_query() {
    // Break-it 35 F20: one space a second held `/hits` (and `/query`) for as
    // long as the server went on; only the 120 s gap between bytes was bounded.
    use kdrift_tests::fake_vlogs::scripted::{Reply, Scripted};
    let pause = std::time::Duration::from_millis(50);
    let forced = kdrift_ingest::PullOptions { layout: Some(Layout::Raw), ..options() };
    let pull_within = |url: &str, timeout_ms: u64| {
        let client = kdrift_ingest::VlClient::new(url, Auth::default(), kdrift_ingest::Timeouts::default())
            .expect("client")
            .with_request_timeout(std::time::Duration::from_millis(timeout_ms));
        let (_d, store) = temp_store();
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
        let began = std::time::Instant::now();
        let err = rt
            .block_on(kdrift_ingest::pull(&store, &client, &forced, &mut kdrift_ingest::NoPullProgress))
            .expect_err("too slow");
        assert!(began.elapsed() < std::time::Duration::from_secs(20), "{:?}", began.elapsed());
        anyhow_like(&err.error)
    };
    let all = Scripted::start(move |_| Reply::trickle(200, "", pause));
    let said = pull_within(&all.url(), 400);
    assert!(
        said.ends_with(
            "did not answer whole within 0.4s, the most kdrift waits for one request (raise --request-timeout)"
        ),
        "{said}"
    );
    assert!(said.contains("/select/logsql/field_names") || said.contains("/select/logsql/hits"), "{said}");
    // `/hits` answers at once, each window's `/query` trickles.
    let hits = r#"{"hits":[{"fields":{},"timestamps":["2026-11-27T00:00:00Z"],"values":[5]}]}"#;
    let query = Scripted::start(move |r| match r.path.as_str() {
        "/select/logsql/hits" => Reply::new(200, hits),
        "/select/logsql/field_names" => Reply::new(200, r#"{"values":[]}"#),
        _ => Reply::trickle(200, "", pause),
    });
    let said = pull_within(&query.url(), 400);
    assert!(
        said.ends_with(
            "/select/logsql/query did not answer whole within 0.4s, the most kdrift waits for one request (raise \
             --request-timeout)"
        ),
        "{said}"
    );
}

/// `(start, end, rows_read)` of every `vl_windows` row, in time order.
fn vl_windows(store: &kdrift_store::Store) -> Vec<(String, String, i64)> {
    let mut stmt = store
        .conn()
        .prepare(
            "SELECT strftime(window_start, '%H:%M:%S'), strftime(window_end, '%H:%M:%S'), rows_read FROM vl_windows \
             ORDER BY window_start",
        )
        .expect("prepare");
    stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .expect("windows")
        .collect::<Result<_, _>>()
        .expect("rows")
}

/// Break-it 36 F8: a window of large rows cost DuckDB about three times
/// its bytes until its one commit (20 rows of 60 MiB: 6.32 GB). A window
/// whose answer passes `max_window_bytes` is given up and pulled again in
/// parts planned from its `/hits` counts, each committed with its own
/// `vl_windows` row; a `--resume` after a failure goes on after the last
/// part committed, and every event is stored once.
#[test]
fn a_window_answering_more_than_its_byte_budget_is_committed_in_parts_and_resume_stays_exact() {
    let vl = loaded();
    // The six hours in one window of 60 rows (each row ~560 bytes): past
    // 16 KiB after 30 rows, planned again for 22 rows a window (3/4 of the budget).
    let mut small = test_options(utc(START), utc(END), 100);
    small.max_window_bytes = 16 << 10;
    let (_d, store) = temp_store();
    let r = pull_blocking(&store, &vl.url(), Auth::default(), &small).expect("pull");
    let windows = vl_windows(&store);
    let w = |s: &str, e: &str, rows: i64| (s.to_string(), e.to_string(), rows);
    assert_eq!(windows, [w("00:00:00", "02:12:00", 22), w("02:12:00", "04:24:00", 22), w("04:24:00", "06:00:00", 16)]);
    assert_eq!(r.windows.len(), 3);
    assert_eq!((r.rows(), r.added()), (60, 60));
    let keys: Vec<String> = store_events(&store).into_keys().collect();
    assert_eq!(keys.len(), 60);
    // The window given up: a failed run saying why, nothing of it kept.
    let failed: Vec<String> = store
        .conn()
        .prepare(
            "SELECT e.message FROM ingest_runs r JOIN ingest_errors e USING (run_id) WHERE r.status = 'failed' \
             ORDER BY r.run_id",
        )
        .expect("prepare")
        .query_map([], |row| row.get(0))
        .expect("failed")
        .collect::<Result<_, _>>()
        .expect("rows");
    assert_eq!(failed.len(), 1, "{failed:?}");
    let (head, tail) = failed[0].split_once(" after ").expect("after");
    assert_eq!(
        (head, tail.split_once(" bytes: ").map(|(_, t)| t)),
        (
            "the answer of window [2026-11-27T00:00:00Z, 2026-11-27T06:00:00Z) passed --max-window-bytes (16384 bytes)",
            Some(
                "it is pulled again as 3 windows ([2026-11-27T00:00:00Z, 2026-11-27T02:12:00Z), \
                 [2026-11-27T02:12:00Z, 2026-11-27T04:24:00Z), [2026-11-27T04:24:00Z, 2026-11-27T06:00:00Z)), each \
                 committed on its own; nothing of this run is kept"
            )
        )
    );

    // A pull failing at the second part keeps the first; --resume goes on
    // after it and stores every event once.
    let vl = loaded();
    vl.inject(Fault::BadRequest, None, Some("_time:[2026-11-27T02:12:00Z, 2026-11-27T04:24:00Z)"));
    let (_d2, store) = temp_store();
    let err = pull_blocking(&store, &vl.url(), Auth::default(), &small).expect_err("the second part fails");
    assert_eq!(err.committed.windows.len(), 1);
    assert_eq!(store_events(&store).len(), 22);
    vl.clear_faults();
    let resumed = pull_blocking(&store, &vl.url(), Auth::default(), &PullOptions { resume: true, ..small.clone() })
        .expect("resume");
    assert_eq!(resumed.resumed_from, Some(utc("2026-11-27T02:12:00Z")));
    assert_eq!((resumed.rows(), resumed.added()), (38, 38));
    assert_eq!(vl_windows(&store).len(), 3);
    assert_eq!(store_events(&store).into_keys().collect::<Vec<_>>(), keys, "the same 60 events, each once");
}

/// The 60 events with `web-24`'s message (the fifth row of hour 2's
/// window) 8 MiB long, in a fake VictoriaLogs; a store limited to 16 MiB.
fn with_a_row_too_big() -> (FakeVlogs, tempfile::TempDir, kdrift_store::Store) {
    let vl = loaded();
    assert_eq!(vl.pad_field("_msg", "it\u{27}s #24", 8 << 20), 1);
    let dir = tempfile::tempdir().expect("tmp");
    let options = kdrift_store::OpenOptions { memory_limit: 16 << 20 };
    let store =
        kdrift_store::Store::open_with(&dir.path().join("k.duckdb"), &options, &kdrift_store::NoMigrationProgress)
            .expect("store");
    (vl, dir, store)
}

#[test]
fn a_row_too_big_for_the_memory_limit_is_an_error_naming_it_and_the_rest_of_its_window_loads() {
    // Break-it 40 F3: one 30 MiB row under --memory-limit 64MiB failed its
    // window whole (0 of 200 rows stored), the error naming a query.
    let (vl, _dir, store) = with_a_row_too_big();
    let mut opts = options();
    opts.max_batch_bytes = 2 << 20;
    let r = pull_blocking(&store, &vl.url(), Auth::default(), &opts).expect("pull");
    assert_eq!(r.windows.len(), 6);
    let w = &r.windows[2];
    assert_eq!((w.attempts, w.rows, w.records, w.added, w.error_count), (1, 10, 9, 9, 1), "{:?}", w.errors);
    let [error] = &w.errors[..] else { panic!("{:?}", w.errors) };
    // The row's line in the answer (the fake, as the real server, answers
    // a window's rows in no set order).
    let place = format!("{}/select/logsql/query [2026-11-27T02:00:00Z, 2026-11-27T03:00:00Z):", vl.url());
    let (line, rest) = error.strip_prefix(&place).and_then(|e| e.split_once(": ")).expect("a place");
    let line: i64 = line.parse().expect("a line number");
    assert!((1..=10).contains(&line), "{error}");
    assert!(rest.starts_with("Event shop/web-24.180018 (8,389,054 bytes of JSON): "), "{error}");
    assert!(error.contains("DuckDB ran out of memory storing it alone"), "{error}");
    assert!(error.contains("--memory-limit 16MiB"), "{error}");
    let names: Vec<String> = store_events(&store).into_keys().collect();
    assert_eq!(names.len(), 59);
    assert!(!names.iter().any(|n| n.contains("web-24.")), "{names:?}");
    assert_eq!(vl_windows(&store).len(), 6, "every window committed");
    let run = stored_errors(&store, w.run_id);
    assert_eq!(run.len(), 1, "{run:?}");
    assert_eq!(run[0].0, Some(line), "the row's line is stored");
}

#[test]
fn a_window_cut_after_its_big_row_keeps_what_it_committed_and_its_retry_ends_exact() {
    let (vl, _dir, store) = with_a_row_too_big();
    // Hour 2's first answer is cut after its 10 rows (half of nothing
    // more, then an abort): the rows before the big one were committed
    // when it gave the window's transaction up, and stay.
    vl.inject(Fault::Truncate { lines: 10 }, Some(1), Some(&hour(2)));
    let mut opts = options();
    opts.max_batch_bytes = 2 << 20;
    let r = pull_blocking(&store, &vl.url(), Auth::default(), &opts).expect("pull");
    let w = &r.windows[2];
    assert_eq!((w.attempts, w.rows, w.records, w.error_count), (2, 10, 9, 1), "{:?}", w.errors);
    assert_eq!(w.added + w.duplicates, 9);
    assert!(w.duplicates < 9, "the rows after the big one were not committed by the cut attempt");
    assert_eq!(store_events(&store).len(), 59);
    assert_eq!(store.counts().expect("counts").observations, 59, "no row twice");
    let failed: Vec<String> = stored_errors(&store, w.run_id - 1).into_iter().map(|e| e.2).collect();
    let kept = format!("({} records of this attempt were committed before", w.duplicates);
    assert!(failed.iter().any(|m| m.contains(&kept)), "the failed attempt says what it kept ({kept}): {failed:?}");
}
