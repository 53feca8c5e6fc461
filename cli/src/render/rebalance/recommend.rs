//! `rebalance recommend`: one line per threshold → target candidate, then
//! the recommended policy.

use std::io::Write;

use kdrift_rebalance::{percent_text, ResourceThresholds, Suggestion, Verdict};
use tabled::builder::Builder;

use super::{class, list, num, ordered, t, table, RecommendReport};

/// `cpu/memory 40 %`, or `cpu 40 %, memory 50 %` when they differ.
fn thresholds_cell(t: &ResourceThresholds) -> String {
    let mut values = t.values();
    match values.next() {
        None => "-".into(),
        Some(first) if values.all(|v| v == first) => {
            format!("{} {} %", ordered(&t.keys().cloned().collect::<Vec<_>>()).join("/"), num(*first))
        }
        Some(_) => t.iter().map(|(r, v)| format!("{r} {} %", num(*v))).collect::<Vec<_>>().join(", "),
    }
}

/// `cpu/memory 50 → 90 %` when both sides set every resource alike.
fn pair_cell(low: &ResourceThresholds, high: &ResourceThresholds) -> String {
    let uniform = |t: &ResourceThresholds| t.values().next().filter(|f| t.values().all(|v| v == *f)).copied();
    match (uniform(low), uniform(high)) {
        (Some(l), Some(h)) if low.keys().eq(high.keys()) => {
            format!("{} {} → {} %", ordered(&low.keys().cloned().collect::<Vec<_>>()).join("/"), num(l), num(h))
        }
        _ => format!("{} → {}", thresholds_cell(low), thresholds_cell(high)),
    }
}

fn suggestion_verdict(s: &Suggestion) -> String {
    match &s.verdict {
        Verdict::Converged { .. } if s.evictions == 0 => "converged (nothing moves)".into(),
        Verdict::Converged { .. } => "converged".into(),
        Verdict::Stalled { round, .. } => format!("STALLED at night {round}"),
        Verdict::NothingToDo { .. } => "nothing to do (fewer than 2 nodes)".into(),
        Verdict::Limit { rounds } => format!("LIMIT ({})", kdrift_analyze::count(*rounds, "night", "nights")),
    }
}

/// The candidates table, its notes and verdict on `out`, and the recommended
/// policy alone on `yaml`: `recommend > recommended.yaml` gets only the
/// YAML (the command passes stdout as `yaml`, stderr as `out`), nothing when
/// there is no policy to recommend.
pub fn recommendation<W: Write, Y: Write>(out: &mut W, yaml_out: &mut Y, r: &RecommendReport) -> anyhow::Result<()> {
    writeln!(
        out,
        "Rebalance recommendation at {} — policy {}: {} LowNodeUtilization candidate(s), up to {} each \
         ({}; plan only: nothing is evicted)",
        t(r.at),
        r.policy_source,
        r.suggestions.len(),
        crate::render::nights(r.max_rounds as u64),
        r.measured.as_ref().map_or_else(|| "from requests".to_string(), |m| format!("on measured usage, {m}"))
    )?;
    writeln!(out)?;
    if r.measured.is_some() && !r.classified.is_empty() {
        writeln!(out, "Nodes as the policy's own thresholds classify them (used %, each with its reading):")?;
        for (profile, n) in &r.classified {
            writeln!(out, "  {} {} (profile {profile}): {}", n.name, class(n.class), n.why)?;
        }
        writeln!(out)?;
    }
    // Fewer than 2 nodes: no thresholds change anything (descheduler skips
    // its cycle); a table of identical rows would blame the thresholds.
    if let Some(reason) = r.suggestions.iter().find_map(|s| match &s.verdict {
        Verdict::NothingToDo { reason } => Some(reason),
        _ => None,
    }) {
        writeln!(out, "No policy to recommend: {reason}; no thresholds change that.")?;
        list(out, "Notes", &r.notes)?;
        return Ok(());
    }
    let mut b = Builder::default();
    b.push_record(["", "THRESHOLDS → TARGETS", "VERDICT", "NIGHTS", "EVICTIONS", "PENDING", "CPU SKEW"]);
    for (i, s) in r.suggestions.iter().enumerate() {
        b.push_record([
            if r.recommended == Some(i) { "*".to_string() } else { String::new() },
            pair_cell(&s.thresholds, &s.target_thresholds),
            suggestion_verdict(s),
            s.rounds_to_converge.map_or("-".to_string(), |n| n.to_string()),
            s.evictions.to_string(),
            s.unschedulable.to_string(),
            s.final_cpu_skew.map_or("-".to_string(), |v| format!("{} pts", percent_text(v))),
        ]);
    }
    table(out, b)?;
    writeln!(
        out,
        "  ranked: converging candidates that move something, by fewest evictions, nights, cpu skew left; \
         then those that move nothing; then those that never converge"
    )?;
    match (r.recommended.and_then(|i| r.suggestions.get(i)), &r.recommended_policy_yaml) {
        (Some(s), Some(yaml)) => {
            writeln!(out)?;
            writeln!(
                out,
                "Recommended: {} ({} eviction(s) over {}, {} left Pending)",
                pair_cell(&s.thresholds, &s.target_thresholds),
                s.evictions,
                crate::render::nights(s.rounds_to_converge.unwrap_or(0) as u64),
                s.unschedulable
            )?;
            if s.evictions == 0 {
                writeln!(
                    out,
                    "  no converging candidate moves anything: with this target no node is above it (the cluster \
                     stays as it is)"
                )?;
            }
            writeln!(
                yaml_out,
                "# Recommended DeschedulerPolicy ({} with its LowNodeUtilization thresholds/targetThresholds replaced)",
                r.policy_source
            )?;
            write!(yaml_out, "{yaml}")?;
        }
        _ => {
            writeln!(out)?;
            match &r.no_recommendation {
                Some(why) => writeln!(out, "No policy to recommend: {why}.")?,
                None => {
                    let within = crate::render::nights(r.max_rounds as u64);
                    writeln!(out, "No candidate converges within {within}: no policy to recommend.")?
                }
            }
        }
    }
    list(out, "Notes", &r.notes)?;
    Ok(())
}
