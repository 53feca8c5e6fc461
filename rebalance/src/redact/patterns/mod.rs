//! Credentials kdrift does not hold but can recognise by their shape, for
//! text that may carry anybody's (a server's error page, an Event's
//! message, an annotation, a container's environment): [`mask_patterns`]
//! replaces with [`MASK`](super::MASK)
//!
//! - the token after an HTTP auth scheme (`Bearer`, `Basic`, any case,
//!   after spaces, a tab, a newline, `+` or `%20`; URL-encoded tokens
//!   included), of [`MIN_SCHEME_TOKEN`]+ characters and not a plain word
//!   (`Bearer token expired`, `Bearer Authentication` stay);
//! - the credentials of an `Authorization` header, any scheme (`Token X`,
//!   `ApiKey X`), and the whole value of a `Cookie` or `Set-Cookie` header
//!   ([`headers`]);
//! - the body of a PEM private key (`-----BEGIN … PRIVATE KEY-----`, RSA,
//!   EC, OPENSSH, ENCRYPTED…) up to its `-----END` line (certificates stay);
//! - every JWT (`eyJ` then base64url with a `.`, [`MIN_JWT`]+ characters: a
//!   service account token), and GitHub, GitLab and Slack tokens by their
//!   prefix ([`VENDOR_TOKENS`]: `ghp_…`, `github_pat_…`, `glpat-…`, `xoxb-…`);
//! - the password of a URL's user info (`https://user:***@host`), or the
//!   whole user info without a `:` of [`MIN_TOKEN`]+ characters (a token
//!   used as the user name);
//! - the value after a key named like a secret ([`SECRET_KEYS`]: `password=…`,
//!   `"client_secret": "…"`, `token: …`, a URL's `X-Amz-Signature=…` or
//!   `sig=…`): any value after `=`; after `:`, any value for a password or
//!   secret, and for a token or signature one of [`MIN_TOKEN`]+ characters
//!   that is not a plain word (`token: expired` stays);
//! - on a command line ([`flags`]): the value of a flag whose name ends in
//!   a secret's word (`--password X`, `--db-pass=X`, `--token X`, not
//!   `--token-ttl=30s` nor `--password-file /p`), MySQL's `-pPASS` (not
//!   `-pthread`, `-p8080:80`), the password of `-u user:pass` (not a
//!   numeric `uid:gid`).
//!
//! Everything else is left exactly as it is: image names and digests, node
//! names, uids, resourceVersions, scheduler messages.

mod dumps;
mod flags;
mod headers;
mod named;

pub use dumps::mask_dumps;
pub use flags::{mask_flag_argument, secret_named};

use super::MASK;

/// Shortest token masked after `token:`, and shortest URL user info
/// without a password, characters (shorter ones are ordinary words).
pub const MIN_TOKEN: usize = 8;

/// Shortest token masked after `Bearer` or `Basic`, characters (`Bearer
/// x7k2p9`); a plain word ([`plain_word`]) is never one.
pub const MIN_SCHEME_TOKEN: usize = 6;

/// Shortest JWT masked, characters.
pub const MIN_JWT: usize = 16;

/// Prefixes of the tokens GitHub, GitLab, Slack, Stripe, Google, npm,
/// OpenAI and AWS issue, and the fewest characters after them that make
/// one (a Google API key is `AIza` and 35 more, an AWS access key id
/// `AKIA` and 16 more, an npm token `npm_` and 36 more).
pub const VENDOR_TOKENS: [(&str, usize); 24] = [
    ("sk_live_", 16),
    ("sk_test_", 16),
    ("rk_live_", 16),
    ("rk_test_", 16),
    ("AIza", 30),
    ("npm_", 30),
    ("sk-proj-", 20),
    ("sk-ant-", 20),
    ("sk-", 32),
    ("xapp-", 10),
    ("AKIA", 16),
    ("ghp_", 20),
    ("gho_", 20),
    ("ghs_", 20),
    ("ghu_", 20),
    ("ghr_", 20),
    ("github_pat_", 20),
    ("glpat-", 16),
    ("xoxb-", 10),
    ("xoxp-", 10),
    ("xoxa-", 10),
    ("xoxr-", 10),
    ("xoxs-", 10),
    ("xoxe-", 10),
];

/// Keys whose value is a credential, lowercase; matched at a word start
/// (`DB_PASSWORD`, `x-api-key` included) and end (`passwordless` is not).
/// The `token` and signature ones are masked after `:` only when the value
/// is not a plain word.
pub const SECRET_KEYS: [&str; 22] = [
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
    "signature",
    "sig",
];

/// `text` with every credential-shaped part masked (see the module doc).
/// Fullwidth letters and signs (`ｐａｓｓｗｏｒｄ＝`, U+FF01–U+FF5E) are
/// read as their ASCII forms.
pub fn mask_patterns(text: &str) -> String {
    let spans = match ascii_folded(text) {
        Some((folded, at)) => spans(&folded).into_iter().map(|(s, e)| (at[s], at[e])).collect(),
        None => spans(text),
    };
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

/// `text` with its fullwidth ASCII forms folded to ASCII, and for each byte
/// of that (and its end) the offset in `text` it came from; `None` when
/// there is none.
fn ascii_folded(text: &str) -> Option<(String, Vec<usize>)> {
    let fullwidth = |c: char| ('\u{FF01}'..='\u{FF5E}').contains(&c);
    if !text.chars().any(fullwidth) {
        return None;
    }
    let mut folded = String::with_capacity(text.len());
    let mut at = Vec::with_capacity(text.len() + 1);
    for (i, c) in text.char_indices() {
        let c = if fullwidth(c) { char::from_u32(c as u32 - 0xFEE0).unwrap_or(c) } else { c };
        at.extend(std::iter::repeat_n(i, c.len_utf8()));
        folded.push(c);
    }
    at.push(text.len());
    Some((folded, at))
}

/// The credential-shaped byte ranges of `text`, in order.
fn spans(text: &str) -> Vec<(usize, usize)> {
    let bytes = text.as_bytes();
    let lower = text.to_ascii_lowercase();
    let lower = lower.as_bytes();
    let mut spans = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let at_word = i == 0 || !bytes[i - 1].is_ascii_alphanumeric();
        let found = if at_word {
            headers::pem_private_key(bytes, i)
                .or_else(|| headers::authorization(bytes, lower, i))
                .or_else(|| headers::cookie(bytes, lower, i))
                .or_else(|| auth_scheme(bytes, lower, i))
                .or_else(|| vendor_token(bytes, i))
                .or_else(|| jwt(bytes, i))
                .or_else(|| flags::flag_value(bytes, i))
                .or_else(|| secret_value(bytes, lower, i))
                .or_else(|| named::named_value(bytes, i))
                .or_else(|| named::command_password(bytes, i))
                .or_else(|| named::password_hash(bytes, i))
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
    spans
}

/// A byte of a token: base64, URL-encoding, `-._~`.
fn token_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"-._~+/=%".contains(&b)
}

/// A word of letters only, capitalised at most (`token`, `Authentication`):
/// not a credential (`AbCdEf` and `abc123` are).
pub(crate) fn plain_word(word: &[u8]) -> bool {
    word.iter().all(u8::is_ascii_alphabetic) && word.iter().skip(1).all(u8::is_ascii_lowercase)
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
            if matches!(lower.get(j), Some(b' ' | b'+' | b'\t' | b'\n' | b'\r')) {
                j += 1;
            } else if lower[j..].starts_with(b"%20") {
                j += 3;
            } else if lower[j..].starts_with(b"\\n") || lower[j..].starts_with(b"\\t") {
                j += 2; // an escaped newline or tab inside a JSON string
            } else {
                break;
            }
        }
        let end = j + bytes[j..].iter().take_while(|b| token_byte(**b)).count();
        let token = &bytes[j..end];
        if j > separated && token.len() >= MIN_SCHEME_TOKEN && !plain_word(token) && token != MASK.as_bytes() {
            return Some((j, end));
        }
    }
    None
}

/// The GitHub, GitLab or Slack token ([`VENDOR_TOKENS`]) starting at `i`.
fn vendor_token(bytes: &[u8], i: usize) -> Option<(usize, usize)> {
    let (prefix, min) = VENDOR_TOKENS.iter().find(|(p, _)| bytes[i..].starts_with(p.as_bytes()))?;
    let body = i + prefix.len();
    let end = body + bytes[body..].iter().take_while(|b| b.is_ascii_alphanumeric() || b"_-".contains(b)).count();
    (end - body >= *min).then_some((i, end))
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
    j = past_key_quote(bytes, j);
    j += bytes[j..].iter().take_while(|b| **b == b' ' || **b == b'\t').count();
    let separator = *bytes.get(j).filter(|b| matches!(b, b'=' | b':'))?;
    j += 1;
    if separator == b':' && bytes.get(j) == Some(&b'/') {
        return None; // `token://`
    }
    j += bytes[j..].iter().take_while(|b| **b == b' ' || **b == b'\t').count();
    if separator == b':' {
        j = past_line_break_to_a_value(bytes, j);
    }
    let value = value_at(bytes, j, b"\"'&,;})]<>");
    if value.structure && volume_source(key, &bytes[value.start..value.end]) {
        return None;
    }
    let (start, end) = (value.start, value.end);
    let text = &bytes[start..end];
    // `"secret": true` is a flag, not a secret (break-it 46 L3), as for
    // the names read by their spelling.
    if text.is_empty() || text == MASK.as_bytes() || text == b"true" || text == b"false" {
        return None;
    }
    let token_key = key.contains("token") || key.starts_with("sig");
    let plain_word = text.iter().all(u8::is_ascii_alphabetic);
    if separator == b':' && token_key && !value.structure && (text.len() < MIN_TOKEN || plain_word) {
        return None;
    }
    Some((start, end))
}

/// Past the quote closing a key at `j`: `"`, `'`, or a JSON-escaped `\"`
/// (JSON quoted inside a message or a Debug print: `{\"password\":\"…\"}`,
/// break-it 44 L2).
pub(super) fn past_key_quote(bytes: &[u8], j: usize) -> usize {
    match bytes.get(j..j + 2) {
        Some(b"\\\"" | b"\\'") => j + 2,
        _ if matches!(bytes.get(j), Some(b'"' | b'\'')) => j + 1,
        _ => j,
    }
}

/// Past a line break (and the next line's indentation) at `j` when the
/// value opens on the next line with a quote or a bracket (`"password":`
/// then `"X"` on the next line, break-it 46 M2); `j` otherwise.
pub(super) fn past_line_break_to_a_value(bytes: &[u8], j: usize) -> usize {
    let mut k = j;
    if bytes.get(k) == Some(&b'\r') {
        k += 1;
    }
    if bytes.get(k) != Some(&b'\n') {
        return j;
    }
    k += 1;
    k += bytes[k..].iter().take_while(|b| matches!(b, b' ' | b'\t' | b'\r' | b'\n')).count();
    if matches!(bytes.get(k), Some(b'"' | b'\'' | b'{' | b'[')) {
        k
    } else {
        j
    }
}

/// Whether `value`, a JSON object or list under `key`, is a pod's secret
/// volume source (`"secret": {"secretName": "db", "items": …}`) or a
/// ServiceAccount's `secrets: [{"name": …}]`: it names Secrets and holds
/// none of their data. Only JSON of exactly those fields is (break-it 46
/// M2: `"secrets": ["X"]` and other keys inside `"secret"` were kept).
pub(super) fn volume_source(key: &str, value: &[u8]) -> bool {
    const VOLUME: [&str; 4] = ["secretName", "items", "defaultMode", "optional"];
    const REFERENCE: [&str; 6] = ["name", "namespace", "kind", "apiVersion", "uid", "fieldPath"];
    let only = |v: &serde_json::Value, keys: &[&str]| {
        v.as_object().is_some_and(|m| m.keys().all(|k| keys.contains(&k.as_str())))
    };
    let Ok(parsed) = serde_json::from_slice::<serde_json::Value>(value) else { return false };
    if key.eq_ignore_ascii_case("secret") {
        only(&parsed, &VOLUME)
    } else if key.eq_ignore_ascii_case("secrets") {
        parsed.as_array().is_some_and(|items| items.iter().all(|i| only(i, &REFERENCE)))
    } else {
        false
    }
}

/// Longest JSON object or list read as one credential value, bytes; one
/// not closed within it is masked to its line's end.
const MAX_STRUCTURE: usize = 64 << 10;

/// Where a credential's value starting at `j` (after its separator and
/// blanks) lies.
pub(super) struct ValueSpan {
    /// Its first byte (past an opening quote).
    pub(super) start: usize,
    /// Past its last byte (before a closing quote).
    pub(super) end: usize,
    /// A JSON object or list under the key (`{"password": {"value": …}}`,
    /// `"credentials": ["…"]`): masked whole, whatever it holds.
    pub(super) structure: bool,
}

/// The value at `j`: a quoted string (`"…"`, `'…'`, or JSON-escaped
/// `\"…\"`), a JSON object or list up to its matching bracket (break-it 44
/// L2: the part before its first quote was masked, the secret inside
/// shown), or a bare word up to a blank or a byte of `stops`.
pub(super) fn value_at(bytes: &[u8], j: usize, stops: &[u8]) -> ValueSpan {
    let line_end = |from: usize| bytes[from..].iter().position(|b| *b == b'\n').map_or(bytes.len(), |p| from + p);
    if matches!(bytes.get(j), Some(b'{' | b'[')) {
        let limit = bytes.len().min(j.saturating_add(MAX_STRUCTURE));
        let (mut depth, mut k, mut in_string) = (0usize, j, false);
        while k < limit {
            match bytes[k] {
                b'\\' => k += 1,
                b'"' => in_string = !in_string,
                b'{' | b'[' if !in_string => depth += 1,
                b'}' | b']' if !in_string => {
                    depth -= 1;
                    if depth == 0 {
                        return ValueSpan { start: j, end: k + 1, structure: true };
                    }
                }
                _ => {}
            }
            k += 1;
        }
        // Not closed within the bound (or on its line): masked to its line's
        // end, however long (break-it 46 M2: a 64 KiB bound showed the rest).
        return ValueSpan { start: j, end: line_end(j), structure: true };
    }
    let escaped = bytes.get(j..j + 2).is_some_and(|q| q == b"\\\"" || q == b"\\'");
    let quote =
        if escaped { bytes.get(j + 1).copied() } else { bytes.get(j).copied().filter(|b| matches!(b, b'"' | b'\'')) };
    let start = j + usize::from(quote.is_some()) + usize::from(escaped);
    let end = match quote {
        Some(q) => {
            let mut k = start;
            while k < bytes.len() && bytes[k] != q && bytes[k] != b'\n' {
                if escaped && bytes[k] == b'\\' && bytes.get(k + 1) == Some(&q) {
                    break;
                }
                k += if bytes[k] == b'\\' { 2 } else { 1 };
            }
            k.min(bytes.len())
        }
        None => start + bytes[start..].iter().take_while(|b| !b.is_ascii_whitespace() && !stops.contains(b)).count(),
    };
    ValueSpan { start, end, structure: false }
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

    /// Break-it 44 L2: a secret-named key whose value is an object or a
    /// list, or JSON quoted inside a message (`\"password\":\"…\"`), kept
    /// the secret (or masked the wrong part).
    #[test]
    fn structured_and_escaped_values_under_a_secret_key_are_masked() {
        let s = "ShapeSecretAa11Bb22Cc33";
        let cases = [
            (format!(r#"{{"password":{{"value":"{s}"}}}}"#), r#"{"password":***}"#.to_string()),
            (format!(r#"{{"credentials":["{s}"]}}"#), r#"{"credentials":***}"#.to_string()),
            (format!(r#"err: {{\"access_token\":\"{s}\"}}"#), r#"err: {\"access_token\":\"***\"}"#.to_string()),
            (format!(r#"{{\"password\":\"{s}\"}}"#), r#"{\"password\":\"***\"}"#.to_string()),
            (
                format!(r#"Output {{ stdout: "{{\"credential\":{{\"access_token\":\"{s}\"}}}}\n" }}"#),
                r#"Output { stdout: "{\"credential\":***}\n" }"#.to_string(),
            ),
            // Not closed on its line: masked to the line's end.
            (format!("password: {{\"v\": \"{s}\"\nnext line"), "password: ***\nnext line".to_string()),
            // A pod's secret volume and a ServiceAccount's secrets name Secrets: kept.
            (
                r#"{"secret":{"secretName":"db-creds","defaultMode":420}}"#.to_string(),
                r#"{"secret":{"secretName":"db-creds","defaultMode":420}}"#.to_string(),
            ),
            (r#""secrets":[{"name":"sa-token-x"}]"#.to_string(), r#""secrets":[{"name":"sa-token-x"}]"#.to_string()),
            // Break-it 46 M2: the value on the next line; a list of strings
            // under `secrets`; other keys inside `secret`.
            (format!("{{\"password\":\n\"{s}\"}}"), "{\"password\":\n\"***\"}".to_string()),
            (format!(r#""secrets": ["{s}"]"#), r#""secrets": ***"#.to_string()),
            (format!(r#""secret": {{"secretName": "db", "data": "{s}"}}"#), r#""secret": ***"#.to_string()),
            // Longer than the bound and so not closed within it: to its line's end.
            (
                format!("password: {{\"a\": \"{}\", \"b\": \"{s}\"}} tail\nnext", "x".repeat(70_000)),
                "password: ***\nnext".to_string(),
            ),
            // A flag under a secret's name stays (break-it 46 L3).
            (
                r#"{"secret": true, "password": false}"#.to_string(),
                r#"{"secret": true, "password": false}"#.to_string(),
            ),
            // An empty structure under a secret key is masked too; `tokens` names no secret.
            (r#"{"password":{}, "tokens": ["a"]}"#.to_string(), r#"{"password":***, "tokens": ["a"]}"#.to_string()),
        ];
        for (text, expected) in cases {
            assert_eq!(mask_patterns(&text), expected, "{text}");
        }
    }

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

    /// Issue 34 B (break-it MEDIUM 7): shapes that were stored or shown as
    /// they came, each masked, and the near misses next to them kept.
    #[test]
    fn keys_tokens_cookies_and_command_line_secrets_are_masked() {
        let pem_body = "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun";
        let cases: Vec<(String, String)> = vec![
            (
                format!("key: -----BEGIN RSA PRIVATE KEY-----\n{pem_body}\n-----END RSA PRIVATE KEY-----\nnext"),
                "key: -----BEGIN RSA PRIVATE KEY-----***-----END RSA PRIVATE KEY-----\nnext".into(),
            ),
            (
                format!("{{\"k\":\"-----BEGIN EC PRIVATE KEY-----\\n{pem_body}\\n-----END EC PRIVATE KEY-----\"}}"),
                "{\"k\":\"-----BEGIN EC PRIVATE KEY-----***-----END EC PRIVATE KEY-----\"}".into(),
            ),
            (
                format!("-----BEGIN OPENSSH PRIVATE KEY-----\n{pem_body}\n-----END OPENSSH PRIVATE KEY-----"),
                "-----BEGIN OPENSSH PRIVATE KEY-----***-----END OPENSSH PRIVATE KEY-----".into(),
            ),
            (
                format!("cut: -----BEGIN ENCRYPTED PRIVATE KEY-----\n{pem_body}"),
                "cut: -----BEGIN ENCRYPTED PRIVATE KEY-----***".into(),
            ),
            ("Authorization: Token 9f8e7d6c5b".into(), "Authorization: Token ***".into()),
            ("{\"Authorization\": \"ApiKey k-1 x\"}".into(), "{\"Authorization\": \"ApiKey ***\"}".into()),
            ("authorization=Zm9vOmJhcg".into(), "authorization=***".into()),
            ("Authorization: Bearer\nx7k2p9".into(), "Authorization: Bearer\n***".into()),
            ("got Bearer\tx7k2p9 back".into(), "got Bearer\t*** back".into()),
            ("got Bearer\\nx7k2p9 back".into(), "got Bearer\\n*** back".into()),
            ("probe sent Bearer x7k2p9".into(), "probe sent Bearer ***".into()),
            ("Cookie: session=5f2b9c; theme=dark\nHost: x".into(), "Cookie: ***\nHost: x".into()),
            ("Set-Cookie: sid=abc123; Path=/; HttpOnly".into(), "Set-Cookie: ***".into()),
            ("{\"cookie\": \"sid=abc123\", \"n\": 1}".into(), "{\"cookie\": \"***\", \"n\": 1}".into()),
            ("push with ghp_0123456789abcdefghijABCDEFGHIJ0123 ok".into(), "push with *** ok".into()),
            ("t=github_pat_11ABCDEFG0123456789_abcdefghij".into(), "t=***".into()),
            ("token glpat-abcdEFGH12345678ijkl".into(), "token ***".into()),
            ("hook xoxb-123456789012-abcdefABCDEF".into(), "hook ***".into()),
            ("[xoxp-1234-5678-abcdef]".into(), "[***]".into()),
            ("mysql -uroot -pS3cret! -h db".into(), "mysql -uroot -p*** -h db".into()),
            ("run --password hunter2 --port 80".into(), "run --password *** --port 80".into()),
            ("run --password=hunter2".into(), "run --password=***".into()),
            ("run --db-pass=hunter2 --token\tabc".into(), "run --db-pass=*** --token\t***".into()),
            ("join --token abcdef.0123456789abcdef x".into(), "join --token *** x".into()),
            ("curl -u bob:pa55w0rd https://x".into(), "curl -u bob:*** https://x".into()),
            ("curl --user=bob:pw https://x".into(), "curl --user=bob:*** https://x".into()),
            (
                "https://b.s3.amazonaws.com/o?X-Amz-Credential=A%2F1&X-Amz-Signature=9f8e7d6c".into(),
                // The credential holds the access key id (`AKIA…`): masked too.
                "https://b.s3.amazonaws.com/o?X-Amz-Credential=***&X-Amz-Signature=***".into(),
            ),
            (
                "https://a.blob.core.windows.net/c?sv=2021&sig=AbC%2Bd3F&se=1".into(),
                "https://a.blob.core.windows.net/c?sv=2021&sig=***&se=1".into(),
            ),
            ("X-Amz-Security-Token=IQoJb3JpZ2lu".into(), "X-Amz-Security-Token=***".into()),
        ];
        for (text, want) in cases {
            assert_eq!(mask_patterns(&text), want, "{text}");
        }
        for plain in [
            "-----BEGIN CERTIFICATE-----\nMIIC0z\n-----END CERTIFICATE-----",
            "-----BEGIN PUBLIC KEY-----\nMIIBIj\n-----END PUBLIC KEY-----",
            "Bearer Authentication failed; bearer token; Bearer abcdef",
            "authorization failed: Authorization: denied",
            "3 cookies set; cookie jar",
            "ghp_short and xoxb- and glpat-abc",
            "kubeadm init --token-ttl=30s --token-ttl 30s --password-file /etc/pw --secret-name db",
            "gcc -pthread -pedantic; docker run -p8080:80 -p 9090 -u 1000:1000 img",
            "pod uid 5e1c77d0-1b2a-4c3d-9e8f-0a1b2c3d4e5f, resourceVersion 81234",
            "image ghcr.io/org/app@sha256:0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9",
            "0/5 nodes are available: 2 Insufficient memory, 3 node(s) didn't match Pod's node affinity/selector. \
             preemption: 0/5 nodes are available: 5 Preemption is not helpful for scheduling.",
            "signature: valid; invalid signature",
            "node ip-10-0-1-23.ec2.internal, node aks-nodepool1-12345678-vmss000000",
        ] {
            assert_eq!(mask_patterns(plain), plain);
        }
    }

    #[test]
    fn names_that_hold_a_secret_and_the_flag_arguments_after_them() {
        for name in [
            "secret",
            "password",
            "db-password",
            "dbPassword",
            "api-key",
            "apiKey",
            "x-api-key",
            "auth_token",
            "authtoken",
            "client-secret",
            "private_key",
            "passphrase",
            "example.com/token",
            "PGPASSWORD",
        ] {
            assert!(secret_named(name), "{name}");
        }
        for name in [
            "token-ttl",
            "secret-name",
            "password-file",
            "tokens",
            "key",
            "sharding-key",
            "passwordless",
            "last-applied-configuration",
            "app",
            "secretName",
            "bypass",
        ] {
            assert!(!secret_named(name), "{name}");
        }
        assert_eq!(mask_flag_argument("--token", "abc123").as_deref(), Some("***"));
        assert_eq!(mask_flag_argument("-u", "bob:pw").as_deref(), Some("bob:***"));
        assert_eq!(mask_flag_argument("--user", "1000:1000"), None);
        assert_eq!(mask_flag_argument("--token", "--other"), None);
        assert_eq!(mask_flag_argument("--token-ttl", "30s"), None);
        assert_eq!(mask_flag_argument("--token=x", "next"), None);
        assert_eq!(mask_flag_argument("plain", "value"), None);
    }

    proptest::proptest! {
        /// Any text near the shapes (multi-byte characters, cut blocks,
        /// escapes) is masked without a panic, on character boundaries.
        #[test]
        fn any_text_is_masked_without_a_panic(
            parts in proptest::collection::vec(proptest::sample::select(vec![
                "-----BEGIN RSA PRIVATE KEY-----", "-----END", "Authorization", ": ", "=", "\"", "'", "Cookie", "Bearer",
                "\t", "\n", "\\n", "ghp_", "xoxb-", "-p", "-u", "--token", " ", "é", "日本", "bob:", "pw", "abc123",
                "://", "@", "sig", "a", "%20", "\\",
            ]), 0..24)
        ) {
            let text: String = parts.concat();
            // Slicing off a character boundary would panic here.
            let masked = mask_patterns(&text);
            // Each masked span (a byte or more) becomes three bytes.
            proptest::prop_assert!(masked.len() <= 3 * text.len());
        }
    }
}
