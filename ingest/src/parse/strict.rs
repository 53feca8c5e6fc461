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

/// The most bytes a YAML text of `len` bytes may take parsed: 64 times its
/// text (a flow list of small numbers, `[0,0,…]`, takes about 16 times)
/// plus 64 MiB. YAML aliases (`*a`) repeat their anchor's value, so a
/// small text can expand without bound (break-it 39 F1: 2,000 aliases of a
/// 1 MB anchor, 8.2 GB peak); kubectl and the API server never write
/// anchors.
pub(crate) fn yaml_parsed_limit(len: usize) -> usize {
    len.saturating_mul(64).saturating_add(64 << 20)
}

/// `text` read as one YAML value with its keys checked for duplicates
/// ([`Strict`]), given up once it takes more than [`yaml_parsed_limit`]
/// bytes parsed (the error then holds [`kdrift_rebalance::TOO_LARGE`]:
/// [`expands_too_much`]).
pub(crate) fn yaml_value(text: &str) -> Result<serde_json::Value, serde_yaml::Error> {
    kdrift_rebalance::strict_within(serde_yaml::Deserializer::from_str(text), yaml_parsed_limit(text.len()))
}

/// Whether `e` ([`yaml_value`]'s) says the value expanded past its limit.
pub(crate) fn expands_too_much(e: &serde_yaml::Error) -> bool {
    e.to_string().contains(kdrift_rebalance::TOO_LARGE)
}

/// The message of a YAML text that expanded past its limit: `what` is
/// `YAML document 3` or `this item`.
pub(crate) fn expansion_message(what: &str, len: usize) -> String {
    format!(
        "{what} expands past {} bytes parsed, from {len} bytes of YAML: its aliases (`*name`) repeat their \
         anchors' values (kubectl never writes anchors); not parsed; expected a Kubernetes object or list whose \
         aliases expand to at most 64 times its text plus 64 MiB",
        yaml_parsed_limit(len)
    )
}

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
    fn yaml_aliases_that_expand_past_the_limit_are_given_up() {
        // One anchor of 64 KiB used 1,100 times: 70 MB parsed, from 71 KiB of YAML.
        let anchor = "x".repeat(64 << 10);
        let aliases = "  - *a\n".repeat(1100);
        let text = format!("kind: Pod\nbig: &a {anchor}\nmore:\n{aliases}");
        let e = super::yaml_value(&text).expect_err("too large");
        assert!(super::expands_too_much(&e), "{e}");
        // A few aliases are read as the YAML parser reads them.
        let small = "kind: Pod\nbig: &a [1, 2]\nmore: [*a, *a]\n";
        assert_eq!(super::yaml_value(small).expect("value")["more"], serde_json::json!([[1, 2], [1, 2]]));
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
