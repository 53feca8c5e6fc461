//! `kdrift rebalance backtest --policy FILE --schedule CRON [--since T]
//! [--until T]`: the policy replayed at the schedule's instants over the
//! store's history (`kdrift_analyze::backtest`), and every FailedScheduling
//! in the range asked again. Simulation only: never evicts.

use std::process::ExitCode;
use std::str::FromStr;

use anyhow::Context;
use chrono::{DateTime, Utc};
use croner::Cron;

use super::rebalance::{note_default_policy, read_policy, read_scoring};
use crate::args::{Cli, Output, RebalanceBacktestArgs, SCHEDULE_FORMS};
use crate::render;

/// Nights a backtest replays at most (a minutely schedule over a year would
/// be half a million plans).
pub const MAX_NIGHTS: usize = 1000;

/// The schedule's instants in `[since, until]`, ascending, at most
/// [`MAX_NIGHTS`] (more is an error naming the schedule).
fn instants(schedule: &str, since: DateTime<Utc>, until: DateTime<Utc>) -> anyhow::Result<Vec<DateTime<Utc>>> {
    let cron = parse_schedule(schedule)?;
    let mut out = Vec::new();
    let mut t = since;
    loop {
        let next = cron
            .find_next_occurrence(&t, out.is_empty())
            .with_context(|| format!("--schedule {schedule:?}: no next run after {t}"))?;
        if next > until {
            return Ok(out);
        }
        if out.len() == MAX_NIGHTS {
            anyhow::bail!(
                "--schedule {schedule:?} runs more than {MAX_NIGHTS} times between {since} and {until}: narrow --since/--until"
            );
        }
        out.push(next);
        t = next;
    }
}

/// The cron schedule `schedule`, else an error saying what is wrong with it
/// (its field count, or croner's reason) and what is accepted
/// ([`SCHEDULE_FORMS`], as `--help` says).
fn parse_schedule(schedule: &str) -> anyhow::Result<Cron> {
    Cron::from_str(schedule).map_err(|e| {
        let fields = schedule.split_whitespace().count();
        let why = if schedule.trim_start().starts_with('@') {
            format!("no shortcut {}", schedule.trim())
        } else if !(5..=7).contains(&fields) {
            kdrift_analyze::count(fields, "field", "fields")
        } else {
            e.to_string().trim_end_matches('.').to_string()
        };
        anyhow::anyhow!("--schedule {schedule:?}: {why}; expected {SCHEDULE_FORMS}")
    })
}

/// Exit 0 with the backtest; 1 when the store is empty or the schedule
/// never runs in the range (said on stderr); errors are exit 2 via `main`.
pub fn backtest(cli: &Cli, args: &RebalanceBacktestArgs) -> anyhow::Result<ExitCode> {
    let (policy, policy_source) = read_policy(args.policy.as_deref())?;
    let scoring = read_scoring(&args.scoring)?;
    let store = crate::cmd::open_existing_store(cli)?;
    let Some((first, last)) = kdrift_analyze::time_span(&store)? else {
        eprintln!("kdrift: {}: the store holds no observations: nothing to replay", store.path().display());
        return Ok(ExitCode::from(1));
    };
    crate::cmd::check_range(args.since, args.until)?;
    let since = args.since.unwrap_or(first);
    let until = args.until.unwrap_or(last);
    let utc = crate::render::time;
    if since > until {
        // One end given, past the other end of the store's history.
        let given =
            if args.since.is_some() { format!("--since {}", utc(since)) } else { format!("--until {}", utc(until)) };
        eprintln!(
            "kdrift: {given} is outside the store's history ({} to {}): nothing to replay",
            utc(first),
            utc(last)
        );
        return Ok(ExitCode::from(1));
    }
    let nights = instants(&args.schedule, since, until)?;
    if nights.is_empty() {
        eprintln!(
            "kdrift: --schedule {:?} does not run between {} and {}: nothing to replay",
            args.schedule,
            utc(since),
            utc(until)
        );
        return Ok(ExitCode::from(1));
    }
    note_default_policy(&policy_source)?;
    let result = kdrift_analyze::backtest_with(&store, &policy, &nights, since, until, &scoring)?;
    let mut out = crate::render::stdout();
    match cli.output {
        Output::Json => render::json(&mut out, &result)?,
        Output::Table => render::rebalance::backtest(&mut out, &result, &args.schedule, &policy_source)?,
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone;

    use super::*;

    #[test]
    fn a_nightly_schedule_gives_one_instant_per_night_in_the_range() {
        let at = |d, h, m| Utc.with_ymd_and_hms(2026, 11, d, h, m, 0).single().expect("valid");
        let got = instants("30 1 * * *", at(26, 12, 0), at(28, 5, 0)).expect("parses");
        assert_eq!(got, [at(27, 1, 30), at(28, 1, 30)]);
        // An instant on the schedule at `since` counts.
        assert_eq!(instants("30 1 * * *", at(27, 1, 30), at(27, 2, 0)).expect("parses"), [at(27, 1, 30)]);
        let err = instants("every night", at(26, 0, 0), at(27, 0, 0)).expect_err("refused").to_string();
        assert_eq!(err, format!("--schedule \"every night\": 2 fields; expected {SCHEDULE_FORMS}"));
        // Croner's own forms are all accepted: seconds first, a year last, the shortcuts.
        for (schedule, first) in [("0 30 1 * * *", at(27, 1, 30)), ("0 30 1 * * * 2026", at(27, 1, 30))] {
            assert_eq!(instants(schedule, at(26, 12, 0), at(27, 12, 0)).expect(schedule), [first]);
        }
        assert_eq!(instants("@daily", at(26, 12, 0), at(28, 5, 0)).expect("@daily"), [at(27, 0, 0), at(28, 0, 0)]);
        let err = instants("@midnight", at(26, 0, 0), at(27, 0, 0)).expect_err("refused").to_string();
        assert!(
            err.starts_with("--schedule \"@midnight\": no shortcut @midnight; expected cron with 5 fields"),
            "{err}"
        );
        let err = instants("61 1 * * *", at(26, 0, 0), at(27, 0, 0)).expect_err("refused").to_string();
        assert!(err.starts_with("--schedule \"61 1 * * *\": Component error: "), "{err}");
        assert!(err.contains("; expected cron with 5 fields, minute hour"), "{err}");
        let err = instants("* * * * *", at(1, 0, 0), at(28, 0, 0)).expect_err("too many").to_string();
        assert!(err.contains("runs more than 1000 times"), "{err}");
    }
}
