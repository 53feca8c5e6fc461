//! SIGINT (Ctrl-C) and SIGTERM during `kdrift ingest …`: the first one
//! triggers the library's [`Interrupt`], so that the run in progress is
//! closed as `failed` (what it committed before stays) and the command
//! exits with 128 + the signal's number (130 for SIGINT, 143 for SIGTERM).
//! A second one exits at once; the run then stays `running` until the
//! store is next opened for writing, which closes it as failed (before
//! the store is open, no run has started, and it says so). A signal
//! that comes during a run's final commit, or after it, is too late to stop
//! it: the run completes and is kept, a warning says the signal was seen,
//! and the exit status is that of a completed ingest ([`outcome`]).

use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

use anyhow::Context;
use kdrift_ingest::Interrupt;

/// A signal that stops an ingest.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Signal {
    /// SIGINT (Ctrl-C).
    Int,
    /// SIGTERM.
    Term,
}

impl Signal {
    /// `SIGINT` or `SIGTERM`.
    pub fn name(self) -> &'static str {
        match self {
            Signal::Int => "SIGINT",
            Signal::Term => "SIGTERM",
        }
    }

    /// 128 + the signal's number, as a shell reports a process the signal ended.
    pub fn exit_status(self) -> u8 {
        match self {
            Signal::Int => 130,
            Signal::Term => 143,
        }
    }
}

/// Where an ingest run was when the first signal came.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// Reading its input: the run stopped and was closed as failed.
    Reading,
    /// Its final commit (every input read): the commit went on.
    FinalCommit,
    /// After its final commit (printing the summary).
    Finished,
}

/// What a signal does to the end of an ingest ([`outcome`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// No signal came: the run's own exit status.
    Unaffected,
    /// The run was stopped and closed as failed: an error, and this exit
    /// status (128 + the signal's number).
    Stopped {
        /// 130 or 143.
        exit_status: u8,
    },
    /// Too late to stop the run, which completed and is kept: this
    /// warning, and the exit status of a completed ingest (0, or 2 with
    /// input errors), so that a wrapper can tell the data is in.
    Completed {
        /// The `kdrift: warning: …` line (without the newline).
        warning: String,
    },
}

/// What an ingest that completed keeps, for [`outcome`]'s warning: `the
/// run completed and is kept (run 3)`.
pub fn run_kept(run_id: i64) -> String {
    format!("the run completed and is kept (run {run_id})")
}

/// What a VictoriaLogs pull that completed keeps, for [`outcome`]'s
/// warning: `the pull completed and its 6 windows are kept (runs 3 to 8)`
/// (`run_ids`: its windows' runs, in order).
pub fn windows_kept(run_ids: &[i64]) -> String {
    match run_ids {
        [] => "the pull completed (it had nothing to pull)".to_string(),
        [one] => format!("the pull completed and its window is kept (run {one})"),
        [first, .., last] => {
            format!("the pull completed and its {} windows are kept (runs {first} to {last})", run_ids.len())
        }
    }
}

/// Maps the first signal seen (if any) and the stage the ingest was at to
/// what the command prints and exits with; `kept` says what a completed
/// ingest keeps ([`run_kept`], or a pull's windows). A run the library
/// closed as interrupted ([`Stage::Reading`]) exits 128 + n even when the
/// signal is unknown (130).
pub fn outcome(signal: Option<Signal>, stage: Stage, kept: &str) -> Outcome {
    let when = match stage {
        Stage::Reading => {
            return Outcome::Stopped { exit_status: signal.unwrap_or(Signal::Int).exit_status() };
        }
        Stage::FinalCommit => "during the final commit",
        Stage::Finished => "after the final commit",
    };
    match signal {
        None => Outcome::Unaffected,
        Some(signal) => {
            Outcome::Completed { warning: format!("kdrift: warning: interrupted by {} {when}: {kept}", signal.name()) }
        }
    }
}

/// The signals caught for one command.
pub struct Caught {
    interrupt: Interrupt,
    signal: Arc<OnceLock<Signal>>,
    /// Whether the store is open ([`Caught::store_opened`]): before, no run
    /// has started, and a second signal says so.
    opened: Arc<AtomicBool>,
}

impl Caught {
    /// The flag the library checks.
    pub fn interrupt(&self) -> &Interrupt {
        &self.interrupt
    }

    /// Says the store is open (a run may start from now on): a second
    /// signal before this says that no run was started, rather than that
    /// one stays `running` (break-it 41 G14: said while the open blocked).
    pub fn store_opened(&self) {
        self.opened.store(true, Ordering::SeqCst);
    }

    /// The first signal received, if any.
    pub fn signal(&self) -> Option<Signal> {
        self.signal.get().copied()
    }

    /// The exit code after an interrupted run (130 when no signal is known).
    pub fn exit_code(&self) -> ExitCode {
        ExitCode::from(self.signal().unwrap_or(Signal::Int).exit_status())
    }

    /// `SIGINT` or `SIGTERM`, for messages.
    pub fn signal_name(&self) -> &'static str {
        self.signal().unwrap_or(Signal::Int).name()
    }
}

/// Catches SIGINT and SIGTERM from now until the process ends, on a thread
/// of its own (the handlers are installed when this returns).
///
/// # Errors
/// The thread or the handlers could not be set up.
pub fn catch() -> anyhow::Result<Caught> {
    let caught = Caught {
        interrupt: Interrupt::new(),
        signal: Arc::new(OnceLock::new()),
        opened: Arc::new(AtomicBool::new(false)),
    };
    let (interrupt, signal) = (caught.interrupt.clone(), Arc::clone(&caught.signal));
    let opened = Arc::clone(&caught.opened);
    let (ready_tx, ready_rx) = std::sync::mpsc::channel::<std::io::Result<()>>();
    std::thread::Builder::new()
        .name("kdrift-signals".into())
        .spawn(move || {
            let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
                Ok(r) => r,
                Err(e) => {
                    let _ = ready_tx.send(Err(e));
                    return;
                }
            };
            runtime.block_on(async move {
                use tokio::signal::unix::{signal as listen, SignalKind};
                let (mut int, mut term) = match (listen(SignalKind::interrupt()), listen(SignalKind::terminate())) {
                    (Ok(int), Ok(term)) => (int, term),
                    (Err(e), _) | (_, Err(e)) => {
                        let _ = ready_tx.send(Err(e));
                        return;
                    }
                };
                let _ = ready_tx.send(Ok(()));
                let mut received = 0u32;
                loop {
                    let got = tokio::select! {
                        Some(()) = int.recv() => Signal::Int,
                        Some(()) = term.recv() => Signal::Term,
                        else => return,
                    };
                    received += 1;
                    if received == 1 {
                        let _ = signal.set(got);
                        interrupt.trigger();
                        // An exec plugin that never exits is killed (break-it 43 M-exec).
                        kdrift_rebalance::stop_exec_plugins();
                    } else {
                        eprintln!("{}", second_signal_message(got, opened.load(Ordering::SeqCst)));
                        std::process::exit(i32::from(got.exit_status()));
                    }
                }
            });
        })
        .context("starting the signal handler thread")?;
    ready_rx
        .recv()
        .context("the signal handler thread ended before it was ready")?
        .context("catching SIGINT and SIGTERM")?;
    Ok(caught)
}

/// What a second signal prints as it exits: the run stays `running` once
/// the store was open (`opened`), else no run was started.
fn second_signal_message(signal: Signal, opened: bool) -> String {
    if opened {
        format!(
            "kdrift: error: {} again: exiting at once; the run stays `running` until the store is next opened for \
             writing, which closes it as failed (what it committed before stays)",
            signal.name()
        )
    } else {
        format!(
            "kdrift: error: {} again: exiting at once, before the store was open: no run was started",
            signal.name()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_signal_maps_to_a_stop_before_the_final_commit_and_to_a_warning_from_it_on() {
        let run3 = run_kept(3);
        assert_eq!(outcome(None, Stage::FinalCommit, &run3), Outcome::Unaffected);
        assert_eq!(outcome(None, Stage::Finished, &run3), Outcome::Unaffected);
        assert_eq!(outcome(Some(Signal::Int), Stage::Reading, &run3), Outcome::Stopped { exit_status: 130 });
        assert_eq!(outcome(Some(Signal::Term), Stage::Reading, &run3), Outcome::Stopped { exit_status: 143 });
        assert_eq!(outcome(None, Stage::Reading, &run3), Outcome::Stopped { exit_status: 130 });
        assert_eq!(
            outcome(Some(Signal::Int), Stage::FinalCommit, &run3),
            Outcome::Completed {
                warning: "kdrift: warning: interrupted by SIGINT during the final commit: the run completed and is \
                          kept (run 3)"
                    .to_string()
            }
        );
        assert_eq!(
            outcome(Some(Signal::Term), Stage::Finished, &run_kept(7)),
            Outcome::Completed {
                warning: "kdrift: warning: interrupted by SIGTERM after the final commit: the run completed and is \
                          kept (run 7)"
                    .to_string()
            }
        );
        // A pull, as `ingest victorialogs` says it (it said nothing).
        assert_eq!(
            outcome(Some(Signal::Int), Stage::FinalCommit, &windows_kept(&[3, 4, 5, 6, 7, 8])),
            Outcome::Completed {
                warning: "kdrift: warning: interrupted by SIGINT during the final commit: the pull completed and its \
                          6 windows are kept (runs 3 to 8)"
                    .to_string()
            }
        );
        assert_eq!(windows_kept(&[4]), "the pull completed and its window is kept (run 4)");
    }

    /// Break-it 41 G14: a second signal while the store's open blocked said
    /// a run "stays `running`" that never started.
    #[test]
    fn a_second_signal_before_the_store_is_open_claims_no_run() {
        assert_eq!(
            second_signal_message(Signal::Term, false),
            "kdrift: error: SIGTERM again: exiting at once, before the store was open: no run was started"
        );
        assert!(
            second_signal_message(Signal::Int, true).contains("SIGINT again: exiting at once; the run stays `running`")
        );
    }
}
