//! Two independent reads of one store at once. DuckDB runs the small
//! queries of an analysis mostly on one core; a second connection to the
//! same open database ([`Reader::try_clone`]) lets an independent read use
//! the other core of the 2-core machines kdrift issue 6 measures on (the
//! drain timeline's amounts beside its moves, why-pending's nodes beside its
//! pods, its moves to the explained nodes beside their pods).

use kdrift_store::Reader;

use crate::AnalyzeError;

/// Runs `side` on a second connection to `store`, on another thread, while
/// `main` runs on this one; returns both results (`main`'s first). The
/// second connection sees what is committed, not an open transaction of
/// this one: analyses only read. A panic in `side` is resumed here.
///
/// # Errors
/// [`AnalyzeError::Store`] when the second connection cannot be opened.
pub(crate) fn alongside<A, B>(
    store: &Reader,
    side: impl FnOnce(&Reader) -> B + Send,
    main: impl FnOnce() -> A,
) -> Result<(A, B), AnalyzeError>
where
    B: Send,
{
    let reader = store.try_clone()?;
    Ok(std::thread::scope(|scope| {
        let side = scope.spawn(move || side(&reader));
        let main = main();
        (main, side.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use kdrift_store::Store;

    fn one_number(store: &Reader, sql: &str) -> i64 {
        store.raw_i64(sql).expect("query")
    }

    #[test]
    fn both_reads_see_the_committed_store_and_return_in_order() {
        let dir = tempfile::tempdir().expect("tmp");
        let store = Store::open(&dir.path().join("k.duckdb")).expect("create");
        // Test fixture: a committed row the second connection must see.
        store.raw_batch("CREATE TABLE t (v BIGINT); INSERT INTO t VALUES (7), (35);").expect("fixture");
        let (main, side) = alongside(
            &store,
            |reader| one_number(reader, "SELECT sum(v) FROM t"),
            || one_number(&store, "SELECT count(*) FROM t"),
        )
        .expect("alongside");
        assert_eq!((main, side), (2, 42));
    }

    #[test]
    fn a_panic_on_the_side_is_resumed_on_the_caller() {
        let dir = tempfile::tempdir().expect("tmp");
        let store = Store::open(&dir.path().join("k.duckdb")).expect("create");
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            alongside(&store, |_| -> i64 { panic!("side read failed") }, || 1).map(|(a, _)| a)
        }));
        let message = caught.expect_err("resumed").downcast::<&str>().map(|m| m.to_string()).unwrap_or_default();
        assert_eq!(message, "side read failed");
    }
}
