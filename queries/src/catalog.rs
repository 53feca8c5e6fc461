//! The named queries as a catalog users can run (`kdrift query --list`,
//! `kdrift query NAME --param k=v`): each file's header comment (purpose,
//! parameters, columns) parsed, parameters bound by name, rows returned as
//! JSON values. Only queries marked `-- access: read` can be run this way;
//! the store's own writes are not exposed.
//!
//! Parameters are typed by name and declared SQL type ([`ParamKind`]):
//! `_us` names take one instant and `instants` a comma-separated list of
//! them, each RFC 3339 or UTC microseconds ([`crate::instant`]), bound as the
//! microseconds the SQL expects. A column the `-- columns:` header declares
//! `JSON` (or `VARCHAR (JSON text…)`) comes back as the JSON value its text
//! holds, and one declared `JSON[]` (a list of JSON texts) as a list of JSON
//! values, not as strings holding JSON ([`JsonShape`]).

use duckdb::types::{TimeUnit, Value as DbValue};
use duckdb::ToSql;
use serde::Serialize;
use serde_json::Value;

use super::sql::{NamedQuery, ALL};
use super::{query_error, Store, StoreError};
use crate::instant::{parse_instant, parse_instant_list, InstantListError, ACCEPTED};

/// One parameter of a query, from its `-- params:` header (`$1 namespace VARCHAR`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ParamSpec {
    /// 1-based position (`$1`).
    pub position: usize,
    /// Name users pass with `--param NAME=VALUE`.
    pub name: String,
    /// Declared SQL type (`VARCHAR`, `BIGINT`).
    pub sql_type: String,
    /// What users pass and how it is converted (from the name and the type).
    pub kind: ParamKind,
    /// The value when none is given: `''` for a text parameter whose header
    /// says what the empty text means (`$4 uid VARCHAR ('' = any pod …)`);
    /// `None`: the parameter is required.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
}

/// How a parameter's value is read and bound.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ParamKind {
    /// One instant (names ending in `_us`): RFC 3339 or UTC microseconds,
    /// bound as UTC microseconds (BIGINT).
    Instant,
    /// Instants (the name `instants`): a comma-separated list, each element
    /// an [`ParamKind::Instant`]; bound as a comma-separated string of UTC
    /// microseconds (the form of the schema's `pod_versions_at(instants)`).
    Instants,
    /// An integer (`BIGINT`, `INTEGER`).
    Integer,
    /// Text, bound as given.
    Text,
}

impl ParamKind {
    fn of(name: &str, sql_type: &str) -> ParamKind {
        if name.ends_with("_us") {
            ParamKind::Instant
        } else if name == "instants" {
            ParamKind::Instants
        } else if matches!(sql_type, "BIGINT" | "INTEGER") {
            ParamKind::Integer
        } else {
            ParamKind::Text
        }
    }
}

impl ParamSpec {
    /// What a value of this parameter must be, in words (for `--list` and errors).
    pub fn expects(&self) -> String {
        match self.kind {
            ParamKind::Instant => "RFC 3339 or UTC µs".into(),
            ParamKind::Instants => "comma-separated, each RFC 3339 or UTC µs".into(),
            ParamKind::Integer | ParamKind::Text => match &self.default {
                Some(d) => format!("{}, default {d:?}", self.sql_type),
                None => self.sql_type.clone(),
            },
        }
    }
}

/// A query's header.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct QueryInfo {
    /// Name.
    pub name: &'static str,
    /// File under queries/.
    pub file: &'static str,
    /// What it is for.
    pub purpose: String,
    /// Parameters, in position order.
    pub params: Vec<ParamSpec>,
    /// Whether users may run it (`-- access: read`): it only reads and returns rows.
    pub read_only: bool,
    /// Whether it answers a user's question on its own (`-- audience: user`:
    /// runs, events, pods and nodes at an instant, usage samples…), as
    /// `kdrift query --list` shows; the others are the analyses' building
    /// blocks (`--list --all`).
    pub user_facing: bool,
}

/// Errors of running a catalog query.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CatalogError {
    /// No query by that name.
    #[error("no query named {0:?} (see `kdrift query --list`)")]
    Unknown(String),
    /// The query writes to the store (or is internal); only read queries can be run.
    #[error("query {0} is internal to the store (it is not marked `-- access: read`); only read queries can be run")]
    NotARead(&'static str),
    /// A required parameter was not given.
    #[error("query {query} needs --param {name}=… ({expects})")]
    MissingParam {
        /// Query name.
        query: &'static str,
        /// Parameter name.
        name: String,
        /// What its value must be ([`ParamSpec::expects`]).
        expects: String,
    },
    /// A parameter the query does not take.
    #[error("query {query} has no parameter {name:?} ({known})")]
    UnknownParam {
        /// Query name.
        query: &'static str,
        /// What was given.
        name: String,
        /// What it takes (`it takes: a, b`, or `it takes none`).
        known: String,
    },
    /// A parameter given more than once (the last value would win silently).
    #[error("--param {name} is given {} times ({}); give it once", .values.len(), .values.iter().map(|v| format!("{name}={v:?}")).collect::<Vec<_>>().join(", "))]
    RepeatedParam {
        /// Parameter name.
        name: String,
        /// The values given, in order.
        values: Vec<String>,
    },
    /// A value that does not fit the parameter's type.
    #[error("--param {name}={value:?}: expected {expected}{hint}")]
    BadValue {
        /// Parameter name.
        name: String,
        /// The value given.
        value: String,
        /// What was expected.
        expected: &'static str,
        /// The likely mistake, when known (`""` or `"; …"`: a number of
        /// nanoseconds, seconds or milliseconds given for microseconds).
        hint: &'static str,
    },
    /// A list of instants (`instants`) that is empty or has an element that is not an instant.
    #[error("--param {name}={value:?}: {problem}")]
    BadInstants {
        /// Parameter name.
        name: String,
        /// The value given.
        value: String,
        /// What is wrong with it.
        problem: InstantListError,
    },
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

fn header_field(sql: &str, field: &str) -> String {
    let mut out = String::new();
    let mut in_field = false;
    for line in sql.lines() {
        let Some(rest) = line.strip_prefix("--") else { break };
        let rest = rest.trim();
        if let Some(v) = rest.strip_prefix(&format!("{field}:")) {
            in_field = true;
            out.push_str(v.trim());
        } else if in_field && line.starts_with("--   ") {
            out.push(' ');
            out.push_str(rest);
        } else {
            in_field = false;
        }
    }
    out
}

/// Parses one query's header.
pub fn info(q: &NamedQuery) -> QueryInfo {
    let params_text = header_field(q.sql, "params");
    let mut params = Vec::new();
    for part in params_text.split(',') {
        let mut words = part.split_whitespace();
        let Some(pos) = words.next().and_then(|w| w.strip_prefix('$')).and_then(|p| p.parse::<usize>().ok()) else {
            continue;
        };
        let name = words.next().unwrap_or("").to_string();
        let sql_type = words.next().unwrap_or("VARCHAR").trim_end_matches(['(', ',']).to_string();
        let kind = ParamKind::of(&name, &sql_type);
        // `('' = what the empty text means)`: optional, empty by default.
        let default = (kind == ParamKind::Text && words.next().is_some_and(|w| w.starts_with("(''"))).then(String::new);
        params.push(ParamSpec { position: pos, name, sql_type, kind, default });
    }
    params.sort_by_key(|p| p.position);
    QueryInfo {
        name: q.name,
        file: q.file,
        purpose: header_field(q.sql, "purpose"),
        params,
        read_only: header_field(q.sql, "access") == "read",
        user_facing: header_field(q.sql, "audience") == "user",
    }
}

/// Every query's header, in registry order.
pub fn list_queries() -> Vec<QueryInfo> {
    ALL.iter().map(info).collect()
}

/// A query's result: column names and rows of JSON values (timestamps as
/// RFC 3339 strings in UTC).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct QueryResult {
    /// Column names.
    pub columns: Vec<String>,
    /// Rows.
    pub rows: Vec<Vec<Value>>,
}

fn bind_value(spec: &ParamSpec, value: &str) -> Result<Box<dyn ToSql>, CatalogError> {
    let bad =
        |expected, hint| CatalogError::BadValue { name: spec.name.clone(), value: value.to_string(), expected, hint };
    match spec.kind {
        ParamKind::Instant => {
            let t = parse_instant(value).map_err(|e| bad(ACCEPTED, e.hint))?;
            Ok(Box::new(t.timestamp_micros()))
        }
        ParamKind::Instants => {
            let list = parse_instant_list(value).map_err(|problem| CatalogError::BadInstants {
                name: spec.name.clone(),
                value: value.to_string(),
                problem,
            })?;
            Ok(Box::new(list.iter().map(i64::to_string).collect::<Vec<_>>().join(",")))
        }
        ParamKind::Integer => {
            value.parse::<i64>().map(|v| Box::new(v) as Box<dyn ToSql>).map_err(|_| bad("an integer", ""))
        }
        ParamKind::Text => Ok(Box::new(value.to_string())),
    }
}

/// How a column's values hold JSON text, from the `-- columns:` header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JsonShape {
    /// One JSON text (`object JSON`, `object VARCHAR (JSON text: …)`).
    Whole,
    /// A list of JSON texts (`other JSON[]`).
    List,
}

/// The columns the `-- columns:` header declares as JSON, with their shape
/// (`object JSON`, `model VARCHAR (JSON text)`, `other JSON[] (…)`);
/// commas inside parentheses do not split.
pub fn json_columns(sql: &str) -> Vec<(String, JsonShape)> {
    let header = header_field(sql, "columns");
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0i32, 0usize);
    for (i, c) in header.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&header[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&header[start..]);
    parts
        .into_iter()
        .filter_map(|part| {
            let mut words = part.split_whitespace();
            let name = words.next()?.to_string();
            let shape = match words.next()? {
                "JSON" => JsonShape::Whole,
                "JSON[]" => JsonShape::List,
                "VARCHAR" if words.next().is_some_and(|w| w == "(JSON") => JsonShape::Whole,
                _ => return None,
            };
            Some((name, shape))
        })
        .collect()
}

/// A JSON text as the JSON value it holds (text that does not parse stays text).
fn parse_json_text(v: Value) -> Value {
    match v {
        Value::String(text) => serde_json::from_str(&text).unwrap_or(Value::String(text)),
        other => other,
    }
}

/// A list of JSON texts as a list of JSON values (an element that does not
/// parse stays its text).
fn parse_json_elements(v: Value) -> Value {
    match v {
        Value::Array(items) => Value::Array(items.into_iter().map(parse_json_text).collect()),
        other => other,
    }
}

fn to_json(v: DbValue) -> Value {
    match v {
        DbValue::Null => Value::Null,
        DbValue::Boolean(b) => Value::Bool(b),
        DbValue::TinyInt(i) => i.into(),
        DbValue::SmallInt(i) => i.into(),
        DbValue::Int(i) => i.into(),
        DbValue::BigInt(i) => i.into(),
        DbValue::UTinyInt(i) => i.into(),
        DbValue::USmallInt(i) => i.into(),
        DbValue::UInt(i) => i.into(),
        DbValue::UBigInt(i) => i.into(),
        DbValue::HugeInt(i) => i64::try_from(i).map_or_else(|_| Value::String(i.to_string()), Value::from),
        DbValue::Float(f) => f64::from(f).into(),
        DbValue::Double(f) => f.into(),
        DbValue::Text(s) => Value::String(s),
        DbValue::Timestamp(unit, n) => {
            let us = match unit {
                TimeUnit::Second => n.saturating_mul(1_000_000),
                TimeUnit::Millisecond => n.saturating_mul(1000),
                TimeUnit::Microsecond => n,
                TimeUnit::Nanosecond => n / 1000,
            };
            chrono::DateTime::from_timestamp_micros(us)
                .map_or(Value::Null, |t| Value::String(t.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true)))
        }
        DbValue::List(items) | DbValue::Array(items) => Value::Array(items.into_iter().map(to_json).collect()),
        other => Value::String(format!("{other:?}")),
    }
}

/// Runs a read query by name with `name=value` parameters.
///
/// # Errors
/// [`CatalogError`] for an unknown query or parameter, a missing or
/// ill-typed value, a query that writes, or a store failure.
pub fn run_query(store: &Store, name: &str, params: &[(String, String)]) -> Result<QueryResult, CatalogError> {
    let q = ALL.iter().find(|q| q.name == name).ok_or_else(|| CatalogError::Unknown(name.to_string()))?;
    let info = info(q);
    if !info.read_only {
        return Err(CatalogError::NotARead(q.name));
    }
    let known = match info.params.iter().map(|p| p.name.as_str()).collect::<Vec<_>>().join(", ") {
        none if none.is_empty() => "it takes none".to_string(),
        names => format!("it takes: {names}"),
    };
    for (k, _) in params {
        if !info.params.iter().any(|p| &p.name == k) {
            return Err(CatalogError::UnknownParam { query: q.name, name: k.clone(), known: known.clone() });
        }
    }
    for spec in &info.params {
        let values: Vec<String> = params.iter().filter(|(k, _)| *k == spec.name).map(|(_, v)| v.clone()).collect();
        if values.len() > 1 {
            return Err(CatalogError::RepeatedParam { name: spec.name.clone(), values });
        }
    }
    let mut bound: Vec<Box<dyn ToSql>> = Vec::new();
    for spec in &info.params {
        let given = params.iter().find(|(k, _)| *k == spec.name).map(|(_, v)| v.as_str());
        let value = given.or(spec.default.as_deref()).ok_or_else(|| CatalogError::MissingParam {
            query: q.name,
            name: spec.name.clone(),
            expects: spec.expects(),
        })?;
        bound.push(bind_value(spec, value)?);
    }
    let refs: Vec<&dyn ToSql> = bound.iter().map(|b| b.as_ref()).collect();
    let mut stmt = store.conn.prepare(q.sql).map_err(|e| query_error(q, e))?;
    let mut rows_out = Vec::new();
    let mut rows = stmt.query(refs.as_slice()).map_err(|e| query_error(q, e))?;
    let columns = rows.as_ref().map(|s| s.column_names()).unwrap_or_default();
    let json = json_columns(q.sql);
    let shapes: Vec<Option<JsonShape>> =
        columns.iter().map(|c| json.iter().find(|(name, _)| name == c).map(|(_, shape)| *shape)).collect();
    while let Some(row) = rows.next().map_err(|e| query_error(q, e))? {
        let mut out = Vec::with_capacity(columns.len());
        for (i, shape) in shapes.iter().enumerate() {
            let value = to_json(row.get::<_, DbValue>(i).map_err(|e| query_error(q, e))?);
            out.push(match shape {
                Some(JsonShape::Whole) => parse_json_text(value),
                Some(JsonShape::List) => parse_json_elements(value),
                None => value,
            });
        }
        rows_out.push(out);
    }
    drop(rows);
    Ok(QueryResult { columns, rows: rows_out })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_query_has_a_header_with_purpose() {
        for q in list_queries() {
            assert!(!q.purpose.is_empty(), "{} has no purpose line", q.file);
        }
    }

    #[test]
    fn params_are_read_from_the_header() {
        let q = ALL.iter().find(|q| q.name == "pod_at").expect("pod_at");
        let i = info(q);
        let names: Vec<&str> = i.params.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["namespace", "name", "at_us", "uid"]);
        let kinds: Vec<ParamKind> = i.params.iter().map(|p| p.kind).collect();
        assert_eq!(kinds, [ParamKind::Text, ParamKind::Text, ParamKind::Instant, ParamKind::Text]);
        // The uid may be left out (empty: any pod of the name); the others may not.
        let defaults: Vec<Option<&str>> = i.params.iter().map(|p| p.default.as_deref()).collect();
        assert_eq!(defaults, [None, None, None, Some("")]);
        assert_eq!(i.params[3].expects(), "VARCHAR, default \"\"");
        assert!(i.read_only);
        let r = info(ALL.iter().find(|q| q.name == "requested_by_node").expect("requested_by_node"));
        assert_eq!(r.params[0].kind, ParamKind::Instants);
        let runs = info(ALL.iter().find(|q| q.name == "run_added_by_location").expect("query"));
        assert_eq!(runs.params[0].kind, ParamKind::Integer);
        for writer in ["commit_observations", "begin_run", "schema_v1"] {
            let w = ALL.iter().find(|q| q.name == writer).expect("query");
            assert!(!info(w).read_only, "{writer}");
        }
    }

    #[test]
    fn json_columns_are_read_from_the_columns_header() {
        let shapes = |name: &str| {
            let q = ALL.iter().find(|q| q.name == name).unwrap_or_else(|| panic!("{name}"));
            json_columns(q.sql)
        };
        assert_eq!(shapes("requested_by_node"), [("other".to_string(), JsonShape::List)]);
        // DuckDB's JSON type, and VARCHAR documented as JSON text: one whole value.
        assert_eq!(shapes("pod_at"), [("object".to_string(), JsonShape::Whole)]);
        assert_eq!(shapes("pods_at"), [("object".to_string(), JsonShape::Whole)]);
        assert_eq!(shapes("nodes_at_instants"), [("object".to_string(), JsonShape::Whole)]);
        assert!(shapes("store_counts").is_empty());
        // Every read query's JSON columns: the objects (and the other requested resources), nothing else.
        let mut every: Vec<(&str, String)> = ALL
            .iter()
            .filter(|q| info(q).read_only)
            .flat_map(|q| json_columns(q.sql).into_iter().map(|(c, _)| (q.name, c)))
            .collect();
        every.sort();
        let names: Vec<String> = every.iter().map(|(q, c)| format!("{q}.{c}")).collect();
        assert_eq!(
            names,
            [
                "job_pods.object",
                "jobs.object",
                "nodes_at.object",
                "nodes_at_instants.object",
                "objects_at.object",
                "owner_samples.object",
                "owner_versions_at.object",
                "pod_at.object",
                "pod_filter_fields_at.labels",
                "pod_filter_fields_at.requests_other",
                "pod_models.object",
                "pods_at.object",
                "pods_read_whole_at.requests_other",
                "requested_by_node.other",
                "requested_extras_at.requests_other",
                "requested_extras_at_instants.requests_other"
            ]
        );
        assert_eq!(parse_json_text(Value::String(r#"{"a":[1]}"#.into())), serde_json::json!({"a": [1]}));
        assert_eq!(parse_json_text(Value::Null), Value::Null);
        let list = Value::Array(vec![Value::String(r#"{"gpu.intel.com/i915":1}"#.into()), Value::String("{".into())]);
        assert_eq!(
            parse_json_elements(list),
            serde_json::json!([{"gpu.intel.com/i915": 1}, "{"]),
            "JSON texts become objects; text that is not JSON stays text"
        );
    }
}
