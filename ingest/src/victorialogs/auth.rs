//! Credentials and tenant of a VictoriaLogs pull: Basic (`-httpAuth.*`, vmauth
//! users), Bearer (vmauth), extra headers, and the `AccountID`/`ProjectID`
//! tenant headers.
//!
//! Secrets come only from environment variables or files — never from the
//! command line, where `ps` and shell history would show them — and are
//! never printed: [`Secret`] has no `Display` and its `Debug` is `***`.
//!
//! | credential | environment | file option |
//! |---|---|---|
//! | Basic user | `KDRIFT_VL_USER` | (`--user NAME` is not a secret) |
//! | Basic password | `KDRIFT_VL_PASSWORD` | `--password-file` |
//! | Bearer token | `KDRIFT_VL_BEARER_TOKEN` | `--bearer-token-file` |
//! | extra headers (`Name: value` lines) | `KDRIFT_VL_HEADERS` | `--headers-file` |

use std::path::{Path, PathBuf};

use super::error::VlError;
use kdrift_rebalance::Redactor;

/// Environment variable of the Basic auth user.
pub const ENV_USER: &str = "KDRIFT_VL_USER";
/// Environment variable of the Basic auth password.
pub const ENV_PASSWORD: &str = "KDRIFT_VL_PASSWORD";
/// Environment variable of the Bearer token.
pub const ENV_BEARER: &str = "KDRIFT_VL_BEARER_TOKEN";
/// Environment variable of extra headers, one `Name: value` per line.
pub const ENV_HEADERS: &str = "KDRIFT_VL_HEADERS";

/// The environment variables a source reads its credentials from
/// (`VL_ENV` for VictoriaLogs; `kdrift ingest prometheus` has its own).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EnvNames {
    /// Basic auth user.
    pub user: &'static str,
    /// Basic auth password.
    pub password: &'static str,
    /// Bearer token.
    pub bearer: &'static str,
    /// Extra headers, one `Name: value` per line.
    pub headers: &'static str,
}

/// VictoriaLogs' credential variables (`KDRIFT_VL_*`).
pub const VL_ENV: EnvNames =
    EnvNames { user: ENV_USER, password: ENV_PASSWORD, bearer: ENV_BEARER, headers: ENV_HEADERS };

/// A credential. No `Display`; `Debug` prints `***`.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// Wraps a secret value.
    pub fn new(value: impl Into<String>) -> Secret {
        Secret(value.into())
    }

    /// The value, for the request only.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("***")
    }
}

/// The `AccountID`/`ProjectID` tenant (VictoriaLogs' default is 0/0).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tenant {
    /// `AccountID` header, when set.
    pub account_id: Option<u32>,
    /// `ProjectID` header, when set.
    pub project_id: Option<u32>,
}

/// How requests authenticate.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Auth {
    /// Basic auth user and password.
    pub basic: Option<(String, Secret)>,
    /// Bearer token.
    pub bearer: Option<Secret>,
    /// Extra headers (name, value); values are treated as secrets.
    pub headers: Vec<(String, Secret)>,
    /// Tenant headers.
    pub tenant: Tenant,
}

impl Auth {
    /// The [`Redactor`] of every credential value kdrift sends: the
    /// password, `user:password` (as Basic auth encodes it), the bearer
    /// token and the extra headers' values, in every form the redactor
    /// knows (raw, base64, URL-encoded, JSON-escaped…). A proxy that echoes
    /// the request's headers in any answer must not make kdrift print or
    /// store them.
    pub fn redactor(&self) -> Redactor {
        let values = self.secret_values();
        // Also for the sinks no redactor reaches (kdrift's stderr, logs).
        kdrift_rebalance::hold(values.iter().cloned());
        Redactor::new(values.iter().map(String::as_str))
    }

    /// The credential values of [`Auth::redactor`]: every header value
    /// sent with a credential as it goes on the wire (`Basic <base64>`,
    /// `Bearer <token>`), its base64 alone, `user:password`, the password,
    /// the token and the extra headers' values. Each is also masked in
    /// its other forms (hex, base64, URL, JSON), so a proxy echoing the
    /// hex or base64 of the whole `Authorization` header is masked too
    /// (break-it, issue 34).
    pub fn secret_values(&self) -> Vec<String> {
        use base64::Engine as _;
        let mut values: Vec<String> = Vec::new();
        if let Some((user, password)) = &self.basic {
            if !password.expose().is_empty() {
                let pair = format!("{user}:{}", password.expose());
                let encoded = base64::engine::general_purpose::STANDARD.encode(pair.as_bytes());
                values.push(format!("Basic {encoded}"));
                values.push(encoded);
                values.push(pair);
                values.push(password.expose().to_string());
            }
        }
        if let Some(token) = &self.bearer {
            values.push(format!("Bearer {}", token.expose()));
            values.push(token.expose().to_string());
        }
        values.extend(self.headers.iter().map(|(_, v)| v.expose().to_string()));
        values
    }

    /// `text` (a server's whole answer) with every credential value kdrift
    /// sends replaced by `***` ([`Auth::redactor`]).
    pub fn redact(&self, text: &str) -> String {
        self.redactor().redact(text)
    }
}

/// Where the credentials are: the non-secret parts given on the command
/// line, and the files holding the secret ones.
#[derive(Debug, Clone, Default)]
pub struct CredentialSources {
    /// Basic auth user (else `KDRIFT_VL_USER`).
    pub user: Option<String>,
    /// File holding the Basic auth password (else `KDRIFT_VL_PASSWORD`).
    pub password_file: Option<PathBuf>,
    /// File holding the Bearer token (else `KDRIFT_VL_BEARER_TOKEN`).
    pub bearer_token_file: Option<PathBuf>,
    /// File of extra headers, `Name: value` per line (else `KDRIFT_VL_HEADERS`).
    pub headers_file: Option<PathBuf>,
    /// Tenant headers.
    pub tenant: Tenant,
}

/// The text of a credential file, at most
/// [`kdrift_rebalance::MAX_SECRET_FILE_BYTES`] of it.
fn read_secret_file(path: &Path, what: &str) -> Result<String, VlError> {
    kdrift_rebalance::read_capped_text(path, kdrift_rebalance::MAX_SECRET_FILE_BYTES, &format!("{what} file"))
        .map_err(|e| VlError::Credentials(format!("cannot read the {what} file {}: {e}", path.display())))
}

/// The one-line secret (a password, a bearer token) of a file's text, as
/// `kubectl`'s `tokenFile` and Prometheus' `password_file` read one: a
/// leading UTF-8 byte-order mark and the line break(s) ending the file
/// are not part of it, nor are spaces or tabs around it (said once on
/// stderr, never the value: a password that really has them cannot come
/// from a file). Text on a later line is refused, naming the file and the
/// line (break-it 41 G13: `pw\nsecond` was sent whole, a BOM and spaces
/// too); a control character in it is refused by [`header_safe`].
fn one_line_secret(text: &str, path: &Path, what: &str) -> Result<String, VlError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.split('\n').map(|line| line.strip_suffix('\r').unwrap_or(line));
    let first = lines.next().unwrap_or_default();
    if let Some(extra) = lines.position(|line| !line.trim().is_empty()) {
        return Err(VlError::Credentials(format!(
            "the {what} file {} line {}: a second line of text; expected the {what} alone on the first line (a \
             line break after it is fine; the lines are not shown: they may be credentials)",
            path.display(),
            extra + 2
        )));
    }
    let value = first.trim_matches([' ', '\t']);
    if value.len() != first.len() {
        let warning = format!(
            "the {what} file {} line 1 has spaces or tabs before or after the value; kdrift does not send them \
             (as kubectl reads a tokenFile and Prometheus a password_file)",
            path.display()
        );
        tracing::warn!(target: "kdrift::credentials", "{warning}");
    }
    Ok(value.to_string())
}

/// One secret from a file or an environment variable (not both), with
/// where it came from (`the file PATH`, or the variable's name).
fn one_of(
    file: Option<&Path>,
    env_name: &str,
    env: &dyn Fn(&str) -> Option<String>,
    what: &str,
) -> Result<Option<(String, String)>, VlError> {
    let from_env = env(env_name).filter(|v| !v.is_empty());
    match (file, from_env) {
        (Some(_), Some(_)) => {
            Err(VlError::Credentials(format!("the {what} is given both in a file and in {env_name}; keep one")))
        }
        (Some(path), None) => one_line_secret(&read_secret_file(path, what)?, path, what)
            .map(|v| Some((v, format!("the file {}", path.display())))),
        (None, v) => Ok(v.map(|v| (v, env_name.to_string()))),
    }
}

/// Checks that `value` (the `what` from `origin`) can go in an HTTP
/// header: no control character but tab (DEL, a line break, NUL), as
/// `http`'s `HeaderValue` takes it. Named by the character and its place,
/// never quoted (break-it 34: a token file holding DEL failed every
/// request with reqwest's `builder error`, naming no file, four times).
fn header_safe(value: &str, what: &str, origin: &str) -> Result<(), VlError> {
    let Some((i, c)) = value.chars().enumerate().find(|(_, c)| c.is_control() && *c != '\t') else { return Ok(()) };
    Err(VlError::Credentials(format!(
        "the {what} from {origin} holds the control character {} (U+{:04X}) at character {} of {}, which an HTTP \
         header cannot carry; expected printable characters on one line (the value is not shown: it is a credential)",
        kdrift_rebalance::visible(&c.to_string()),
        c as u32,
        i + 1,
        value.chars().count()
    )))
}

/// Parses `Name: value` lines (blank lines and `#` comments skipped).
fn parse_headers(text: &str, origin: &str) -> Result<Vec<(String, Secret)>, VlError> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let Some((name, value)) = line.split_once(':') else {
            return Err(VlError::Credentials(format!("{origin} line {}: expected `Name: value`", i + 1)));
        };
        let name = name.trim();
        // Never quoted: a line that is not `Name: value` (`X-Key=secret:…`,
        // a pasted token) has its value in what precedes the `:`.
        if name.is_empty() {
            return Err(VlError::Credentials(format!(
                "{origin} line {}: no header name before the `:` (the line is not shown: it may hold a credential)",
                i + 1
            )));
        }
        if let Some(at) = name.chars().position(|c| !(c.is_ascii_alphanumeric() || c == '-' || c == '_')) {
            return Err(VlError::Credentials(format!(
                "{origin} line {}: the header name (before the first `:`) may only have letters, digits, `-` and \
                 `_`, and character {} is not one; write `Name: value` (the line is not shown: it may hold a \
                 credential)",
                i + 1,
                at + 1
            )));
        }
        if let Some(framing) = FRAMING_HEADERS.iter().find(|h| h.eq_ignore_ascii_case(name)) {
            return Err(VlError::Credentials(format!(
                "{origin} line {}: the header {framing} frames or routes the request (a hop-by-hop or framing \
                 header, RFC 9110 §7.6.1 and RFC 9112 §6): kdrift's HTTP client sets it itself, and a given one \
                 would cut the request's body or send it elsewhere; remove the line",
                i + 1
            )));
        }
        out.push((name.to_string(), Secret::new(value.trim())));
    }
    Ok(out)
}

/// Header names an extra-headers line may not set (case-insensitive): the
/// ones that frame a message or route it, hop by hop (RFC 9112 §6:
/// `Content-Length`, `Transfer-Encoding`; RFC 9110 §7.2 `Host`, §7.6.1
/// `Connection` and the hop-by-hop fields, §7.8 `Upgrade`, §10.1.4 `TE`,
/// §6.6.2 `Trailer`; `Keep-Alive` and `Proxy-Connection` from HTTP/1.0).
/// Break-it 41 G10: `Content-Length: 5` cut every request body to
/// `query`, `Host: evil.example` was sent as given.
const FRAMING_HEADERS: [&str; 9] = [
    "Content-Length",
    "Transfer-Encoding",
    "Host",
    "Connection",
    "Upgrade",
    "TE",
    "Trailer",
    "Keep-Alive",
    "Proxy-Connection",
];

impl Auth {
    /// Reads the credentials from `sources` and the environment (`env`
    /// looks a variable up; the CLI passes the process environment).
    ///
    /// # Errors
    /// [`VlError::Credentials`] when a file cannot be read, a secret is given
    /// twice, a password has no user, or both Basic and Bearer are set.
    pub fn load(sources: &CredentialSources, env: &dyn Fn(&str) -> Option<String>) -> Result<Auth, VlError> {
        Auth::load_named(sources, env, &VL_ENV)
    }

    /// [`Auth::load`] from the variables `names` (another source's).
    ///
    /// # Errors
    /// As [`Auth::load`].
    pub fn load_named(
        sources: &CredentialSources,
        env: &dyn Fn(&str) -> Option<String>,
        names: &EnvNames,
    ) -> Result<Auth, VlError> {
        let (env_user, env_headers) = (names.user, names.headers);
        let user = sources.user.clone().or_else(|| env(env_user)).filter(|u| !u.is_empty());
        let password = one_of(sources.password_file.as_deref(), names.password, env, "password")?;
        let bearer = one_of(sources.bearer_token_file.as_deref(), names.bearer, env, "bearer token")?;
        if let Some((token, origin)) = &bearer {
            header_safe(token, "bearer token", origin)?;
        }
        // Sent base64-encoded, yet a control character in a password is a
        // paste gone wrong (a line break, an escape), as in a token.
        if let Some((password, origin)) = &password {
            header_safe(password, "password", origin)?;
        }
        // A credential that is a word or short masks ordinary text wherever
        // kdrift shows or stores it: said once, never the value (break-it 34).
        for (value, what) in [(&password, "password"), (&bearer, "bearer token")] {
            if let Some((value, origin)) = value {
                kdrift_rebalance::warn_if_ordinary(&format!("the {what} from {origin}"), value);
            }
        }
        let password = password.map(|(v, _)| v);
        let bearer = bearer.map(|(v, _)| v);
        let basic = match (user, password) {
            (Some(u), Some(p)) => Some((u, Secret::new(p))),
            (Some(u), None) => Some((u, Secret::new(""))),
            (None, Some(_)) => {
                return Err(VlError::Credentials(format!(
                    "a password is set but no user; pass --user NAME or set {env_user}"
                )))
            }
            (None, None) => None,
        };
        if basic.is_some() && bearer.is_some() {
            return Err(VlError::Credentials(
                "both Basic (user/password) and Bearer credentials are set; a request carries one Authorization header"
                    .into(),
            ));
        }
        let (headers, origin) = match &sources.headers_file {
            Some(path) => {
                if env(env_headers).is_some_and(|v| !v.is_empty()) {
                    return Err(VlError::Credentials(format!(
                        "extra headers are given both in {} and in {env_headers}; keep one",
                        path.display()
                    )));
                }
                // `the headers file PATH line N`: a bare PATH or variable name
                // right after `credentials: ` reads as the value of a
                // credential, and stderr's masking hid it (break-it 41 G10).
                let lines = format!("the headers file {}", path.display());
                (parse_headers(&read_secret_file(path, "headers")?, &lines)?, format!("the file {}", path.display()))
            }
            None => (
                parse_headers(&env(env_headers).unwrap_or_default(), &format!("the variable {env_headers}"))?,
                env_headers.to_string(),
            ),
        };
        for (name, value) in &headers {
            header_safe(value.expose(), &format!("value of header {name}"), &origin)?;
            kdrift_rebalance::warn_if_ordinary(&format!("the value of header {name} from {origin}"), value.expose());
        }
        Ok(Auth { basic, bearer: bearer.map(Secret::new), headers, tenant: sources.tenant })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env_of(pairs: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
        move |k| pairs.iter().find(|(n, _)| *n == k).map(|(_, v)| v.to_string())
    }

    #[test]
    fn secrets_from_env_and_files_never_in_debug() {
        let dir = tempfile::tempdir().expect("tmp");
        let pw = dir.path().join("pw");
        std::fs::write(&pw, "s3cr3t-pw\n").expect("write");
        let sources = CredentialSources { user: Some("kdrift".into()), password_file: Some(pw), ..Default::default() };
        let auth = Auth::load(&sources, &env_of(&[("KDRIFT_VL_HEADERS", "X-Scope: team-a\n# c\n")])).expect("auth");
        let (user, password) = auth.basic.clone().expect("basic");
        assert_eq!((user.as_str(), password.expose()), ("kdrift", "s3cr3t-pw"));
        assert_eq!(auth.headers[0].0, "X-Scope");
        let debug = format!("{auth:?}");
        assert!(!debug.contains("s3cr3t") && !debug.contains("team-a"), "{debug}");
    }

    #[test]
    fn contradictions_are_errors() {
        let none = CredentialSources::default();
        let e = Auth::load(&none, &env_of(&[("KDRIFT_VL_PASSWORD", "x")])).expect_err("no user");
        assert!(e.to_string().contains("no user"), "{e}");
        let e =
            Auth::load(&none, &env_of(&[("KDRIFT_VL_USER", "u"), ("KDRIFT_VL_BEARER_TOKEN", "t")])).expect_err("both");
        assert!(e.to_string().contains("both Basic"), "{e}");
        let e = Auth::load(&none, &env_of(&[("KDRIFT_VL_HEADERS", "no colon here")])).expect_err("bad header");
        assert!(e.to_string().contains("expected `Name: value`"), "{e}");
        // A value pasted where the name goes: named by its line and position, never quoted.
        let e = Auth::load(&none, &env_of(&[("KDRIFT_VL_HEADERS", "X-Scope: a\nX-Api-Key=ak/live+5e4d:3c2b\n")]))
            .expect_err("bad name");
        assert_eq!(
            e.to_string(),
            "credentials: the variable KDRIFT_VL_HEADERS line 2: the header name (before the first `:`) may only have letters, \
             digits, `-` and `_`, and character 10 is not one; write `Name: value` (the line is not shown: it may \
             hold a credential)"
        );
        let e = Auth::load(&none, &env_of(&[("KDRIFT_VL_HEADERS", ": ak/live+5e4d3c2b")])).expect_err("no name");
        assert!(!e.to_string().contains("5e4d3c2b") && e.to_string().contains("line 1: no header name"), "{e}");
        let missing = CredentialSources { bearer_token_file: Some("/nonexistent/token".into()), ..Default::default() };
        let e = Auth::load(&missing, &env_of(&[])).expect_err("missing file");
        assert!(e.to_string().contains("/nonexistent/token"), "{e}");
    }

    #[test]
    fn framing_and_hop_by_hop_headers_are_refused_naming_the_line_and_the_header() {
        // Break-it 41 G10: `Content-Length: 5` cut every body to `query`; `Host:` was sent as given.
        let none = CredentialSources::default();
        for (name, shown) in [
            ("Content-Length", "Content-Length"),
            ("content-length", "Content-Length"),
            ("HOST", "Host"),
            ("Transfer-Encoding", "Transfer-Encoding"),
            ("Connection", "Connection"),
            ("Upgrade", "Upgrade"),
            ("te", "TE"),
            ("Trailer", "Trailer"),
            ("Keep-Alive", "Keep-Alive"),
            ("Proxy-Connection", "Proxy-Connection"),
        ] {
            let text = format!("X-Api-Key: ak-live-5e4d3c2b\n# comment\n{name}: 5\n");
            let e = Auth::load(&none, &|k: &str| (k == "KDRIFT_VL_HEADERS").then(|| text.clone()))
                .expect_err("framing header");
            assert_eq!(
                e.to_string(),
                format!(
                    "credentials: the variable KDRIFT_VL_HEADERS line 3: the header {shown} frames or routes the request (a \
                     hop-by-hop or framing header, RFC 9110 §7.6.1 and RFC 9112 §6): kdrift's HTTP client sets \
                     it itself, and a given one would cut the request's body or send it elsewhere; remove the line"
                )
            );
        }
        let dir = tempfile::tempdir().expect("tmp");
        let file = dir.path().join("headers");
        std::fs::write(&file, "X-Scope: a\nHost: evil.example\n").expect("write");
        let sources = CredentialSources { headers_file: Some(file.clone()), ..Default::default() };
        let e = Auth::load(&sources, &env_of(&[])).expect_err("Host");
        assert!(
            e.to_string()
                .starts_with(&format!("credentials: the headers file {} line 2: the header Host ", file.display())),
            "{e}"
        );
        // Names that merely start like one are headers like any other.
        let auth = Auth::load(&none, &env_of(&[("KDRIFT_VL_HEADERS", "Hostname: a\nTE-Extra: b\nX-Host: c\n")]))
            .expect("ordinary headers");
        assert_eq!(
            auth.headers.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>(),
            ["Hostname", "TE-Extra", "X-Host"]
        );
    }

    #[test]
    fn a_token_or_header_value_an_http_header_cannot_carry_is_refused_naming_where_it_came_from() {
        // Break-it 34: a token file holding DEL failed each request with
        // reqwest's "builder error: failed to parse header value", naming no
        // file, after four attempts.
        let dir = tempfile::tempdir().expect("tmp");
        let token = dir.path().join("token");
        std::fs::write(&token, "tok\x7fen-9f8e7d6c\n").expect("write");
        let sources = CredentialSources { bearer_token_file: Some(token.clone()), ..Default::default() };
        let e = Auth::load(&sources, &env_of(&[])).expect_err("DEL");
        assert_eq!(
            e.to_string(),
            format!(
                "credentials: the bearer token from the file {} holds the control character \\x7f (U+007F) at \
                 character 4 of 15, which an HTTP header cannot carry; expected printable characters on one line \
                 (the value is not shown: it is a credential)",
                token.display()
            )
        );
        let e = Auth::load(&CredentialSources::default(), &env_of(&[("KDRIFT_VL_HEADERS", "X-Key: ab\u{1b}cdef\n")]))
            .expect_err("ESC");
        assert!(
            e.to_string().starts_with(
                "credentials: the value of header X-Key from KDRIFT_VL_HEADERS holds the control character \\e \
                 (U+001B) at character 3 of 7"
            ),
            "{e}"
        );
        assert!(!e.to_string().contains("cdef"), "{e}");
    }

    #[test]
    fn a_password_or_token_file_is_its_first_line_without_bom_line_break_or_surrounding_spaces() {
        // Break-it 41 G13: a second line, a UTF-8 BOM and surrounding spaces were sent.
        let dir = tempfile::tempdir().expect("tmp");
        let file = dir.path().join("secret");
        let password = |text: &str| {
            std::fs::write(&file, text).expect("write");
            let sources =
                CredentialSources { user: Some("kd".into()), password_file: Some(file.clone()), ..Default::default() };
            Auth::load(&sources, &env_of(&[])).map(|a| a.basic.expect("basic").1.expose().to_string())
        };
        for kept in [
            "PwFileSecret12345abc",
            "PwFileSecret12345abc\n",
            "PwFileSecret12345abc\r\n",
            "\u{feff}PwFileSecret12345abc\n",
            "  PwFileSecret12345abc\t\n",
            "PwFileSecret12345abc\n\n  \r\n",
        ] {
            assert_eq!(password(kept).expect(kept), "PwFileSecret12345abc", "{kept:?}");
        }
        // Inner spaces are the password's.
        assert_eq!(password("pass phrase 42\n").expect("phrase"), "pass phrase 42");
        let shown = |e: VlError| e.to_string();
        assert_eq!(
            shown(password("PwFileSecret12345abc\nsecondLineSecret999888\n").expect_err("two lines")),
            format!(
                "credentials: the password file {} line 2: a second line of text; expected the password alone on \
                 the first line (a line break after it is fine; the lines are not shown: they may be credentials)",
                file.display()
            )
        );
        let e = shown(password("\n\nPwFileSecret12345abc\n").expect_err("on line 3"));
        assert!(e.contains(" line 3: a second line of text") && !e.contains("PwFile"), "{e}");
        let e = shown(password("PwFile\x1bSecret12345abc\n").expect_err("ESC"));
        assert_eq!(
            e,
            format!(
                "credentials: the password from the file {} holds the control character \\e (U+001B) at character \
                 7 of 21, which an HTTP header cannot carry; expected printable characters on one line (the value \
                 is not shown: it is a credential)",
                file.display()
            )
        );
        let e = shown(password("PwFile\rSecret\n").expect_err("CR inside"));
        assert!(e.contains("the control character \\r (U+000D) at character 7 of 13"), "{e}");
        // A bearer token file reads the same way.
        std::fs::write(&file, "\u{feff} tok9Hf3Jd8Ks2Lm5 \r\n").expect("write");
        let sources = CredentialSources { bearer_token_file: Some(file.clone()), ..Default::default() };
        let auth = Auth::load(&sources, &env_of(&[])).expect("token");
        assert_eq!(auth.bearer.expect("bearer").expose(), "tok9Hf3Jd8Ks2Lm5");
        std::fs::write(&file, "tok9Hf3Jd8Ks2Lm5\nx\n").expect("write");
        let e = Auth::load(&sources, &env_of(&[])).expect_err("two lines");
        assert!(e.to_string().contains(&format!("the bearer token file {} line 2: ", file.display())), "{e}");
    }

    #[test]
    fn an_endless_credential_file_stops_at_one_mebibyte() {
        // break-it 35 F18: `--password-file /dev/zero` grew to ~22 GB and was OOM-killed.
        let zero = || Some(std::path::PathBuf::from("/dev/zero"));
        for (sources, what) in [
            (CredentialSources { user: Some("u".into()), password_file: zero(), ..Default::default() }, "password"),
            (CredentialSources { bearer_token_file: zero(), ..Default::default() }, "bearer token"),
            (CredentialSources { headers_file: zero(), ..Default::default() }, "headers"),
        ] {
            let e = Auth::load(&sources, &env_of(&[])).expect_err("past the cap");
            assert_eq!(
                e.to_string(),
                format!(
                    "credentials: cannot read the {what} file /dev/zero: the {what} file /dev/zero holds more than \
                     1048576 bytes (1 MiB), the most kdrift reads of one: it is not read (is it the right file?)"
                )
            );
        }
    }

    #[test]
    fn a_server_echoing_the_request_headers_shows_no_credential() {
        // `u:PWs3cret` as Basic auth sends it: dTpQV3MzY3JldA==.
        let auth = Auth {
            basic: Some(("u".into(), Secret::new("PWs3cret"))),
            bearer: Some(Secret::new("BEARERs3cret")),
            headers: vec![("X-Key".into(), Secret::new("hdr-s3cret")), ("X-Short".into(), Secret::new("a"))],
            tenant: Tenant::default(),
        };
        let body = "your headers: {'authorization': 'Basic dTpQV3MzY3JldA==', 'x-key': 'hdr-s3cret', 'x-short': 'a', \
                    'bearer': 'BEARERs3cret', 'echo': 'PWs3cret'}";
        assert_eq!(
            auth.redact(body),
            "your headers: {'authorization': '***', 'x-key': '***', 'x-short': 'a', 'bearer': '***', \
             'echo': '***'}"
        );
    }
    /// Break-it 36 F17: pieces of 6–7 characters of a credential were
    /// readable in errors (the window found cut at both ends was 12). Any
    /// piece of 6+ characters of the Basic password or the bearer token is
    /// masked; 5 characters are shown.
    #[test]
    fn no_piece_of_six_characters_of_a_credential_survives_in_what_a_server_says() {
        const PASSWORD: &str = "Zq8Lp4Wm2Xk7";
        const TOKEN: &str = "tok9Hf3Jd8Ks2Lm5";
        let auth = |basic: bool| Auth {
            basic: basic.then(|| ("kd".into(), Secret::new(PASSWORD))),
            bearer: (!basic).then(|| Secret::new(TOKEN)),
            ..Auth::default()
        };
        for (secret, auth) in [(PASSWORD, auth(true)), (TOKEN, auth(false))] {
            let mut body = String::from("user kd; echoed:");
            for len in 6..secret.len() {
                for at in 0..=secret.len() - len {
                    body.push_str(&format!(" [{}]", &secret[at..at + len]));
                }
            }
            let shown = auth.redact(&body);
            for at in 0..=secret.len() - 6 {
                assert!(!shown.contains(&secret[at..at + 6]), "{}: {shown}", &secret[at..at + 6]);
            }
            assert!(shown.starts_with("user kd; echoed: [***] [***]"), "{shown}");
            assert_eq!(auth.redact(&format!("a [{}] b", &secret[3..8])), format!("a [{}] b", &secret[3..8]));
        }
    }
}
