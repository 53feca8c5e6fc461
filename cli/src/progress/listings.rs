//! `kdrift ingest api` and `record`'s first lists, page by page, on stderr
//! (issue 38 item 3): `kdrift: listing pods… 12,000 items (24 pages)` as
//! a list goes, then `kdrift: listed pods: 12,345 items (25 pages)`. On a
//! terminal a spinner per resource; otherwise plain lines, the first page
//! and then at most one line a second per resource (a 150,000-pod list is
//! 300 pages), and always the final line; with `--log-format json` the same
//! as JSON log events (`event` `listing` / `listed`, `resource`, `items`,
//! `pages`).

use std::collections::HashMap;
use std::time::{Duration, Instant};

use indicatif::{MultiProgress, ProgressBar, ProgressStyle};
use kdrift_ingest::ListingProgress;
use kdrift_rebalance::thousands;

use super::mode::{self, Mode, TARGET};

/// Plain and JSON lines of one list come at most this often.
const EVERY: Duration = Duration::from_secs(1);

/// The CLI's [`ListingProgress`].
pub struct Listings {
    mode: Mode,
    multi: MultiProgress,
    /// Per resource: its spinner (bar mode) and when its last line was said.
    lists: HashMap<String, (Option<ProgressBar>, Instant)>,
}

impl Listings {
    /// Progress in the mode chosen at start.
    pub fn new() -> Listings {
        Listings {
            mode: mode::mode(),
            multi: MultiProgress::with_draw_target(mode::draw_target()),
            lists: HashMap::new(),
        }
    }
}

/// `12,000 items (3 pages)`.
fn counted(items: u64, pages: u32) -> String {
    let s = |n: u64| if n == 1 { "" } else { "s" };
    format!("{} item{} ({pages} page{})", thousands(items), s(items), s(u64::from(pages)))
}

/// The line said while `resource` is listed.
pub fn listing_line(resource: &str, items: u64, pages: u32) -> String {
    format!("kdrift: listing {resource}… {}", counted(items, pages))
}

/// The line said once `resource`'s list ended.
pub fn listed_line(resource: &str, items: u64, pages: u32) -> String {
    format!("kdrift: listed {resource}: {}", counted(items, pages))
}

impl ListingProgress for Listings {
    fn listing(&mut self, resource: &str, items: u64, pages: u32, done: bool) {
        let text = if done { listed_line(resource, items, pages) } else { listing_line(resource, items, pages) };
        let first = !self.lists.contains_key(resource);
        let (spinner, said) = self.lists.entry(resource.to_string()).or_insert_with(|| (None, Instant::now()));
        let due = first || done || said.elapsed() >= EVERY;
        match self.mode {
            Mode::Json if due => {
                let event = if done { "listed" } else { "listing" };
                tracing::info!(target: TARGET, event, resource, items, pages, "{text}");
                *said = Instant::now();
            }
            Mode::Plain if due => {
                mode::line(&text);
                *said = Instant::now();
            }
            Mode::Json | Mode::Plain => {}
            Mode::Bar if done => {
                if let Some(s) = spinner.take() {
                    s.finish_and_clear();
                    self.multi.remove(&s);
                }
                let _ = self.multi.println(mode::redact(&text));
            }
            Mode::Bar => {
                let s = spinner.get_or_insert_with(|| {
                    let s = self.multi.add(ProgressBar::new_spinner());
                    s.set_style(
                        ProgressStyle::with_template("{spinner} {msg} {elapsed}")
                            .unwrap_or_else(|_| ProgressStyle::default_spinner()),
                    );
                    s.enable_steady_tick(Duration::from_millis(250));
                    s
                });
                s.set_message(mode::redact(&text));
            }
        }
    }
}

impl Drop for Listings {
    fn drop(&mut self) {
        for (spinner, _) in self.lists.values_mut() {
            if let Some(s) = spinner.take() {
                s.finish_and_clear();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_count_items_and_pages_with_thousands() {
        assert_eq!(listing_line("pods", 12000, 3), "kdrift: listing pods… 12,000 items (3 pages)");
        assert_eq!(listed_line("nodes", 1, 1), "kdrift: listed nodes: 1 item (1 page)");
    }
}
