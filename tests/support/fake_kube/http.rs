//! The HTTP front of the fake apiserver: every request goes through
//! [`dispatch`], which logs it, parses the API path (`/api/v1/...`,
//! `/apis/<group>/<version>/...`, namespaced or not, subresources) and
//! hands it to discovery, list / watch / get, writes or eviction.

use std::collections::HashMap;
use std::sync::atomic::AtomicUsize;
use std::sync::{Arc, Mutex, MutexGuard};

use axum::body::{Body, Bytes};
use axum::extract::State as AxumState;
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::Response;
use serde_json::Value;

use super::resources::{find, ResourceId, SERVED};
use super::state::{RequestRecord, State};
use super::status::ApiError;
use super::{discovery, eviction, list, watch, writes};

/// What the server's tasks share.
#[derive(Debug)]
pub struct Shared {
    /// Objects, history, faults, logs.
    pub state: Mutex<State>,
    /// Bumped to drop every open watch connection.
    pub drops: tokio::sync::watch::Sender<u64>,
    /// Watches currently streaming.
    pub open_watches: AtomicUsize,
    /// `host:port` the server listens on.
    pub address: String,
}

impl Shared {
    /// The state, even after a panicking handler poisoned the lock.
    pub fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// Where an API path points.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Route {
    /// `/version`
    Version,
    /// `/api`
    CoreVersions,
    /// `/apis`
    Groups,
    /// `/apis/<group>`
    Group(String),
    /// `/api/v1`, `/apis/<group>/<version>`
    Resources(String, String),
    /// A collection (`namespace` None: all namespaces or cluster-scoped).
    Collection(ResourceId, Option<String>),
    /// One object.
    Object(ResourceId, Option<String>, String),
    /// A subresource of one object (`eviction`, `status`).
    Subresource(ResourceId, Option<String>, String, String),
}

/// Parses a URL path; `None` for paths the server does not serve.
pub fn route(path: &str, hidden: &dyn Fn(ResourceId) -> bool) -> Option<Route> {
    let seg: Vec<&str> = path.trim_matches('/').split('/').filter(|s| !s.is_empty()).collect();
    let (group, version, rest): (&str, &str, &[&str]) = match seg.as_slice() {
        ["version"] => return Some(Route::Version),
        ["api"] => return Some(Route::CoreVersions),
        ["apis"] => return Some(Route::Groups),
        ["apis", g] => return Some(Route::Group((*g).to_string())),
        ["api", v] => return Some(Route::Resources(String::new(), (*v).to_string())),
        ["apis", g, v] => return Some(Route::Resources((*g).to_string(), (*v).to_string())),
        ["api", v, rest @ ..] => ("", *v, rest),
        ["apis", g, v, rest @ ..] => (*g, *v, rest),
        _ => return None,
    };
    let served = |plural: &str| find(group, version, plural).filter(|r| !hidden(*r));
    let namespaced = |plural: &str| served(plural).filter(|r| SERVED[*r].namespaced);
    let cluster = |plural: &str| served(plural);
    match rest {
        ["namespaces", ns, plural] if namespaced(plural).is_some() => {
            namespaced(plural).map(|r| Route::Collection(r, Some((*ns).to_string())))
        }
        ["namespaces", ns, plural, name] if namespaced(plural).is_some() => {
            namespaced(plural).map(|r| Route::Object(r, Some((*ns).to_string()), (*name).to_string()))
        }
        ["namespaces", ns, plural, name, sub] if namespaced(plural).is_some() => namespaced(plural)
            .map(|r| Route::Subresource(r, Some((*ns).to_string()), (*name).to_string(), (*sub).to_string())),
        [plural] => cluster(plural).map(|r| Route::Collection(r, None)),
        [plural, name] => {
            cluster(plural).filter(|r| !SERVED[*r].namespaced).map(|r| Route::Object(r, None, (*name).to_string()))
        }
        [plural, name, sub] => cluster(plural)
            .filter(|r| !SERVED[*r].namespaced)
            .map(|r| Route::Subresource(r, None, (*name).to_string(), (*sub).to_string())),
        _ => None,
    }
}

/// A JSON response.
pub fn json(code: u16, body: &Value) -> Response {
    json_text(code, body.to_string())
}

/// A JSON response from its text.
pub fn json_text(code: u16, text: String) -> Response {
    Response::builder()
        .status(StatusCode::from_u16(code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR))
        .header("content-type", "application/json")
        .body(Body::from(text))
        .unwrap_or_default()
}

/// An error answer with its Status body.
pub fn error(e: &ApiError) -> Response {
    json(e.code, &e.status())
}

/// The query string as a map (last value wins).
pub fn query_map(uri: &Uri) -> HashMap<String, String> {
    let mut out = HashMap::new();
    for pair in uri.query().unwrap_or("").split('&').filter(|p| !p.is_empty()) {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        out.insert(decode(k), decode(v));
    }
    out
}

/// Percent-decoding (`+` as space) of one query component.
fn decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 3 <= bytes.len() => {
                match u8::from_str_radix(std::str::from_utf8(&bytes[i + 1..i + 3]).unwrap_or("zz"), 16) {
                    Ok(b) => {
                        out.push(b);
                        i += 2;
                    }
                    Err(_) => out.push(b'%'),
                }
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The single handler of every request.
pub async fn dispatch(
    AxumState(shared): AxumState<Arc<Shared>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let path = uri.path().to_string();
    let query = query_map(&uri);
    let accept = headers.get("accept").and_then(|v| v.to_str().ok()).unwrap_or("").to_string();
    let content_type = headers.get("content-type").and_then(|v| v.to_str().ok()).unwrap_or("").to_string();
    let authorization = headers.get("authorization").and_then(|v| v.to_str().ok()).unwrap_or("").to_string();
    let route = {
        let mut st = shared.lock();
        st.requests.push(RequestRecord {
            method: method.to_string(),
            path: path.clone(),
            query: uri.query().unwrap_or("").to_string(),
            authorization: authorization.clone(),
        });
        let hidden = st.faults.hidden.clone();
        route(&path, &|r| hidden.contains(&SERVED[r].name()))
    };
    if method == Method::GET {
        if let Some(answer) = super::metrics::answer(&shared, &path) {
            return answer;
        }
    }
    let Some(route) = route else { return error(&ApiError::no_route()) };
    let parsed_body = || -> Result<Value, ApiError> {
        serde_json::from_slice(&body).map_err(|e| ApiError::bad_request(format!("the body is not JSON: {e}")))
    };
    match (&method, route) {
        (&Method::GET, Route::Version) => json(200, &discovery::version()),
        (&Method::GET, Route::CoreVersions) => json(200, &discovery::core_versions(&shared.address)),
        (&Method::GET, Route::Groups) => json(200, &discovery::groups(&shared)),
        (&Method::GET, Route::Group(g)) => discovery::group(&shared, &g),
        (&Method::GET, Route::Resources(g, v)) => discovery::resources(&shared, &g, &v),
        (&Method::GET, Route::Collection(rid, ns)) => {
            if let Some(resp) = injected(
                &shared,
                rid,
                ns.as_deref(),
                if query.contains_key("watch") { "watch" } else { "list" },
                &authorization,
            ) {
                return resp;
            }
            let is_watch = query.get("watch").is_some_and(|w| w == "1" || w == "true");
            if is_watch {
                watch::watch(shared, rid, ns, &query)
            } else {
                list::list(&shared, rid, ns.as_deref(), &query, &accept)
            }
        }
        (&Method::GET, Route::Object(rid, ns, name)) => {
            if let Some(resp) = injected(&shared, rid, ns.as_deref(), "get", &authorization) {
                return resp;
            }
            list::get(&shared, rid, ns.as_deref(), &name, &accept)
        }
        (&Method::POST, Route::Collection(rid, ns)) => match parsed_body() {
            Ok(b) => writes::create(&shared, rid, ns.as_deref(), b),
            Err(e) => error(&e),
        },
        (&Method::PUT, Route::Object(rid, ns, name)) => match parsed_body() {
            Ok(b) => writes::update(&shared, rid, ns.as_deref(), &name, b),
            Err(e) => error(&e),
        },
        (&Method::PATCH, Route::Object(rid, ns, name)) => match parsed_body() {
            Ok(b) => writes::patch(&shared, rid, ns.as_deref(), &name, &content_type, b),
            Err(e) => error(&e),
        },
        (&Method::DELETE, Route::Object(rid, ns, name)) => writes::delete(&shared, rid, ns.as_deref(), &name),
        (&Method::POST, Route::Subresource(rid, Some(ns), name, sub))
            if SERVED[rid].kind == "Pod" && sub == "eviction" =>
        {
            match parsed_body() {
                Ok(b) => {
                    let dry_run = query.get("dryRun").is_some_and(|d| d == "All");
                    eviction::evict(shared, ns, name, b, dry_run, &authorization).await
                }
                Err(e) => error(&e),
            }
        }
        _ => error(&ApiError {
            code: 405,
            reason: "MethodNotAllowed",
            message: format!("the server does not allow this method on the requested resource ({method} {path})"),
            details: serde_json::json!({}),
        }),
    }
}

/// `e`'s message followed by `authorization` raw, as base64 (padded and
/// not), URL-encoded and JSON-escaped, as a hostile server may echo it.
pub fn echo_authorization(e: &mut ApiError, authorization: &str) {
    use base64::Engine;
    let b64 = base64::engine::general_purpose::STANDARD.encode(authorization);
    e.message = format!(
        "{}; the request had Authorization: {authorization} (base64 {b64}, unpadded {}, URL-encoded {}, \
         JSON-escaped \"{}\")",
        e.message,
        b64.trim_end_matches('='),
        crate::leaks::url_encoded(authorization),
        crate::leaks::json_escaped(authorization),
    );
}

/// A `200` whose body is not JSON (a proxy's debug page), quoting
/// `authorization` raw, as base64, hex and JSON-escaped when `echo`.
fn not_json(authorization: &str, echo: bool) -> Response {
    use base64::Engine;
    let body = if echo {
        format!(
            "<html>proxy debug: Authorization: {authorization}; base64 {}; hex {}; json \"{}\"</html>",
            base64::engine::general_purpose::STANDARD.encode(authorization),
            authorization.bytes().map(|b| format!("{b:02x}")).collect::<String>(),
            crate::leaks::json_escaped(authorization),
        )
    } else {
        "<html>proxy debug page</html>".to_string()
    };
    Response::builder()
        .status(StatusCode::OK)
        .header("content-type", "text/html")
        .body(Body::from(body))
        .unwrap_or_default()
}

/// The injected answer for reading `rid`, if any: a `200` that is not JSON
/// ([`not_json`]), else a status whose message quotes `authorization` in
/// every form when the fault says so.
fn injected(shared: &Shared, rid: ResourceId, ns: Option<&str>, verb: &str, authorization: &str) -> Option<Response> {
    let r = &SERVED[rid];
    let (code, echo) = {
        let st = shared.lock();
        (*st.faults.resource_codes.get(&r.name())?, st.faults.echo_authorization)
    };
    if code == 200 {
        return Some(not_json(authorization, echo));
    }
    let mut e = if code == 403 { ApiError::forbidden(r.plural, r.group, verb, ns) } else { ApiError::injected(code) };
    if echo {
        echo_authorization(&mut e, authorization);
    }
    Some(error(&e))
}
