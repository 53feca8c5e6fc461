//! `kdrift ingest file -`: standard input (`kubectl get events -A -o json |
//! kdrift ingest file -`) is copied to a temporary file first, so that it is
//! read as any file is (JSON, NDJSON, YAML, a saved `kubectl top` table,
//! gzip by its magic bytes) and streamed NDJSON may be read twice; the file
//! is stored and reported as [`STDIN_LOCATION`], never by its temporary path
//! ([`crate::files::ingest_files_named`]).

use std::io::Read;

/// The location standard input is stored and reported as: its input errors
/// read `<stdin>:LINE: …`.
pub const STDIN_LOCATION: &str = "<stdin>";

/// The path argument that names standard input (`kdrift ingest file -`).
pub const STDIN_ARG: &str = "-";

/// Copies `input` whole to a new temporary file (in `TMPDIR`), removed when
/// the returned path is dropped.
///
/// # Errors
/// Reading `input` or writing the file failed.
pub fn spool_stdin(input: &mut dyn Read) -> std::io::Result<tempfile::TempPath> {
    let mut file = tempfile::Builder::new().prefix("kdrift-stdin-").tempfile()?;
    std::io::copy(input, file.as_file_mut())?;
    file.as_file_mut().sync_data().ok();
    Ok(file.into_temp_path())
}

#[cfg(test)]
mod tests {
    #[test]
    fn spooled_input_is_kept_whole_until_dropped() {
        let mut input: &[u8] = b"{\"a\":1}\n\x1f\x8b";
        let path = super::spool_stdin(&mut input).expect("spooled");
        assert_eq!(std::fs::read(&path).expect("read"), b"{\"a\":1}\n\x1f\x8b");
        let kept = path.to_path_buf();
        drop(path);
        assert!(!kept.exists());
    }
}
