//! `kdrift ingest file -`: the `-` path argument is standard input, spooled
//! to a temporary file ([`kdrift_ingest::spool_stdin`]) and stored and
//! reported as `<stdin>` ([`kdrift_ingest::STDIN_LOCATION`]).

use std::path::PathBuf;

use anyhow::Context;
use kdrift_ingest::{spool_stdin, InputError, STDIN_ARG, STDIN_LOCATION};

/// The paths to read once `-` is replaced by standard input's spooled copy.
pub(crate) struct Inputs {
    /// The paths, `-` replaced by the spooled file.
    pub paths: Vec<PathBuf>,
    /// The spooled file with its name `<stdin>` (empty without `-`).
    pub names: Vec<(PathBuf, String)>,
    /// The spooled file, removed when this is dropped.
    _spooled: Option<tempfile::TempPath>,
}

impl Inputs {
    /// Takes `paths` as given: a `-` among them is standard input, read
    /// whole now.
    ///
    /// # Errors
    /// `-` given twice, or reading standard input failed.
    pub fn take(paths: &[PathBuf]) -> anyhow::Result<Inputs> {
        let dashes = paths.iter().filter(|p| p.as_os_str() == STDIN_ARG).count();
        anyhow::ensure!(dashes <= 1, "- (standard input) is given {dashes} times: it can be read once");
        if dashes == 0 {
            return Ok(Inputs { paths: paths.to_vec(), names: Vec::new(), _spooled: None });
        }
        let spooled = spool_stdin(&mut std::io::stdin().lock()).context("reading standard input")?;
        let path = spooled.to_path_buf();
        let paths = paths.iter().map(|p| if p.as_os_str() == STDIN_ARG { path.clone() } else { p.clone() }).collect();
        Ok(Inputs { paths, names: vec![(path, STDIN_LOCATION.to_string())], _spooled: Some(spooled) })
    }

    /// `error` naming standard input as `<stdin>` rather than its spooled copy.
    pub fn named(&self, mut error: InputError) -> InputError {
        if let Some((_, name)) = self.names.iter().find(|(p, _)| p.display().to_string() == error.origin.location) {
            error.origin.location.clone_from(name);
        }
        error
    }
}
