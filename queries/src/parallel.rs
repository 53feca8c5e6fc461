//! An order-keeping parallel map over a chunk of items, on scoped threads
//! (one contiguous slice per core): how readers parse and prepare records on
//! every core while the store's single connection stages them in input
//! order, and how an analysis parses the pod models of a whole cluster.

use std::num::NonZeroUsize;
use std::sync::OnceLock;

/// Items below which a chunk is mapped on the calling thread (a thread's
/// start costs more than preparing a few records).
const SERIAL_BELOW: usize = 64;

/// Worker threads per chunk: the machine's available parallelism.
pub fn workers() -> usize {
    static WORKERS: OnceLock<usize> = OnceLock::new();
    *WORKERS.get_or_init(|| std::thread::available_parallelism().map_or(1, NonZeroUsize::get))
}

/// `items.into_iter().map(f).collect()`, with the items split into one
/// contiguous part per worker, each mapped on its own thread; the output is
/// in input order.
pub fn map_ordered<T: Send, U: Send>(items: Vec<T>, f: impl Fn(T) -> U + Sync) -> Vec<U> {
    let workers = workers();
    if workers < 2 || items.len() < SERIAL_BELOW {
        return items.into_iter().map(f).collect();
    }
    let total = items.len();
    let per = total.div_ceil(workers);
    let mut parts: Vec<Vec<T>> = Vec::with_capacity(workers);
    let mut rest = items.into_iter();
    loop {
        let part: Vec<T> = rest.by_ref().take(per).collect();
        if part.is_empty() {
            break;
        }
        parts.push(part);
    }
    let f = &f;
    std::thread::scope(|scope| {
        let mut parts = parts.into_iter();
        // The calling thread maps the first part itself.
        let first = parts.next().unwrap_or_default();
        let handles: Vec<_> = parts.map(|p| scope.spawn(move || p.into_iter().map(f).collect::<Vec<U>>())).collect();
        // Sized once: growing it copied the first part again (150,000 pod
        // models of ~1 KiB each when loading a large cluster).
        let mut out: Vec<U> = Vec::with_capacity(total);
        out.extend(first.into_iter().map(f));
        for h in handles {
            match h.join() {
                Ok(mapped) => out.extend(mapped),
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
        out
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_keeps_input_order_across_parts() {
        let items: Vec<u32> = (0..10_001).collect();
        let out = map_ordered(items, |i| i * 2);
        assert_eq!(out.len(), 10_001);
        assert!(out.iter().enumerate().all(|(i, v)| *v == 2 * i as u32), "out of order");
    }

    #[test]
    fn small_and_empty_chunks_map_in_place() {
        assert_eq!(map_ordered(vec![3, 1, 2], |i| i + 1), vec![4, 2, 3]);
        assert!(map_ordered(Vec::<u8>::new(), |i| i).is_empty());
    }
}
