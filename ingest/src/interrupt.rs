//! A request to stop an ingest early (the CLI triggers it on SIGINT or
//! SIGTERM). The readers check it between chunks of records and windows;
//! the run in progress is then closed as `failed`, with a row in
//! `ingest_errors` saying so, and the batches (or windows) it committed
//! before stay. The library installs no signal handler itself.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// The `ingest_errors` message of a run closed because it was interrupted.
pub const INTERRUPTED_RUN_MESSAGE: &str = "the run was interrupted (SIGINT or SIGTERM) before its end and closed \
     as failed; what it committed before stays, and ingesting the same input again adds only what is missing";

/// A shared stop flag; clones share it.
#[derive(Debug, Clone, Default)]
pub struct Interrupt {
    inner: Arc<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    triggered: AtomicBool,
    notify: tokio::sync::Notify,
}

impl Interrupt {
    /// A flag not triggered yet.
    pub fn new() -> Interrupt {
        Interrupt::default()
    }

    /// Asks every reader sharing this flag to stop.
    pub fn trigger(&self) {
        self.inner.triggered.store(true, Ordering::SeqCst);
        self.inner.notify.notify_waiters();
    }

    /// Whether [`Interrupt::trigger`] was called.
    pub fn is_triggered(&self) -> bool {
        self.inner.triggered.load(Ordering::SeqCst)
    }

    /// Completes once [`Interrupt::trigger`] is called (at once if it was).
    pub async fn triggered(&self) {
        let notified = self.inner.notify.notified();
        tokio::pin!(notified);
        // Registered before the flag is read: a trigger in between still wakes it.
        notified.as_mut().enable();
        if self.is_triggered() {
            return;
        }
        notified.await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_trigger_is_seen_by_every_clone_and_wakes_a_waiter() {
        let interrupt = Interrupt::new();
        let clone = interrupt.clone();
        assert!(!clone.is_triggered());
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
        let woke = runtime.block_on(async {
            let waiter = tokio::spawn({
                let clone = clone.clone();
                async move { clone.triggered().await }
            });
            tokio::task::yield_now().await;
            interrupt.trigger();
            tokio::time::timeout(std::time::Duration::from_secs(5), waiter).await.is_ok()
        });
        assert!(woke, "the waiter was woken");
        assert!(clone.is_triggered());
        // Already triggered: completes at once.
        let at_once = runtime.block_on(async {
            tokio::time::timeout(std::time::Duration::from_secs(1), clone.triggered()).await.is_ok()
        });
        assert!(at_once);
    }
}
