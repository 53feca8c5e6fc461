//! How much memory DuckDB may hold for one open store ([`OpenOptions`],
//! issue 39): its `memory_limit` (the buffer pool: the blocks it read and
//! wrote, intermediate results) and its `temp_directory` beside the store
//! file (`<store>.tmp/`), where what does not fit under the limit spills.
//! Without a limit DuckDB takes 80 % of the machine's memory and keeps the
//! blocks it wrote: a 30-day usage pull peaked at 4.3 GiB.
//!
//! The temporary directory is removed when the store closes, when nothing
//! is left in it ([`TempDirectory`]).

use std::path::{Path, PathBuf};

use crate::StoreError;

/// DuckDB's memory limit when none is given, in bytes (1 GiB). 128 MiB
/// (with kdrift's own ~100 MiB, a process that fits a 256 MiB container)
/// is the goal of issue 39, and one object of up to 32 MiB is stored under
/// it (no statement of a commit parses an object: `crate::fields`), but
/// a store holding ~100 MB of 1 MiB objects fails DuckDB's checkpoint
/// under it (`FATAL … failed to pin block`, which invalidates the
/// connection; break-it 38 F1), and a batch of several objects of 20–31
/// MiB failed `derive_pod_versions` (break-it 38 F2; since issue 34 such a
/// batch is committed in parts, and an object too big alone is an input
/// error: [`crate::Rejected`]): `--memory-limit 128MiB` is for inputs
/// without many large objects until checkpoints of them are bounded.
pub const DEFAULT_MEMORY_LIMIT: u64 = 1 << 30;

/// The smallest memory limit the CLI accepts (`--memory-limit`), in bytes
/// (64 MiB): DuckDB needs a few of its 256 KiB blocks per column of every
/// statement, and the store's derivations join up to a dozen columns at
/// once. Measured (issue 34): `16MiB` was accepted, yet `why-pending --all`
/// over 80 small events ran out of memory under 32MiB (it needs 48MiB), and
/// `kdrift demo` (a 5-node cluster's history) in `derive_pod_bindings`
/// under 48MiB; both complete under 64MiB.
pub const MIN_MEMORY_LIMIT: u64 = 64 << 20;

/// The most bytes of objects a batch should stage under a memory limit of
/// `memory_limit` bytes before it is committed (or moved): an eighth of it
/// (16 MiB under the default 128 MiB). A batch's objects are held twice
/// while it commits (the staging table, and the new `observations` rows in
/// the transaction's storage, uncompressed until a row group fills) besides
/// what the derivations read of them. Measured (issue 39): 1,200 Pods of
/// 64 KiB each (80 MB of NDJSON) under 128 MiB failed in
/// `commit_observations` with 64 MiB batches ("failed to allocate data of
/// size 16.0 MiB", 113 MiB used) and were stored with 16 MiB ones.
pub fn batch_bytes_within(memory_limit: u64) -> u64 {
    (memory_limit / 8).max(1)
}

/// How a store is opened ([`crate::Store::open_with`],
/// [`crate::Store::open_existing_with`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OpenOptions {
    /// DuckDB's `memory_limit`, in bytes: the most its buffer pool holds
    /// before it spills to the temporary directory (`<store>.tmp/`), or
    /// fails a statement that cannot spill ([`StoreError::OutOfMemory`]).
    /// kdrift's own buffers (records being prepared) come on top.
    pub memory_limit: u64,
}

impl Default for OpenOptions {
    fn default() -> Self {
        OpenOptions { memory_limit: DEFAULT_MEMORY_LIMIT }
    }
}

impl OpenOptions {
    /// The DuckDB configuration of a store at `path` opened with these
    /// options: `memory_limit`, and `temp_directory` at `<path>.tmp`
    /// ([`temp_directory`]). `config` carries what the caller set already
    /// (read-only access).
    pub(crate) fn config(&self, path: &Path, config: duckdb::Config) -> Result<duckdb::Config, duckdb::Error> {
        config
            .max_memory(&format!("{} bytes", self.memory_limit))?
            .with("temp_directory", temp_directory(path).to_string_lossy())
    }
}

/// Where DuckDB spills for the store at `path`: `<path>.tmp` beside it
/// (DuckDB's own default for a file, named here so that a store being
/// created under a temporary name spills where the store will be).
pub fn temp_directory(path: &Path) -> PathBuf {
    PathBuf::from(format!("{}.tmp", path.display()))
}

/// The temporary directory of an open store: removed when the store is
/// dropped (after its connection closed: a [`crate::Store`] declares it
/// after its reader), when empty. DuckDB removes its own spill files, and
/// the directory only when it created it; one an earlier, killed process
/// left is removed here. Another process's files keep it.
#[derive(Debug)]
pub(crate) struct TempDirectory(pub(crate) PathBuf);

impl Drop for TempDirectory {
    fn drop(&mut self) {
        // Fails when not empty (another process spilling there) or absent: both fine.
        let _ = std::fs::remove_dir(&self.0);
    }
}

/// Whether DuckDB's error is its out-of-memory failure: a statement needed
/// more of the buffer pool than the memory limit allows and could not
/// spill (`Out of Memory Error: failed to pin block …`, `could not allocate
/// block …`).
pub(crate) fn is_out_of_memory(e: &duckdb::Error) -> bool {
    let text = e.to_string();
    text.contains("Out of Memory Error") || text.contains("failed to pin block") || text.contains("could not allocate")
}

/// [`StoreError::OutOfMemory`] for an out-of-memory failure of DuckDB's
/// (`what`: the statement or the bulk load), else `other`.
pub(crate) fn out_of_memory_or(
    e: duckdb::Error,
    limit: u64,
    what: String,
    other: impl FnOnce(duckdb::Error) -> StoreError,
) -> StoreError {
    if is_out_of_memory(&e) {
        StoreError::OutOfMemory { what, limit, source: DuckDbOutOfMemory(e) }
    } else {
        other(e)
    }
}

/// DuckDB's out-of-memory error ([`StoreError::OutOfMemory`]'s cause),
/// shown by its first line (`Out of Memory Error: failed to allocate data
/// of size 128.0 MiB (115.2 MiB/128.0 MiB used)`): the rest is advice in
/// SQL (`SET threads=X`, `SET memory_limit=…`) that a kdrift user cannot
/// follow, and `Error code 1: Unknown error code`. The whole error is
/// its `Debug`.
#[derive(Debug)]
pub struct DuckDbOutOfMemory(pub duckdb::Error);

impl std::fmt::Display for DuckDbOutOfMemory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let text = self.0.to_string();
        f.write_str(text.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("out of memory"))
    }
}

impl std::error::Error for DuckDbOutOfMemory {}

/// `bytes` for people, as the size grammar of `--memory-limit` reads it
/// back: `128MiB`, `1.5GiB`, `300000 bytes`.
pub fn size_text(bytes: u64) -> String {
    for (shift, unit) in [(40, "TiB"), (30, "GiB"), (20, "MiB"), (10, "KiB")] {
        let one = 1u64 << shift;
        if bytes >= one {
            let value = bytes as f64 / one as f64;
            return if bytes.is_multiple_of(one) {
                format!("{}{unit}", bytes >> shift)
            } else {
                format!("{value:.1}{unit}")
            };
        }
    }
    format!("{bytes} bytes")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_back_in_the_flags_grammar() {
        assert_eq!(size_text(128 << 20), "128MiB");
        assert_eq!(size_text(3 << 29), "1.5GiB");
        assert_eq!(size_text(1000), "1000 bytes");
    }

    #[test]
    fn the_temporary_directory_is_beside_the_store() {
        assert_eq!(temp_directory(Path::new("/data/k.duckdb")), PathBuf::from("/data/k.duckdb.tmp"));
    }
}
