//! Whether a credential leaked: the forms a hostile server (or a proxy's
//! debug page) may echo a credential in — raw, base64 padded or not,
//! URL-encoded, JSON- or `\u`-escaped, HTML-escaped — and the parts of it
//! a cut could leave (any 6 characters of a secret value, any 8 of its
//! base64), looked for in everything kdrift outputs and stores.

use std::path::Path;

use base64::Engine;
use kdrift_store::Store;

/// The credentials of a pull: Basic auth and one extra header.
#[derive(Debug, Clone)]
pub struct Secrets {
    /// Basic auth user (not a secret).
    pub user: &'static str,
    /// Basic auth password (`KDRIFT_VL_PASSWORD`).
    pub password: &'static str,
    /// The extra header's name (`KDRIFT_VL_HEADERS`).
    pub header_name: &'static str,
    /// Its value, an API key.
    pub header_value: &'static str,
}

/// Characters every encoding changes (`"`, `/`, `+`, `=`, `&`, `<`, `>`).
pub const HOSTILE: Secrets = Secrets {
    user: "kdrift",
    password: "Tq9\"vLx/3kP+wZ=8&mR<2>hY",
    header_name: "X-Api-Key",
    header_value: "ak/live+5e4d3c2b=1a0f9e8d",
};

/// `s` with every byte but ASCII letters and digits as `%XX` (upper-case hex).
pub fn url_encoded(s: &str) -> String {
    s.bytes().map(|b| if b.is_ascii_alphanumeric() { char::from(b).to_string() } else { format!("%{b:02X}") }).collect()
}

/// `s` inside a JSON string, `/` escaped as well (`\/`, as PHP writes it).
pub fn json_escaped(s: &str) -> String {
    let quoted = serde_json::to_string(s).unwrap_or_default();
    quoted[1..quoted.len() - 1].replace('/', "\\/")
}

/// `s` as base64 (standard alphabet, padded).
pub fn base64_of(s: &str) -> String {
    base64::engine::general_purpose::STANDARD.encode(s)
}

/// `s` as lower-case hex, as a proxy's dump of the request bytes shows it.
pub fn hex_of(s: &str) -> String {
    s.bytes().map(|b| format!("{b:02x}")).collect()
}

/// `s` with every character as `\uXXXX`.
pub fn unicode_escaped(s: &str) -> String {
    s.chars().map(|c| format!("\\u{:04x}", c as u32)).collect()
}

/// `s` HTML-escaped (`&amp;`, `&lt;`, `&gt;`, `&quot;`).
pub fn html_escaped(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

impl Secrets {
    /// `KDRIFT_VL_PASSWORD` and `KDRIFT_VL_HEADERS`.
    pub fn env(&self) -> [(&'static str, String); 2] {
        [
            ("KDRIFT_VL_PASSWORD", self.password.to_string()),
            ("KDRIFT_VL_HEADERS", format!("{}: {}", self.header_name, self.header_value)),
        ]
    }

    /// `user:password` as Basic auth sends it (base64, padded).
    pub fn basic(&self) -> String {
        base64::engine::general_purpose::STANDARD.encode(format!("{}:{}", self.user, self.password))
    }

    /// Every form and part that must never show: (what it is, text).
    pub fn forms(&self) -> Vec<(String, String)> {
        let basic = self.basic();
        let mut out = vec![
            ("the base64 credential".to_string(), basic.clone()),
            ("the unpadded base64 credential".into(), basic.trim_end_matches('=').to_string()),
            ("the URL-encoded base64 credential".into(), url_encoded(&basic)),
            ("the URL-encoded base64 credential (lower-case hex)".into(), url_encoded(&basic).to_lowercase()),
            ("the JSON-escaped base64 credential".into(), json_escaped(&basic)),
        ];
        for (name, value) in [("password", self.password), ("header value", self.header_value)] {
            out.push((format!("the {name}"), value.to_string()));
            out.push((format!("the URL-encoded {name}"), url_encoded(value)));
            out.push((format!("the JSON-escaped {name}"), json_escaped(value)));
            out.push((format!("the \\u-escaped {name}"), unicode_escaped(value)));
            out.push((format!("the HTML-escaped {name}"), html_escaped(value)));
            out.push((format!("the base64 {name}"), base64::engine::general_purpose::STANDARD.encode(value)));
            let chars: Vec<char> = value.chars().collect();
            out.extend(chars.windows(6).map(|w| (format!("6 characters of the {name}"), w.iter().collect())));
        }
        // Past the user's part (`kdrift:` is the first 9⅓ characters).
        let chars: Vec<char> = basic.chars().collect();
        out.extend(
            chars[10..].windows(8).map(|w| ("8 characters of the base64 credential".into(), w.iter().collect())),
        );
        out
    }

    /// Panics naming the form when any form of a credential is in `text`.
    pub fn assert_absent(&self, text: &str, place: &str) {
        for (what, form) in self.forms() {
            assert!(!text.contains(&form), "{what} ({form}) leaked into {place}:\n{text}");
        }
    }
}

/// Every `ingest_errors` message of the store at `db` (none when it does not exist).
///
/// # Panics
/// When the store cannot be opened or queried.
pub fn ingest_errors(db: &Path) -> Vec<String> {
    if !db.exists() {
        return Vec::new();
    }
    let store = Store::open_existing(db).expect("store");
    let mut stmt = store.conn().prepare("SELECT message FROM ingest_errors ORDER BY run_id, message").expect("prepare");
    let rows = stmt.query_map([], |r| r.get::<_, String>(0)).expect("query");
    rows.map(|r| r.expect("row")).collect()
}

impl Secrets {
    /// The `user:` of a kubeconfig holding these credentials: the header
    /// value as a bearer token, or (`basic`) the Basic user and password.
    pub fn kube_user(&self, basic: bool) -> String {
        if basic {
            format!("    username: {}\n    password: '{}'\n", self.user, self.password)
        } else {
            format!("    token: '{}'\n", self.header_value)
        }
    }

    /// [`Secrets::assert_absent`], and the base64 of the `Authorization`
    /// header values a kubeconfig user of [`Secrets::kube_user`] sends
    /// (`Bearer …`, `Basic …`), padded or not.
    pub fn assert_absent_from_kube(&self, text: &str, place: &str) {
        self.assert_absent(text, place);
        for header in [format!("Bearer {}", self.header_value), format!("Basic {}", self.basic())] {
            let b64 = base64::engine::general_purpose::STANDARD.encode(&header);
            let unpadded = b64.trim_end_matches('=');
            assert!(!text.contains(unpadded), "the base64 of `Authorization: {header}` leaked into {place}:\n{text}");
        }
    }
}

/// Every row of every table of the store at `db`, one JSON object a line
/// (empty when it does not exist): what a credential must not be in.
///
/// # Panics
/// When the store cannot be opened or queried.
pub fn store_text(db: &Path) -> String {
    if !db.exists() {
        return String::new();
    }
    let store = Store::open_existing(db).expect("store");
    let conn = store.conn();
    let mut stmt = conn
        .prepare("SELECT table_name FROM information_schema.tables WHERE table_type = 'BASE TABLE' ORDER BY 1")
        .expect("prepare");
    let tables: Vec<String> =
        stmt.query_map([], |r| r.get::<_, String>(0)).expect("tables").map(|r| r.expect("row")).collect();
    let mut out = String::new();
    for table in tables {
        let sql = format!("SELECT CAST(to_json(t) AS VARCHAR) FROM \"{}\" t", table.replace('"', "\"\""));
        let mut stmt = conn.prepare(&sql).expect("prepare");
        for row in stmt.query_map([], |r| r.get::<_, String>(0)).expect("rows") {
            out.push_str(&table);
            out.push(' ');
            out.push_str(&row.expect("row"));
            out.push('\n');
        }
    }
    out
}
