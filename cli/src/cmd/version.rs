//! `kdrift version`: this build (kdrift's version, git commit, the DuckDB
//! library, the store schema version) and the `--db` store file's schema
//! version, read without creating or migrating it.

use std::io::Write;
use std::process::ExitCode;

use crate::args::{Cli, Output};

/// What `kdrift version` reports (`-o json`).
#[derive(Debug, serde::Serialize)]
pub struct Version {
    /// kdrift's version (Cargo.toml).
    pub kdrift: &'static str,
    /// The git commit built from (`None`: built outside a git checkout).
    pub git_commit: Option<&'static str>,
    /// The DuckDB library linked (bundled), e.g. `v2.0.0 (d54cbbe3df)`.
    pub duckdb: String,
    /// The store schema version this build reads and writes.
    pub schema_version: i64,
    /// The `--db` store file.
    pub store: StoreVersion,
}

/// The `--db` store file's schema version as it is on disk.
#[derive(Debug, serde::Serialize)]
pub struct StoreVersion {
    /// The path given (`--db`, `KDRIFT_DB`, or the default).
    pub path: String,
    /// Its schema version (`None`: no file there, or it could not be read).
    pub schema_version: Option<i64>,
    /// Why it could not be read (not a kdrift store, locked by a writer…).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// Prints this build's versions; exit 0 (a store that cannot be read is
/// said, not an error: `version` is what a bug report quotes).
pub fn run(cli: &Cli) -> anyhow::Result<ExitCode> {
    let commit = env!("KDRIFT_GIT_COMMIT");
    let (schema_version, error) = match kdrift_store::file_schema_version(&cli.db) {
        Ok(v) => (v, None),
        Err(e) => (None, Some(format!("{e:#}"))),
    };
    let version = Version {
        kdrift: env!("CARGO_PKG_VERSION"),
        git_commit: (!commit.is_empty()).then_some(commit),
        duckdb: kdrift_store::duckdb_version()?,
        schema_version: kdrift_store::SCHEMA_VERSION,
        store: StoreVersion { path: cli.db.display().to_string(), schema_version, error },
    };
    let mut out = crate::render::stdout();
    if cli.output == Output::Json {
        crate::render::json(&mut out, &version)?;
    } else {
        write!(out, "{}", text(&version))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The table form: one `name: value` line each.
fn text(v: &Version) -> String {
    let store = match (&v.store.schema_version, &v.store.error) {
        (_, Some(error)) => format!("{} (cannot be read: {error})", v.store.path),
        (Some(found), None) if *found < v.schema_version => {
            format!("{}: schema {found} (migrated to {} when next opened)", v.store.path, v.schema_version)
        }
        (Some(found), None) => format!("{}: schema {found}", v.store.path),
        (None, None) => format!("{}: none yet (created at the first ingest)", v.store.path),
    };
    format!(
        "kdrift:         {}\ngit commit:     {}\nDuckDB:         {}\nstore schema:   {} (this build reads and writes)\nstore:          {store}\n",
        v.kdrift,
        v.git_commit.unwrap_or("unknown (built outside a git checkout)"),
        v.duckdb,
        v.schema_version
    )
}

#[cfg(test)]
mod tests {
    use super::{text, StoreVersion, Version};

    #[test]
    fn version_lines() {
        let v = |schema_version, error: Option<&str>| Version {
            kdrift: "0.1.0",
            git_commit: None,
            duckdb: "v2.0.0 (d54cbbe3df)".into(),
            schema_version: 17,
            store: StoreVersion { path: "k.duckdb".into(), schema_version, error: error.map(String::from) },
        };
        assert_eq!(
            text(&v(Some(16), None)),
            "kdrift:         0.1.0\ngit commit:     unknown (built outside a git checkout)\nDuckDB:         v2.0.0 \
             (d54cbbe3df)\nstore schema:   17 (this build reads and writes)\nstore:          k.duckdb: schema 16 \
             (migrated to 17 when next opened)\n"
        );
        assert!(text(&v(None, Some("not a kdrift store"))).ends_with("k.duckdb (cannot be read: not a kdrift store)\n"));
    }
}
