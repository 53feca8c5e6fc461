//! Exec plugins run by kdrift: fake plugins (bash scripts in a tempdir).

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use super::*;

/// A plugin script `body` (bash) at `dir/name`, executable.
fn script(dir: &Path, name: &str, body: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/bash\n{body}\n")).expect("write plugin");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    path
}

/// kube's configuration of a kubeconfig whose user `dev` has `exec` (YAML lines, indented 4).
fn config(exec: &str) -> Config {
    let text = format!(
        "apiVersion: v1\nkind: Config\ncurrent-context: c\nclusters:\n- name: c\n  cluster: {{server: 'http://127.0.0.1:1'}}\n\
         contexts:\n- name: c\n  context: {{cluster: c, user: dev}}\nusers:\n- name: dev\n  user:\n    exec:\n{exec}"
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

fn exec_lines(command: &Path, extra: &str) -> String {
    format!(
        "      apiVersion: client.authentication.k8s.io/v1\n      command: {}\n      interactiveMode: Never\n{extra}",
        command.display()
    )
}

#[test]
fn the_plugin_runs_as_kubectl_runs_it_and_its_token_is_held_in_every_form() {
    let dir = tempfile::tempdir().expect("tmp");
    let seen = dir.path().join("seen");
    let plugin = script(
        dir.path(),
        "cred",
        &format!(
            "printf '%s\\n%s\\n%s\\n' \"$KUBERNETES_EXEC_INFO\" \"$*\" \"$REGION\" > {}\n\
             echo '{{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\",\
             \"status\":{{\"token\":\"eXeCtOkEn/4d2c+9b8a=77\"}}}}'",
            seen.display()
        ),
    );
    let mut c = config(&exec_lines(
        &plugin,
        "      args: [get-token, --cluster, prod]\n      env: [{name: REGION, value: eu-west-1}]\n",
    ));
    assert!(uses_exec(&c));
    apply(&mut c, "dev").expect("plugin ran");
    let seen = std::fs::read_to_string(&seen).expect("the plugin ran");
    assert_eq!(
        seen,
        "{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\",\"spec\":{\"interactive\":false}}\n\
         get-token --cluster prod\neu-west-1\n"
    );
    // kube now sends the static token; nothing is left to renew.
    let auth = serde_json::to_value(&c.auth_info).expect("json");
    assert_eq!(auth["token"], "eXeCtOkEn/4d2c+9b8a=77");
    assert!(auth.get("exec").is_none() && auth.get(refresh::KEY).is_none(), "{auth}");
    let token = "eXeCtOkEn/4d2c+9b8a=77";
    let b64 = base64::engine::general_purpose::STANDARD.encode(format!("Bearer {token}"));
    let hex: String = token.bytes().map(|b| format!("{b:02x}")).collect();
    let text =
        format!("raw {token} b64 {b64} hex {hex} json \"eXeCtOkEn\\/4d2c+9b8a=77\" url eXeCtOkEn%2F4d2c%2B9b8a%3D77");
    assert_eq!(crate::redact::held().redact(&text), "raw *** b64 *** hex *** json \"***\" url ***");
}

#[test]
fn a_missing_or_failing_plugin_names_the_user_and_command_and_quotes_no_credential() {
    let dir = tempfile::tempdir().expect("tmp");
    let absent = dir.path().join("kubelogin-absent");
    let mut c = config(&exec_lines(&absent, "      installHint: 'brew install kubelogin'\n"));
    let e = apply(&mut c, "dev").expect_err("missing").to_string();
    assert_eq!(
        e,
        format!(
            "kubeconfig user dev: the exec credential plugin {} was not found (is it installed and on PATH?); \
             installHint: brew install kubelogin",
            absent.display()
        )
    );
    // Its environment's secret (held from the kubeconfig) and a bearer token on its stderr: masked.
    let failing =
        script(dir.path(), "fail", "echo \"login failed for $API_KEY with Bearer abcdefgh12345678\" >&2; exit 3");
    let mut c = config(&exec_lines(&failing, "      env: [{name: API_KEY, value: sEcReTaPiKeY9182}]\n"));
    crate::cluster::credentials::hold(&c);
    let e = apply(&mut c, "dev").expect_err("fails").to_string();
    // The bearer pattern masks `Bearer TOKEN` as `Bearer ***`; once another
    // test of this process has held a value the token's pieces share, the
    // held forms mask it whole (`***`). Either way nothing of it is shown.
    let head = format!(
        "kubeconfig user dev: the exec credential plugin {} failed (exit status: 3); its stderr: login failed for *** with ",
        failing.display()
    );
    assert!(e == format!("{head}***") || e == format!("{head}Bearer ***"), "{e}");
    // Issue 34: env values under any name (LOGIN), a secret-named short one (PASS) and
    // `dbPassword=` on its stderr: masked; a short value under an ordinary name stays.
    let echo = script(
        dir.path(),
        "echo-env",
        "echo \"as $LOGIN pass $PASS region $REGION dbPassword=Qw9ErTy7zz\" >&2; exit 4",
    );
    let env =
        "      env: [{name: LOGIN, value: Zq8wLmN3xPcv}, {name: PASS, value: pw4x}, {name: REGION, value: eu-1}]\n";
    let mut c = config(&exec_lines(&echo, env));
    crate::cluster::credentials::hold(&c);
    let e = apply(&mut c, "dev").expect_err("fails").to_string();
    assert!(e.ends_with("its stderr: as *** pass *** region eu-1 dbPassword=***"), "{e}");
    // A value where the object should be: serde would quote it; the position is told instead.
    let bad = script(dir.path(), "bad", "echo '{\"status\": \"NoTaCrEdEnTiAl55\"'");
    let mut c = config(&exec_lines(&bad, ""));
    let e = apply(&mut c, "dev").expect_err("bad output").to_string();
    assert!(e.ends_with("printed no ExecCredential (a field of the wrong type at line 1, column 29)"), "{e}");
    assert!(!e.contains("NoTaCrEdEnTiAl55"), "{e}");
    let other = script(
        dir.path(),
        "v1beta1",
        "echo '{\"apiVersion\":\"client.authentication.k8s.io/v1beta1\",\"status\":{\"token\":\"t0k3n-v1beta1\"}}'",
    );
    let mut c = config(&exec_lines(&other, ""));
    let e = apply(&mut c, "dev").expect_err("other version").to_string();
    assert!(
        e.ends_with("the kubeconfig configures \"client.authentication.k8s.io/v1\" (they must be the same)"),
        "{e}"
    );
}

/// Break-it 41 G9: a plugin that printed an ExecCredential, then echoed
/// its token on stderr and failed, had the token shown in the error. What
/// it printed on stdout is masked in the stderr quoted: the JSON's values
/// (token, key), or a bare token's pieces; the words of the stderr stay.
#[test]
fn a_failing_plugins_stderr_shows_nothing_it_printed_on_stdout() {
    let dir = tempfile::tempdir().expect("tmp");
    for (name, stdout, token) in [
        (
            "json",
            "{\"kind\":\"ExecCredential\",\"apiVersion\":\"client.authentication.k8s.io/v1\",\
             \"status\":{\"token\":\"ExecTok3nSecretValue4455667788\",\"clientKeyData\":\"KeyDataQz8Lp4Wm2Xk7\"}}",
            "ExecTok3nSecretValue4455667788",
        ),
        ("yaml", "kind: ExecCredential\nstatus:\n  token: YamlTok9Hf3Jd8Ks2Lm5\n", "YamlTok9Hf3Jd8Ks2Lm5"),
        ("bare", "BareTok7Qz8Lp4Wm2Xk\n", "BareTok7Qz8Lp4Wm2Xk"),
    ] {
        let plugin = script(
            dir.path(),
            name,
            &format!("cat <<'EOF'\n{stdout}\nEOF\necho \"failed with {token} (key KeyDataQz8Lp4Wm2Xk7)\" >&2; exit 1"),
        );
        let mut c = config(&exec_lines(&plugin, ""));
        let e = apply(&mut c, "dev").expect_err("fails").to_string();
        let head =
            format!("kubeconfig user dev: the exec credential plugin {} failed (exit status: 1); ", plugin.display());
        assert!(e.starts_with(&format!("{head}its stderr: failed with *** (key ")), "{name}: {e}");
        assert!(!e.contains(token) && !e.contains(&token[4..16]), "{name}: {e}");
        if name == "json" {
            assert!(e.ends_with("(key ***)"), "{e}");
        }
    }
}

#[test]
fn an_expiring_token_is_renewed_by_the_client_layer_and_the_new_token_held() {
    let dir = tempfile::tempdir().expect("tmp");
    let count = dir.path().join("count");
    // Token n expires 30 s from now: inside the renewal margin, so every request renews it.
    let plugin = script(
        dir.path(),
        "cred",
        &format!(
            "n=$(( $(cat {c} 2>/dev/null || echo 0) + 1 )); echo $n > {c}\n\
             exp=$(date -u -d '+30 seconds' +%Y-%m-%dT%H:%M:%SZ)\n\
             echo \"{{\\\"apiVersion\\\":\\\"client.authentication.k8s.io/v1\\\",\\\"kind\\\":\\\"ExecCredential\\\",\
             \\\"status\\\":{{\\\"token\\\":\\\"rEnEwEdToKeN-$n\\\",\\\"expirationTimestamp\\\":\\\"$exp\\\"}}}}\"",
            c = count.display()
        ),
    );
    let mut c = config(&exec_lines(&plugin, ""));
    apply(&mut c, "dev").expect("first run");
    let layer = refresh::take(&mut c).expect("an expiring token leaves its plugin");
    // kube adds no Authorization of its own: the layer sends it.
    let auth = serde_json::to_value(&c.auth_info).expect("json");
    assert!(auth.get("token").is_none() && auth.get(refresh::KEY).is_none(), "{auth}");
    let header = layer.header().expect("renewed");
    assert_eq!(header.to_str().expect("text"), "Bearer rEnEwEdToKeN-2");
    assert!(header.is_sensitive());
    assert_eq!(layer.header().expect("renewed").to_str().expect("text"), "Bearer rEnEwEdToKeN-3");
    assert_eq!(std::fs::read_to_string(&count).expect("count").trim(), "3");
    assert_eq!(crate::redact::held().redact("got rEnEwEdToKeN-3 then rEnEwEdToKeN-2"), "got *** then ***");
}

/// A renewed token holding a control character (U+0001, a line break) is
/// refused as the first token is (`ClusterError::BadToken`), naming the
/// character and its position, never the token; the plugin runs again at
/// the next request.
#[test]
fn a_renewed_token_with_a_control_character_is_a_clear_error_never_shown() {
    let dir = tempfile::tempdir().expect("tmp");
    let count = dir.path().join("count");
    let plugin = script(
        dir.path(),
        "cred",
        &format!(
            "n=$(( $(cat {c} 2>/dev/null || echo 0) + 1 )); echo $n > {c}\n\
             exp=$(date -u -d '+30 seconds' +%Y-%m-%dT%H:%M:%SZ)\n\
             case $n in 1) tok=GoodExecTok7Qz8Lp4Wm-1;; 2) tok='BadExecTok7Qz\\u0001Lp4Wm-2';; \
             *) tok='BadExecTok7Qz\\nLp4Wm-'$n;; esac\n\
             printf '{{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\",\
             \"status\":{{\"token\":\"%s\",\"expirationTimestamp\":\"%s\"}}}}' \"$tok\" \"$exp\"",
            c = count.display()
        ),
    );
    let mut c = config(&exec_lines(&plugin, ""));
    apply(&mut c, "dev").expect("first run");
    let layer = refresh::take(&mut c).expect("an expiring token leaves its plugin");
    for code in ["0001", "000A"] {
        let e = layer.header().expect_err("a control character").to_string();
        assert_eq!(
            e,
            format!(
                "kubeconfig user dev: the bearer token renewed by the exec plugin {} holds the control character \
                 U+{code} at character 14 of 21: an HTTP header cannot carry it (a stray line break in the kubeconfig \
                 or in the exec plugin's output?)",
                plugin.display()
            )
        );
        assert!(!e.contains("BadExecTok") && !e.contains("Lp4Wm"), "{e}");
    }
    assert_eq!(std::fs::read_to_string(&count).expect("count").trim(), "3");
}

#[test]
fn a_client_certificate_replaces_the_exec_entry_and_its_key_is_held() {
    let dir = tempfile::tempdir().expect("tmp");
    let cert = "-----BEGIN CERTIFICATE-----\\nMIIBcert0123456789\\n-----END CERTIFICATE-----\\n";
    let key = "-----BEGIN EC PRIVATE KEY-----\\nMHcCAQEEIkEyBoDy0a1b2c3d4e5f6\\n-----END EC PRIVATE KEY-----\\n";
    let plugin = script(
        dir.path(),
        "cred",
        &format!(
            "echo '{{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\",\
             \"status\":{{\"clientCertificateData\":\"{cert}\",\"clientKeyData\":\"{key}\",\
             \"expirationTimestamp\":\"2030-01-01T00:00:00Z\"}}}}'"
        ),
    );
    let mut c = config(&exec_lines(&plugin, ""));
    apply(&mut c, "dev").expect("plugin ran");
    let auth = serde_json::to_value(&c.auth_info).expect("json");
    let decode = |field: &str| {
        let data = auth[field].as_str().expect(field);
        String::from_utf8(base64::engine::general_purpose::STANDARD.decode(data).expect("base64")).expect("utf-8")
    };
    assert_eq!(decode("client-certificate-data"), cert.replace("\\n", "\n"));
    assert_eq!(decode("client-key-data"), key.replace("\\n", "\n"));
    // No token: nothing to renew (a certificate is part of the TLS connector).
    assert!(auth.get("exec").is_none() && auth.get("token").is_none() && auth.get(refresh::KEY).is_none(), "{auth}");
    assert_eq!(
        crate::redact::held().redact("key MHcCAQEEIkEyBoDy0a1b2c3d4e5f6 cert MIIBcert0123456789"),
        "key *** cert MIIBcert0123456789"
    );
}

/// Break-it 33 F7: a plugin that printed its token in
/// status.expirationTimestamp had the token quoted in the error: the
/// output was parsed before the token was held.
#[test]
fn a_field_quoted_from_a_plugins_output_never_shows_its_token() {
    let dir = tempfile::tempdir().expect("tmp");
    let plugin = script(
        dir.path(),
        "badexp",
        "echo '{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\",\
         \"status\":{\"token\":\"ExecTokF7Qz8Lp4Wm2Xk9Vb\",\"expirationTimestamp\":\"ExecTokF7Qz8Lp4Wm2Xk9Vb\"}}'",
    );
    let mut c = config(&exec_lines(&plugin, ""));
    let e = apply(&mut c, "dev").expect_err("bad time").to_string();
    assert_eq!(
        e,
        format!(
            "kubeconfig user dev: the exec credential plugin {} printed status.expirationTimestamp \"***\", which is \
             not an RFC 3339 time",
            plugin.display()
        )
    );
    // An ordinary bad time is quoted as it is.
    let plugin = script(
        dir.path(),
        "badtime",
        "echo '{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\",\
         \"status\":{\"token\":\"ExecTokG8Qz8Lp4Wm2Xk9Vb\",\"expirationTimestamp\":\"2026-13-01\"}}'",
    );
    let mut c = config(&exec_lines(&plugin, ""));
    let e = apply(&mut c, "dev").expect_err("bad time").to_string();
    assert!(e.ends_with("printed status.expirationTimestamp \"2026-13-01\", which is not an RFC 3339 time"), "{e}");
}

#[test]
fn a_plugin_printing_more_than_the_cap_is_stopped_and_named() {
    let dir = tempfile::tempdir().expect("tmp");
    // 200 MB of output, as break-it 34 L1's plugin (914 MB RSS before the error).
    let huge = script(dir.path(), "huge", "head -c 200000000 /dev/zero | tr '\\0' ' '; echo '{}'");
    let mut c = config(&exec_lines(&huge, ""));
    let e = apply(&mut c, "dev").expect_err("too much output").to_string();
    assert_eq!(
        e,
        format!(
            "kubeconfig user dev: the exec credential plugin {} printed more than 1,048,576 bytes on its stdout \
             (1 MiB, the most kdrift reads of a plugin; an ExecCredential is a few KiB): it was stopped and its \
             output not read",
            huge.display()
        )
    );
    // Just under the cap (spaces before the answer): read and used.
    let under = script(
        dir.path(),
        "under",
        "head -c 1000000 /dev/zero | tr '\\0' ' '; echo '{\"apiVersion\":\"client.authentication.k8s.io/v1\",\
         \"kind\":\"ExecCredential\",\"status\":{\"token\":\"uNdErCaPtOkEn42\"}}'",
    );
    let mut c = config(&exec_lines(&under, ""));
    apply(&mut c, "dev").expect("under the cap");
}

/// Break-it 43 M-exec: a plugin that never exits (a login waiting for a
/// browser) hung kdrift without end or message, and was left running. It
/// is killed past the bound, with the processes it started, and the error
/// names it and the bound.
#[test]
fn a_plugin_that_never_exits_is_killed_at_the_bound_with_what_it_started() {
    let dir = tempfile::tempdir().expect("tmp");
    let pids = dir.path().join("pids");
    // `sleep` in the background holds the pipes open after bash is killed.
    let plugin = script(dir.path(), "hang", &format!("sleep 3600 & echo $$ $! > {}\nwait", pids.display()));
    let mut c = config(&exec_lines(&plugin, ""));
    // The bound is the whole test binary's: 3 s leaves the other plugins time.
    set_timeout(Duration::from_secs(3));
    let started = Instant::now();
    let err = apply(&mut c, "dev").expect_err("killed").to_string();
    let waited = started.elapsed();
    set_timeout(DEFAULT_TIMEOUT);
    assert_eq!(
        err,
        format!(
            "kubeconfig user dev: the exec credential plugin {} did not exit within 3 s (an interactive login waiting for a browser \
             or a prompt?): it was killed; run it alone to see what it waits for, or give it longer with \
             --exec-timeout",
            plugin.display()
        )
    );
    assert!(waited < Duration::from_secs(20), "{waited:?}");
    let pids = std::fs::read_to_string(&pids).expect("the plugin ran");
    // Reaped or gone: no /proc entry, or a zombie (SIGKILL takes a moment).
    let state = |pid: &str| {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        stat.rsplit_once(')').and_then(|(_, rest)| rest.trim_start().chars().next())
    };
    let gone = |pid: &str| matches!(state(pid), None | Some('Z'));
    let deadline = Instant::now() + Duration::from_secs(5);
    while !pids.split_whitespace().all(gone) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    for pid in pids.split_whitespace() {
        assert!(gone(pid), "process {pid} still runs ({:?})", state(pid));
    }
}
