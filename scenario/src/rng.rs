//! A tiny deterministic random source (splitmix64) and the identifier shapes
//! Kubernetes uses (UUIDs, generated-name suffixes, pod-template hashes).
//!
//! The generator owns its PRNG so that its output never depends on the
//! version of a random-number crate: the same seed gives the same scenario
//! forever.

/// splitmix64 (Steele, Lea, Flood 2014): tiny, fast and good enough for
/// identifiers and jitter.
#[derive(Debug, Clone)]
pub(crate) struct SplitMix64 {
    state: u64,
}

/// Characters Kubernetes uses for generated names (`rand.String` in
/// apimachinery: no vowels, no confusable digits).
const NAME_ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";

impl SplitMix64 {
    /// A generator seeded with `seed`.
    pub(crate) fn new(seed: u64) -> Self {
        Self { state: seed }
    }

    /// An independent stream for another part of the scenario, so that adding
    /// draws in one part never shifts the values drawn in another.
    pub(crate) fn stream(seed: u64, label: &str) -> Self {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325; // FNV-1a over the label
        for b in label.bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        let mut mixer = Self::new(seed ^ h);
        Self::new(mixer.next_u64())
    }

    /// The next 64 random bits.
    pub(crate) fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A value in `0..n` (`n` > 0; the modulo bias is irrelevant here).
    pub(crate) fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }

    /// A random (version 4 layout) UUID such as
    /// `92cdcc04-e3e9-4761-a211-01e17eda43e7`.
    pub(crate) fn uuid(&mut self) -> String {
        let hi = self.next_u64();
        let lo = self.next_u64();
        let hi = (hi & 0xffff_ffff_ffff_0fff) | 0x0000_0000_0000_4000;
        let lo = (lo & 0x3fff_ffff_ffff_ffff) | 0x8000_0000_0000_0000;
        format!(
            "{:08x}-{:04x}-{:04x}-{:04x}-{:012x}",
            hi >> 32,
            (hi >> 16) & 0xffff,
            hi & 0xffff,
            lo >> 48,
            lo & 0xffff_ffff_ffff
        )
    }

    /// `len` characters from the generated-name alphabet (pod suffixes are 5,
    /// pod-template hashes 9 or 10).
    pub(crate) fn name_suffix(&mut self, len: usize) -> String {
        (0..len)
            .map(|_| {
                let i = self.below(NAME_ALPHABET.len() as u64) as usize;
                char::from(NAME_ALPHABET[i])
            })
            .collect()
    }

    /// `len` lowercase hex digits (boot ids, container ids).
    pub(crate) fn hex(&mut self, len: usize) -> String {
        let mut out = String::with_capacity(len + 16);
        while out.len() < len {
            out.push_str(&format!("{:016x}", self.next_u64()));
        }
        out.truncate(len);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix_reference_values() {
        // First outputs of splitmix64 seeded with 0 (published reference values).
        let mut r = SplitMix64::new(0);
        assert_eq!(r.next_u64(), 0xe220_a839_7b1d_cdaf);
        assert_eq!(r.next_u64(), 0x6e78_9e6a_a1b9_65f4);
    }

    #[test]
    fn uuid_shape() {
        let mut r = SplitMix64::new(7);
        let u = r.uuid();
        assert_eq!(u.len(), 36);
        assert_eq!(&u[14..15], "4");
        assert!(u.chars().all(|c| c == '-' || c.is_ascii_hexdigit()));
    }

    #[test]
    fn streams_differ() {
        let a = SplitMix64::stream(1, "story").next_u64();
        let b = SplitMix64::stream(1, "filler").next_u64();
        assert_ne!(a, b);
    }
}
