//! The benchmark data sets under `$KDRIFT_BENCH_DATA` (default
//! `$HOME/.cache/kdrift/bench-data`, outside the repository): one
//! directory per size with `facts.json` (written last: a directory without
//! it is incomplete and generated again), `events.ndjson`, `kubectl/` and
//! `store.duckdb`.

use std::path::{Path, PathBuf};
use std::time::Instant;

use kdrift_scenario::{ScaleConfig, ScaleFacts};
use kdrift_tests::fake_vlogs::storage::{parse_time, StoredRow};
use kdrift_tests::scale_data::{write, Outputs};
use serde_json::Value;

/// Where the data sets live.
pub fn root() -> PathBuf {
    match std::env::var_os("KDRIFT_BENCH_DATA") {
        Some(p) => PathBuf::from(p),
        None => {
            let home = std::env::var_os("HOME").map_or_else(|| PathBuf::from("/root"), PathBuf::from);
            home.join(".cache/kdrift/bench-data")
        }
    }
}

/// A generated data set.
pub struct DataSet {
    pub dir: PathBuf,
    pub facts: ScaleFacts,
}

impl DataSet {
    pub fn ndjson(&self) -> PathBuf {
        self.dir.join("events.ndjson")
    }
    pub fn store(&self) -> PathBuf {
        self.dir.join("store.duckdb")
    }
}

/// Generates into `dir` (emptied first) what `ndjson`/`kubectl`/`store` ask for.
pub fn generate(dir: &Path, config: &ScaleConfig, ndjson: bool, kubectl: bool, store: bool) -> Result<DataSet, String> {
    if dir.exists() {
        std::fs::remove_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let outputs = Outputs {
        ndjson: ndjson.then(|| dir.join("events.ndjson")),
        kubectl_dir: kubectl.then(|| dir.join("kubectl")),
        store: store.then(|| dir.join("store.duckdb")),
    };
    eprintln!(
        "generating {} events on {} nodes / {} pods into {} …",
        config.events,
        config.nodes,
        config.pods,
        dir.display()
    );
    let t = Instant::now();
    let facts = write(config, &outputs)?;
    eprintln!(
        "  done in {:.1} s ({} events, {} pod/node versions)",
        t.elapsed().as_secs_f64(),
        facts.events,
        facts.objects
    );
    let doc = serde_json::json!({ "config": config, "facts": facts });
    std::fs::write(dir.join("facts.json"), doc.to_string()).map_err(|e| e.to_string())?;
    Ok(DataSet { dir: dir.to_path_buf(), facts })
}

/// The data set in `dir` if it is complete and was made from `config`.
pub fn existing(dir: &Path, config: &ScaleConfig) -> Option<DataSet> {
    let text = std::fs::read_to_string(dir.join("facts.json")).ok()?;
    let doc: Value = serde_json::from_str(&text).ok()?;
    let found: ScaleConfig = serde_json::from_value(doc.get("config")?.clone()).ok()?;
    let facts: ScaleFacts = serde_json::from_value(doc.get("facts")?.clone()).ok()?;
    (found == *config).then(|| DataSet { dir: dir.to_path_buf(), facts })
}

/// The first `limit` rows of an exported NDJSON as the fake VictoriaLogs stores them.
/// Copies the first `limit` lines of `ndjson` (the rows [`stored_rows`]
/// reads) to `out`, for DuckDB's `read_json` to load the same rows.
pub fn copy_first_lines(ndjson: &Path, limit: usize, out: &Path) -> Result<(), String> {
    use std::io::{BufRead, Write};
    let file = std::fs::File::open(ndjson).map_err(|e| format!("{}: {e}", ndjson.display()))?;
    let mut to = std::io::BufWriter::new(std::fs::File::create(out).map_err(|e| format!("{}: {e}", out.display()))?);
    for line in std::io::BufReader::new(file).lines().take(limit) {
        let line = line.map_err(|e| format!("{}: {e}", ndjson.display()))?;
        writeln!(to, "{line}").map_err(|e| format!("{}: {e}", out.display()))?;
    }
    to.flush().map_err(|e| format!("{}: {e}", out.display()))
}

pub fn stored_rows(ndjson: &Path, limit: usize) -> Result<Vec<StoredRow>, String> {
    use std::io::BufRead;
    let file = std::fs::File::open(ndjson).map_err(|e| format!("{}: {e}", ndjson.display()))?;
    let mut rows = Vec::with_capacity(limit);
    let now = chrono::Utc::now();
    for line in std::io::BufReader::new(file).lines().take(limit) {
        let line = line.map_err(|e| format!("{}: {e}", ndjson.display()))?;
        let Ok(Value::Object(m)) = serde_json::from_str::<Value>(&line) else { continue };
        let mut fields = std::collections::BTreeMap::new();
        let mut time_ns = 0;
        for (k, v) in m {
            let v = v.as_str().unwrap_or_default().to_string();
            match k.as_str() {
                "_time" => time_ns = parse_time(&v, now).unwrap_or(0),
                "_stream_id" => {}
                _ => {
                    fields.insert(k, v);
                }
            }
        }
        rows.push(StoredRow { tenant: (0, 0), time_ns, fields });
    }
    Ok(rows)
}
