//! The labels kdrift reads of a series' `metric` (`super::LABELS_READ`),
//! each value parsed from its own raw text: what is wrong with one is that
//! label's problem, and every other label is skipped without allocating.

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde::de::{Deserialize, DeserializeSeed, Deserializer, IgnoredAny, MapAccess};
use serde_json::value::RawValue;

use super::{Shape, Shaped, LABELS_READ, MAX_LABEL_BYTES};

/// A series' `metric` object: the labels read, and what was wrong with them.
#[derive(Default)]
pub(super) struct Labels {
    pub(super) kept: BTreeMap<String, String>,
    pub(super) bad: Vec<String>,
}

/// Reads [`Labels`].
pub(super) struct LabelsOf;

impl<'de> Shaped<'de> for LabelsOf {
    type Out = Labels;
    const EXPECTING: &'static str = "an object of labels";
    fn map<A: MapAccess<'de>>(self, mut map: A) -> Result<Labels, A::Error> {
        let mut labels = Labels::default();
        while let Some(key) = map.next_key_seed(KeyIn(&LABELS_READ))? {
            let Some(name) = key.map(|i| LABELS_READ[i]) else {
                map.next_value::<IgnoredAny>()?;
                continue;
            };
            // Its raw text parsed on its own: a lone surrogate or a number
            // past f64 is this label's error, not the answer's.
            let raw = map.next_value::<&RawValue>()?;
            let mut de = serde_json::Deserializer::from_str(raw.get());
            match Shape(LabelValueOf).deserialize(&mut de) {
                Ok(LabelValue::Text(text)) => {
                    if labels.kept.insert(name.to_string(), text).is_some() {
                        labels.bad.push(format!("label {name:?} twice"));
                    }
                }
                Ok(LabelValue::TooLong(bytes)) => labels.bad.push(format!(
                    "label {name:?} is {bytes} bytes long, more than the {MAX_LABEL_BYTES} kdrift reads (a Kubernetes \
                     name is at most 253)"
                )),
                Ok(LabelValue::NotText(what)) => labels.bad.push(format!("label {name:?} is {what}, not text")),
                Err(e) => labels.bad.push(format!("label {name:?} is not valid JSON text ({})", reason(&e))),
            }
        }
        Ok(labels)
    }
    fn other(self, what: String) -> Labels {
        Labels { bad: vec![format!("\"metric\" is {what}, not an object of labels")], ..Labels::default() }
    }
}

/// The value of a label read.
enum LabelValue {
    /// Text, at most [`MAX_LABEL_BYTES`].
    Text(String),
    /// Text longer than [`MAX_LABEL_BYTES`] (not kept): its length in bytes.
    TooLong(usize),
    /// Not text: what it is (a number or `true` as written, `null`, `an array`, `an object`).
    NotText(String),
}

/// Reads a [`LabelValue`].
struct LabelValueOf;

impl Shaped<'_> for LabelValueOf {
    type Out = LabelValue;
    const EXPECTING: &'static str = "a label value";
    fn text(self, v: &str) -> LabelValue {
        if v.len() > MAX_LABEL_BYTES {
            LabelValue::TooLong(v.len())
        } else {
            LabelValue::Text(v.into())
        }
    }
    fn other(self, what: String) -> LabelValue {
        LabelValue::NotText(what)
    }
}

/// Reads an object's key: its index in the names, `None` for any other
/// (compared as parsed; a key that is no valid text is another one).
pub(super) struct KeyIn<'a>(pub(super) &'a [&'static str]);

impl<'de> DeserializeSeed<'de> for KeyIn<'_> {
    type Value = Option<usize>;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Option<usize>, D::Error> {
        let raw = <&RawValue>::deserialize(deserializer)?.get();
        let name = match raw.strip_prefix('"').and_then(|r| r.strip_suffix('"')) {
            Some(plain) if !plain.contains('\\') => Some(Cow::Borrowed(plain)),
            _ => serde_json::from_str::<String>(raw).ok().map(Cow::Owned),
        };
        Ok(name.and_then(|name| self.0.iter().position(|n| *n == name)))
    }
}

/// serde_json's words without their position (`… at line 1 column 8`: of
/// the value's own text, not the answer's).
pub(super) fn reason(e: &serde_json::Error) -> String {
    let text = e.to_string();
    match text.rfind(" at line ") {
        Some(at) => text[..at].to_string(),
        None => text,
    }
}
