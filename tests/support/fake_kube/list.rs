//! GET of a collection (list, with `limit` / `continue` served from a
//! snapshot taken at the first page, like etcd's MVCC read) and of one
//! object; as JSON or as a kubectl Table. List items carry no `kind` /
//! `apiVersion`, as from the real apiserver.

use std::collections::HashMap;

use axum::response::Response;
use serde_json::{json, Value};

use super::http::{error, json, json_text, Shared};
use super::resources::{ResourceId, SERVED};
use super::selectors::Selector;
use super::state::ListSnapshot;
use super::status::ApiError;
use super::table::table;

fn wants_table(accept: &str) -> bool {
    accept.split(',').next().is_some_and(|first| first.contains("as=Table"))
}

/// An opaque continue token (hex of a small JSON document, like the real
/// one is base64 of JSON).
fn encode_token(rv: u64, snapshot: u64) -> String {
    json!({"v": "meta.k8s.io/v1", "rv": rv, "snapshot": snapshot})
        .to_string()
        .bytes()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn decode_token(token: &str) -> Option<(u64, u64)> {
    let bytes: Option<Vec<u8>> =
        (0..token.len()).step_by(2).map(|i| token.get(i..i + 2).and_then(|h| u8::from_str_radix(h, 16).ok())).collect();
    let v: Value = serde_json::from_slice(&bytes?).ok()?;
    Some((v.get("rv")?.as_u64()?, v.get("snapshot")?.as_u64()?))
}

fn strip_type(mut item: Value) -> Value {
    if let Some(m) = item.as_object_mut() {
        m.remove("kind");
        m.remove("apiVersion");
    }
    item
}

/// A list (or Table) of `rid` in `namespace`.
pub fn list(
    shared: &Shared,
    rid: ResourceId,
    namespace: Option<&str>,
    query: &HashMap<String, String>,
    accept: &str,
) -> Response {
    let r = &SERVED[rid];
    let selector = match Selector::parse(
        query.get("labelSelector").map(String::as_str),
        query.get("fieldSelector").map(String::as_str),
    ) {
        Ok(s) => s,
        Err(e) => return error(&e),
    };
    let limit = query.get("limit").and_then(|l| l.parse::<usize>().ok()).filter(|l| *l > 0);
    let mut st = shared.lock();
    let (rv, mut items) = match query.get("continue").filter(|c| !c.is_empty()) {
        Some(token) => {
            let Some((rv, id)) = decode_token(token) else {
                return error(&ApiError::bad_request(format!("continue key is not valid: {token:?}")));
            };
            match st.snapshots.remove(&id) {
                Some(snap) => (snap.rv, snap.items),
                None if rv < st.oldest_rv => return error(&ApiError::continue_expired()),
                None => return error(&ApiError::bad_request("continue key is not valid: unknown snapshot")),
            }
        }
        None => (st.rv, st.list(rid, namespace).into_iter().filter(|o| selector.matches(o)).collect::<Vec<_>>()),
    };
    let mut token = String::new();
    if let Some(limit) = limit {
        if items.len() > limit {
            let rest = items.split_off(limit);
            let id = st.next_snapshot;
            st.next_snapshot += 1;
            st.snapshots.insert(id, ListSnapshot { rv, items: rest });
            token = encode_token(rv, id);
        }
    }
    let rewrites = st.faults.list_rewrites.clone();
    drop(st);
    if wants_table(accept) {
        let include = query.get("includeObject").map_or("Metadata", String::as_str);
        return json(200, &table(r.kind, &items, rv, &token, include));
    }
    let mut metadata = json!({"resourceVersion": rv.to_string()});
    if !token.is_empty() {
        metadata["continue"] = json!(token);
    }
    let items: Vec<Value> = items.into_iter().map(strip_type).collect();
    let body =
        json!({"kind": format!("{}List", r.kind), "apiVersion": r.api_version(), "metadata": metadata, "items": items});
    if rewrites.is_empty() {
        return json(200, &body);
    }
    let text = rewrites.iter().fold(body.to_string(), |text, (from, to)| text.replace(from, to));
    json_text(200, text)
}

/// One object (or its one-row Table).
pub fn get(shared: &Shared, rid: ResourceId, namespace: Option<&str>, name: &str, accept: &str) -> Response {
    let r = &SERVED[rid];
    let st = shared.lock();
    let Some(object) = st.get(rid, namespace.unwrap_or(""), name) else {
        return error(&ApiError::not_found(r.plural, r.group, name));
    };
    let rv = st.rv;
    drop(st);
    if wants_table(accept) {
        return json(200, &table(r.kind, &[object], rv, "", "Metadata"));
    }
    json(200, &object)
}
