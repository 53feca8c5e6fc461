//! Saved `kubectl top nodes` and `kubectl top pods -A` output: one measured
//! usage sample per row, all at one instant (the file's time or `--at`),
//! for the store's `usage_samples` (source `kubectl-top`; issue 37).
//!
//! The columns are found by their headers, so every kubectl era reads:
//! `CPU(cores)` / `CPU%` / `CPU(%)`, `MEMORY(bytes)` / `MEMORY%` /
//! `MEMORY(%)`. Amounts are Kubernetes quantities as kubectl prints them
//! (`250m`, `2` cores; `3012Mi`, `1Gi` bytes); `<unknown>` (a node
//! metrics-server has no reading for) is a sample not measured. A row
//! that does not parse is an input error naming the file and line; the
//! rows around it load.
//!
//! `kdrift ingest file` stores each such file as one ingest run of its own
//! ([`ingest_top_file`], `Store::commit_usage`): re-ingesting it adds
//! nothing (the same samples at the same instant).

use std::path::Path;

use chrono::{DateTime, Utc};
use kdrift_store::{Store, StoreError, UsageKind, UsageSample, UsageSource};

use crate::gzip::DecompressedCap;
use crate::interrupt::Interrupt;

/// What a saved `kubectl top` table holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum TopTable {
    /// `kubectl top nodes`: `NAME CPU(cores) CPU(%) MEMORY(bytes) MEMORY(%)`.
    Nodes,
    /// `kubectl top pods -A`: `NAMESPACE NAME CPU(cores) MEMORY(bytes)`.
    Pods,
}

/// Column positions of one table, from its header line.
struct Columns {
    table: TopTable,
    namespace: Option<usize>,
    name: usize,
    cpu: usize,
    memory: usize,
}

/// Which `kubectl top` table `header` (the first non-blank line) heads, if
/// any: `NAME` then `CPU(cores)` and `MEMORY(bytes)` columns (nodes also
/// have percentage columns; pods with `-A` a leading `NAMESPACE`).
pub fn top_table(header: &str) -> Option<TopTable> {
    columns(header).ok().map(|c| c.table)
}

/// Whether `head` (the first bytes of a file, decompressed) opens with a
/// `kubectl top` table header ([`top_table`]) on its first non-blank line.
pub(crate) fn is_top_head(head: &[u8]) -> bool {
    let head = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
    let text = String::from_utf8_lossy(&head[..head.len().min(4096)]);
    text.lines().find(|l| !l.trim().is_empty()).is_some_and(|l| top_table(l).is_some())
}

/// What one saved `kubectl top` file gave to `kdrift ingest file`.
#[derive(Debug, Clone, serde::Serialize)]
pub struct TopFileSummary {
    /// The file's path (absolute, as the run's location).
    pub location: String,
    /// Nodes or pods (`None`: the file could not be read).
    pub table: Option<TopTable>,
    /// The instant every sample is stored at: `--at`, else the file's
    /// modification time.
    pub at: DateTime<Utc>,
    /// The file's run in `ingest_runs`.
    pub run_id: i64,
    /// Samples read (rows that parse).
    pub samples: u64,
    /// Of which new to the store.
    pub added: u64,
    /// Of which the store already had (the same file ingested before).
    pub duplicates: u64,
    /// Input errors, `FILE:LINE: …` (the other rows are stored).
    pub errors: Vec<String>,
}

/// Reads the saved `kubectl top` table at `path` (gzip-compressed or not,
/// up to `cap`) and stores its samples with source `kubectl-top` at `at`,
/// else at the file's modification time, as one ingest run (source kind
/// `file`) with its input errors.
///
/// # Errors
/// [`StoreError`] (nothing of the file is stored).
pub fn ingest_top_file(
    store: &Store,
    path: &Path,
    at: Option<DateTime<Utc>>,
    cap: DecompressedCap,
    interrupt: &Interrupt,
) -> Result<TopFileSummary, StoreError> {
    let location = path.display().to_string();
    let modified = std::fs::metadata(path).and_then(|m| m.modified()).ok().map(DateTime::<Utc>::from);
    let at = at.or(modified).unwrap_or_else(Utc::now);
    // Stored in microseconds: said as stored.
    let at = DateTime::from_timestamp_micros(at.timestamp_micros()).unwrap_or(at);
    let (table, samples, errors) = match crate::files::read_maybe_gzip_until(path, cap, interrupt) {
        Err(e) => (None, Vec::new(), vec![e.to_string()]),
        Ok((bytes, damage)) => {
            let text = String::from_utf8_lossy(&bytes);
            let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
            let table = text.lines().find(|l| !l.trim().is_empty()).and_then(top_table);
            let (samples, mut errors) = parse_top(text, &location, at.timestamp_micros());
            errors.extend(damage.map(|d| d.to_string()));
            (table, samples, errors)
        }
    };
    let (samples, errors) = match crate::usage_times::implausible(at, Utc::now()) {
        Some(why) if !samples.is_empty() => {
            let refused = format!(
                "{location}: the table's time {why}: its {} sample(s) are not stored (give --at)",
                samples.len()
            );
            (Vec::new(), errors.into_iter().chain([refused]).collect())
        }
        _ => (samples, errors),
    };
    // The file's words, as shown and stored: credential shapes masked
    // (break-it 35 F4), as the NDJSON path's errors are.
    let errors: Vec<String> = errors.iter().map(|e| kdrift_rebalance::mask_shown(e)).collect();
    let commit = store.commit_usage("file", &location, UsageSource::KubectlTop, &samples, &errors, None)?;
    Ok(TopFileSummary {
        location,
        table,
        at,
        run_id: commit.run_id,
        samples: commit.samples,
        added: commit.added,
        duplicates: commit.duplicates,
        errors,
    })
}

fn columns(header: &str) -> Result<Columns, String> {
    let names: Vec<&str> = header.split_whitespace().collect();
    let at = |n: &str| names.iter().position(|c| c.eq_ignore_ascii_case(n));
    let (Some(name), Some(cpu), Some(memory)) = (at("NAME"), at("CPU(cores)"), at("MEMORY(bytes)")) else {
        return Err("not a `kubectl top` table: expected NAME, CPU(cores) and MEMORY(bytes) columns".to_string());
    };
    let namespace = at("NAMESPACE");
    let percent = names.iter().any(|c| c.starts_with("CPU%") || c.starts_with("CPU(%)"));
    let table = if percent { TopTable::Nodes } else { TopTable::Pods };
    Ok(Columns { table, namespace, name, cpu, memory })
}

/// An amount as kubectl prints it, or `None` for `<unknown>`.
fn amount(resource: &str, cell: &str) -> Result<Option<i64>, String> {
    if cell.eq_ignore_ascii_case("<unknown>") {
        return Ok(None);
    }
    kdrift_rebalance::parse_amount(resource, cell).map(Some).map_err(|e| format!("{resource} {e}"))
}

/// The samples of a saved `kubectl top` table at `at_us` (UTC µs), with the
/// input errors (`FILE:LINE: …`) of rows that do not parse. A table of
/// pods without a `NAMESPACE` column (`kubectl top pods` without `-A`) is
/// one error: the namespace is not known.
pub fn parse_top(text: &str, file: &str, at_us: i64) -> (Vec<UsageSample>, Vec<String>) {
    let mut lines = text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty());
    let Some((header_at, header)) = lines.next() else {
        return (Vec::new(), vec![format!("{file}: empty: expected a `kubectl top` table")]);
    };
    let cols = match columns(header) {
        Ok(c) => c,
        Err(e) => return (Vec::new(), vec![format!("{file}:{}: {e}", header_at + 1)]),
    };
    if cols.table == TopTable::Pods && cols.namespace.is_none() {
        return (
            Vec::new(),
            vec![format!(
                "{file}:{}: a `kubectl top pods` table without a NAMESPACE column: save `kubectl top pods -A`",
                header_at + 1
            )],
        );
    }
    let width = [Some(cols.name), Some(cols.cpu), Some(cols.memory), cols.namespace].into_iter().flatten().max();
    let mut samples = Vec::new();
    let mut errors = Vec::new();
    for (i, line) in lines {
        let cells: Vec<&str> = line.split_whitespace().collect();
        if width.is_some_and(|w| cells.len() <= w) {
            errors.push(format!("{file}:{}: {} column(s), expected those of the header", i + 1, cells.len()));
            continue;
        }
        let measured = amount("cpu", cells[cols.cpu]).and_then(|c| Ok((c, amount("memory", cells[cols.memory])?)));
        let (cpu_millis, memory_bytes) = match measured {
            Ok(m) => m,
            Err(e) => {
                errors.push(format!("{file}:{}: {}: {e}", i + 1, cells[cols.name]));
                continue;
            }
        };
        let name = cells[cols.name].to_string();
        samples.push(match cols.table {
            TopTable::Nodes => UsageSample {
                kind: UsageKind::Node,
                node: Some(name),
                namespace: None,
                pod: None,
                at_us,
                cpu_millis,
                memory_bytes,
            },
            TopTable::Pods => UsageSample {
                kind: UsageKind::Pod,
                node: None,
                namespace: cols.namespace.map(|n| cells[n].to_string()),
                pod: Some(name),
                at_us,
                cpu_millis,
                memory_bytes,
            },
        });
    }
    (samples, errors)
}

#[cfg(test)]
mod tests {
    use super::*;

    const AT: i64 = 1_795_838_400_000_000;

    #[test]
    fn node_tables_of_every_era_read_in_millicores_and_bytes() {
        let new = "NAME     CPU(cores)   CPU(%)   MEMORY(bytes)   MEMORY(%)\nnode-1   1942m        97%      4876Mi          61%\nnode-2   <unknown>    <unknown>   <unknown>   <unknown>\n";
        let old =
            "NAME     CPU(cores)   CPU%   MEMORY(bytes)   MEMORY%\nnode-1   2            100%   1Gi             12%\n";
        let (s, e) = parse_top(new, "top.txt", AT);
        assert_eq!(e, Vec::<String>::new());
        assert_eq!(top_table(new.lines().next().unwrap_or_default()), Some(TopTable::Nodes));
        assert_eq!(s.len(), 2);
        assert_eq!(
            (s[0].kind, s[0].node.as_deref(), s[0].cpu_millis, s[0].memory_bytes),
            (UsageKind::Node, Some("node-1"), Some(1942), Some(4876 * 1024 * 1024))
        );
        assert_eq!((s[1].cpu_millis, s[1].memory_bytes), (None, None), "<unknown> is not measured");
        let (s, _) = parse_top(old, "top.txt", AT);
        assert_eq!((s[0].cpu_millis, s[0].memory_bytes, s[0].at_us), (Some(2000), Some(1 << 30), AT));
    }

    #[test]
    fn pod_tables_need_the_namespace_and_a_bad_row_is_named_alone() {
        let text = "NAMESPACE   NAME                 CPU(cores)   MEMORY(bytes)\nweb         api-1                75m          128Mi\nweb         api-2                lots         128Mi\nbatch       queue-worker-x\nbatch       queue-worker-y       100m         64Mi\n";
        let (s, e) = parse_top(text, "pods.txt", AT);
        let got: Vec<(String, String, Option<i64>)> = s
            .iter()
            .map(|x| (x.namespace.clone().unwrap_or_default(), x.pod.clone().unwrap_or_default(), x.cpu_millis))
            .collect();
        assert_eq!(
            got,
            [("web".into(), "api-1".into(), Some(75)), ("batch".into(), "queue-worker-y".into(), Some(100))]
        );
        assert_eq!(e.len(), 2, "{e:?}");
        assert!(e[0].starts_with("pods.txt:3: api-2: cpu \"lots\" is not a quantity"), "{e:?}");
        assert_eq!(e[1], "pods.txt:4: 2 column(s), expected those of the header");
        let (s, e) = parse_top("NAME   CPU(cores)   MEMORY(bytes)\napi-1  75m  128Mi\n", "p.txt", AT);
        assert!(s.is_empty());
        assert_eq!(e, ["p.txt:1: a `kubectl top pods` table without a NAMESPACE column: save `kubectl top pods -A`"]);
        assert_eq!(top_table("NAME READY STATUS RESTARTS AGE"), None, "a kubectl get table is not one");
    }

    #[test]
    fn a_table_dated_9999_by_at_is_refused_naming_the_time() {
        // Break-it 35 F12: `--at 9999-12-31` stored the samples there.
        let dir = tempfile::tempdir().expect("tmp");
        let path = dir.path().join("top.txt");
        std::fs::write(
            &path,
            "NAME CPU(cores) CPU(%) MEMORY(bytes) MEMORY(%)\nn1 250m 12% 1Gi 10%\nn2 500m 25% 2Gi 20%\n",
        )
        .expect("write");
        let store = Store::open(&dir.path().join("t.duckdb")).expect("store");
        let at = DateTime::parse_from_rfc3339("9999-12-31T00:00:00Z").expect("at").with_timezone(&Utc);
        let cap = DecompressedCap::default();
        let summary = ingest_top_file(&store, &path, Some(at), cap, &Interrupt::new()).expect("ingest");
        assert_eq!((summary.samples, summary.added, summary.errors.len()), (0, 0, 1));
        let e = &summary.errors[0];
        assert!(
            e.starts_with(&format!("{}: the table's time 9999-12-31T00:00:00Z is before 1970", path.display())),
            "{e}"
        );
        assert!(e.ends_with("an instant no usage analysis takes: its 2 sample(s) are not stored (give --at)"), "{e}");
    }
}
