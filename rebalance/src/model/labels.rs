//! [`Labels`]: a pod's string maps (`metadata.labels`,
//! `metadata.annotations`, `spec.nodeSelector`) as one sorted boxed slice
//! of shared strings, and [`Interner`], which shares equal strings across
//! the pods of one load.
//!
//! Why not a `BTreeMap<String, String>`: a non-empty map allocates a leaf
//! node of 11 entries (~640 bytes in the allocator) even for one label, and
//! each key and value its own string: at 150,000 pods, ~100 MB of the
//! ~450 MB `rebalance plan` held (kdrift issue 39 item 4). A sorted slice
//! of `(key, value)` takes 32 bytes an entry; keys and values repeat across
//! thousands of pods (`app`, a ReplicaSet's `pod-template-hash`), so
//! [`Labels::share`] points equal ones at one string.
//!
//! It reads as a map ordered by key: lookups by binary search, iteration,
//! equality, hashing, `Debug` and serialization (a JSON object) are a
//! `BTreeMap`'s.

use std::collections::{BTreeMap, HashSet};
use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A string map ordered by key, keys unique (see the module docs).
#[derive(Clone, Default, PartialEq, Eq, Hash)]
pub struct Labels(Box<[(Arc<str>, Arc<str>)]>);

impl Labels {
    /// An empty map (no allocation).
    pub fn new() -> Labels {
        Labels::default()
    }

    /// The value of `key`.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.find(key).ok().map(|at| &*self.0[at].1)
    }

    /// Whether `key` is present.
    pub fn contains_key(&self, key: &str) -> bool {
        self.find(key).is_ok()
    }

    /// The number of entries.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// True when there is no entry.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The entries in key order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (&str, &str)> + ExactSizeIterator + Clone {
        self.0.iter().map(|(k, v)| (&**k, &**v))
    }

    /// The keys in order.
    pub fn keys(&self) -> impl DoubleEndedIterator<Item = &str> + ExactSizeIterator + Clone {
        self.0.iter().map(|(k, _)| &**k)
    }

    /// The values in key order.
    pub fn values(&self) -> impl DoubleEndedIterator<Item = &str> + ExactSizeIterator + Clone {
        self.0.iter().map(|(_, v)| &**v)
    }

    /// Sets `key` to `value`; the former value, if any (as
    /// `BTreeMap::insert`). Copies the entries (the slice holds exactly its
    /// entries): for building test pods and what-if copies, not for loading.
    pub fn insert(&mut self, key: String, value: String) -> Option<String> {
        let (key, value): (Arc<str>, Arc<str>) = (key.into(), value.into());
        match self.find(&key) {
            Ok(at) => Some(std::mem::replace(&mut self.0[at].1, value).to_string()),
            Err(at) => {
                let mut v = std::mem::take(&mut self.0).into_vec();
                v.insert(at, (key, value));
                self.0 = v.into_boxed_slice();
                None
            }
        }
    }

    /// Removes `key`; its value, if it was present.
    pub fn remove(&mut self, key: &str) -> Option<String> {
        let at = self.find(key).ok()?;
        let mut v = std::mem::take(&mut self.0).into_vec();
        let (_, value) = v.remove(at);
        self.0 = v.into_boxed_slice();
        Some(value.to_string())
    }

    /// A `BTreeMap` copy (for callers that build on a map).
    pub fn to_map(&self) -> BTreeMap<String, String> {
        self.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    /// Points every key and value at `interner`'s string equal to it, so
    /// equal strings across pods are held once.
    pub fn share(&mut self, interner: &mut Interner) {
        for (k, v) in self.0.iter_mut() {
            interner.share(k);
            interner.share(v);
        }
    }

    fn find(&self, key: &str) -> Result<usize, usize> {
        self.0.binary_search_by(|(k, _)| (**k).cmp(key))
    }
}

impl<K: Into<Arc<str>>, V: Into<Arc<str>>> FromIterator<(K, V)> for Labels {
    /// Later entries of a key win (as collecting into a `BTreeMap`).
    fn from_iter<I: IntoIterator<Item = (K, V)>>(iter: I) -> Labels {
        let mut v: Vec<(Arc<str>, Arc<str>)> = iter.into_iter().map(|(k, v)| (k.into(), v.into())).collect();
        // Stable: of equal keys the last one is kept below.
        v.sort_by(|a, b| a.0.cmp(&b.0));
        let mut out: Vec<(Arc<str>, Arc<str>)> = Vec::with_capacity(v.len());
        for e in v {
            match out.last_mut() {
                Some(last) if last.0 == e.0 => *last = e,
                _ => out.push(e),
            }
        }
        Labels(out.into_boxed_slice())
    }
}

impl From<BTreeMap<String, String>> for Labels {
    fn from(map: BTreeMap<String, String>) -> Labels {
        // Already sorted and unique.
        Labels(map.into_iter().map(|(k, v)| (Arc::from(k), Arc::from(v))).collect())
    }
}

impl<'a> IntoIterator for &'a Labels {
    type Item = (&'a str, &'a str);
    type IntoIter =
        std::iter::Map<std::slice::Iter<'a, (Arc<str>, Arc<str>)>, fn(&'a (Arc<str>, Arc<str>)) -> (&'a str, &'a str)>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter().map(|(k, v)| (&**k, &**v))
    }
}

impl fmt::Debug for Labels {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl Serialize for Labels {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.iter())
    }
}

impl<'de> Deserialize<'de> for Labels {
    /// A JSON object of strings (a repeated key keeps its last value).
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Labels, D::Error> {
        BTreeMap::<String, String>::deserialize(d).map(Labels::from)
    }
}

/// A label lookup, for selectors that match both a pod's [`Labels`] and a
/// node's label map.
pub trait LabelLookup {
    /// The value of label `key`.
    fn label(&self, key: &str) -> Option<&str>;
}

impl<T: LabelLookup + ?Sized> LabelLookup for &T {
    fn label(&self, key: &str) -> Option<&str> {
        (**self).label(key)
    }
}

impl LabelLookup for Labels {
    fn label(&self, key: &str) -> Option<&str> {
        self.get(key)
    }
}

impl LabelLookup for BTreeMap<String, String> {
    fn label(&self, key: &str) -> Option<&str> {
        self.get(key).map(String::as_str)
    }
}

/// One string for each distinct text seen: what [`Labels::share`] and
/// [`crate::PodInfo::share_strings`] point equal strings at. One per load
/// (dropped with it); single-threaded.
#[derive(Debug, Default)]
pub struct Interner(HashSet<Arc<str>>);

/// Serializes a shared string that may be absent as the plain string (or
/// `null`), as the `String` it replaces did.
pub(crate) fn serialize_shared_opt<S: serde::Serializer>(v: &Option<Arc<str>>, s: S) -> Result<S::Ok, S::Error> {
    match v {
        Some(text) => s.serialize_some(&**text),
        None => s.serialize_none(),
    }
}

impl Interner {
    /// An empty interner.
    pub fn new() -> Interner {
        Interner::default()
    }

    /// The shared string equal to `s` (added when new).
    pub fn get(&mut self, s: &str) -> Arc<str> {
        if let Some(held) = self.0.get(s) {
            return held.clone();
        }
        let held: Arc<str> = Arc::from(s);
        self.0.insert(held.clone());
        held
    }

    /// Replaces `s` by the shared string equal to it (keeps `s` as the
    /// shared one when new).
    pub fn share(&mut self, s: &mut Arc<str>) {
        match self.0.get(&**s) {
            Some(held) => {
                if !Arc::ptr_eq(held, s) {
                    *s = held.clone();
                }
            }
            None => {
                self.0.insert(s.clone());
            }
        }
    }

    /// The number of distinct strings held.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// True when no string is held.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_as_a_map_ordered_by_key_later_entries_winning() {
        let l: Labels = [("b", "2"), ("a", "1"), ("b", "3")].into_iter().collect();
        assert_eq!(l.len(), 2);
        assert_eq!(l.get("b"), Some("3"));
        assert_eq!(l.get("c"), None);
        assert_eq!(l.iter().collect::<Vec<_>>(), [("a", "1"), ("b", "3")]);
        assert_eq!(format!("{l:?}"), format!("{:?}", l.to_map()));
        assert_eq!(serde_json::to_string(&l).expect("json"), r#"{"a":"1","b":"3"}"#);
        let mut m = l.clone();
        assert_eq!(m.insert("0".into(), "z".into()), None);
        assert_eq!(m.insert("a".into(), "9".into()), Some("1".to_string()));
        assert_eq!(m.keys().collect::<Vec<_>>(), ["0", "a", "b"]);
        assert_eq!(m.remove("0"), Some("z".to_string()));
        assert_eq!(Labels::from(m.to_map()), m);
    }

    #[test]
    fn sharing_points_equal_strings_at_one() {
        let mut i = Interner::new();
        let mut a: Labels = [("app", "web")].into_iter().collect();
        let mut b: Labels = [("app", "web")].into_iter().collect();
        a.share(&mut i);
        b.share(&mut i);
        assert_eq!(i.len(), 2);
        assert!(Arc::ptr_eq(&a.0[0].0, &b.0[0].0) && Arc::ptr_eq(&a.0[0].1, &b.0[0].1));
        assert_eq!(a, b);
    }
}
