//! Connecting to a cluster the way kubectl does: an explicit kubeconfig file,
//! else `KUBECONFIG` / `~/.kube/config`, else (when running in a pod) the
//! in-cluster service account. `--context` picks a kubeconfig context.
//! Shared by `kdrift ingest api`, `kdrift record` and the rebalance executor.

use std::path::PathBuf;

use kube::config::{KubeConfigOptions, Kubeconfig, KubeconfigError};
use kube::{Client, Config};

use super::error::ClusterError;

/// Which cluster to talk to, as kubectl's `--kubeconfig` and `--context`
/// flags say.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClusterOptions {
    /// A kubeconfig file; `None`: `KUBECONFIG` (colon-separated files,
    /// merged), else `~/.kube/config`, else the in-cluster configuration.
    pub kubeconfig: Option<PathBuf>,
    /// A context of the kubeconfig; `None`: its `current-context`.
    pub context: Option<String>,
}

impl ClusterOptions {
    /// The client configuration these options select (callers may adjust
    /// timeouts or retries before building a client from it).
    ///
    /// # Errors
    /// [`ClusterError::Kubeconfig`] when the named or default kubeconfig
    /// cannot be read or lacks the context; [`ClusterError::NoConfiguration`]
    /// when there is no kubeconfig and no in-cluster service account;
    /// [`ClusterError::ExecPlugin`] when the user's exec credential plugin
    /// fails (kdrift runs it here, `super::exec::apply`);
    /// [`ClusterError::SocksCredentials`] when the proxy is `socks5://` with
    /// a user and password; [`ClusterError::BadToken`] and
    /// [`ClusterError::TokenFile`] when the token (or the `tokenFile`) cannot
    /// be sent.
    pub async fn config(&self) -> Result<Config, ClusterError> {
        let mut config = self.resolve().await?;
        // Before any request: every error and log line from here on is
        // redacted of these credentials.
        super::credentials::hold(&config);
        let server = config.cluster_url.to_string();
        if let Some(problem) = super::url_check::problem(&server) {
            let url = super::url_check::masked(&server);
            return Err(ClusterError::BadUrl { origin: self.server_origin(), url, problem });
        }
        if let Some(proxy) = config.proxy_url.as_ref().map(ToString::to_string) {
            if let Some(problem) = super::url_check::problem(&proxy) {
                let url = super::url_check::masked(&proxy);
                return Err(ClusterError::BadUrl { origin: self.proxy_origin(), url, problem });
            }
        }
        server_user_info(&mut config).map_err(|problem| ClusterError::BadUrl {
            origin: self.server_origin(),
            url: super::url_check::masked(&server),
            problem,
        })?;
        // The user info just made Basic credentials: `Basic …` held too.
        super::credentials::hold(&config);
        if let Some(proxy) = socks_with_credentials(&config) {
            return Err(ClusterError::SocksCredentials { origin: self.proxy_origin(), proxy });
        }
        if gcp_command(&config) {
            return Err(ClusterError::GcpCommand { user: self.user_name() });
        }
        super::credentials::warn_ordinary(&config, || self.user_name());
        if super::exec::uses_exec(&config) {
            super::exec::apply(&mut config, &self.user_name())?;
        }
        header_safe_token(&config).map_err(|problem| ClusterError::BadToken { user: self.user_name(), problem })?;
        super::exec::refresh::check_token_file(&config)?;
        Ok(config)
    }

    /// The kubeconfig user of the selected context, for messages
    /// (`(unnamed)` when the kubeconfig cannot say).
    fn user_name(&self) -> String {
        let file = match &self.kubeconfig {
            Some(path) => Kubeconfig::read_from(path),
            None => Kubeconfig::read(),
        };
        file.ok()
            .and_then(|k| {
                let name = self.context.clone().or(k.current_context.clone())?;
                k.contexts.iter().find(|c| c.name == name)?.context.as_ref()?.user.clone()
            })
            .unwrap_or_else(|| "(unnamed)".to_string())
    }

    /// The kubeconfig read (when it reads) with where it is, for messages,
    /// and the name of the selected context's cluster.
    fn selected_cluster(&self) -> (Option<Kubeconfig>, String, Option<String>) {
        let (file, location) = match &self.kubeconfig {
            Some(path) => (Kubeconfig::read_from(path), path.display().to_string()),
            None => (Kubeconfig::read(), default_location()),
        };
        let file = file.ok();
        let cluster = file.as_ref().and_then(|k| {
            let name = self.context.clone().or(k.current_context.clone())?;
            k.contexts.iter().find(|c| c.name == name)?.context.as_ref().map(|c| c.cluster.clone())
        });
        (file, location, cluster)
    }

    /// Where the server URL of the selected cluster was set, for messages:
    /// `the server of cluster NAME in kubeconfig FILE`.
    fn server_origin(&self) -> String {
        match self.selected_cluster() {
            (_, location, Some(name)) => format!("the server of cluster {name} in kubeconfig {location}"),
            (_, location, None) => format!("the server of the context's cluster in kubeconfig {location}"),
        }
    }

    /// Where the proxy of the selected cluster was set, for messages: the
    /// kubeconfig cluster's `proxy-url` (kube's first choice), else
    /// `HTTPS_PROXY`, else `https_proxy` (kube-client 5.0
    /// `ConfigLoader::proxy_url`). The cluster's name is not quoted: a
    /// kubeconfig's values may be credentials.
    fn proxy_origin(&self) -> String {
        let (file, location, cluster) = self.selected_cluster();
        let in_cluster = file.zip(cluster).and_then(|(k, cluster)| {
            let proxy = k.clusters.iter().find(|c| c.name == cluster)?.cluster.as_ref()?.proxy_url.clone()?;
            Some(proxy).filter(|p| !p.is_empty())
        });
        if in_cluster.is_some() {
            return format!("the proxy-url of the context's cluster in kubeconfig {location}");
        }
        if std::env::var("HTTPS_PROXY").is_ok_and(|v| !v.is_empty()) {
            "HTTPS_PROXY".to_string()
        } else {
            "https_proxy".to_string()
        }
    }

    async fn resolve(&self) -> Result<Config, ClusterError> {
        for path in self.files() {
            not_cut_utf16(&path)?;
            not_too_large(&path)?;
        }
        let options = KubeConfigOptions { context: self.context.clone(), ..KubeConfigOptions::default() };
        if let Some(path) = &self.kubeconfig {
            let file = Kubeconfig::read_from(path)
                .map_err(|source| ClusterError::Kubeconfig { location: path.display().to_string(), cause: source })?;
            return Config::from_custom_kubeconfig(file, &options).await.map_err(|source| ClusterError::Kubeconfig {
                location: path.display().to_string(),
                cause: self.unquoted(source),
            });
        }
        match Config::from_kubeconfig(&options).await {
            Ok(config) => Ok(config),
            // A context was asked for: only a kubeconfig can have it.
            Err(source) if self.context.is_some() => {
                Err(ClusterError::Kubeconfig { location: default_location(), cause: self.unquoted(source) })
            }
            Err(kubeconfig) => Config::incluster()
                .map_err(|in_cluster| ClusterError::NoConfiguration { kubeconfig, in_cluster: Box::new(in_cluster) }),
        }
    }

    /// `cause` with a context name read from the kubeconfig (its
    /// `current-context`) emptied, so that no message quotes it (break-it
    /// 40 F7: `current-context: <the token>` was printed as "failed to load
    /// current context: <the token>"); `--context`'s own value is kept.
    fn unquoted(&self, cause: KubeconfigError) -> KubeconfigError {
        match cause {
            KubeconfigError::LoadContext(name) if self.context.as_ref() != Some(&name) => {
                KubeconfigError::LoadContext(String::new())
            }
            other => other,
        }
    }

    /// The kubeconfig files kube reads for these options: the explicit
    /// one, else `KUBECONFIG`'s, else `~/.kube/config`.
    fn files(&self) -> Vec<PathBuf> {
        if let Some(path) = &self.kubeconfig {
            return vec![path.clone()];
        }
        let from_env: Vec<PathBuf> = std::env::var_os("KUBECONFIG")
            .map(|v| std::env::split_paths(&v).filter(|p| !p.as_os_str().is_empty()).collect())
            .unwrap_or_default();
        if !from_env.is_empty() {
            return from_env;
        }
        std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".kube").join("config")).into_iter().collect()
    }

    /// A client for the selected cluster, with its URL and default
    /// namespace (the context's, or the pod's in-cluster).
    ///
    /// # Errors
    /// As [`ClusterOptions::connect`].
    pub async fn open(&self) -> Result<Connected, ClusterError> {
        let config = self.config().await?;
        // Redacted of the credentials just held, as on stderr: a server
        // URL whose path holds the token was printed raw in the summary and
        // stored raw as the run's location (break-it 40 F7).
        let url = shown_cluster_url(&config);
        let default_namespace = config.default_namespace.clone();
        let client =
            super::redirect::client(config).map_err(|source| ClusterError::Client { url: url.clone(), source })?;
        Ok(Connected { client, url, default_namespace })
    }

    /// A client for the selected cluster.
    ///
    /// kube's default retry of 429/503/504 answers stays on; a caller for
    /// whom a 429 is an answer (an eviction refused by a
    /// PodDisruptionBudget) builds its client from [`ClusterOptions::config`]
    /// with `default_retry = false`.
    ///
    /// # Errors
    /// As [`ClusterOptions::config`], and [`ClusterError::Client`] when the
    /// client cannot be built (bad TLS material, unsupported auth).
    pub async fn connect(&self) -> Result<Client, ClusterError> {
        let config = self.config().await?;
        let url = shown_cluster_url(&config);
        super::redirect::client(config).map_err(|source| ClusterError::Client { url, source })
    }
}

/// The cluster URL as messages, summaries and the store show it: no
/// user-info or query ([`super::credentials::shown_url`]), every held
/// credential masked ([`crate::redact::held`]), no trailing `/`.
fn shown_cluster_url(config: &Config) -> String {
    let url = super::credentials::shown_url(&config.cluster_url.to_string());
    crate::redact::held().redact(&url).trim_end_matches('/').to_string()
}

/// Takes the user info out of `config`'s server URL (`http://admin:PASSWORD@host:6443`,
/// break-it 43 N4: kube kept it in the URL, and every run line, `-vv` span
/// and stored location showed the password). kubectl (Go's `net/http`
/// client) sends it as Basic auth when the request has no other
/// `Authorization`: so does kdrift when the kubeconfig user has no token,
/// token file, password, exec plugin or auth provider (the user name and
/// password percent-decoded, as Go's `url.User`); else it is dropped, as
/// kubectl's bearer token or Basic credentials win. The `Err` is the
/// reason the URL without it cannot be read.
fn server_user_info(config: &mut Config) -> Result<(), String> {
    let url = config.cluster_url.to_string();
    let (scheme, Some(info), rest) = super::url_check::user_info(&url) else { return Ok(()) };
    let without = format!("{scheme}://{rest}");
    config.cluster_url =
        without.parse::<http::Uri>().map_err(|e| format!("without its user info it is no URL ({e})"))?;
    let a = &config.auth_info;
    let other = a.token.is_some()
        || a.token_file.is_some()
        || a.username.is_some()
        || a.password.is_some()
        || a.exec.is_some()
        || a.auth_provider.is_some();
    if other {
        return Ok(());
    }
    let decoded = |s: &str| percent_encoding::percent_decode_str(s).decode_utf8_lossy().into_owned();
    let (user, password) = info.split_once(':').unwrap_or((info, ""));
    // kube's AuthInfo keeps its secret strings in a type of a crate kdrift
    // does not use: rewritten through its (clear-text) serialization.
    let mut auth = serde_json::to_value(&config.auth_info).unwrap_or_default();
    let Some(map) = auth.as_object_mut() else { return Err("(kube's user entry is not an object)".to_string()) };
    map.insert("username".into(), decoded(user).into());
    map.insert("password".into(), decoded(password).into());
    config.auth_info = serde_json::from_value(auth).map_err(|e| format!("(kube's user entry: {e})"))?;
    Ok(())
}

/// Whether the user's `auth-provider` is gcp running a command
/// (`cmd-path`): [`ClusterError::GcpCommand`].
fn gcp_command(config: &Config) -> bool {
    config.auth_info.auth_provider.as_ref().is_some_and(|p| {
        p.name.eq_ignore_ascii_case("gcp") && p.config.get("cmd-path").is_some_and(|c| !c.trim().is_empty())
    })
}

/// Refuses a bearer token an HTTP header cannot carry: a control character
/// other than tab (a stray line break pasted into `token:`, or in an exec
/// plugin's output) made tower-http panic at the first request. The reason
/// names the character and its position, never the token.
fn header_safe_token(config: &Config) -> Result<(), String> {
    let auth = serde_json::to_value(&config.auth_info).unwrap_or_default();
    let Some(token) = auth.get("token").and_then(serde_json::Value::as_str) else { return Ok(()) };
    token_problem(token).map_or(Ok(()), Err)
}

/// What makes `token` unfit for an `Authorization` header (a control
/// character other than tab, named with its position, never the token),
/// or `None`. Also checked on every token an exec plugin renews and every
/// re-read token file (`super::exec::refresh`).
pub(super) fn token_problem(token: &str) -> Option<String> {
    let (i, c) = token.chars().enumerate().find(|(_, c)| c.is_control() && *c != '\t')?;
    Some(format!(
        "holds the control character U+{:04X} at character {} of {}: an HTTP header cannot carry it (a stray line \
         break in the kubeconfig or in the exec plugin's output?)",
        c as u32,
        i + 1,
        token.chars().count()
    ))
}

/// The proxy of `config`, shown with its password masked
/// (`socks5://user:***@host:1080`), when it is a `socks5://` URL holding a
/// user (and password): kube's SOCKS5 connector (hyper-util's `SocksV5`,
/// built without `with_auth`) never sends them (break-it 40 F9).
fn socks_with_credentials(config: &Config) -> Option<String> {
    let proxy = config.proxy_url.as_ref()?;
    if !proxy.scheme_str().is_some_and(|s| s.eq_ignore_ascii_case("socks5")) {
        return None;
    }
    let authority = proxy.authority()?.as_str();
    let (user_info, host) = authority.rsplit_once('@')?;
    let user = match user_info.split_once(':') {
        Some((user, _)) => format!("{user}:{}", crate::redact::MASK),
        None => user_info.to_string(),
    };
    Some(crate::redact::mask_shown(&format!("socks5://{user}@{host}")))
}

/// A connected client and what it points at.
#[derive(Clone)]
pub struct Connected {
    /// The client.
    pub client: Client,
    /// The cluster URL, without a trailing `/` (`https://10.0.0.1:6443`).
    pub url: String,
    /// The namespace kubectl would use without `-n`.
    pub default_namespace: String,
}

impl std::fmt::Debug for Connected {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Connected").field("url", &self.url).field("default_namespace", &self.default_namespace).finish()
    }
}

/// An error naming `path` when it starts with a UTF-16 byte-order mark
/// and an odd number of bytes follow it: kube's reader (kube-client 5.0
/// `file_config::read_path`) panics on it (index out of bounds; break-it
/// 31: a UTF-8 kubeconfig with a stray `FF FE` in front). A file that
/// cannot be opened is left to kube, which names it.
fn not_cut_utf16(path: &std::path::Path) -> Result<(), ClusterError> {
    use std::io::Read;
    let Ok(mut file) = std::fs::File::open(path) else { return Ok(()) };
    let mut head = [0u8; 2];
    let len = file.metadata().map_or(0, |m| m.len());
    if file.read_exact(&mut head).is_err() || !matches!(head, [0xFF, 0xFE] | [0xFE, 0xFF]) || len % 2 == 0 {
        return Ok(());
    }
    let why = format!(
        "it starts with a UTF-16 byte-order mark ({:02X} {:02X}) but {} bytes follow, an odd number: it is not \
         UTF-16; save it as UTF-8",
        head[0],
        head[1],
        len - 2
    );
    Err(ClusterError::Kubeconfig {
        location: path.display().to_string(),
        cause: kube::config::KubeconfigError::ReadConfig(
            std::io::Error::new(std::io::ErrorKind::InvalidData, why),
            path.to_path_buf(),
        ),
    })
}

/// A kubeconfig past [`super::capped_file::MAX_KUBECONFIG_BYTES`] (16 MiB)
/// is refused before kube reads it whole (break-it 35 F18:
/// `--kubeconfig /dev/zero`); one that cannot be opened is left to kube's
/// own error.
fn not_too_large(path: &std::path::Path) -> Result<(), ClusterError> {
    use std::io::ErrorKind;
    match super::capped_file::read_capped(path, super::capped_file::MAX_KUBECONFIG_BYTES, "kubeconfig") {
        Err(e) if e.kind() == ErrorKind::InvalidData => Err(ClusterError::Kubeconfig {
            location: path.display().to_string(),
            cause: kube::config::KubeconfigError::ReadConfig(e, path.to_path_buf()),
        }),
        _ => Ok(()),
    }
}

/// Where kubectl would have looked, for messages.
fn default_location() -> String {
    match std::env::var("KUBECONFIG") {
        Ok(v) if !v.is_empty() => format!("KUBECONFIG={v}"),
        _ => "~/.kube/config".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &std::path::Path, text: &str) -> PathBuf {
        let p = dir.join("config");
        std::fs::write(&p, text).expect("write kubeconfig");
        p
    }

    const TWO_CONTEXTS: &str = "apiVersion: v1
kind: Config
current-context: a
clusters:
- name: a
  cluster: {server: 'http://127.0.0.1:1'}
- name: b
  cluster: {server: 'http://127.0.0.1:2'}
contexts:
- name: a
  context: {cluster: a, user: u, namespace: media}
- name: b
  context: {cluster: b, user: u}
users:
- name: u
  user: {token: t}
";

    fn block_on<F: std::future::Future>(f: F) -> F::Output {
        tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime").block_on(f)
    }

    #[test]
    fn explicit_kubeconfig_and_context_pick_the_server_and_namespace() {
        let dir = tempfile::tempdir().expect("tmp");
        let path = write(dir.path(), TWO_CONTEXTS);
        let opts = ClusterOptions { kubeconfig: Some(path.clone()), context: None };
        let c = block_on(opts.config()).expect("config");
        assert_eq!(c.cluster_url.to_string(), "http://127.0.0.1:1/");
        assert_eq!(c.default_namespace, "media");
        let opts = ClusterOptions { kubeconfig: Some(path), context: Some("b".into()) };
        let c = block_on(opts.config()).expect("config");
        assert_eq!(c.cluster_url.to_string(), "http://127.0.0.1:2/");
        assert_eq!(c.default_namespace, "default");
    }

    /// Break-it 31 F8: kube's YAML error quoted the lines around it, and a
    /// credential in a form the line masker did not know was shown. Each
    /// form, with the YAML error's kind, line and column kept exactly.
    #[test]
    fn a_kubeconfig_yaml_error_shows_its_kind_line_and_column_never_its_lines() {
        const SECRET: &str = "KcSecretZq81Lm02Xv77";
        let head = "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: http://127.0.0.1:1\n\
                    contexts:\n- name: c\n  context: {cluster: c, user: u}\ncurrent-context: c\nusers:\n- name: u\n  user:\n";
        let dir = tempfile::tempdir().expect("tmp");
        for (user, error) in [
            ("    password: |\n      KcSecretZq81Lm02Xv77\n    zz: *nope\n", "alias references unknown anchor at line 16, column 9"),
            ("    token: >-\n      KcSecretZq81Lm02Xv77\n    zz: *nope\n", "alias references unknown anchor at line 16, column 9"),
            ("    token:\n      KcSecretZq81Lm02Xv77\n    zz: *nope\n", "alias references unknown anchor at line 16, column 9"),
            ("    token: !!str KcSecretZq81Lm02Xv77\n    zz: *nope\n", "alias references unknown anchor at line 15, column 9"),
            ("    token: &a KcSecretZq81Lm02Xv77\n    password: *b\n", "alias references unknown anchor at line 15, column 15"),
            ("    token: {a: KcSecretZq81Lm02Xv77}\n", "expected string scalar at line 14, column 12"),
            ("    ? token\n    : KcSecretZq81Lm02Xv77\n    zz: *nope\n", "alias references unknown anchor at line 16, column 9"),
            (
                "    exec:\n      command: x\n      env: [{name: API_KEY, value: KcSecretZq81Lm02Xv77}]\n    zz: *nope\n",
                "alias references unknown anchor at line 17, column 9",
            ),
        ] {
            let path = write(dir.path(), &format!("{head}{user}"));
            let opts = ClusterOptions { kubeconfig: Some(path.clone()), context: None };
            let err = block_on(opts.config()).expect_err("broken YAML").to_string();
            assert_eq!(err, format!("kubeconfig {}: failed to parse kubeconfig YAML: {error}", path.display()), "{user}");
            assert!(!err.contains(SECRET), "{err}");
        }
    }

    /// Break-it 31 (low): a kubeconfig with a UTF-16 byte-order mark and an
    /// odd number of bytes after it panicked inside kube's reader.
    #[test]
    fn a_token_with_a_line_break_is_refused_naming_the_user_never_the_token() {
        let dir = tempfile::tempdir().expect("dir");
        let path = write(
            dir.path(),
            "apiVersion: v1\nkind: Config\ncurrent-context: c\nclusters:\n- name: k\n  cluster: {server: 'https://127.0.0.1:9'}\n\
             contexts:\n- name: c\n  context: {cluster: k, user: u}\nusers:\n- name: u\n  user: {token: \"Abc123Secret\\nTok9\"}\n",
        );
        let options = ClusterOptions { kubeconfig: Some(path), context: None };
        let err = block_on(options.config()).expect_err("refused").to_string();
        assert_eq!(
            err,
            "kubeconfig user u: the bearer token holds the control character U+000A at character 13 of 17: an HTTP \
             header cannot carry it (a stray line break in the kubeconfig or in the exec plugin's output?)"
        );
    }

    #[test]
    fn a_kubeconfig_with_a_utf16_mark_and_an_odd_length_is_an_error_naming_it() {
        let dir = tempfile::tempdir().expect("tmp");
        let path = dir.path().join("config");
        let mut bytes = vec![0xFF, 0xFE];
        bytes.extend_from_slice(b"apiVersion: v1\nkind: Config\n#");
        std::fs::write(&path, &bytes).expect("write");
        let opts = ClusterOptions { kubeconfig: Some(path.clone()), context: None };
        let err = block_on(opts.config()).expect_err("odd UTF-16").to_string();
        assert_eq!(
            err,
            format!(
                "kubeconfig {}: failed to read it: it starts with a UTF-16 byte-order mark \
                 (FF FE) but 29 bytes follow, an odd number: it is not UTF-16; save it as UTF-8",
                path.display()
            )
        );
        // An even length is kube's to read (here: not a kubeconfig, no panic).
        bytes.push(b'\n');
        std::fs::write(&path, &bytes).expect("write");
        assert!(block_on(opts.config()).is_err());
    }

    /// Break-it 44 P1: a gcp auth-provider's `cmd-path` token was sent but
    /// never held, so a server echoing it was printed and stored raw.
    #[test]
    fn a_gcp_auth_provider_running_a_command_is_refused_before_any_request() {
        let dir = tempfile::tempdir().expect("tmp");
        let path = dir.path().join("config");
        let kubeconfig = |config: &str| {
            format!(
                "apiVersion: v1\nkind: Config\ncurrent-context: c\nclusters: [{{name: k, cluster: {{server: \
                 'http://127.0.0.1:9'}}}}]\ncontexts: [{{name: c, context: {{cluster: k, user: gke}}}}]\nusers:\n- \
                 name: gke\n  user:\n    auth-provider:\n      name: gcp\n      config: {config}\n"
            )
        };
        std::fs::write(&path, kubeconfig("{cmd-path: /usr/bin/gcloud, cmd-args: 'config config-helper'}")).expect("w");
        let opts = ClusterOptions { kubeconfig: Some(path.clone()), context: None };
        let err = block_on(opts.config()).expect_err("refused").to_string();
        assert!(err.starts_with("kubeconfig user gke: auth-provider gcp with cmd-path is not supported"), "{err}");
        // A static access-token is held (break-it 44's control): not refused.
        std::fs::write(&path, kubeconfig("{access-token: gcpStaticTok9}")).expect("w");
        assert!(block_on(opts.config()).is_ok());
    }

    /// Break-it 40 F7: `current-context: <the token>` was echoed as
    /// "failed to load current context: <the token>"; a server URL whose
    /// path holds the token was shown raw in the summary and the store.
    #[test]
    fn a_kubeconfig_value_is_never_quoted_and_the_url_is_redacted() {
        const TOK: &str = "kubeTokQ7wE3rT9yU2iO5pA8sD";
        let dir = tempfile::tempdir().expect("tmp");
        let body = |server: &str, current: &str| {
            format!(
                "apiVersion: v1\nkind: Config\nclusters: [{{name: c, cluster: {{server: \"{server}\"}}}}]\n\
                 users: [{{name: u, user: {{token: \"{TOK}\"}}}}]\ncontexts: [{{name: x, context: {{cluster: c, user: u}}}}]\n\
                 current-context: {current}\n"
            )
        };
        let path = write(dir.path(), &body("http://127.0.0.1:1", TOK));
        let opts = ClusterOptions { kubeconfig: Some(path.clone()), context: None };
        let err = block_on(opts.config()).expect_err("no such context").to_string();
        assert_eq!(
            err,
            format!(
                "kubeconfig {}: the context its current-context names is not among its contexts (the name is not \
                 shown: a kubeconfig's values may be credentials)",
                path.display()
            )
        );
        let opts = ClusterOptions { kubeconfig: Some(path.clone()), context: Some("nope".into()) };
        let err = block_on(opts.config()).expect_err("no such context").to_string();
        assert_eq!(err, format!("kubeconfig {}: it has no context named nope (--context)", path.display()));
        let path = write(dir.path(), &body(&format!("http://127.0.0.1:1/{TOK}"), "x"));
        let opts = ClusterOptions { kubeconfig: Some(path), context: None };
        let connected = block_on(opts.open()).expect("open");
        assert_eq!(connected.url, "http://127.0.0.1:1/***");
    }

    fn with_server(server: &str, user: &str, proxy: &str) -> String {
        format!(
            "apiVersion: v1\nkind: Config\ncurrent-context: x\nclusters:\n- name: prod\n  cluster: {{server: \"{server}\"{proxy}}}\n\
             contexts:\n- name: x\n  context: {{cluster: prod, user: u}}\nusers:\n- name: u\n  user: {user}\n"
        )
    }

    /// Break-it 43 N4: `server: http://admin:PASSWORD@host` kept the user
    /// info in kube's URL: every run line, `-vv` span and stored location
    /// showed the password. It is taken out of the URL and sent as Basic
    /// auth when the user has no credential of its own (as kubectl), else
    /// dropped; a `/` before the `@` is refused, the password never shown.
    #[test]
    fn a_servers_user_info_becomes_basic_auth_and_never_stays_in_the_url() {
        const PW: &str = "Ui9pwKd%2Bx7Q=Lm2Zr8";
        let dir = tempfile::tempdir().expect("tmp");
        let path = write(dir.path(), &with_server(&format!("http://admin:{PW}@127.0.0.1:19971"), "{}", ""));
        let opts = ClusterOptions { kubeconfig: Some(path.clone()), context: None };
        let c = block_on(opts.config()).expect("config");
        assert_eq!(c.cluster_url.to_string(), "http://127.0.0.1:19971/");
        let auth = serde_json::to_value(&c.auth_info).expect("auth");
        assert_eq!(auth["username"], "admin");
        assert_eq!(auth["password"], "Ui9pwKd+x7Q=Lm2Zr8");
        assert_eq!(crate::redact::held().redact("pw Ui9pwKd+x7Q=Lm2Zr8 end"), "pw *** end");
        assert_eq!(block_on(opts.open()).expect("open").url, "http://127.0.0.1:19971");
        // A token of its own wins, as kubectl's Authorization header does.
        let path = write(dir.path(), &with_server(&format!("http://admin:{PW}@127.0.0.1:19971"), "{token: tOk}", ""));
        let c = block_on(ClusterOptions { kubeconfig: Some(path), context: None }.config()).expect("config");
        assert_eq!(c.cluster_url.to_string(), "http://127.0.0.1:19971/");
        let auth = serde_json::to_value(&c.auth_info).expect("auth");
        assert_eq!((auth.get("username"), auth["token"].as_str()), (None, Some("tOk")));
        // A `/` in the password ends the authority inside it: refused.
        let path = write(dir.path(), &with_server("http://admin:Ui9pw/Kd+x7Q=Lm2Zr8@127.0.0.1:19971", "{}", ""));
        let err = block_on(ClusterOptions { kubeconfig: Some(path.clone()), context: None }.config())
            .expect_err("refused")
            .to_string();
        assert_eq!(
            err,
            format!(
                "the server of cluster prod in kubeconfig {} is http://***@127.0.0.1:19971: a `/` comes before its \
                 `@`: a user or password holding `/` must write it `%2F` (as written, the host would be read from \
                 inside the password)",
                path.display()
            )
        );
    }

    /// Break-it 43 N2: a port that is no port sent the bearer token (or
    /// Proxy-Authorization) to port 80 of that host. Refused, naming where
    /// the URL was set, the password masked.
    #[test]
    fn a_server_or_proxy_port_that_is_no_port_is_refused_before_any_request() {
        let dir = tempfile::tempdir().expect("tmp");
        for port in ["99999", "65536", "-1", "3128abc"] {
            let path = write(dir.path(), &with_server(&format!("http://127.0.0.1:{port}"), "{token: tOk}", ""));
            let err = block_on(ClusterOptions { kubeconfig: Some(path.clone()), context: None }.config())
                .expect_err("refused")
                .to_string();
            assert_eq!(
                err,
                format!(
                    "the server of cluster prod in kubeconfig {} is http://127.0.0.1:{port}/: its port \"{port}\" is \
                     not a number from 1 to 65535 (sent as it is, the request would go to port 80 of that host)",
                    path.display()
                ),
                "{port}"
            );
            let proxy = format!(", proxy-url: \"http://pu:PrOxYpW77@127.0.0.1:{port}\"");
            let path = write(dir.path(), &with_server("http://127.0.0.1:19971", "{token: tOk}", &proxy));
            let err = block_on(ClusterOptions { kubeconfig: Some(path.clone()), context: None }.config())
                .expect_err("refused")
                .to_string();
            assert_eq!(
                err,
                format!(
                    "the proxy-url of the context's cluster in kubeconfig {} is http://pu:***@127.0.0.1:{port}/: its \
                     port \"{port}\" is not a number from 1 to 65535 (sent as it is, the request would go to port 80 \
                     of that host)",
                    path.display()
                ),
                "{port}"
            );
        }
    }

    #[test]
    fn unknown_context_and_missing_file_name_the_kubeconfig() {
        let dir = tempfile::tempdir().expect("tmp");
        let path = write(dir.path(), TWO_CONTEXTS);
        let opts = ClusterOptions { kubeconfig: Some(path.clone()), context: Some("nope".into()) };
        let err = block_on(opts.config()).expect_err("unknown context").to_string();
        assert!(err.contains(&path.display().to_string()), "{err}");
        let missing = dir.path().join("absent");
        let opts = ClusterOptions { kubeconfig: Some(missing.clone()), context: None };
        let err = block_on(opts.config()).expect_err("missing file").to_string();
        // The path once, unquoted (kube's own text added it again, quoted twice: '"/…/absent"').
        assert_eq!(
            err,
            format!("kubeconfig {}: failed to read it: No such file or directory (os error 2)", missing.display())
        );
    }
}
