//! Retrying a failed request with exponential backoff, for the
//! VictoriaLogs and Prometheus pulls alike: [`Retry`] (`--attempts`,
//! `--retry-delay`) and [`retrying`], which runs a request until it
//! succeeds, fails in a way retrying cannot help, the attempts are spent,
//! or the pull is interrupted (SIGINT/SIGTERM, between and during attempts).

use std::fmt::Display;
use std::future::Future;
use std::time::Duration as StdDuration;

use crate::interrupt::Interrupt;

/// Retries of a failed window.
#[derive(Debug, Clone, Copy)]
pub struct Retry {
    /// Attempts per window, the first included (≥ 1).
    pub attempts: u32,
    /// Wait before the second attempt; doubled each time.
    pub first_delay: StdDuration,
    /// Longest wait.
    pub max_delay: StdDuration,
}

impl Default for Retry {
    fn default() -> Self {
        Retry { attempts: 4, first_delay: StdDuration::from_secs(1), max_delay: StdDuration::from_secs(30) }
    }
}

impl Retry {
    /// The wait after failed attempt `attempt` (1-based).
    pub fn delay(&self, attempt: u32) -> StdDuration {
        let factor = 2u32.saturating_pow(attempt.saturating_sub(1));
        self.first_delay.saturating_mul(factor).min(self.max_delay)
    }
}

/// Why [`retrying`] gave up.
#[derive(Debug)]
pub(crate) enum Stop<E> {
    /// The pull was interrupted (before or during an attempt, or while waiting).
    Interrupted,
    /// The last attempt's error, after that many attempts.
    Failed(u32, E),
}

/// Runs `request` until it succeeds, fails with an error `retryable` says
/// retrying cannot help, `retry`'s attempts are spent, or `interrupt` is
/// triggered; each retry is logged (warn) with the error and the wait.
pub(crate) async fn retrying<T, E, F, Fut>(
    retry: &Retry,
    interrupt: &Interrupt,
    retryable: impl Fn(&E) -> bool,
    mut request: F,
) -> Result<T, Stop<E>>
where
    E: Display,
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, E>>,
{
    let mut attempt = 1;
    loop {
        let answer = tokio::select! {
            answer = request() => answer,
            () = interrupt.triggered() => return Err(Stop::Interrupted),
        };
        match answer {
            Ok(v) => return Ok(v),
            Err(e) if retryable(&e) && attempt < retry.attempts => {
                let delay = retry.delay(attempt);
                tracing::warn!(attempt, error = %e, ?delay, "request failed; retrying");
                tokio::select! {
                    () = tokio::time::sleep(delay) => {}
                    () = interrupt.triggered() => return Err(Stop::Interrupted),
                }
                attempt += 1;
            }
            Err(e) => return Err(Stop::Failed(attempt, e)),
        }
    }
}
