//! A fast hasher for the crate's internal maps keyed by names and uids read
//! from the cluster (node names, pod uids): FxHash, the multiply-rotate hash
//! rustc uses. Not resistant to crafted collisions, which do not matter for
//! a snapshot analysed offline; several times faster than the default
//! SipHash on short keys.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// FxHash state.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct FxHasher {
    hash: u64,
}

const SEED: u64 = 0x517c_c1b7_2722_0a95;

impl FxHasher {
    fn add(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut word = [0u8; 8];
            word.copy_from_slice(c);
            self.add(u64::from_le_bytes(word));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut word = [0u8; 8];
            word[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(word));
        }
    }

    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }

    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }

    fn finish(&self) -> u64 {
        self.hash
    }
}

/// A `HashMap` with [`FxHasher`].
pub(crate) type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<FxHasher>>;

/// An empty [`FastMap`] with room for `n` entries.
pub(crate) fn fast_map<K, V>(n: usize) -> FastMap<K, V> {
    HashMap::with_capacity_and_hasher(n, BuildHasherDefault::default())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distinguishes_keys_of_any_length() {
        let mut m: FastMap<&str, usize> = fast_map(0);
        let keys = [
            "",
            "a",
            "node-00001",
            "node-00002",
            "a-very-long-uid-0123456789abcdef",
            "a-very-long-uid-0123456789abcdeg",
        ];
        for (i, k) in keys.iter().enumerate() {
            m.insert(k, i);
        }
        for (i, k) in keys.iter().enumerate() {
            assert_eq!(m.get(k), Some(&i));
        }
        assert_eq!(m.len(), keys.len());
    }
}
