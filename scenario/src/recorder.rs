//! Collects the object versions a part of the generator emits, in any order,
//! and turns them into watch records: sorted by time, each with its own
//! `metadata.resourceVersion`.
//!
//! A resourceVersion is derived from the record's time (milliseconds since
//! the scenario start) and a slot within that millisecond. The story uses
//! slots 0–31, the benchmark filler slots 32–63, so adding filler never
//! changes a story record: its time and resourceVersion stay the same, and
//! the merged stream is still strictly increasing. Real resourceVersions
//! (etcd revisions) have gaps too: other objects (leases, endpoints) take
//! revisions in between.

use chrono::{DateTime, Duration, Utc};
use serde_json::Value;

use super::{ObjectChange, ScenarioRecord};

/// First resourceVersion of the scenario: the cluster has a history.
const RV_BASE: u64 = 7_340_000;
/// Slots per millisecond (story + filler).
const SLOTS_PER_MS: u64 = 64;
/// Slots per millisecond one lane may use.
const SLOTS_PER_LANE: u64 = 32;

/// Which part of the scenario a recorder serves (selects its slot range).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Lane {
    /// The demo story.
    Story,
    /// Independent benchmark filler.
    Filler,
}

/// One emitted object version before it has a resourceVersion.
struct Draft {
    at: DateTime<Utc>,
    seq: u64,
    change: ObjectChange,
    object: Value,
}

/// Gathers drafts; see the module doc.
pub(crate) struct Recorder {
    start: DateTime<Utc>,
    drafts: Vec<Draft>,
}

impl Recorder {
    /// An empty recorder for a scenario starting at `start`.
    pub(crate) fn new(start: DateTime<Utc>) -> Self {
        Self { start, drafts: Vec::new() }
    }

    /// Records that a watch saw `object` change at `at`. Drafts with the same
    /// time keep the order they were pushed in.
    pub(crate) fn push(&mut self, at: DateTime<Utc>, change: ObjectChange, object: Value) {
        let seq = self.drafts.len() as u64;
        self.drafts.push(Draft { at, seq, change, object });
    }

    /// Sorts the drafts and stamps resourceVersions. A millisecond holding
    /// more than 32 records of one lane spills into the next millisecond
    /// (the record's time moves by 1 ms).
    pub(crate) fn finish(mut self, lane: Lane) -> Vec<ScenarioRecord> {
        self.drafts.sort_by(|a, b| a.at.cmp(&b.at).then(a.seq.cmp(&b.seq)));
        let lane_offset = match lane {
            Lane::Story => 0,
            Lane::Filler => SLOTS_PER_LANE,
        };
        let mut out = Vec::with_capacity(self.drafts.len());
        let mut last: Option<(u64, u64)> = None; // (ms, slot)
        for d in self.drafts {
            let mut ms = (d.at - self.start).num_milliseconds().max(0) as u64;
            let slot = match last {
                Some((lms, lslot)) if lms >= ms => {
                    if lslot + 1 < SLOTS_PER_LANE {
                        ms = lms;
                        lslot + 1
                    } else {
                        ms = lms + 1;
                        0
                    }
                }
                _ => 0,
            };
            last = Some((ms, slot));
            let rv = RV_BASE + ms * SLOTS_PER_MS + lane_offset + slot;
            let observed_at = self.start + Duration::milliseconds(ms as i64);
            // Keep sub-millisecond precision of the original time when it did not spill.
            let observed_at =
                if observed_at.timestamp_millis() == d.at.timestamp_millis() { d.at } else { observed_at };
            let mut object = d.object;
            if let Some(meta) = object.get_mut("metadata").and_then(Value::as_object_mut) {
                meta.insert("resourceVersion".into(), Value::String(rv.to_string()));
            }
            out.push(ScenarioRecord { observed_at, change: d.change, object });
        }
        out
    }
}

/// Merges two already sorted record streams by (time, resourceVersion).
pub(crate) fn merge(a: Vec<ScenarioRecord>, b: Vec<ScenarioRecord>) -> Vec<ScenarioRecord> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let mut ia = a.into_iter().peekable();
    let mut ib = b.into_iter().peekable();
    loop {
        let take_a = match (ia.peek(), ib.peek()) {
            (Some(x), Some(y)) => (x.observed_at, rv_of(x)) <= (y.observed_at, rv_of(y)),
            (Some(_), None) => true,
            (None, Some(_)) => false,
            (None, None) => break,
        };
        let next = if take_a { ia.next() } else { ib.next() };
        out.extend(next);
    }
    out
}

/// The numeric resourceVersion of a record (0 when missing).
pub(crate) fn rv_of(r: &ScenarioRecord) -> u64 {
    r.object.pointer("/metadata/resourceVersion").and_then(Value::as_str).and_then(|s| s.parse().ok()).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;
    use serde_json::json;

    #[test]
    fn a_crowded_millisecond_spills_and_lanes_interleave() {
        let start = Utc.with_ymd_and_hms(2026, 11, 27, 0, 0, 0).single().expect("time");
        let mut story = Recorder::new(start);
        let mut filler = Recorder::new(start);
        for i in 0..40 {
            story.push(start, ObjectChange::Added, json!({ "metadata": { "name": format!("s{i}") } }));
            filler.push(start, ObjectChange::Added, json!({ "metadata": { "name": format!("f{i}") } }));
        }
        let story = story.finish(Lane::Story);
        assert_eq!(story[31].observed_at, start);
        assert_eq!(story[32].observed_at, start + Duration::milliseconds(1));
        let merged = merge(story, filler.finish(Lane::Filler));
        assert_eq!(merged.len(), 80);
        for w in merged.windows(2) {
            assert!(w[0].observed_at <= w[1].observed_at && rv_of(&w[0]) < rv_of(&w[1]));
        }
    }
}
