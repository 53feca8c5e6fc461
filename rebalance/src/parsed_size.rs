//! The memory a parsed [`serde_json::Value`] takes, bytes, as opposed to
//! the length of its JSON text (break-it 37 F9). A JSON value's text says
//! little about its parsed size: `0,` is 2 bytes of text and one `Value`
//! slot of [`VALUE_BYTES`] (72 with serde_json's `preserve_order`) in an
//! array grown by doubling, so a number-heavy array takes 36 to 72 times
//! its text parsed, while a long string takes its text's length. Byte caps
//! meant to bound memory (a watch event's, the recorder's budget of
//! objects in flight) count this size.
//!
//! The figure is a model of the allocations, not a measurement: each value
//! is a slot of [`VALUE_BYTES`] in its parent (or on its own at the top);
//! a string, an array's slots and an object's entries are each one heap
//! block of glibc malloc's chunk size ([`heap_bytes`]) for their capacity
//! (an object's, which serde_json does not tell, as grown by doubling:
//! [`map_slots`]); an object's entry is its key, its value and the map's
//! index ([`ENTRY_BYTES`]).

use serde_json::Value;

/// Bytes of one `serde_json::Value` (the slot it takes in an array or an
/// object, or on its own).
pub const VALUE_BYTES: usize = std::mem::size_of::<Value>();

/// Bytes of one object entry besides its key's text and its value's own
/// allocations: indexmap's bucket (the key's hash, the key `String`, the
/// value) and its index slot (a `usize` and a control byte).
pub const ENTRY_BYTES: usize = std::mem::size_of::<(usize, String, Value)>() + std::mem::size_of::<usize>() + 1;

/// Bytes a heap block of `n` bytes takes: glibc malloc's chunk, `n` plus 8
/// rounded up to 16, at least 32; 0 for nothing.
pub fn heap_bytes(n: usize) -> usize {
    if n == 0 {
        return 0;
    }
    (n.saturating_add(8 + 15) & !15).max(32)
}

/// The entries an object of `len` keys has room for, as grown one key at a
/// time (doubling from 4, as `Vec` and indexmap do).
pub fn map_slots(len: usize) -> usize {
    if len == 0 {
        0
    } else {
        len.next_power_of_two().max(4)
    }
}

/// The bytes `value` takes parsed: its own slot ([`VALUE_BYTES`]) and
/// everything it owns ([`owned_bytes`]).
pub fn parsed_bytes(value: &Value) -> usize {
    VALUE_BYTES + owned_bytes(value)
}

/// The heap bytes `value` owns, its slot not counted: a string's block; an
/// array's block of slots and its items'; an object's block of entries, its
/// keys' blocks and its values'.
pub fn owned_bytes(value: &Value) -> usize {
    match value {
        Value::Null | Value::Bool(_) | Value::Number(_) => 0,
        Value::String(s) => heap_bytes(s.capacity()),
        Value::Array(items) => {
            heap_bytes(items.capacity().saturating_mul(VALUE_BYTES)) + items.iter().map(owned_bytes).sum::<usize>()
        }
        Value::Object(map) => {
            let entries = heap_bytes(map_slots(map.len()).saturating_mul(ENTRY_BYTES));
            entries + map.iter().map(|(k, v)| heap_bytes(k.capacity()) + owned_bytes(v)).sum::<usize>()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_number_heavy_array_takes_many_times_its_text_and_a_string_about_its_length() {
        // 1 Mi zeros: 2 MiB of text, 1 Mi slots of a Value each, the array
        // grown by doubling to exactly 1 Mi.
        let text = format!("[{}0]", "0,".repeat((1 << 20) - 1));
        let zeros: Value = serde_json::from_str(&text).expect("json");
        assert_eq!(text.len(), (2 << 20) + 1);
        assert_eq!(parsed_bytes(&zeros), VALUE_BYTES + heap_bytes((1 << 20) * VALUE_BYTES));
        assert!(parsed_bytes(&zeros) >= 16 * text.len(), "{} for {} bytes", parsed_bytes(&zeros), text.len());
        let blob = Value::String("x".repeat(1 << 20));
        assert_eq!(parsed_bytes(&blob), VALUE_BYTES + (1 << 20) + 16);
        let object: Value = serde_json::from_str(r#"{"ab":"xyz","n":[1]}"#).expect("json");
        assert_eq!(
            parsed_bytes(&object),
            VALUE_BYTES + heap_bytes(4 * ENTRY_BYTES) + 32 + 32 + 32 + heap_bytes(4 * VALUE_BYTES)
        );
        assert_eq!((heap_bytes(0), heap_bytes(1), heap_bytes(24), heap_bytes(25)), (0, 32, 32, 48));
    }
}
