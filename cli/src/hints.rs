//! A tip after clap's own error for the command lines newcomers type first
//! and clap cannot guess: a file given to `ingest` without `file`, a Job
//! given to `postmortem` without `job`, kubectl's `-n`/`-A`/`-l` put before
//! the verb (`kubectl -n media get pods` works; kdrift's selectors belong to
//! the commands that list pods). Pure: [`tip`] reads the error and the
//! arguments and returns the line to print.

use std::ffi::OsString;

use clap::error::{ContextKind, ContextValue, ErrorKind};

/// The tip for `err`, raised by parsing `argv` (the process's arguments,
/// the program name first), or `None` when there is nothing to add.
pub fn tip(err: &clap::Error, argv: &[OsString]) -> Option<String> {
    let words: Vec<String> = argv.iter().map(|a| a.to_string_lossy().into_owned()).collect();
    let string = |kind| match err.get(kind) {
        Some(ContextValue::String(s)) => Some(s.clone()),
        _ => None,
    };
    match err.kind() {
        ErrorKind::InvalidSubcommand => {
            let word = string(ContextKind::InvalidSubcommand)?;
            let at = words.iter().position(|w| *w == word)?;
            match words.get(at.checked_sub(1)?)?.as_str() {
                "ingest" => {
                    Some(format!("tip: to load a file or a directory (or `-` for stdin): kdrift ingest file {word}"))
                }
                "postmortem" => Some(format!("tip: a Job (or a CronJob's runs): kdrift postmortem job {word}")),
                "timeline" => Some("tip: the timelines are: kdrift timeline drains".to_string()),
                _ => None,
            }
        }
        ErrorKind::UnknownArgument => {
            let arg = string(ContextKind::InvalidArg)?;
            let flag = arg.split([' ', '=']).next().unwrap_or_default().to_string();
            let selector = ["-n", "--namespace", "-A", "--all-namespaces", "-l", "--selector"];
            let at = words.iter().position(|w| w.split('=').next() == Some(flag.as_str()))?;
            let verb_after = words[at + 1..].iter().any(|w| SELECTING.contains(&w.as_str()));
            (selector.contains(&flag.as_str()) && verb_after).then(|| {
                format!(
                    "tip: kdrift takes {flag} after the command, not before it as kubectl may: e.g. \
                     kdrift why-pending --all {flag}{}",
                    if flag.starts_with("-A") || flag == "--all-namespaces" { "" } else { " …" }
                )
            })
        }
        _ => None,
    }
}

/// The commands that take `-n`, `-A` and `-l`.
const SELECTING: [&str; 4] = ["why-pending", "timeline", "skew", "hotspots"];

#[cfg(test)]
mod tests {
    use super::tip;

    fn tip_of(line: &str) -> Option<String> {
        let argv: Vec<std::ffi::OsString> = line.split(' ').map(Into::into).collect();
        let err = crate::examples::command().try_get_matches_from(&argv).expect_err("an error");
        tip(&err, &argv)
    }

    #[test]
    fn the_first_lines_newcomers_type_get_the_command_they_meant() {
        assert_eq!(
            tip_of("kdrift ingest events.json").as_deref(),
            Some("tip: to load a file or a directory (or `-` for stdin): kdrift ingest file events.json")
        );
        assert_eq!(
            tip_of("kdrift postmortem media/backup").as_deref(),
            Some("tip: a Job (or a CronJob's runs): kdrift postmortem job media/backup")
        );
        assert_eq!(
            tip_of("kdrift -n media why-pending --all").as_deref(),
            Some("tip: kdrift takes -n after the command, not before it as kubectl may: e.g. kdrift why-pending --all -n …")
        );
        assert_eq!(tip_of("kdrift why-pending --all --nope"), None);
        assert_eq!(tip_of("kdrift nope"), None);
    }
}
