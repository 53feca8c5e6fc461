//! Credentials on a command line (a container's `command`/`args`, a shell
//! line quoted in a message): the value of a flag named like a secret
//! (`--password X`, `--db-pass=X`, `--token X`), MySQL's glued `-pPASS`,
//! and the password of `curl -u user:pass` (issue 34 B).

use super::MASK;

/// Last words of a name (a flag's, an annotation's or a label's key) that
/// make its value a credential, lowercase.
const SECRET_WORDS: [&str; 12] = [
    "secret",
    "secrets",
    "password",
    "passwords",
    "passwd",
    "pwd",
    "pass",
    "passphrase",
    "token",
    "apikey",
    "credential",
    "credentials",
];

/// Words before a last word `key` that make it a credential's (`api-key`,
/// `accessKey`, `private_key`).
const KEY_OWNERS: [&str; 9] =
    ["api", "access", "secret", "private", "signing", "encryption", "ssh", "client", "master"];

/// Endings of one run-together word that make it a credential's
/// (`dbpassword`, `authtoken`).
const SECRET_ENDINGS: [&str; 8] =
    ["password", "passwd", "secret", "token", "apikey", "accesskey", "secretkey", "privatekey"];

/// Whether a value named `name` is a credential: its last word (split at
/// `-`, `_`, `.`, `/` and camelCase) is one of `SECRET_WORDS`, or `key`
/// after one of `KEY_OWNERS`, or ends like `SECRET_ENDINGS`.
/// `--token-ttl`, `secret-name`, `password-file` and `tokens` are not.
pub fn secret_named(name: &str) -> bool {
    let mut words: Vec<String> = Vec::new();
    let mut prev_lower = false;
    for c in name.chars() {
        if !c.is_ascii_alphanumeric() {
            words.push(String::new());
            prev_lower = false;
            continue;
        }
        if words.is_empty() || (prev_lower && c.is_ascii_uppercase()) {
            words.push(String::new());
        }
        prev_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
        if let Some(w) = words.last_mut() {
            w.push(c.to_ascii_lowercase());
        }
    }
    words.retain(|w| !w.is_empty());
    let Some(last) = words.last() else { return false };
    let before = words.len().checked_sub(2).map(|i| words[i].as_str());
    SECRET_WORDS.contains(&last.as_str())
        || (last == "key" && before.is_some_and(|b| KEY_OWNERS.contains(&b)))
        || SECRET_ENDINGS.iter().any(|e| last.ends_with(e))
}

/// Where a value that ends at a blank or a quote ends.
fn word_end(bytes: &[u8], start: usize) -> usize {
    start + bytes[start..].iter().take_while(|b| !b.is_ascii_whitespace() && !b"\"'\\,;".contains(b)).count()
}

/// The credential of a command-line flag starting at `i` (at the start of
/// the text or after a blank or a quote): see the module doc.
pub(super) fn flag_value(bytes: &[u8], i: usize) -> Option<(usize, usize)> {
    if bytes[i] != b'-' || (i > 0 && !matches!(bytes[i - 1], b' ' | b'\t' | b'\n' | b'"' | b'\'')) {
        return None;
    }
    let dashes = if bytes.get(i + 1) == Some(&b'-') { 2 } else { 1 };
    let name_start = i + dashes;
    let name_end =
        name_start + bytes[name_start..].iter().take_while(|b| b.is_ascii_alphanumeric() || b"-_".contains(b)).count();
    let name = std::str::from_utf8(&bytes[name_start..name_end]).ok()?;
    if name.is_empty() {
        return None;
    }
    let user_at = match (dashes, name) {
        (2, "user") => Some(name_end),
        (1, _) if name.starts_with('u') => Some(name_start + 1),
        _ => None,
    };
    if let Some(span) = user_at.and_then(|j| user_password(bytes, j)) {
        return Some(span);
    }
    if secret_named(name) {
        let mut j = name_end;
        match bytes.get(j) {
            Some(b'=') => j += 1,
            Some(b' ' | b'\t') => {
                while matches!(bytes.get(j), Some(b' ' | b'\t')) {
                    j += 1;
                }
                if bytes.get(j) == Some(&b'-') {
                    return None; // the next flag
                }
            }
            _ => return None,
        }
        let end = word_end(bytes, j);
        return (end > j && &bytes[j..end] != MASK.as_bytes()).then_some((j, end));
    }
    if dashes == 1 && name.starts_with('p') {
        return glued_password(bytes, name_start + 1);
    }
    None
}

/// MySQL's `-pPASS` (`mysql -uroot -pS3cret`): the value glued to `-p`,
/// unless all letters (`-pthread`, `-pedantic`) or made of digits, `.`,
/// `:`, `/` and `-` only (a port: `-p8080:80`).
fn glued_password(bytes: &[u8], start: usize) -> Option<(usize, usize)> {
    let end = word_end(bytes, start);
    let value = &bytes[start..end];
    let letters = value.iter().all(u8::is_ascii_alphabetic);
    let port = value.iter().all(|b| b.is_ascii_digit() || b".:/-".contains(b));
    (!value.is_empty() && !letters && !port && value != MASK.as_bytes() && value[0] != b'=').then_some((start, end))
}

/// The password of `user:password` after `-u` or `--user` (glued, after
/// `=` or after blanks: `curl -u bob:pw`), unless all digits (a
/// `uid:gid`: `docker run -u 1000:1000`).
fn user_password(bytes: &[u8], mut j: usize) -> Option<(usize, usize)> {
    if bytes.get(j) == Some(&b'=') {
        j += 1;
    }
    while matches!(bytes.get(j), Some(b' ' | b'\t')) {
        j += 1;
    }
    user_password_at(bytes, j)
}

/// The password of a `user:password` word starting at `j` (see
/// [`user_password`]).
fn user_password_at(bytes: &[u8], j: usize) -> Option<(usize, usize)> {
    let end = word_end(bytes, j);
    let colon = j + bytes[j..end].iter().position(|b| *b == b':')?;
    let password = &bytes[colon + 1..end];
    let numeric = password.iter().all(u8::is_ascii_digit);
    (colon > j && !password.is_empty() && !numeric && password != MASK.as_bytes()).then_some((colon + 1, end))
}

/// `argument` masked when it is the value of `flag`, the item before it in
/// a `command`/`args` list (`["--token", "V"]`): whole after a flag named
/// like a secret ([`secret_named`]), its password after `-u` or `--user`;
/// `None` when nothing is masked (an argument starting with `-` is the
/// next flag).
pub fn mask_flag_argument(flag: &str, argument: &str) -> Option<String> {
    let name = flag.strip_prefix("--").or_else(|| flag.strip_prefix('-'))?;
    if argument.is_empty() || argument.starts_with('-') || argument == MASK {
        return None;
    }
    if name == "u" || (name == "user" && flag.starts_with("--")) {
        let (start, end) = user_password_at(argument.as_bytes(), 0)?;
        return Some(format!("{}{MASK}{}", &argument[..start], &argument[end..]));
    }
    let plain_name = !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_".contains(&b));
    (plain_name && secret_named(name)).then(|| MASK.to_string())
}
