//! Progress on stderr (indicatif). [`mode`] chooses, once, between a bar
//! (a terminal without `NO_COLOR`), plain lines and JSON log events;
//! [`evictions`] renders `rebalance apply`/`run`, [`migrations`] the steps
//! of migrating an older store, [`listings`] the pages of `ingest api`'s
//! and `record`'s first lists; the ingest bars here draw
//! only in the bar mode and stay silent otherwise so logs and pipes stay clean.

pub mod evictions;
pub mod listings;
pub mod migrations;
pub mod mode;

use indicatif::{ProgressBar, ProgressStyle};
use kdrift_ingest::{Failure, Layout, PullProgress, Window, WindowReport};
use kdrift_ingest::{FileSummary, Progress};

/// A byte-count progress bar over all input files.
pub struct Bar {
    bar: ProgressBar,
}

impl Bar {
    /// A bar drawing on stderr (hidden unless in the bar [`mode`]).
    pub fn new() -> Bar {
        let bar = ProgressBar::with_draw_target(Some(0), mode::draw_target());
        bar.set_style(
            ProgressStyle::with_template("{spinner} {bytes}/{total_bytes} {wide_bar} {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        Bar { bar }
    }
}

impl Progress for Bar {
    fn start(&mut self, files: usize, bytes: u64) {
        self.bar.set_length(bytes);
        self.bar.set_message(format!("{files} files"));
    }

    fn file_done(&mut self, summary: &FileSummary, bytes: u64) {
        self.bar.inc(bytes);
        self.bar.set_message(summary.location.clone());
    }

    fn committing(&mut self) {
        self.bar.set_message("deduplicating and deriving…");
    }
}

impl Drop for Bar {
    fn drop(&mut self) {
        self.bar.finish_and_clear();
    }
}

/// A window-count progress bar for a VictoriaLogs pull; retries are always
/// reported on stderr (the bar only draws on a terminal).
pub struct PullBar {
    bar: ProgressBar,
}

impl PullBar {
    /// A bar drawing on stderr (hidden unless in the bar [`mode`]).
    pub fn new() -> PullBar {
        let bar = ProgressBar::with_draw_target(Some(0), mode::draw_target());
        bar.set_style(
            ProgressStyle::with_template("{spinner} window {pos}/{len} {wide_bar} {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        PullBar { bar }
    }
}

impl PullProgress for PullBar {
    fn planned(&mut self, layout: Layout, windows: &[Window]) {
        self.bar.set_length(windows.len() as u64);
        self.bar.set_message(format!("layout {layout}"));
    }

    fn window_done(&mut self, report: &WindowReport) {
        self.bar.inc(1);
        self.bar.set_message(format!("{} rows", report.rows));
    }

    fn split(&mut self, _window: &Window, parts: &[Window]) {
        self.bar.inc_length(parts.len().saturating_sub(1) as u64);
    }

    fn retrying(&mut self, window: &Window, attempt: u32, failure: &Failure, delay: std::time::Duration) {
        let start = crate::render::time(window.start);
        let end = crate::render::time(window.end);
        self.bar.suspend(|| {
            eprintln!("kdrift: window [{start}, {end}) attempt {attempt} failed: {failure}; retrying in {delay:?}");
        });
    }
}

impl Drop for PullBar {
    fn drop(&mut self) {
        self.bar.finish_and_clear();
    }
}
