//! `POST /api/v1/namespaces/<ns>/pods/<name>/eviction` (policy/v1
//! Eviction), as the apiserver's eviction REST handler answers: 404 for an
//! unknown pod; 429 `TooManyRequests` with "Cannot evict pod as it would
//! violate the pod's disruption budget." and a `DisruptionBudget` cause when
//! the pod's PDB allows no disruption (its `status.disruptionsAllowed` is
//! then decremented on success); 500 for a pod with several PDBs; 201 with
//! a Success Status, the pod deleted at once (a DELETED watch event).
//! Terminal pods skip the budget. `dryRun=All` changes nothing. Injected
//! faults: 429, 500, or a delay. Every request is logged.

use std::sync::Arc;

use axum::response::Response;
use serde_json::{json, Value};

use super::faults::EvictionFault;
use super::http::{echo_authorization, error, json, Shared};
use super::resources::by_kind;
use super::selectors::label_selector_matches;
use super::state::{EvictionRecord, Stamp, State};
use super::status::ApiError;

/// The message of a 429 from a PodDisruptionBudget (k8s.io/kubernetes
/// pkg/registry/core/pod/storage/eviction.go).
pub const PDB_MESSAGE: &str = "Cannot evict pod as it would violate the pod's disruption budget.";

fn too_many_requests(pdb: &str, desired: i64, current: i64) -> ApiError {
    ApiError {
        code: 429,
        reason: "TooManyRequests",
        message: PDB_MESSAGE.into(),
        details: json!({"causes": [{
            "reason": "DisruptionBudget",
            "message": format!("The disruption budget {pdb} needs {desired} healthy pods and has {current} currently"),
        }]}),
    }
}

fn outcome(
    st: &mut State,
    namespace: &str,
    name: &str,
    body: &Value,
    dry_run: bool,
    fault: Option<EvictionFault>,
) -> Result<(), ApiError> {
    let pods = by_kind("v1", "Pod").ok_or_else(|| ApiError::internal("pods not served"))?;
    let pdbs = by_kind("policy/v1", "PodDisruptionBudget").ok_or_else(|| ApiError::internal("pdbs not served"))?;
    let Some(pod) = st.get(pods, namespace, name) else {
        return Err(ApiError::not_found("pods", "", name));
    };
    if let Some(n) = body.pointer("/metadata/name").and_then(Value::as_str) {
        if n != name {
            return Err(ApiError::bad_request(format!(
                "name in URL does not match name in Eviction object: {name} != {n}"
            )));
        }
    }
    match fault {
        Some(EvictionFault::TooManyRequests) => return Err(too_many_requests("injected-budget", 1, 1)),
        Some(EvictionFault::ServerError) => return Err(ApiError::internal("injected eviction fault")),
        _ => {}
    }
    let phase = pod.pointer("/status/phase").and_then(Value::as_str).unwrap_or("");
    if phase != "Succeeded" && phase != "Failed" {
        let labels = pod.pointer("/metadata/labels");
        let matching: Vec<Value> = st
            .list(pdbs, Some(namespace))
            .into_iter()
            .filter(|p| label_selector_matches(p.pointer("/spec/selector"), labels))
            .collect();
        if matching.len() > 1 {
            return Err(ApiError::internal(
                "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.",
            ));
        }
        if let Some(mut pdb) = matching.into_iter().next() {
            let int = |p: &str| pdb.pointer(p).and_then(Value::as_i64).unwrap_or(0);
            let allowed = int("/status/disruptionsAllowed");
            if allowed <= 0 {
                let pdb_name = pdb.pointer("/metadata/name").and_then(Value::as_str).unwrap_or("");
                return Err(too_many_requests(pdb_name, int("/status/desiredHealthy"), int("/status/currentHealthy")));
            }
            if !dry_run {
                pdb["status"]["disruptionsAllowed"] = json!(allowed - 1);
                pdb["status"]["disruptedPods"][name] =
                    json!(chrono::Utc::now().format("%Y-%m-%dT%H:%M:%SZ").to_string());
                st.update(pdbs, pdb, Stamp::Next, false)?;
            }
        }
    }
    if !dry_run {
        st.delete(pods, namespace, name, None, Stamp::Next)?;
    }
    Ok(())
}

/// Handles one eviction request; an error quotes `authorization` when
/// the faults say so.
pub async fn evict(
    shared: Arc<Shared>,
    namespace: String,
    name: String,
    body: Value,
    dry_run: bool,
    authorization: &str,
) -> Response {
    let fault = shared.lock().faults.take_eviction_fault(&namespace, &name);
    if let Some(EvictionFault::Delay(d)) = fault {
        tokio::time::sleep(d).await;
    }
    let mut st = shared.lock();
    let mut result = outcome(&mut st, &namespace, &name, &body, dry_run, fault);
    if let (Err(e), true) = (&mut result, st.faults.echo_authorization) {
        echo_authorization(e, authorization);
    }
    let code = result.as_ref().map_or_else(|e| e.code, |()| 201);
    st.evictions.push(EvictionRecord { namespace, name, body, code, dry_run });
    drop(st);
    match result {
        Ok(()) => {
            json(201, &json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "code": 201}))
        }
        Err(e) => error(&e),
    }
}
