//! A series of a range query's answer and a sample of an instant query's,
//! read member by member: the labels read (`super::labels`), each point
//! from its own raw text into a `(time, value)` pair.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;

use serde::de::{self, Deserialize, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;

use super::labels::{reason, KeyIn, LabelsOf};
use super::{Element, Shape, Shaped, MAX_POINT_BYTES, NOT_A_NUMBER, QUOTED_CHARS};

/// One series of a range query's answer: the labels kdrift reads
/// (`LABELS_READ`) and its points.
///
/// Read tolerantly (break-it 35 F14, F15, break-it 37 F3): a point that
/// is not `[number, "text"]` is kept as a malformed one (time `NaN`) and
/// counted; a label read that is given twice, is not text or is longer than
/// `MAX_LABEL_BYTES`, a member given twice, a `metric` or `values` of
/// another shape is said in `problems`; the series' other points, and the
/// answer's other series, are kept. The labels kdrift does not read are
/// skipped unchecked.
#[derive(Debug, Clone, Default)]
pub struct Series {
    /// The series' labels that kdrift reads (the last value of a label
    /// given twice: such a series is in error, see `problems`).
    pub metric: BTreeMap<String, String>,
    /// Its points in the answer's order (index = index in `values`):
    /// (seconds since the epoch, value). A malformed point has the time
    /// `NaN`; a value whose text is no number is [`NOT_A_NUMBER`] (`"NaN"`,
    /// `"+Inf"` are read as such).
    pub points: Vec<(f64, f64)>,
    /// How many points are malformed (not `[number, "text"]`).
    pub malformed: usize,
    /// The first malformed point: its index and JSON text (at most [`QUOTED_CHARS`]).
    pub first_malformed: Option<(usize, String)>,
    /// The first value whose text is no number: its index and text, whole
    /// (redacted before it is shown: a credential cut would escape the redactor).
    pub first_not_number: Option<(usize, String)>,
    /// What is wrong with the series as a whole, as said (`label "node"
    /// twice`, `member "values" twice`): such a series is an input error.
    pub problems: Vec<String>,
    /// Its index in the answer's `result`, set only when it is no object
    /// (`null`, text, an array: break-it 43 N3), so that its error names
    /// `result[i]`, having no labels to be named by.
    pub position: Option<usize>,
}

impl Series {
    /// A series of `metric` with `points` of (time, value text), read as an answer's are.
    pub fn with_points(metric: BTreeMap<String, String>, points: &[(f64, &str)]) -> Series {
        let mut series = Series { metric, ..Series::default() };
        for (time, text) in points {
            series.push(*time, text);
        }
        series
    }

    /// Adds the point (`time`, `text`).
    fn push(&mut self, time: f64, text: &str) {
        let value = text.trim().parse::<f64>().unwrap_or_else(|_| {
            let index = self.points.len();
            self.first_not_number.get_or_insert_with(|| (index, text.to_string()));
            NOT_A_NUMBER
        });
        self.points.push((time, value));
    }

    /// The text of the point at `index` whose value is `value`, as the server wrote it (near enough:
    /// `NaN`, `+Inf`, `-Inf`, the number; a text that is no number as written).
    pub fn value_text(&self, index: usize, value: f64) -> String {
        if value.to_bits() == NOT_A_NUMBER.to_bits() {
            return match &self.first_not_number {
                Some((first, text)) if *first == index => text.clone(),
                _ => "(a text that is no number)".into(),
            };
        }
        match value {
            v if v.is_nan() => "NaN".into(),
            f64::INFINITY => "+Inf".into(),
            f64::NEG_INFINITY => "-Inf".into(),
            v => v.to_string(),
        }
    }
}

impl Element for Series {
    fn holds_something(&self) -> bool {
        !self.points.is_empty() || !self.problems.is_empty()
    }
    fn not_an_object(index: usize, what: String) -> Option<Series> {
        let problem = format!("it is {what}, not a series (an object)");
        Some(Series { problems: vec![problem], position: Some(index), ..Series::default() })
    }
}

impl<'de> Deserialize<'de> for Series {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Shape(SeriesOf).deserialize(deserializer)
    }
}

/// Reads a [`Series`].
struct SeriesOf;

impl<'de> Shaped<'de> for SeriesOf {
    type Out = Series;
    const EXPECTING: &'static str = "a series";
    fn map<A: MapAccess<'de>>(self, map: A) -> Result<Series, A::Error> {
        let mut series = Series::default();
        let mut problems = Vec::new();
        let metric = members(map, "values", &mut problems, |map, problems| {
            // Its raw text parsed on its own: `"values": 1e400` is this
            // series' problem, not the answer's.
            let raw = map.next_value::<&RawValue>()?;
            let mut de = serde_json::Deserializer::from_str(raw.get());
            if let Err(e) = Shape(PointsInto(&mut series, problems)).deserialize(&mut de) {
                problems.push(format!("\"values\" is not valid JSON text ({})", reason(&e)));
            }
            Ok(())
        })?;
        series.metric = metric;
        series.problems = problems;
        Ok(series)
    }
    fn other(self, what: String) -> Series {
        Series { problems: vec![format!("the series is {what}, not an object")], ..Series::default() }
    }
}

/// Reads a series' `values` into it (problems said in the `Vec`).
struct PointsInto<'a>(&'a mut Series, &'a mut Vec<String>);

impl<'de> Shaped<'de> for PointsInto<'_> {
    type Out = ();
    const EXPECTING: &'static str = "a list of points";
    fn seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let series = self.0;
        // Points longer than MAX_POINT_BYTES: how many, and the first (index, bytes).
        let (mut too_long, mut first_too_long) = (0usize, None);
        let mut index = 0usize;
        while let Some(raw) = seq.next_element::<&RawValue>()? {
            index += 1;
            if raw.get().len() > MAX_POINT_BYTES {
                // Neither parsed nor kept: the series is not stored.
                too_long += 1;
                first_too_long.get_or_insert((index - 1, raw.get().len()));
                continue;
            }
            if too_long > 0 {
                continue;
            }
            match parse_point(raw.get()) {
                Ok((time, text)) => series.push(time, &text),
                Err(_) => {
                    let index = series.points.len();
                    series.malformed += 1;
                    series.first_malformed.get_or_insert_with(|| (index, quoted(raw.get())));
                    series.points.push((f64::NAN, f64::NAN));
                }
            }
        }
        if let Some((index, bytes)) = first_too_long {
            (series.points, series.malformed) = (Vec::new(), 0);
            (series.first_malformed, series.first_not_number) = (None, None);
            self.1.push(format!(
                "{too_long} point(s) are longer than the {MAX_POINT_BYTES} bytes a point can be ([time, \"value\"], \
                 a value a number's text; the first, values[{index}], is {bytes} bytes)"
            ));
        }
        Ok(())
    }
    fn other(self, what: String) {
        self.1.push(format!("\"values\" is {what}, not a list of points"));
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
    /// What is wrong with the sample, as said for a `Series` (`label
    /// "instance" twice`): such a sample is an input error (break-it 37 F5).
    pub problems: Vec<String>,
}

impl Element for InstantSample {
    /// Every sample: one without a value is the planner's error.
    fn holds_something(&self) -> bool {
        true
    }
}

impl<'de> Deserialize<'de> for InstantSample {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Shape(SampleOf).deserialize(deserializer)
    }
}

/// Reads an [`InstantSample`].
struct SampleOf;

impl<'de> Shaped<'de> for SampleOf {
    type Out = InstantSample;
    const EXPECTING: &'static str = "a sample";
    fn map<A: MapAccess<'de>>(self, map: A) -> Result<InstantSample, A::Error> {
        let mut value = None;
        let mut problems = Vec::new();
        let metric = members(map, "value", &mut problems, |map, problems| {
            let raw = map.next_value::<&RawValue>()?;
            if raw.get().len() > MAX_POINT_BYTES {
                problems.push(format!(
                    "\"value\" is {} bytes long, more than the {MAX_POINT_BYTES} a point can be ([time, \"value\"], a \
                     value a number's text)",
                    raw.get().len()
                ));
                return Ok(());
            }
            value = parse_point(raw.get()).ok().map(|(_, text)| text.into_owned());
            Ok(())
        })?;
        Ok(InstantSample { metric, value, problems })
    }
    fn other(self, what: String) -> InstantSample {
        InstantSample { problems: vec![format!("the sample is {what}, not an object")], ..InstantSample::default() }
    }
}

/// Reads a series' or a sample's members: `metric` (the labels read, their
/// problems added to `problems`) and `data` (`values` or `value`, read by
/// `read`), each once; any other member is skipped. A member given twice
/// (its second value skipped) or a `metric` that is no object is said in
/// `problems`.
fn members<'de, A: MapAccess<'de>>(
    mut map: A,
    data: &'static str,
    problems: &mut Vec<String>,
    mut read: impl FnMut(&mut A, &mut Vec<String>) -> Result<(), A::Error>,
) -> Result<BTreeMap<String, String>, A::Error> {
    let names = ["metric", data];
    let mut seen = [false, false];
    let mut metric = BTreeMap::new();
    while let Some(key) = map.next_key_seed(KeyIn(&names))? {
        match key {
            Some(i) if seen[i] => {
                map.next_value::<IgnoredAny>()?;
                problems.push(format!("member {:?} twice", names[i]));
            }
            Some(0) => {
                seen[0] = true;
                let labels = map.next_value_seed(Shape(LabelsOf))?;
                metric = labels.kept;
                problems.extend(labels.bad);
            }
            Some(_) => {
                seen[1] = true;
                read(&mut map, problems)?;
            }
            None => {
                map.next_value::<IgnoredAny>()?;
            }
        }
    }
    Ok(metric)
}

/// A point's raw JSON text as `(time, value text)`: exactly `[number,
/// "text"]`, else an error (a time past f64, nesting, another shape).
fn parse_point(raw: &str) -> Result<(f64, Cow<'_, str>), serde_json::Error> {
    struct PointOf;
    impl<'de> Visitor<'de> for PointOf {
        type Value = (f64, Cow<'de, str>);
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("[time, \"value\"]")
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            let time: f64 = seq.next_element()?.ok_or_else(|| de::Error::invalid_length(0, &self))?;
            let text = seq.next_element_seed(TextOf)?.ok_or_else(|| de::Error::invalid_length(1, &self))?;
            if seq.next_element::<IgnoredAny>()?.is_some() {
                return Err(de::Error::invalid_length(3, &self));
            }
            Ok((time, text))
        }
    }
    /// Text, borrowed when it has no escapes.
    struct TextOf;
    impl<'de> DeserializeSeed<'de> for TextOf {
        type Value = Cow<'de, str>;
        fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Cow<'de, str>, D::Error> {
            deserializer.deserialize_str(self)
        }
    }
    impl<'de> Visitor<'de> for TextOf {
        type Value = Cow<'de, str>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("text")
        }
        fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Cow<'de, str>, E> {
            Ok(Cow::Borrowed(v))
        }
        fn visit_str<E>(self, v: &str) -> Result<Cow<'de, str>, E> {
            Ok(Cow::Owned(v.to_string()))
        }
    }
    let mut de = serde_json::Deserializer::from_str(raw);
    de.deserialize_seq(PointOf)
}

/// At most [`QUOTED_CHARS`] characters of `text`.
fn quoted(text: &str) -> String {
    text.chars().take(QUOTED_CHARS).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prometheus::answer::{Answer, Data, Listed};

    #[test]
    fn only_the_labels_kdrift_reads_are_kept_and_a_huge_one_read_is_an_error() {
        // Break-it 36 F6: every label was held (twice), 250 MB of them took 2 GB.
        let big = "x".repeat(100_000);
        let answer = format!(
            r#"{{"status":"success","data":{{"resultType":"matrix","result":[
                {{"metric":{{"__name__":"container_memory_working_set_bytes","big":"{big}","id":"/kubepods/x",
                            "namespace":"web","pod":"api-1","node":"n1","container":"api","image":{{"a":[1]}}}},
                  "values":[[1794528000,"1"]]}},
                {{"metric":{{"instance":"10.0.0.1:9100","internal_ip":"10.0.0.1","job":"node"}},"values":[[1794528000,"1"]]}},
                {{"metric":{{"node":"{big}","pod":7,"namespace":"a","namespace":"b"}},"values":[]}}
            ]}}}}"#
        );
        let read: Answer<Listed<Series>> = serde_json::from_str(&answer).expect("answer");
        let Some(Data { result: Listed::Items(series), .. }) = read.data else { panic!("a matrix") };
        let keys: Vec<Vec<&str>> = series.iter().map(|s| s.metric.keys().map(String::as_str).collect()).collect();
        assert_eq!(keys, [vec!["namespace", "node", "pod"], vec!["instance", "internal_ip"], vec!["namespace"]]);
        assert_eq!(series[0].metric["pod"], "api-1");
        assert_eq!(series[0].points, [(1_794_528_000.0, 1.0)]);
        assert!(series[0].problems.is_empty() && series[1].problems.is_empty());
        assert_eq!(
            series[2].problems,
            [
                "label \"node\" is 100000 bytes long, more than the 1024 kdrift reads (a Kubernetes name is at most 253)",
                "label \"pod\" is 7, not text",
                "label \"namespace\" twice",
            ]
        );
    }

    #[test]
    fn what_is_wrong_in_one_series_is_its_own_and_the_others_are_read() {
        // Break-it 37 F3: each of these failed the whole answer (and the pull).
        let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
        let answer = format!(
            r#"{{"status":"success","data":{{"resultType":"matrix","result":[
                {{"metric":{{"node":"n1"}},"values":[[1794528000,"0.5"]]}},
                {{"metric":{{"node":"n3"}},"values":[[1794528000,"1"]],"values":[[1794528000,"2"]]}},
                {{"metric":{{"node":"n3"}},"metric":{{"node":"n4"}},"values":[[1794528000,"1"]]}},
                {{"metric":{{"node":"n3"}},"values":[{deep},[1e400,"1"],[1794528000,"1"],[1794528030,"x\ud800"]]}},
                {{"metric":{{"node":"n3"}},"values":"text"}},
                {{"metric":{{"node":"n8"}},"values":1e400}},
                {{"metric":"text","values":[]}},
                {{"metric":{{"node":"n3\ud800","pod":1e400,"\ud800":1}},"values":[]}},
                {{}},{{"metric":{{"node":"n5"}},"values":[]}},
                {{"metric":{{"node":"n2"}},"values":[[1794528000,"0.25"]]}}
            ]}}}}"#
        );
        let read: Answer<Listed<Series>> = serde_json::from_str(&answer).expect("read tolerantly");
        let Some(Data { result: Listed::Items(series), .. }) = read.data else { panic!("a matrix") };
        let problems: Vec<Vec<String>> = series.iter().map(|s| s.problems.clone()).collect();
        // The two series holding nothing (no points, no problem) are dropped as read.
        assert_eq!(
            problems,
            [
                vec![],
                vec!["member \"values\" twice".to_string()],
                vec!["member \"metric\" twice".to_string()],
                vec![],
                vec!["\"values\" is text, not a list of points".to_string()],
                vec!["\"values\" is not valid JSON text (number out of range)".to_string()],
                vec!["\"metric\" is text, not an object of labels".to_string()],
                vec![
                    "label \"node\" is not valid JSON text (unexpected end of hex escape)".to_string(),
                    "label \"pod\" is not valid JSON text (number out of range)".to_string()
                ],
                vec![],
            ]
        );
        assert_eq!(series[1].points, [(1_794_528_000.0, 1.0)], "the first values are read");
        assert_eq!(series[2].metric["node"], "n3", "the first metric is read");
        let bad = &series[3];
        assert_eq!((bad.malformed, bad.points.len()), (3, 4));
        assert_eq!(bad.first_malformed, Some((0, "[".repeat(80))));
        assert_eq!(bad.points[2], (1_794_528_000.0, 1.0));
        assert_eq!(series[8].points, [(1_794_528_000.0, 0.25)]);
    }

    #[test]
    fn a_point_longer_than_a_number_can_be_makes_its_series_an_error_and_is_neither_parsed_nor_kept() {
        // Issue 34 F5: a 200 MB value was copied whole (its text kept to
        // quote, quoted in the error): 892 MB for one answer.
        let huge = "9".repeat(2 << 20);
        let answer = format!(
            r#"[{{"metric":{{"node":"n1"}},"values":[[1,"0.5"],[2,"{huge}"],[3,"0.5"],[4,"x{huge}"]]}},
                {{"metric":{{"node":"n2"}},"values":[[1,"0.25"]]}}]"#
        );
        let series: Vec<Series> = serde_json::from_str(&answer).expect("series");
        assert_eq!(
            series[0].problems,
            [format!(
                "2 point(s) are longer than the 1024 bytes a point can be ([time, \"value\"], a value a number's \
                 text; the first, values[1], is {} bytes)",
                huge.len() + 6
            )]
        );
        assert!(series[0].points.is_empty() && series[0].first_not_number.is_none());
        assert_eq!((series[1].points.as_slice(), series[1].problems.len()), (&[(1.0, 0.25)][..], 0));
        let samples: Vec<InstantSample> =
            serde_json::from_str(&format!(r#"[{{"metric":{{"instance":"a"}},"value":[1,"{huge}"]}}]"#))
                .expect("samples");
        assert_eq!(samples[0].value, None);
        assert_eq!(
            samples[0].problems,
            [format!(
                "\"value\" is {} bytes long, more than the 1024 a point can be ([time, \"value\"], a value a \
                 number's text)",
                huge.len() + 6
            )]
        );
    }

    #[test]
    fn a_value_text_is_read_as_a_number_and_said_as_written() {
        let answer = r#"[{"metric":{},"values":[[1,"NaN"],[2,"+Inf"],[3,"-1.5"],[4,"abc"],[5," 7 "],[6,"def"]]}]"#;
        let series: Vec<Series> = serde_json::from_str(answer).expect("series");
        let s = &series[0];
        let shown: Vec<String> = s.points.iter().enumerate().map(|(i, (_, v))| s.value_text(i, *v)).collect();
        assert_eq!(shown, ["NaN", "+Inf", "-1.5", "abc", "7", "(a text that is no number)"]);
        assert_eq!(s.malformed, 0);
    }

    #[test]
    fn an_instant_sample_with_a_label_twice_or_too_long_says_so() {
        // Break-it 37 F5: the last `instance` was taken silently.
        let long = "n".repeat(2000);
        let text = format!(
            r#"[{{"metric":{{"instance":"elsewhere","instance":"node-1"}},"value":[1,"0.99"]}},
                {{"metric":{{"instance":"{long}"}},"value":[1,"0.5"]}},
                {{"metric":{{"instance":"node-2"}},"value":[1e400,"0.5"]}}]"#
        );
        let samples: Vec<InstantSample> = serde_json::from_str(&text).expect("samples");
        let problems: Vec<&[String]> = samples.iter().map(|s| s.problems.as_slice()).collect();
        assert_eq!(problems[0], ["label \"instance\" twice"]);
        assert_eq!(
            problems[1],
            ["label \"instance\" is 2000 bytes long, more than the 1024 kdrift reads (a Kubernetes name is at most 253)"]
        );
        assert!(problems[2].is_empty());
        assert_eq!((samples[0].value.as_deref(), samples[2].value.as_deref()), (Some("0.99"), None));
    }
}
