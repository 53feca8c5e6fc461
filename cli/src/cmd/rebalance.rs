//! `kdrift rebalance plan`: what descheduler (every plugin of the policy) would evict
//! from the cluster as the store knows it (or, `--live`, as the cluster is
//! now), and (`--simulate`, `--rounds`) where the replacements would land,
//! night after night; `-o json` / `--out` write the plan document that
//! `rebalance apply` executes. `kdrift rebalance recommend`: which
//! LowNodeUtilization thresholds → targets would converge, as a policy to
//! apply. Plan only: these commands never evict.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use anyhow::Context;
use chrono::{DateTime, Utc};
use kdrift_analyze::{load_snapshot, LoadedSnapshot};
use kdrift_rebalance::{
    plan as make_plan, simulate_plan_with, simulate_rounds_with, suggest_thresholds, Candidates, PlanOptions, Policy,
    ScoringConfig, SimulateOptions,
};
use kdrift_rebalance::{PlanDocument, PlanInputs, PlanSource};

use super::cluster;
use crate::args::{Cli, Output, RebalancePlanArgs, RebalanceRecommendArgs, SchedulerScoringArgs};
use crate::render;
use crate::render::rebalance::{PlanReport, RecommendReport};

/// `policy_source` when no `--policy` is given.
const CHART_DEFAULT: &str = "helm-chart-default";

/// Refuses an `--out` that names the `--policy` file or the store: the plan
/// would replace what it was made from (the same file by device and inode
/// when both exist, hard links included, else by the path given).
fn refuse_to_overwrite_inputs(out: &Path, policy: Option<&Path>, db: &Path) -> anyhow::Result<()> {
    // The same file by device and inode (a hard link, a symlink, another
    // spelling of the path), else by the path given.
    let same = |other: &Path| {
        use std::os::unix::fs::MetadataExt;
        match (std::fs::metadata(out), std::fs::metadata(other)) {
            (Ok(a), Ok(b)) => (a.dev(), a.ino()) == (b.dev(), b.ino()),
            _ => out == other,
        }
    };
    if policy.is_some_and(same) {
        anyhow::bail!(
            "--out {} is the --policy file: the plan would replace the policy; write the plan to another file",
            out.display()
        );
    }
    if same(db) {
        anyhow::bail!(
            "--out {} is the store (--db): the plan would replace it; write the plan to another file",
            out.display()
        );
    }
    Ok(())
}

/// Exit 0 when a plan was made (even one without evictions), 1 when the
/// store has no nodes at the instant (nothing to plan on, as `kdrift skew`);
/// errors (a bad policy file, no store, an unreachable cluster) are exit 2
/// through `main`.
pub fn plan(cli: &Cli, args: &RebalancePlanArgs) -> anyhow::Result<ExitCode> {
    let live = args.live || args.cluster.given();
    if live && args.at.is_some() {
        anyhow::bail!(
            "--at plans from the store's history; a live plan (--live, --kubeconfig, --context) is always now"
        );
    }
    if let Some(out) = &args.out {
        refuse_to_overwrite_inputs(out, args.policy.as_deref(), &cli.db)?;
    }
    let (policy, policy_source, refused) = match read_policy(args.policy.as_deref()) {
        Ok((policy, source)) => (policy, source, None),
        Err(e) => match args.policy.as_deref().filter(|_| args.out.is_none()).and_then(fixed_policy) {
            Some((policy, removed)) => {
                let source = format!(
                    "{} [REFUSED by descheduler v0.36: planned once fixed, see the notes]",
                    args.policy.as_deref().map(|p| p.display().to_string()).unwrap_or_default()
                );
                (policy, source, Some((e, removed)))
            }
            None => return Err(e),
        },
    };
    if let Some((e, removed)) = &refused {
        writeln!(
            std::io::stderr(),
            "kdrift: error: {e:#}\nkdrift: descheduler v0.36 refuses this policy and runs no cycle at all; once fixed \
             (here: without {}), it would plan what follows",
            removed.join("; ")
        )?;
    }
    let scoring = read_scoring(&args.scoring)?;
    let mut step = Step::start();
    let (loaded, source) = if live {
        let (runtime, client, source) = cluster::connect(&args.cluster)?;
        let read = runtime
            .block_on(kdrift_rebalance::read_snapshot(&client, &policy, Utc::now()))
            .with_context(|| format!("reading the cluster at {}", client.server().unwrap_or("the API server")))?;
        let at = read.snapshot.now;
        let loaded = LoadedSnapshot { snapshot: read.snapshot, at, notes: read.notes, lower_bound_nodes: Vec::new() };
        (loaded, source)
    } else {
        let source = PlanSource { kind: "store".to_string(), detail: cli.db.display().to_string() };
        let Some(loaded) = load_store(cli, args.at)? else { return Ok(ExitCode::from(1)) };
        (loaded, source)
    };
    note_default_policy(&policy_source)?;
    let mut loaded = loaded;
    let attached = super::rebalance_usage::attach(cli, &args.usage, &policy, &mut loaded, live)?;
    let options = PlanOptions { skip_zero_request: args.skip_zero_request, rank_by_usage: attached.rank_by_usage };
    step.done("load");
    let planned = make_plan(&loaded.snapshot, &policy, &options);
    step.done("plan");
    if args.simulate || args.rounds.is_some() {
        super::rebalance_usage::attach_for_landings(cli, &policy, &mut loaded)?;
    }
    let simulate = SimulateOptions { scoring, ..SimulateOptions::default() };
    let simulation =
        (args.simulate || args.rounds.is_some()).then(|| simulate_plan_with(&loaded.snapshot, &planned, &simulate));
    let rounds = args.rounds.map(|n| simulate_rounds_with(&loaded.snapshot, &policy, &options, &simulate, n as usize));
    let inputs = PlanInputs {
        snapshot: &loaded.snapshot,
        policy: &policy,
        policy_source: &policy_source,
        options,
        source: &source,
    };
    let rounds_json = rounds.as_ref().map(serde_json::to_value).transpose()?;
    let mut notes = loaded.notes.clone();
    if let Some((_, removed)) = &refused {
        notes.insert(0, refused_note(removed));
    }
    // The document only for `-o json` and `--out`, made of the plan itself
    // (a table without `--out` built a 5,000-node document for nothing;
    // both at once copy the plan for the table).
    let table = matches!(cli.output, Output::Table);
    let (for_document, for_table) = if table {
        (args.out.is_some().then(|| (planned.clone(), simulation.clone())), Some((planned, simulation)))
    } else {
        (Some((planned, simulation)), None)
    };
    let doc = match for_document {
        Some((planned, simulation)) => {
            let mut doc = PlanDocument::build_owned(inputs, planned, simulation, rounds_json, notes.clone())?;
            doc.lower_bound_nodes = loaded.lower_bound_nodes.clone();
            // Apply plans again on the same reading of measured usage.
            doc.options.usage_window = super::rebalance_usage::window_option(&args.usage, &policy);
            // And runs the policy's Prometheus query again where this plan ran it.
            doc.options.prometheus_url = attached.prometheus_url.clone();
            Some(doc)
        }
        None => None,
    };
    step.done("document");
    if let (Some(path), Some(doc)) = (&args.out, &doc) {
        write_plan_file(path, doc).with_context(|| format!("writing the plan to {}", path.display()))?;
        // A plan made from the store describes the cluster as it was at
        // that instant: apply re-reads the live cluster and refuses the
        // evictions that no longer hold, so say so before anyone relies on it.
        let made_from = if live {
            String::new()
        } else {
            format!(
                " (made from the store's history at {}: apply re-reads the live cluster first and refuses a plan \
                 that no longer holds; `--live` plans on the live cluster)",
                crate::render::time(loaded.at)
            )
        };
        writeln!(
            std::io::stderr(),
            "kdrift: plan written to {} ({} eviction(s)); execute it with `kdrift rebalance apply {}`{made_from}",
            path.display(),
            doc.evictions.len(),
            path.display()
        )?;
    }
    // Buffered: the table of a 5,000-node plan was a write per line to the line-buffered stdout.
    let mut out = std::io::BufWriter::new(crate::render::stdout());
    if let Some((plan, simulation)) = for_table {
        let report = PlanReport {
            at: loaded.at,
            policy_source,
            plan,
            simulation,
            rounds,
            notes,
            lower_bound_nodes: loaded.lower_bound_nodes,
        };
        render::rebalance::report(&mut out, &report)?
    } else if let Some(doc) = &doc {
        render::json(&mut out, doc)?;
    }
    out.flush()?;
    step.done("output");
    Ok(if refused.is_some() { ExitCode::from(2) } else { ExitCode::SUCCESS })
}

/// Debug-level timings of `rebalance plan`'s steps (`kdrift -vv`): where
/// the time of a plan from a large store goes (kdrift issue 39).
struct Step(std::time::Instant);

impl Step {
    fn start() -> Step {
        Step(std::time::Instant::now())
    }

    /// Logs the milliseconds since the previous step under `step`, with the
    /// resident memory then and its peak so far (MiB).
    fn done(&mut self, step: &str) {
        let (rss_mib, peak_mib) = kdrift_analyze::rss_mib();
        tracing::debug!(step, ms = self.0.elapsed().as_secs_f64() * 1e3, rss_mib, peak_mib, "rebalance plan step");
        self.0 = std::time::Instant::now();
    }
}

/// Writes `doc` to `path` as pretty JSON and a newline, as it is serialised
/// (through a buffer, never whole in memory as text).
fn write_plan_file(path: &Path, doc: &PlanDocument) -> std::io::Result<()> {
    let mut file = std::io::BufWriter::with_capacity(1 << 16, std::fs::File::create(path)?);
    serde_json::to_writer_pretty(&mut file, doc)?;
    file.write_all(b"\n")?;
    file.flush()
}

/// The policy file at `path` with every plugin v0.36 refuses taken out, and
/// what was taken out; `None` when it cannot be read or has no such fix
/// ([`Policy::without_invalid_plugins`]).
fn fixed_policy(path: &Path) -> Option<(Policy, Vec<String>)> {
    let text = std::fs::read_to_string(path).ok()?;
    let (read, _) = Policy::from_yaml_unvalidated(&text).ok()?;
    read.without_invalid_plugins()
}

/// The plan's first note when the policy was refused: what is planned is
/// the policy without the refused plugins.
fn refused_note(removed: &[String]) -> String {
    format!(
        "POLICY REFUSED: descheduler v0.36 runs no cycle with this policy; this is the plan once fixed, without {} \
         (exit code 2)",
        removed.join("; ")
    )
}

/// Exit 0 with the best converging candidate's policy alone on stdout (the ranking table and notes on stderr); exit 1, stdout empty, when
/// no candidate converges or the store has no nodes at the instant; errors
/// as for `plan`, and exit 2 with nothing on stdout when the policy's
/// LowNodeUtilization fails (its usage unreadable: a Prometheus answer
/// NaN, out of [0, 1], not a vector or lacking a node), naming why.
pub fn recommend(cli: &Cli, args: &RebalanceRecommendArgs) -> anyhow::Result<ExitCode> {
    let (policy, policy_source) = read_policy(args.policy.as_deref())?;
    let scoring = read_scoring(&args.scoring)?;
    let Some(mut loaded) = load_store(cli, args.at)? else { return Ok(ExitCode::from(1)) };
    note_default_policy(&policy_source)?;
    let attached = super::rebalance_usage::attach(cli, &args.usage, &policy, &mut loaded, false)?;
    let plan_options = PlanOptions { rank_by_usage: attached.rank_by_usage, ..PlanOptions::default() };
    let simulate = SimulateOptions { scoring, ..SimulateOptions::default() };
    let candidates =
        Candidates { max_rounds: args.max_rounds as usize, simulate, plan_options, ..Candidates::default() };
    // How the policy as written classifies the nodes (on the measured
    // readings when it has metricsUtilization): the planner's own reasons.
    let as_written = make_plan(&loaded.snapshot, &policy, &plan_options);
    if let Some(e) = failed_utilization(&as_written, attached.query_ran.as_deref()) {
        // Every candidate would fail alike and move nothing: no
        // "converged", no policy (break-it 37 F1).
        anyhow::bail!("no policy to recommend: {e}");
    }
    let classified = classified_nodes(&as_written);
    let suggestions = suggest_thresholds(&loaded.snapshot, &policy, &candidates);
    // Ranked: the first converging candidate that moves pods is the best
    // one. One that moves nothing is recommended only when every candidate
    // converges without moving anything (no node is above any target tried):
    // while a node stays above a target, a policy that evicts nothing is no
    // advice (issue 33).
    let no_recommendation = why_no_pair_helps(&suggestions);
    let best = match no_recommendation {
        Some(_) => None,
        None => suggestions.iter().position(|s| s.converged()),
    };
    let recommended_policy_yaml = match best {
        Some(i) => {
            let s = &suggestions[i];
            let p = policy
                .with_uniform_thresholds(s.threshold, s.target)
                .context("the recommended thresholds fail validation")?;
            Some(p.to_yaml()?)
        }
        None => None,
    };
    let report = RecommendReport {
        at: loaded.at,
        policy_source,
        suggestions,
        recommended_policy_yaml,
        recommended: best,
        no_recommendation,
        max_rounds: candidates.max_rounds,
        notes: loaded.notes,
        measured: loaded.snapshot.measured.as_ref().and_then(|m| m.reading).map(|r| r.describe()),
        classified,
    };
    let mut out = crate::render::stdout();
    match cli.output {
        Output::Json => render::json(&mut out, &report)?,
        Output::Table => {
            // Only the policy on stdout; the table and its verdict (the
            // reason there is no policy, said once) on stderr.
            render::rebalance::recommendation(&mut std::io::stderr().lock(), &mut out, &report)?;
            return Ok(if best.is_none() { ExitCode::from(1) } else { ExitCode::SUCCESS });
        }
    }
    if best.is_none() {
        // Too few nodes: no thresholds change anything (descheduler skips its cycle).
        let nothing_to_do = report.suggestions.iter().find_map(|s| match &s.verdict {
            kdrift_rebalance::Verdict::NothingToDo { reason } => Some(reason.clone()),
            _ => None,
        });
        match nothing_to_do.as_ref().or(report.no_recommendation.as_ref()) {
            Some(reason) => writeln!(std::io::stderr(), "kdrift: no policy to recommend: {reason}")?,
            None => writeln!(
                std::io::stderr(),
                "kdrift: no candidate converges within {}: no policy to recommend",
                crate::render::nights(candidates.max_rounds as u64)
            )?,
        }
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}

/// Why `plan`'s LowNodeUtilization could not run, when it failed (its
/// usage could not be read: descheduler v0.36 logs the error each cycle and
/// evicts nothing in that plugin, whatever the thresholds): `LowNodeUtilization
/// failed in profile P: ERROR`, with `ran` (`the policy's query (Q) on URL
/// at T`) when the policy's Prometheus query gave the bad answer. `None`
/// when every run classified its nodes.
pub(super) fn failed_utilization(plan: &kdrift_rebalance::Plan, ran: Option<&str>) -> Option<String> {
    let failed: Vec<String> = plan
        .runs
        .iter()
        .filter(|r| r.plugin == kdrift_rebalance::LOW_NODE_UTILIZATION)
        .filter_map(|r| {
            let e = r.error.as_ref()?;
            let from = match (&r.usage_source, ran) {
                (Some(u), Some(ran))
                    if u.source == kdrift_rebalance::MetricsSource::Prometheus && u.stand_in.is_none() =>
                {
                    format!(" (from {ran})")
                }
                _ => String::new(),
            };
            Some(format!(
                "LowNodeUtilization failed in profile {}, so descheduler v0.36 evicts nothing in it whatever its \
                 thresholds: {e}{from}",
                r.profile
            ))
        })
        .collect();
    (!failed.is_empty()).then(|| failed.join("; "))
}

/// Every LowNodeUtilization run's node classes in `plan`, as the plan
/// reports them (`profile`, node report).
fn classified_nodes(plan: &kdrift_rebalance::Plan) -> Vec<(String, kdrift_rebalance::NodeReport)> {
    plan.runs
        .iter()
        .filter(|r| r.plugin == kdrift_rebalance::LOW_NODE_UTILIZATION)
        .flat_map(|r| r.nodes.iter().map(move |n| (r.profile.clone(), n.clone())))
        .collect()
}

/// Why no threshold pair helps, when none converges after moving pods while
/// some candidate shows a node above its target (it stalls or keeps
/// evicting): the candidates that converge then move nothing because their
/// target is above every node, not because the cluster is balanced. `None`
/// when a candidate converges after moving pods, or every one converges
/// without moving any (no node above any target tried), or descheduler
/// skips its cycle ([`kdrift_rebalance::Verdict::NothingToDo`], said apart).
fn why_no_pair_helps(suggestions: &[kdrift_rebalance::Suggestion]) -> Option<String> {
    use kdrift_rebalance::Verdict;
    if suggestions
        .iter()
        .any(|s| (s.converged() && s.evictions > 0) || matches!(s.verdict, Verdict::NothingToDo { .. }))
        || suggestions.iter().all(|s| s.converged())
    {
        return None;
    }
    let why = suggestions.iter().find_map(|s| match &s.verdict {
        Verdict::Stalled { reason, .. } => Some(format!("with thresholds {} → {} %: {reason}", s.threshold, s.target)),
        _ => None,
    });
    let why = why.map_or_else(
        || " and every pair that moves pods still evicts after the last night".to_string(),
        |w| format!(" ({w})"),
    );
    // The table's EVICTIONS are every plugin's (RemoveDuplicates' too):
    // a pair that "moves nothing" may show evictions there (new-user trial).
    let evictions = "; EVICTIONS counts every plugin of the policy each night, not only LowNodeUtilization's";
    if !suggestions.iter().any(kdrift_rebalance::Suggestion::converged) {
        return Some(format!(
            "no threshold pair helps: none of the {} pairs converges{why}{evictions}",
            suggestions.len()
        ));
    }
    Some(format!(
        "no threshold pair helps: every pair that converges moves nothing (its target is above every node), while \
         a node stays above the lower targets{why}{evictions}"
    ))
}

/// The snapshot at `at` from the store (an `at` after its history is the
/// first of its notes, shown with the plan and kept in its JSON); `None`,
/// said on stderr, when the store has no nodes then: nothing found, exit 1
/// (the CLI's convention, as `kdrift skew`).
pub(super) fn load_store(cli: &Cli, at: Option<DateTime<Utc>>) -> anyhow::Result<Option<LoadedSnapshot>> {
    let store = crate::cmd::open_existing_store(cli)?;
    let loaded = load_snapshot(&store, at)?;
    if loaded.snapshot.nodes.is_empty() {
        let why = kdrift_analyze::no_nodes_at(&store, loaded.at)?;
        // Before the history the instant is at fault (new-user trial 46).
        let what = if why.contains("(before its history)") {
            "choose an --at within it (or ingest Node and Pod objects listed at that time)".to_string()
        } else {
            format!(
                "ingest `kubectl get nodes -o json` and `kubectl get pods -A -o json` first{}",
                if at.is_some() { " (or choose an --at within it)" } else { "" }
            )
        };
        writeln!(std::io::stderr(), "kdrift: {}: {why}: {what}", store.path().display())?;
        return Ok(None);
    }
    Ok(Some(loaded))
}

/// The scheduler scoring of `--scheduler-config FILE` (a
/// KubeSchedulerConfiguration) or `--scoring STRATEGY`; the default
/// profile's without either. Errors name the file.
pub(super) fn read_scoring(args: &SchedulerScoringArgs) -> anyhow::Result<ScoringConfig> {
    if let Some(path) = &args.scheduler_config {
        let text =
            std::fs::read_to_string(path).with_context(|| format!("reading scheduler config {}", path.display()))?;
        return ScoringConfig::from_yaml(&text, &path.display().to_string())
            .with_context(|| format!("scheduler config {}", path.display()));
    }
    match &args.scoring {
        Some(name) => kdrift_rebalance::scoring_shorthand(name).map_err(anyhow::Error::msg),
        None => Ok(ScoringConfig::default()),
    }
}

/// The policy from `path`, or the descheduler Helm chart's default; with the
/// `policy_source` to report. Says nothing: once the store (or cluster) has
/// been read, [`note_default_policy`] tells that the default is used.
pub(super) fn read_policy(path: Option<&Path>) -> anyhow::Result<(Policy, String)> {
    match path {
        Some(path) => {
            let text = std::fs::read_to_string(path).with_context(|| format!("reading policy {}", path.display()))?;
            let policy = Policy::from_yaml(&text).with_context(|| format!("policy {}", path.display()))?;
            Ok((policy, path.display().to_string()))
        }
        None => {
            // An empty `deschedulerPolicy:` renders the chart's defaults.
            let policy = Policy::from_yaml("deschedulerPolicy: null").context("the Helm chart's default policy")?;
            Ok((policy, CHART_DEFAULT.to_string()))
        }
    }
}

/// When `policy_source` is the Helm chart's default ([`read_policy`] without
/// a path), says so on stderr. Called after the store or cluster was read,
/// so that a store that cannot be opened is the only thing reported.
///
/// # Errors
/// Stderr failing.
pub(super) fn note_default_policy(policy_source: &str) -> anyhow::Result<()> {
    if policy_source == CHART_DEFAULT {
        writeln!(
            std::io::stderr(),
            "kdrift: no --policy given: using the descheduler Helm chart's default policy \
             (LowNodeUtilization cpu/memory/pods 20 → 50 %, RemoveDuplicates, RemovePodsHavingTooManyRestarts 100, \
             RemovePodsViolatingNodeTaints, RemovePodsViolatingNodeAffinity, RemovePodsViolatingInterPodAntiAffinity)"
        )?;
    }
    Ok(())
}
