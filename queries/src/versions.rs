//! What `kdrift version` reports of the store side: the DuckDB library this
//! build links ([`duckdb_version`]) and the schema version of a store file
//! as it is on disk ([`file_schema_version`]: read without migrating it).

use std::path::Path;

use duckdb::Connection;

use crate::reader::Reader;
use crate::{check_duckdb_header, open_error, sql, StoreError};

/// The DuckDB library kdrift is built with (bundled): its release and
/// source id, e.g. `v2.0.0 (d54cbbe3df)`.
///
/// # Errors
/// An in-memory database could not be opened or asked.
pub fn duckdb_version() -> Result<String, StoreError> {
    let conn = Connection::open_in_memory().map_err(|source| open_error(Path::new(":memory:"), source))?;
    let reader = Reader { conn, path: ":memory:".into(), memory_limit: 0 };
    let (version, source): (String, String) =
        reader.query_one(&sql::DUCKDB_VERSION, [], |r| Ok((r.get(0)?, r.get(1)?)))?;
    Ok(format!("{version} ({source})"))
}

/// The schema version of the store file at `path` as it is, never
/// migrated or created: `None` when no file is there.
///
/// # Errors
/// [`StoreError::NotDuckDb`]/[`StoreError::BadPath`] for a file that is
/// not a DuckDB database, [`StoreError::NotAStore`] for another database,
/// [`StoreError::Locked`] while another process writes it.
pub fn file_schema_version(path: &Path) -> Result<Option<i64>, StoreError> {
    if !path.exists() {
        return Ok(None);
    }
    check_duckdb_header(path)?;
    let open_err = |source| open_error(path, source);
    let config = duckdb::Config::default().access_mode(duckdb::AccessMode::ReadOnly).map_err(open_err)?;
    let conn = Connection::open_with_flags(path, config).map_err(open_err)?;
    let reader = Reader { conn, path: path.to_path_buf(), memory_limit: 0 };
    let has_meta: i64 = reader.query_one(&sql::HAS_META, [], |r| r.get(0))?;
    if has_meta == 0 {
        return Err(StoreError::NotAStore { path: path.to_path_buf(), reading: true });
    }
    let version: String = reader.query_one(&sql::GET_SCHEMA_VERSION, [], |r| r.get(0))?;
    Ok(Some(version.parse().unwrap_or(-1)))
}

#[cfg(test)]
mod tests {
    #[test]
    fn duckdb_version_names_a_release() {
        let v = super::duckdb_version().expect("version");
        // `v2.0.0 (d54cbbe3df)`: a release of three numbers, then the source id.
        let (release, source) = v.split_once(' ').expect("two parts");
        let numbers: Vec<&str> = release.trim_start_matches('v').split('.').collect();
        assert!(release.starts_with('v') && numbers.len() == 3, "{v}");
        assert!(numbers.iter().all(|n| n.parse::<u32>().is_ok()), "{v}");
        assert!(source.starts_with('(') && source.ends_with(')') && source.len() > 2, "{v}");
    }

    #[test]
    fn a_store_files_version_is_read_without_creating_one() {
        let dir = tempfile::tempdir().expect("tmp");
        let path = dir.path().join("k.duckdb");
        assert_eq!(super::file_schema_version(&path).expect("none"), None);
        assert!(!path.exists());
        drop(crate::Store::open(&path).expect("created"));
        assert_eq!(super::file_schema_version(&path).expect("read"), Some(crate::SCHEMA_VERSION));
    }
}
