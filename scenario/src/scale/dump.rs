//! The kubectl dumps of a scale history: `kubectl get events|nodes|pods -A
//! -o json` at its end, written as `events.json`, `nodes.json` and
//! `pods.json` (a `kind: List` each, item by item, as kubectl prints it).
//! Events are the last hour only, as the API still has them, in their core/v1
//! form; nodes and pods are every object present at the end.
//!
//! This is the crate's only file output: the history is streamed, so the
//! dump cannot be built from a list of records like the demo's
//! ([`crate::Scenario::to_kubectl_lists`]). [`KubectlDump::observe`] keeps the
//! last hour of Event versions while [`ScaleGen::run`] streams (memory bounded
//! by the event rate, not the history), [`KubectlDump::write`] writes the
//! files afterwards.

use std::collections::{BTreeMap, VecDeque};
use std::io::{BufWriter, Write};
use std::path::Path;

use chrono::{DateTime, Duration, Utc};
use serde_json::Value;

use super::ScaleGen;
use crate::{core_v1_view, ScenarioRecord};

/// The Event versions of the last hour of a streamed history.
#[derive(Debug, Default)]
pub struct KubectlDump {
    /// (observed at, the event in its core/v1 form), oldest first.
    recent: VecDeque<(DateTime<Utc>, Value)>,
}

impl KubectlDump {
    /// An empty dump.
    pub fn new() -> Self {
        KubectlDump::default()
    }

    /// Takes one streamed record: keeps it if it is an Event, and forgets
    /// the events observed more than an hour before it.
    pub fn observe(&mut self, r: &ScenarioRecord) {
        if r.object.get("kind").and_then(Value::as_str) != Some("Event") {
            return;
        }
        while self.recent.front().is_some_and(|(t, _)| *t < r.observed_at - Duration::hours(1)) {
            self.recent.pop_front();
        }
        self.recent.push_back((r.observed_at, core_v1_view(&r.object)));
    }

    /// Writes `events.json` (the latest version of every event observed in
    /// the hour before `end`), `nodes.json` and `pods.json` (`gen`'s objects
    /// at its end) into `dir`, creating it.
    ///
    /// # Errors
    /// A message naming the directory or file that could not be written.
    pub fn write(self, dir: &Path, gen: &ScaleGen, end: DateTime<Utc>) -> Result<(), String> {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let since = end - Duration::hours(1);
        let mut events: BTreeMap<(String, String), Value> = BTreeMap::new();
        for e in self.recent.into_iter().filter(|(t, _)| *t >= since).map(|(_, e)| e) {
            let key = (text(&e, "/metadata/namespace"), text(&e, "/metadata/name"));
            events.insert(key, e);
        }
        write_list(&dir.join("events.json"), events.into_values())?;
        write_list(&dir.join("nodes.json"), gen.final_nodes())?;
        write_list(&dir.join("pods.json"), gen.final_pods())
    }
}

fn text(v: &Value, ptr: &str) -> String {
    v.pointer(ptr).and_then(Value::as_str).unwrap_or("").to_string()
}

/// Writes a `kind: List` as kubectl prints it, item by item.
fn write_list(path: &Path, items: impl Iterator<Item = Value>) -> Result<(), String> {
    let err = |e: std::io::Error| format!("{}: {e}", path.display());
    let file = std::fs::File::create(path).map_err(err)?;
    let mut out = BufWriter::with_capacity(1 << 20, file);
    out.write_all(b"{\"apiVersion\":\"v1\",\"items\":[").map_err(err)?;
    for (i, item) in items.enumerate() {
        if i > 0 {
            out.write_all(b",\n").map_err(err)?;
        }
        serde_json::to_writer(&mut out, &item).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    out.write_all(b"],\"kind\":\"List\",\"metadata\":{\"resourceVersion\":\"\"}}\n").map_err(err)?;
    out.flush().map_err(err)
}
