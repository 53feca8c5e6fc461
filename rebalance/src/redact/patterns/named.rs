//! Credentials found by the name in front of them, whatever its spelling
//! (issue 34, break-it `mkmask.py`): the value after a key named like a
//! secret ([`super::secret_named`]: `dbPassword=`, `clientSecret:`,
//! `"accessToken":`, `PGPASSWORD=`, `DB_PASS=`, `passphrase=`,
//! `private-key:`, and `auth=`, a docker config's `"auth":`), also after a
//! no-break space or a JSON-escaped `\u003d`, and `the password is X`;
//! the password a command takes after a short flag (`sshpass -p X`,
//! `redis-cli -a X`); a password hash (`$apr1$…`, `$2y$…`, `$6$…`).

use super::{MASK, MIN_TOKEN};

/// A lowercase plain word this long after `token:` is taken for a token
/// (`token: hxqpwzwlowercaseonly`), characters; shorter ones are words
/// (`token: expired`).
const LONG_WORD: usize = 16;

/// The longest key read as a credential's name, bytes: a longer run of
/// key bytes is data, not a name (`PGPASSWORD`, `clientSecret` and the
/// like are far shorter).
const MAX_KEY: usize = 128;

/// Bytes of a key: letters, digits, `_`, `-`, `.`.
fn key_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"_-.".contains(&b)
}

/// Blanks between a key and its separator: spaces, tabs, no-break spaces
/// (UTF-8 `C2 A0`).
fn skip_blanks(bytes: &[u8], mut j: usize) -> usize {
    loop {
        match bytes.get(j) {
            Some(b' ' | b'\t') => j += 1,
            Some(0xC2) if bytes.get(j + 1) == Some(&0xA0) => j += 2,
            _ => return j,
        }
    }
}

/// Whether a key (as written) names a credential: [`super::secret_named`],
/// or `auth` alone (a docker config's, a query string's).
fn credential_key(key: &str) -> bool {
    key.eq_ignore_ascii_case("auth") || super::secret_named(key)
}

/// Whether the key's value after `:` must look like a token (not a plain
/// word) to be masked: a `token`, `auth` or key's, not a password's or
/// secret's.
fn token_like(key: &str) -> bool {
    let lower = key.to_ascii_lowercase();
    !["pass", "pwd", "secret", "private"].iter().any(|w| lower.contains(w))
}

/// The value after a key named like a credential whose first byte is at
/// `i` (see the module doc).
pub(super) fn named_value(bytes: &[u8], i: usize) -> Option<(usize, usize)> {
    // Checked before the key is read, and the read bounded: a run of key
    // bytes (`00000001-00000001-…`, 64 KiB) starts a word at every `-`, so
    // reading each to its end was quadratic (minutes for 2.6 MB).
    if !bytes.get(i)?.is_ascii_alphabetic() {
        return None;
    }
    let key_len = bytes[i..].iter().take(MAX_KEY + 1).take_while(|b| key_byte(**b)).count();
    if key_len > MAX_KEY {
        return None;
    }
    let key_end = i + key_len;
    let key = std::str::from_utf8(&bytes[i..key_end]).ok()?.trim_end_matches(['-', '.', '_']);
    if !credential_key(key) {
        return None;
    }
    let mut j = super::past_key_quote(bytes, key_end);
    j = skip_blanks(bytes, j);
    let separator = if matches!(bytes.get(j), Some(b'=' | b':')) {
        j += 1;
        bytes[j - 1]
    } else if bytes[j..].starts_with(b"\\u003d") || bytes[j..].starts_with(b"\\u003D") {
        j += 6;
        b'='
    } else if bytes[j..].starts_with(b"is ") && j > key_end && !token_like(key) {
        j += 3;
        b'i'
    } else {
        return None;
    };
    if separator == b':' && bytes.get(j) == Some(&b'/') {
        return None; // `token://`
    }
    j = skip_blanks(bytes, j);
    if separator == b':' {
        j = super::past_line_break_to_a_value(bytes, j);
    }
    let span = super::value_at(bytes, j, b"\"'&,;})]<>\\");
    let (start, end) = (span.start, span.end);
    let value = &bytes[start..end];
    if value.is_empty() || value.starts_with(MASK.as_bytes()) || value == b"true" || value == b"false" {
        return None;
    }
    let word = value.iter().all(u8::is_ascii_alphabetic);
    let long_lower = word && value.len() >= LONG_WORD && value.iter().all(u8::is_ascii_lowercase);
    match separator {
        _ if span.structure => (!super::volume_source(key, value)).then_some((start, end)),
        b'i' if word => None, // `the password is incorrect`
        b':' if token_like(key) && (value.len() < MIN_TOKEN || (word && !long_lower)) => None,
        _ => Some((start, end)),
    }
}

/// Commands whose password follows a short flag: the command and the flag.
const PASSWORD_FLAGS: [(&str, &str); 3] = [("sshpass", "-p"), ("redis-cli", "-a"), ("redis-cli", "--pass")];

/// The password of `sshpass -p X` or `redis-cli … -a X` whose command
/// starts at `i`: the word after the flag, on the same line.
pub(super) fn command_password(bytes: &[u8], i: usize) -> Option<(usize, usize)> {
    for (command, flag) in PASSWORD_FLAGS {
        if !bytes[i..].starts_with(command.as_bytes()) || bytes.get(i + command.len()).is_some_and(|b| key_byte(*b)) {
            continue;
        }
        let line_end = bytes[i..].iter().position(|b| *b == b'\n').map_or(bytes.len(), |p| i + p);
        let mut words = Vec::new();
        let mut k = i + command.len();
        while k < line_end {
            k += bytes[k..line_end].iter().take_while(|b| b.is_ascii_whitespace()).count();
            let len = bytes[k..line_end].iter().take_while(|b| !b.is_ascii_whitespace() && !b"\"'".contains(b)).count();
            if len == 0 {
                break;
            }
            words.push((k, k + len));
            k += len;
        }
        let at = words.iter().position(|(s, e)| &bytes[*s..*e] == flag.as_bytes())?;
        let (start, end) = *words.get(at + 1)?;
        if bytes[start] == b'-' || &bytes[start..end] == MASK.as_bytes() {
            return None;
        }
        return Some((start, end));
    }
    None
}

/// Prefixes of crypt(3) password hashes (htpasswd's `$apr1$`, bcrypt's
/// `$2y$`, SHA-crypt's `$5$`/`$6$`, yescrypt's `$y$`, `$argon2id$`).
const HASH_PREFIXES: [&str; 8] = ["$apr1$", "$2a$", "$2b$", "$2y$", "$5$", "$6$", "$y$", "$argon2"];

/// A password hash starting at `i`: its salt and hash (the prefix stays),
/// of [`MIN_TOKEN`]+ characters.
pub(super) fn password_hash(bytes: &[u8], i: usize) -> Option<(usize, usize)> {
    let prefix = HASH_PREFIXES.iter().find(|p| bytes[i..].starts_with(p.as_bytes()))?;
    let start = i + prefix.len();
    let end = start + bytes[start..].iter().take_while(|b| !b.is_ascii_whitespace() && !b"\"',;".contains(b)).count();
    (end - start >= MIN_TOKEN).then_some((start, end))
}

#[cfg(test)]
mod tests {
    use super::super::mask_patterns;

    /// Issue 34 (break-it `mkmask.py`): each shape that was stored as it
    /// came, masked; the near misses next to them kept.
    #[test]
    fn named_values_command_passwords_hashes_and_vendor_tokens_are_masked() {
        for (text, want) in [
            ("connect failed dbPassword=Hx7qPw93zz", "connect failed dbPassword=***"),
            ("PGPASSWORD=Hx7qPw93zb psql -h db", "PGPASSWORD=*** psql -h db"),
            ("DB_PASS=Hx7qPw93zc ./run", "DB_PASS=*** ./run"),
            (r#"{"accessToken":"Hx7qPw93zdAbCdEf12"}"#, r#"{"accessToken":"***"}"#),
            ("clientSecret: Hx7qPw93ze", "clientSecret: ***"),
            (r#"{"auths":{"reg.io":{"auth":"dXNlcjpIeDdxUHc5M3pm"}}}"#, r#"{"auths":{"reg.io":{"auth":"***"}}}"#),
            ("passphrase=Hx7qPw93zj", "passphrase=***"),
            ("private-key: Hx7qPw93zn", "private-key: ***"),
            ("auth=Hx7qPw93zo&user=bob", "auth=***&user=bob"),
            ("Proxy-Authorization: Digest username=bob, response=Hx7qPw93zl", "Proxy-Authorization: Digest ***"),
            (
                "Authorization: Digest username=\"bob\", response=\"6629fae4\"\nHost: x",
                "Authorization: Digest ***\nHost: x",
            ),
            ("token: hxqpwzwlowercaseonly", "token: ***"),
            ("sshpass -p Hx7qPw93zz2 ssh host", "sshpass -p *** ssh host"),
            ("redis-cli -h r -a Hx7qPw93zz3 ping", "redis-cli -h r -a *** ping"),
            ("bob:$apr1$Hx7qPw93$zz4abcdefghijkl", "bob:$apr1$***"),
            ("password\u{a0}=\u{a0}Hx7qPw93zz6", "password\u{a0}=\u{a0}***"),
            ("the password is Hx7qPw93zz7", "the password is ***"),
            (r"password\u003dHx7qPw93zz9", r"password\u003d***"),
            ("stripe sk_live_Hx7qPw93zsAbCdEfGhIjKl", "stripe ***"),
            ("rk_test_Hx7qPw93zsAbCdEfGhIjKl", "***"),
            ("key AIzaSyHx7qPw93ztAbCdEfGhIjKlMnOpQrStUv", "key ***"),
            ("npm_Hx7qPw93zuAbCdEfGhIjKlMnOpQrStUvWx", "***"),
            ("sk-proj-Hx7qPw93zvAbCdEfGhIjKlMnOp", "***"),
            ("k sk-Hx7qPw93zvAbCdEfGhIjKlMnOpQrStUvWxYz01", "k ***"),
            ("id AKIAIOSFODNN7EXAMPLE used", "id *** used"),
            ("xapp-1-A0123-456-abcdef", "***"),
            ("apiKey: 9f8e7d6c5b4a", "apiKey: ***"),
            ("secretAccessKey=wJalrXUt", "secretAccessKey=***"),
            ("ｐａｓｓｗｏｒｄ=Hx7qPw93zz8 ok", "ｐａｓｓｗｏｒｄ=*** ok"),
            ("ｐａｓｓｗｏｒｄ＝Ｈｘ７ｑ ok", "ｐａｓｓｗｏｒｄ＝*** ok"),
        ] {
            assert_eq!(mask_patterns(text), want, "{text}");
        }
        for plain in [
            "kubeadm init --token-ttl=30s",
            "AUTHOR=jane author: jane",
            "token: expired; auth: failed; the password is incorrect",
            "secretName: db-creds, passwordless: true, auth=true",
            "image ghcr.io/org/app@sha256:0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9",
            "0/3 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }",
            "created 2026-11-27T10:00:00Z, memory: 64Mi, cpu: 250m, resourceVersion: 81234",
            "uid 5e1c77d0-1b2a-4c3d-9e8f-0a1b2c3d4e5f on node sk-node-1 task-runner AKIA short",
            "docker run -p 9090 img; echo $1 $2; price $5",
            "redis-cli -h r ping; sshpass -f /p ssh host",
            "ｐａｓｓｗｏｒｄ ｓｅｔ，日本語",
        ] {
            assert_eq!(mask_patterns(plain), plain);
        }
    }

    /// A 2.6 MB List of Pods whose annotations were runs of
    /// `00000001-00000001-…` took minutes in `ingest file` (each `-` starts
    /// a word and each word's key was read to the run's end): runs of key
    /// bytes are passed by, a credential after one still found.
    #[test]
    fn long_runs_of_key_bytes_are_passed_by_and_a_credential_after_one_masked() {
        for unit in ["00000001-", "abcdefgh-", "a.b_c-"] {
            let run = unit.repeat((1 << 20) / unit.len());
            assert_eq!(mask_patterns(&run), run, "{unit}");
            let text = format!("{run}password=Hx7qPw93zq");
            assert_eq!(mask_patterns(&text), format!("{run}password=***"), "{unit}");
        }
    }
}
