//! The fake's HTTP endpoints: `/insert/jsonline`, `/select/logsql/query`
//! (streamed in 1000-byte chunks, so rows cross chunk boundaries),
//! `/select/logsql/hits`, `/select/logsql/field_names`, `/health`.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::extract::{Form, Query, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use chrono::{DateTime, Utc};
use futures::StreamExt;

use super::logsql::{parse, Filter};
use super::storage::{ingest, parse_time, InsertArgs, StoredRow};
use super::{lock, Fault, Required, Seen, Shared};

type Args = HashMap<String, String>;

/// The routes.
pub fn router(state: Arc<Shared>) -> Router {
    Router::new()
        .route("/insert/jsonline", post(insert))
        .route("/select/logsql/query", get(query).post(query))
        .route("/select/logsql/hits", get(hits).post(hits))
        .route("/select/logsql/field_names", get(field_names).post(field_names))
        .route("/health", get(|| async { "OK" }))
        .with_state(state)
}

/// `Basic base64(user:password)`.
pub fn basic_header(user: &str, password: &str) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let input = format!("{user}:{password}").into_bytes();
    let mut out = String::new();
    for chunk in input.chunks(3) {
        let b = [chunk[0], *chunk.get(1).unwrap_or(&0), *chunk.get(2).unwrap_or(&0)];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    format!("Basic {out}")
}

fn header_text(headers: &HeaderMap, name: &str) -> Option<String> {
    headers.get(name).and_then(|v| v.to_str().ok()).map(str::to_string)
}

fn tenant(headers: &HeaderMap) -> (u32, u32) {
    let n = |name| header_text(headers, name).and_then(|v| v.parse().ok()).unwrap_or(0);
    (n("AccountID"), n("ProjectID"))
}

fn text(status: StatusCode, body: String) -> Response {
    (status, [(header::CONTENT_TYPE, "text/plain; charset=utf-8")], body).into_response()
}

/// Records the request; the 401 answer when the required credentials are missing.
fn refuse(state: &Shared, path: &str, headers: &HeaderMap, query: Option<&str>) -> Option<Response> {
    let auth = header_text(headers, "authorization");
    let ok = match &*lock(&state.required) {
        None => true,
        Some(Required::Basic(expected) | Required::Bearer(expected)) => auth.as_deref() == Some(expected.as_str()),
    };
    lock(&state.seen).push(Seen {
        path: path.to_string(),
        query: query.map(str::to_string),
        account_id: header_text(headers, "AccountID"),
        project_id: header_text(headers, "ProjectID"),
        authorized: auth.is_some(),
        status: if ok { 200 } else { 401 },
    });
    (!ok).then(|| text(StatusCode::UNAUTHORIZED, "Unauthorized".into()))
}

fn list(args: &Args, name: &str) -> Vec<String> {
    args.get(name)
        .map(|v| v.split(',').map(|s| s.trim().to_string()).filter(|s| !s.is_empty()).collect())
        .unwrap_or_default()
}

async fn insert(
    State(state): State<Arc<Shared>>,
    headers: HeaderMap,
    Query(args): Query<Args>,
    body: String,
) -> Response {
    if let Some(r) = refuse(&state, "/insert/jsonline", &headers, None) {
        return r;
    }
    // Observed on a real server: a form-encoded POST answers 200 and stores nothing.
    if header_text(&headers, "content-type").is_some_and(|c| c.starts_with("application/x-www-form-urlencoded")) {
        return StatusCode::OK.into_response();
    }
    let insert_args = InsertArgs {
        msg_fields: list(&args, "_msg_field"),
        time_fields: list(&args, "_time_field"),
        stream_fields: list(&args, "_stream_fields"),
    };
    let (rows, _skipped) = ingest(&body, &insert_args, tenant(&headers), Utc::now());
    lock(&state.rows).extend(rows);
    StatusCode::OK.into_response()
}

/// The request's filter (query plus `start`/`end` args) or the 400 answer.
fn filter_of(args: &Args) -> Result<Filter, Box<Response>> {
    let Some(q) = args.get("query") else {
        return Err(Box::new(text(StatusCode::BAD_REQUEST, "missing `query` arg".into())));
    };
    let mut f = parse(q).map_err(|e| {
        Box::new(text(
            StatusCode::BAD_REQUEST,
            format!("cannot parse query [{q}]: {e}; see https://docs.victoriametrics.com/victorialogs/logsql/"),
        ))
    })?;
    let bound = |name: &str| args.get(name).and_then(|v| parse_time(v, Utc::now()));
    if args.contains_key("start") || args.contains_key("end") {
        // Current servers: `end` exclusive.
        f = Filter::And(
            Box::new(f),
            Box::new(Filter::Time(bound("start").unwrap_or(i64::MIN), bound("end").unwrap_or(i64::MAX), false)),
        );
    }
    Ok(f)
}

fn matching(state: &Shared, headers: &HeaderMap, filter: &Filter) -> Vec<StoredRow> {
    let tenant = tenant(headers);
    lock(&state.rows).iter().filter(|r| r.tenant == tenant && filter.matches(r)).cloned().collect()
}

/// Fisher–Yates with a small LCG: rows come back unsorted, like the real server's.
fn shuffle<T>(items: &mut [T], mut seed: u64) {
    for i in (1..items.len()).rev() {
        seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        items.swap(i, ((seed >> 33) % (i as u64 + 1)) as usize);
    }
}

async fn query(State(state): State<Arc<Shared>>, headers: HeaderMap, Form(args): Form<Args>) -> Response {
    let q = args.get("query").cloned().unwrap_or_default();
    if let Some(r) = refuse(&state, "/select/logsql/query", &headers, Some(&q)) {
        return r;
    }
    let filter = match filter_of(&args) {
        Ok(f) => f,
        Err(r) => return *r,
    };
    let fault = state.take_fault("/select/logsql/query", &q);
    if let Some(answer) = fault.as_ref().and_then(|f| status_fault(f, &q)) {
        return answer;
    }
    let mut rows = matching(&state, &headers, &filter);
    shuffle(&mut rows, state.next_seed());
    if let Some(limit) = args.get("limit").and_then(|l| l.parse::<usize>().ok()) {
        rows.sort_by_key(|r| std::cmp::Reverse(r.time_ns));
        rows.truncate(limit);
    }
    let lines: Vec<String> = rows.iter().map(|r| r.to_line() + "\n").collect();
    let mut body: Vec<u8> = Vec::new();
    let (mut tail_error, mut stall) = (false, false);
    match fault {
        Some(Fault::Stall { lines: n }) => {
            body.extend(lines.iter().take(n).flat_map(|l| l.bytes()));
            stall = true;
        }
        Some(Fault::Rewrite { from, to }) => body.extend(lines.iter().flat_map(|l| l.replace(&from, &to).into_bytes())),
        Some(Fault::LongLine { lines: n, bytes }) => {
            body.extend(lines.iter().take(n).flat_map(|l| l.bytes()));
            body.resize(body.len() + bytes, b'x');
            body.push(b'\n');
            body.extend(lines.iter().skip(n).flat_map(|l| l.bytes()));
        }
        Some(Fault::BadLine { lines: n, text }) => {
            body.extend(lines.iter().take(n).flat_map(|l| l.bytes()));
            body.extend_from_slice(text.as_bytes());
            body.push(b'\n');
            body.extend(lines.iter().skip(n).flat_map(|l| l.bytes()));
        }
        Some(Fault::Unterminated { text }) => {
            body.extend(lines.iter().flat_map(|l| l.bytes()));
            match text {
                Some(text) => body.extend_from_slice(text.as_bytes()),
                None => {
                    body.pop();
                }
            }
        }
        Some(Fault::Glued { lines: n, tail }) => {
            body.extend(lines.iter().take(n).flat_map(|l| l.bytes()));
            let glued: String = lines.iter().skip(n).take(2).map(|l| l.trim_end()).collect();
            body.extend_from_slice(format!("{glued}{tail}\n").as_bytes());
            body.extend(lines.iter().skip(n + 2).flat_map(|l| l.bytes()));
        }
        Some(Fault::Truncate { lines: n }) => {
            body.extend(lines.iter().take(n).flat_map(|l| l.bytes()));
            let next = lines.get(n).map_or("{\"_time\":\"2026", |l| &l[..l.len() / 2]);
            body.extend_from_slice(next.as_bytes());
            tail_error = true;
        }
        Some(Fault::ErrorText { lines: n }) => {
            body.extend(lines.iter().take(n).flat_map(|l| l.bytes()));
            body.extend_from_slice(b"\nerror during query execution: cannot read block #3 of part: unexpected EOF\n");
            tail_error = true;
        }
        _ => body.extend(lines.iter().flat_map(|l| l.bytes())),
    }
    let chunk = if body.len() > 1 << 20 { 1 << 16 } else { 1000 };
    let chunks: Vec<Result<Bytes, std::io::Error>> =
        body.chunks(chunk).map(|c| Ok(Bytes::copy_from_slice(c))).collect();
    // The abort comes after what was sent has reached the client (the real
    // server has written the header and rows long before it fails).
    let abort = futures::stream::iter(tail_error.then_some(())).then(|()| async {
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        Err(std::io::Error::new(std::io::ErrorKind::ConnectionReset, "injected abort"))
    });
    // A stall: after the rows, a body that never goes on (until the server stops).
    let hang = futures::stream::iter(stall.then_some(()))
        .then(|()| futures::future::pending::<Result<Bytes, std::io::Error>>());
    Response::builder()
        .status(StatusCode::OK)
        .header(header::CONTENT_TYPE, "application/stream+json")
        .body(Body::from_stream(futures::stream::iter(chunks).chain(abort).chain(hang)))
        .unwrap_or_else(|_| StatusCode::INTERNAL_SERVER_ERROR.into_response())
}

/// The answer of a 400 or 503 fault (`None` for the mid-stream ones).
fn status_fault(fault: &Fault, query: &str) -> Option<Response> {
    match fault {
        Fault::BadRequest => Some(text(
            StatusCode::BAD_REQUEST,
            format!(
                "cannot parse query [{query}]: unexpected token (injected); see https://docs.victoriametrics.com/victorialogs/logsql/"
            ),
        )),
        Fault::Unavailable => Some(text(
            StatusCode::SERVICE_UNAVAILABLE,
            "the request couldn't be executed in 30.000 seconds; possible solutions: to increase \
             -search.maxQueryDuration=30s; to pass bigger value to 'timeout' query arg"
                .into(),
        )),
        Fault::Truncate { .. }
        | Fault::ErrorText { .. }
        | Fault::Stall { .. }
        | Fault::LongLine { .. }
        | Fault::BadLine { .. }
        | Fault::Glued { .. }
        | Fault::Unterminated { .. }
        | Fault::Rewrite { .. } => None,
    }
}

/// A fault on `/hits` or `/field_names`: 400, else 503.
fn other_fault(state: &Shared, path: &str, args: &Args) -> Option<Response> {
    let q = args.get("query").cloned().unwrap_or_default();
    let fault = state.take_fault(path, &q)?;
    status_fault(&fault, &q).or_else(|| status_fault(&Fault::Unavailable, &q))
}

/// Parses `60s`, `5m`, `1h30m`, `1d` (LogsQL durations) into nanoseconds.
fn step_ns(s: &str) -> Option<i64> {
    let mut total: i64 = 0;
    let mut rest = s.trim();
    while !rest.is_empty() {
        let digits = rest.find(|c: char| !c.is_ascii_digit()).unwrap_or(rest.len());
        let n: i64 = rest[..digits].parse().ok()?;
        rest = &rest[digits..];
        let unit_len = rest.find(|c: char| c.is_ascii_digit()).unwrap_or(rest.len());
        let unit = match &rest[..unit_len] {
            "ms" => 1_000_000,
            "s" => 1_000_000_000,
            "m" => 60_000_000_000,
            "h" => 3_600_000_000_000,
            "d" => 86_400_000_000_000,
            "w" => 604_800_000_000_000,
            _ => return None,
        };
        total = total.checked_add(n.checked_mul(unit)?)?;
        rest = &rest[unit_len..];
    }
    (total > 0).then_some(total)
}

async fn hits(State(state): State<Arc<Shared>>, headers: HeaderMap, Form(args): Form<Args>) -> Response {
    if let Some(r) = refuse(&state, "/select/logsql/hits", &headers, args.get("query").map(String::as_str)) {
        return r;
    }
    if let Some(r) = other_fault(&state, "/select/logsql/hits", &args) {
        return r;
    }
    let filter = match filter_of(&args) {
        Ok(f) => f,
        Err(r) => return *r,
    };
    let Some(step) = args.get("step").and_then(|s| step_ns(s)) else {
        return text(StatusCode::BAD_REQUEST, "missing or bad `step` arg".into());
    };
    let mut buckets: BTreeMap<i64, u64> = BTreeMap::new();
    for r in matching(&state, &headers, &filter) {
        *buckets.entry(r.time_ns.div_euclid(step) * step).or_default() += 1;
    }
    let total: u64 = buckets.values().sum();
    let timestamps: Vec<String> = buckets
        .keys()
        .map(|t| DateTime::from_timestamp_nanos(*t).to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true))
        .collect();
    let values: Vec<u64> = buckets.values().copied().collect();
    axum::Json(
        serde_json::json!({"hits": [{"fields": {}, "timestamps": timestamps, "values": values, "total": total}]}),
    )
    .into_response()
}

async fn field_names(State(state): State<Arc<Shared>>, headers: HeaderMap, Form(args): Form<Args>) -> Response {
    if let Some(r) = refuse(&state, "/select/logsql/field_names", &headers, args.get("query").map(String::as_str)) {
        return r;
    }
    if let Some(r) = other_fault(&state, "/select/logsql/field_names", &args) {
        return r;
    }
    let filter = match filter_of(&args) {
        Ok(f) => f,
        Err(r) => return *r,
    };
    let mut counts: BTreeMap<String, u64> = BTreeMap::new();
    for r in matching(&state, &headers, &filter) {
        *counts.entry("_time".into()).or_default() += 1;
        *counts.entry("_stream_id".into()).or_default() += 1;
        for (k, v) in &r.fields {
            if !v.is_empty() {
                *counts.entry(k.clone()).or_default() += 1;
            }
        }
    }
    let values: Vec<serde_json::Value> =
        counts.into_iter().map(|(value, hits)| serde_json::json!({"value": value, "hits": hits})).collect();
    axum::Json(serde_json::json!({ "values": values })).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn basic_header_is_base64() {
        assert_eq!(basic_header("Aladdin", "open sesame"), "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==");
        assert_eq!(basic_header("a", "b"), "Basic YTpi");
    }

    #[test]
    fn durations() {
        assert_eq!(step_ns("60s"), Some(60_000_000_000));
        assert_eq!(step_ns("1h30m"), Some(5_400_000_000_000));
        assert_eq!(step_ns("1x"), None);
    }
}
