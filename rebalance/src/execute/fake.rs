//! An in-memory [`ClusterClient`] for the executor's unit tests: objects by
//! kind, scripted eviction answers per pod (status codes, hangs), an
//! eviction log, the largest number of evictions in flight, and a
//! "controller" that replaces an evicted pod with a Ready one on a chosen node.

use std::collections::{BTreeMap, VecDeque};
use std::sync::Mutex;
use std::time::Duration;

use serde_json::{json, Value};

use super::client::{kinds, ClientError, ClusterClient, EvictionRequest, ResourceKind};

/// A scripted answer to one eviction call.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Answer {
    /// 201.
    Accept,
    /// An error status.
    Status(u16, &'static str),
    /// Never answers (the executor's request timeout fires).
    Hang,
}

#[derive(Default)]
pub(crate) struct State {
    pub(crate) objects: BTreeMap<&'static str, Vec<Value>>,
    /// Per `namespace/name`: answers to the next eviction calls (then Accept).
    pub(crate) script: BTreeMap<String, VecDeque<Answer>>,
    /// Every eviction call, in order (`namespace/name`).
    pub(crate) calls: Vec<String>,
    /// Accepted evictions, in order.
    pub(crate) evicted: Vec<String>,
    /// The node replacements land on (`None`: no replacement is created).
    pub(crate) land_on: Option<String>,
    /// Whether replacements are Ready.
    pub(crate) ready: bool,
    pub(crate) in_flight: usize,
    pub(crate) max_in_flight: usize,
    /// Failing lists of a kind.
    pub(crate) list_fails: Option<ResourceKind>,
}

pub(crate) struct Fake {
    pub(crate) state: Mutex<State>,
    /// How long an accepted eviction takes.
    pub(crate) latency: Duration,
}

impl Fake {
    pub(crate) fn new(nodes: Vec<Value>, pods: Vec<Value>) -> Fake {
        let mut state = State { land_on: Some("node-2".to_string()), ready: true, ..State::default() };
        state.objects.insert(kinds::NODE.kind, nodes);
        state.objects.insert(kinds::POD.kind, pods);
        Fake { state: Mutex::new(state), latency: Duration::from_millis(5) }
    }

    pub(crate) fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(crate) fn script(&self, pod: &str, answers: &[Answer]) {
        self.lock().script.insert(pod.to_string(), answers.iter().cloned().collect());
    }

    /// Applies `f` to the pod `namespace/name`; removes it when `f` returns false.
    pub(crate) fn edit_pod(&self, key: &str, f: impl FnOnce(&mut Value) -> bool) {
        let mut s = self.lock();
        let pods = s.objects.entry(kinds::POD.kind).or_default();
        if let Some(i) = pods.iter().position(|p| key_of(p) == key) {
            if !f(&mut pods[i]) {
                pods.remove(i);
            }
        }
    }
}

fn key_of(v: &Value) -> String {
    format!(
        "{}/{}",
        v.pointer("/metadata/namespace").and_then(Value::as_str).unwrap_or(""),
        v.pointer("/metadata/name").and_then(Value::as_str).unwrap_or("")
    )
}

impl ClusterClient for Fake {
    async fn list(&self, kind: ResourceKind, namespace: Option<&str>) -> Result<Vec<Value>, ClientError> {
        let s = self.lock();
        if s.list_fails == Some(kind) {
            return Err(ClientError::Status { code: 403, message: format!("{} is forbidden", kind.plural) });
        }
        Ok(s.objects
            .get(kind.kind)
            .map(|v| {
                v.iter()
                    .filter(|o| {
                        namespace.is_none_or(|ns| o.pointer("/metadata/namespace").and_then(Value::as_str) == Some(ns))
                    })
                    .cloned()
                    .collect()
            })
            .unwrap_or_default())
    }

    async fn get(&self, kind: ResourceKind, namespace: Option<&str>, name: &str) -> Result<Option<Value>, ClientError> {
        let key = format!("{}/{name}", namespace.unwrap_or(""));
        Ok(self.lock().objects.get(kind.kind).and_then(|v| v.iter().find(|o| key_of(o) == key).cloned()))
    }

    async fn evict(&self, request: &EvictionRequest) -> Result<(), ClientError> {
        let key = format!("{}/{}", request.namespace, request.name);
        let answer = {
            let mut s = self.lock();
            s.calls.push(key.clone());
            s.in_flight += 1;
            s.max_in_flight = s.max_in_flight.max(s.in_flight);
            s.script.get_mut(&key).and_then(VecDeque::pop_front).unwrap_or(Answer::Accept)
        };
        let result = match answer {
            Answer::Hang => {
                // Dropped by the executor's timeout.
                let _guard = InFlight(self);
                tokio::time::sleep(Duration::from_secs(3600)).await;
                return Ok(());
            }
            Answer::Status(code, message) => Err(ClientError::Status { code, message: message.to_string() }),
            Answer::Accept => {
                tokio::time::sleep(self.latency).await;
                self.accept(&key, request);
                Ok(())
            }
        };
        self.lock().in_flight -= 1;
        result
    }
}

/// Decrements the in-flight count when a hanging call is dropped.
struct InFlight<'a>(&'a Fake);

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.0.lock().in_flight -= 1;
    }
}

impl Fake {
    /// Removes the pod and, like a ReplicaSet controller and the scheduler,
    /// creates its replacement on `land_on`.
    fn accept(&self, key: &str, request: &EvictionRequest) {
        let mut s = self.lock();
        s.evicted.push(key.to_string());
        let (land_on, ready) = (s.land_on.clone(), s.ready);
        let pods = s.objects.entry(kinds::POD.kind).or_default();
        let Some(i) = pods.iter().position(|p| key_of(p) == key) else { return };
        let old = pods.remove(i);
        let Some(node) = land_on else { return };
        if old.pointer("/metadata/ownerReferences").is_none() {
            return;
        }
        let mut new = old.clone();
        let name = format!("{}-r", request.name);
        new["metadata"]["name"] = json!(name);
        new["metadata"]["uid"] = json!(format!("{}-r", old["metadata"]["uid"].as_str().unwrap_or("")));
        new["metadata"]["resourceVersion"] = json!("1000");
        new["spec"]["nodeName"] = json!(node);
        new["status"]["conditions"] = json!([{"type": "Ready", "status": if ready { "True" } else { "False" }}]);
        pods.push(new);
    }
}
