//! kubeconfig `exec` credential plugins (`users[].user.exec`, the
//! `client.authentication.k8s.io` `ExecCredential` protocol, as kubectl runs
//! them: <https://kubernetes.io/docs/reference/access-authn-authz/authentication/#client-go-credential-plugins>),
//! run by kdrift itself rather than inside kube's auth layer, so that the
//! token (or client key) they issue is [`hold`](crate::redact::hold)-ed
//! like every other credential: a server echoing it (in an error `Status`,
//! a `200` that is not JSON, a record) and kube's `-vv` log lines show it
//! masked in every form ([`crate::redact`]).
//!
//! - [`Plugin`]: the kubeconfig's `exec` entry and the user it belongs to;
//!   [`run`] runs it: `command` with `args`, its `env` added to kdrift's,
//!   `KUBERNETES_EXEC_INFO` set as kubectl sets it (`apiVersion`,
//!   `spec.interactive`, `spec.cluster` when `provideClusterInfo`); stdin is
//!   the terminal only when the plugin may be interactive
//!   (`interactiveMode` not `Never`) and kdrift's stdin is one, else empty;
//!   stderr is captured (and quoted, redacted, when the plugin fails) unless
//!   interactive, when it is the user's terminal as with kubectl;
//! - [`apply`]: replaces a [`kube::Config`]'s `exec` by the static token or
//!   client certificate the plugin issued, and, when the token expires
//!   (`status.expirationTimestamp`), marks the configuration so that
//!   [`super::redirect::client`] builds a client that re-runs the plugin
//!   before it expires ([`refresh`]).
//!
//! A plugin that cannot start, fails, or prints no usable `ExecCredential`
//! is a [`ClusterError::ExecPlugin`] naming the kubeconfig user and the
//! command (never its arguments, environment or output, which may hold a
//! credential), with the `installHint` when the command is missing.

pub mod refresh;

use std::io::IsTerminal;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use base64::Engine;
use chrono::{DateTime, Utc};
use kube::config::{ExecConfig, ExecInteractiveMode};
use kube::Config;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::error::ClusterError;
use crate::redact::Redactor;

/// Most characters of a failing plugin's stderr quoted in its error (redacted first).
pub const STDERR_LIMIT: usize = 600;

/// Most bytes of a plugin's stdout read: 1 MiB (an `ExecCredential` is a
/// few KiB, a client certificate and key included). A plugin printing more
/// is stopped and is an error (break-it 34 L1: 200 MB made kdrift's RSS
/// 914 MB before it said "printed no ExecCredential").
pub const MAX_STDOUT_BYTES: usize = 1 << 20;

/// Most bytes of a plugin's stderr kept (the rest is read and dropped):
/// 64 KiB, far more than the [`STDERR_LIMIT`] characters quoted.
const MAX_STDERR_BYTES: usize = 64 << 10;

/// Shortest value of a plugin's `env` masked in its stderr whatever its
/// name, characters (a secret-named one is held from any length:
/// `credentials::hold`).
pub const ENV_SHOWN: usize = 8;

/// A kubeconfig user's `exec` credential plugin. No `Debug`: its
/// environment may hold credentials.
#[derive(Clone, Serialize, Deserialize)]
pub struct Plugin {
    /// The kubeconfig user (`users[].name`), for messages.
    pub user: String,
    /// `command`: the executable (a path, or a name looked up in `PATH`).
    pub command: String,
    /// `args`.
    pub args: Vec<String>,
    /// `env`: (name, value) added to kdrift's environment.
    pub env: Vec<(String, String)>,
    /// `apiVersion` (`client.authentication.k8s.io/v1` or `v1beta1`): of
    /// `KUBERNETES_EXEC_INFO` and of the answer.
    pub api_version: String,
    /// `installHint`, shown when the command is missing.
    pub install_hint: Option<String>,
    /// `interactiveMode`: `Never`, `IfAvailable` (the default) or `Always`.
    pub interactive_mode: String,
    /// `spec.cluster` of `KUBERNETES_EXEC_INFO` (`provideClusterInfo: true`).
    pub cluster: Option<Value>,
}

/// What a plugin issued.
pub struct Issued {
    /// `status.token`: a bearer token.
    pub token: Option<String>,
    /// `status.clientCertificateData` and `status.clientKeyData` (PEM).
    pub certificate: Option<(String, String)>,
    /// `status.expirationTimestamp`: when to run the plugin again.
    pub expires: Option<DateTime<Utc>>,
}

impl Plugin {
    /// The plugin of kube's `exec` entry for the kubeconfig user `user`.
    ///
    /// # Errors
    /// [`ClusterError::ExecPlugin`] without `command` or `apiVersion` (as kubectl).
    pub fn new(exec: &ExecConfig, user: &str) -> Result<Plugin, ClusterError> {
        let command = exec.command.clone().unwrap_or_default();
        let fail = |problem: &str| ClusterError::ExecPlugin {
            user: user.to_string(),
            command: command.clone(),
            problem: problem.to_string(),
        };
        if command.is_empty() {
            return Err(fail("has no `command`"));
        }
        let api_version = exec.api_version.clone().unwrap_or_default();
        if api_version.is_empty() {
            return Err(fail("has no `apiVersion` (client.authentication.k8s.io/v1 or v1beta1)"));
        }
        let env = exec
            .env
            .iter()
            .flatten()
            .filter_map(|e| Some((e.get("name")?.clone(), e.get("value").cloned().unwrap_or_default())))
            .collect();
        let interactive_mode = match exec.interactive_mode {
            Some(ExecInteractiveMode::Never) => "Never",
            Some(ExecInteractiveMode::Always) => "Always",
            Some(ExecInteractiveMode::IfAvailable) | None => "IfAvailable",
        };
        let cluster = match (&exec.cluster, exec.provide_cluster_info) {
            (Some(c), true) => serde_json::to_value(c).ok(),
            _ => None,
        };
        Ok(Plugin {
            user: user.to_string(),
            command,
            args: exec.args.clone().unwrap_or_default(),
            env,
            api_version,
            install_hint: exec.install_hint.clone(),
            interactive_mode: interactive_mode.to_string(),
            cluster,
        })
    }

    fn error(&self, problem: impl Into<String>) -> ClusterError {
        ClusterError::ExecPlugin { user: self.user.clone(), command: self.command.clone(), problem: problem.into() }
    }
}

/// The answer of a plugin (`ExecCredential`).
#[derive(Deserialize)]
struct Answer {
    #[serde(rename = "apiVersion")]
    api_version: Option<String>,
    kind: Option<String>,
    status: Option<AnswerStatus>,
}

#[derive(Deserialize)]
struct AnswerStatus {
    #[serde(rename = "expirationTimestamp")]
    expiration_timestamp: Option<String>,
    token: Option<String>,
    #[serde(rename = "clientCertificateData")]
    client_certificate_data: Option<String>,
    #[serde(rename = "clientKeyData")]
    client_key_data: Option<String>,
}

/// Runs `plugin` (see the module doc) and holds what it issued
/// ([`crate::redact::hold`]: the token, `Bearer <token>`, the client key).
///
/// # Errors
/// [`ClusterError::ExecPlugin`]: the command is missing or cannot start,
/// exits non-zero (its stderr quoted, redacted), or prints no
/// `ExecCredential` of the configured `apiVersion` with a token or a
/// certificate and key.
pub fn run(plugin: &Plugin) -> Result<Issued, ClusterError> {
    let stdin_is_terminal = std::io::stdin().is_terminal();
    let interactive = plugin.interactive_mode != "Never" && stdin_is_terminal;
    if plugin.interactive_mode == "Always" && !interactive {
        return Err(plugin.error("has interactiveMode Always, and kdrift's stdin is not a terminal"));
    }
    let mut spec = serde_json::json!({ "interactive": interactive });
    if let Some(cluster) = &plugin.cluster {
        spec["cluster"] = cluster.clone();
    }
    let info = serde_json::json!({ "apiVersion": plugin.api_version, "kind": "ExecCredential", "spec": spec });
    let mut cmd = Command::new(&plugin.command);
    cmd.args(&plugin.args)
        .envs(plugin.env.iter().map(|(k, v)| (k, v)))
        .env("KUBERNETES_EXEC_INFO", info.to_string())
        .stdin(if interactive { Stdio::inherit() } else { Stdio::null() })
        .stdout(Stdio::piped())
        .stderr(if interactive { Stdio::inherit() } else { Stdio::piped() });
    let out = output(&mut cmd, plugin).map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            // The kubeconfig author's text, masked as the plugin's stderr
            // is: a value of its `env` repeated there (break-it 45 L1), a
            // held credential, a credential's shape.
            let hint = plugin.install_hint.as_deref().map(str::trim).filter(|h| !h.is_empty());
            let hint = hint
                .map(|h| crate::redact::mask_patterns(&env_redactor(plugin).redact(&crate::redact::held().redact(h))));
            plugin.error(match hint.as_deref() {
                Some(hint) => format!("was not found (is it installed and on PATH?); installHint: {hint}"),
                None => "was not found (is it installed and on PATH?)".to_string(),
            })
        } else {
            plugin.error(format!("could not be started: {e}"))
        }
    })?;
    let out = match out {
        Ok(out) => out,
        Err(Stopped::TimedOut) => {
            return Err(plugin.error(format!(
                "did not exit within {} s (an interactive login waiting for a browser or a prompt?): it was killed; \
                 run it alone to see what it waits for, or give it longer with --exec-timeout",
                timeout().as_secs()
            )))
        }
        Err(Stopped::Interrupted) => {
            return Err(plugin.error("was stopped by SIGINT or SIGTERM before it exited: it was killed"))
        }
    };
    if out.stdout_over {
        return Err(plugin.error(format!(
            "printed more than {} bytes on its stdout (1 MiB, the most kdrift reads of a plugin; an ExecCredential \
             is a few KiB): it was stopped and its output not read",
            crate::thousands(MAX_STDOUT_BYTES as u64)
        )));
    }
    if !out.status.success() {
        let stderr = crate::redact::held().redact(&String::from_utf8_lossy(&out.stderr));
        // What it printed on stdout before failing is credential material
        // (an ExecCredential's token or key), masked in what it said on
        // stderr (break-it 41 G9: a plugin echoing its token there had it
        // shown).
        let stderr = Redactor::new(printed_values(&out.stdout).iter().map(String::as_str)).redact(&stderr);
        // The plugin may echo any of its environment (`LOGIN=…`): every
        // value of ENV_SHOWN+ characters is masked in what it said.
        let stderr = env_redactor(plugin).redact(&stderr);
        let stderr = crate::redact::mask_patterns(stderr.trim());
        let stderr: String = stderr.chars().take(STDERR_LIMIT).collect();
        let said = if stderr.is_empty() { String::new() } else { format!("; its stderr: {stderr}") };
        return Err(plugin.error(format!("failed ({}){said}", out.status)));
    }
    // `parse` holds what it issued before quoting any of its fields.
    parse(plugin, &out.stdout)
}

/// What masks `plugin`'s `env` values of [`ENV_SHOWN`]+ characters.
fn env_redactor(plugin: &Plugin) -> Redactor {
    Redactor::new(plugin.env.iter().map(|(_, v)| v.as_str()).filter(|v| v.chars().count() >= ENV_SHOWN))
}

/// The values a failing plugin printed on stdout, to mask wherever they
/// show: every string value of its JSON or YAML (an ExecCredential's
/// `status.token`, `clientKeyData`, …) but `apiVersion` and `kind`; when
/// it printed neither, every piece of [`ENV_SHOWN`]+ characters between
/// blanks, quotes and JSON punctuation (a bare token).
fn printed_values(stdout: &[u8]) -> Vec<String> {
    fn strings(value: &Value, top: bool, out: &mut Vec<String>) {
        match value {
            Value::String(s) => out.push(s.trim().to_string()),
            Value::Array(items) => items.iter().for_each(|v| strings(v, false, out)),
            Value::Object(map) => map
                .iter()
                .filter(|(k, _)| !(top && (*k == "apiVersion" || *k == "kind")))
                .for_each(|(_, v)| strings(v, false, out)),
            _ => {}
        }
    }
    let parsed = serde_json::from_slice::<Value>(stdout).ok().or_else(|| serde_yaml::from_slice::<Value>(stdout).ok());
    let mut out = Vec::new();
    match parsed {
        Some(value @ (Value::Object(_) | Value::Array(_))) => strings(&value, true, &mut out),
        _ => out.extend(
            String::from_utf8_lossy(stdout)
                .split(|c: char| c.is_whitespace() || "\"'{}[],".contains(c))
                .map(str::to_string),
        ),
    }
    out.retain(|v| v.chars().count() >= ENV_SHOWN);
    out
}

/// What a plugin printed and how it ended.
struct Output {
    status: std::process::ExitStatus,
    stdout: Vec<u8>,
    /// Its stdout went past [`MAX_STDOUT_BYTES`]: it was killed.
    stdout_over: bool,
    stderr: Vec<u8>,
}

/// Why a plugin was killed before it exited.
enum Stopped {
    /// It ran past [`timeout`].
    TimedOut,
    /// [`stop_plugins`] was called (kdrift's first SIGINT or SIGTERM).
    Interrupted,
}

/// How long kdrift waits for an exec plugin by default: 2 minutes (kubectl
/// waits without end; a plugin waiting for a browser login, or a hung
/// `aws eks get-token`, hung kdrift silently: break-it 43 M-exec).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(120);

/// After this long kdrift says it is waiting for the plugin (a warning on
/// stderr naming it and the bound).
pub const SAY_WAITING_AFTER: Duration = Duration::from_secs(5);

static TIMEOUT_MS: AtomicU64 = AtomicU64::new(DEFAULT_TIMEOUT.as_millis() as u64);
static STOP: AtomicBool = AtomicBool::new(false);

/// Sets how long an exec plugin may run before it is killed and kdrift
/// fails naming it (`--exec-timeout`; [`DEFAULT_TIMEOUT`] until set), for
/// the whole process.
pub fn set_timeout(timeout: Duration) {
    TIMEOUT_MS.store(u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX).max(1), Ordering::SeqCst);
}

/// The bound of [`set_timeout`].
pub fn timeout() -> Duration {
    Duration::from_millis(TIMEOUT_MS.load(Ordering::SeqCst))
}

/// Kills the exec plugin kdrift is waiting for, if any, and every one run
/// later in this process (the CLI calls it on its first SIGINT or SIGTERM:
/// a plugin that never exits kept kdrift from stopping, break-it 43).
pub fn stop_plugins() {
    STOP.store(true, Ordering::SeqCst);
}

/// Runs `cmd` to its end, reading at most [`MAX_STDOUT_BYTES`] of its
/// stdout (past them it is killed) and keeping at most
/// [`MAX_STDERR_BYTES`] of its stderr. Killed with the processes it
/// started when it runs past [`timeout`] or [`stop_plugins`] is called
/// (`Err(Stopped)`); `plugin` names it in the warning said after
/// [`SAY_WAITING_AFTER`].
fn output(cmd: &mut Command, plugin: &Plugin) -> std::io::Result<Result<Output, Stopped>> {
    use std::io::Read;
    let mut child = cmd.spawn()?;
    let stderr = child.stderr.take().map(|pipe| {
        std::thread::spawn(move || {
            let mut kept = Vec::new();
            let mut pipe = pipe;
            let _ = pipe.by_ref().take(MAX_STDERR_BYTES as u64).read_to_end(&mut kept);
            // The rest is drained so that the plugin never blocks on a full pipe.
            let _ = std::io::copy(&mut pipe, &mut std::io::sink());
            kept
        })
    });
    let over = Arc::new(AtomicBool::new(false));
    let stdout = child.stdout.take().map(|pipe| {
        let over = Arc::clone(&over);
        std::thread::spawn(move || {
            let mut read = Vec::new();
            let done = pipe.take(MAX_STDOUT_BYTES as u64 + 1).read_to_end(&mut read);
            if read.len() > MAX_STDOUT_BYTES {
                over.store(true, Ordering::SeqCst);
                read.clear();
            }
            done.map(|_| read)
        })
    });
    let (started, bound) = (Instant::now(), timeout());
    let mut said = false;
    let mut stdout_over = false;
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break status;
        }
        let stopped = if STOP.load(Ordering::SeqCst) {
            Some(Stopped::Interrupted)
        } else if started.elapsed() >= bound {
            Some(Stopped::TimedOut)
        } else {
            None
        };
        if let Some(stopped) = stopped {
            kill_tree(&mut child);
            // Its pipes may stay open in a process it started: not read further.
            return Ok(Err(stopped));
        }
        if over.load(Ordering::SeqCst) && !stdout_over {
            stdout_over = true;
            kill_tree(&mut child);
        }
        if !said && started.elapsed() >= SAY_WAITING_AFTER {
            said = true;
            tracing::warn!(
                "waiting for the exec plugin {} of kubeconfig user {} (up to {} s: --exec-timeout; Ctrl-C stops it)",
                plugin.command,
                plugin.user,
                bound.as_secs()
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let stdout = match stdout.map(|t| t.join()) {
        Some(Ok(read)) => read?,
        _ => Vec::new(),
    };
    let stdout_over = stdout_over || over.load(Ordering::SeqCst);
    let stdout = if stdout_over { Vec::new() } else { stdout };
    let stderr = stderr.and_then(|t| t.join().ok()).unwrap_or_default();
    Ok(Ok(Output { status, stdout, stdout_over, stderr }))
}

/// Kills `child` and the processes it started (found in `/proc`, where
/// there is one: a shell script's `sleep` kept its pipes open), then reaps it.
fn kill_tree(child: &mut std::process::Child) {
    // Found while `child` lives (a process whose parent exits is adopted by
    // init at once); `kill(1)`: kdrift has no unsafe code.
    let below = descendants(child.id());
    let _ = child.kill();
    if !below.is_empty() {
        let _ = Command::new("kill")
            .arg("-KILL")
            .args(below.iter().map(u32::to_string))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
    let _ = child.wait();
}

/// The processes below `pid` (children first, then theirs), from
/// `/proc/*/stat`; empty without `/proc`.
fn descendants(pid: u32) -> Vec<u32> {
    let Ok(dir) = std::fs::read_dir("/proc") else { return Vec::new() };
    let parents: Vec<(u32, u32)> = dir
        .flatten()
        .filter_map(|e| {
            let pid: u32 = e.file_name().to_str()?.parse().ok()?;
            let stat = std::fs::read_to_string(e.path().join("stat")).ok()?;
            // `pid (comm) state ppid …`; comm may hold spaces and parentheses.
            let ppid = stat.rsplit_once(')')?.1.split_whitespace().nth(1)?.parse().ok()?;
            Some((pid, ppid))
        })
        .collect();
    let mut found = vec![pid];
    let mut i = 0;
    while i < found.len() {
        let parent = found[i];
        found.extend(parents.iter().filter(|(_, p)| *p == parent).map(|(c, _)| *c));
        i += 1;
    }
    found.remove(0);
    found
}

/// The credential in a plugin's stdout, checked as kubectl checks it.
fn parse(plugin: &Plugin, stdout: &[u8]) -> Result<Issued, ClusterError> {
    // serde's messages may quote a value (the token itself): only the position is told.
    let answer: Answer = match serde_json::from_slice(stdout) {
        Ok(a) => a,
        // client-go decodes YAML too.
        Err(json) => serde_yaml::from_slice(stdout).map_err(|_| {
            let what = match json.classify() {
                serde_json::error::Category::Data => "a field of the wrong type",
                _ => "not JSON",
            };
            plugin.error(format!(
                "printed no ExecCredential ({what} at line {}, column {})",
                json.line(),
                json.column()
            ))
        })?,
    };
    // Held before any field is quoted (break-it 33 F7: a token in
    // status.expirationTimestamp was quoted in clear), and each quoted
    // field redacted.
    if let Some(status) = &answer.status {
        hold(status.token.as_deref(), status.client_key_data.as_deref());
    }
    let shown = |field: &str| format!("{:?}", crate::redact::held().redact(field));
    if let Some(kind) = answer.kind.as_deref().filter(|k| *k != "ExecCredential") {
        return Err(plugin.error(format!("printed a {}, not an ExecCredential", shown(kind))));
    }
    if let Some(v) = answer.api_version.as_deref().filter(|v| *v != plugin.api_version) {
        return Err(plugin.error(format!(
            "answered apiVersion {}; the kubeconfig configures {:?} (they must be the same)",
            shown(v),
            plugin.api_version
        )));
    }
    let Some(status) = answer.status else { return Err(plugin.error("printed an ExecCredential without `status`")) };
    let expires = match status.expiration_timestamp.as_deref().map(str::trim).filter(|t| !t.is_empty()) {
        None => None,
        Some(t) => Some(DateTime::parse_from_rfc3339(t).map(|t| t.with_timezone(&Utc)).map_err(|_| {
            plugin.error(format!("printed status.expirationTimestamp {}, which is not an RFC 3339 time", shown(t)))
        })?),
    };
    let token = status.token.filter(|t| !t.trim().is_empty());
    let certificate = match (status.client_certificate_data, status.client_key_data) {
        (Some(c), Some(k)) if !c.trim().is_empty() && !k.trim().is_empty() => Some((c, k)),
        (None, None) => None,
        _ => {
            return Err(plugin
                .error("printed only one of status.clientCertificateData and status.clientKeyData (both are needed)"))
        }
    };
    if token.is_none() && certificate.is_none() {
        return Err(plugin.error("printed neither status.token nor a client certificate and key"));
    }
    Ok(Issued { token, certificate, expires })
}

/// Holds what a plugin issued (its token, its client key), for every
/// redaction path.
fn hold(token: Option<&str>, key: Option<&str>) {
    let mut values = Vec::new();
    if let Some(t) = token.map(str::trim).filter(|t| !t.is_empty()) {
        values.push(format!("Bearer {t}"));
        values.push(t.to_string());
    }
    if let Some(key) = key.filter(|k| !k.trim().is_empty()) {
        super::credentials::pem_body(key, &mut values);
        values.push(base64::engine::general_purpose::STANDARD.encode(key));
    }
    values.retain(|v| !v.trim().is_empty());
    crate::redact::hold(values);
}

/// Whether kube would use `config`'s `exec` plugin: its credentials of
/// higher precedence (auth-provider, Basic, token, token file) are absent.
pub fn uses_exec(config: &Config) -> bool {
    let a = &config.auth_info;
    a.exec.is_some()
        && a.auth_provider.is_none()
        && !(a.username.is_some() && a.password.is_some())
        && a.token.is_none()
        && a.token_file.is_none()
}

/// When `config` authenticates with an exec plugin ([`uses_exec`]): runs
/// it ([`run`]) as the kubeconfig user `user`, and replaces the `exec`
/// entry by the token (`token`) or the client certificate
/// (`client-certificate-data`, `client-key-data`) it issued; an expiring
/// token also leaves the plugin for [`refresh::take`].
///
/// # Errors
/// As [`Plugin::new`] and [`run`].
pub fn apply(config: &mut Config, user: &str) -> Result<(), ClusterError> {
    if !uses_exec(config) {
        return Ok(());
    }
    let Some(exec) = &config.auth_info.exec else { return Ok(()) };
    let plugin = Plugin::new(exec, user)?;
    let issued = run(&plugin)?;
    // kube's AuthInfo keeps its secret strings in a type of a crate kdrift
    // does not use: rewritten through its (clear-text) serialization.
    let mut auth = serde_json::to_value(&config.auth_info).unwrap_or_default();
    let Some(map) = auth.as_object_mut() else { return Err(plugin.error("(kube's user entry is not an object)")) };
    map.remove("exec");
    let b64 = |s: &str| base64::engine::general_purpose::STANDARD.encode(s);
    if let Some((cert, key)) = &issued.certificate {
        map.insert("client-certificate-data".into(), b64(cert).into());
        map.insert("client-key-data".into(), b64(key).into());
        map.remove("client-certificate");
        map.remove("client-key");
    }
    if let Some(token) = &issued.token {
        map.insert("token".into(), token.trim().into());
        if let Some(expires) = issued.expires {
            map.insert(refresh::KEY.into(), refresh::marker(&plugin, expires));
        }
    }
    config.auth_info = serde_json::from_value(auth).map_err(|e| plugin.error(format!("(kube's user entry: {e})")))?;
    Ok(())
}

#[cfg(test)]
mod tests;
