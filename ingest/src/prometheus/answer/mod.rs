//! A Prometheus HTTP API answer read in one pass from the bytes received
//! (no `serde_json::Value` of the whole answer), keeping of each series
//! only the labels kdrift reads (`LABELS_READ`): every other label is
//! skipped as it is parsed, without allocating, so that an answer of
//! series carrying huge labels (250 MB of them, under `--max-answer-bytes`)
//! is held once, not eight times (break-it 36 F6). A series' points are
//! read straight into `(time, value)` pairs of 16 bytes (break-it 37 F2:
//! each was a `serde_json::Value`, ~410 bytes, and a 40 MB answer of 5M
//! points took 2.3 GB).
//!
//! Nothing wrong inside one series fails the answer (break-it 37 F3): a
//! member given twice (`values`, `metric`), a `metric` or `values` of
//! another shape, a label read that is not valid text (a lone surrogate
//! `\ud800`, a number past f64) is said in the series' `problems`; a point
//! that is not `[number, "text"]` (nested 200 deep, a time of `1e400`) is
//! counted as malformed. Each label read and each point is taken as its raw
//! JSON text first (`serde_json::value::RawValue`, which skips without
//! depth limit or number conversion) and parsed on its own, so its error
//! stays its own.

use std::fmt;
use std::marker::PhantomData;

use serde::de::value::MapAccessDeserializer;
use serde::de::{Deserialize, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

mod labels;
mod series;

pub use series::{InstantSample, Series};

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

/// Longest point read, bytes of its JSON text: a point is `[time,
/// "value"]` and a value a number's text (Prometheus writes a float in at
/// most 24 characters: `[1794528000.123,"1.2345678901234567e+308"]` is 44
/// bytes). A longer point is not read: its series is an input error,
/// the answer's other series are read (break-it, issue 34 F5: a server
/// answering one 200 MB value had it copied and quoted whole, 892 MB).
pub const MAX_POINT_BYTES: usize = 1024;

/// Most characters of a malformed point or of a value's text kept to quote.
pub const QUOTED_CHARS: usize = 80;

/// The value of a point whose text is no number (`"abc"`): a NaN of its
/// own bits, told apart from a `"NaN"` the server wrote.
pub const NOT_A_NUMBER: f64 = f64::from_bits(0x7ff8_0000_0bad_0001);

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

/// How one JSON value of any type is read: an object or an array handed to
/// `map` or `seq`, text to `text`, anything else named to `other`. The one
/// visitor [`Shape`] runs it, so each reader says only what differs
/// (the default skips an object or array and calls it `other`).
trait Shaped<'de>: Sized {
    /// What is read.
    type Out;
    /// What the value should be (serde's "expected …").
    const EXPECTING: &'static str;
    /// An object.
    fn map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Out, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(self.other("an object".into()))
    }
    /// An array.
    fn seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Out, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(self.other("an array".into()))
    }
    /// Text.
    fn text(self, _text: &str) -> Self::Out {
        self.other("text".into())
    }
    /// Any other value: what it is (`null`, `true`, a number as written,
    /// `an object`, `an array`, `text`).
    fn other(self, what: String) -> Self::Out;
}

/// The visitor (and seed) of a [`Shaped`] reader.
struct Shape<S>(S);

impl<'de, S: Shaped<'de>> Visitor<'de> for Shape<S> {
    type Value = S::Out;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(S::EXPECTING)
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<S::Out, A::Error> {
        self.0.map(map)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<S::Out, A::Error> {
        self.0.seq(seq)
    }
    fn visit_str<E>(self, v: &str) -> Result<S::Out, E> {
        Ok(self.0.text(v))
    }
    fn visit_bool<E>(self, v: bool) -> Result<S::Out, E> {
        Ok(self.0.other(v.to_string()))
    }
    fn visit_i64<E>(self, v: i64) -> Result<S::Out, E> {
        Ok(self.0.other(v.to_string()))
    }
    fn visit_u64<E>(self, v: u64) -> Result<S::Out, E> {
        Ok(self.0.other(v.to_string()))
    }
    fn visit_f64<E>(self, v: f64) -> Result<S::Out, E> {
        Ok(self.0.other(v.to_string()))
    }
    fn visit_unit<E>(self) -> Result<S::Out, E> {
        Ok(self.0.other("null".into()))
    }
}

impl<'de, S: Shaped<'de>> DeserializeSeed<'de> for Shape<S> {
    type Value = S::Out;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<S::Out, D::Error> {
        deserializer.deserialize_any(self)
    }
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

/// An element of a result: whether it is worth keeping.
pub(crate) trait Element {
    /// False for what holds nothing to read: a series without points or
    /// problems (`{}`: break-it 37 F2, 5M of them took 1 GB) is dropped as
    /// it is read.
    fn holds_something(&self) -> bool;
    /// The element standing for `result[index]` that is `what` (`null`,
    /// `text`, `an array`), not an object, in a list that holds objects:
    /// an element in error, the list's others being read (break-it 43 N3:
    /// one `null` series lost the window), or `None` when such an element
    /// makes the whole result other than a list of `Self`.
    fn not_an_object(_index: usize, _what: String) -> Option<Self>
    where
        Self: Sized,
    {
        None
    }
}

/// Reads a [`Listed`].
struct ListOf<T>(PhantomData<T>);

impl<'de, T: Deserialize<'de> + Element> Shaped<'de> for ListOf<T> {
    type Out = Listed<T>;
    const EXPECTING: &'static str = "a result";
    fn seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Listed<T>, A::Error> {
        let mut items = Some(Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096)));
        // A list of no object at all (a scalar's `[time, "value"]`) is no
        // list of `T`; one that holds objects is, its other elements in error.
        let mut objects = 0usize;
        let mut others = 0usize;
        let mut index = 0usize;
        while let Some(item) = seq.next_element_seed(Shape(ObjectOnly::<T>(PhantomData)))? {
            match (item, &mut items) {
                (Ok(item), Some(items)) => {
                    objects += 1;
                    if item.holds_something() {
                        items.push(item);
                    }
                }
                (Ok(_), None) => objects += 1,
                (Err(what), Some(list)) => {
                    others += 1;
                    match T::not_an_object(index, what) {
                        Some(item) => list.push(item),
                        None => items = None,
                    }
                }
                (Err(_), None) => others += 1,
            }
            index += 1;
        }
        if objects == 0 && others > 0 {
            return Ok(Listed::Other);
        }
        Ok(items.map_or(Listed::Other, Listed::Items))
    }
    fn other(self, _: String) -> Listed<T> {
        Listed::Other
    }
}

impl<'de, T: Deserialize<'de> + Element> Deserialize<'de> for Listed<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Shape(ListOf(PhantomData)).deserialize(deserializer)
    }
}

/// Reads an element of a list: `T` when it is an object, else what it is
/// (`null`, `text`, `an array`, a number as written).
struct ObjectOnly<T>(PhantomData<T>);

impl<'de, T: Deserialize<'de>> Shaped<'de> for ObjectOnly<T> {
    type Out = Result<T, String>;
    const EXPECTING: &'static str = "an element of a result";
    fn map<A: MapAccess<'de>>(self, map: A) -> Result<Result<T, String>, A::Error> {
        T::deserialize(MapAccessDeserializer::new(map)).map(Ok)
    }
    fn other(self, what: String) -> Result<T, String> {
        Err(what)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        // A sample that is no object is no sample: an instant answer's list is whole or other.
        assert_eq!(read(r#"[{"metric":{}},3]"#), None);
        assert_eq!(read(r#"[null, 3]"#), None, "no object at all");
        assert_eq!(read(r#""text""#), None);
        assert_eq!(read("null"), None);
        assert_eq!(read(r#"{"a":[1]}"#), None);
    }
}
