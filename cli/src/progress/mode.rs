//! How progress and logs look on stderr, chosen once at start (issue 38
//! item 3): a bar only on a terminal without `NO_COLOR` (no-color.org: set
//! and not empty) and not `TERM=dumb`; plain lines otherwise (a CronJob's
//! log: no carriage return, no ANSI escape); JSON log events with
//! `--log-format json`. Every line is redacted like a log line.

use std::io::{IsTerminal, Write};
use std::sync::OnceLock;

use indicatif::ProgressDrawTarget;

use crate::args::LogFormat;

/// How progress shows on stderr.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// A bar redrawn in place (indicatif): stderr is a terminal.
    Bar,
    /// One plain line per step, no escape sequence.
    Plain,
    /// One JSON log event per step (target `kdrift::progress`).
    Json,
}

static MODE: OnceLock<Mode> = OnceLock::new();

/// The tracing target of progress events in JSON mode.
pub const TARGET: &str = "kdrift::progress";

/// The mode for these conditions: `no_color` is `NO_COLOR`'s value, `term` `TERM`'s.
pub fn choose(format: LogFormat, stderr_is_terminal: bool, no_color: Option<&str>, term: Option<&str>) -> Mode {
    match format {
        LogFormat::Json => Mode::Json,
        LogFormat::Text if ansi_allowed(stderr_is_terminal, no_color, term) => Mode::Bar,
        LogFormat::Text => Mode::Plain,
    }
}

/// Whether escape sequences (colour, cursor moves) may go to stderr.
pub fn ansi_allowed(stderr_is_terminal: bool, no_color: Option<&str>, term: Option<&str>) -> bool {
    stderr_is_terminal && no_color.is_none_or(str::is_empty) && term != Some("dumb")
}

/// Chooses the mode from the environment (once; later calls keep the first).
pub fn init(format: LogFormat) -> Mode {
    let no_color = std::env::var("NO_COLOR").ok();
    let term = std::env::var("TERM").ok();
    *MODE.get_or_init(|| choose(format, std::io::stderr().is_terminal(), no_color.as_deref(), term.as_deref()))
}

/// The mode chosen at start ([`init`]); plain if none was.
pub fn mode() -> Mode {
    MODE.get().copied().unwrap_or(Mode::Plain)
}

/// Where a bar draws: stderr in [`Mode::Bar`], nowhere otherwise.
pub fn draw_target() -> ProgressDrawTarget {
    match mode() {
        Mode::Bar => ProgressDrawTarget::stderr(),
        Mode::Plain | Mode::Json => ProgressDrawTarget::hidden(),
    }
}

/// `text` redacted of every credential held and every credential shape,
/// as log lines are (`RedactedStderr` in main.rs); the values typed on
/// the command line ([`typed_values`]) kept as written.
pub fn redact(text: &str) -> String {
    kdrift_rebalance::mask_shown_keeping(text, TYPED.get_or_init(|| typed_values(std::env::args_os().skip(1))))
}

static TYPED: OnceLock<Vec<String>> = OnceLock::new();

/// The values of `args` that name files or objects (`--policy
/// /etc/passwd`, `--db=x.duckdb`, `NAMESPACE/NAME`), kept as written when
/// errors and lines are redacted: the credential shapes read a path's last
/// word as a key (`…/passwd: (document)`). Not kept: flags, and values
/// holding a blank, `:`, `=` or `@` (a URL, `--param k=v`, a header:
/// kdrift takes credentials from files only, so no typed value is one).
pub fn typed_values(args: impl Iterator<Item = std::ffi::OsString>) -> Vec<String> {
    args.filter_map(|a| {
        let a = a.to_string_lossy().into_owned();
        let value = match a.strip_prefix("--") {
            Some(flag) => flag.split_once('=')?.1.to_string(),
            None if a.starts_with('-') => return None,
            None => a,
        };
        // A bare secret's word (`--policy token`) would shield `token=X`
        // wherever it shows (break-it 46 M3): kept only as a path with a `/`.
        let shields_a_key = kdrift_rebalance::secret_named(&value) && !value.contains('/');
        (!shields_a_key && !value.contains(|c: char| c.is_whitespace() || ":=@".contains(c))).then_some(value)
    })
    .collect()
}

/// Writes one plain line on stderr, redacted.
pub fn line(text: &str) {
    let mut err = std::io::stderr().lock();
    let _ = writeln!(err, "{}", redact(text));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bar_only_on_a_terminal_without_no_color() {
        assert_eq!(choose(LogFormat::Text, true, None, Some("xterm")), Mode::Bar);
        assert_eq!(choose(LogFormat::Text, true, Some(""), None), Mode::Bar, "an empty NO_COLOR is unset");
        assert_eq!(choose(LogFormat::Text, true, Some("1"), Some("xterm")), Mode::Plain);
        assert_eq!(choose(LogFormat::Text, true, None, Some("dumb")), Mode::Plain);
        assert_eq!(choose(LogFormat::Text, false, None, Some("xterm")), Mode::Plain);
        assert_eq!(choose(LogFormat::Json, true, None, Some("xterm")), Mode::Json);
        assert!(!ansi_allowed(true, Some("1"), None));
    }

    #[test]
    fn typed_paths_and_names_are_kept_and_urls_and_parameters_are_not() {
        let args = [
            "--db=s.duckdb",
            "rebalance",
            "plan",
            "--policy",
            "/etc/passwd",
            "-o",
            "json",
            "--url",
            "http://u:p@h",
            "--param",
            "k=v",
            "my token",
            "token",
            "db-password",
            "./token",
        ];
        let kept = typed_values(args.iter().map(std::ffi::OsString::from));
        assert_eq!(kept, ["s.duckdb", "rebalance", "plan", "/etc/passwd", "json", "./token"]);
    }
}
