//! Debug-level timings of an analysis's steps (`kdrift -vv`; the log
//! target is the module that times them, e.g. `kdrift_analyze::pending`):
//! where the time goes on a large store (kdrift issue 6). Shared by
//! why-pending, the state loads it uses and the drain timeline.

/// A stopwatch that logs each step's time since the previous one.
pub(crate) struct Steps(std::time::Instant);

impl Steps {
    /// Starts timing the first step.
    pub(crate) fn start() -> Steps {
        Steps(std::time::Instant::now())
    }

    /// Logs the time since the last step (milliseconds) under `step`, with
    /// the process's resident memory then and its peak so far (MiB, Linux).
    pub(crate) fn done(&mut self, step: &str) {
        let (rss_mib, peak_mib) = rss_mib();
        tracing::debug!(step, ms = self.0.elapsed().as_secs_f64() * 1e3, rss_mib, peak_mib, "step");
        self.0 = std::time::Instant::now();
    }
}

/// The process's resident memory and its peak so far, MiB (`VmRSS`,
/// `VmHWM` of `/proc/self/status`; 0 where there is none).
pub fn rss_mib() -> (u64, u64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.split_whitespace().next()?.parse::<u64>().ok())
            .map_or(0, |kib| kib / 1024)
    };
    (field("VmRSS:"), field("VmHWM:"))
}
