//! The command benchmarks' inputs, generated once under
//! `$KDRIFT_BENCH_DATA`: the events data set (the store bench's), its
//! Event versions as kubectl-shaped NDJSON, the bench cluster's pod List as
//! JSON and YAML, and rows loaded into a real VictoriaLogs.

use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use chrono::{DateTime, Utc};
use kdrift_scenario::{core_v1_view, ScaleConfig, ScaleGen, ScenarioRecord};
use kdrift_tests::real_vlogs::RealVlogs;
use serde_json::Value;

use crate::data;

fn create(p: &Path) -> Result<BufWriter<File>, String> {
    File::create(p).map(|f| BufWriter::with_capacity(1 << 20, f)).map_err(|e| format!("{}: {e}", p.display()))
}

/// The events data set of `KDRIFT_BENCH_EVENTS` events (default 1M), the
/// store bench's directory (`1m/` or `events-N/`), generated when missing,
/// and its configuration. `KDRIFT_BENCH_EVENT_NODES` (default 5,000, 30
/// pods a node) makes a smaller cluster, in `events-N-nodes-M/`.
pub fn events_set() -> Result<(data::DataSet, ScaleConfig), String> {
    let events = crate::env_number("KDRIFT_BENCH_EVENTS", 1_000_000)?;
    let nodes = crate::env_number("KDRIFT_BENCH_EVENT_NODES", 5000)? as u32;
    let mut name = if events == 1_000_000 { "1m".to_string() } else { format!("events-{events}") };
    let mut config = ScaleConfig::issue6(events);
    if nodes != config.nodes {
        // A smaller cluster for a quick check (the generator's time is the cluster's).
        name = format!("{name}-nodes-{nodes}");
        config.pods = config.pods / config.nodes * nodes;
        config.nodes = nodes;
    }
    let dir = data::root().join(name);
    let set = match data::existing(&dir, &config) {
        Some(set) => set,
        None => data::generate(&dir, &config, true, true, true)?,
    };
    Ok((set, config))
}

/// `kubectl-events.ndjson` of the data set: every Event version of its
/// history (the generator run again with the same configuration) in
/// core/v1 form, `kubectl get events -o json`'s item shape, one per line.
pub fn kubectl_events(set: &data::DataSet, config: &ScaleConfig) -> Result<PathBuf, String> {
    let file = set.dir.join("kubectl-events.ndjson");
    if file.exists() {
        return Ok(file);
    }
    let partial = set.dir.join("kubectl-events.ndjson.partial");
    let mut out = create(&partial)?;
    let t = Instant::now();
    let mut failure = None;
    let mut written = 0u64;
    ScaleGen::new(config).run(&mut |r: ScenarioRecord| {
        if failure.is_some() || r.object.get("kind").and_then(Value::as_str) != Some("Event") {
            return;
        }
        let line = core_v1_view(&r.object).to_string();
        match writeln!(out, "{line}") {
            Ok(()) => written += 1,
            Err(e) => failure = Some(format!("{}: {e}", partial.display())),
        }
    });
    if let Some(f) = failure {
        return Err(f);
    }
    out.flush().map_err(|e| format!("{}: {e}", partial.display()))?;
    drop(out);
    std::fs::rename(&partial, &file).map_err(|e| e.to_string())?;
    eprintln!("generated {written} kubectl-shaped events in {:.1} s", t.elapsed().as_secs_f64());
    Ok(file)
}

/// The pod List of the bench cluster, as JSON and as YAML.
pub struct PodLists {
    /// `kubectl get pods -A -o json`.
    pub json: PathBuf,
    /// `kubectl get pods -A -o yaml`.
    pub yaml: PathBuf,
}

/// `lists-N/pods.json` and `pods.yaml` of the bench cluster of `nodes`
/// nodes (seed 6, as the plan bench's), generated when missing.
pub fn pod_lists(nodes: usize) -> Result<PodLists, String> {
    let dir = data::root().join(format!("lists-{nodes}"));
    let lists = PodLists { json: dir.join("pods.json"), yaml: dir.join("pods.yaml") };
    if lists.json.exists() && lists.yaml.exists() {
        return Ok(lists);
    }
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let t = Instant::now();
    let cluster = kdrift_scenario::bench_cluster(nodes, 6);
    let (nodes_file, partial) = (dir.join("nodes.json"), dir.join("pods.json.partial"));
    kdrift_scenario::write_bench_cluster_lists(&cluster, create(&nodes_file)?, create(&partial)?)
        .map_err(|e| format!("writing the Lists: {e}"))?;
    drop(cluster);
    let yaml_partial = dir.join("pods.yaml.partial");
    json_list_to_yaml(&partial, &yaml_partial)?;
    std::fs::rename(&partial, &lists.json).map_err(|e| e.to_string())?;
    std::fs::rename(&yaml_partial, &lists.yaml).map_err(|e| e.to_string())?;
    eprintln!("generated the pod Lists of {nodes} nodes in {:.1} s", t.elapsed().as_secs_f64());
    Ok(lists)
}

/// Writes the List `json` (one item per line, as
/// [`kdrift_scenario::write_bench_cluster_lists`] writes it) as kubectl's
/// `-o yaml` writes a List: `apiVersion`, `items` (each item a `- ` block),
/// `kind`, `metadata`. One item at a time.
fn json_list_to_yaml(json: &Path, yaml: &Path) -> Result<(), String> {
    let input = BufReader::new(File::open(json).map_err(|e| format!("{}: {e}", json.display()))?);
    let mut out = create(yaml)?;
    let werr = |e: std::io::Error| format!("{}: {e}", yaml.display());
    out.write_all(b"apiVersion: v1\nitems:\n").map_err(werr)?;
    for (i, line) in input.lines().enumerate() {
        let line = line.map_err(|e| format!("{}: {e}", json.display()))?;
        let item = line.trim_end_matches(',');
        // The first line opens the List, the last two close it.
        if !item.starts_with("{\"apiVersion\"") || (i == 0 && item.contains("\"items\":[")) {
            continue;
        }
        let value: Value = serde_json::from_str(item).map_err(|e| format!("{} line {}: {e}", json.display(), i + 1))?;
        let text = serde_yaml::to_string(&value).map_err(|e| e.to_string())?;
        for (j, l) in text.lines().enumerate() {
            let prefix: &[u8] = if j == 0 { b"- " } else { b"  " };
            out.write_all(prefix).map_err(werr)?;
            out.write_all(l.as_bytes()).map_err(werr)?;
            out.write_all(b"\n").map_err(werr)?;
        }
    }
    out.write_all(b"kind: List\nmetadata:\n  resourceVersion: \"\"\n").map_err(werr)?;
    out.flush().map_err(werr)
}

/// Loads the rows of a VictoriaLogs export (`raw` layout, one row a line)
/// into the real VictoriaLogs `vl` as the same rows (`_msg`, `_time`, the
/// fields; the stream from `involvedObject.namespace`, as the raw layout's
/// shipper declares it), 10,000 a request, then flushes. Returns the rows
/// loaded and the range holding them (end exclusive).
pub fn load_vlogs(vl: &RealVlogs, export: &Path) -> Result<(usize, DateTime<Utc>, DateTime<Utc>), String> {
    const ARGS: &str = "_msg_field=_msg&_time_field=_time&_stream_fields=involvedObject.namespace";
    let input = BufReader::new(File::open(export).map_err(|e| format!("{}: {e}", export.display()))?);
    let (mut n, mut first, mut last) = (0usize, None::<DateTime<Utc>>, None::<DateTime<Utc>>);
    let mut body = String::new();
    for (i, line) in input.lines().enumerate() {
        let line = line.map_err(|e| format!("{}: {e}", export.display()))?;
        let Ok(Value::Object(mut row)) = serde_json::from_str::<Value>(&line) else {
            return Err(format!("{} line {}: not a JSON object", export.display(), i + 1));
        };
        row.remove("_stream_id");
        row.remove("_stream");
        let time = row
            .get("_time")
            .and_then(Value::as_str)
            .and_then(|t| DateTime::parse_from_rfc3339(t).ok())
            .map(|t| t.with_timezone(&Utc))
            .ok_or_else(|| format!("{} line {}: no _time", export.display(), i + 1))?;
        first = Some(first.map_or(time, |f| f.min(time)));
        last = Some(last.map_or(time, |l| l.max(time)));
        body.push_str(&Value::Object(row).to_string());
        body.push('\n');
        n += 1;
        if n.is_multiple_of(10_000) {
            vl.insert_jsonline(ARGS, std::mem::take(&mut body));
        }
    }
    if !body.is_empty() {
        vl.insert_jsonline(ARGS, body);
    }
    vl.flush();
    let (Some(first), Some(last)) = (first, last) else { return Err(format!("{}: no rows", export.display())) };
    Ok((n, first, last + chrono::Duration::microseconds(1)))
}
