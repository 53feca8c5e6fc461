//! The ingest progress bar on stderr (indicatif). It draws only when stderr
//! is a terminal; otherwise it stays silent so logs and pipes stay clean.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use kdrift_ingest::{FileSummary, Progress};

/// A byte-count progress bar over all input files.
pub struct Bar {
    bar: ProgressBar,
}

impl Bar {
    /// A bar drawing on stderr (hidden when stderr is not a terminal).
    pub fn new() -> Bar {
        let bar = ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::stderr());
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
