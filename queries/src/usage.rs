//! Measured usage (schema v17, kdrift issue 37): the CPU and memory nodes and
//! pods actually used, stored as an append-only time series in
//! `usage_samples` (queries/schema/v17.sql).
//!
//! One call of [`Store::commit_usage`] is one ingest run: its samples land
//! in `usage_samples` deduplicated on (kind, object, at, source), with the
//! window's progress row and the run's input errors, in one transaction:
//! a window lands whole or not at all, and ingesting the same samples again
//! adds nothing. A sample whose key is stored fills the stored row's NULL
//! measures (a range pulled again with the memory queries it lacked, break-it
//! 36 F2): a stored value is never changed (the first stored wins), and a
//! row filled counts as added. A batch without repeats whose range holds no stored sample
//! of its source (a new window: the common case) is appended straight into
//! `usage_samples` (DuckDB's Appender, in the open transaction); any other
//! goes through a TEMP staging table and an anti-join (the first staged
//! sample of a key wins). A node, namespace or pod name holding a credential kdrift
//! holds (a server echoing the kubeconfig's token or Prometheus' password
//! as a label) is stored with it masked (`***`), whatever the source, as an
//! object's name is (`crate::record_mask`; issue 34, break-it 35 F1/F3).

use std::borrow::Cow;

use chrono::Utc;
use duckdb::params;

use super::writer::TransactionGuard;
use super::{sql, Store, StoreError};

/// What a sample measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum UsageKind {
    /// A node's usage (node-exporter, NodeMetrics, `kubectl top nodes`).
    Node,
    /// A pod's usage, its containers summed (cAdvisor, PodMetrics, `kubectl top pods`).
    Pod,
}

impl UsageKind {
    /// `node` or `pod`, as stored in `usage_samples.kind`.
    pub fn as_str(self) -> &'static str {
        match self {
            UsageKind::Node => "node",
            UsageKind::Pod => "pod",
        }
    }
}

/// Where samples come from (`usage_samples.source`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
pub enum UsageSource {
    /// `metrics.k8s.io/v1beta1` NodeMetrics and PodMetrics (metrics-server).
    MetricsApi,
    /// A Prometheus-compatible HTTP API (`/api/v1/query_range`).
    Prometheus,
    /// Saved `kubectl top nodes` / `kubectl top pods -A` output.
    KubectlTop,
}

impl UsageSource {
    /// `metrics-api`, `prometheus` or `kubectl-top`.
    pub fn as_str(self) -> &'static str {
        match self {
            UsageSource::MetricsApi => "metrics-api",
            UsageSource::Prometheus => "prometheus",
            UsageSource::KubectlTop => "kubectl-top",
        }
    }
}

/// One measured sample of a node or a pod.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct UsageSample {
    /// Node or pod.
    pub kind: UsageKind,
    /// The node (a node sample's object; the node a pod ran on, when known).
    pub node: Option<String>,
    /// The pod's namespace (pods only).
    pub namespace: Option<String>,
    /// The pod's name (pods only).
    pub pod: Option<String>,
    /// The instant measured, UTC microseconds.
    pub at_us: i64,
    /// CPU used, millicores (`None`: not measured at this instant).
    pub cpu_millis: Option<i64>,
    /// Memory working set, bytes (`None`: not measured at this instant).
    pub memory_bytes: Option<i64>,
}

/// The progress row a pull's window commits with its samples (`usage_windows`).
#[derive(Debug, Clone, Copy)]
pub struct UsageWindow<'a> {
    /// What identifies the pull (no credentials).
    pub pull_key: &'a str,
    /// Window start, UTC µs, inclusive.
    pub start_us: i64,
    /// Window end, UTC µs, exclusive.
    pub end_us: i64,
}

/// What one [`Store::commit_usage`] stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct UsageCommit {
    /// The run in `ingest_runs`.
    pub run_id: i64,
    /// Samples given.
    pub samples: u64,
    /// Samples added: new keys, and stored keys whose NULL measures they filled.
    pub added: u64,
    /// Samples the store already had (every measure they carry stored), or that repeated in the batch.
    pub duplicates: u64,
}

impl Store {
    /// Stores `samples` from `source` as one ingest run (`source_kind`,
    /// `location` as `ingest_runs` shows them), with `errors` (input
    /// problems met reading them, already redacted) as its `ingest_errors`
    /// rows and, when given, `window` as its `usage_windows` row — all in
    /// one transaction. The run is `ok`, or `partial` when there are errors.
    ///
    /// # Errors
    /// [`StoreError`]; nothing of the batch is stored, and the run is closed
    /// as `failed` with the error's text.
    pub fn commit_usage(
        &self,
        source_kind: &str,
        location: &str,
        source: UsageSource,
        samples: &[UsageSample],
        errors: &[String],
        window: Option<UsageWindow<'_>>,
    ) -> Result<UsageCommit, StoreError> {
        let run_id: i64 = self.query_one(
            &sql::BEGIN_RUN,
            params![source_kind, location, Utc::now().timestamp_micros(), env!("CARGO_PKG_VERSION")],
            |r| r.get(0),
        )?;
        match self.store_usage(run_id, location, source, samples, errors, window) {
            Ok(c) => Ok(c),
            Err(e) => {
                // The batch's error is what the caller reports.
                let message = format!("run aborted by a store error: {e}");
                let _ = self.execute(
                    &sql::RECORD_ERROR,
                    params![run_id, location, None::<i64>, None::<i64>, None::<i64>, message],
                );
                let _ = self.execute(
                    &sql::FINISH_RUN,
                    params![run_id, "failed", Utc::now().timestamp_micros(), 0i64, 0i64, errors.len() as i64 + 1],
                );
                Err(e)
            }
        }
    }

    /// Records a window that could not be pulled as a `failed` ingest run
    /// (`source_kind`, `location`) with `message` (already redacted) as its
    /// error, so that `kdrift query runs` shows it next to the windows
    /// committed. Returns the run's id.
    ///
    /// # Errors
    /// [`StoreError`].
    pub fn record_failed_usage_run(&self, source_kind: &str, location: &str, message: &str) -> Result<i64, StoreError> {
        let now = Utc::now().timestamp_micros();
        let tx = TransactionGuard::begin(self)?;
        let run_id: i64 =
            self.query_one(&sql::BEGIN_RUN, params![source_kind, location, now, env!("CARGO_PKG_VERSION")], |r| {
                r.get(0)
            })?;
        let message = kdrift_rebalance::mask_shown(message);
        self.execute(&sql::RECORD_ERROR, params![run_id, location, None::<i64>, None::<i64>, None::<i64>, message])?;
        self.execute(&sql::FINISH_RUN, params![run_id, "failed", now, 0i64, 0i64, 1i64])?;
        tx.commit()?;
        Ok(run_id)
    }

    /// Stores `samples` from `source` under run `run_id`, a run still open
    /// (`kdrift record`'s, whose object versions commit through its
    /// `RunWriter`), with `errors` (already redacted) as more of its
    /// `ingest_errors` rows at `location`, in one transaction; the run row
    /// is left as it is. Deduplicated as [`Store::commit_usage`].
    ///
    /// # Errors
    /// [`StoreError`]; nothing of the batch is stored.
    pub fn add_usage_to_run(
        &self,
        run_id: i64,
        location: &str,
        source: UsageSource,
        samples: &[UsageSample],
        errors: &[String],
    ) -> Result<UsageCommit, StoreError> {
        self.batch(&sql::USAGE_CREATE_STAGING)?;
        let tx = TransactionGuard::begin(self)?;
        let added = self.stage_usage(run_id, location, source, samples, errors)?;
        tx.commit()?;
        let n = samples.len() as u64;
        Ok(UsageCommit { run_id, samples: n, added, duplicates: n.saturating_sub(added) })
    }

    /// Appends `samples` to the staging table and moves the new ones into
    /// `usage_samples` under `run_id`, with `errors` as `ingest_errors`
    /// rows, inside the caller's transaction. Returns how many were added.
    fn stage_usage(
        &self,
        run_id: i64,
        location: &str,
        source: UsageSource,
        samples: &[UsageSample],
        errors: &[String],
    ) -> Result<u64, StoreError> {
        let first = samples.iter().map(|s| s.at_us).min().unwrap_or(0);
        let last = samples.iter().map(|s| s.at_us).max().unwrap_or(0);
        // Every source's names pass here: a server echoing a held
        // credential as a node, namespace or pod name is stored masked, as
        // an object's name is (`crate::record_mask`).
        let held = kdrift_rebalance::held_in_records();
        // Masking may make two names one: such a batch takes the staging
        // path, which deduplicates the names as stored.
        if !samples.is_empty() && held.is_empty() && without_repeats(samples) {
            let stored: bool =
                self.query_one(&sql::USAGE_STORED_IN_RANGE, params![source.as_str(), first, last], |r| r.get(0))?;
            if !stored {
                self.append_usage(run_id, source, samples, &held)?;
                self.record_usage_errors(run_id, location, errors)?;
                return Ok(samples.len() as u64);
            }
        }
        self.execute(&sql::USAGE_CLEAR_STAGING, [])?;
        let failed = |source| self.append_failed("staging_usage", source);
        {
            let mut appender = self.conn.appender("staging_usage").map_err(failed)?;
            for s in samples {
                appender
                    .append_row(params![
                        s.kind.as_str(),
                        masked_name(&held, s.node.as_deref()),
                        masked_name(&held, s.namespace.as_deref()),
                        masked_name(&held, s.pod.as_deref()),
                        s.at_us,
                        s.cpu_millis,
                        s.memory_bytes,
                        source.as_str()
                    ])
                    .map_err(failed)?;
            }
            appender.flush().map_err(failed)?;
        }
        // A stored key's NULL measures first (a range pulled again with a
        // query added), then the keys not stored: both count as added.
        let filled = self.execute(&sql::USAGE_FILL_SAMPLES, params![first, last])? as u64;
        let added = filled + self.execute(&sql::USAGE_COMMIT_SAMPLES, params![run_id, first, last])? as u64;
        self.execute(&sql::USAGE_CLEAR_STAGING, [])?;
        self.record_usage_errors(run_id, location, errors)?;
        Ok(added)
    }

    /// Appends `samples` (no key twice, none stored yet) straight into
    /// `usage_samples` under `run_id`, inside the caller's transaction
    /// (DuckDB's Appender runs in the connection's open transaction): the
    /// fast path of a new window, 600,000 samples without a sort or a join.
    fn append_usage(
        &self,
        run_id: i64,
        source: UsageSource,
        samples: &[UsageSample],
        held: &kdrift_rebalance::Redactor,
    ) -> Result<(), StoreError> {
        use duckdb::arrow::array::{ArrayRef, Int64Builder, StringBuilder, TimestampMicrosecondBuilder};
        use duckdb::arrow::record_batch::RecordBatch;
        use std::sync::Arc;
        let failed = |source| self.append_failed("usage_samples", source);
        // Column by column (Arrow arrays, appended a DuckDB vector at a
        // time): 3.5× the speed of binding each value of each row.
        let n = samples.len();
        let names = |f: fn(&UsageSample) -> Option<&str>| {
            let mut b = StringBuilder::with_capacity(n, samples.iter().filter_map(f).map(str::len).sum());
            for s in samples {
                b.append_option(masked_name(held, f(s)));
            }
            Arc::new(b.finish()) as ArrayRef
        };
        let numbers = |values: &mut dyn Iterator<Item = Option<i64>>| {
            let mut b = Int64Builder::with_capacity(n);
            values.for_each(|v| b.append_option(v));
            Arc::new(b.finish()) as ArrayRef
        };
        let constant = |v: &str| {
            let mut b = StringBuilder::with_capacity(n, n * v.len());
            (0..n).for_each(|_| b.append_value(v));
            Arc::new(b.finish()) as ArrayRef
        };
        let mut at = TimestampMicrosecondBuilder::with_capacity(n);
        samples.iter().for_each(|s| at.append_value(s.at_us));
        let batch = RecordBatch::try_from_iter([
            ("kind", names(|s| Some(s.kind.as_str()))),
            ("node", names(|s| s.node.as_deref())),
            ("namespace", names(|s| s.namespace.as_deref())),
            ("pod", names(|s| s.pod.as_deref())),
            ("sampled_at", Arc::new(at.finish()) as ArrayRef),
            ("cpu_millis", numbers(&mut samples.iter().map(|s| s.cpu_millis))),
            ("memory_bytes", numbers(&mut samples.iter().map(|s| s.memory_bytes))),
            ("source", constant(source.as_str())),
            ("run_id", numbers(&mut std::iter::repeat_n(Some(run_id), n))),
        ])
        .map_err(|e| failed(duckdb::Error::ToSqlConversionFailure(Box::new(e))))?;
        let mut appender = self.conn.appender("usage_samples").map_err(failed)?;
        appender.append_record_batch(batch).map_err(failed)?;
        appender.flush().map_err(failed)
    }

    /// `errors` (already redacted, masked again) as `ingest_errors` rows of
    /// run `run_id` at `location`.
    fn record_usage_errors(&self, run_id: i64, location: &str, errors: &[String]) -> Result<(), StoreError> {
        for message in errors {
            self.execute(
                &sql::RECORD_ERROR,
                params![run_id, location, None::<i64>, None::<i64>, None::<i64>, kdrift_rebalance::mask_shown(message)],
            )?;
        }
        Ok(())
    }

    fn store_usage(
        &self,
        run_id: i64,
        location: &str,
        source: UsageSource,
        samples: &[UsageSample],
        errors: &[String],
        window: Option<UsageWindow<'_>>,
    ) -> Result<UsageCommit, StoreError> {
        self.batch(&sql::USAGE_CREATE_STAGING)?;
        let tx = TransactionGuard::begin(self)?;
        let added = self.stage_usage(run_id, location, source, samples, errors)?;
        let now = Utc::now().timestamp_micros();
        if let Some(w) = window {
            self.execute(
                &sql::USAGE_RECORD_WINDOW,
                params![w.pull_key, w.start_us, w.end_us, run_id, samples.len() as i64, now],
            )?;
        }
        let n = samples.len() as u64;
        let status = if errors.is_empty() { "ok" } else { "partial" };
        self.execute(
            &sql::FINISH_RUN,
            params![run_id, status, now, n as i64, n.saturating_sub(added) as i64, errors.len() as i64],
        )?;
        tx.commit()?;
        Ok(UsageCommit { run_id, samples: n, added, duplicates: n.saturating_sub(added) })
    }
}

/// Whether no two of `samples` share a key (kind, object, instant; the
/// source is the batch's): what lets a batch skip the staging table's
/// "first staged wins" pass. Samples in strictly increasing key order (a
/// Prometheus window's) are checked in one pass; any other batch by hashing.
fn without_repeats(samples: &[UsageSample]) -> bool {
    fn key(s: &UsageSample) -> (i64, UsageKind, (Option<&str>, Option<&str>)) {
        let object = match s.kind {
            UsageKind::Node => (s.node.as_deref(), None),
            UsageKind::Pod => (s.namespace.as_deref(), s.pod.as_deref()),
        };
        (s.at_us, s.kind, object)
    }
    if samples.windows(2).all(|w| key(&w[0]) < key(&w[1])) {
        return true;
    }
    let mut seen = std::collections::HashSet::with_capacity(samples.len());
    samples.iter().all(|s| seen.insert(key(s)))
}

/// `name` (a sample's node, namespace or pod) with every credential of
/// `held` ([`kdrift_rebalance::held_in_records`]) masked: `node-***`.
fn masked_name<'a>(held: &kdrift_rebalance::Redactor, name: Option<&'a str>) -> Option<Cow<'a, str>> {
    let name = name?;
    if held.is_empty() {
        return Some(Cow::Borrowed(name));
    }
    Some(held.redact_found(name).map_or(Cow::Borrowed(name), Cow::Owned))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 2026-11-13T00:00:00Z, UTC µs.
    const T0: i64 = 1_794_528_000_000_000;

    fn node(name: &str, at_us: i64, cpu: i64, mem: i64) -> UsageSample {
        UsageSample {
            kind: UsageKind::Node,
            node: Some(name.into()),
            namespace: None,
            pod: None,
            at_us,
            cpu_millis: Some(cpu),
            memory_bytes: Some(mem),
        }
    }

    #[test]
    fn samples_are_stored_once_whatever_the_reingests_and_keyed_by_source() {
        let dir = tempfile::tempdir().expect("tmp");
        let store = Store::open(&dir.path().join("u.duckdb")).expect("store");
        let mut pod = node("n1", T0 + 30_000_000, 250, 1 << 20);
        (pod.kind, pod.namespace, pod.pod) = (UsageKind::Pod, Some("web".into()), Some("api-1".into()));
        let batch = vec![node("n1", T0, 1500, 4 << 30), node("n2", T0, 200, 1 << 30), pod.clone(), pod];
        let first = store.commit_usage("test", "t", UsageSource::Prometheus, &batch, &[], None).expect("first");
        assert_eq!((first.samples, first.added, first.duplicates), (4, 3, 1));
        let again = store.commit_usage("test", "t", UsageSource::Prometheus, &batch, &[], None).expect("again");
        assert_eq!((again.added, again.duplicates), (0, 4));
        // Another source at the same instants is another sample.
        let other = store.commit_usage("test", "t", UsageSource::MetricsApi, &batch[..1], &[], None).expect("other");
        assert_eq!(other.added, 1);
        let rows = crate::run_query(
            &store,
            "usage_samples",
            &[
                ("since_us".into(), "2026-11-13T00:00:00Z".into()),
                ("until_us".into(), "2026-11-13T00:01:00Z".into()),
                ("node".into(), "n1".into()),
            ],
        )
        .expect("query");
        let shown: Vec<String> = rows.rows.iter().map(|r| serde_json::to_string(&r[1..8]).expect("json")).collect();
        assert_eq!(
            shown,
            [
                r#"["node","n1",null,null,1500,4294967296,"metrics-api"]"#,
                r#"["node","n1",null,null,1500,4294967296,"prometheus"]"#,
                r#"["pod","n1","web","api-1",250,1048576,"prometheus"]"#,
            ]
        );
    }

    #[test]
    fn names_holding_a_held_credential_are_stored_masked_by_both_commit_paths() {
        // Break-it 35 F1/F3: the kubeconfig token echoed as a metrics name.
        const HELD: &str = "UsageHeldTok9x8c7v6b5n4m";
        kdrift_rebalance::hold([HELD]);
        let dir = tempfile::tempdir().expect("tmp");
        let store = Store::open(&dir.path().join("u.duckdb")).expect("store");
        let mut pod = node(HELD, T0, 250, 1 << 20);
        (pod.kind, pod.namespace, pod.pod) = (UsageKind::Pod, Some(HELD.into()), Some(format!("web-{HELD}")));
        let run = store.commit_usage("test", "t", UsageSource::MetricsApi, &[pod], &[], None).expect("commit");
        // `kdrift record`'s takes, under its open run.
        store
            .add_usage_to_run(run.run_id, "t", UsageSource::MetricsApi, &[node(HELD, T0, 500, 1 << 30)], &[])
            .expect("add");
        let rows = crate::run_query(
            &store,
            "usage_samples",
            &[("since_us".into(), "2026-11-13T00:00:00Z".into()), ("until_us".into(), "2026-11-13T00:01:00Z".into())],
        )
        .expect("query");
        let shown: Vec<String> = rows.rows.iter().map(|r| serde_json::to_string(&r[1..5]).expect("json")).collect();
        assert_eq!(shown, [r#"["node","***",null,null]"#, r#"["pod","***","***","***"]"#]);
    }

    #[test]
    fn a_new_window_is_appended_straight_and_an_overlapping_one_adds_only_its_new_samples() {
        let dir = tempfile::tempdir().expect("tmp");
        let store = Store::open(&dir.path().join("u.duckdb")).expect("store");
        let count = |store: &Store| -> i64 {
            store.conn.query_row("SELECT count(*) FROM usage_samples", [], |r| r.get(0)).expect("count")
        };
        // No repeats, nothing stored in its range: the append path.
        let first = vec![node("n1", T0, 100, 1), node("n2", T0, 200, 2), node("n1", T0 + 30_000_000, 300, 3)];
        let c = store.commit_usage("test", "t", UsageSource::Prometheus, &first, &[], None).expect("first");
        assert_eq!((c.samples, c.added, c.duplicates), (3, 3, 0));
        // The same again: the stored range sends it through the staging path.
        let c = store.commit_usage("test", "t", UsageSource::Prometheus, &first, &[], None).expect("again");
        assert_eq!((c.added, c.duplicates), (0, 3));
        // Overlapping: one stored key, one new node at a stored instant, one new instant.
        let next = vec![node("n2", T0, 999, 9), node("n3", T0, 400, 4), node("n1", T0 + 60_000_000, 500, 5)];
        let c =
            store.commit_usage("test", "t", UsageSource::Prometheus, &next, &["bad point".into()], None).expect("next");
        assert_eq!((c.added, c.duplicates), (2, 1));
        assert_eq!(count(&store), 5);
        let kept: i64 = store
            .conn
            .query_row("SELECT cpu_millis FROM usage_samples WHERE node = 'n2'", [], |r| r.get(0))
            .expect("n2");
        assert_eq!(kept, 200, "the first stored sample of a key stays");
        // The appended rows carry their run, instant and source like the staged ones.
        let (at, source, runs): (i64, String, i64) = store
            .conn
            .query_row(
                "SELECT epoch_us(max(sampled_at)), any_value(source), count(DISTINCT run_id) FROM usage_samples",
                [],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .expect("row");
        assert_eq!((at, source.as_str(), runs), (T0 + 60_000_000, "prometheus", 2));
    }

    #[test]
    fn a_range_pulled_again_with_memory_fills_the_stored_cpu_samples_and_never_changes_a_stored_value() {
        // Break-it 36 F2: cpu first (memory queries disabled), then the
        // same range with memory: the memory used to be "already stored".
        let dir = tempfile::tempdir().expect("tmp");
        let store = Store::open(&dir.path().join("u.duckdb")).expect("store");
        let cpu_only =
            |name: &str, at_us: i64, cpu: i64| UsageSample { memory_bytes: None, ..node(name, at_us, cpu, 0) };
        let mut pod = cpu_only("n1", T0, 250);
        (pod.kind, pod.namespace, pod.pod) = (UsageKind::Pod, Some("web".into()), Some("api-1".into()));
        let first = vec![cpu_only("n1", T0, 100), cpu_only("n2", T0, 200), pod.clone()];
        let c = store.commit_usage("test", "t", UsageSource::Prometheus, &first, &[], None).expect("cpu");
        assert_eq!((c.added, c.duplicates), (3, 0));
        // Again with memory: n1 and the pod filled; n2's cpu differs (the
        // stored 200 stays) and its memory fills; n3 is new; n1 again at
        // T0 (a repeat in the batch) adds nothing.
        let with_memory = |s: &UsageSample, cpu: i64, mem: i64| UsageSample {
            cpu_millis: Some(cpu),
            memory_bytes: Some(mem),
            ..s.clone()
        };
        let second = vec![
            with_memory(&first[0], 100, 4 << 30),
            with_memory(&first[1], 999, 2 << 30),
            with_memory(&pod, 250, 1 << 20),
            node("n3", T0, 300, 3 << 30),
            with_memory(&first[0], 100, 7),
        ];
        let c = store.commit_usage("test", "t", UsageSource::Prometheus, &second, &[], None).expect("memory");
        assert_eq!((c.samples, c.added, c.duplicates), (5, 4, 1));
        // A stored key: neither a stored cpu nor a stored memory changes,
        // even from a batch whose only other measure is NULL.
        let c = store
            .commit_usage(
                "test",
                "t",
                UsageSource::Prometheus,
                &[node("n1", T0, 1, 1), cpu_only("n2", T0, 5)],
                &[],
                None,
            )
            .expect("third");
        assert_eq!((c.added, c.duplicates), (0, 2));
        let rows = crate::run_query(
            &store,
            "usage_samples",
            &[("since_us".into(), "2026-11-13T00:00:00Z".into()), ("until_us".into(), "2026-11-13T00:01:00Z".into())],
        )
        .expect("query");
        let shown: Vec<String> = rows.rows.iter().map(|r| serde_json::to_string(&r[1..9]).expect("json")).collect();
        assert_eq!(
            shown,
            [
                r#"["node","n1",null,null,100,4294967296,"prometheus",1]"#,
                r#"["node","n2",null,null,200,2147483648,"prometheus",1]"#,
                r#"["node","n3",null,null,300,3221225472,"prometheus",2]"#,
                r#"["pod","n1","web","api-1",250,1048576,"prometheus",1]"#,
            ]
        );
    }

    #[test]
    fn samples_appended_straight_roll_back_with_their_window() {
        let dir = tempfile::tempdir().expect("tmp");
        let store = Store::open(&dir.path().join("u.duckdb")).expect("store");
        {
            let _tx = TransactionGuard::begin(&store).expect("begin");
            let held = kdrift_rebalance::Redactor::default();
            store.append_usage(1, UsageSource::Prometheus, &[node("n1", T0, 1, 1)], &held).expect("append");
            // Dropped without commit: a window that failed after its samples.
        }
        let n: i64 = store.conn.query_row("SELECT count(*) FROM usage_samples", [], |r| r.get(0)).expect("count");
        assert_eq!(n, 0, "the Appender writes in the connection's transaction");
    }
}
