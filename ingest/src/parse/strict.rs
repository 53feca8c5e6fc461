//! JSON values in which no object has the same key twice. serde_json keeps
//! the last of duplicate keys silently, so `{"metadata": {"name": "a",
//! "name": "b"}}` was stored as `b` with nothing said (kdrift issue 34).
//! kubectl, the API server and every exporter write each key once (the API
//! server's strict field validation refuses a duplicate field), so a
//! duplicate is a hand edit or a broken writer: the object is an input
//! error naming the key, its line and column, and the objects around it
//! load. [`Strict`] deserializes like [`serde_json::Value`] otherwise, and
//! names the duplicate's path (`metadata.labels.app`).

// A `serde_json::Value` read with every object's keys checked for
// duplicates at any depth; the error names the key's path
// (`kdrift_rebalance::StrictValue`, shared with the API's list reader).
pub use kdrift_rebalance::StrictValue as Strict;

#[cfg(test)]
mod tests {
    use super::Strict;

    #[test]
    fn a_duplicate_key_at_any_depth_is_an_error_at_its_position() {
        let e =
            serde_json::from_str::<Strict>("{\"kind\": \"Pod\",\n \"metadata\": {\"name\": \"a\", \"name\": \"b\"}}")
                .expect_err("duplicate");
        assert_eq!(
            e.to_string(),
            "the key \"name\" appears twice in one object (at metadata.name; which value is meant is unknown) at line 2 \
             column 39"
        );
        assert!(serde_json::from_str::<Strict>("[{\"a\": 1}, {\"a\": 1, \"a\": 2}]").is_err());
    }

    #[test]
    fn values_read_as_serde_json_reads_them() {
        let text = r#"{"a": [1, -2, 3.5, true, null, "x"], "b": {"c": {}}, "big": 18446744073709551615}"#;
        let strict: Strict = serde_json::from_str(text).expect("strict");
        let plain: serde_json::Value = serde_json::from_str(text).expect("plain");
        assert_eq!(strict.0, plain);
        // Key order is kept (the workspace's serde_json keeps insertion order).
        let keys: Vec<&String> = strict.0.as_object().expect("object").keys().collect();
        assert_eq!(keys, ["a", "b", "big"]);
    }
}
