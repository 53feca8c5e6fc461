//! Tests of the demo scenario.

use super::*;

#[test]
fn debug_print() {
    let s = generate(&ScenarioConfig { seed: 1, scale: 1 });
    let f = &s.facts;
    println!("records {}", s.records.len());
    for u in &f.usage_at_failure { println!("{u:?}"); }
    println!("burst {} ready {}", f.burst_pods.len(), f.burst_ready_at);
    println!("plex {:?} at {}", f.plex, f.plex_bound_at);
    println!("note {}", f.failed_scheduling_note);
    println!("prev {:?}", f.previous_pod);
    for d in &f.drains { for w in &d.windows { println!("drain{} {:?}", d.number, w); } }
    // unplaced pods
    for r in &s.records {
        if r.object["kind"] == "Event" && (r.object["reason"] == "FailedScheduling") { println!("FS {} {}", r.observed_at, r.object["note"]); }
    }
    // per node at failure
    let mut latest: std::collections::BTreeMap<String, serde_json::Value> = Default::default();
    for r in &s.records { if r.observed_at > f.failure_at { break; } if r.object["kind"] == "Pod" { let k = r.object["metadata"]["uid"].as_str().unwrap().to_string(); if r.change == ObjectChange::Deleted { latest.remove(&k); } else { latest.insert(k, r.object.clone()); } } }
    let mut by: std::collections::BTreeMap<String, Vec<String>> = Default::default();
    for p in latest.values() { let n = p["spec"]["nodeName"].as_str().unwrap_or("-").to_string(); let cpu: Vec<String> = p["spec"]["containers"].as_array().unwrap().iter().map(|c| c["resources"]["requests"]["cpu"].as_str().unwrap_or("0").to_string()).collect(); by.entry(n).or_default().push(format!("{}:{}:{}", p["metadata"]["name"].as_str().unwrap(), cpu.join("+"), p["status"]["phase"].as_str().unwrap())); }
    for (n, v) in by { println!("{n} ({}): {}", v.len(), v.join(" ")); }
}

#[test]
fn debug_history() {
    let s = generate(&ScenarioConfig { seed: 1, scale: 1 });
    for r in &s.records {
        if r.object["kind"] == "Event" && r.object["reason"] == "Scheduled" && r.observed_at > chrono::DateTime::parse_from_rfc3339("2026-11-28T01:00:00Z").unwrap() && r.observed_at < chrono::DateTime::parse_from_rfc3339("2026-11-28T02:30:00Z").unwrap() {
            println!("{} {}", r.observed_at.format("%H:%M:%S%.3f"), r.object["note"].as_str().unwrap());
        }
        if r.object["kind"] == "Event" && r.object["reason"] == "Scheduled" && r.object["note"].as_str().unwrap().contains("plex") { println!("PLEX {} {}", r.observed_at, r.object["note"]); }
    }
}

#[test]
fn debug_initial() {
    let s = generate(&ScenarioConfig { seed: 1, scale: 1 });
    let mut by: std::collections::BTreeMap<String, Vec<String>> = Default::default();
    for r in &s.records {
        if r.change == ObjectChange::Added && r.object["kind"] == "Pod" && r.observed_at < s.facts.start + chrono::Duration::seconds(1) {
            by.entry(r.object["spec"]["nodeName"].as_str().unwrap().to_string()).or_default().push(r.object["metadata"]["name"].as_str().unwrap().split('-').next().unwrap().to_string());
        }
    }
    for (n, v) in by { println!("{n}: {}", v.join(" ")); }
}

#[test]
fn debug_burst() {
    let s = generate(&ScenarioConfig { seed: 1, scale: 1 });
    let from = s.facts.burst_ready_at;
    let mut req: std::collections::BTreeMap<String, i64> = Default::default();
    for r in &s.records {
        if r.object["kind"] == "Pod" { let c: i64 = r.object["spec"]["containers"].as_array().unwrap().iter().map(|c| { let q = c["resources"]["requests"]["cpu"].as_str().unwrap_or("0m"); q.trim_end_matches('m').parse::<i64>().unwrap() }).sum(); req.insert(r.object["metadata"]["name"].as_str().unwrap().to_string(), c); }
    }
    let mut used = 90;
    for r in &s.records {
        if r.observed_at < from || r.observed_at > from + chrono::Duration::minutes(10) { continue; }
        if r.object["kind"] == "Event" && r.object["reason"] == "Scheduled" {
            let note = r.object["note"].as_str().unwrap();
            let pod = note.split('/').nth(1).unwrap().split(' ').next().unwrap();
            let c = req[pod];
            if note.ends_with("node-1") { used += c; }
            println!("{} {:<50} {:>4} -> {}  node1 used {} free {}", r.observed_at.format("%H:%M:%S%.3f"), pod, c, note.rsplit(' ').next().unwrap(), used, 2000-used);
        }
    }
}
