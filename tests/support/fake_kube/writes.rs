//! Writes over HTTP: create (POST), replace (PUT, with the resourceVersion
//! conflict check), patch (PATCH: JSON merge patch; strategic merge patch
//! is applied as a merge patch, enough for cordon and label changes) and
//! delete (the object is removed at once: no finalizers, no grace period).

use axum::response::Response;
use serde_json::{Map, Value};

use super::http::{error, json, Shared};
use super::resources::{ResourceId, SERVED};
use super::state::Stamp;
use super::status::ApiError;

fn namespace_in(object: &mut Value, namespace: Option<&str>) -> Result<(), ApiError> {
    let Some(ns) = namespace else { return Ok(()) };
    let Some(m) = object.as_object_mut() else { return Err(ApiError::bad_request("the body is not an object")) };
    let meta = m.entry("metadata").or_insert_with(|| Value::Object(Map::new()));
    let Some(meta) = meta.as_object_mut() else { return Err(ApiError::bad_request("metadata is not an object")) };
    match meta.get("namespace").and_then(Value::as_str) {
        Some(given) if !given.is_empty() && given != ns => Err(ApiError::bad_request(
            "the namespace of the provided object does not match the namespace sent on the request",
        )),
        _ => {
            meta.insert("namespace".into(), Value::String(ns.to_string()));
            Ok(())
        }
    }
}

/// POST to a collection.
pub fn create(shared: &Shared, rid: ResourceId, namespace: Option<&str>, mut body: Value) -> Response {
    if let Err(e) = namespace_in(&mut body, namespace) {
        return error(&e);
    }
    match shared.lock().create(rid, body, Stamp::Next) {
        Ok(o) => json(201, &o),
        Err(e) => error(&e),
    }
}

/// PUT of one object.
pub fn update(shared: &Shared, rid: ResourceId, namespace: Option<&str>, name: &str, mut body: Value) -> Response {
    if let Err(e) = namespace_in(&mut body, namespace) {
        return error(&e);
    }
    if body.pointer("/metadata/name").and_then(Value::as_str) != Some(name) {
        return error(&ApiError::bad_request("the name of the object does not match the name on the URL"));
    }
    match shared.lock().update(rid, body, Stamp::Next, true) {
        Ok(o) => json(200, &o),
        Err(e) => error(&e),
    }
}

/// RFC 7386 JSON merge patch.
pub fn merge_patch(target: &mut Value, patch: &Value) {
    let Value::Object(p) = patch else {
        *target = patch.clone();
        return;
    };
    if !target.is_object() {
        *target = Value::Object(Map::new());
    }
    if let Value::Object(t) = target {
        for (k, v) in p {
            if v.is_null() {
                t.remove(k);
            } else {
                merge_patch(t.entry(k.clone()).or_insert(Value::Null), v);
            }
        }
    }
}

/// PATCH of one object.
pub fn patch(
    shared: &Shared,
    rid: ResourceId,
    namespace: Option<&str>,
    name: &str,
    content_type: &str,
    body: Value,
) -> Response {
    if content_type.starts_with("application/json-patch") || content_type.starts_with("application/apply-patch") {
        return error(&ApiError {
            code: 415,
            reason: "UnsupportedMediaType",
            message: format!("the fake apiserver does not support {content_type} patches"),
            details: serde_json::json!({}),
        });
    }
    let r = &SERVED[rid];
    let mut st = shared.lock();
    let Some(mut object) = st.get(rid, namespace.unwrap_or(""), name) else {
        return error(&ApiError::not_found(r.plural, r.group, name));
    };
    // As the real apiserver: a resourceVersion in the patch is a
    // precondition (409 Conflict when the object has moved on).
    let sent_rv = body.pointer("/metadata/resourceVersion").and_then(Value::as_str).map(str::to_string);
    merge_patch(&mut object, &body);
    match st.update(rid, object, Stamp::Next, sent_rv.is_some()) {
        Ok(o) => json(200, &o),
        Err(e) => error(&e),
    }
}

/// DELETE of one object: answers with its last state.
pub fn delete(shared: &Shared, rid: ResourceId, namespace: Option<&str>, name: &str) -> Response {
    match shared.lock().delete(rid, namespace.unwrap_or(""), name, None, Stamp::Next) {
        Ok(o) => json(200, &o),
        Err(e) => error(&e),
    }
}
