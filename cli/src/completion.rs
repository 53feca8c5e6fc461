//! Shell completion: `kdrift completion bash|zsh|fish` prints clap_complete's
//! static script (subcommands and flags), or with `--dynamic` the
//! registration of clap_complete's dynamic completion, which asks the
//! binary itself (`KDRIFT_COMPLETE=<shell> kdrift -- <words>`, handled
//! first thing in `main` by [`complete_from_env`]) and so also completes
//! pod names (`why-pending`, `rebalance explain`) and Job and CronJob names
//! (`postmortem job`) from the store (`--db` on the line, else `KDRIFT_DB`,
//! else `kdrift.duckdb`). Invoked as `kubectl_complete-kdrift`, the binary
//! answers kubectl's own completion of `kubectl kdrift …`
//! ([`kubectl_complete`]).

use std::ffi::{OsStr, OsString};
use std::io::Write;
use std::path::PathBuf;

use clap::{Args, CommandFactory};
use clap_complete::engine::{ArgValueCompleter, CompletionCandidate};
use clap_complete::env::EnvCompleter;

/// The environment variable that turns a run into a completion request.
pub const ENV: &str = "KDRIFT_COMPLETE";

/// `kdrift completion`.
#[derive(Debug, Args)]
pub struct CompletionArgs {
    /// The shell: bash, zsh or fish (also elvish, powershell).
    #[arg(value_name = "SHELL")]
    pub shell: clap_complete::Shell,
    /// The dynamic registration instead of the static script: the shell asks kdrift at each Tab, which
    /// also completes pod, Job and CronJob names from the store (--db, else KDRIFT_DB, else kdrift.duckdb).
    #[arg(long)]
    pub dynamic: bool,
}

/// The CLI with the store-backed completers on the pod and Job arguments.
pub fn command() -> clap::Command {
    let pods = || ArgValueCompleter::new(|current: &OsStr| candidates(current, Names::Pods));
    crate::args::Cli::command()
        .mut_subcommand("why-pending", |c| c.mut_arg("pod", |a| a.add(pods())))
        .mut_subcommand("rebalance", |c| c.mut_subcommand("explain", |c| c.mut_arg("pod", |a| a.add(pods()))))
        .mut_subcommand("postmortem", |c| {
            c.mut_subcommand("job", |c| {
                c.mut_arg("job", |a| a.add(ArgValueCompleter::new(|current: &OsStr| candidates(current, Names::Jobs))))
            })
        })
}

/// Answers a completion request when [`ENV`] is set (and exits); returns otherwise.
pub fn complete_from_env(bin: &str) {
    clap_complete::CompleteEnv::with_factory(|| command().bin_name(bin.to_string())).var(ENV).bin(bin).complete();
}

/// Answers kubectl's plugin completion (kubectl 1.26+, kubernetes#105867):
/// for `kubectl kdrift why-pending media/b<Tab>` kubectl runs
/// `kubectl_complete-kdrift why-pending media/b` ([`crate::plugin::COMPLETER_BIN`]
/// on the PATH) and reads one candidate a line (`value<TAB>help`), then
/// Cobra's directive: `:4` (no file completion) after candidates, `:0`
/// (the shell's default) when there are none. `words`: the words after
/// `kdrift`, the last the one being completed (empty for a new word).
///
/// # Errors
/// Writing to `out` failed (a candidate that cannot be computed is left out).
pub fn kubectl_complete(words: &[OsString], out: &mut dyn Write) -> std::io::Result<()> {
    let mut args = vec![OsString::from(crate::plugin::PLUGIN_BIN)];
    args.extend(words.iter().cloned());
    if words.is_empty() {
        args.push(OsString::new());
    }
    let index = args.len() - 1;
    let mut cmd = command().bin_name(crate::plugin::PLUGIN_BIN);
    let here = std::env::current_dir().ok();
    let found = clap_complete::engine::complete(&mut cmd, args, index, here.as_deref()).unwrap_or_default();
    let mut any = false;
    for c in found.iter().filter(|c| !c.is_hide_set()) {
        let value = c.get_value().to_string_lossy();
        // One line each: a help text's line breaks and tabs would split it.
        match c.get_help().map(|h| h.to_string().replace(['\n', '\t'], " ")) {
            Some(help) if !help.is_empty() => writeln!(out, "{value}\t{help}")?,
            _ => writeln!(out, "{value}")?,
        }
        any = true;
    }
    writeln!(out, ":{}", if any { 4 } else { 0 })
}

/// Prints the script for `args.shell` on `out` (`bin`: the command the shell completes, `kdrift`).
///
/// # Errors
/// Writing failed, or the shell has no dynamic registration.
pub fn run(args: &CompletionArgs, bin: &str, out: &mut dyn Write) -> anyhow::Result<()> {
    if !args.dynamic {
        // Into a buffer first: clap_complete panics on a failed write (`… | head`).
        let mut script = Vec::new();
        clap_complete::generate(args.shell, &mut command(), bin, &mut script);
        out.write_all(&script)?;
        return Ok(());
    }
    let shell: &dyn EnvCompleter = match args.shell {
        clap_complete::Shell::Bash => &clap_complete::env::Bash,
        clap_complete::Shell::Zsh => &clap_complete::env::Zsh,
        clap_complete::Shell::Fish => &clap_complete::env::Fish,
        clap_complete::Shell::Elvish => &clap_complete::env::Elvish,
        clap_complete::Shell::PowerShell => &clap_complete::env::Powershell,
        other => anyhow::bail!("no dynamic completion for {other}; use the static script (without --dynamic)"),
    };
    shell.write_registration(ENV, "kdrift", bin, bin, out)?;
    Ok(())
}

/// Which names an argument takes.
#[derive(Debug, Clone, Copy)]
enum Names {
    /// Pods (`why-pending`, `rebalance explain`).
    Pods,
    /// Jobs and CronJobs (`postmortem job`).
    Jobs,
}

/// The store of the line being completed: its `--db`, else `KDRIFT_DB`, else the default.
fn store_path(words: &[OsString]) -> PathBuf {
    let mut given = None;
    for (i, w) in words.iter().enumerate() {
        let w = w.to_string_lossy();
        if w == "--db" {
            given = words.get(i + 1).map(PathBuf::from);
        } else if let Some(path) = w.strip_prefix("--db=") {
            given = Some(PathBuf::from(path));
        }
    }
    given
        .or_else(|| std::env::var_os("KDRIFT_DB").map(PathBuf::from))
        .unwrap_or_else(|| PathBuf::from(crate::args::DEFAULT_DB))
}

/// The names starting with `current`, as `NAMESPACE/NAME` and as `NAME`
/// alone; none when the store is missing or cannot be read (completion
/// never prints an error).
fn candidates(current: &OsStr, names: Names) -> Vec<CompletionCandidate> {
    let current = current.to_string_lossy();
    let words: Vec<OsString> = std::env::args_os().collect();
    let path = store_path(&words);
    if !path.exists() {
        return Vec::new();
    }
    let Ok(store) = kdrift_store::Store::open_existing(&path) else { return Vec::new() };
    let listed = match names {
        Names::Pods => kdrift_analyze::pod_names(&store),
        Names::Jobs => kdrift_analyze::job_names(&store),
    };
    matching(&listed.unwrap_or_default(), &current).into_iter().map(CompletionCandidate::new).collect()
}

/// `NAMESPACE/NAME` and bare `NAME` values starting with `current`, each once, in store order.
/// Only names the API server accepts (DNS-1123: `a-z`, `0-9`, `-`, `.`)
/// are offered: a dump file may hold any text as a name, and a candidate
/// with `$(…)`, a newline or an escape sequence would reach the shell's
/// command line (break-it 36 F5).
fn matching(names: &[(String, String)], current: &str) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    let mut out: Vec<String> = Vec::new();
    for (namespace, name) in names.iter().filter(|(ns, n)| kube_name(ns) && kube_name(n)) {
        for value in [format!("{namespace}/{name}"), name.clone()] {
            if value.starts_with(current) && seen.insert(value.clone()) {
                out.push(value);
            }
        }
    }
    out
}

/// A DNS-1123 subdomain, what Kubernetes allows as an object's name (a
/// namespace is the stricter label, which this accepts too): 1–253
/// characters of `a-z`, `0-9`, `-` and `.`, starting and ending with a
/// letter or digit.
fn kube_name(s: &str) -> bool {
    let edge = |c: Option<char>| c.is_some_and(|c| c.is_ascii_lowercase() || c.is_ascii_digit());
    s.len() <= 253
        && edge(s.chars().next())
        && edge(s.chars().last())
        && s.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '.')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_match_with_and_without_their_namespace() {
        let names = [("media".to_string(), "backup".to_string()), ("ops".to_string(), "backup".to_string())];
        assert_eq!(matching(&names, "b"), ["backup"]);
        assert_eq!(matching(&names, ""), ["media/backup", "backup", "ops/backup"]);
        assert_eq!(matching(&names, "ops/"), ["ops/backup"]);
        // Names no API server accepts are never offered to the shell.
        let hostile = [
            ("media".to_string(), "p$(touch /tmp/x)".to_string()),
            ("ns$(id)".to_string(), "p".to_string()),
            ("media".to_string(), "two\nlines".to_string()),
            ("media".to_string(), "t\u{1b}]0;title\u{7}".to_string()),
            ("media".to_string(), "-rf".to_string()),
            ("media".to_string(), "web-0.svc".to_string()),
        ];
        assert_eq!(matching(&hostile, ""), ["media/web-0.svc", "web-0.svc"]);
        let words: Vec<OsString> = ["kdrift", "--db", "x.duckdb", "postmortem"].map(OsString::from).to_vec();
        assert_eq!(store_path(&words), PathBuf::from("x.duckdb"));
    }
}
