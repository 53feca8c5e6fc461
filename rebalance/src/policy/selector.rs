//! Label selectors in a policy: the structured `metav1.LabelSelector`
//! (`labelSelector`, `namespaceLabelSelector`) and the string form of
//! `nodeSelector` (`"role=worker,zone in (a,b),!gpu"`).
//!
//! The structured form reuses the model's [`LabelSelector`]; invalid
//! operators and value sets are rejected when the policy is read, with
//! apimachinery's messages (descheduler itself fails later, when it builds
//! the plugin). The string form follows apimachinery `labels.Parse`.

use serde::Serialize;
use serde_yaml::Value;

use super::error::PolicyError;
use super::reader::{as_string, join, mapping, str_map_value, string, strings, Obj};
use crate::model::labels::LabelLookup;
use crate::model::pod::{LabelSelector, Requirement, SelectorOperator};

/// Reads a `metav1.LabelSelector` (`matchLabels`, `matchExpressions`).
pub(crate) fn read_label_selector(o: &Obj<'_>) -> Result<LabelSelector, PolicyError> {
    o.only(&["matchLabels", "matchExpressions"])?;
    let match_labels = o.str_map("matchLabels")?;
    let mut match_expressions = Vec::new();
    for (path, v) in o.list("matchExpressions")? {
        let e = Obj::new(v, &path)?;
        e.only(&["key", "operator", "values"])?;
        let key = e.str("key")?.ok_or_else(|| PolicyError::field(&e.at("key"), "is required"))?;
        let op_text = e.str("operator")?.ok_or_else(|| PolicyError::field(&e.at("operator"), "is required"))?;
        let values = e.str_list("values")?;
        let operator = match SelectorOperator::parse(&op_text) {
            op @ (SelectorOperator::In
            | SelectorOperator::NotIn
            | SelectorOperator::Exists
            | SelectorOperator::DoesNotExist) => op,
            // Source: apimachinery `metav1.LabelSelectorAsSelector`.
            _ => {
                return Err(PolicyError::field(
                    &e.at("operator"),
                    format!("{op_text:?} is not a valid label selector operator"),
                ))
            }
        };
        // Source: apimachinery `labels.NewRequirement`.
        match operator {
            SelectorOperator::In | SelectorOperator::NotIn if values.is_empty() => {
                return Err(PolicyError::field(
                    &e.at("values"),
                    "for 'in', 'notin' operators, values set can't be empty",
                ))
            }
            SelectorOperator::Exists | SelectorOperator::DoesNotExist if !values.is_empty() => {
                return Err(PolicyError::field(
                    &e.at("values"),
                    "values set must be empty for exists and does not exist",
                ))
            }
            _ => {}
        }
        match_expressions.push(Requirement { key, operator, values });
    }
    Ok(LabelSelector { match_labels, match_expressions })
}

fn operator_text(op: &SelectorOperator) -> &str {
    match op {
        SelectorOperator::In => "In",
        SelectorOperator::NotIn => "NotIn",
        SelectorOperator::Exists => "Exists",
        SelectorOperator::DoesNotExist => "DoesNotExist",
        SelectorOperator::Gt => "Gt",
        SelectorOperator::Lt => "Lt",
        SelectorOperator::Other(s) => s,
    }
}

/// Writes a `metav1.LabelSelector` in API form.
pub(crate) fn label_selector_value(s: &LabelSelector) -> Value {
    let exprs: Vec<Value> = s
        .match_expressions
        .iter()
        .map(|r| {
            mapping(vec![
                ("key", Some(string(&r.key))),
                ("operator", Some(string(operator_text(&r.operator)))),
                ("values", (!r.values.is_empty()).then(|| strings(&r.values))),
            ])
        })
        .collect();
    mapping(vec![
        ("matchLabels", (!s.match_labels.is_empty()).then(|| str_map_value(&s.match_labels))),
        ("matchExpressions", (!exprs.is_empty()).then_some(Value::Sequence(exprs))),
    ])
}

/// A label selector in string form, as `nodeSelector` takes it
/// (`key=value`, `key==value`, `key!=value`, `key in (a,b)`,
/// `key notin (a,b)`, `key`, `!key`, `key>1`, `key<1`, comma-separated, all
/// must hold). The empty string selects everything.
/// Source: apimachinery `labels.Parse`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct StringSelector {
    /// The text as written.
    pub text: String,
    /// The parsed requirements (ANDed). `=`/`==` read as In with one value,
    /// `!=` as NotIn with one value.
    pub requirements: Vec<Requirement>,
}

impl StringSelector {
    /// Parses selector text; `path` names the field in errors.
    pub fn parse(text: &str, path: &str) -> Result<StringSelector, PolicyError> {
        let mut requirements = Vec::new();
        for part in split_top_level(text) {
            let part = part.trim();
            if part.is_empty() {
                if text.trim().is_empty() {
                    continue;
                }
                return Err(PolicyError::field(
                    path,
                    format!("unable to parse requirement in {text:?}: empty requirement"),
                ));
            }
            let req = parse_requirement(part).map_err(|why| {
                PolicyError::field(path, format!("unable to parse requirement {}: {why}", shown(part)))
            })?;
            requirements.push(req);
        }
        Ok(StringSelector { text: text.to_string(), requirements })
    }

    /// Whether `labels` satisfy every requirement.
    pub fn matches(&self, labels: &(impl LabelLookup + ?Sized)) -> bool {
        self.requirements.iter().all(|r| {
            let value = labels.label(&r.key);
            match r.operator {
                SelectorOperator::In => value.is_some_and(|v| r.values.iter().any(|x| x == v)),
                SelectorOperator::NotIn => value.is_none_or(|v| !r.values.iter().any(|x| x == v)),
                SelectorOperator::Exists => value.is_some(),
                SelectorOperator::DoesNotExist => value.is_none(),
                SelectorOperator::Gt | SelectorOperator::Lt => {
                    let (Some(have), Some(bound)) = (
                        value.and_then(|v| v.parse::<i64>().ok()),
                        r.values.first().and_then(|v| v.parse::<i64>().ok()),
                    ) else {
                        return false;
                    };
                    if r.operator == SelectorOperator::Gt {
                        have > bound
                    } else {
                        have < bound
                    }
                }
                SelectorOperator::Other(_) => false,
            }
        })
    }
}

/// Splits at commas outside parentheses.
fn split_top_level(text: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    for (i, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&text[start..]);
    parts
}

/// What a label key is, as apimachinery's `IsQualifiedName` says it.
const KEY_EXPECTED: &str = "expected a name of at most 63 characters of A-Z, a-z, 0-9, '-', '_', '.' starting and \
                            ending with a letter or digit, optionally after a DNS subdomain prefix (at most 253 \
                            characters of a-z, 0-9, '-', '.') and '/', e.g. app or example.com/app";

/// What a label value is, as apimachinery's `IsValidLabelValue` says it.
const VALUE_EXPECTED: &str = "expected at most 63 characters of A-Z, a-z, 0-9, '-', '_', '.' starting and ending with \
                              a letter or digit, or nothing";

/// Most characters of a refused key or value quoted in an error (the rest
/// is counted: a 100,000-character key is not printed whole).
const SHOWN_CHARS: usize = 40;

/// `text` quoted, cut to [`SHOWN_CHARS`] with `…` and its length when longer.
fn shown(text: &str) -> String {
    let n = text.chars().count();
    if n <= SHOWN_CHARS {
        format!("{text:?}")
    } else {
        let head: String = text.chars().take(SHOWN_CHARS).collect();
        format!("\"{}…\" ({n} characters)", head.escape_debug())
    }
}

/// A label name, or a label value when not empty: at most 63 characters of
/// `[A-Za-z0-9_.-]`, starting and ending alphanumeric (apimachinery
/// `qualifiedNameFmt`, `labelValueFmt`).
fn valid_name(n: &str) -> bool {
    let b = n.as_bytes();
    !b.is_empty()
        && b.len() <= 63
        && b[0].is_ascii_alphanumeric()
        && b[b.len() - 1].is_ascii_alphanumeric()
        && b.iter().all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.'))
}

/// A DNS-1123 subdomain: at most 253 characters, dot-separated labels of
/// `[a-z0-9-]` starting and ending alphanumeric (apimachinery `IsDNS1123Subdomain`).
fn valid_subdomain(s: &str) -> bool {
    s.len() <= 253
        && s.split('.').all(|l| {
            let b = l.as_bytes();
            !b.is_empty()
                && b[0].is_ascii_alphanumeric()
                && b[b.len() - 1].is_ascii_alphanumeric()
                && b.iter().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-')
        })
}

/// A label key: `[prefix/]name` (apimachinery `IsQualifiedName`).
fn valid_key(k: &str) -> bool {
    match k.split_once('/') {
        Some((prefix, name)) => valid_subdomain(prefix) && valid_name(name),
        None => valid_name(k),
    }
}

fn valid_value(v: &str) -> bool {
    v.is_empty() || valid_name(v)
}

fn parse_requirement(part: &str) -> Result<Requirement, String> {
    let req = |key: &str, operator, values: Vec<String>| -> Result<Requirement, String> {
        if !valid_key(key) {
            return Err(format!("invalid label key {}: {KEY_EXPECTED}", shown(key)));
        }
        if let Some(v) = values.iter().find(|v| !valid_value(v)) {
            return Err(format!("invalid label value {}: {VALUE_EXPECTED}", shown(v)));
        }
        Ok(Requirement { key: key.to_string(), operator, values })
    };
    if let Some(key) = part.strip_prefix('!') {
        return req(key.trim(), SelectorOperator::DoesNotExist, Vec::new());
    }
    if let Some(open) = part.find('(') {
        let close = part.rfind(')').ok_or("missing closing ')'")?;
        if close != part.len() - 1 || close < open {
            return Err("unexpected text after ')'".to_string());
        }
        let head: Vec<&str> = part[..open].split_whitespace().collect();
        let [key, op] = head.as_slice() else {
            return Err("expected `key in (...)` or `key notin (...)`".to_string());
        };
        let operator = match *op {
            "in" => SelectorOperator::In,
            "notin" => SelectorOperator::NotIn,
            other => return Err(format!("unknown set operator {other:?}")),
        };
        let values: Vec<String> = part[open + 1..close].split(',').map(|v| v.trim().to_string()).collect();
        if values.iter().all(String::is_empty) {
            return Err("for 'in', 'notin' operators, values set can't be empty".to_string());
        }
        return req(key, operator, values);
    }
    for (token, operator) in [
        ("!=", SelectorOperator::NotIn),
        ("==", SelectorOperator::In),
        ("=", SelectorOperator::In),
        (">", SelectorOperator::Gt),
        ("<", SelectorOperator::Lt),
    ] {
        if let Some((k, v)) = part.split_once(token) {
            let v = v.trim();
            if matches!(operator, SelectorOperator::Gt | SelectorOperator::Lt) && v.parse::<i64>().is_err() {
                return Err(format!("for 'Gt', 'Lt' operators, the value must be an integer, got {v:?}"));
            }
            return req(k.trim(), operator, vec![v.to_string()]);
        }
    }
    let key = part.trim();
    if key.contains(char::is_whitespace) {
        return Err("expected an operator".to_string());
    }
    req(key, SelectorOperator::Exists, Vec::new())
}

/// Reads an optional string selector field (kept as text, validated now).
pub(crate) fn read_string_selector(o: &Obj<'_>, key: &str) -> Result<Option<String>, PolicyError> {
    match o.get(key) {
        None => Ok(None),
        Some(v) => {
            let path = join(&o.path, key);
            let text = as_string(v, &path)?;
            StringSelector::parse(&text, &path)?;
            Ok(Some(text))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn labels(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    #[test]
    fn label_keys_and_values_are_validated_as_apimachinery_does() {
        for ok in ["app", "example.com/app", "node-role.kubernetes.io/worker", "A_b.c-9", &"k".repeat(63)] {
            assert!(valid_key(ok), "{ok}");
        }
        let long_prefix = format!("{}/app", "a".repeat(254));
        for bad in ["A/B/C", "Example.com/app", "/app", "app/", "-app", "app-", "a b", &"k".repeat(64), &long_prefix] {
            assert!(!valid_key(bad), "{bad}");
        }
        assert!(valid_value("") && valid_value("v1.2_x-y") && !valid_value("-v") && !valid_value(&"v".repeat(64)));
        let err = StringSelector::parse(&format!("{}=x", "k".repeat(100_000)), "-l").expect_err("too long");
        let text = err.to_string();
        assert!(text.len() < 600, "{}", text.len());
        assert!(text.contains(&format!("invalid label key \"{}…\" (100000 characters): expected", "k".repeat(40))));
    }

    #[test]
    fn string_selectors() {
        let s = StringSelector::parse("role=worker, zone in (a, b),!gpu,tier!=db", "nodeSelector").expect("valid");
        assert_eq!(s.requirements.len(), 4);
        assert!(s.matches(&labels(&[("role", "worker"), ("zone", "a")])));
        assert!(!s.matches(&labels(&[("role", "worker"), ("zone", "c")])));
        assert!(!s.matches(&labels(&[("role", "worker"), ("zone", "a"), ("gpu", "")])));
        assert!(!s.matches(&labels(&[("role", "worker"), ("zone", "a"), ("tier", "db")])));
        let all = StringSelector::parse("", "nodeSelector").expect("valid");
        assert!(all.matches(&labels(&[])));
        let ex = StringSelector::parse("node-role.kubernetes.io/worker", "x").expect("valid");
        assert!(ex.matches(&labels(&[("node-role.kubernetes.io/worker", "")])));
        let gt = StringSelector::parse("cores>4", "x").expect("valid");
        assert!(gt.matches(&labels(&[("cores", "8")])));
        assert!(!gt.matches(&labels(&[("cores", "2")])));
        let nin = StringSelector::parse("zone notin (a)", "x").expect("valid");
        assert!(nin.matches(&labels(&[])));
        assert!(StringSelector::parse("zone in ()", "x").is_err());
        assert!(StringSelector::parse("a b", "x").is_err());
        let err = StringSelector::parse("a=b,,c", "nodeSelector").expect_err("empty");
        assert!(err.to_string().starts_with("nodeSelector: unable to parse requirement"), "{err}");
    }
}
