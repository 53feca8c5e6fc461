//! The bytes of objects in flight between the watchers and the recorder's
//! loop (break-it 36 F3). The channel between them holds up to
//! [`super::RecordOptions::channel_capacity`] messages whatever their size:
//! twelve watched Pods of 60 MiB each were parsed faster than the loop
//! stored them and waited in it together (2.07 GiB RSS, over the
//! deployment's 2 GiB limit), and a stop stored all of them first. Each
//! object sent now holds a share of one [`Budget`] of
//! [`super::watcher::WatchSettings::max_event_bytes`] (its parsed size,
//! [`kdrift_rebalance::parsed_size::parsed_bytes`], at most the whole
//! budget) until the loop has staged it: a watcher waits while the objects
//! sent before weigh that much. The parsed size, not the JSON text's
//! (break-it 37 F9): `[0,0,…]` takes 36 to 72 times its text as values,
//! and 6 such Pods of 15 MiB peaked at 1.95 GB under deploy/'s 16 MiB caps.
//! A watch event that would take more than the cap parsed is not built
//! (`kdrift_rebalance::watch`), so every object held fits in it.

use std::sync::Arc;

use kdrift_rebalance::parsed_size::parsed_bytes;
use serde_json::Value;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// The bytes of objects sent to the recorder's loop and not yet staged.
#[derive(Debug, Clone)]
pub struct Budget {
    bytes: Arc<Semaphore>,
    total: u32,
}

/// An object's share of the [`Budget`], given back when dropped (once the
/// recorder's loop staged the object, or left it unstaged at a stop).
#[derive(Debug)]
pub struct Held {
    _share: Option<OwnedSemaphorePermit>,
}

impl Budget {
    /// A budget of `bytes` (at least 1 KiB, at most 4 GiB − 1).
    pub fn new(bytes: usize) -> Budget {
        let total = u32::try_from(bytes.max(1 << 10)).unwrap_or(u32::MAX);
        Budget { bytes: Arc::new(Semaphore::new(total as usize)), total }
    }

    /// Waits until `object`'s parsed size
    /// ([`kdrift_rebalance::parsed_size::parsed_bytes`], at most the whole
    /// budget) is free and holds it; a budget closed (never here) holds nothing.
    pub async fn hold(&self, object: &Value) -> Held {
        let share = u32::try_from(parsed_bytes(object)).unwrap_or(u32::MAX).clamp(1, self.total);
        Held { _share: Arc::clone(&self.bytes).acquire_many_owned(share).await.ok() }
    }

    /// Bytes held now (objects sent and not yet staged).
    pub fn in_flight(&self) -> u64 {
        u64::from(self.total) - self.bytes.available_permits() as u64
    }
}

/// The length of `value` as compact JSON, bytes, counted from its strings'
/// lengths without writing it (escapes not counted: a near bound, cheap
/// for a 60 MiB annotation).
pub fn json_size(value: &Value) -> usize {
    match value {
        Value::Null => 4,
        Value::Bool(b) => 4 + usize::from(!b),
        Value::Number(n) => n.to_string().len(),
        Value::String(s) => s.len() + 2,
        Value::Array(items) => 2 + items.iter().map(|v| json_size(v) + 1).sum::<usize>().saturating_sub(1),
        Value::Object(map) => 2 + map.iter().map(|(k, v)| k.len() + 4 + json_size(v)).sum::<usize>().saturating_sub(1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kdrift_rebalance::parsed_size::VALUE_BYTES;

    #[test]
    fn json_size_is_the_compact_length_of_unescaped_json() {
        for text in [
            r#"{"metadata":{"name":"web-1","labels":{"a":"b"}},"spec":{"n":[1,2.5,-3],"x":null,"t":true,"f":false}}"#,
            "[]",
            "{}",
            r#"[{},[],""]"#,
        ] {
            let v: Value = serde_json::from_str(text).expect("json");
            assert_eq!(json_size(&v), v.to_string().len(), "{text}");
        }
    }

    #[tokio::test]
    async fn a_share_is_held_until_dropped_and_a_bigger_object_takes_the_whole_budget() {
        let budget = Budget::new(1 << 10);
        let small = budget.hold(&Value::String("x".repeat(98))).await;
        assert_eq!(budget.in_flight(), VALUE_BYTES as u64 + 112, "a Value and 98 bytes' heap block");
        drop(small);
        assert_eq!(budget.in_flight(), 0);
        let big = budget.hold(&Value::String("x".repeat(10_000))).await;
        assert_eq!(budget.in_flight(), 1 << 10, "capped at the whole budget");
        // The next waits until the big one is staged (dropped).
        let next = budget.hold(&Value::Null);
        tokio::pin!(next);
        assert!(tokio::time::timeout(std::time::Duration::from_millis(50), &mut next).await.is_err());
        drop(big);
        let _next = next.await;
        assert_eq!(budget.in_flight(), VALUE_BYTES as u64);
    }

    #[tokio::test]
    async fn a_number_heavy_object_holds_its_parsed_size_not_its_text() {
        // Break-it 37 F9: 64 KiB of `0,` held 64 KiB of the budget, and take 32 Ki Values.
        let text = format!("[{}0]", "0,".repeat((32 << 10) - 1));
        let zeros: Value = serde_json::from_str(&text).expect("json");
        assert_eq!(json_size(&zeros), (64 << 10) + 1);
        let budget = Budget::new(64 << 20);
        let _held = budget.hold(&zeros).await;
        assert_eq!(VALUE_BYTES, 72, "serde_json's Value with preserve_order");
        assert_eq!(budget.in_flight(), 72 + (32 << 10) * 72 + 16, "32 Ki slots of a Value: 36 times the text");
    }
}
