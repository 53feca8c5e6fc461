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
use crate::args::{Cli, Output, RebalanceBacktestArgs};
use crate::render;

/// Nights a backtest replays at most (a minutely schedule over a year would
/// be half a million plans).
pub const MAX_NIGHTS: usize = 1000;

/// The schedule's instants in `[since, until]`, ascending, at most
/// [`MAX_NIGHTS`] (more is an error naming the schedule).
fn instants(schedule: &str, since: DateTime<Utc>, until: DateTime<Utc>) -> anyhow::Result<Vec<DateTime<Utc>>> {
    let cron =
        Cron::from_str(schedule).with_context(|| format!("--schedule {schedule:?}: not a 5-field cron schedule"))?;
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

/// Exit 0 with the backtest; 1 when the store is empty or the schedule
/// never runs in the range (said on stderr); errors are exit 2 via `main`.
pub fn backtest(cli: &Cli, args: &RebalanceBacktestArgs) -> anyhow::Result<ExitCode> {
    let (policy, policy_source) = read_policy(args.policy.as_deref())?;
    let scoring = read_scoring(&args.scoring)?;
    let store = crate::cmd::open_existing_store(&cli.db)?;
    let Some((first, last)) = kdrift_analyze::time_span(&store)? else {
        eprintln!("kdrift: {}: the store holds no observations: nothing to replay", store.path().display());
        return Ok(ExitCode::from(1));
    };
    let since = args.since.unwrap_or(first);
    let until = args.until.unwrap_or(last);
    if since > until {
        anyhow::bail!("--since {since} is after --until {until}");
    }
    let nights = instants(&args.schedule, since, until)?;
    if nights.is_empty() {
        eprintln!("kdrift: --schedule {:?} does not run between {since} and {until}: nothing to replay", args.schedule);
        return Ok(ExitCode::from(1));
    }
    note_default_policy(&policy_source)?;
    let result = kdrift_analyze::backtest_with(&store, &policy, &nights, since, until, &scoring)?;
    let mut out = std::io::stdout().lock();
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
        assert!(err.contains("--schedule \"every night\": not a 5-field cron schedule"), "{err}");
        let err = instants("* * * * *", at(1, 0, 0), at(28, 0, 0)).expect_err("too many").to_string();
        assert!(err.contains("runs more than 1000 times"), "{err}");
    }
}
