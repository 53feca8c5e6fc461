//! Files kdrift reads whole for a cluster's or a log store's credentials
//! (kubeconfig, `tokenFile`, client key, `--password-file`,
//! `--bearer-token-file`, `--headers-file`), read up to a cap (break-it 35
//! F18: `--kubeconfig /dev/zero` grew to ~22 GB and was OOM-killed). A
//! kubeconfig is KBs and a token a few KB: a file past the cap is not the
//! file meant, and is an error naming it and the cap.

use std::io::Read;
use std::path::Path;

/// The most bytes of a kubeconfig read: 16 MiB.
pub const MAX_KUBECONFIG_BYTES: u64 = 16 << 20;

/// The most bytes of a token, password, key or headers file read: 1 MiB.
pub const MAX_SECRET_FILE_BYTES: u64 = 1 << 20;

/// The bytes of `path` (`what` names it in the error), at most `cap`.
///
/// # Errors
/// The file's I/O error, or `InvalidData` naming the file and the cap when
/// it holds more than `cap` bytes (nothing past `cap + 1` is read).
pub fn read_capped(path: &Path, cap: u64, what: &str) -> std::io::Result<Vec<u8>> {
    let file = std::fs::File::open(path)?;
    let mut bytes = Vec::new();
    file.take(cap + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > cap {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!(
                "the {what} {} holds more than {cap} bytes ({}), the most kdrift reads of one: it is not read (is it \
                 the right file?)",
                path.display(),
                crate::model::quantity::format_bytes(i64::try_from(cap).unwrap_or(i64::MAX))
            ),
        ));
    }
    Ok(bytes)
}

/// `read_capped` as text (invalid UTF-8 an `InvalidData` error).
///
/// # Errors
/// As `read_capped`.
pub fn read_capped_text(path: &Path, cap: u64, what: &str) -> std::io::Result<String> {
    String::from_utf8(read_capped(path, cap, what)?)
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_endless_file_stops_at_the_cap_and_is_named() {
        let e = read_capped(Path::new("/dev/zero"), 1024, "token file").expect_err("past the cap");
        assert_eq!(
            e.to_string(),
            "the token file /dev/zero holds more than 1024 bytes (1 KiB), the most kdrift reads of one: it is not \
             read (is it the right file?)"
        );
        let dir = tempfile::tempdir().expect("tmp");
        let f = dir.path().join("t");
        std::fs::write(&f, "abc\n").expect("write");
        assert_eq!(read_capped_text(&f, 4, "token file").expect("fits"), "abc\n");
        assert_eq!((MAX_KUBECONFIG_BYTES, MAX_SECRET_FILE_BYTES), (16 << 20, 1 << 20));
    }
}
