//! Held credentials masked inside a JSON object, every string and key:
//! what the store does to a record before reading its identity
//! (`kdrift_store`'s `record_mask`), and what the live paths do to every
//! object the API server sends ([`mask_held_in`]): a server that echoes
//! the token into a pod's name must not get it printed by `rebalance plan
//! --live`, `run` or `apply` (break-it 31 F2, issue 34) where the store
//! path would have printed it masked.

use serde_json::Value;

use super::{held_in_records, Redactor};

impl Redactor {
    /// Masks every credential of this redactor in every string and key of
    /// `value`, at any depth; true when anything changed.
    pub fn redact_json(&self, value: &mut Value) -> bool {
        match value {
            Value::String(s) => match self.redact_found(s) {
                Some(masked) => {
                    *s = masked;
                    true
                }
                None => false,
            },
            Value::Array(items) => items.iter_mut().fold(false, |changed, item| self.redact_json(item) | changed),
            Value::Object(map) => {
                let mut changed = map.values_mut().fold(false, |changed, v| self.redact_json(v) | changed);
                if map.keys().any(|k| self.redact_found(k).is_some()) {
                    let old = std::mem::take(map);
                    for (k, v) in old {
                        map.insert(self.redact_found(&k).unwrap_or(k), v);
                    }
                    changed = true;
                }
                changed
            }
            _ => false,
        }
    }
}

/// Masks the credentials this process holds, as stored records have them
/// masked ([`held_in_records`]: 8+ characters, whole tokens under 16), in
/// every string and key of an object read from a live API server; true
/// when anything changed. Nothing held: nothing to do.
pub fn mask_held_in(value: &mut Value) -> bool {
    let held = held_in_records();
    !held.is_empty() && held.redact_json(value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_string_and_key_is_masked_numbers_and_the_rest_kept() {
        let r = Redactor::for_records(["JsonHeldTok9x8c7v6b5n"]);
        let mut v = json!({
            "metadata": {"name": "a-JsonHeldTok9x8c7v6b5n", "namespace": "default", "resourceVersion": "12",
                         "labels": {"k-jsonheldtok9x8c7v6b5n": "web"}},
            "spec": {"containers": [{"args": ["--x", "SnNvbkhlbGRUb2s5eDhjN3Y2YjVu"]}], "replicas": 3}
        });
        assert!(r.redact_json(&mut v));
        assert_eq!(
            v,
            json!({
                "metadata": {"name": "***", "namespace": "default", "resourceVersion": "12",
                             "labels": {"***": "web"}},
                "spec": {"containers": [{"args": ["--x", "***"]}], "replicas": 3}
            })
        );
        assert!(!r.redact_json(&mut v), "masking twice changes nothing");
    }
}
