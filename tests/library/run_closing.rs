//! Every way a run ends closes it (issue 34 F9): an interrupt landing
//! between any two statements of a commit, a fatal DuckDB error that
//! invalidates the connection. A run left `running` by a process that went
//! on made every later analysis warn about a run that "stays running".

use kdrift_store::{Change, Origin, Record, RunStatus, RunWriter, Store};

/// A FailedScheduling event of pod `name`.
fn event(name: &str) -> Record {
    let text = format!(
        r#"{{"apiVersion":"v1","kind":"Event","metadata":{{"name":"{name}.1","namespace":"default","uid":"e-{name}"}},
            "involvedObject":{{"kind":"Pod","namespace":"default","name":"{name}","uid":"u-{name}"}},
            "reason":"FailedScheduling","message":"0/3 nodes are available: 3 Insufficient memory.","count":1,
            "firstTimestamp":"2026-01-01T00:00:00Z","lastTimestamp":"2026-01-01T00:10:00Z","type":"Warning"}}"#
    );
    Record {
        object: serde_json::from_str(&text).expect("event"),
        origin: Origin { location: "stream".into(), line: None, item: None },
        observed_at: None,
        change: Change::Listed,
    }
}

/// (status, records_read, errors) of every run, in order, and the messages of its errors.
fn runs(store: &Store) -> Vec<((String, i64, i64), Vec<String>)> {
    let mut q = store
        .conn()
        .prepare(
            "SELECT r.status, r.records_read, r.errors, string_agg(e.message, chr(1) ORDER BY e.message)
             FROM ingest_runs r LEFT JOIN ingest_errors e USING (run_id)
             GROUP BY r.run_id, r.status, r.records_read, r.errors ORDER BY r.run_id",
        )
        .expect("prepare");
    q.query_map([], |r| {
        let messages: Option<String> = r.get(3)?;
        let messages = messages.map(|m| m.split('\u{1}').map(str::to_string).collect()).unwrap_or_default();
        Ok(((r.get(0)?, r.get(1)?, r.get(2)?), messages))
    })
    .expect("runs")
    .collect::<Result<_, _>>()
    .expect("rows")
}

fn events(store: &Store) -> i64 {
    store.counts().expect("counts").events
}

#[test]
fn an_interrupt_between_any_two_statements_of_a_final_commit_leaves_no_run_running() {
    // The final commit asks `stop` before each of its statements and before
    // COMMIT: an interrupt sent there is one that lands between two
    // statements (SIGTERM's `interrupt()` while no statement runs).
    let mut outcomes = Vec::new();
    for at in 0.. {
        let (dir, store) = kdrift_tests::temp_store();
        let path = dir.path().join("test.duckdb");
        let interrupt = store.interrupt_handle();
        let mut writer = RunWriter::begin(&store, "api", "stream").expect("begin");
        writer.stage(event("p1")).expect("store").expect("object");
        writer.commit_batch(0).expect("the first batch");
        writer.stage(event("p2")).expect("store").expect("object");
        let asked = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let counter = std::sync::Arc::clone(&asked);
        writer.stop_final_commit_when(move || {
            if counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst) == at {
                interrupt.interrupt();
            }
            false
        });
        let committed = writer.commit(RunStatus::Ok, 0);
        let asked = asked.load(std::sync::atomic::Ordering::SeqCst);
        drop(store);
        let store = Store::open_existing(&path).expect("open read-only");
        assert!(store.unclosed_runs().is_empty(), "interrupt at {at}: {:?}", store.unclosed_runs());
        let runs = runs(&store);
        let ((status, records, errors), messages) = &runs[0];
        match committed {
            Ok(_) => assert_eq!((status.as_str(), *records, *errors, events(&store)), ("ok", 2, 0, 2), "at {at}"),
            Err(e) => {
                // The batch in commit is rolled back whole, the first stays, counted.
                assert_eq!((status.as_str(), *records, *errors), ("failed", 1, 1), "interrupt at {at}: {e}");
                assert_eq!(events(&store), 1, "interrupt at {at}");
                assert!(messages[0].starts_with("run aborted by a store error: "), "{messages:?}");
            }
        }
        outcomes.push(status.clone());
        if at >= asked {
            break;
        }
    }
    // Every statement of the commit (about twenty) was preceded by an interrupt once.
    assert!(outcomes.len() > 15, "{outcomes:?}");
}

#[test]
fn an_interrupt_while_a_batch_commit_runs_leaves_the_run_failed_with_the_batches_before() {
    // SIGTERM during a recorder's batch commit interrupts the statement
    // running: the batch is rolled back and the recorder ends, its run
    // closed as failed (it stayed `running`: issue 34 F9). The interrupt
    // comes after 0 to 32 ms, landing in the statements of the commit.
    let mut failed = 0;
    for delay_ms in (0..=32).step_by(4) {
        let (dir, store) = kdrift_tests::temp_store();
        let path = dir.path().join("test.duckdb");
        let mut writer = RunWriter::begin(&store, "api", "cluster (recorder)").expect("begin");
        writer.stage(event("first")).expect("store").expect("object");
        writer.commit_batch(0).expect("the first batch");
        for i in 0..5_000 {
            writer.stage(event(&format!("p{i}"))).expect("store").expect("object");
        }
        let interrupt = store.interrupt_handle();
        let signal = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(delay_ms));
            interrupt.interrupt();
        });
        let committed = writer.commit_batch(0);
        signal.join().expect("signal");
        let committed_ok = committed.is_ok();
        // As the recorder: a failed commit while stopping ends it (the writer dropped).
        drop(writer);
        drop(store);
        let store = Store::open_existing(&path).expect("open read-only");
        assert!(store.unclosed_runs().is_empty(), "after {delay_ms} ms: {:?}", store.unclosed_runs());
        let runs = runs(&store);
        let ((status, records, _), messages) = &runs[0];
        assert_eq!(status, "failed", "after {delay_ms} ms: {messages:?}");
        let expected = if committed_ok { 5_001 } else { 1 };
        assert_eq!((*records, events(&store)), (expected, expected), "after {delay_ms} ms: {messages:?}");
        failed += usize::from(!committed_ok);
    }
    eprintln!("{failed} of 9 batch commits interrupted");
}

#[test]
fn a_fatal_store_error_in_a_batch_commit_closes_the_run_on_a_connection_opened_again() {
    // A fatal DuckDB error (here DuckDB's own simulated crash at a
    // COMMIT's WAL flush; in the field `FATAL … failed to pin block` in a
    // checkpoint under a small --memory-limit) invalidates the database:
    // every later statement of the process failed, and the run stayed
    // `running` until the next `kdrift ingest`.
    let (dir, store) = kdrift_tests::temp_store();
    let path = dir.path().join("test.duckdb");
    let mut writer = RunWriter::begin(&store, "api", "cluster (recorder)").expect("begin");
    writer.stage(event("p1")).expect("store").expect("object");
    writer.commit_batch(0).expect("the first batch");
    writer.stage(event("p2")).expect("store").expect("object");
    writer.note_error("cluster (recorder)", None, None, None, "pods: a list item that is no object");
    store.conn().execute_batch("SET debug_checkpoint_abort = 'before_wal_flush'").expect("set");
    let err = writer.commit_batch(1).expect_err("the commit fails");
    let text = format!("{err}: {}", std::error::Error::source(&err).map(ToString::to_string).unwrap_or_default());
    assert!(text.contains("Simulated crash"), "{text}");
    assert!(store.counts().is_err(), "the connection is invalidated");
    drop(writer);
    drop(store);
    let store = Store::open_existing(&path).expect("open read-only");
    assert!(store.unclosed_runs().is_empty(), "{:?}", store.unclosed_runs());
    let runs = runs(&store);
    let ((status, records, errors), messages) = &runs[0];
    // The first batch stays, counted; its input error noted and the store error written.
    assert_eq!((status.as_str(), *records, *errors), ("failed", 1, 2));
    assert_eq!(messages.len(), 2, "{messages:?}");
    assert_eq!(messages[0], "pods: a list item that is no object");
    assert!(messages[1].starts_with("run aborted by a store error: query tx_commit"), "{messages:?}");
    assert!(messages[1].contains("Simulated crash before WAL_FLUSH write"), "{messages:?}");
    assert_eq!(events(&store), 1);
    let finished: Option<i64> = store
        .conn()
        .query_row("SELECT epoch_us(finished_at) FROM ingest_runs WHERE run_id = 1", [], |r| r.get(0))
        .expect("finished_at");
    assert!(finished.is_some());
    drop(store);
    // The next writer finds nothing to close.
    assert!(Store::open(&path).expect("open").abandoned_runs().is_empty());
}

/// Makes the store fail fatally at the commit after the first, and gives
/// the recorder a node to commit then.
struct FatalAfterFirstCommit<'a> {
    store: &'a Store,
    kube: &'a kdrift_tests::fake_kube::FakeKube,
    commits: u32,
}

impl kdrift_ingest::RecordObserver for FatalAfterFirstCommit<'_> {
    fn committed(&mut self, _counts: &kdrift_store::RunCounts) {
        self.commits += 1;
        if self.commits == 1 {
            self.store.raw_batch("SET debug_checkpoint_abort = 'before_wal_flush'").expect("set");
            let node = serde_json::json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node-2"}});
            self.kube.create(node).expect("node");
        }
    }
}

#[test]
fn a_recorder_ended_by_a_fatal_store_error_leaves_its_run_failed_not_running() {
    use kdrift_rebalance::{ClusterOptions, Scope};
    let kube = kdrift_tests::fake_kube::FakeKube::start();
    let node = serde_json::json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node-1"}});
    kube.create(node).expect("node");
    let dir = tempfile::tempdir().expect("tmp");
    let kubeconfig = kube.write_kubeconfig(dir.path());
    let db = dir.path().join("rec.duckdb");
    let store = Store::open(&db).expect("store");
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime");
    let ended = rt.block_on(async {
        let opts = ClusterOptions { kubeconfig: Some(kubeconfig), context: None };
        let c = opts.open().await.expect("connect");
        let mut options = kdrift_ingest::RecordOptions::new(c.url.clone(), Scope::AllNamespaces);
        options.batch_interval = std::time::Duration::from_millis(200);
        options.metrics_interval = None;
        let mut observer = FatalAfterFirstCommit { store: &store, kube: &kube, commits: 0 };
        let clock = std::sync::Arc::new(kdrift_ingest::WallClock);
        let recording = kdrift_ingest::record_cluster(
            &store,
            &c.client,
            &options,
            clock,
            std::future::pending::<()>(),
            &mut observer,
        );
        tokio::time::timeout(std::time::Duration::from_secs(60), recording).await.expect("the recorder ends")
    });
    let err = ended.expect_err("the store's fatal error ends the recorder");
    let text = format!("{err}: {}", std::error::Error::source(&err).map(ToString::to_string).unwrap_or_default());
    assert!(text.contains("Simulated crash") || text.contains("invalidated"), "{text}");
    drop(store);
    let store = Store::open_existing(&db).expect("open read-only");
    assert!(store.unclosed_runs().is_empty(), "{:?}", store.unclosed_runs());
    let runs = runs(&store);
    assert_eq!(runs.len(), 1);
    let ((status, records, _), messages) = &runs[0];
    assert_eq!((status.as_str(), *records), ("failed", 1), "node-1's batch stays: {messages:?}");
    assert!(messages.iter().any(|m| m.starts_with("run aborted by a store error: ")), "{messages:?}");
    assert_eq!(store.counts().expect("counts").nodes, 1);
}
