//! A Prometheus HTTP API answer read in one pass from the bytes received
//! (no `serde_json::Value` of the whole answer), keeping of each series
//! only the labels kdrift reads (`LABELS_READ`): every other label is
//! skipped as it is parsed, without allocating, so that an answer of
//! series carrying huge labels (250 MB of them, under `--max-answer-bytes`)
//! is held once, not eight times (break-it 36 F6).

use std::collections::BTreeMap;
use std::fmt;
use std::marker::PhantomData;

use serde::de::value::MapAccessDeserializer;
use serde::de::{self, Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

/// The labels kdrift reads of a series (`super::series`): `node` and
/// `instance` name a series' node, `internal_ip` (with `node`) maps an
/// instance to its node in `kube_node_info`, `namespace` and `pod` name a
/// pod; the planner reads an instant sample's `instance`
/// (descheduler's `metricsUtilization`). No other label is kept.
pub const LABELS_READ: [&str; 5] = ["instance", "internal_ip", "namespace", "node", "pod"];

/// Longest label value kept, bytes: a Kubernetes name is at most 253
/// bytes (a DNS subdomain), an `instance` that plus a `:port`. A longer
/// value of a label read makes its series an input error.
pub const MAX_LABEL_BYTES: usize = 1024;

/// A Prometheus answer: `status`, and `data` whose `result` is read as `R`.
#[derive(serde::Deserialize)]
#[serde(bound = "R: Deserialize<'de> + Default")]
pub(crate) struct Answer<R> {
    pub(crate) status: String,
    #[serde(default)]
    pub(crate) data: Option<Data<R>>,
    #[serde(default, rename = "errorType")]
    pub(crate) error_type: Option<String>,
    #[serde(default)]
    pub(crate) error: Option<String>,
}

/// An answer's `data`.
#[derive(serde::Deserialize)]
#[serde(bound = "R: Deserialize<'de> + Default")]
pub(crate) struct Data<R> {
    #[serde(rename = "resultType")]
    pub(crate) result_type: String,
    #[serde(default)]
    pub(crate) result: R,
}

/// A `result` read as a list of objects `T` (a matrix's series, a
/// vector's samples), or, when it is anything else (a scalar's `[time,
/// "value"]`, a string, a list holding other than objects), skipped: the
/// `resultType` then says what it was.
pub(crate) enum Listed<T> {
    /// A list of objects.
    Items(Vec<T>),
    /// Not a list of objects.
    Other,
}

impl<T> Default for Listed<T> {
    /// No `result`.
    fn default() -> Listed<T> {
        Listed::Other
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Listed<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct List<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for List<T> {
            type Value = Listed<T>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a result")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Listed<T>, A::Error> {
                let mut items = Some(Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096)));
                while let Some(MapOnly(item)) = seq.next_element::<MapOnly<T>>()? {
                    match (item, &mut items) {
                        (Some(item), Some(items)) => items.push(item),
                        (None, _) => items = None,
                        (Some(_), None) => {}
                    }
                }
                Ok(items.map_or(Listed::Other, Listed::Items))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Listed<T>, A::Error> {
                skip_map(map).map(|()| Listed::Other)
            }
            fn visit_bool<E>(self, _: bool) -> Result<Listed<T>, E> {
                Ok(Listed::Other)
            }
            fn visit_i64<E>(self, _: i64) -> Result<Listed<T>, E> {
                Ok(Listed::Other)
            }
            fn visit_u64<E>(self, _: u64) -> Result<Listed<T>, E> {
                Ok(Listed::Other)
            }
            fn visit_f64<E>(self, _: f64) -> Result<Listed<T>, E> {
                Ok(Listed::Other)
            }
            fn visit_str<E>(self, _: &str) -> Result<Listed<T>, E> {
                Ok(Listed::Other)
            }
            fn visit_unit<E>(self) -> Result<Listed<T>, E> {
                Ok(Listed::Other)
            }
        }
        deserializer.deserialize_any(List(PhantomData))
    }
}

/// An element of a list: `T` when it is an object, else `None` (skipped).
struct MapOnly<T>(Option<T>);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for MapOnly<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Element<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for Element<T> {
            type Value = MapOnly<T>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an element of a result")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<MapOnly<T>, A::Error> {
                T::deserialize(MapAccessDeserializer::new(map)).map(|t| MapOnly(Some(t)))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<MapOnly<T>, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(MapOnly(None))
            }
            fn visit_bool<E>(self, _: bool) -> Result<MapOnly<T>, E> {
                Ok(MapOnly(None))
            }
            fn visit_i64<E>(self, _: i64) -> Result<MapOnly<T>, E> {
                Ok(MapOnly(None))
            }
            fn visit_u64<E>(self, _: u64) -> Result<MapOnly<T>, E> {
                Ok(MapOnly(None))
            }
            fn visit_f64<E>(self, _: f64) -> Result<MapOnly<T>, E> {
                Ok(MapOnly(None))
            }
            fn visit_str<E>(self, _: &str) -> Result<MapOnly<T>, E> {
                Ok(MapOnly(None))
            }
            fn visit_unit<E>(self) -> Result<MapOnly<T>, E> {
                Ok(MapOnly(None))
            }
        }
        deserializer.deserialize_any(Element(PhantomData))
    }
}

/// Reads a map's members without keeping them.
fn skip_map<'de, A: MapAccess<'de>>(mut map: A) -> Result<(), A::Error> {
    while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
    Ok(())
}

/// One series of a range query's answer: the labels kdrift reads
/// (`LABELS_READ`) and its points (`(seconds since the epoch, value
/// text)` as the API writes them; the value is text so that `NaN` and
/// `+Inf` arrive as such).
///
/// Read tolerantly (break-it 35 F14, F15): a point that is not
/// `[number, "text"]` is left out of `values` and named in `malformed`; a
/// label read that is given twice, is not text or is longer than
/// `MAX_LABEL_BYTES` is named in `bad_labels`; the series' other points,
/// and the answer's other series, are kept. The labels kdrift does not
/// read are skipped unchecked.
#[derive(Debug, Clone, Default)]
pub struct Series {
    /// The series' labels that kdrift reads (the last value of a label
    /// given twice: such a series is in error, see `bad_labels`).
    pub metric: BTreeMap<String, String>,
    /// `[time, "value"]` pairs, the malformed ones left out.
    pub values: Vec<(f64, String)>,
    /// Malformed points: their index in the answer's `values` and the point as JSON.
    pub malformed: Vec<(usize, String)>,
    /// Labels read given twice, not as text or too long, as said (`label "node" twice`).
    pub bad_labels: Vec<String>,
}

impl<'de> Deserialize<'de> for Series {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(serde::Deserialize)]
        struct Raw {
            #[serde(default)]
            metric: Labels,
            #[serde(default)]
            values: Vec<serde_json::Value>,
        }
        let raw = Raw::deserialize(deserializer)?;
        let mut series = Series { metric: raw.metric.kept, bad_labels: raw.metric.bad, ..Series::default() };
        // A series' points (at most `MAX_POINTS`) as JSON values, one series at a time.
        for (i, point) in raw.values.into_iter().enumerate() {
            match point.as_array().map(Vec::as_slice) {
                Some([serde_json::Value::Number(t), serde_json::Value::String(v)]) if t.as_f64().is_some() => {
                    series.values.push((t.as_f64().unwrap_or_default(), v.clone()));
                }
                _ => series.malformed.push((i, point.to_string())),
            }
        }
        Ok(series)
    }
}

/// One sample of an instant query's vector: the labels kdrift reads
/// (`LABELS_READ`, text values only) and its value as the API writes it
/// (text: `NaN`, `+Inf` arrive as such; `None`: the sample has no `[time,
/// "value"]`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct InstantSample {
    /// The sample's labels that kdrift reads (text values only).
    pub metric: BTreeMap<String, String>,
    /// The value's text.
    pub value: Option<String>,
}

impl<'de> Deserialize<'de> for InstantSample {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(serde::Deserialize)]
        struct Raw {
            #[serde(default)]
            metric: Labels,
            #[serde(default)]
            value: serde_json::Value,
        }
        let raw = Raw::deserialize(deserializer)?;
        let value = match raw.value.as_array().map(Vec::as_slice) {
            Some([serde_json::Value::Number(_), serde_json::Value::String(v)]) => Some(v.clone()),
            _ => None,
        };
        Ok(InstantSample { metric: raw.metric.kept, value })
    }
}

/// A series' `metric` object: the labels read, and what was wrong with them.
#[derive(Default)]
struct Labels {
    kept: BTreeMap<String, String>,
    bad: Vec<String>,
}

impl<'de> Deserialize<'de> for Labels {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Members;
        impl<'de> Visitor<'de> for Members {
            type Value = Labels;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object of labels")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Labels, A::Error> {
                let mut labels = Labels::default();
                while let Some(LabelName(name)) = map.next_key::<LabelName>()? {
                    let Some(name) = name else {
                        map.next_value::<IgnoredAny>()?;
                        continue;
                    };
                    match map.next_value::<LabelValue>()? {
                        LabelValue::Text(text) => {
                            if labels.kept.insert(name.to_string(), text).is_some() {
                                labels.bad.push(format!("label {name:?} twice"));
                            }
                        }
                        LabelValue::TooLong(bytes) => labels.bad.push(format!(
                            "label {name:?} is {bytes} bytes long, more than the {MAX_LABEL_BYTES} kdrift reads (a \
                             Kubernetes name is at most 253)"
                        )),
                        LabelValue::NotText(what) => labels.bad.push(format!("label {name:?} is {what}, not text")),
                    }
                }
                Ok(labels)
            }
        }
        deserializer.deserialize_map(Members)
    }
}

/// A label's name: one of [`LABELS_READ`], or `None` for any other
/// (compared as parsed, never allocated).
struct LabelName(Option<&'static str>);

impl<'de> Deserialize<'de> for LabelName {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Name;
        impl Visitor<'_> for Name {
            type Value = LabelName;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a label name")
            }
            fn visit_str<E: de::Error>(self, name: &str) -> Result<LabelName, E> {
                Ok(LabelName(LABELS_READ.iter().find(|read| **read == name).copied()))
            }
        }
        deserializer.deserialize_str(Name)
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

impl<'de> Deserialize<'de> for LabelValue {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Value;
        impl<'de> Visitor<'de> for Value {
            type Value = LabelValue;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a label value")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<LabelValue, E> {
                Ok(if v.len() > MAX_LABEL_BYTES { LabelValue::TooLong(v.len()) } else { LabelValue::Text(v.into()) })
            }
            fn visit_bool<E>(self, v: bool) -> Result<LabelValue, E> {
                Ok(LabelValue::NotText(v.to_string()))
            }
            fn visit_i64<E>(self, v: i64) -> Result<LabelValue, E> {
                Ok(LabelValue::NotText(v.to_string()))
            }
            fn visit_u64<E>(self, v: u64) -> Result<LabelValue, E> {
                Ok(LabelValue::NotText(v.to_string()))
            }
            fn visit_f64<E>(self, v: f64) -> Result<LabelValue, E> {
                Ok(LabelValue::NotText(v.to_string()))
            }
            fn visit_unit<E>(self) -> Result<LabelValue, E> {
                Ok(LabelValue::NotText("null".into()))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<LabelValue, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(LabelValue::NotText("an array".into()))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<LabelValue, A::Error> {
                skip_map(map).map(|()| LabelValue::NotText("an object".into()))
            }
        }
        deserializer.deserialize_any(Value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_labels_kdrift_reads_are_kept_and_a_huge_one_read_is_an_error() {
        // Break-it 36 F6: every label was held (twice), 250 MB of them took 2 GB.
        let big = "x".repeat(100_000);
        let answer = format!(
            r#"{{"status":"success","data":{{"resultType":"matrix","result":[
                {{"metric":{{"__name__":"container_memory_working_set_bytes","big":"{big}","id":"/kubepods/x",
                            "namespace":"web","pod":"api-1","node":"n1","container":"api","image":{{"a":[1]}}}},
                  "values":[[1794528000,"1"]]}},
                {{"metric":{{"instance":"10.0.0.1:9100","internal_ip":"10.0.0.1","job":"node"}},"values":[]}},
                {{"metric":{{"node":"{big}","pod":7,"namespace":"a","namespace":"b"}},"values":[]}}
            ]}}}}"#
        );
        let read: Answer<Listed<Series>> = serde_json::from_str(&answer).expect("answer");
        let Some(Data { result: Listed::Items(series), .. }) = read.data else { panic!("a matrix") };
        let keys: Vec<Vec<&str>> = series.iter().map(|s| s.metric.keys().map(String::as_str).collect()).collect();
        assert_eq!(keys, [vec!["namespace", "node", "pod"], vec!["instance", "internal_ip"], vec!["namespace"]]);
        assert_eq!(series[0].metric["pod"], "api-1");
        assert_eq!(series[0].values, [(1_794_528_000.0, "1".to_string())]);
        assert!(series[0].bad_labels.is_empty() && series[1].bad_labels.is_empty());
        assert_eq!(
            series[2].bad_labels,
            [
                "label \"node\" is 100000 bytes long, more than the 1024 kdrift reads (a Kubernetes name is at most 253)",
                "label \"pod\" is 7, not text",
                "label \"namespace\" twice",
            ]
        );
    }

    #[test]
    fn a_result_that_is_no_list_of_objects_is_other() {
        let read = |result: &str| -> Option<usize> {
            let text = format!(r#"{{"status":"success","data":{{"resultType":"x","result":{result}}}}}"#);
            let answer: Answer<Listed<InstantSample>> = serde_json::from_str(&text).expect("answer");
            match answer.data.expect("data").result {
                Listed::Items(items) => Some(items.len()),
                Listed::Other => None,
            }
        };
        assert_eq!(read(r#"[{"metric":{},"value":[1,"2"]},{"value":[1,"3"]}]"#), Some(2));
        assert_eq!(read("[]"), Some(0));
        assert_eq!(read(r#"[1794528000,"0.5"]"#), None, "a scalar");
        assert_eq!(read(r#"[{"metric":{}},3]"#), None);
        assert_eq!(read(r#""text""#), None);
        assert_eq!(read("null"), None);
        assert_eq!(read(r#"{"a":[1]}"#), None);
    }
}
