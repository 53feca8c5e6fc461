//! Migrating an existing store to this build's schema, step by step, on
//! stderr (issue 38 item 3): `kdrift: migrating the store kdrift.duckdb to
//! schema v17 (from v16) …` as each step begins, a spinner with the time
//! spent on a terminal, `… done in 1:05` after a step of 5 s or more; JSON
//! log events with `--log-format json`.

use std::path::Path;
use std::sync::Mutex;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressState, ProgressStyle};
use kdrift_rebalance::progress::clock;
use kdrift_store::MigrationProgress;

use super::mode::{self, Mode, TARGET};

/// A step shorter than this gets no line of its own when done.
const LONG: Duration = Duration::from_secs(5);

/// The CLI's [`MigrationProgress`].
pub struct Migrations {
    mode: Mode,
    spinner: Mutex<Option<ProgressBar>>,
}

impl Migrations {
    /// Progress in the mode chosen at start.
    pub fn new() -> Migrations {
        Migrations { mode: mode::mode(), spinner: Mutex::new(None) }
    }
}

fn started_line(path: &Path, from: i64, to: i64) -> String {
    format!("kdrift: migrating the store {} to schema v{to} (from v{from}) …", path.display())
}

fn done_line(path: &Path, to: i64, elapsed: Duration) -> String {
    format!("kdrift: migrated the store {} to schema v{to} in {}", path.display(), clock(elapsed))
}

impl MigrationProgress for Migrations {
    fn step(&self, path: &Path, from: i64, to: i64) {
        let text = started_line(path, from, to);
        match self.mode {
            Mode::Json => {
                tracing::info!(target: TARGET, event = "migrating", store = %path.display(), from, to, "{text}");
            }
            Mode::Plain => mode::line(&text),
            Mode::Bar => {
                let spinner = ProgressBar::with_draw_target(None, mode::draw_target());
                let style = ProgressStyle::with_template("{spinner} {msg} {wait}")
                    .unwrap_or_else(|_| ProgressStyle::default_spinner())
                    .with_key("wait", |s: &ProgressState, w: &mut dyn std::fmt::Write| {
                        let _ = w.write_str(&clock(s.elapsed()));
                    });
                spinner.set_style(style);
                spinner.set_message(mode::redact(&text));
                spinner.enable_steady_tick(Duration::from_millis(250));
                *self.spinner.lock().unwrap_or_else(|p| p.into_inner()) = Some(spinner);
            }
        }
    }

    fn step_done(&self, path: &Path, to: i64, elapsed: Duration) {
        let text = done_line(path, to, elapsed);
        match self.mode {
            Mode::Json => tracing::info!(
                target: TARGET,
                event = "migrated",
                store = %path.display(),
                to,
                seconds = elapsed.as_secs_f64(),
                "{text}"
            ),
            Mode::Plain if elapsed >= LONG => mode::line(&text),
            Mode::Plain => {}
            Mode::Bar => {
                if let Some(spinner) = self.spinner.lock().unwrap_or_else(|p| p.into_inner()).take() {
                    spinner.finish_and_clear();
                }
                if elapsed >= LONG {
                    mode::line(&text);
                }
            }
        }
    }
}
