//! `kdrift rebalance plan --kubeconfig … -o json`, `rebalance apply`,
//! `rebalance run --yes` and `kdrift check` as a user runs them, against the
//! fake API server: the plan printed is the plan executed, typos and a
//! missing `--yes` evict nothing (exit 2), drift exits 1, the dead-man check
//! before and after a run.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use kdrift_tests::busy_cluster::{self, BUSY_POLICY, WHOLE_POLICY};
use kdrift_tests::fake_kube::FakeKube;
use serde_json::{json, Value};

struct Env {
    kube: FakeKube,
    dir: tempfile::TempDir,
    kubeconfig: PathBuf,
    policy: PathBuf,
    db: PathBuf,
}

fn env() -> Env {
    let kube = FakeKube::start();
    busy_cluster::load(&kube);
    let dir = tempfile::tempdir().expect("tmp");
    let kubeconfig = kube.write_kubeconfig(dir.path());
    let policy = dir.path().join("policy.yaml");
    std::fs::write(&policy, BUSY_POLICY).expect("policy");
    let db = dir.path().join("kdrift.duckdb");
    Env { kube, dir, kubeconfig, policy, db }
}

impl Env {
    fn kdrift_db(&self, db: &Path, args: &[&str]) -> Command {
        let mut c = Command::cargo_bin("kdrift").expect("binary");
        c.env_remove("KUBECONFIG").env_remove("KDRIFT_DB").env("HOME", self.dir.path());
        c.arg("--db").arg(db).args(args);
        c
    }

    fn kdrift(&self, args: &[&str]) -> Command {
        self.kdrift_db(&self.db, args)
    }

    fn with_cluster(&self, args: &[&str]) -> Command {
        let mut c = self.kdrift(args);
        c.arg("--kubeconfig").arg(&self.kubeconfig);
        c
    }

    fn path(&self, name: &str) -> String {
        self.dir.path().join(name).display().to_string()
    }

    /// Pods evicted (201), in order.
    fn evicted(&self) -> Vec<String> {
        self.kube
            .evictions()
            .into_iter()
            .filter(|e| e.code == 201)
            .map(|e| format!("{}/{}", e.namespace, e.name))
            .collect()
    }
}

fn stdout(a: &assert_cmd::assert::Assert) -> String {
    String::from_utf8_lossy(&a.get_output().stdout).to_string()
}

fn stderr(a: &assert_cmd::assert::Assert) -> String {
    String::from_utf8_lossy(&a.get_output().stderr).to_string()
}

fn planned(doc: &Value) -> Vec<String> {
    doc["evictions"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|e| {
                    format!(
                        "{}/{}",
                        e["pod"]["namespace"].as_str().unwrap_or(""),
                        e["pod"]["name"].as_str().unwrap_or("")
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

fn write(path: &Path, text: &str) {
    std::fs::write(path, text).expect("write");
}

#[test]
fn the_plan_printed_is_the_plan_applied_and_check_sees_the_run() {
    let e = env();
    // Before any run: NEVER, exit 1.
    let never = e.kdrift(&["check", "--max-age", "26h"]).assert().code(1);
    assert!(stdout(&never).starts_with("NEVER: no successful rebalance"), "{}", stdout(&never));

    let policy = e.policy.display().to_string();
    let plan =
        e.with_cluster(&["rebalance", "plan", "--policy", &policy, "--simulate", "-o", "json"]).assert().success();
    let doc: Value = serde_json::from_str(&stdout(&plan)).expect("plan document");
    assert_eq!(doc["format"], "kdrift.rebalance-plan");
    assert_eq!(doc["source"]["kind"], "live");
    assert_eq!(planned(&doc).len(), 4);
    assert!(e.kube.evictions().is_empty(), "plan evicts nothing");
    let file = e.path("plan.json");
    write(Path::new(&file), &stdout(&plan));

    let applied = e.with_cluster(&["rebalance", "apply", &file, "--ready-timeout", "0"]).assert().success();
    assert_eq!(e.evicted(), planned(&doc), "the fake's eviction log is the printed plan, in order");
    let out = stdout(&applied);
    assert!(out.contains("4 planned: 4 evicted, 0 blocked"), "{out}");

    let ok = e.kdrift(&["check", "--max-age", "26h"]).assert().success();
    assert!(stdout(&ok).starts_with("OK: last successful rebalance "), "{}", stdout(&ok));
    assert!(stdout(&ok).contains("4 of 4 evicted"), "{}", stdout(&ok));
    // The evictions are in the store as events, visible to `kdrift query`.
    let at = (chrono::Utc::now() + chrono::Duration::minutes(1)).to_rfc3339();
    let q = e
        .kdrift(&["query", "objects_at", "--param", "kind=Event", "--param", &format!("at_us={at}"), "-o", "json"])
        .assert()
        .success();
    let rows: Vec<Value> = serde_json::from_str(&stdout(&q)).expect("rows");
    let evicted: Vec<Value> = rows
        .iter()
        .filter_map(|r| match &r["object"] {
            Value::String(s) => serde_json::from_str::<Value>(s).ok(),
            other => Some(other.clone()),
        })
        .filter(|ev| ev["reportingComponent"] == "kdrift" && ev["reason"] == "Evicted")
        .collect();
    assert_eq!(evicted.len(), 4, "{}", stdout(&q));
}

#[test]
fn run_without_yes_and_argument_typos_evict_nothing() {
    let e = env();
    let policy = e.policy.display().to_string();
    let no_yes = e.with_cluster(&["rebalance", "run", "--policy", &policy]).assert().code(2);
    assert!(stderr(&no_yes).contains("add --yes"), "{}", stderr(&no_yes));
    assert!(stderr(&no_yes).contains("kdrift rebalance plan"), "{}", stderr(&no_yes));
    for typo in [
        &["rebalance", "run", "--policy", &policy, "--dry-run=flase"][..],
        &["rebalance", "run", "--policy", &policy, "--yes=no"],
        &["rebalance", "run", "--policy", &policy, "--dryrun", "--yes"],
        &["rebalance", "run", "--policy", &policy, "--yes", "--concurency", "2"],
        &["rebalance", "plan", "--policy", &policy, "--dry-run=false"],
        &["rebalance", "apply"],
    ] {
        let a = e.with_cluster(typo).assert().code(2);
        assert!(stderr(&a).contains("error"), "{typo:?}: {}", stderr(&a));
    }
    assert!(e.kube.requests().is_empty(), "no request reached the cluster: {:?}", e.kube.requests().len());
    assert!(e.kube.evictions().is_empty());
}

#[test]
fn a_drifted_plan_is_refused_with_exit_1_and_replan_executes_the_new_one() {
    let e = env();
    let policy = e.policy.display().to_string();
    let file = e.path("plan.json");
    e.with_cluster(&["rebalance", "plan", "--policy", &policy, "--out", &file]).assert().success();
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&file).expect("plan")).expect("json");
    let first = doc["evictions"][0]["pod"]["name"].as_str().expect("name").to_string();
    e.kube.delete("v1", "Pod", "apps", &first).expect("delete");

    let refused = e.with_cluster(&["rebalance", "apply", &file, "--ready-timeout", "0"]).assert().code(1);
    assert!(stdout(&refused).contains(&format!("pod apps/{first} (eviction 1) is gone")), "{}", stdout(&refused));
    assert!(stdout(&refused).contains("--replan"), "{}", stdout(&refused));
    assert!(e.kube.evictions().is_empty());

    let new_plan = e.path("executed.json");
    let replanned = e
        .with_cluster(&["rebalance", "apply", &file, "--replan", "--ready-timeout", "0", "--out", &new_plan])
        .assert()
        .success();
    assert!(stdout(&replanned).contains("--replan: planned again"), "{}", stdout(&replanned));
    let executed: Value = serde_json::from_str(&std::fs::read_to_string(&new_plan).expect("plan")).expect("json");
    assert_eq!(e.evicted(), planned(&executed));
    assert_eq!(planned(&executed).len(), 3);
}

#[test]
fn run_with_yes_evicts_and_check_reads_the_cronjob() {
    let e = env();
    let policy = e.policy.display().to_string();
    let run = e
        .with_cluster(&["rebalance", "run", "--policy", &policy, "--yes", "--ready-timeout", "0", "-o", "json"])
        .assert()
        .success();
    let report: Value = serde_json::from_str(&stdout(&run)).expect("report");
    assert_eq!(report["outcome"], "Succeeded");
    assert_eq!(e.evicted().len(), 4);
    // The run's records are new observations: the drain moves are kept
    // again, as after an ingest (break-it trial: they were left stale).
    let store = kdrift_store::Store::open_existing(&e.db).expect("store");
    assert!(kdrift_analyze::moves_are_fresh(&store).expect("fresh?"), "kept after the run");
    drop(store);

    let finished = (chrono::Utc::now() - chrono::Duration::hours(3)).to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    e.kube
        .create(json!({"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"namespace": "kdrift", "name": "rebalance"},
            "spec": {"schedule": "0 2 * * *", "jobTemplate": {"spec": {"template": {"spec": {"containers": []}}}}},
            "status": {"lastSuccessfulTime": finished}}))
        .expect("cronjob");
    let absent = e.dir.path().join("absent.duckdb");
    let cluster = e.kubeconfig.display().to_string();
    let ok = e
        .kdrift_db(&absent, &["check", "--max-age", "26h", "--cronjob", "kdrift/rebalance", "--kubeconfig", &cluster])
        .assert()
        .success();
    assert!(stdout(&ok).starts_with("OK: last successful rebalance 3h00m ago"), "{}", stdout(&ok));
    assert!(stdout(&ok).contains("CronJob kdrift/rebalance"), "{}", stdout(&ok));
    let stale = e
        .kdrift_db(&absent, &["check", "--max-age", "90m", "--cronjob", "kdrift/rebalance", "--kubeconfig", &cluster])
        .assert()
        .code(1);
    assert!(stdout(&stale).starts_with("STALE: last successful rebalance 3h00m ago"), "{}", stdout(&stale));
    let missing = e.with_cluster(&["check", "--max-age", "26h", "--cronjob", "kdrift/nope"]).assert().code(2);
    assert!(stderr(&missing).contains("CronJob kdrift/nope not found"), "{}", stderr(&missing));
}

/// Break-it 33 F9: an unparseable `status.lastSuccessfulTime` gave NEVER
/// and exit 1, as if the CronJob had never succeeded.
#[test]
fn check_names_a_cronjob_whose_last_successful_time_is_not_a_time() {
    let e = env();
    let cron_job = |name: &str, last: Value| {
        let mut status = json!({});
        if !last.is_null() {
            status["lastSuccessfulTime"] = last;
        }
        e.kube
            .create(
                json!({"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"namespace": "kdrift", "name": name},
                "spec": {"schedule": "0 2 * * *", "jobTemplate": {"spec": {"template": {"spec": {"containers": []}}}}},
                "status": status}),
            )
            .expect("cronjob");
    };
    cron_job("words", json!("yesterday at 3"));
    cron_job("number", json!(1764212400));
    cron_job("never", Value::Null);
    let absent = e.dir.path().join("absent.duckdb");
    let cluster = e.kubeconfig.display().to_string();
    let check = |name: &str| {
        let cj = format!("kdrift/{name}");
        let out = e
            .kdrift_db(&absent, &["check", "--max-age", "26h", "--cronjob", &cj, "--kubeconfig", &cluster])
            .output()
            .expect("run");
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, stdout, stderr) = check("words");
    assert_eq!(code, Some(2), "{stdout}");
    assert_eq!(stdout, "");
    assert_eq!(
        stderr.trim_end(),
        "kdrift: error: CronJob kdrift/words: status.lastSuccessfulTime is \"yesterday at 3\", which is not an RFC 3339 time \
         (expected e.g. 2026-11-27T03:00:00Z); the check cannot tell when it last succeeded"
    );
    let (code, _, stderr) = check("number");
    assert_eq!(code, Some(2));
    assert_eq!(
        stderr.trim_end(),
        "kdrift: error: CronJob kdrift/number: status.lastSuccessfulTime is 1764212400 (not a string), which is not an RFC \
         3339 time (expected e.g. 2026-11-27T03:00:00Z); the check cannot tell when it last succeeded"
    );
    // Absent: it never succeeded, which is the check's NEVER, not an error.
    let (code, stdout, stderr) = check("never");
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stdout.starts_with("NEVER"), "{stdout}");
}

#[test]
fn a_file_that_is_not_a_plan_is_an_error_naming_it() {
    let e = env();
    let file = e.path("not-a-plan.json");
    write(Path::new(&file), r#"{"kind": "PodList"}"#);
    let a = e.with_cluster(&["rebalance", "apply", &file]).assert().code(2);
    assert!(stderr(&a).contains(&file) && stderr(&a).contains("not a kdrift plan document"), "{}", stderr(&a));
    assert!(e.kube.evictions().is_empty());
}

/// New-user trial 46: a policy path ending in `passwd` or `password` had
/// the words after it masked as a credential (`policy …/passwd: ***):`,
/// `nonexist-password: *** such file`), and a whole file that is no
/// policy was quoted whole.
#[test]
fn a_policy_path_named_like_a_secret_is_shown_as_typed() {
    let e = env();
    let passwd = e.path("passwd");
    let lines: String = (0..40).map(|i| format!("user{i}:x:{i}:{i}:user:/home/user{i}:/bin/sh\n")).collect();
    write(Path::new(&passwd), &lines);
    let a = e.with_cluster(&["rebalance", "plan", "--policy", &passwd]).assert().code(2);
    let err = stderr(&a);
    assert!(
        err.contains(&format!("policy {passwd}: (document): expected a mapping, got string \"user0:x:0:0:")),
        "{err}"
    );
    assert!(err.contains("… (") && !err.contains("user39"), "quoted whole: {err}");
    let missing = e.path("nonexist-password");
    let a = e.with_cluster(&["rebalance", "plan", "--policy", &missing]).assert().code(2);
    assert!(stderr(&a).contains(&format!("{missing}: No such file or directory")), "{}", stderr(&a));
}

/// deploy/rebalance/rebalance-cronjob.yaml's container args, as written.
const DEPLOY: &str = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../deploy/rebalance/rebalance-cronjob.yaml"));

/// The CronJob's args with the ConfigMap's policy file at a local path and
/// no wait for replacements (the fake has no controllers).
fn deployed_args(e: &Env) -> Vec<String> {
    let start = DEPLOY.find("              args:\n").expect("args") + "              args:\n".len();
    let args: Vec<String> = DEPLOY[start..]
        .lines()
        .take_while(|l| l.trim_start().starts_with("- "))
        .map(|l| l.trim_start().trim_start_matches("- ").trim_matches('"').to_string())
        .collect();
    assert_eq!(args[..5], ["rebalance", "run", "--policy", "/etc/kdrift/policy.yaml", "--yes"]);
    let homelab = e.path("homelab.yaml");
    write(Path::new(&homelab), include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/homelab-policy.yaml")));
    let mut args: Vec<String> =
        args.into_iter().map(|a| if a == "/etc/kdrift/policy.yaml" { homelab.clone() } else { a }).collect();
    if let Some(i) = args.iter().position(|a| a == "--ready-timeout") {
        args[i + 1] = "0".to_string();
    }
    args
}

#[test]
fn the_cron_jobs_command_runs_against_a_cluster() {
    let e = env();
    let args = deployed_args(&e);
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let run = e.with_cluster(&refs).assert().success();
    // node-1 at 90 % cpu, target 80 %: one 450m pod is enough.
    assert_eq!(e.evicted().len(), 1, "{}", stdout(&run));
    assert!(!e.db.exists(), "--no-store: no store written");
}

/// Issue 38 item 5: the deployed nightly run and `kdrift check` agree. The
/// check documented in the YAML's header (`kdrift check --max-age 26h
/// --cronjob kdrift/kdrift-rebalance`), run from anywhere (no store there),
/// passes once the CronJob the YAML deploys has succeeded; the store-based
/// variant the header describes (`--db /var/lib/kdrift/kdrift.duckdb` in
/// place of `--no-store`) passes on the store that run wrote.
#[test]
fn the_documented_check_passes_after_a_run_as_deployed() {
    let e = env();
    let cluster = e.kubeconfig.display().to_string();
    let documented = DEPLOY
        .lines()
        .find_map(|l| l.trim_start_matches('#').trim().strip_prefix("kdrift check "))
        .and_then(|l| l.split('#').next())
        .expect("the header documents the check");
    let check: Vec<&str> = std::iter::once("check").chain(documented.split_whitespace()).collect();
    assert_eq!(check, ["check", "--max-age", "26h", "--cronjob", "kdrift/kdrift-rebalance"]);
    let cron_job = DEPLOY.split("\n---\n").find(|d| d.contains("kind: CronJob\n")).expect("a CronJob");
    assert!(cron_job.contains("metadata:\n  name: kdrift-rebalance\n  namespace: kdrift\n"), "{cron_job}");

    // As deployed (--no-store): the Job succeeds, the controller sets lastSuccessfulTime.
    let args = deployed_args(&e);
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    e.with_cluster(&refs).assert().success();
    let finished = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    e.kube
        .create(json!({"apiVersion": "batch/v1", "kind": "CronJob",
            "metadata": {"namespace": "kdrift", "name": "kdrift-rebalance"},
            "spec": {"schedule": "0 2 * * *", "jobTemplate": {"spec": {"template": {"spec": {"containers": []}}}}},
            "status": {"lastSuccessfulTime": finished}}))
        .expect("cronjob");
    // Without --cronjob, where no store is, the check says where to look (it said "no store" alone).
    let elsewhere = e.dir.path().join("kdrift.duckdb");
    let never = e.kdrift_db(&elsewhere, &check[..3]).assert().code(1);
    assert_eq!(
        stdout(&never),
        format!(
            "NEVER: no successful rebalance (store {}: no store; the CronJob deploy/rebalance installs runs with \
             --no-store: add --cronjob kdrift/kdrift-rebalance to read its status.lastSuccessfulTime; max age 26h)\n",
            elsewhere.display()
        )
    );
    let mut documented_check = check.clone();
    documented_check.extend(["--kubeconfig", &cluster]);
    let ok = e.kdrift_db(&elsewhere, &documented_check).assert().success();
    assert!(
        stdout(&ok).starts_with("OK: last successful rebalance ") && stdout(&ok).contains("s ago ("),
        "{}",
        stdout(&ok)
    );
    assert!(stdout(&ok).contains("CronJob kdrift/kdrift-rebalance"), "{}", stdout(&ok));

    // The store-based variant: --db /var/lib/kdrift/kdrift.duckdb in place of --no-store.
    let volume = e.path("var-lib-kdrift.duckdb");
    let with_store: Vec<&str> =
        refs.iter().flat_map(|a| if *a == "--no-store" { vec!["--db", volume.as_str()] } else { vec![*a] }).collect();
    let run = e.with_cluster(&with_store).assert().success();
    // node-1 was balanced by the first night: a night with nothing to do is a success the check counts.
    assert!(stdout(&run).contains("\n0 planned: 0 evicted,"), "{}", stdout(&run));
    assert_eq!(e.evicted().len(), 1);
    let ok = e.kdrift_db(Path::new(&volume), &["check", "--max-age", "26h"]).assert().success();
    assert!(
        stdout(&ok).starts_with("OK: last successful rebalance ") && stdout(&ok).contains("s ago ("),
        "{}",
        stdout(&ok)
    );
    assert!(stdout(&ok).contains("var-lib-kdrift.duckdb run rebalance-"), "{}", stdout(&ok));
}

#[test]
fn a_list_the_cluster_refuses_is_an_error_not_an_empty_plan() {
    let e = env();
    e.kube.fail_resource("pods", 403);
    let policy = e.policy.display().to_string();
    let a = e.with_cluster(&["rebalance", "plan", "--policy", &policy]).assert().code(2);
    assert!(stderr(&a).contains("reading pods from the cluster"), "{}", stderr(&a));
    assert!(stderr(&a).contains("403"), "{}", stderr(&a));
    let a = e.with_cluster(&["rebalance", "run", "--policy", &policy, "--yes"]).assert().code(2);
    assert!(stderr(&a).contains("reading pods from the cluster"), "{}", stderr(&a));
    assert!(e.kube.evictions().is_empty());
}

#[test]
fn an_api_server_that_refuses_the_connection_is_named_once_with_the_cause() {
    // It printed kube's own ERROR log line, then "ServiceError: client error
    // (Connect)" without the server or the refusal.
    let e = env();
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        l.local_addr().expect("addr").port()
    };
    let kubeconfig = e.dir.path().join("down.kubeconfig");
    let config = std::fs::read_to_string(&e.kubeconfig).expect("kubeconfig");
    let server = format!("http://127.0.0.1:{port}");
    std::fs::write(&kubeconfig, config.replace(e.kube.url(), &server)).expect("write");
    let policy = e.policy.display().to_string();
    let a = e.kdrift(&["rebalance", "plan", "--policy", &policy, "--kubeconfig"]).arg(&kubeconfig).assert().code(2);
    let err = stderr(&a);
    assert_eq!(err.lines().count(), 1, "one line, no log lines: {err}");
    assert!(err.starts_with(&format!("kdrift: error: reading the cluster at {server}")), "{err}");
    assert!(err.to_lowercase().contains("connection refused"), "{err}");
}

/// A Status whose message quotes the request's `Authorization` header (raw,
/// base64, URL-encoded, JSON-escaped): `kdrift -vv rebalance plan
/// --kubeconfig` with a bearer token, then Basic auth, shows no form of
/// either (nor 6 characters of it) on stdout or stderr (kube's debug log
/// included), while the echo itself is reported.
#[test]
fn plan_against_a_server_echoing_the_authorization_header_shows_no_form_of_the_credentials() {
    use kdrift_tests::leaks::HOSTILE;
    let e = env();
    e.kube.fail_resource("pods", 500);
    e.kube.echo_authorization();
    let policy = e.policy.display().to_string();
    for (basic, scheme) in [(false, "bearer token"), (true, "Basic auth")] {
        let kubeconfig = e.dir.path().join(format!("hostile-{basic}.kubeconfig"));
        let config = e.kube.kubeconfig(None).replace("    token: fake-token\n", &HOSTILE.kube_user(basic));
        std::fs::write(&kubeconfig, config).expect("kubeconfig");
        let a = e
            .kdrift(&["-vv", "rebalance", "plan", "--policy", &policy, "--kubeconfig"])
            .arg(&kubeconfig)
            .env_remove("KDRIFT_LOG")
            .assert()
            .code(2);
        let (out, err) = (stdout(&a), stderr(&a));
        let last = err.lines().last().unwrap_or_default();
        assert!(last.starts_with("kdrift: error: reading the cluster at"), "{err}");
        assert!(
            last.contains(
                "the request had Authorization: *** (base64 ***, unpadded ***, URL-encoded ***, JSON-escaped \"***\")"
            ),
            "{last}"
        );
        assert!(err.contains("DEBUG"), "kube's debug log is on: {err}");
        HOSTILE.assert_absent_from_kube(&out, &format!("stdout ({scheme})"));
        HOSTILE.assert_absent_from_kube(&err, &format!("stderr with -vv ({scheme})"));
    }
}

/// Evictions refused with a 429 whose message quotes the request's
/// `Authorization` header: `kdrift -vv rebalance run --yes` with a bearer
/// token, then Basic auth, shows no form of either on stdout (the report,
/// with the refusal), stderr, or in any row of the store.
#[test]
fn run_against_evictions_echoing_the_authorization_header_shows_no_form_of_the_credentials() {
    use kdrift_tests::fake_kube::EvictionFault;
    use kdrift_tests::leaks::{self, HOSTILE};
    let e = env();
    e.kube.fail_evictions(EvictionFault::TooManyRequests, None, None);
    e.kube.echo_authorization();
    let policy = e.policy.display().to_string();
    for (basic, scheme) in [(false, "bearer token"), (true, "Basic auth")] {
        let kubeconfig = e.dir.path().join(format!("hostile-{basic}.kubeconfig"));
        let config = e.kube.kubeconfig(None).replace("    token: fake-token\n", &HOSTILE.kube_user(basic));
        std::fs::write(&kubeconfig, config).expect("kubeconfig");
        let a = e
            .kdrift(&["-vv", "rebalance", "run", "--policy", &policy, "--yes", "--ready-timeout", "0", "-o", "json"])
            .arg("--kubeconfig")
            .arg(&kubeconfig)
            .env_remove("KDRIFT_LOG")
            .assert();
        let (out, err) = (stdout(&a), stderr(&a));
        assert!(out.contains("Authorization: *** (base64 ***, unpadded ***, URL-encoded ***"), "{out}\n{err}");
        assert!(err.contains("DEBUG"), "kube's debug log is on: {err}");
        assert!(e.evicted().is_empty(), "every eviction refused");
        HOSTILE.assert_absent_from_kube(&out, &format!("stdout ({scheme})"));
        HOSTILE.assert_absent_from_kube(&err, &format!("stderr with -vv ({scheme})"));
        let stored = leaks::store_text(&e.db);
        assert!(stored.contains("Authorization: ***"), "the refusal is stored: {stored}");
        HOSTILE.assert_absent_from_kube(&stored, &format!("the store ({scheme})"));
    }
}

/// Break-it 31 F2: a live API server that echoes the kubeconfig's token
/// into a pod's name (`w0-<token>`). `rebalance plan --live` (table, `-o
/// json`, `--out`) names it `apps/***`, as the store would; `rebalance run
/// --yes` skips it (MaskedName, the reason said) and evicts the others;
/// no output shows the token, in any case.
#[test]
fn a_pod_named_with_the_held_token_is_shown_masked_by_plan_live_and_not_evicted_by_run() {
    const TOKEN: &str = "echotokq7h3k9q2w8e5r1zz";
    let kube = FakeKube::start();
    busy_cluster::load(&kube);
    kube.delete("v1", "Pod", "apps", "w0").expect("w0");
    kube.create(busy_cluster::pod(&format!("w0-{TOKEN}"), "node-1", 450)).expect("pod");
    let dir = tempfile::tempdir().expect("tmp");
    let kubeconfig = dir.path().join("kubeconfig");
    let config = kube.kubeconfig(None).replace("token: fake-token", &format!("token: {}", TOKEN.to_uppercase()));
    assert!(config.contains(&TOKEN.to_uppercase()), "{config}");
    write(&kubeconfig, &config);
    let policy = dir.path().join("policy.yaml");
    write(&policy, BUSY_POLICY);
    let e = Env { kube, db: dir.path().join("kdrift.duckdb"), dir, kubeconfig, policy };
    let policy = e.policy.display().to_string();
    let leak = |what: &str, text: &str| assert!(!text.to_lowercase().contains(TOKEN), "{what}: {text}");

    let out = e.path("plan.json");
    let a = e.with_cluster(&["-o", "json", "rebalance", "plan", "--policy", &policy, "--out", &out]).assert().success();
    leak("plan -o json", &stdout(&a));
    leak("plan stderr", &stderr(&a));
    let file = std::fs::read_to_string(&out).expect("plan file");
    leak("plan --out", &file);
    let doc: Value = serde_json::from_str(&file).expect("plan JSON");
    let names = planned(&doc);
    assert_eq!(names.len(), 4, "{names:?}");
    assert!(names.contains(&"apps/***".to_string()), "{names:?}");
    let a = e.with_cluster(&["rebalance", "plan", "--policy", &policy]).assert().success();
    let table = stdout(&a);
    leak("plan table", &table);
    assert!(table.contains("apps/***"), "{table}");

    let a = e.with_cluster(&["rebalance", "run", "--policy", &policy, "--yes", "--ready-timeout", "0"]).assert();
    let (report, err) = (stdout(&a), stderr(&a));
    leak("run report", &report);
    leak("run stderr", &err);
    let line = report.lines().find(|l| l.contains("apps/***")).unwrap_or_default();
    assert!(line.contains("skipped (MaskedName)"), "{report}");
    assert!(
        line.contains(
            "the pod's name holds a credential kdrift holds (the API server echoes it; shown masked): kdrift does \
             not evict a pod it cannot name; check the API server, then evict the pod yourself"
        ),
        "{report}"
    );
    let evicted = e.evicted();
    assert_eq!(evicted.len(), 3, "{evicted:?}");
    assert!(evicted.iter().all(|p| p.starts_with("apps/w") && !p.contains(TOKEN)), "{evicted:?}");
}

#[test]
fn an_eviction_a_pdb_allows_no_disruption_for_is_shown_refused_and_not_counted() {
    let e = env();
    e.kube
        .create(json!({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
            "metadata": {"namespace": "apps", "name": "w0-pdb"},
            "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "w0"}}},
            "status": {"disruptionsAllowed": 0}}))
        .expect("pdb");
    let policy = e.policy.display().to_string();
    let plan = e.with_cluster(&["rebalance", "plan", "--policy", &policy]).assert().success();
    let out = stdout(&plan);
    // w0 comes first in descheduler's order and is refused; it frees nothing,
    // so four others are still evicted (w1–w4) and the total stays 4.
    assert!(
        out.contains("REFUSED: descheduler will try it and the API will refuse it (429, PDB apps/w0-pdb)"),
        "{out}"
    );
    assert!(out.contains("4 evictions planned"), "{out}");
    assert!(
        out.contains(
            "eviction #1 of apps/w0 (LowNodeUtilization): descheduler will try it and the API will refuse it (429, PDB \
             apps/w0-pdb) — status.disruptionsAllowed 0: it frees nothing and lands nowhere"
        ),
        "{out}"
    );
    let json = e.with_cluster(&["rebalance", "plan", "--policy", &policy, "-o", "json"]).assert().success();
    let doc: Value = serde_json::from_str(&stdout(&json)).expect("plan document");
    assert_eq!(planned(&doc), ["apps/w0", "apps/w1", "apps/w2", "apps/w3", "apps/w4"]);
}

/// The busy cluster with something for every plugin of [`WHOLE_POLICY`] (issue 36 item 7).
fn whole_env() -> Env {
    let e = env();
    busy_cluster::load_whole_policy_extras(&e.kube);
    write(&e.policy, WHOLE_POLICY);
    e
}

/// The whole-policy plan, in cycle order: Deschedule plugins first.
const WHOLE_ORDER: [(&str, &str); 7] = [
    ("apps/a", "RemovePodsViolatingNodeTaints"),
    ("apps/b", "RemovePodsHavingTooManyRestarts"),
    ("apps/d1", "RemoveDuplicates"),
    ("apps/w0", "LowNodeUtilization"),
    ("apps/w1", "LowNodeUtilization"),
    ("apps/w2", "LowNodeUtilization"),
    ("apps/w3", "LowNodeUtilization"),
];

fn whole_order() -> Vec<(String, String)> {
    WHOLE_ORDER.iter().map(|(p, g)| (p.to_string(), g.to_string())).collect()
}

#[test]
fn a_whole_policy_plan_is_applied_in_cycle_order_naming_each_plugin() {
    let e = whole_env();
    let policy = e.policy.display().to_string();
    let file = e.path("plan.json");
    e.with_cluster(&["rebalance", "plan", "--policy", &policy, "--out", &file]).assert().success();
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&file).expect("plan")).expect("json");
    let plugins: Vec<(String, String)> = planned(&doc)
        .into_iter()
        .zip(doc["evictions"].as_array().expect("evictions"))
        .map(|(p, ev)| (p, ev["plugin"].as_str().unwrap_or("").to_string()))
        .collect();
    assert_eq!(plugins, whole_order());

    e.kube.fail_evictions(kdrift_tests::fake_kube::EvictionFault::TooManyRequests, Some(("apps", "w1")), None);
    let applied = e.with_cluster(&["rebalance", "apply", &file, "--ready-timeout", "0"]).assert().success();
    let out = stdout(&applied);
    assert!(out.contains("7 planned: 6 evicted, 1 blocked by a PodDisruptionBudget, 0 skipped"), "{out}");
    let rows: Vec<Vec<&str>> = out
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .filter(|w| w.len() >= 5 && w[0].parse::<usize>().is_ok() && w[1].starts_with("apps/"))
        .collect();
    let table: Vec<(String, String, String)> =
        rows.iter().map(|w| (w[1].to_string(), w[3].to_string(), w[4].to_string())).collect();
    let want: Vec<(String, String, String)> = WHOLE_ORDER
        .iter()
        .map(|(p, g)| (p.to_string(), g.to_string(), if *p == "apps/w1" { "blocked" } else { "evicted" }.to_string()))
        .collect();
    assert_eq!(table, want, "{out}");
    let mut attempts: Vec<String> = WHOLE_ORDER.iter().map(|(p, _)| p.to_string()).collect();
    assert_eq!(
        e.kube.evictions().iter().map(|x| format!("{}/{}", x.namespace, x.name)).collect::<Vec<_>>(),
        attempts,
        "attempted in the plan's order"
    );
    attempts.remove(4);
    assert_eq!(e.evicted(), attempts);
}

#[test]
fn run_with_yes_executes_the_whole_policy_and_the_store_names_each_plugin() {
    let e = whole_env();
    let policy = e.policy.display().to_string();
    let run = e
        .with_cluster(&["rebalance", "run", "--policy", &policy, "--yes", "--ready-timeout", "0", "-o", "json"])
        .assert()
        .success();
    let report: Value = serde_json::from_str(&stdout(&run)).expect("report");
    assert_eq!(report["outcome"], "Succeeded");
    let results: Vec<(String, String)> = report["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|r| (r["pod"].as_str().unwrap_or("").to_string(), r["plugin"].as_str().unwrap_or("").to_string()))
        .collect();
    assert_eq!(results, whole_order());
    assert_eq!(e.evicted(), WHOLE_ORDER.iter().map(|(p, _)| p.to_string()).collect::<Vec<_>>());

    // `kdrift query event_list`: kdrift's events say which plugin triggered each eviction.
    let q = e.kdrift(&["query", "event_list", "-o", "json"]).assert().success();
    let rows: Vec<Value> = serde_json::from_str(&stdout(&q)).expect("rows");
    let mut triggered: Vec<(String, String)> = rows
        .iter()
        .filter(|r| r["reporting_component"] == "kdrift" && r["reason"] == "Evicted")
        .map(|r| {
            let m = r["message"].as_str().unwrap_or("");
            let plugin = m.split("triggered by whole/").nth(1).and_then(|t| t.split(')').next()).unwrap_or("");
            (format!("apps/{}", r["involved_name"].as_str().unwrap_or("")), plugin.to_string())
        })
        .collect();
    triggered.sort();
    let mut want = whole_order();
    want.sort();
    assert_eq!(triggered, want, "{}", stdout(&q));
}

/// The stderr lines of a run, each `m:ss` clock read as `M:SS` (the waits vary).
fn progress_lines(err: &str) -> Vec<String> {
    err.lines()
        .filter(|l| l.starts_with('['))
        .map(|l| {
            l.split(' ')
                .map(|w| {
                    let clock = w.split_once(':').is_some_and(|(m, s)| {
                        !m.is_empty()
                            && m.bytes().all(|b| b.is_ascii_digit())
                            && s.len() == 2
                            && s.bytes().all(|b| b.is_ascii_digit())
                    });
                    if clock {
                        "M:SS"
                    } else {
                        w
                    }
                })
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect()
}

/// Issue 38 item 3: with stderr not a terminal (a CronJob's log), `rebalance
/// apply` writes two plain lines per eviction as it happens (evicted, then
/// replaced, on the node the fake lands it on, against the simulation's
/// prediction) and one for the eviction a PodDisruptionBudget refused,
/// counted `[i/N]` in plan order; stdout keeps the report alone.
#[test]
fn apply_prints_a_plain_progress_line_per_eviction_in_order() {
    let e = env();
    let file = e.path("plan.json");
    let policy = e.policy.display().to_string();
    e.with_cluster(&["rebalance", "plan", "--policy", &policy, "--simulate", "--out", &file]).assert().success();
    e.kube.fail_evictions(kdrift_tests::fake_kube::EvictionFault::TooManyRequests, Some(("apps", "w1")), None);
    let originals = e.kube.objects("v1", "Pod");
    let stop = std::sync::atomic::AtomicBool::new(false);
    let applied = std::thread::scope(|scope| {
        scope.spawn(|| busy_cluster::replace_evicted(&e.kube, &originals, "node-3", &stop));
        let a = e.with_cluster(&["rebalance", "apply", &file, "--ready-timeout", "30s"]).assert().success();
        stop.store(true, std::sync::atomic::Ordering::SeqCst);
        a
    });
    let err = stderr(&applied);
    assert_eq!(
        progress_lines(&err),
        [
            "[1/4] evicted apps/w0 from node-1 — waiting for its replacement",
            "[1/4] apps/w0 replaced by apps/w0-r on node-3 (predicted node-2) after M:SS",
            "[2/4] apps/w1 refused by a PodDisruptionBudget: Cannot evict pod as it would violate the pod's disruption budget.",
            "[3/4] evicted apps/w2 from node-1 — waiting for its replacement",
            "[3/4] apps/w2 replaced by apps/w2-r on node-3 (predicted node-2) after M:SS",
            "[4/4] evicted apps/w3 from node-1 — waiting for its replacement",
            "[4/4] apps/w3 replaced by apps/w3-r on node-3 after M:SS",
        ],
        "{err}"
    );
    assert!(!err.contains('\r') && !err.contains('\u{1b}'), "no carriage return, no ANSI: {err:?}");
    assert!(!stdout(&applied).contains("[1/4]"), "progress stays off stdout");
}

/// `--log-format json`: every stderr line is a JSON object; the progress
/// events (target `kdrift::progress`) carry the eviction's fields.
#[test]
fn apply_with_log_format_json_writes_progress_as_json_events() {
    let e = env();
    let file = e.path("plan.json");
    let policy = e.policy.display().to_string();
    e.with_cluster(&["rebalance", "plan", "--policy", &policy, "--out", &file]).assert().success();
    let applied = e
        .with_cluster(&["rebalance", "apply", &file, "--ready-timeout", "0", "--log-format", "json"])
        .assert()
        .success();
    let err = stderr(&applied);
    let events: Vec<Value> =
        err.lines().map(|l| serde_json::from_str(l).unwrap_or_else(|x| panic!("not JSON ({x}): {l}"))).collect();
    let progress: Vec<(String, u64, u64, String, String, String)> = events
        .iter()
        .filter(|v| v["target"] == "kdrift::progress")
        .map(|v| {
            assert_eq!(v["level"], "INFO", "{v}");
            (
                v["event"].as_str().unwrap_or("").to_string(),
                v["index"].as_u64().unwrap_or(0),
                v["total"].as_u64().unwrap_or(0),
                v["pod"].as_str().unwrap_or("").to_string(),
                v["node"].as_str().unwrap_or("").to_string(),
                v["outcome"].as_str().unwrap_or("-").to_string(),
            )
        })
        .collect();
    let want: Vec<(String, u64, u64, String, String, String)> = (0..4u64)
        .flat_map(|i| {
            let pod = format!("apps/w{i}");
            [
                ("evicted".to_string(), i + 1, 4, pod.clone(), "node-1".to_string(), "-".to_string()),
                ("settled".to_string(), i + 1, 4, pod, "node-1".to_string(), "Evicted".to_string()),
            ]
        })
        .collect();
    assert_eq!(progress, want, "{err}");
    let first = events.iter().find(|v| v["target"] == "kdrift::progress").expect("an event");
    assert_eq!(first["message"], "[1/4] evicted apps/w0 from node-1");
}

/// `NO_COLOR`: the progress lines are there, with no escape byte.
#[test]
fn apply_with_no_color_writes_no_escape_byte() {
    let e = env();
    let file = e.path("plan.json");
    let policy = e.policy.display().to_string();
    e.with_cluster(&["rebalance", "plan", "--policy", &policy, "--out", &file]).assert().success();
    let applied = e
        .with_cluster(&["rebalance", "apply", &file, "--ready-timeout", "0", "-v"])
        .env("NO_COLOR", "1")
        .assert()
        .success();
    let err = stderr(&applied);
    assert!(!err.contains('\u{1b}'), "{err:?}");
    assert_eq!(
        progress_lines(&err)[..2],
        [
            "[1/4] evicted apps/w0 from node-1".to_string(),
            "[1/4] apps/w0 evicted; its replacement not awaited (--ready-timeout 0)".to_string()
        ],
        "{err}"
    );
}
