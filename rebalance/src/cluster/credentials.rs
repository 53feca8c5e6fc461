//! The credentials of a resolved cluster configuration (kubeconfig or
//! in-cluster service account), so that what the API server says (an error
//! `Status` echoing the request's `Authorization` header, a proxy's page)
//! reaches no output or store with any form of them in it: every value is
//! [`hold`](crate::redact::hold)-ed when the configuration is resolved and
//! redacted by [`crate::redact::held`] ([`ClusterError`](super::ClusterError)
//! messages, kdrift's stderr and logs).
//!
//! Held: the bearer token and the token file's contents (read here once;
//! re-read and each new token held by [`super::exec::refresh`]), the
//! Basic password, `user:password` and the header values (`Bearer …`,
//! `Basic …`); the client key (`client-key-data` and
//! the PEM body of it or of the `client-key` file, line by line); an
//! auth-provider's tokens and secrets (`access-token`, `id-token`,
//! `refresh-token`, `client-secret`); an exec plugin's environment values
//! named like a secret (`*TOKEN*`, `*SECRET*`, `*PASSWORD*`, `*KEY*`,
//! `*PASSPHRASE*`, `PASS`, `DB_PWD`: [`crate::redact::secret_named`]).
//! An exec plugin's token or client key is held when kdrift runs the
//! plugin ([`super::exec`]), and again at each renewal.

use base64::Engine;
use kube::Config;
use serde_json::Value;

/// Every credential value of `config`, as the module doc lists them.
pub fn values(config: &Config) -> Vec<String> {
    // kube's AuthInfo serializes its secret strings in clear: one way to
    // read them all without secrecy's API.
    let auth = serde_json::to_value(&config.auth_info).unwrap_or_default();
    let field = |name: &str| auth.get(name).and_then(Value::as_str).map(str::to_string);
    let mut out = Vec::new();
    let mut token = |t: String| {
        let t = t.trim().to_string();
        if !t.is_empty() {
            out.push(format!("Bearer {t}"));
            out.push(t);
        }
    };
    if let Some(t) = field("token") {
        token(t);
    }
    if let Some(t) = field("tokenFile").and_then(|path| {
        super::capped_file::read_capped_text(path.as_ref(), super::capped_file::MAX_SECRET_FILE_BYTES, "token file")
            .ok()
    }) {
        token(t);
    }
    if let Some(password) = field("password") {
        let pair = format!("{}:{password}", field("username").unwrap_or_default());
        out.push(format!("Basic {}", base64::engine::general_purpose::STANDARD.encode(&pair)));
        out.push(pair);
        out.push(password);
    }
    if let Some(data) = field("client-key-data") {
        if let Ok(pem) = base64::engine::general_purpose::STANDARD.decode(data.trim()) {
            pem_body(&String::from_utf8_lossy(&pem), &mut out);
        }
        out.push(data);
    }
    if let Some(pem) = field("client-key").and_then(|path| {
        super::capped_file::read_capped_text(path.as_ref(), super::capped_file::MAX_SECRET_FILE_BYTES, "client key")
            .ok()
    }) {
        pem_body(&pem, &mut out);
    }
    if let Some(Value::Object(provider)) = auth.pointer("/auth-provider/config") {
        for (key, value) in provider {
            let key = key.to_ascii_lowercase();
            if key.contains("token") || key.contains("secret") {
                out.extend(value.as_str().map(str::to_string));
            }
        }
    }
    if let Some(Value::Array(env)) = auth.pointer("/exec/env") {
        for var in env {
            let raw = var.get("name").and_then(Value::as_str).unwrap_or_default();
            let name = raw.to_ascii_uppercase();
            if ["TOKEN", "SECRET", "PASSWORD", "KEY", "PASSPHRASE"].iter().any(|w| name.contains(w))
                || crate::redact::secret_named(raw)
            {
                out.extend(var.get("value").and_then(Value::as_str).map(str::to_string));
            }
        }
    }
    out.extend(config.headers.iter().filter_map(|(_, v)| v.to_str().ok().map(str::to_string)));
    url_secrets(&config.cluster_url.to_string(), &mut out);
    if let Some(proxy) = &config.proxy_url {
        url_secrets(&proxy.to_string(), &mut out);
    }
    out.retain(|v| !v.trim().is_empty());
    out
}

/// The credentials a URL may carry: its user info (`user:password`) and
/// password (`http://admin:PASSWORD@host`), its query values
/// (`?access_token=…`, 4+ characters) and a query's bare tokens (`?TOKEN`
/// without `=`, [`MIN_BARE_TOKEN`]+ characters, no `{name}` placeholder:
/// break-it 32 N3), for a kubeconfig's `server:` and `proxy-url:`, and a
/// rebalance probe's URL.
pub(crate) fn url_secrets(url: &str, out: &mut Vec<String>) {
    // The user info wherever it ends (break-it 43 N4: a password holding
    // `/` ended the authority inside it, and none of it was held).
    if let (_, Some(userinfo), _) = super::url_check::user_info(url) {
        out.push(userinfo.to_string());
        if let Some((_, password)) = userinfo.split_once(':') {
            out.push(password.to_string());
        }
    }
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let rest = super::url_check::user_info(rest).2;
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let path = rest[authority.len()..].split(['?', '#']).next().unwrap_or_default();
    for segment in path.split(['/', ';']) {
        path_secret(segment, out);
    }
    if let Some((_, query)) = rest.split_once('?') {
        let query = query.split('#').next().unwrap_or_default();
        for pair in query.split('&') {
            match pair.split_once('=') {
                Some((_, v)) if v.len() >= 4 => out.push(v.to_string()),
                None if pair.chars().count() >= MIN_BARE_TOKEN && !pair.contains('{') => out.push(pair.to_string()),
                _ => {}
            }
        }
    }
}

/// Shortest secret part of a URL path segment held as a credential
/// ([`path_secret`]), characters.
pub const MIN_PATH_SECRET: usize = 16;

/// A URL path segment that looks like a credential (break-it 34 L4: a
/// probe `…/bot123456:AAHdq…/getMe`, Telegram's bot token, was printed
/// whole): `id:secret` with a secret of [`MIN_PATH_SECRET`]+ characters
/// (the segment and the secret held), or a segment of 20+ characters of
/// letters and digits holding both upper- and lower-case letters and
/// digits (an API key in the path). `{name}` placeholders, names
/// (`web-0`, `default`) and paths (`api/v1`) are not.
fn path_secret(segment: &str, out: &mut Vec<String>) {
    let mixed = |s: &str| {
        s.chars().any(|c| c.is_ascii_uppercase())
            && s.chars().any(|c| c.is_ascii_lowercase())
            && s.chars().any(|c| c.is_ascii_digit())
    };
    if segment.contains('{') || segment.contains('=') {
        return;
    }
    if let Some((_, secret)) = segment.split_once(':') {
        if secret.chars().count() >= MIN_PATH_SECRET && mixed(secret) {
            out.push(segment.to_string());
            out.push(secret.to_string());
        }
        return;
    }
    let word = |c: char| c.is_ascii_alphanumeric() || "-_.~".contains(c);
    if segment.chars().count() >= 20 && segment.chars().all(word) && mixed(segment) {
        out.push(segment.to_string());
    }
}

/// Shortest bare query token (`?TOKEN`, no `=`) held as a credential,
/// characters: a shorter one (`?watch`, `?pretty`) is a flag.
pub const MIN_BARE_TOKEN: usize = 8;

/// A cluster URL as kdrift shows and stores it (run locations, errors):
/// scheme, host, port and path, without user info or query, which may
/// carry credentials.
pub fn shown_url(url: &str) -> String {
    // Without everything before the last `@` ahead of the query: a password
    // holding `/` (break-it 43 N4) is user info too.
    let (scheme, _, rest) = super::url_check::user_info(url);
    let end = rest.find(['?', '#']).unwrap_or(rest.len());
    let rest = &rest[..end];
    if scheme.is_empty() {
        rest.to_string()
    } else {
        format!("{scheme}://{rest}")
    }
}

/// The lines of a PEM's base64 body, the body joined, and the DER bytes
/// it decodes to as [`binary_values`](crate::redact::binary_values) (hex,
/// base64 at any alignment: break-it 33 F2 — a PKCS#1 key inside a
/// PKCS#8 one is a piece of it). Its lines may be split by literal `\n`
/// escapes (a key written as one YAML line: break-it 32 N2 held none of it).
pub(crate) fn pem_body(pem: &str, out: &mut Vec<String>) {
    let pem = pem.replace("\\r\\n", "\n").replace("\\n", "\n");
    let lines: Vec<&str> = pem.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with("-----")).collect();
    let body = lines.concat();
    if let Ok(der) = base64::engine::general_purpose::STANDARD.decode(&body) {
        out.extend(crate::redact::binary_values(&der));
        // Its private numbers in decimal (break-it 34 H2).
        out.extend(crate::redact::key_values(&der));
    }
    out.push(body);
    out.extend(lines.iter().map(|l| l.to_string()));
}

/// Holds [`values`]`(config)` for [`crate::redact::held`].
pub fn hold(config: &Config) {
    crate::redact::hold(values(config));
}

/// Warns once ([`crate::redact::warn_if_ordinary`]) when the kubeconfig
/// user's `token` or `password` is short, a word, a phrase or a name,
/// which masks ordinary text wherever kdrift shows or stores it, and names
/// both for the warning given when a stored record holds one; `user`
/// names the kubeconfig user (asked only when there is a token or a
/// password). Never the value.
pub fn warn_ordinary(config: &Config, user: impl FnOnce() -> String) {
    let auth = serde_json::to_value(&config.auth_info).unwrap_or_default();
    let fields: Vec<(&str, &str)> = ["token", "password"]
        .into_iter()
        .filter_map(|f| auth.get(f).and_then(Value::as_str).map(|v| (f, v.trim())))
        .filter(|(_, v)| !v.is_empty())
        .collect();
    if fields.is_empty() {
        return;
    }
    let user = user();
    for (field, value) in fields {
        crate::redact::warn_if_ordinary(&format!("the {field} of kubeconfig user {user}"), value);
    }
}

#[cfg(test)]
mod url_tests {
    use super::{shown_url, url_secrets};

    #[test]
    fn a_servers_user_info_and_query_are_held_and_never_shown() {
        let url = "http://admin:PaSsWoRdSeCrEt42@127.0.0.1:18081/api?access_token=sEcReTtOkEn1234#x";
        let mut held = Vec::new();
        url_secrets(url, &mut held);
        assert_eq!(held, ["admin:PaSsWoRdSeCrEt42", "PaSsWoRdSeCrEt42", "sEcReTtOkEn1234"]);
        assert_eq!(shown_url(url), "http://127.0.0.1:18081/api");
        assert_eq!(shown_url("https://10.0.0.1:6443/"), "https://10.0.0.1:6443/");
        let mut none = Vec::new();
        url_secrets("https://10.0.0.1:6443/", &mut none);
        assert!(none.is_empty(), "{none:?}");
        // Break-it 32 N3: a bare token (no `=`) is held; a short flag is not.
        let mut bare = Vec::new();
        url_secrets("http://127.0.0.1:50307/s?ProbeBareTok7Qz8Lp4Wm&pretty&n=1", &mut bare);
        assert_eq!(bare, ["ProbeBareTok7Qz8Lp4Wm"]);
    }

    /// Break-it 34 L4: a probe URL with a token in its path (Telegram's
    /// `bot<id>:<secret>`, an API key as a segment) was printed whole.
    #[test]
    fn a_token_in_a_urls_path_is_held_and_names_are_not() {
        let mut held = Vec::new();
        url_secrets("http://127.0.0.1:9/bot123456:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw/getMe", &mut held);
        assert_eq!(held, ["bot123456:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw", "AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw"]);
        let mut held = Vec::new();
        url_secrets("http://127.0.0.1:9/api/v1/PathTokQ7h3k9q2w8e5x1/status", &mut held);
        assert_eq!(held, ["PathTokQ7h3k9q2w8e5x1"]);
        for plain in [
            "http://{name}.web.{namespace}.svc:8080/sessions",
            "http://127.0.0.1:9/api/v1/namespaces/default/pods/web-7d9f8c6b5-x2x4q",
            "http://127.0.0.1:9/k8s/clusters/c-m-abc123xyz/apis/metrics.k8s.io",
            "http://127.0.0.1:9/x/urn:uuid:0a1b2c3d-4e5f-6071-8293-a4b5c6d7e8f9",
        ] {
            let mut none = Vec::new();
            url_secrets(plain, &mut none);
            assert!(none.is_empty(), "{plain}: {none:?}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::redact::Redactor;

    /// A [`Redactor`] of [`values`]`(config)`.
    fn redactor(config: &Config) -> Redactor {
        let values = values(config);
        Redactor::new(values.iter().map(String::as_str))
    }

    fn config(user: &str) -> Config {
        let text = format!(
            "apiVersion: v1\nkind: Config\ncurrent-context: c\nclusters:\n- name: c\n  cluster: {{server: 'http://127.0.0.1:1'}}\n\
             contexts:\n- name: c\n  context: {{cluster: c, user: u}}\nusers:\n- name: u\n  user:\n{user}"
        );
        let file: kube::config::Kubeconfig = serde_yaml::from_str(&text).expect("kubeconfig");
        let options = kube::config::KubeConfigOptions::default();
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime")
            .block_on(Config::from_custom_kubeconfig(file, &options))
            .expect("config")
    }

    #[test]
    fn a_token_basic_auth_a_token_file_and_provider_tokens_are_held() {
        let dir = tempfile::tempdir().expect("tmp");
        let token_file = dir.path().join("token");
        std::fs::write(&token_file, "file-token-0a1b2c3d\n").expect("write");
        let r = redactor(&config("    token: tok/3f9c+2b7e=11aa\n"));
        assert_eq!(r.redact("Authorization: Bearer tok%2F3f9c%2B2b7e%3D11aa"), "Authorization: ***");
        assert_eq!(r.redact("token=tok%2F3f9c%2B2b7e%3D11aa"), "token=***");
        assert_eq!(r.redact("h=QmVhcmVyIHRvay8zZjljKzJiN2U9MTFhYQ"), "h=***");
        let r = redactor(&config(&format!("    tokenFile: {}\n", token_file.display())));
        assert_eq!(r.redact("\"Bearer file-token-0a1b2c3d\""), "\"***\"");
        let r = redactor(&config("    username: kdrift\n    password: 'pa55\"w0rd/x'\n"));
        // base64 of `kdrift:pa55"w0rd/x`, and the password JSON-escaped.
        assert_eq!(r.redact("Basic a2RyaWZ0OnBhNTUidzByZC94 pw=\"pa55\\\"w0rd\\/x\""), "*** pw=\"***\"");
        assert_eq!(r.redact("kdrift is not secret"), "kdrift is not secret");
        let r = redactor(&config(
            "    auth-provider:\n      name: oidc\n      config: {id-token: idtok-77aa88bb, client-id: kdrift-app, \
             refresh-token: rtok-99cc00dd}\n",
        ));
        assert_eq!(r.redact("idtok-77aa88bb rtok-99cc00dd kdrift-app"), "*** *** kdrift-app");
    }

    #[test]
    fn a_client_key_pem_body_is_held_line_by_line() {
        let pem = "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIBkg4LVWM9nuwNSk3yByxZpYRTBnVJk5oDnUNxTqP\nAwEHoUQDQgAE\n-----END EC PRIVATE KEY-----\n";
        let data = base64::engine::general_purpose::STANDARD.encode(pem);
        let r = redactor(&config(&format!("    client-key-data: {data}\n")));
        assert_eq!(r.redact("key MHcCAQEEIBkg4LVWM9nuwNSk3yByxZpYRTBnVJk5oDnUNxTqP!"), "key ***!");
        assert_eq!(r.redact(&format!("data {data}")), "data ***");
        // Break-it 32 N2: the same key written with literal `\n` escapes.
        let data = base64::engine::general_purpose::STANDARD.encode(pem.replace('\n', "\\n"));
        let r = redactor(&config(&format!("    client-key-data: {data}\n")));
        assert_eq!(r.redact("key MHcCAQEEIBkg4LVWM9nuwNSk3yByxZpYRTBnVJk5oDnUNxTqP!"), "key ***!");
        assert_eq!(r.redact("key MHcCAQEEIBkg4LVWM9nuwNSk3yByxZpYRTBnVJk5oDnUNxTqPAwEHoUQDQgAE end"), "key *** end");
    }

    /// Break-it 33 F2: a server echoing the client key's DER bytes in hex,
    /// its base64 shifted by 1 or 2 bytes, or the PKCS#1 key inside the
    /// PKCS#8 one (at offset 26) had it stored and printed: only the PEM
    /// text was held. A 512-bit RSA key made for this test.
    #[test]
    fn a_client_keys_der_bytes_are_held_in_hex_and_in_base64_at_any_alignment() {
        use base64::engine::general_purpose::STANDARD;
        let pem = "-----BEGIN PRIVATE KEY-----\nMIIBVQIBADANBgkqhkiG9w0BAQEFAASCAT8wggE7AgEAAkEApmG8CBQab60wiRRm\nOPOuB7zFCwoALYv513v7e0j7njcBsaPT+CzsyFBErD7l9o9y4iHJlQkz3gHYo/U0\nnTQ0rQIDAQABAkAl17DmvXvNzrxtUUB2z6XTiLHgcuPbeCzZQA/Q2KayMz6wUiwh\nCuMbYnAhIbk21wImDhuD9wBKkmofC7Yfz8LBAiEA1ssmToRPEP27D2oaeiqe9CrR\nonM3qdgjYxaYC7H6JBkCIQDGTQGMreX2Vo+m5BBj0W5vLBgI3qh8+lDT/FjYnrwH\ntQIhAIp3G5KyKGZDqzsco0TuBNpSYCHhNJkBBI70GcAwU5jBAiBBy7E07Uo9BxGY\n7Vkm1YmP55B9+OrstN12yObt0RVQdQIhAI5pKc95YTxSRJml7J3+hV9MmnAa4oFI\nw20cIGdkdE6K\n-----END PRIVATE KEY-----\n";
        let body: String = pem.lines().filter(|l| !l.starts_with("-----")).collect();
        let der = STANDARD.decode(&body).expect("der");
        assert_eq!(der.len(), 345);
        let hex = |b: &[u8]| b.iter().map(|b| format!("{b:02x}")).collect::<String>();
        let config = config(&format!("    client-key-data: {}\n", STANDARD.encode(pem)));
        for r in [redactor(&config), Redactor::for_records(values(&config).iter().map(String::as_str))] {
            for (said, shown) in [
                (format!("dump {} end", hex(&der[100..140])), "dump *** end"),
                (format!("dump {} end", hex(&der[101..113]).to_uppercase()), "dump *** end"),
                (format!("b64 {} end", STANDARD.encode(&der[101..200])), "b64 *** end"),
                (format!("b64 {} end", STANDARD.encode(&der[102..200])), "b64 *** end"),
                (format!("pkcs1 {} end", STANDARD.encode(&der[26..])), "pkcs1 *** end"),
                (format!("rsa {} end", hex(&der[26..40])), "rsa *** end"),
                ("Back-off restarting failed container web".to_string(), "Back-off restarting failed container web"),
                ("sha 0123456789abcdef0123456789abcdef ok".to_string(), "sha 0123456789abcdef0123456789abcdef ok"),
            ] {
                assert_eq!(r.redact(&said), shown, "{said}");
            }
        }
    }

    /// Break-it 34 H2: the client key's private numbers as `openssl pkey
    /// -text` prints them (`privateExponent:` then 15 bytes a line, `:`
    /// between, indented) and as decimal integers were stored whole. The
    /// key of the test above; the decimals are its d, p and qinv.
    #[test]
    fn a_client_keys_private_numbers_are_held_as_openssl_blocks_and_in_decimal() {
        use base64::engine::general_purpose::STANDARD;
        let pem = "-----BEGIN PRIVATE KEY-----\nMIIBVQIBADANBgkqhkiG9w0BAQEFAASCAT8wggE7AgEAAkEApmG8CBQab60wiRRm\nOPOuB7zFCwoALYv513v7e0j7njcBsaPT+CzsyFBErD7l9o9y4iHJlQkz3gHYo/U0\nnTQ0rQIDAQABAkAl17DmvXvNzrxtUUB2z6XTiLHgcuPbeCzZQA/Q2KayMz6wUiwh\nCuMbYnAhIbk21wImDhuD9wBKkmofC7Yfz8LBAiEA1ssmToRPEP27D2oaeiqe9CrR\nonM3qdgjYxaYC7H6JBkCIQDGTQGMreX2Vo+m5BBj0W5vLBgI3qh8+lDT/FjYnrwH\ntQIhAIp3G5KyKGZDqzsco0TuBNpSYCHhNJkBBI70GcAwU5jBAiBBy7E07Uo9BxGY\n7Vkm1YmP55B9+OrstN12yObt0RVQdQIhAI5pKc95YTxSRJml7J3+hV9MmnAa4oFI\nw20cIGdkdE6K\n-----END PRIVATE KEY-----\n";
        let config = config(&format!("    client-key-data: {}\n", STANDARD.encode(pem)));
        const D_BLOCK: &str = "privateExponent:\n    25:d7:b0:e6:bd:7b:cd:ce:bc:6d:51:40:76:cf:a5:\n    d3:88:b1:e0:72:e3:db:78:2c:d9:40:0f:d0:d8:a6:\n    b2:33:3e:b0:52:2c:21:0a:e3:1b:62:70:21:21:b9:\n    36:d7:02:26:0e:1b:83:f7:00:4a:92:6a:1f:0b:b6:\n    1f:cf:c2:c1\nprime1:\n    00:d6:cb:26:4e:84:4f:10:fd:bb:0f:6a:1a:7a:2a:\n    9e:f4:2a:d1:a2:73:37:a9:d8:23:63:16:98:0b:b1:\n    fa:24:19\nprime2:";
        const D: &str = "1981974799983595714747451092076146668755228022592617522125569579917810738141509419693758562667890459319513608714648484362898423908266369975734748954215105";
        const P: &str = "97153883934139785728929398909078407730916236011807342106308659669571550716953";
        const QINV: &str = "64414232005717523727013527700458903173487825058912033231624496775960949182090";
        for r in [redactor(&config), Redactor::for_records(values(&config).iter().map(String::as_str))] {
            assert_eq!(r.redact(D_BLOCK), "privateExponent:\n    ***\nprime1:\n    ***\nprime2:");
            // One line of the block alone (15 bytes).
            assert_eq!(r.redact("x d3:88:b1:e0:72:e3:db:78:2c:d9:40:0f:d0:d8:a6: y"), "x ***: y");
            for (said, shown) in [
                (format!("d={D} end"), "d=*** end"),
                (format!("p {P}, qinv {QINV}"), "p ***, qinv ***"),
                (format!("cut {} end", &D[40..80]), "cut *** end"),
                ("exponent 65537, count 1981974799 ok".to_string(), "exponent 65537, count 1981974799 ok"),
            ] {
                assert_eq!(r.redact(&said), shown, "{said}");
            }
        }
    }

    /// Break-it 34 H2 follow-up: an EC client key's private scalar as
    /// `openssl pkey -text` prints it (`priv:` then 15 bytes a line) and in
    /// decimal (Python's `private_numbers().private_value`). Keys made with
    /// `openssl genpkey -algorithm EC` for this test (P-256 as PKCS#8 and as
    /// SEC1 `EC PRIVATE KEY`, P-384 as PKCS#8); the decimals are their scalars.
    #[test]
    fn an_ec_client_keys_private_scalar_is_held_as_openssl_block_and_in_decimal() {
        use base64::engine::general_purpose::STANDARD;
        const P256_PKCS8: &str = "-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgnfuHM719bSJcMsTw\ndTnGY3gmA9z3fEcnMphb/axn4lChRANCAAQhBNHU1CJ59BV3gZcv+eU04ZP1frpS\n54P9BJbTLHeby8o8g9B5eJi2zKhZt3nrEyLrtqGBaoSdqugrZY+h7jJN\n-----END PRIVATE KEY-----\n";
        const P256_SEC1: &str = "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIJ37hzO9fW0iXDLE8HU5xmN4JgPc93xHJzKYW/2sZ+JQoAoGCCqGSM49\nAwEHoUQDQgAEIQTR1NQiefQVd4GXL/nlNOGT9X66UueD/QSW0yx3m8vKPIPQeXiY\ntsyoWbd56xMi67ahgWqEnaroK2WPoe4yTQ==\n-----END EC PRIVATE KEY-----\n";
        const P384_PKCS8: &str = "-----BEGIN PRIVATE KEY-----\nMIG2AgEAMBAGByqGSM49AgEGBSuBBAAiBIGeMIGbAgEBBDCv51NoZTnutMbt1buP\nalzO0wK0LiPow69SDVFqVchkjh4eXli48HVluc26KCQCFS+hZANiAATrMx+CEZZQ\nQd7gNH7kKg4MNnEtncgHRXFNndCqVqWkE2nHBfzND9mpGN48Lw+NzQ2nqqKmMuNh\nAwLyTve6ekpuitrnvmZTk14jt+CnwJqvOWTlUv+FligYA0JNjByKtis=\n-----END PRIVATE KEY-----\n";
        const P256_PRIV: &str = "Private-Key: (256 bit)\npriv:\n    9d:fb:87:33:bd:7d:6d:22:5c:32:c4:f0:75:39:c6:\n    63:78:26:03:dc:f7:7c:47:27:32:98:5b:fd:ac:67:\n    e2:50\npub:";
        const P256_D: &str = "71457528971501914706833809418871642757232070827967029844368005810844867224144";
        const P384_PRIV: &str = "Private-Key: (384 bit)\npriv:\n    af:e7:53:68:65:39:ee:b4:c6:ed:d5:bb:8f:6a:5c:\n    ce:d3:02:b4:2e:23:e8:c3:af:52:0d:51:6a:55:c8:\n    64:8e:1e:1e:5e:58:b8:f0:75:65:b9:cd:ba:28:24:\n    02:15:2f\npub:";
        const P384_D: &str = "27074044474248783527369946261591389516746128018532813461409196396514271489936607465979315460897599991302773887079727";
        for (pem, block, d) in
            [(P256_PKCS8, P256_PRIV, P256_D), (P256_SEC1, P256_PRIV, P256_D), (P384_PKCS8, P384_PRIV, P384_D)]
        {
            let config = config(&format!("    client-key-data: {}\n", STANDARD.encode(pem)));
            for r in [redactor(&config), Redactor::for_records(values(&config).iter().map(String::as_str))] {
                let head = block.split("\npriv:").next().unwrap_or_default();
                assert_eq!(r.redact(block), format!("{head}\npriv:\n    ***\npub:"), "{pem}");
                for (said, shown) in [
                    (format!("d={d} end"), "d=*** end"),
                    (format!("private_value: {d}\n"), "private_value: ***\n"),
                    (format!("cut {} end", &d[20..50]), "cut *** end"),
                    ("bits 256, count 7145752897 ok".to_string(), "bits 256, count 7145752897 ok"),
                ] {
                    assert_eq!(r.redact(&said), shown, "{said}");
                }
            }
        }
        // The P-256 key's scalar read from either wrapping.
        let der = |pem: &str| STANDARD.decode(pem.lines().filter(|l| !l.starts_with("-----")).collect::<String>());
        let (pkcs8, sec1) = (der(P256_PKCS8).expect("der"), der(P256_SEC1).expect("der"));
        assert_eq!(crate::redact::key_values(&pkcs8), crate::redact::key_values(&sec1));
        assert_eq!(crate::redact::key_values(&pkcs8)[0].trim_start_matches('\u{1}'), P256_D);
    }
}

/// The environment variables naming the proxy reqwest sends the
/// VictoriaLogs and Prometheus requests through (its system proxy; the
/// API server's client reads `HTTPS_PROXY`/`https_proxy` itself).
pub const PROXY_VARIABLES: [&str; 6] =
    ["HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy"];

/// The credentials of the proxies the environment names
/// ([`PROXY_VARIABLES`], e.g. `HTTPS_PROXY=http://user:password@proxy:3128`):
/// `user:password` and the password, as written and percent-decoded (as
/// the proxy receives them in `Proxy-Authorization`), for the clients'
/// redactors (break-it 41 G1: a proxy's 407 page echoing the request
/// showed them raw on stderr and in the store). Empty when no variable
/// holds a password.
pub fn env_proxy_values() -> Vec<String> {
    let mut out = Vec::new();
    for name in PROXY_VARIABLES {
        let Ok(url) = std::env::var(name) else { continue };
        let mut found = Vec::new();
        url_secrets(&url, &mut found);
        for value in found {
            let decoded = percent_encoding::percent_decode_str(&value).decode_utf8_lossy().into_owned();
            if decoded != value {
                out.push(decoded);
            }
            out.push(value);
        }
    }
    out.retain(|v| !v.trim().is_empty());
    out.sort();
    out.dedup();
    out
}
