//! Credentials kdrift does not hold but can recognise by their shape, for
//! text that may carry anybody's (a server's error page, an Event's
//! message, an annotation, a container's environment): [`mask_patterns`]
//! replaces with [`MASK`](super::MASK)
//!
//! - the token after an HTTP auth scheme (`Bearer`, `Basic`, any case,
//!   after spaces, `+` or `%20`; URL-encoded tokens included), of
//!   [`MIN_TOKEN`]+ characters (`Bearer token expired` stays);
//! - every JWT (`eyJ` then base64url with a `.`, [`MIN_JWT`]+ characters: a
//!   service account token);
//! - the password of a URL's user info (`https://user:***@host`), or the
//!   whole user info without a `:` of [`MIN_TOKEN`]+ characters (a token
//!   used as the user name);
//! - the value after a key named like a secret ([`SECRET_KEYS`]: `password=…`,
//!   `"client_secret": "…"`, `token: …`): any value after `=`; after `:`,
//!   any value for a password or secret, and for a token one of
//!   [`MIN_TOKEN`]+ characters that is not a plain word (`token: expired`
//!   stays).
//!
//! Everything else is left exactly as it is: image names, node names,
//! uids, resourceVersions, scheduler messages.

use super::MASK;

/// Shortest token masked after `Bearer`/`Basic` or `token:`, and shortest
/// URL user info without a password, characters (shorter ones are
/// ordinary words: "Bearer token").
pub const MIN_TOKEN: usize = 8;

/// Shortest JWT masked, characters.
pub const MIN_JWT: usize = 16;

/// Keys whose value is a credential, lowercase; matched at a word start
/// (`DB_PASSWORD`, `x-api-key` included) and end (`passwordless` is not).
/// The `token` ones are masked after `:` only when the value is not a
/// plain word.
pub const SECRET_KEYS: [&str; 20] = [
    "password",
    "passwd",
    "pwd",
    "secret",
    "client_secret",
    "client-secret",
    "api_key",
    "api-key",
    "apikey",
    "access_key",
    "private_key",
    "token",
    "access_token",
    "refresh_token",
    "id_token",
    "auth_token",
    "secret_key",
    "secret-key",
    "accountkey",
    "client-key-data",
];

/// `text` with every credential-shaped part masked (see the module doc).
pub fn mask_patterns(text: &str) -> String {
    let bytes = text.as_bytes();
    let lower = text.to_ascii_lowercase();
    let lower = lower.as_bytes();
    let mut spans = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let at_word = i == 0 || !bytes[i - 1].is_ascii_alphanumeric();
        let found = if at_word {
            auth_scheme(bytes, lower, i)
                .or_else(|| jwt(bytes, i))
                .or_else(|| secret_value(bytes, lower, i))
                .or_else(|| url_user_info(bytes, i))
        } else {
            url_user_info(bytes, i)
        };
        match found {
            Some((start, end)) if end > start => {
                spans.push((start, end));
                i = end;
            }
            _ => i += 1,
        }
    }
    if spans.is_empty() {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    for (start, end) in spans {
        out.push_str(&text[copied..start]);
        out.push_str(MASK);
        copied = end;
    }
    out.push_str(&text[copied..]);
    out
}

/// A byte of a token: base64, URL-encoding, `-._~`.
fn token_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"-._~+/=%".contains(&b)
}

/// The token after `Bearer` or `Basic` at `i`.
fn auth_scheme(bytes: &[u8], lower: &[u8], i: usize) -> Option<(usize, usize)> {
    for scheme in [&b"bearer"[..], b"basic"] {
        if !lower[i..].starts_with(scheme) {
            continue;
        }
        let mut j = i + scheme.len();
        let separated = j;
        loop {
            if matches!(lower.get(j), Some(b' ' | b'+')) {
                j += 1;
            } else if lower[j..].starts_with(b"%20") {
                j += 3;
            } else {
                break;
            }
        }
        let end = j + bytes[j..].iter().take_while(|b| token_byte(**b)).count();
        if j > separated && end - j >= MIN_TOKEN {
            return Some((j, end));
        }
    }
    None
}

/// The JWT starting at `i`.
fn jwt(bytes: &[u8], i: usize) -> Option<(usize, usize)> {
    if !bytes[i..].starts_with(b"eyJ") {
        return None;
    }
    let end = i + bytes[i..].iter().take_while(|b| b.is_ascii_alphanumeric() || b"-_.".contains(b)).count();
    (end - i >= MIN_JWT && bytes[i..end].contains(&b'.')).then_some((i, end))
}

/// The value after a [`SECRET_KEYS`] key starting at `i`.
fn secret_value(bytes: &[u8], lower: &[u8], i: usize) -> Option<(usize, usize)> {
    let key = SECRET_KEYS.iter().filter(|k| lower[i..].starts_with(k.as_bytes())).max_by_key(|k| k.len())?;
    let mut j = i + key.len();
    if bytes.get(j).is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_') {
        return None; // a longer word: `passwordless`, `tokens`
    }
    if matches!(bytes.get(j), Some(b'"' | b'\'')) {
        j += 1;
    }
    j += bytes[j..].iter().take_while(|b| **b == b' ' || **b == b'\t').count();
    let separator = *bytes.get(j).filter(|b| matches!(b, b'=' | b':'))?;
    j += 1;
    if separator == b':' && bytes.get(j) == Some(&b'/') {
        return None; // `token://`
    }
    j += bytes[j..].iter().take_while(|b| **b == b' ' || **b == b'\t').count();
    let quote = bytes.get(j).copied().filter(|b| matches!(b, b'"' | b'\''));
    let start = j + usize::from(quote.is_some());
    let end = match quote {
        Some(q) => {
            let mut k = start;
            while k < bytes.len() && bytes[k] != q && bytes[k] != b'\n' {
                k += if bytes[k] == b'\\' { 2 } else { 1 };
            }
            k.min(bytes.len())
        }
        None => {
            start
                + bytes[start..].iter().take_while(|b| !b.is_ascii_whitespace() && !b"\"'&,;})]<>".contains(b)).count()
        }
    };
    let value = &bytes[start..end];
    if value.is_empty() || value == MASK.as_bytes() {
        return None;
    }
    let token_key = key.contains("token");
    let plain_word = value.iter().all(u8::is_ascii_alphabetic);
    if separator == b':' && token_key && (value.len() < MIN_TOKEN || plain_word) {
        return None;
    }
    Some((start, end))
}

/// The password (or token) of a URL's user info whose `://` starts at `i`.
fn url_user_info(bytes: &[u8], i: usize) -> Option<(usize, usize)> {
    if !bytes[i..].starts_with(b"://") || i == 0 || !bytes[i - 1].is_ascii_alphanumeric() {
        return None;
    }
    let start = i + 3;
    let len = bytes[start..].iter().take_while(|b| !b"/?#@\"'<> \t\r\n".contains(b)).count();
    if bytes.get(start + len) != Some(&b'@') || len == 0 {
        return None;
    }
    let info = &bytes[start..start + len];
    match info.iter().position(|b| *b == b':') {
        Some(colon) if colon + 1 < len => Some((start + colon + 1, start + len)),
        Some(_) => None,
        None => (len >= MIN_TOKEN).then_some((start, start + len)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credential_shapes_are_masked_and_ordinary_text_is_not() {
        let jwt = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJzeXN0ZW06c2EifQ.c2lnbmF0dXJl";
        let cases = [
            (format!("Authorization: Bearer {jwt}"), "Authorization: Bearer ***".to_string()),
            (format!("raw {jwt} end"), "raw *** end".into()),
            ("aws secret_key=wJalrXUtnFEMI/K7MDENG".into(), "aws secret_key=***".into()),
            (
                "DefaultEndpointsProtocol=https;AccountKey=c2VjcmV0a2V5".into(),
                "DefaultEndpointsProtocol=https;AccountKey=***".into(),
            ),
            ("    client-key-data: LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVk".into(), "    client-key-data: ***".into()),
            (
                "pull from https://robot:hunter2pw@registry.example.com/v2/".into(),
                "pull from https://robot:***@registry.example.com/v2/".into(),
            ),
            ("clone https://ghp_abcdef123456@github.com/x".into(), "clone https://***@github.com/x".into()),
            (
                "dsn=postgres://app:s3cr3t@db:5432/x?sslmode=disable".into(),
                "dsn=postgres://app:***@db:5432/x?sslmode=disable".into(),
            ),
            ("login failed: password=hunter2&user=bob".into(), "login failed: password=***&user=bob".into()),
            ("DB_PASSWORD=hunter2 ./run".into(), "DB_PASSWORD=*** ./run".into()),
            ("{\"client_secret\": \"abc def\", \"x\": 1}".into(), "{\"client_secret\": \"***\", \"x\": 1}".into()),
            ("token: 9f8e7d6c5b4a3f2e".into(), "token: ***".into()),
            ("x-api-key: k3y-v4lue".into(), "x-api-key: ***".into()),
        ];
        for (text, want) in cases {
            assert_eq!(mask_patterns(&text), want, "{text}");
        }
        for plain in [
            "0/3 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, 2 \
             Insufficient cpu. preemption: 0/3 nodes are available",
            "Successfully assigned media/plex-7d9f-abcde to node-1",
            "Failed to refresh token: context deadline exceeded; Bearer token expired; basic auth",
            "Pulling image \"ghcr.io/org/app@sha256:0123456789abcdef\"",
            "passwordless login, 3 tokens left, secretName set, see http://example.com/a@b",
            "registry.k8s.io/pause:3.9",
        ] {
            assert_eq!(mask_patterns(plain), plain);
        }
    }
}
