//! Shared helpers of the end-to-end tests: where the real fixtures are
//! (`../shared/fixtures/real`, read in place, never copied) and fresh stores
//! in temporary directories.

use std::path::PathBuf;

use kdrift_ingest::Store;

/// `../shared/fixtures/real` next to the checkout, when present.
pub fn real_fixtures() -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/fixtures/real");
    dir.is_dir().then_some(dir)
}

/// The real fixtures directory, or `None` after printing why the calling
/// test skips (a clone without `../shared`). CI always has it.
pub fn real_fixtures_or_skip(test: &str) -> Option<PathBuf> {
    let dir = real_fixtures();
    if dir.is_none() {
        eprintln!(
            "{test}: SKIPPED: ../shared/fixtures/real is absent (a clone outside the workplace); CI always has it"
        );
    }
    dir
}

/// A new, empty store in a temporary directory (kept alive by the returned guard).
pub fn temp_store() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = Store::open(&dir.path().join("test.duckdb")).expect("open store");
    (dir, store)
}
