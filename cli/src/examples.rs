//! An example for every subcommand's `--help` (clap's `after_help`), kept
//! here beside the argument definitions (`args.rs`) rather than in them:
//! [`command`] is [`Cli`]'s clap command with each example attached (what
//! `main` parses the process's arguments with).

use clap::CommandFactory;

use crate::args::Cli;

/// `(subcommand path, example lines)`: `kdrift` itself (the empty path)
/// and every command and subcommand (a test checks that none is missing).
pub const EXAMPLES: &[(&[&str], &str)] = &[
    (
        &[],
        "kdrift demo\n  kubectl get events,pods,nodes -A -o json | kdrift ingest file -\n  kdrift why-pending --all\n  \
         kdrift timeline drains\n  kdrift rebalance plan --policy policy.yaml",
    ),
    (&["ingest"], "kdrift ingest file dump/\n  kubectl get events -A -o json | kdrift ingest file -"),
    (
        &["ingest", "file"],
        "kdrift ingest file events.json pods.json nodes.json\n  kdrift ingest file dump/        \
         # a `kubectl cluster-info dump` directory\n  kubectl get events -A -o json | kdrift ingest file -",
    ),
    (&["ingest", "api"], "kdrift ingest api -A\n  kdrift ingest api --context prod -n media"),
    (
        &["ingest", "victorialogs"],
        "KDRIFT_VL_PASSWORD=… kdrift ingest victorialogs --url http://victorialogs:9428 --user kdrift \\\n      \
         --start 2026-11-27T00:00:00Z --end 2026-11-29T00:00:00Z",
    ),
    (
        &["ingest", "prometheus"],
        "kdrift ingest prometheus --url http://prometheus:9090 --start 2026-11-27T00:00:00Z --step 1m",
    ),
    (
        &["why-pending"],
        "kdrift why-pending --all\n  kdrift why-pending --all -n media --since 2026-11-28T00:00:00Z\n  kdrift why-pending \
         media/backup-29930640-5l8lp",
    ),
    (&["demo"], "kdrift demo\n  kdrift demo --save demo.duckdb && KDRIFT_DB=demo.duckdb kdrift why-pending --all"),
    (
        &["query"],
        "kdrift query --list\n  kdrift query runs\n  kdrift query pods_at --param at_us=2026-11-28T05:00:00Z -o json",
    ),
    (&["rebalance"], "kdrift rebalance plan --policy policy.yaml\n  kdrift rebalance apply plan.json"),
    (
        &["rebalance", "plan"],
        "kdrift rebalance plan --policy policy.yaml --simulate\n  kdrift rebalance plan --live -o json > plan.json",
    ),
    (&["rebalance", "explain"], "kdrift rebalance explain media/plex-q856lmxqxq-vwsh4 --policy policy.yaml"),
    (&["rebalance", "backtest"], "kdrift rebalance backtest --policy policy.yaml --schedule \"0 3 * * *\""),
    (&["rebalance", "recommend"], "kdrift rebalance recommend --policy policy.yaml > recommended.yaml"),
    (&["rebalance", "apply"], "kdrift rebalance apply plan.json\n  kdrift rebalance apply plan.json --replan --out done.json"),
    (&["rebalance", "run"], "kdrift rebalance run --policy policy.yaml --yes"),
    (&["record"], "kdrift record -A\n  kdrift record -A --db /data/kdrift.duckdb --metrics-interval 1m"),
    (&["check"], "kdrift check --max-age 26h\n  kdrift check --max-age 26h --cronjob kdrift/kdrift-rebalance"),
    (&["skew"], "kdrift skew\n  kdrift skew --at 2026-11-28T05:00:00Z --policy policy.yaml\n  kdrift skew --usage"),
    (&["hotspots"], "kdrift hotspots\n  kdrift hotspots --threshold 90 --for 6 --step 5m"),
    (&["postmortem"], "kdrift postmortem job media/backup"),
    (&["postmortem", "job"], "kdrift postmortem job media/backup-29930640\n  kdrift postmortem job backup        # a CronJob: its failed runs"),
    (&["timeline"], "kdrift timeline drains"),
    (&["timeline", "drains"], "kdrift timeline drains\n  kdrift timeline drains --since 2026-11-28T00:00:00Z -o json"),
    (&["sessions"], "kdrift sessions annotate --probe 'app=plex=http://plex.media:32400/status/sessions#/MediaContainer/size'"),
    (
        &["sessions", "annotate"],
        "kdrift sessions annotate --probe 'app=plex=http://plex.media:32400/status/sessions#/MediaContainer/size' \
         --every 1m",
    ),
    (&["report"], "kdrift report --html report.html\n  kdrift report --html night.html --since 2026-11-28T00:00:00Z"),
    (&["version"], "kdrift version\n  kdrift version -o json"),
    (&["completion"], "source <(kdrift completion bash)\n  kdrift completion zsh --dynamic > \"${fpath[1]}/_kdrift\""),
];

/// [`Cli`]'s clap command with every [`EXAMPLES`] entry as its
/// subcommand's `after_help` (`Examples:` and the lines, indented).
pub fn command() -> clap::Command {
    EXAMPLES.iter().fold(Cli::command(), |cmd, (path, example)| attach(cmd, path, example))
}

fn attach(cmd: clap::Command, path: &[&str], example: &'static str) -> clap::Command {
    match path {
        [] => cmd.after_help(format!("Examples:\n  {example}")),
        [first, rest @ ..] => cmd.mut_subcommand(*first, |sub| attach(sub, rest, example)),
    }
}

#[cfg(test)]
mod tests {
    use super::{command, EXAMPLES};

    /// Every subcommand path of `cmd`, depth first.
    fn paths(cmd: &clap::Command, prefix: &[String], out: &mut Vec<Vec<String>>) {
        for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
            let mut path = prefix.to_vec();
            path.push(sub.get_name().to_string());
            out.push(path.clone());
            paths(sub, &path, out);
        }
    }

    #[test]
    fn every_subcommand_has_an_example_and_every_example_a_subcommand() {
        let cmd = command();
        cmd.clone().debug_assert();
        let mut all = vec![Vec::new()];
        paths(&cmd, &[], &mut all);
        let given: Vec<Vec<String>> =
            EXAMPLES.iter().map(|(p, _)| p.iter().map(ToString::to_string).collect()).collect();
        let missing: Vec<_> = all.iter().filter(|p| !given.contains(p)).collect();
        assert!(missing.is_empty(), "no example for {missing:?}");
        assert_eq!(given.len(), all.len(), "an example for a subcommand that does not exist");
        // Each example runs the command it is attached to.
        for (path, example) in EXAMPLES {
            let words = path.join(" ");
            assert!(example.contains(&format!("kdrift {words}")), "{words}: {example}");
        }
    }
}
