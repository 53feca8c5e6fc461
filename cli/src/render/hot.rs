//! The tables of `kdrift skew --usage` (requested % and used % per node,
//! the nodes hot in fact but not on paper and the reverse, each hotspot's
//! pods) and `kdrift hotspots` (episodes, their pods and what put them there).

use std::io::Write;

use kdrift_analyze::{Driver, Hotspots, Spot, UsageSkew};
use kdrift_rebalance::{format_amount, percent_text, threshold_text};
use tabled::builder::Builder;

use super::timeline::full;

/// cpu in millicores (`1900m`), memory in binary units (`1.5 GiB`).
pub(super) fn amount(resource: &str, v: i64) -> String {
    if resource == "cpu" {
        format!("{v}m")
    } else {
        format_amount(resource, v)
    }
}

fn percent(p: Option<f64>) -> String {
    p.map_or_else(|| "no sample".to_string(), |p| format!("{} %", percent_text(p)))
}

/// `skew --usage` as text: nothing without nodes (the command says why on
/// stderr, [`crate::cmd::nothing_found`]); `no_samples` is said there too.
pub fn usage_skew<W: Write>(out: &mut W, r: &UsageSkew) -> anyhow::Result<()> {
    if r.nodes.is_empty() {
        return Ok(());
    }
    writeln!(
        out,
        "Requested % and used % of allocatable at {} (usage: {}; hot at {} %)",
        full(r.at),
        r.reading,
        threshold_text(r.hot_percent)
    )?;
    let mut b = Builder::default();
    b.push_record(["NODE", "CPU REQUESTED", "CPU USED", "MEMORY REQUESTED", "MEMORY USED", "SAMPLED"]);
    for n in &r.nodes {
        let mut row = vec![n.node.clone()];
        // "≥" marks a lower bound, as in `kdrift skew`.
        let ge = if n.lower_bound { "≥" } else { "" };
        for res in ["cpu", "memory"] {
            match n.get(res) {
                Some(l) if l.allocatable > 0 => {
                    row.push(format!("{ge}{} %", percent_text(l.requested_percent)));
                    row.push(percent(l.used_percent));
                }
                _ => row.extend(["-".to_string(), "-".to_string()]),
            }
        }
        row.push(n.sampled_at.map_or_else(|| "-".to_string(), full));
        b.push_record(row);
    }
    if !r.nodes.is_empty() {
        writeln!(out, "{}", super::plain(&mut b.build()))?;
    }
    let hot = threshold_text(r.hot_percent);
    writeln!(out, "Hot in fact, not on paper (used ≥ {hot} %, requested below):")?;
    spots(out, &r.hot_not_requested)?;
    writeln!(out, "Hot on paper, not in fact (requested ≥ {hot} %, used below):")?;
    spots(out, &r.requested_not_used)?;
    if r.nodes.iter().any(|n| n.lower_bound) {
        writeln!(out, "  ≥ lower bound: the store lacks pods or their requests (see the notes)")?;
    }
    for n in &r.notes {
        writeln!(out, "note: {n}")?;
    }
    Ok(())
}

fn spots<W: Write>(out: &mut W, spots: &[Spot]) -> anyhow::Result<()> {
    if spots.is_empty() {
        writeln!(out, "  none")?;
    }
    for s in spots {
        writeln!(
            out,
            "  {} {}: {} % used, {}{} % requested",
            s.node,
            s.resource,
            percent_text(s.used_percent),
            if s.lower_bound { "≥" } else { "" },
            percent_text(s.requested_percent)
        )?;
        if !s.pods.is_empty() {
            drivers(out, &s.resource, &s.pods, "USED", false)?;
            left_out(out, s.pods_left_out)?;
        }
    }
    Ok(())
}

/// The line under a hotspot's pods when some were left out: "and N more
/// pods" (the heaviest users are the ones listed).
fn left_out<W: Write>(out: &mut W, n: usize) -> anyhow::Result<()> {
    if n > 0 {
        writeln!(out, "    … and {n} more {} (lighter users)", if n == 1 { "pod" } else { "pods" })?;
    }
    Ok(())
}

/// A hotspot's pods, indented under it; `brought` adds what put each there.
fn drivers<W: Write>(out: &mut W, resource: &str, pods: &[Driver], used: &str, brought: bool) -> anyhow::Result<()> {
    let mut b = Builder::default();
    let mut header = vec!["POD".to_string(), used.to_string(), "REQUESTED".into(), "USED/REQUESTED".into()];
    if brought {
        header.extend(["BOUND".to_string(), "BROUGHT BY".to_string()]);
    }
    b.push_record(header);
    for d in pods {
        let mut row = vec![
            format!("{}/{}", d.namespace, d.name),
            amount(resource, d.used),
            d.requested.map_or_else(|| "unknown".to_string(), |v| amount(resource, v)),
            d.ratio.map_or_else(|| "-".to_string(), |x| format!("{x:.2}×")),
        ];
        if brought {
            row.push(d.bound_at.map_or_else(|| "-".to_string(), full));
            row.push(d.arrival.as_ref().map_or_else(|| "-".to_string(), super::pending::arrival));
        }
        b.push_record(row);
    }
    for line in super::plain(&mut b.build()).to_string().lines() {
        writeln!(out, "    {}", line.trim_end())?;
    }
    Ok(())
}

/// `hotspots` as text: nothing when there is no episode (the command says
/// why on stderr, [`hotspots_none`]).
pub fn hotspots<W: Write>(out: &mut W, r: &Hotspots) -> anyhow::Result<()> {
    let (Some(since), Some(until)) = (r.since, r.until) else { return Ok(()) };
    if r.no_samples.is_some() || r.episodes.is_empty() {
        return Ok(());
    }
    // --no-headers: the episode rows alone (their pods are other tables).
    let headers = super::headers();
    let step = super::duration(r.step_seconds);
    if headers {
        writeln!(
            out,
            "Hotspots from {} to {}: cpu or memory used ≥ {} % of allocatable for {} steps of {step} in a row",
            full(since),
            full(until),
            threshold_text(r.threshold),
            r.windows
        )?;
    }
    {
        let mut b = Builder::default();
        // -o wide: the node's allocatable and how many pods were measured there.
        let wide = crate::format::wide();
        let mut header = vec!["NODE", "RESOURCE", "FROM", "TO", "LASTED", "PEAK USED", "MEAN USED", "REQUESTED"];
        if wide {
            header.extend(["ALLOCATABLE", "PODS MEASURED"]);
        }
        b.push_record(header);
        for e in &r.episodes {
            let mut row = vec![
                e.node.clone(),
                e.resource.clone(),
                full(e.started_at),
                if e.ongoing { format!("{} (ongoing)", full(e.ended_at)) } else { full(e.ended_at) },
                super::duration((e.ended_at - e.started_at).num_seconds()),
                format!("{} %", percent_text(e.peak_percent)),
                format!("{} %", percent_text(e.mean_percent)),
                e.requested_percent.map_or_else(
                    || "-".to_string(),
                    |p| format!("{}{} %", if e.lower_bound { "≥" } else { "" }, percent_text(p)),
                ),
            ];
            if wide {
                row.push(amount(&e.resource, e.allocatable));
                row.push((e.pods.len() + e.pods_left_out).to_string());
            }
            b.push_record(row);
        }
        writeln!(out, "{}", super::plain(&mut b.build()))?;
        for e in r.episodes.iter().filter(|e| headers && !e.pods.is_empty()) {
            writeln!(out, "  {} {} from {}: the pods measured there", e.node, e.resource, full(e.started_at))?;
            drivers(out, &e.resource, &e.pods, "USED (MEAN)", true)?;
            left_out(out, e.pods_left_out)?;
        }
    }
    if headers && r.spikes > 0 {
        writeln!(out, "  {}", spikes(r))?;
    }
    if headers && r.episodes.iter().any(|e| e.lower_bound) {
        writeln!(out, "  ≥ lower bound: the store lacks pods or their requests (see the notes)")?;
    }
    for n in &r.notes {
        super::note_line(out, &format!("note: {n}"))?;
    }
    Ok(())
}

/// `3 shorter runs above 80 % (spikes under 3 steps) not reported`.
fn spikes(r: &Hotspots) -> String {
    let s = kdrift_analyze::count(r.spikes, "shorter run", "shorter runs");
    format!("{s} above {} % (spikes under {} steps) not reported", threshold_text(r.threshold), r.windows)
}

/// Why `hotspots` lists nothing, for stderr: no measured usage (and how to
/// get some, or the samples' span), or no episode in the range; `None`
/// when it lists episodes.
pub fn hotspots_none(r: &Hotspots) -> Option<String> {
    if let Some(why) = &r.no_samples {
        return Some(format!("no measured usage: {why}"));
    }
    let (Some(since), Some(until)) = (r.since, r.until) else { return None };
    r.episodes.is_empty().then(|| {
        let spikes = if r.spikes > 0 { format!(" ({})", spikes(r)) } else { String::new() };
        format!(
            "no hotspot from {} to {}: no node's cpu or memory used stayed ≥ {} % of allocatable for {} steps of {} \
             in a row{spikes}",
            full(since),
            full(until),
            threshold_text(r.threshold),
            r.windows,
            super::duration(r.step_seconds)
        )
    })
}
