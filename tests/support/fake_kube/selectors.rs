//! `labelSelector` and `fieldSelector` query parameters (the subset clients
//! send: `a=b`, `a==b`, `a!=b`, `a`, `!a`, `a in (x,y)`, `a notin (x)`;
//! fields `metadata.name`, `metadata.namespace`, `spec.nodeName`,
//! `status.phase`, `involvedObject.*`), and PodDisruptionBudget
//! `spec.selector` (`matchLabels` + `matchExpressions`) against pod labels.

use serde_json::Value;

use super::status::ApiError;

/// One requirement of a selector.
#[derive(Debug, Clone, PartialEq)]
enum Req {
    Eq(String, String),
    NotEq(String, String),
    In(String, Vec<String>),
    NotIn(String, Vec<String>),
    Exists(String),
    NotExists(String),
}

/// A parsed label or field selector (all requirements must hold).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Selector {
    labels: Vec<Req>,
    fields: Vec<Req>,
}

/// Splits on commas outside parentheses.
fn split_top(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0;
    let mut cur = String::new();
    for c in s.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(std::mem::take(&mut cur));
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    out.push(cur);
    out.into_iter().map(|p| p.trim().to_string()).filter(|p| !p.is_empty()).collect()
}

fn parse(s: &str) -> Result<Vec<Req>, ApiError> {
    let mut out = Vec::new();
    for part in split_top(s) {
        let set = |rest: &str| -> Vec<String> {
            rest.trim().trim_start_matches('(').trim_end_matches(')').split(',').map(|v| v.trim().to_string()).collect()
        };
        let req = if let Some((k, v)) = part.split_once("!=") {
            Req::NotEq(k.trim().into(), v.trim().into())
        } else if let Some((k, v)) = part.split_once("==") {
            Req::Eq(k.trim().into(), v.trim().into())
        } else if let Some((k, v)) = part.split_once('=') {
            Req::Eq(k.trim().into(), v.trim().into())
        } else if let Some((k, rest)) = part.split_once(" notin ") {
            Req::NotIn(k.trim().into(), set(rest))
        } else if let Some((k, rest)) = part.split_once(" in ") {
            Req::In(k.trim().into(), set(rest))
        } else if let Some(k) = part.strip_prefix('!') {
            Req::NotExists(k.trim().into())
        } else if part.chars().all(|c| c.is_ascii_alphanumeric() || "-_./".contains(c)) {
            Req::Exists(part)
        } else {
            return Err(ApiError::bad_request(format!("unable to parse requirement: {part:?}")));
        };
        out.push(req);
    }
    Ok(out)
}

impl Selector {
    /// Parses the two query parameters.
    pub fn parse(label_selector: Option<&str>, field_selector: Option<&str>) -> Result<Selector, ApiError> {
        Ok(Selector {
            labels: label_selector.map(parse).transpose()?.unwrap_or_default(),
            fields: field_selector.map(parse).transpose()?.unwrap_or_default(),
        })
    }

    /// Whether `object` is selected.
    pub fn matches(&self, object: &Value) -> bool {
        let label = |k: &str| object.pointer("/metadata/labels").and_then(|l| l.get(k)).and_then(Value::as_str);
        let field = |k: &str| {
            let ptr = format!("/{}", k.replace('.', "/"));
            object.pointer(&ptr).and_then(Value::as_str).or(Some(""))
        };
        self.labels.iter().all(|r| holds(r, &label)) && self.fields.iter().all(|r| holds(r, &field))
    }
}

fn holds<'a>(req: &Req, get: &dyn Fn(&str) -> Option<&'a str>) -> bool {
    match req {
        Req::Eq(k, v) => get(k) == Some(v.as_str()),
        Req::NotEq(k, v) => get(k) != Some(v.as_str()),
        Req::In(k, vs) => get(k).is_some_and(|x| vs.iter().any(|v| v == x)),
        Req::NotIn(k, vs) => get(k).is_none_or(|x| !vs.iter().any(|v| v == x)),
        Req::Exists(k) => get(k).is_some(),
        Req::NotExists(k) => get(k).is_none(),
    }
}

/// Whether a metav1 `LabelSelector` (a PDB's `spec.selector`) selects a pod
/// with `labels`. An empty selector selects every pod; a missing one none.
pub fn label_selector_matches(selector: Option<&Value>, labels: Option<&Value>) -> bool {
    let Some(selector) = selector.filter(|s| !s.is_null()) else { return false };
    let label = |k: &str| labels.and_then(|l| l.get(k)).and_then(Value::as_str);
    if let Some(ml) = selector.get("matchLabels").and_then(Value::as_object) {
        if !ml.iter().all(|(k, v)| label(k) == v.as_str()) {
            return false;
        }
    }
    let exprs = selector.get("matchExpressions").and_then(Value::as_array).cloned().unwrap_or_default();
    exprs.iter().all(|e| {
        let key = e.get("key").and_then(Value::as_str).unwrap_or("");
        let values: Vec<&str> = e
            .get("values")
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        match e.get("operator").and_then(Value::as_str).unwrap_or("") {
            "In" => label(key).is_some_and(|v| values.contains(&v)),
            "NotIn" => label(key).is_none_or(|v| !values.contains(&v)),
            "Exists" => label(key).is_some(),
            "DoesNotExist" => label(key).is_none(),
            _ => false,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn field_and_label_selectors() {
        let pod =
            json!({"metadata": {"name": "p", "labels": {"app": "web", "tier": "fe"}}, "spec": {"nodeName": "n1"}});
        let sel = |l: Option<&str>, f: Option<&str>| Selector::parse(l, f).expect("parse").matches(&pod);
        assert!(sel(None, Some("spec.nodeName=n1")));
        assert!(!sel(None, Some("spec.nodeName!=n1")));
        assert!(sel(Some("app=web,tier in (fe, be)"), None));
        assert!(!sel(Some("app notin (web)"), None));
        assert!(sel(Some("!missing,app"), None));
        assert!(label_selector_matches(Some(&json!({})), pod.pointer("/metadata/labels")));
        assert!(!label_selector_matches(None, pod.pointer("/metadata/labels")));
        let s = json!({"matchLabels": {"app": "web"}, "matchExpressions": [{"key": "tier", "operator": "In", "values": ["fe"]}]});
        assert!(label_selector_matches(Some(&s), pod.pointer("/metadata/labels")));
    }
}
