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

    /// Logs the time since the last step (milliseconds) under `step`.
    pub(crate) fn done(&mut self, step: &str) {
        tracing::debug!(step, ms = self.0.elapsed().as_secs_f64() * 1e3, "step");
        self.0 = std::time::Instant::now();
    }
}
