//! `rebalance apply`/`run`: each eviction as it happens, on stderr
//! (issue 38 item 3). On a terminal a bar of the evictions settled and a
//! spinner per replacement awaited (`[3/8] evicted media/x from node-1 —
//! waiting for its replacement 0:42`); otherwise one plain line per step,
//! `[3/8] evicted …` then `[3/8] media/x replaced by media/x-abc on node-2
//! after 1:05` (or refused by a PodDisruptionBudget, skipped, with why); with
//! `--log-format json` the same as JSON log events with the eviction's fields.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use indicatif::{MultiProgress, ProgressBar, ProgressState, ProgressStyle};
use kdrift_rebalance::progress::{clock, evicted_line, settled_line};
use kdrift_rebalance::{EvictionOutcome, ExecutionProgress, Replacement, Step};

use super::mode::{self, Mode, TARGET};

/// The CLI's [`ExecutionProgress`].
pub struct Evictions {
    mode: Mode,
    multi: MultiProgress,
    overall: Mutex<Option<ProgressBar>>,
    waiting: Mutex<HashMap<usize, ProgressBar>>,
}

impl Evictions {
    /// Progress in the mode chosen at start.
    pub fn new() -> Evictions {
        Evictions {
            mode: mode::mode(),
            multi: MultiProgress::with_draw_target(mode::draw_target()),
            overall: Mutex::new(None),
            waiting: Mutex::new(HashMap::new()),
        }
    }

    fn println(&self, text: &str) {
        match self.mode {
            Mode::Bar => {
                let _ = self.multi.println(mode::redact(text));
            }
            Mode::Plain | Mode::Json => mode::line(text),
        }
    }
}

fn style(template: &str) -> ProgressStyle {
    ProgressStyle::with_template(template).unwrap_or_else(|_| ProgressStyle::default_bar()).with_key(
        "wait",
        |s: &ProgressState, w: &mut dyn std::fmt::Write| {
            let _ = w.write_str(&clock(s.elapsed()));
        },
    )
}

/// `(replacement pod, its node, seconds waited)` of an outcome, for the JSON fields.
fn replacement_fields(outcome: &EvictionOutcome) -> (Option<&str>, Option<&str>, Option<f64>) {
    match outcome {
        EvictionOutcome::Evicted { replacement: Replacement::Ready { pod, node, waited_seconds, .. }, .. } => {
            (Some(pod), Some(node), Some(*waited_seconds))
        }
        EvictionOutcome::Evicted { replacement: Replacement::NotReady { pod, node, waited_seconds, .. }, .. } => {
            (pod.as_deref(), node.as_deref(), Some(*waited_seconds))
        }
        _ => (None, None, None),
    }
}

impl ExecutionProgress for Evictions {
    fn planned(&self, total: usize) {
        if self.mode == Mode::Bar && total > 0 {
            let bar = self.multi.add(ProgressBar::new(total as u64));
            bar.set_style(style("evictions {pos}/{len} {wide_bar} {elapsed}"));
            *self.overall.lock().unwrap_or_else(|p| p.into_inner()) = Some(bar);
        }
    }

    fn evicted(&self, step: Step<'_>, waits: bool) {
        let text = evicted_line(step, waits);
        match self.mode {
            Mode::Json => tracing::info!(
                target: TARGET,
                event = "evicted",
                index = step.index,
                total = step.total,
                pod = step.pod,
                node = step.node,
                waits,
                "[{}/{}] {text}",
                step.index,
                step.total
            ),
            Mode::Plain => mode::line(&format!("[{}/{}] {text}", step.index, step.total)),
            Mode::Bar if waits => {
                let spinner = ProgressBar::new_spinner()
                    .with_style(style("{spinner} [{prefix}] {msg} {wait}"))
                    .with_prefix(format!("{}/{}", step.index, step.total))
                    .with_message(mode::redact(&text));
                let spinner = self.multi.add(spinner);
                spinner.enable_steady_tick(Duration::from_millis(250));
                self.waiting.lock().unwrap_or_else(|p| p.into_inner()).insert(step.index, spinner);
            }
            Mode::Bar => self.println(&format!("[{}/{}] {text}", step.index, step.total)),
        }
    }

    fn settled(&self, step: Step<'_>, outcome: &EvictionOutcome) {
        let text = format!("[{}/{}] {}", step.index, step.total, settled_line(step, outcome));
        match self.mode {
            Mode::Json => {
                let (replacement, replacement_node, waited_seconds) = replacement_fields(outcome);
                tracing::info!(
                    target: TARGET,
                    event = "settled",
                    index = step.index,
                    total = step.total,
                    pod = step.pod,
                    node = step.node,
                    outcome = outcome.kind(),
                    replacement,
                    replacement_node,
                    waited_seconds,
                    "{text}"
                );
            }
            Mode::Plain => mode::line(&text),
            Mode::Bar => {
                if let Some(spinner) = self.waiting.lock().unwrap_or_else(|p| p.into_inner()).remove(&step.index) {
                    spinner.finish_and_clear();
                    self.multi.remove(&spinner);
                }
                self.println(&text);
                if let Some(bar) = self.overall.lock().unwrap_or_else(|p| p.into_inner()).as_ref() {
                    bar.inc(1);
                }
            }
        }
    }
}

impl Drop for Evictions {
    fn drop(&mut self) {
        for (_, spinner) in self.waiting.lock().unwrap_or_else(|p| p.into_inner()).drain() {
            spinner.finish_and_clear();
        }
        if let Some(bar) = self.overall.lock().unwrap_or_else(|p| p.into_inner()).take() {
            bar.finish_and_clear();
        }
    }
}
