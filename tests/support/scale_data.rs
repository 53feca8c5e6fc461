//! Benchmark data from the scale generator
//! ([`kdrift_scenario::ScaleGen`]), written in one streaming pass:
//!
//! - `events.ndjson`: every Event version as VictoriaLogs exports it in the
//!   `raw` layout (kubernetes-event-exporter's webhook sink stored by
//!   `/insert/jsonline`, then one row of `/select/logsql/query`), what
//!   `kdrift ingest file` and `kdrift ingest victorialogs` read;
//! - `kubectl/{events,nodes,pods}.json`: `kubectl get … -A -o json` at the
//!   end (events: the last hour only, as the API still has them), written by
//!   the generator's [`KubectlDump`];
//! - `store.duckdb`: a ready store with every version (pods, nodes, events),
//!   loaded through the ordinary ingest writer in batches.
//!
//! Memory stays bounded by the cluster size (the generator's state, the
//! last hour of events), whatever the number of events.

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use kdrift_ingest::to_record;
use kdrift_ingest::Layout;
use kdrift_scenario::{core_v1_view, ScenarioRecord};
use kdrift_scenario::{KubectlDump, ScaleConfig, ScaleFacts, ScaleGen};
use kdrift_store::Store;
use kdrift_store::{RunStatus, RunWriter};
use serde_json::Value;

use crate::fake_vlogs::storage::{ingest as vl_ingest, InsertArgs, StoredRow};
use crate::shippers::{format, Seen, Sighting};

/// Which files to write.
#[derive(Debug, Clone, Default)]
pub struct Outputs {
    /// The VictoriaLogs export (NDJSON, `raw` layout).
    pub ndjson: Option<PathBuf>,
    /// A directory for the kubectl dumps.
    pub kubectl_dir: Option<PathBuf>,
    /// A store file to create.
    pub store: Option<PathBuf>,
}

/// Records staged per committed batch of the ready store.
const STORE_BATCH: u64 = 250_000;

fn raw_args() -> InsertArgs {
    let (args, _) = format(Layout::Raw, &[]);
    let mut out = InsertArgs::default();
    for pair in args.split('&') {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        let list = v.split(',').map(str::to_string).collect();
        match k {
            "_msg_field" => out.msg_fields = list,
            "_time_field" => out.time_fields = list,
            "_stream_fields" => out.stream_fields = list,
            _ => {}
        }
    }
    out
}

/// The VictoriaLogs row of one Event version in the `raw` layout (`None`
/// for anything else).
pub fn raw_row(r: &ScenarioRecord, args: &InsertArgs) -> Option<StoredRow> {
    if r.object.get("kind").and_then(Value::as_str) != Some("Event") {
        return None;
    }
    let sighting = Sighting { observed_at: r.observed_at, seen: Seen::Added, object: core_v1_view(&r.object) };
    let (_, lines) = format(Layout::Raw, std::slice::from_ref(&sighting));
    let line = lines.into_iter().next()?;
    vl_ingest(&line, args, (0, 0), r.observed_at).0.into_iter().next()
}

/// Streams the history of `config` into the files of `outputs`.
///
/// # Errors
/// A message naming the file or the store step that failed.
pub fn write(config: &ScaleConfig, outputs: &Outputs) -> Result<ScaleFacts, String> {
    let args = raw_args();
    let mut ndjson = match &outputs.ndjson {
        Some(p) => Some(BufWriter::with_capacity(1 << 20, create(p)?)),
        None => None,
    };
    let store = match &outputs.store {
        Some(p) => {
            if p.exists() {
                std::fs::remove_file(p).map_err(|e| format!("{}: {e}", p.display()))?;
            }
            Some(Store::open(p).map_err(|e| format!("{}: {e}", p.display()))?)
        }
        None => None,
    };
    let mut writer = match &store {
        Some(s) => Some(RunWriter::begin(s, "bench", "scale-generator").map_err(|e| e.to_string())?),
        None => None,
    };
    let mut dump = outputs.kubectl_dir.is_some().then(KubectlDump::new);
    let mut failure: Option<String> = None;
    let mut staged = 0u64;
    let mut gen = ScaleGen::new(config);
    let facts = gen.run(&mut |r: ScenarioRecord| {
        if failure.is_some() {
            return;
        }
        if let Some(out) = ndjson.as_mut() {
            if let Some(row) = raw_row(&r, &args) {
                if let Err(e) = writeln!(out, "{}", row.to_line()) {
                    failure = Some(format!("writing the NDJSON: {e}"));
                }
            }
        }
        if let Some(d) = dump.as_mut() {
            d.observe(&r);
        }
        if let Some(w) = writer.as_mut() {
            match w.stage(to_record(r, "scale-generator")) {
                Ok(Ok(())) => staged += 1,
                Ok(Err(e)) => failure = Some(format!("a generated record is not an object: {e}")),
                Err(e) => failure = Some(format!("staging: {e}")),
            }
            // Also by bytes: the store's memory limit bounds a batch (issue 39).
            if staged > 0 && (staged.is_multiple_of(STORE_BATCH) || w.pending_bytes() >= w.max_batch_bytes()) {
                if let Err(e) = w.commit_batch(0) {
                    failure = Some(format!("committing a batch: {e}"));
                }
            }
        }
    });
    if let Some(f) = failure {
        return Err(f);
    }
    if let Some(mut out) = ndjson {
        out.flush().map_err(|e| format!("writing the NDJSON: {e}"))?;
    }
    if let Some(w) = writer {
        w.commit(RunStatus::Ok, 0).map_err(|e| format!("committing the store: {e}"))?;
    }
    if let Some(s) = &store {
        // As `kdrift ingest` does after a run: the name index sorted (schema
        // v11), the bindings sorted by node (v12), the drain moves kept (v9).
        s.sort_name_index().map_err(|e| format!("sorting the name index: {e}"))?;
        s.sort_pod_bindings().map_err(|e| format!("sorting the bindings: {e}"))?;
        crate::keep_moves(s).map_err(|e| format!("keeping the drain moves: {e}"))?;
    }
    if let (Some(dir), Some(d)) = (&outputs.kubectl_dir, dump) {
        d.write(dir, &gen, facts.end)?;
    }
    Ok(facts)
}

fn create(p: &Path) -> Result<std::fs::File, String> {
    if let Some(dir) = p.parent() {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    std::fs::File::create(p).map_err(|e| format!("{}: {e}", p.display()))
}
