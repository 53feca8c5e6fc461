//! kubectl habits (kdrift issue 38 item 4): one duration grammar on every
//! duration flag, relative times beside RFC 3339 on every TIME flag,
//! `kdrift completion`, `kubectl kdrift`, `-o yaml|wide`, `--no-headers`
//! and `-n`/`-A`/`-l` as kubectl has them.

use assert_cmd::Command;

fn kdrift(db: &std::path::Path) -> Command {
    let mut c = Command::cargo_bin("kdrift").expect("binary");
    c.arg("--db").arg(db).env_remove("KDRIFT_DB").env_remove("KDRIFT_VL_PASSWORD").env_remove("KDRIFT_PROM_PASSWORD");
    c
}

/// The first line of stderr and of stdout of a run.
fn first_lines(c: &mut Command) -> (String, String) {
    let out = c.output().expect("runs");
    let first = |b: &[u8]| String::from_utf8_lossy(b).lines().next().unwrap_or_default().to_string();
    (first(&out.stderr), first(&out.stdout))
}

#[test]
fn every_duration_flag_reads_one_grammar_and_names_its_own_range() {
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("none.duckdb");
    let vl = ["ingest", "victorialogs", "--url", "http://127.0.0.1:1", "--attempts", "1"];
    let refused = |flag: &str, value: &str, name: &str, expected: &str| {
        format!("error: invalid value '{value}' for '{flag} <{name}>': expected {expected}, got {value:?}")
    };
    // 1m30s is taken by --retry-delay as by --ready-timeout (issue 38: it was refused).
    let accepted: Vec<(Vec<&str>, &str)> = vec![
        (
            [&vl[..], &["--retry-delay", "1m30s", "--request-timeout", "1m30s"]].concat(),
            "kdrift: error: request to http://127.0.0.1:1/select/logsql/field_names failed",
        ),
        (
            vec!["rebalance", "apply", "none.json", "--ready-timeout", "1m30s"],
            "kdrift: error: reading none.json: No such file or directory (os error 2)",
        ),
        (
            vec!["ingest", "api", "--request-timeout", "1m30s", "--kubeconfig", "/nonexistent"],
            "kdrift: error: kubeconfig /nonexistent: failed to read it: No such file or directory (os error 2)",
        ),
        (
            vec!["ingest", "api", "--request-timeout", "90", "--kubeconfig", "/nonexistent"],
            "kdrift: error: kubeconfig /nonexistent: failed to read it: No such file or directory (os error 2)",
        ),
        (vec!["skew", "--usage", "--window", "1d12h"], "kdrift: error: opening store"),
        (vec!["hotspots", "--step", "1h30m"], "kdrift: error: opening store"),
    ];
    for (i, (args, start)) in accepted.into_iter().enumerate() {
        let fresh = dir.path().join(format!("{i}.duckdb"));
        let (stderr, _) = first_lines(kdrift(&fresh).current_dir(dir.path()).args(&args));
        assert!(stderr.starts_with(start), "{args:?}: {stderr}");
    }
    let (_, stdout) = first_lines(kdrift(&db).args(["check", "--max-age", "1d12h"]));
    assert_eq!(
        stdout,
        format!(
            "NEVER: no successful rebalance (store {}: no store; the CronJob deploy/rebalance installs runs with \
             --no-store: add --cronjob kdrift/kdrift-rebalance to read its status.lastSuccessfulTime; max age 1d12h)",
            db.display()
        )
    );
    let whole = ", in whole seconds";
    let rows: Vec<(Vec<&str>, String)> = vec![
        ([&vl[..], &["--retry-delay", "1m30x"]].concat(),
         "error: invalid value '1m30x' for '--retry-delay <DURATION>': expected a duration such as 1h30m, 90s, 1d or \
          500ms (units d, h, m, s, ms), got \"1m30x\"".to_string()),
        ([&vl[..], &["--retry-delay", "2h"]].concat(), refused("--retry-delay", "2h", "DURATION", "a duration from 0s to 1h")),
        ([&vl[..], &["--request-timeout", "500ms"]].concat(),
         refused("--request-timeout", "500ms", "DURATION", "a duration from 1s to 1d")),
        (vec!["rebalance", "apply", "p.json", "--ready-timeout", "1500ms"],
         refused("--ready-timeout", "1500ms", "DURATION", &format!("0 or a duration of at least 1s{whole}"))),
        (vec!["sessions", "annotate", "--probe", "app=x=http://127.0.0.1:1/", "--every", "500ms"],
         refused("--every", "500ms", "DURATION", &format!("a duration of at least 1s{whole}"))),
        (vec!["record", "--metrics-interval", "500ms"],
         refused("--metrics-interval", "500ms", "DURATION", &format!("a duration of at least 1s{whole}"))),
        (vec!["rebalance", "plan", "--usage-window", "0s"],
         refused("--usage-window", "0s", "SPAN", &format!("a duration of at least 1s{whole}"))),
        (vec!["check", "--max-age", "0"], refused("--max-age", "0", "DURATION", &format!("a duration of at least 1s{whole}"))),
        (vec!["record", "--batch-seconds", "2h"],
         refused("--batch-seconds", "2h", "DURATION", &format!("a duration from 1s to 1h{whole}"))),
        (vec!["ingest", "api", "--request-timeout", "0"],
         refused("--request-timeout", "0", "DURATION", &format!("a duration from 1s to 1h{whole} (a bare number is seconds)"))),
        (vec!["skew", "--usage", "--window", "1w"],
         "error: invalid value '1w' for '--window <DURATION>': expected a duration such as 1h30m, 90s, 1d or 500ms \
          (units d, h, m, s, ms), got \"1w\"".to_string()),
    ];
    for (args, expected) in rows {
        let out = kdrift(&db).args(&args).output().expect("runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(stderr.lines().next().unwrap_or_default(), expected, "{args:?}");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
    }
}

#[test]
fn time_flags_take_a_duration_before_now_beside_rfc_3339() {
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("k.duckdb");
    // The first window of a pull names its start: --start 2h is two hours before now.
    let before = chrono::Utc::now();
    let prom =
        ["ingest", "prometheus", "--url", "http://127.0.0.1:1", "--attempts", "1", "--start", "2h", "--end", "1h"];
    let (stderr, _) = first_lines(kdrift(&db).args(prom));
    let after = chrono::Utc::now();
    let start = stderr
        .strip_prefix("kdrift: error: window [")
        .and_then(|rest| rest.split(',').next())
        .and_then(|t| chrono::DateTime::parse_from_rfc3339(t).ok())
        .unwrap_or_else(|| panic!("a window start in {stderr}"));
    let two_hours = chrono::Duration::hours(2);
    // Printed to the whole second (docs/cli.md "Times"): up to 1 s before.
    let second = chrono::Duration::seconds(1);
    assert!(
        start >= before - two_hours - second && start <= after - two_hours,
        "{start} is not 2h before {before}..{after}"
    );
    // RFC 3339 and microseconds still read; a word that is neither names every form.
    for at in ["2026-11-28T07:00:00+02:00", "1795838400000000", "30m", "now"] {
        let out = kdrift(&db).args(["timeline", "drains", "--since", at, "--until", "now"]).output().expect("runs");
        assert_eq!(out.status.code(), Some(1), "{at}: {}", String::from_utf8_lossy(&out.stderr));
    }
    let (stderr, _) = first_lines(kdrift(&db).args(["why-pending", "--all", "--since", "yesterday"]));
    assert_eq!(
        stderr,
        "error: invalid value 'yesterday' for '--since <TIME>': expected an RFC 3339 time such as 2026-11-13T00:00:00Z or \
         2026-11-13T02:00:00+02:00 (date, T, time, then Z or a UTC offset), or UTC microseconds since the epoch such as \
         1794528000000000, or a duration before now such as 2h, 30m or 1d12h, or now, got \"yesterday\""
    );
}

/// The top-level commands, in the order the CLI defines them.
const COMMANDS: [&str; 16] = [
    "ingest",
    "why-pending",
    "demo",
    "query",
    "rebalance",
    "record",
    "check",
    "skew",
    "hotspots",
    "postmortem",
    "timeline",
    "sessions",
    "report",
    "completion",
    "version",
    "help",
];

#[test]
fn completion_prints_a_static_script_naming_every_command_for_bash_zsh_and_fish() {
    let script = |shell: &str| {
        let out = Command::cargo_bin("kdrift").expect("binary").args(["completion", shell]).output().expect("runs");
        assert_eq!(out.status.code(), Some(0), "{shell}");
        String::from_utf8(out.stdout).expect("utf-8")
    };
    let commands = COMMANDS.to_vec();
    let mut sorted = commands.clone();
    sorted.sort_unstable();
    // bash: a case per command, in name order, and the registration for `kdrift`.
    let bash = script("bash");
    let cases: Vec<&str> =
        bash.lines().filter_map(|l| l.trim().strip_prefix("kdrift,").and_then(|c| c.strip_suffix(')'))).collect();
    assert_eq!(cases, sorted);
    assert!(bash.lines().any(|l| l == "    complete -F _kdrift -o nosort -o bashdefault -o default kdrift"), "{bash}");
    // zsh: a compdef for kdrift, each command with its help line.
    let zsh = script("zsh");
    assert_eq!(zsh.lines().next(), Some("#compdef kdrift"));
    assert_eq!(zsh.lines().last(), Some("fi"));
    assert!(zsh.contains("\n    compdef _kdrift kdrift\n"));
    assert!(zsh.contains("'why-pending:Explain why a pod stayed Pending (or list every pod that did)' \\"), "{zsh}");
    for command in &commands {
        assert!(zsh.contains(&format!("\n'{command}:")), "zsh: {command}");
    }
    // fish: one `complete` line per command.
    let fish = script("fish");
    let mut offered: Vec<&str> = fish
        .lines()
        .filter_map(|l| l.strip_prefix("complete -c kdrift -n \"__fish_kdrift_needs_command\" -f -a \""))
        .filter_map(|l| l.split('"').next())
        .collect();
    offered.sort_unstable();
    assert_eq!(offered, sorted);
    assert_eq!(
        fish.lines().find(|l| l.contains("-a \"postmortem\"")),
        Some(
            "complete -c kdrift -n \"__fish_kdrift_needs_command\" -f -a \"postmortem\" -d 'Why something failed, from \
             the store\\'s history'"
        )
    );
}

#[test]
fn dynamic_completion_offers_the_stores_job_and_pod_names() {
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("demo.duckdb");
    Command::cargo_bin("kdrift").expect("binary").args(["demo", "--save"]).arg(&db).assert().success();
    // What the registered shell function runs at a Tab (clap_complete's protocol for bash).
    let complete = |words: &[&str], index: usize, store: &std::path::Path| {
        let out = Command::cargo_bin("kdrift")
            .expect("binary")
            .env("KDRIFT_COMPLETE", "bash")
            .env("_CLAP_COMPLETE_INDEX", index.to_string())
            .env("_CLAP_COMPLETE_COMP_TYPE", "9")
            .env("_CLAP_COMPLETE_SPACE", "true")
            .env("_CLAP_IFS", "\n")
            .env("KDRIFT_DB", store)
            .arg("--")
            .args(words)
            .output()
            .expect("runs");
        assert_eq!(out.status.code(), Some(0), "{words:?}");
        String::from_utf8(out.stdout).expect("utf-8")
    };
    assert_eq!(
        complete(&["kdrift", "postmortem", "job", "media/"], 3, &db),
        "media/backup\nmedia/backup-29929200\nmedia/backup-29930640"
    );
    assert_eq!(complete(&["kdrift", "postmortem", "job", "backup-"], 3, &db), "backup-29929200\nbackup-29930640");
    let pods = complete(&["kdrift", "why-pending", "media/backup-2993"], 2, &db);
    assert_eq!(
        pods.lines().count(),
        pods.lines().filter(|l| l.starts_with("media/backup-29930640-")).count(),
        "{pods}"
    );
    assert!(pods.lines().count() >= 1, "the demo's Pending CronJob pod: {pods}");
    // --db on the line wins over KDRIFT_DB; no store: no names, no error.
    let absent = dir.path().join("absent.duckdb");
    assert_eq!(
        complete(&["kdrift", "--db", db.to_str().expect("utf-8"), "postmortem", "job", "media/"], 5, &absent)
            .lines()
            .count(),
        3
    );
    assert_eq!(complete(&["kdrift", "postmortem", "job", "media/"], 3, &absent), "");
    assert!(!absent.exists(), "completion creates no store");
    // The registration the user sources names the variable and the binary.
    let out =
        Command::cargo_bin("kdrift").expect("binary").args(["completion", "fish", "--dynamic"]).output().expect("runs");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "complete --keep-order --exclusive --command kdrift --arguments \"(KDRIFT_COMPLETE=fish kdrift -- (commandline \
         --current-process --tokenize --cut-at-cursor) (commandline --current-token))\"\n"
    );
}

#[test]
fn as_kubectl_kdrift_the_same_binary_says_kubectl_kdrift_in_its_usage() {
    let dir = tempfile::tempdir().expect("tmp");
    let plugin = dir.path().join("kubectl-kdrift");
    std::fs::copy(assert_cmd::cargo::cargo_bin("kdrift"), &plugin).expect("copy");
    let help = Command::new(&plugin).arg("--help").output().expect("runs");
    let help = String::from_utf8_lossy(&help.stdout);
    assert_eq!(help.lines().nth(2), Some("Usage: kubectl kdrift [OPTIONS] <COMMAND>"), "{help}");
    let bad = Command::new(&plugin).args(["skew", "--bogus"]).output().expect("runs");
    assert_eq!(bad.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&bad.stderr),
        "error: unexpected argument '--bogus' found\n\nUsage: kubectl kdrift skew [OPTIONS]\n\nFor more information, try \
         '--help'.\n"
    );
    // It works the same: the demo runs, and completion registers for the plugin's file name.
    let demo = Command::new(&plugin).args(["-o", "json", "demo"]).output().expect("runs");
    assert_eq!(demo.status.code(), Some(0), "{}", String::from_utf8_lossy(&demo.stderr));
    let bash = Command::new(&plugin).args(["completion", "bash"]).output().expect("runs");
    assert!(String::from_utf8_lossy(&bash.stdout)
        .contains("\n    complete -F _kubectl__kdrift -o nosort -o bashdefault -o default kubectl-kdrift\n"));
    // The plain binary keeps its name.
    let usage = Command::cargo_bin("kdrift").expect("binary").args(["skew", "--bogus"]).output().expect("runs");
    assert!(String::from_utf8_lossy(&usage.stderr).contains("\nUsage: kdrift skew [OPTIONS]\n"));
}

#[test]
fn linked_as_kubectl_complete_kdrift_it_answers_kubectls_plugin_completion() {
    // kubectl 1.26+ runs `kubectl_complete-kdrift WORDS… CURRENT` for
    // `kubectl kdrift WORDS… CURRENT<Tab>` and reads candidates, then Cobra's `:directive`.
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("demo.duckdb");
    Command::cargo_bin("kdrift").expect("binary").args(["demo", "--save"]).arg(&db).assert().success();
    let completer = dir.path().join("kubectl_complete-kdrift");
    std::os::unix::fs::symlink(assert_cmd::cargo::cargo_bin("kdrift"), &completer).expect("link");
    let absent = dir.path().join("absent.duckdb");
    let complete_with = |words: &[&str], store: &std::path::Path| {
        let out = Command::new(&completer).args(words).env("KDRIFT_DB", store).output().expect("runs");
        assert_eq!(out.status.code(), Some(0), "{words:?}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).expect("utf-8")
    };
    let complete = |words: &[&str]| complete_with(words, &db);
    assert_eq!(
        complete(&["postmortem", "job", "media/"]),
        "media/backup\nmedia/backup-29929200\nmedia/backup-29930640\n:4\n"
    );
    let commands = complete(&["why"]);
    assert!(commands.starts_with("why-pending\t"), "{commands}");
    assert!(commands.ends_with("\n:4\n") && commands.lines().count() == 2, "{commands}");
    // A subcommand's flags; the line's --db over KDRIFT_DB, as for the shells.
    assert!(complete(&["skew", "--us"]).starts_with("--usage\t"));
    let words = ["--db", db.to_str().expect("utf-8"), "postmortem", "job", "media/backup-2992"];
    assert_eq!(complete_with(&words, &absent), "media/backup-29929200\n:4\n");
    // Nothing to offer: the shell's default; no store: no names, none created.
    assert_eq!(complete(&["postmortem", "job", "nosuch/"]), ":0\n");
    assert_eq!(complete_with(&["postmortem", "job", "media/"], &absent), ":0\n");
    assert!(!absent.exists());
}

#[test]
fn the_krew_manifest_installs_the_kdrift_binary_as_the_kdrift_plugin() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../deploy/krew/kdrift.yaml");
    let text = std::fs::read_to_string(&path).expect("deploy/krew/kdrift.yaml");
    let manifest: serde_json::Value = serde_yaml::from_str(&text).expect("YAML");
    assert_eq!(manifest["apiVersion"], "krew.googlecontainertools.github.com/v1alpha2");
    assert_eq!((manifest["kind"].as_str(), manifest["metadata"]["name"].as_str()), (Some("Plugin"), Some("kdrift")));
    let platforms = manifest["spec"]["platforms"].as_array().expect("platforms");
    let os_arch: Vec<String> = platforms
        .iter()
        .map(|p| {
            format!("{}/{}", p["selector"]["matchLabels"]["os"], p["selector"]["matchLabels"]["arch"]).replace('"', "")
        })
        .collect();
    assert_eq!(os_arch, ["linux/amd64", "linux/arm64", "darwin/arm64"]);
    for p in platforms {
        assert_eq!(p["bin"], "kdrift");
        assert_eq!(p["files"], serde_json::json!([{"from": "kdrift", "to": "."}]));
    }
}

/// The demo's history, kept in `dir`.
fn demo_store(dir: &std::path::Path) -> std::path::PathBuf {
    let db = dir.join("demo.duckdb");
    Command::cargo_bin("kdrift").expect("binary").args(["demo", "--save"]).arg(&db).assert().success();
    db
}

/// stdout, stderr and the exit code of `kdrift --db DB ARGS`.
fn run(db: &std::path::Path, args: &[&str]) -> (String, String, Option<i32>) {
    let out = kdrift(db).args(args).output().expect("runs");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code(),
    )
}

#[test]
fn output_yaml_wide_and_no_headers_as_kubectl_has_them() {
    let dir = tempfile::tempdir().expect("tmp");
    let db = demo_store(dir.path());
    // -o yaml: the -o json document, in YAML.
    let (json, _, code) = run(&db, &["-o", "json", "why-pending", "--all"]);
    assert_eq!(code, Some(0));
    let (yaml, _, code) = run(&db, &["-o", "yaml", "why-pending", "--all"]);
    assert_eq!(code, Some(0));
    assert_eq!(yaml.lines().take(2).collect::<Vec<_>>(), ["- namespace: media", "  name: backup-29930640-5l8lp"]);
    let from_yaml: serde_json::Value = serde_yaml::from_str(&yaml).expect("YAML");
    let from_json: serde_json::Value = serde_json::from_str(&json).expect("JSON");
    assert_eq!(from_yaml, from_json);
    // --no-headers: the rows alone.
    let (table, _, _) = run(&db, &["--no-headers", "why-pending", "--all"]);
    assert_eq!(
        table,
        " media/backup-29930640-5l8lp   1h 30m   2026-11-28T04:00:00Z   16   never (deleted 05:30:00Z)   1 Insufficient \
         cpu, 4 node(s) didn't match pod affinity rules \n"
    );
    // -o wide: three more columns, no cell cut even under --max-cell-width.
    let (wide, _, _) = run(&db, &["-o", "wide", "--max-cell-width", "10", "why-pending", "--all"]);
    let header: Vec<&str> =
        wide.lines().next().unwrap_or_default().split("   ").map(str::trim).filter(|c| !c.is_empty()).collect();
    assert_eq!(
        header,
        [
            "POD",
            "PENDING",
            "FIRST FAILURE",
            "ATTEMPTS",
            "SCHEDULED",
            "REASONS (LATEST)",
            "LAST FAILURE",
            "UID",
            "MESSAGE (LATEST)"
        ]
    );
    let row = wide.lines().nth(1).unwrap_or_default();
    assert!(
        row.contains(
            "   2026-11-28T05:15:00Z   55d2bfac-6273-40b2-9cfe-23b7664918e2   0/5 nodes are available: 1 \
         Insufficient cpu, 4 node(s) didn't match pod affinity rules. preemption: 0/5 nodes are available: 1 No \
         preemption victims found for incoming pod, 4 Preemption is not helpful for scheduling."
        ),
        "{row}"
    );
    let (cut, _, _) = run(&db, &["--max-cell-width", "10", "why-pending", "--all"]);
    assert!(cut.lines().nth(1).unwrap_or_default().starts_with(" media/bac…   1h 30m "), "{cut}");
}

#[test]
fn no_headers_prints_only_the_rows_of_skew_and_hotspots() {
    // As kubectl: --no-headers left the header row out but kept skew's
    // title and skew lines, hotspots' title and per-episode pod tables, and
    // why-pending's "1 pod had FailedScheduling" footer.
    let dir = tempfile::tempdir().expect("tmp");
    let db = demo_store(dir.path());
    let (hot, _, code) = run(&db, &["--no-headers", "hotspots"]);
    assert_eq!(code, Some(0));
    assert_eq!(
        hot,
        " node-4   cpu   2026-11-28T03:30:00Z   2026-11-28T05:35:00Z (ongoing)   2h 5m   93.2 %   93.0 %   40.8 % \n"
    );
    let (skew, _, code) = run(&db, &["--no-headers", "skew"]);
    assert_eq!(code, Some(0));
    let nodes: Vec<&str> = skew.lines().map(|l| l.split_whitespace().next().unwrap_or_default()).collect();
    assert_eq!(nodes, ["node-1", "node-2", "node-3", "node-4", "node-5"], "{skew}");
    assert!(
        skew.starts_with(
            " node-1   97.1 %   61.7 %   19.1 %   10.0 %   overutilized             above target: cpu 97.1 % > 50, \
             memory 61.7 % > 50 "
        ),
        "{skew}"
    );
    // Without it, the title and the skew lines are there.
    let (full, _, _) = run(&db, &["skew"]);
    assert!(full.starts_with("Requested % of allocatable at 2026-11-28T05:30:01Z (thresholds: helm-chart-default)\n"));
    assert!(full.contains("\n  skew cpu: 68.1 points (node-1 97.1 % − node-5 29.0 %)\n"), "{full}");
}

/// New-user trial 43: `-l` on pods known from events only (no Pod object)
/// said only that none matches; their labels are unknown.
#[test]
fn a_label_selector_over_pods_without_objects_says_their_labels_are_unknown() {
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("k.duckdb");
    let events = dir.path().join("events.json");
    std::fs::write(
        &events,
        r#"{"kind":"Event","apiVersion":"v1","metadata":{"name":"e1","namespace":"web"},"involvedObject":{"kind":"Pod","namespace":"web","name":"api-1"},"reason":"FailedScheduling","type":"Warning","message":"0/2 nodes are available: 2 Insufficient cpu.","firstTimestamp":"2026-11-28T05:00:00Z","lastTimestamp":"2026-11-28T05:00:00Z","count":1}"#,
    )
    .expect("write");
    let (_, err, code) = run(&db, &["ingest", "file", events.to_str().expect("utf8")]);
    assert_eq!(code, Some(0), "{err}");
    let (out, err, code) = run(&db, &["why-pending", "--all", "-l", "app=api"]);
    assert_eq!((out.as_str(), code), ("", Some(1)));
    assert_eq!(
        err,
        format!(
            "kdrift: none of the 1 pod with FailedScheduling in {} matches the labels given (-l app=api); the store \
             holds none of their Pod objects, so their labels are unknown (ingest `kubectl get pods -A -o json` for \
             -l to match)\n",
            db.display()
        )
    );
}

/// New-user trial 43: pods the kubelet refused (OutOfcpu) without any
/// FailedScheduling event were in no `--all` list and nothing said so.
#[test]
fn why_pending_all_names_the_pods_the_kubelet_refused_without_failed_scheduling() {
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("k.duckdb");
    let events = dir.path().join("events.ndjson");
    let event = |name: &str, pod: &str, reason: &str, message: &str, at: &str| {
        format!(
            r#"{{"kind":"Event","apiVersion":"v1","metadata":{{"name":"{name}","namespace":"web"}},"involvedObject":{{"kind":"Pod","namespace":"web","name":"{pod}"}},"reason":"{reason}","type":"Warning","message":"{message}","source":{{"component":"kubelet","host":"node-1"}},"firstTimestamp":"{at}","lastTimestamp":"{at}","count":1}}"#
        )
    };
    let lines = [
        event(
            "e1",
            "api-1",
            "FailedScheduling",
            "0/2 nodes are available: 2 Insufficient cpu.",
            "2026-11-28T05:00:00Z",
        ),
        event("e2", "api-2", "OutOfcpu", "Node didn't have enough resource: cpu", "2026-11-28T05:01:00Z"),
        event("e3", "api-3", "OutOfcpu", "Node didn't have enough resource: cpu", "2026-11-28T05:02:00Z"),
    ];
    std::fs::write(&events, lines.join("\n")).expect("write");
    let (_, err, code) = run(&db, &["ingest", "file", events.to_str().expect("utf8")]);
    assert_eq!(code, Some(0), "{err}");
    let (out, err, code) = run(&db, &["why-pending", "--all"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("web/api-1") && !out.contains("api-2"), "{out}");
    assert_eq!(
        err,
        "note: 2 pods the kubelet refused at admission (OutOfcpu 2) had no FailedScheduling event, so they are not \
         listed: the scheduler placed them at once; `kdrift why-pending NAMESPACE/NAME` explains each (e.g. \
         web/api-2)\n"
    );
    // The same filters as the list.
    let (_, err, _) = run(&db, &["why-pending", "--all", "--since", "2026-11-28T05:01:30Z"]);
    assert!(err.contains("note: 1 pod the kubelet refused at admission (OutOfcpu 1)"), "{err}");
}

/// New-user trial 46: a ReplicaSet's pods refused OutOfcpu in a loop were
/// rows with per-pod fixes; one line per owner says the loop.
#[test]
fn why_pending_all_says_a_create_refuse_loop_per_owner() {
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("k.duckdb");
    let events = dir.path().join("events.ndjson");
    let event = |name: &str, kind: &str, object: &str, reason: &str, message: &str, at: &str| {
        format!(
            r#"{{"kind":"Event","apiVersion":"v1","metadata":{{"name":"{name}","namespace":"web"}},"involvedObject":{{"kind":"{kind}","namespace":"web","name":"{object}"}},"reason":"{reason}","type":"Warning","message":"{message}","source":{{"component":"kubelet","host":"node-1"}},"firstTimestamp":"{at}","lastTimestamp":"{at}","count":1}}"#
        )
    };
    let full = "Node didn't have enough resource: cpu, requested: 500, used: 3700, capacity: 4000";
    let mut lines = Vec::new();
    for (i, pod) in ["api-5d4f9-aaaaa", "api-5d4f9-bbbbb", "api-5d4f9-ccccc"].iter().enumerate() {
        let at = format!("2026-11-28T05:00:{:02}Z", i * 10);
        lines.push(event(
            &format!("c{i}"),
            "ReplicaSet",
            "api-5d4f9",
            "SuccessfulCreate",
            &format!("Created pod: {pod}"),
            &at,
        ));
        lines.push(event(&format!("r{i}"), "Pod", pod, "OutOfcpu", full, &at));
    }
    // One refused pod of another owner: no loop.
    lines.push(event("o1", "Pod", "solo-1", "OutOfcpu", full, "2026-11-28T05:00:05Z"));
    std::fs::write(&events, lines.join("\n")).expect("write");
    let (_, err, code) = run(&db, &["ingest", "file", events.to_str().expect("utf8")]);
    assert_eq!(code, Some(0), "{err}");
    let (_, err, _) = run(&db, &["why-pending", "--all"]);
    let owners: Vec<&str> = err.lines().filter(|l| l.starts_with("note: by owner:")).collect();
    assert_eq!(
        owners,
        ["note: by owner: ReplicaSet web/api-5d4f9: 3 pods refused by the kubelet on node-1 (OutOfcpu: it counted \
          3700m of 4000m cpu requested, 300m free for a pod's 500m) in 20s, 2026-11-28T05:00:00Z to \
          2026-11-28T05:00:20Z: a create/refuse loop (the controller replaces each refused pod; one fix serves them \
          all)"],
        "{err}"
    );
    let (_, err, _) = run(&db, &["why-pending", "--all", "-n", "other"]);
    assert!(!err.contains("by owner"), "{err}");
}

/// New-user trial 46: the note above sends each refused pod to
/// `why-pending NAMESPACE/NAME`, which exited 1 with one stderr line and
/// printed nothing with `-o json`. It explains the pod, exit 0.
#[test]
fn why_pending_explains_a_pod_the_kubelet_refused_without_failed_scheduling() {
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("k.duckdb");
    let input = dir.path().join("in.ndjson");
    let refused = r#"{"kind":"Event","apiVersion":"v1","metadata":{"name":"e2","namespace":"web"},"involvedObject":{"kind":"Pod","namespace":"web","name":"api-2","uid":"u-2"},"reason":"OutOfcpu","type":"Warning","message":"Node didn't have enough resource: cpu, requested: 500, used: 3700, capacity: 4000","source":{"component":"kubelet","host":"node-1"},"firstTimestamp":"2026-11-28T05:01:00Z","lastTimestamp":"2026-11-28T05:01:00Z","count":1}"#;
    let bound = r#"{"kind":"Event","apiVersion":"v1","metadata":{"name":"e1","namespace":"web"},"involvedObject":{"kind":"Pod","namespace":"web","name":"api-2","uid":"u-2"},"reason":"Scheduled","type":"Normal","message":"Successfully assigned web/api-2 to node-1","source":{"component":"default-scheduler"},"firstTimestamp":"2026-11-28T05:01:00Z","lastTimestamp":"2026-11-28T05:01:00Z","count":1}"#;
    let node = r#"{"kind":"Node","apiVersion":"v1","metadata":{"name":"node-1","uid":"n-1","creationTimestamp":"2026-11-01T00:00:00Z"},"status":{"allocatable":{"cpu":"4","memory":"8Gi","pods":"110"},"capacity":{"cpu":"4","memory":"8Gi","pods":"110"},"conditions":[{"type":"Ready","status":"True"}]}}"#;
    std::fs::write(&input, [bound, refused, node].join("\n")).expect("write");
    let (_, err, code) = run(&db, &["ingest", "file", input.to_str().expect("utf8")]);
    assert_eq!(code, Some(0), "{err}");
    let (out, err, code) = run(&db, &["why-pending", "web/api-2"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("  no FailedScheduling event: the scheduler placed it at once\n"), "{out}");
    assert!(
        out.contains(
            "Why (the kubelet's admission refusal on node-1): OutOfcpu (Node didn't have enough resource: cpu, \
             requested: 500, used: 3700, capacity: 4000)"
        ),
        "{out}"
    );
    assert!(out.contains("  node-1 cpu: the pod requests 500m, 300m free → 200m short"), "{out}");
    assert!(
        out.contains("  1. [OutOfcpu] lower the pod's cpu request from 500m to at most 300m (it fits node-1 then)"),
        "{out}"
    );
    let (json, err, code) = run(&db, &["-o", "json", "why-pending", "web/api-2"]);
    assert_eq!(code, Some(0), "{err}");
    let v: serde_json::Value = serde_json::from_str(&json).expect("one JSON document");
    assert_eq!(v["uid"], "u-2");
    assert_eq!(v["history"]["outcome"], "rejected-by-kubelet");
    assert_eq!(v["history"]["failure_events"], 0);
    assert_eq!(v["history"]["scheduled"]["node"], "node-1");
    assert_eq!(v["history"]["rejected"]["counted"]["used"], 3700);
    let sf = &v["state"]["shortfalls"][0];
    assert_eq!(
        (sf["node"].as_str(), sf["requested"].as_i64(), sf["free"].as_i64(), sf["short"].as_i64()),
        (Some("node-1"), Some(500), Some(300), Some(200))
    );
    let steps: Vec<&str> =
        v["next_steps"].as_array().expect("steps").iter().filter_map(|s| s["addresses"].as_str()).collect();
    assert!(!steps.is_empty() && steps.iter().all(|a| *a == "OutOfcpu"), "{steps:?}");
}

#[test]
fn namespace_and_label_selectors_choose_the_pods_listed() {
    let dir = tempfile::tempdir().expect("tmp");
    let db = demo_store(dir.path());
    // why-pending --all: the demo's one Pending pod is media/backup-…, labelled job-name=…, no app.
    let pod = " media/backup-29930640-5l8lp ";
    for args in [&["-n", "media"][..], &["-A"], &["-l", "job-name"], &["-l", "app!=backup"], &["-l", "!app,job-name"]] {
        let (out, _, code) = run(&db, &[&["why-pending", "--all"][..], args].concat());
        assert_eq!((code, out.lines().nth(1).is_some_and(|l| l.starts_with(pod))), (Some(0), true), "{args:?}: {out}");
    }
    let (out, err, code) = run(&db, &["why-pending", "--all", "-n", "media", "-l", "app in (plex, sonarr)"]);
    assert_eq!((out.as_str(), code), ("", Some(1)));
    assert_eq!(
        err,
        format!(
            "kdrift: none of the 1 pod with FailedScheduling in {} matches the namespace and labels given (-n media, \
             -l app in (plex, sonarr))\n",
            db.display()
        )
    );
    let (_, err, code) = run(&db, &["why-pending", "--all", "-A", "-n", "media"]);
    assert_eq!(code, Some(2));
    assert!(
        err.starts_with("error: the argument '--all-namespaces' cannot be used with '--namespace <NAMESPACE>'"),
        "{err}"
    );
    // -n names the namespace of a pod given as NAME, as kubectl reads it (new-user trial: it was ignored).
    let (out, _, code) = run(&db, &["why-pending", "backup-29930640-5l8lp", "-n", "media"]);
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("media/backup-29930640-5l8lp"), "{out}");
    let (_, err, code) = run(&db, &["why-pending", "media/backup-29930640-5l8lp", "-n", "web"]);
    assert_eq!(
        (code, err.as_str()),
        (
            Some(2),
            "kdrift: error: the pod media/backup-29930640-5l8lp and -n web name two namespaces: give one \
             (`web/backup-29930640-5l8lp` or `-n web backup-29930640-5l8lp`)\n"
        )
    );
    // kubectl's habit of -n before the verb, and a file given to ingest without `file`, get a tip.
    let (_, err, code) = run(&db, &["-n", "media", "why-pending", "--all"]);
    assert_eq!(code, Some(2));
    assert!(
        err.ends_with(
            "\ntip: kdrift takes -n after the command, not before it as kubectl may: e.g. kdrift why-pending --all -n …\n"
        ),
        "{err}"
    );
    let (_, err, code) = run(&db, &["ingest", "events.json"]);
    assert_eq!(code, Some(2));
    assert!(
        err.ends_with("\ntip: to load a file or a directory (or `-` for stdin): kdrift ingest file events.json\n"),
        "{err}"
    );
    let (_, err, code) = run(&db, &["why-pending", "--all", "-l", "app in (plex"]);
    assert_eq!(code, Some(2));
    assert!(err.starts_with("error: invalid value 'app in (plex' for '--selector <SELECTOR>': "), "{err}");
    // timeline drains: each drain moved one plex pod of media; counts are those of the pods kept.
    let (out, _, code) = run(&db, &["timeline", "drains", "-n", "media", "-l", "app=plex"]);
    assert_eq!(code, Some(0));
    let moved: Vec<&str> = out.lines().filter(|l| l.starts_with("  pods moved:")).collect();
    assert_eq!(
        moved,
        ["  pods moved: 1; replacements landed on: node-3 1", "  pods moved: 1; replacements landed on: node-1 1"]
    );
    let (json, _, _) = run(&db, &["-o", "json", "timeline", "drains", "-l", "app=plex"]);
    let timeline: serde_json::Value = serde_json::from_str(&json).expect("JSON");
    let pods: Vec<String> = timeline["operations"]
        .as_array()
        .expect("operations")
        .iter()
        .flat_map(|op| op["episodes"].as_array().expect("episodes").iter())
        .flat_map(|e| e["evicted"].as_array().expect("evicted").iter())
        .map(|p| format!("{}/{} → {}", p["namespace"], p["name"], p["replacement"]["node"]).replace('"', ""))
        .collect();
    assert_eq!(pods, ["media/plex-q856lmxqxq-rlfdf → node-3", "media/plex-q856lmxqxq-dhbhs → node-1"]);
    let (out, err, code) = run(&db, &["timeline", "drains", "-l", "app=nothing"]);
    assert_eq!(
        (out.as_str(), err.as_str(), code),
        ("", "kdrift: no drain, reboot or outage moved a pod of labels app=nothing\n", Some(1))
    );
    // skew -n/-l: the requested % of the matching pods (it was refused: skew_counts_the_requests_of_the_pods_selected).
    let (all, _, _) = run(&db, &["-o", "json", "skew", "--usage"]);
    let (web, _, _) = run(&db, &["-o", "json", "skew", "--usage", "-n", "web"]);
    let drivers = |text: &str| -> Vec<String> {
        let v: serde_json::Value = serde_json::from_str(text).expect("JSON");
        v["hot_not_requested"]
            .as_array()
            .expect("spots")
            .iter()
            .flat_map(|s| s["pods"].as_array().expect("pods").iter())
            .map(|p| format!("{}/{}", p["namespace"].as_str().unwrap_or(""), p["name"].as_str().unwrap_or("")))
            .collect()
    };
    let every = drivers(&all);
    let kept: Vec<String> = every.iter().filter(|p| p.starts_with("web/")).cloned().collect();
    assert!(!kept.is_empty() && kept.len() < every.len(), "{every:?}");
    assert_eq!(drivers(&web), kept);
}

#[test]
fn skew_usage_says_when_its_selector_keeps_no_measured_pod() {
    // `skew --usage -l app=nomatch` exited 0 with the pod list silently
    // gone; it says so, as why-pending does, and keeps the node table.
    let dir = tempfile::tempdir().expect("tmp");
    let db = demo_store(dir.path());
    let (table, stderr, code) = run(&db, &["skew", "--usage", "-l", "app=nomatch"]);
    assert_eq!(code, Some(0));
    assert_eq!(
        stderr,
        "kdrift: no pod matches labels app=nomatch (of the 10 pods measured on the hot nodes); the node table shows \
         every node\n"
    );
    let nodes: Vec<&str> =
        table.lines().skip(2).take(5).map(|l| l.split_whitespace().next().unwrap_or_default()).collect();
    assert_eq!(nodes, ["node-1", "node-2", "node-3", "node-4", "node-5"], "{table}");
    assert!(!table.contains("queue-worker"), "{table}");
    // A selector that keeps some pods says nothing.
    let (kept, stderr, _) = run(&db, &["skew", "--usage", "-n", "batch"]);
    assert_eq!(stderr, "");
    assert!(kept.contains("     batch/queue-worker-99lqv4ktcz-42lf2   788m   100m        7.88×\n"), "{kept}");
}

#[test]
fn the_lownodeutilization_class_reads_alike_in_skew_and_plan_and_in_json_and_yaml() {
    // It read "overutilized" (skew), "OVERUTILIZED" (plan), "Overutilized" (-o json/yaml).
    let dir = tempfile::tempdir().expect("tmp");
    let db = demo_store(dir.path());
    let row = |text: &str| text.lines().find(|l| l.trim_start().starts_with("node-1 ")).unwrap_or_default().to_string();
    let (skew, _, _) = run(&db, &["skew"]);
    assert!(row(&skew).contains("   overutilized   "), "{skew}");
    let (plan, _, _) = run(&db, &["rebalance", "plan"]);
    let plan_row: Vec<String> = row(&plan).split_whitespace().take(2).map(str::to_string).collect();
    assert_eq!(plan_row, ["node-1", "overutilized"], "{plan}");
    assert!(!plan.contains("OVERUTILIZED "), "{plan}");
    let (json, _, _) = run(&db, &["skew", "-o", "json"]);
    let (yaml, _, _) = run(&db, &["skew", "-o", "yaml"]);
    let json: serde_json::Value = serde_json::from_str(&json).expect("json");
    let yaml: serde_json::Value = serde_yaml::from_str(&yaml).expect("yaml");
    assert_eq!(json["nodes"][0]["class"], "Overutilized");
    assert_eq!(yaml, json);
}

/// Every string of `v` that is a time with sub-seconds (`…T05:30:00.315Z`).
fn sub_second_times(v: &serde_json::Value, out: &mut Vec<String>) {
    match v {
        serde_json::Value::String(s) => {
            let b = s.as_bytes();
            if b.len() > 20 && b[10] == b'T' && b[19] == b'.' && s.ends_with('Z') {
                out.push(s.clone());
            }
        }
        serde_json::Value::Array(a) => a.iter().for_each(|x| sub_second_times(x, out)),
        serde_json::Value::Object(o) => o.values().for_each(|x| sub_second_times(x, out)),
        _ => {}
    }
}

#[test]
fn every_time_printed_is_rfc_3339_to_the_whole_second() {
    // One rule (docs/cli.md): tables, notes and -o json/yaml alike. JSON had
    // microseconds (first_failure …04:00:00.098554Z, bound_at), milliseconds
    // (skew's at …05:30:01.020Z) and the plan's created_at nanoseconds.
    let dir = tempfile::tempdir().expect("tmp");
    let db = demo_store(dir.path());
    let doc = |args: &[&str]| -> serde_json::Value {
        let (out, err, code) = run(&db, &[&["-o", "json"][..], args].concat());
        assert_eq!(code, Some(0), "{args:?}: {err}");
        serde_json::from_str(&out).expect("json")
    };
    let pending = doc(&["why-pending", "--all"]);
    assert_eq!(
        (&pending[0]["first_failure"], &pending[0]["last_failure"]),
        (&serde_json::json!("2026-11-28T04:00:00Z"), &serde_json::json!("2026-11-28T05:15:00Z"))
    );
    assert_eq!(doc(&["skew"])["at"], "2026-11-28T05:30:01Z");
    assert_eq!(doc(&["hotspots"])["until"], "2026-11-28T05:30:00Z");
    let plan = doc(&["rebalance", "plan"]);
    let created = plan["created_at"].as_str().expect("created_at");
    assert!(chrono::DateTime::parse_from_rfc3339(created).is_ok() && created.len() == 20, "{created}");
    assert_eq!(plan["at"], "2026-11-28T05:30:01Z");
    let mut finer = Vec::new();
    for args in [
        &["why-pending", "--all"][..],
        &["timeline", "drains"],
        &["skew"],
        &["skew", "--usage"],
        &["hotspots"],
        &["postmortem", "job", "media/backup"],
        &["rebalance", "plan"],
        &["query", "runs"],
    ] {
        sub_second_times(&doc(args), &mut finer);
        let (yaml, _, _) = run(&db, &[&["-o", "yaml"][..], args].concat());
        sub_second_times(&serde_yaml::from_str(&yaml).expect("yaml"), &mut finer);
    }
    assert_eq!(finer, Vec::<String>::new());
    let (runs, _, _) = run(&db, &["query", "runs"]);
    let started = runs.lines().nth(1).and_then(|l| l.split_whitespace().nth(4)).unwrap_or_default();
    assert!(started.len() == 20 && started.ends_with('Z'), "{runs}");
    // The notes say the store's span to the second too (it was …05:30:01.020Z).
    let (out, _, code) = run(&db, &["skew", "--at", "2027-01-01T00:00:00Z"]);
    assert_eq!(code, Some(0));
    assert!(
        out.contains(
            "note: 2027-01-01T00:00:00Z is after the store's history: its last recorded instant is \
             2026-11-28T05:30:01Z; showing the state as recorded then"
        ),
        "{out}"
    );
}

/// The cells (split at 3 blanks) of the first line of `text` whose first cell is `first`.
fn header_of(text: &str, first: &str) -> Vec<String> {
    let line = text.lines().find(|l| l.trim_start().starts_with(first)).unwrap_or_default();
    line.split("   ").map(str::trim).filter(|c| !c.is_empty()).map(String::from).collect()
}

#[test]
fn output_wide_adds_columns_to_every_table_with_more_to_show() {
    // Break-it pass: -o wide added columns to why-pending --all only.
    let dir = tempfile::tempdir().expect("tmp");
    let db = demo_store(dir.path());
    let wide = |args: &[&str]| run(&db, &[&["-o", "wide"][..], args].concat()).0;
    let table = |args: &[&str]| run(&db, args).0;
    let skew = wide(&["skew"]);
    let head = header_of(&skew, "NODE");
    assert_eq!(head.len(), header_of(&table(&["skew"]), "NODE").len() + 4, "{head:?}");
    assert_eq!(head[7..9], ["CPU REQUESTED OF ALLOCATABLE", "MEMORY REQUESTED OF ALLOCATABLE"]);
    let node_1 = skew.lines().find(|l| l.starts_with(" node-1 ")).unwrap_or_default();
    let cells: Vec<&str> = node_1.split("   ").map(str::trim).filter(|c| !c.is_empty()).collect();
    assert_eq!(cells[7..], ["1942m of 2000m", "4.76 GiB of 7.72 GiB", "21 of 110", "1 of 10"], "{node_1}");
    let hot = wide(&["hotspots"]);
    assert_eq!(header_of(&hot, "NODE")[8..], ["ALLOCATABLE", "PODS MEASURED"]);
    let cells: Vec<String> = header_of(&hot, "node-4");
    // 17 pods measured: the 10 heaviest listed under the episode, the 7 lighter counted.
    assert_eq!(cells[7..], ["40.8 %", "2000m", "17"], "{hot}");
    assert!(hot.contains("\n    … and 7 more pods (lighter users)\n"), "{hot}");
    let drains = wide(&["timeline", "drains"]);
    assert_eq!(header_of(&drains, "NODE")[8..], ["CORDONED FOR", "NOT READY FOR", "EVICTED"]);
    let row = drains.lines().find(|l| l.starts_with(" node-1 ")).unwrap_or_default();
    let cells: Vec<&str> = row.split("   ").map(str::trim).filter(|c| !c.is_empty()).collect();
    assert_eq!(cells[8..10], ["2m 44s", "1m 15s"], "{row}");
    assert!(cells[10].starts_with("batch/queue-worker-99lqv4ktcz-kkvlt, home/homepage-q9j95gnjrt-4sffw, "), "{row}");
    assert_eq!(row.matches(", ").count() + 1, 12, "the 12 pods evicted: {row}");
    let plan = wide(&["rebalance", "plan"]);
    assert_eq!(header_of(&plan, "#")[4..], ["PROFILE", "UID"]);
    let first = plan.lines().find(|l| l.starts_with(" 1 ")).unwrap_or_default();
    assert!(first.trim_end().ends_with("   default   dc160486-d179-4db9-b8af-d1569a65c96b"), "{first}");
    // Without wide, none of them.
    assert!(!table(&["hotspots"]).contains("PODS MEASURED") && !table(&["rebalance", "plan"]).contains(" UID "));
    // The help says which tables have more and that the others are the table.
    let help = Command::cargo_bin("kdrift").expect("binary").arg("--help").output().expect("help");
    let help = String::from_utf8_lossy(&help.stdout).split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        help.contains(
            "wide (tables with every cell whole, and extra columns on why-pending --all, timeline drains, skew, \
             hotspots and the rebalance plan's evictions; the other tables have none: wide is the table, uncut)"
        ),
        "{help}"
    );
}

#[test]
fn skew_counts_the_requests_of_the_pods_selected() {
    // Break-it pass: `skew -n/-l` was refused ("requested % comes from per-node
    // totals"); the pods are in the store: their requests, per node, of allocatable.
    let dir = tempfile::tempdir().expect("tmp");
    let db = demo_store(dir.path());
    let (out, err, code) = run(&db, &["skew", "-n", "batch"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.starts_with("Requested % of allocatable at 2026-11-28T05:30:01Z (thresholds: helm-chart-default; pods: namespace batch)\n"), "{out}");
    let row = |node: &str| -> Vec<String> { header_of(&out, node)[..5].to_vec() };
    // node-4 holds 4 of queue-worker's replicas, 100m each: 400m of 2000m; 4 of 110 pods.
    assert_eq!(row("node-4"), ["node-4", "20.0 %", "6.5 %", "3.6 %", "0.0 %"]);
    assert_eq!(row("node-5"), ["node-5", "0.0 %", "0.0 %", "0.0 %", "-"]);
    // The class stays descheduler's over every pod (node-1 is overutilized at 97.1 %).
    assert!(header_of(&out, "node-1")[5..7] == ["overutilized", "above target: cpu 97.1 % > 50, memory 61.7 % > 50"]);
    assert!(out.contains("\n  skew cpu: 20.0 points (node-1 20.0 % − node-5 0.0 %)\n"), "{out}");
    assert!(out.ends_with(
        "note: requested amounts count only the 15 pods matching namespace batch; CLASS and WHY are descheduler's, \
         over every pod\n"
    ));
    let (json, _, _) = run(&db, &["-o", "json", "skew", "-l", "app=queue-worker"]);
    let v: serde_json::Value = serde_json::from_str(&json).expect("json");
    let node_4 = v["nodes"].as_array().expect("nodes").iter().find(|n| n["node"] == "node-4").expect("node-4");
    assert_eq!(
        (&node_4["pods"], &node_4["resources"][0]),
        (
            &serde_json::json!(4),
            &serde_json::json!({
        "resource": "cpu", "allocatable": 2000, "requested": 400, "percent": 20.0})
        )
    );
    // A selection that keeps no pod: nothing found (exit 1), said on stderr.
    let (_, err, code) = run(&db, &["skew", "-l", "app=nothing"]);
    assert_eq!(code, Some(1));
    assert!(
        err.ends_with(
            "kdrift: no pod bound at 2026-11-28T05:30:01Z matches labels app=nothing: every requested amount is 0\n"
        ),
        "{err}"
    );
}
