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
//! `kubectl top pods -A --containers` (`NAMESPACE POD NAME CPU(cores)
//! MEMORY(bytes)`, `NAME` the container) gives each pod one sample, the
//! sum of its containers' rows (a pod's usage is its containers'; break-it
//! 40 F5: the container was stored as the pod); a container not measured
//! (`<unknown>`) leaves its pod's amount not measured.
//!
//! A file may hold several tables one after another (`(kubectl top nodes;
//! kubectl top pods -A) > top.txt`): each header line starts a table read
//! with its own columns.
//!
//! `kdrift ingest file` stores each such file as one ingest run of its own
//! ([`ingest_top_file`], `Store::commit_usage`): re-ingesting it adds
//! nothing (the same samples at the same instant).

use std::path::Path;

use chrono::{DateTime, Utc};
use kdrift_store::{Store, StoreError, UsageKind, UsageSample, UsageSource};

use crate::gzip::DecompressedCap;
use crate::interrupt::Interrupt;
use crate::kept_errors::{keep, more_errors};

/// Rows parsed between two looks at the interrupt (SIGINT, SIGTERM).
const ROWS_PER_INTERRUPT_CHECK: usize = 4096;

/// The lines of `text`, ended by `\n`, `\r\n` or a lone `\r` (old Mac
/// line ends, as the NDJSON reader takes them), without their ends.
fn lines_of(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = Some(text);
    std::iter::from_fn(move || {
        let t = rest?;
        match t.find(['\n', '\r']) {
            Some(i) => {
                let end = if t[i..].starts_with("\r\n") { i + 2 } else { i + 1 };
                rest = Some(&t[end..]);
                Some(&t[..i])
            }
            None => {
                rest = None;
                (!t.is_empty()).then_some(t)
            }
        }
    })
}

/// `bytes` as text: UTF-16 (with a byte-order mark, as PowerShell writes
/// it) decoded, else UTF-8 without its byte-order mark; true when a code
/// unit did not decode.
fn text_of(bytes: &[u8]) -> (std::borrow::Cow<'_, str>, bool) {
    if let Some((text, lossy)) = crate::parse::utf16_decode(bytes) {
        return (text.into(), lossy);
    }
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    (String::from_utf8_lossy(bytes), false)
}

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
    /// `POD` (`kubectl top pods --containers`): `name` is then the container.
    pod: Option<usize>,
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
    let (text, _) = text_of(&head[..head.len().min(4096)]);
    let found = lines_of(&text).find(|l| !l.trim().is_empty()).is_some_and(|l| top_table(l).is_some());
    found
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
    /// Input errors, `FILE:LINE: …` (the other rows are stored): the first
    /// 100 (`KEPT_ERRORS_PER_FILE`), then one "… and N more errors like
    /// these" when there were more.
    pub errors: Vec<String>,
    /// Input errors in all, the ones only counted included (the "… more"
    /// line itself not).
    pub error_total: u64,
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
    ingest_top_file_named(store, path, &path.display().to_string(), at, cap, interrupt)
}

/// [`ingest_top_file`] with `location` stored and reported for the file
/// instead of its path (`<stdin>` for `kdrift ingest file -`).
///
/// # Errors
/// Only [`StoreError`]s abort; input problems are in the summary.
pub(crate) fn ingest_top_file_named(
    store: &Store,
    path: &Path,
    location: &str,
    at: Option<DateTime<Utc>>,
    cap: DecompressedCap,
    interrupt: &Interrupt,
) -> Result<TopFileSummary, StoreError> {
    let location = location.to_string();
    let modified = std::fs::metadata(path).and_then(|m| m.modified()).ok().map(DateTime::<Utc>::from);
    let at = at.or(modified).unwrap_or_else(Utc::now);
    // Stored in microseconds: said as stored.
    let at = DateTime::from_timestamp_micros(at.timestamp_micros()).unwrap_or(at);
    let (table, samples, errors, error_total) = match crate::files::read_maybe_gzip_until(path, cap, interrupt) {
        Err(e) => (None, Vec::new(), vec![e.to_string()], 1),
        Ok((bytes, damage)) => {
            let (text, lossy) = text_of(&bytes);
            let table = lines_of(&text).find(|l| !l.trim().is_empty()).and_then(top_table);
            let mut top = parse_rows(&text, &location, at.timestamp_micros(), interrupt);
            let first = lossy.then(|| format!("{location}: {}", crate::parse::UTF16_LOSSY));
            for e in first.into_iter().chain(damage.iter().map(ToString::to_string)) {
                keep(&mut top.errors, &mut top.not_kept, e);
            }
            let total = top.errors.len() as u64 + top.not_kept;
            let samples = std::mem::take(&mut top.samples);
            (table, samples, top.close(&location), total)
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
        error_total,
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
    let pod = if table == TopTable::Pods { at("POD") } else { None };
    Ok(Columns { table, namespace, pod, name, cpu, memory })
}

/// An amount as kubectl prints it, or `None` for `<unknown>`.
fn amount(resource: &str, cell: &str) -> Result<Option<i64>, String> {
    if cell.eq_ignore_ascii_case("<unknown>") {
        return Ok(None);
    }
    kdrift_rebalance::parse_amount(resource, cell).map(Some).map_err(|e| format!("{resource} {e}"))
}

/// The samples of a saved `kubectl top` table at `at_us` (UTC µs), with the
/// input errors (`FILE:LINE: …`) of rows that do not parse: the first
/// 100 (`KEPT_ERRORS_PER_FILE`), then one "… and N more errors like
/// these". A table of pods without a `NAMESPACE` column (`kubectl top pods`
/// without `-A`) is one error: the namespace is not known. A node (or pod)
/// listed again with other amounts is an input error naming both lines
/// (the first is kept); a header without any row is an error naming the
/// file. Lines end with `\n`, `\r\n` or a lone `\r`.
pub fn parse_top(text: &str, file: &str, at_us: i64) -> (Vec<UsageSample>, Vec<String>) {
    let mut rows = parse_rows(text, file, at_us, &Interrupt::new());
    let samples = std::mem::take(&mut rows.samples);
    (samples, rows.close(file))
}

/// The line, millicores and bytes of a node's (pod's) first row.
type FirstRow = (usize, Option<i64>, Option<i64>);

/// What [`parse_rows`] read.
struct Rows {
    samples: Vec<UsageSample>,
    /// Kept in full ([`keep`]).
    errors: Vec<String>,
    /// Only counted.
    not_kept: u64,
}

impl Rows {
    /// The kept errors, and one saying how many more when any were counted.
    fn close(mut self, file: &str) -> Vec<String> {
        if self.not_kept > 0 {
            self.errors.push(format!("{file}: {}", more_errors(self.not_kept, file)));
        }
        self.errors
    }
}

/// [`parse_top`], stopping at the next row once `interrupt` is triggered
/// (looked at every [`ROWS_PER_INTERRUPT_CHECK`] rows).
fn parse_rows(text: &str, file: &str, at_us: i64, interrupt: &Interrupt) -> Rows {
    let mut rows = Rows { samples: Vec::new(), errors: Vec::new(), not_kept: 0 };
    let mut lines = lines_of(text).enumerate().filter(|(_, l)| !l.trim().is_empty());
    let Some((header_at, header)) = lines.next() else {
        rows.errors.push(format!("{file}: empty: expected a `kubectl top` table"));
        return rows;
    };
    // The table being read: its columns and width, `None` while reading
    // past a table that cannot be read (pods without a NAMESPACE column).
    let mut table = match start_table(header, file, header_at) {
        Ok(table) => Some(table),
        Err(e) => {
            rows.errors.push(e);
            // A header that is not `kubectl top`'s: nothing after it reads.
            if columns(header).is_err() {
                return rows;
            }
            None
        }
    };
    // The header line and rows of the table being read (a header alone is
    // an error).
    let (mut table_at, mut table_rows) = (header_at, 0usize);
    // (namespace, name, container) → (line, cpu, memory) of its first row.
    let mut seen: std::collections::HashMap<(String, String, String), FirstRow> = std::collections::HashMap::new();
    // (namespace, pod) → its sample in `rows.samples`, its containers' sum
    // (a table of containers).
    let mut pods: std::collections::HashMap<(String, String), usize> = std::collections::HashMap::new();
    let mut read = 0usize;
    for (i, line) in lines {
        read += 1;
        if read.is_multiple_of(ROWS_PER_INTERRUPT_CHECK) && interrupt.is_triggered() {
            rows.errors.push(format!(
                "{file}:{}: reading stopped on an interrupt (SIGINT or SIGTERM): the rows from here on are not read",
                i + 1
            ));
            return rows;
        }
        // Another table follows (`(kubectl top nodes; kubectl top pods -A)
        // > top.txt`, break-it 42 L1: its 50 pod rows were 50 errors):
        // read on with its columns. No row holds `CPU(cores)`.
        if columns(line).is_ok() {
            if table_rows == 0 && table.is_some() {
                let e = format!("{file}:{}: a `kubectl top` header without any row: nothing to store", table_at + 1);
                keep(&mut rows.errors, &mut rows.not_kept, e);
            }
            (table_at, table_rows) = (i, 0);
            table = start_table(line, file, i).map_err(|e| keep(&mut rows.errors, &mut rows.not_kept, e)).ok();
            continue;
        }
        let Some((cols, width)) = &table else { continue };
        let (cols, width) = (cols, *width);
        table_rows += 1;
        let cells: Vec<&str> = line.split_whitespace().collect();
        if cells.len() != width {
            let e = format!("{file}:{}: {} column(s), expected the header's {width}", i + 1, cells.len());
            keep(&mut rows.errors, &mut rows.not_kept, e);
            continue;
        }
        // No Kubernetes name holds a control character (ESC, DEL, …): the
        // store's rule for names (`kdrift_store`'s `check_names`). Stored,
        // it reached the terminal raw (break-it 34).
        let names = [
            cols.namespace.map(|n| ("namespace", cells[n])),
            cols.pod.map(|p| ("pod", cells[p])),
            Some(("name", cells[cols.name])),
        ];
        if let Some((column, cell, character)) =
            names.into_iter().flatten().find_map(|(c, v)| kdrift_rebalance::first_control(v).map(|x| (c, v, x)))
        {
            let e = format!(
                "{file}:{}: {column} \"{}\" holds the control character {character}; expected a Kubernetes name \
                 (DNS-1123: no control character)",
                i + 1,
                kdrift_rebalance::visible(cell)
            );
            keep(&mut rows.errors, &mut rows.not_kept, e);
            continue;
        }
        // No Kubernetes name holds '/' either: a pod `a/b` of namespace
        // `web` would be stored as `web/a/b`, one name two ways
        // (break-it 40 F11; Prometheus labels likewise, break-it 37 F6).
        if let Some((column, cell)) = names.into_iter().flatten().find(|(_, v)| v.contains('/')) {
            let e = format!(
                "{file}:{}: {column} \"{}\" holds '/', which no Kubernetes name holds; expected a Kubernetes name \
                 (DNS-1123); this row is skipped",
                i + 1,
                kdrift_rebalance::visible(cell)
            );
            keep(&mut rows.errors, &mut rows.not_kept, e);
            continue;
        }
        let measured = amount("cpu", cells[cols.cpu]).and_then(|c| Ok((c, amount("memory", cells[cols.memory])?)));
        let (cpu_millis, memory_bytes) = match measured {
            Ok(m) => m,
            Err(e) => {
                keep(&mut rows.errors, &mut rows.not_kept, format!("{file}:{}: {}: {e}", i + 1, cells[cols.name]));
                continue;
            }
        };
        // With a POD column, NAME is the container.
        let (name, container) = match cols.pod {
            Some(p) => (cells[p].to_string(), Some(cells[cols.name].to_string())),
            None => (cells[cols.name].to_string(), None),
        };
        let namespace = cols.namespace.map(|n| cells[n].to_string());
        let key = (namespace.clone().unwrap_or_default(), name.clone(), container.clone().unwrap_or_default());
        if let Some(&(first, cpu, memory)) = seen.get(&key) {
            if (cpu, memory) != (cpu_millis, memory_bytes) {
                let what = match (&namespace, &container) {
                    (Some(ns), Some(c)) => format!("container {c} of pod {ns}/{name}"),
                    (Some(ns), None) => format!("pod {ns}/{name}"),
                    (None, _) => format!("node {name}"),
                };
                let e = format!(
                    "{file}:{}: {what} again with other amounts (cpu {}, memory {} here; cpu {}, memory {} at line \
                     {first}, which is kept)",
                    i + 1,
                    shown(cpu_millis, "m"),
                    shown(memory_bytes, " bytes"),
                    shown(cpu, "m"),
                    shown(memory, " bytes"),
                );
                keep(&mut rows.errors, &mut rows.not_kept, e);
            }
            continue;
        }
        seen.insert(key, (i + 1, cpu_millis, memory_bytes));
        if container.is_some() {
            let pod_key = (namespace.clone().unwrap_or_default(), name.clone());
            if let Some(&at) = pods.get(&pod_key) {
                let sample = &mut rows.samples[at];
                sample.cpu_millis = summed(sample.cpu_millis, cpu_millis);
                sample.memory_bytes = summed(sample.memory_bytes, memory_bytes);
                continue;
            }
            pods.insert(pod_key, rows.samples.len());
        }
        rows.samples.push(match cols.table {
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
                namespace,
                pod: Some(name),
                at_us,
                cpu_millis,
                memory_bytes,
            },
        });
    }
    if table_rows == 0 && table.is_some() {
        rows.errors.push(format!("{file}:{}: a `kubectl top` header without any row: nothing to store", table_at + 1));
    }
    rows
}

/// The columns and width (cells a row has, no fewer and no more: a row
/// with an extra cell, a name holding a space or a pasted column, was read
/// by position and its last cell dropped, break-it 34) of the table whose
/// header is `header` at 0-based line `at`; `Err` naming `file` and the
/// line when it cannot be read: not `kubectl top`'s, or pods without a
/// NAMESPACE column (the namespace is not known).
fn start_table(header: &str, file: &str, at: usize) -> Result<(Columns, usize), String> {
    let cols = columns(header).map_err(|e| format!("{file}:{}: {e}", at + 1))?;
    if cols.table == TopTable::Pods && cols.namespace.is_none() {
        return Err(format!(
            "{file}:{}: a `kubectl top pods` table without a NAMESPACE column: save `kubectl top pods -A`; its rows \
             are not read",
            at + 1
        ));
    }
    Ok((cols, header.split_whitespace().count()))
}

/// Two containers' amounts added: not measured (`None`) when either is not
/// (or the sum overflows).
fn summed(a: Option<i64>, b: Option<i64>) -> Option<i64> {
    a?.checked_add(b?)
}

/// An amount with its unit, or `<unknown>`.
fn shown(amount: Option<i64>, unit: &str) -> String {
    amount.map_or_else(|| "<unknown>".to_string(), |a| format!("{a}{unit}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const AT: i64 = 1_795_838_400_000_000;

    /// Break-it 40 F5: `kubectl top pods -A --containers` stored the
    /// container (`c1`) as the pod, and a second pod's `c1` was dropped as
    /// "pod default/c1 again".
    #[test]
    fn a_table_of_containers_gives_each_pod_the_sum_of_its_containers() {
        let text = "NAMESPACE   POD   NAME   CPU(cores)   MEMORY(bytes)\ndefault     web-1 c1     5m           20Mi\n\
                    default     web-1 c2     1m           2Mi\ndefault     web-2 c1     7m           3Mi\n\
                    default     web-2 c1     7m           3Mi\nkube-system dns   c1     <unknown>    1Mi\n\
                    kube-system dns   c2     2m           1Mi\n";
        let (s, e) = parse_top(text, "top.txt", AT);
        assert_eq!(e, Vec::<String>::new());
        type Row<'a> = (UsageKind, Option<&'a str>, Option<&'a str>, Option<i64>, Option<i64>);
        let got: Vec<Row<'_>> = s
            .iter()
            .map(|s| (s.kind, s.namespace.as_deref(), s.pod.as_deref(), s.cpu_millis, s.memory_bytes))
            .collect();
        assert_eq!(
            got,
            [
                (UsageKind::Pod, Some("default"), Some("web-1"), Some(6), Some(22 << 20)),
                (UsageKind::Pod, Some("default"), Some("web-2"), Some(7), Some(3 << 20)),
                (UsageKind::Pod, Some("kube-system"), Some("dns"), None, Some(2 << 20)),
            ]
        );
        let again = "NAMESPACE POD NAME CPU(cores) MEMORY(bytes)\nd web-2 c1 7m 3Mi\nd web-2 c1 8m 3Mi\n";
        let (s, e) = parse_top(again, "t", AT);
        assert_eq!((s.len(), s[0].cpu_millis), (1, Some(7)));
        assert_eq!(
            e,
            ["t:3: container c1 of pod d/web-2 again with other amounts (cpu 8m, memory 3145728 bytes here; cpu 7m, \
              memory 3145728 bytes at line 2, which is kept)"]
        );
    }

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
        assert_eq!(e[1], "pods.txt:4: 2 column(s), expected the header's 4");
        let (s, e) = parse_top("NAME   CPU(cores)   MEMORY(bytes)\napi-1  75m  128Mi\n", "p.txt", AT);
        assert!(s.is_empty());
        assert_eq!(e, ["p.txt:1: a `kubectl top pods` table without a NAMESPACE column: save `kubectl top pods -A`; its rows are not read"]);
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

    const NODES: &str = "NAME     CPU(cores)   CPU(%)   MEMORY(bytes)   MEMORY(%)";

    /// Break-it 42 L1: nodes and pods in one file stored the 50 node rows;
    /// the 50 pod rows were errors (`4 column(s), expected the header's 5`).
    #[test]
    fn tables_one_after_another_each_read_with_their_own_columns() {
        let pods = "NAMESPACE   NAME   CPU(cores)   MEMORY(bytes)";
        let text = [
            NODES,
            "node-1   250m   12%   3012Mi   40%",
            pods,
            "web   api-1   20m   64Mi",
            "web   api-2   30m   1",
            NODES,
            "NAME   CPU(cores)   MEMORY(bytes)",
            "lost   1m   1Mi",
            pods,
            "web   api-3   5m   2Mi",
        ]
        .join("\n");
        let (s, e) = parse_top(&text, "top.txt", AT);
        type Row<'a> = (UsageKind, Option<&'a str>, Option<&'a str>, Option<i64>);
        let got: Vec<Row<'_>> = s.iter().map(|x| (x.kind, x.node.as_deref(), x.pod.as_deref(), x.cpu_millis)).collect();
        assert_eq!(
            got,
            [
                (UsageKind::Node, Some("node-1"), None, Some(250)),
                (UsageKind::Pod, None, Some("api-1"), Some(20)),
                (UsageKind::Pod, None, Some("api-2"), Some(30)),
                (UsageKind::Pod, None, Some("api-3"), Some(5)),
            ]
        );
        assert_eq!(s[1].namespace.as_deref(), Some("web"));
        assert_eq!(
            e,
            [
                "top.txt:6: a `kubectl top` header without any row: nothing to store",
                "top.txt:7: a `kubectl top pods` table without a NAMESPACE column: save `kubectl top pods -A`; its \
                 rows are not read"
            ]
        );
    }

    #[test]
    fn bare_cr_and_crlf_rows_read_and_a_header_alone_is_an_error() {
        // break-it 35 F9: lone `\r` line ends gave 0 samples and 0 errors.
        for end in ["\r", "\r\n"] {
            let text = [NODES, "node-1   250m   12%   3012Mi   40%", "node-2   900m   45%   1Gi   13%", ""].join(end);
            let (s, e) = parse_top(&text, "top.txt", AT);
            let got: Vec<(Option<&str>, Option<i64>, Option<i64>)> =
                s.iter().map(|x| (x.node.as_deref(), x.cpu_millis, x.memory_bytes)).collect();
            assert_eq!(
                got,
                [(Some("node-1"), Some(250), Some(3012 << 20)), (Some("node-2"), Some(900), Some(1 << 30))]
            );
            assert_eq!(e, Vec::<String>::new());
        }
        let (s, e) = parse_top(&format!("{NODES}\r\r"), "top.txt", AT);
        assert!(s.is_empty());
        assert_eq!(e, ["top.txt:1: a `kubectl top` header without any row: nothing to store"]);
        assert!(is_top_head(format!("{NODES}\rnode-1 1m 1% 1Mi 1%").as_bytes()));
    }

    #[test]
    fn a_node_listed_again_with_other_amounts_is_an_error_naming_both_lines() {
        let text = format!("{NODES}\nnode-1 250m 12% 3012Mi 40%\nnode-2 1 50% 1Gi 13%\nnode-1 900m 45% 3012Mi 40%\nnode-2 1 50% 1Gi 13%\n");
        let (s, e) = parse_top(&text, "top.txt", AT);
        let got: Vec<(Option<&str>, Option<i64>)> = s.iter().map(|x| (x.node.as_deref(), x.cpu_millis)).collect();
        assert_eq!(got, [(Some("node-1"), Some(250)), (Some("node-2"), Some(1000))]);
        assert_eq!(
            e,
            ["top.txt:4: node node-1 again with other amounts (cpu 900m, memory 3158310912 bytes here; cpu 250m, \
              memory 3158310912 bytes at line 2, which is kept)"]
        );
        let pods = "NAMESPACE NAME CPU(cores) MEMORY(bytes)\nweb api 1m 1Mi\nbatch api 2m 1Mi\nweb api 3m 1Mi\n";
        let (s, e) = parse_top(pods, "p.txt", AT);
        assert_eq!(s.len(), 2, "the same name in another namespace is another pod");
        assert_eq!(
            e,
            ["p.txt:4: pod web/api again with other amounts (cpu 3m, memory 1048576 bytes here; cpu 1m, memory \
              1048576 bytes at line 2, which is kept)"]
        );
    }

    #[test]
    fn errors_past_the_first_hundred_are_counted_in_one_line() {
        // break-it 35 F5: 300,000 bad rows gave 300,003 errors printed and stored.
        let mut text = format!("{NODES}\nnode-a 1 1% 1Gi 1%\n");
        for i in 0..250 {
            text.push_str(&format!("node-b{i} x{i} 1% 1Gi 1%\n"));
        }
        text.push_str("node-c 2 1% 1Gi 1%\n");
        let (s, e) = parse_top(&text, "top.txt", AT);
        assert_eq!(s.len(), 2);
        assert_eq!(e.len(), 101);
        assert!(e[99].starts_with("top.txt:102: node-b99: cpu \"x99\" is not a quantity"), "{}", e[99]);
        assert_eq!(
            e[100],
            "top.txt: … and 150 more errors like these in top.txt (only the first 100 are shown and stored; the \
             others are counted)"
        );
    }

    #[test]
    fn a_name_with_a_control_character_or_a_row_with_an_extra_column_is_an_error_naming_its_line() {
        // Break-it 34: a node name holding ESC was stored raw, and a row
        // with one cell more than its header was stored, that cell dropped.
        let text = format!(
            "{NODES}\nnode-1 250m 12% 1Gi 40%\nno\u{1b}[2Jde 1 50% 1Gi 13%\nnode-3 1 50% 1Gi 13% extra\n\
             node\u{7f}4 1 50% 1Gi 13%\nnode-5 2 99% 2Gi 26%\n"
        );
        let (s, e) = parse_top(&text, "top.txt", AT);
        let got: Vec<(Option<&str>, Option<i64>)> = s.iter().map(|x| (x.node.as_deref(), x.cpu_millis)).collect();
        assert_eq!(got, [(Some("node-1"), Some(250)), (Some("node-5"), Some(2000))]);
        assert_eq!(
            e,
            [
                "top.txt:3: name \"no\\e[2Jde\" holds the control character \\e; expected a Kubernetes name \
                 (DNS-1123: no control character)",
                "top.txt:4: 6 column(s), expected the header's 5",
                "top.txt:5: name \"node\\x7f4\" holds the control character \\x7f; expected a Kubernetes name \
                 (DNS-1123: no control character)",
            ]
        );
        // Break-it 43 L1: a BOM (invisible) inside a name was stored, matching no node.
        let (s, e) =
            parse_top(&format!("{NODES}\nnode-1 250m 12% 1Gi 40%\n\u{feff}node-2 1 50% 1Gi 13%\n"), "b.txt", AT);
        assert_eq!(s.len(), 1);
        assert_eq!(
            e,
            ["b.txt:3: name \"\\u{feff}node-2\" holds the control character \\u{feff}; expected a Kubernetes name \
              (DNS-1123: no control character)"]
        );
        let pods = "NAMESPACE NAME CPU(cores) MEMORY(bytes)\nw\u{7}eb api 1m 1Mi\nweb api 1m 1Mi\n";
        let (s, e) = parse_top(pods, "p.txt", AT);
        assert_eq!(s.len(), 1);
        assert_eq!(
            e,
            ["p.txt:2: namespace \"w\\x07eb\" holds the control character \\x07; expected a Kubernetes name \
              (DNS-1123: no control character)"]
        );
    }

    #[test]
    fn a_table_saved_as_utf16_reads_as_its_utf8_copy() {
        // break-it 35 F10: PowerShell's `kubectl top nodes > top.txt`.
        let text = format!("{NODES}\r\nnode-1 250m 12% 1Gi 40%\r\n");
        let le: Vec<u8> = b"\xFF\xFE".iter().copied().chain(text.encode_utf16().flat_map(u16::to_le_bytes)).collect();
        let be: Vec<u8> = b"\xFE\xFF".iter().copied().chain(text.encode_utf16().flat_map(u16::to_be_bytes)).collect();
        for bytes in [le, be] {
            assert!(is_top_head(&bytes));
            let (decoded, lossy) = text_of(&bytes);
            assert!(!lossy);
            let (s, e) = parse_top(&decoded, "top.txt", AT);
            assert_eq!((s.len(), s[0].cpu_millis, e.len()), (1, Some(250), 0));
        }
    }
}
