//! Resource amounts as integers, keyed by resource name.
//!
//! Units (the ones kube-scheduler compares in, `framework.Resource`):
//! - `cpu`: millicores (`MilliValue`, rounded up);
//! - `memory`, `ephemeral-storage`, `hugepages-*`: bytes (`Value`, rounded up);
//! - `pods`: a count (allocatable pods on a node);
//! - extended resources (`nvidia.com/gpu`, `gpu.intel.com/i915`, …): integer units.
//!
//! Arithmetic saturates at the `i64` bounds instead of overflowing: a sum of
//! absurd values stays absurd but never panics.
//!
//! Layout: `cpu`, `ephemeral-storage`, `memory` and `pods` live inline (no
//! allocation, no string compare), every other resource in a small sorted
//! vector; a list behaves as a map ordered by name (iteration, equality,
//! serialisation as a JSON object, `Debug`).

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The `cpu` resource, in millicores.
pub const CPU: &str = "cpu";
/// The `memory` resource, in bytes.
pub const MEMORY: &str = "memory";
/// The `ephemeral-storage` resource, in bytes.
pub const EPHEMERAL_STORAGE: &str = "ephemeral-storage";
/// The `pods` resource: a node's allocatable pod count.
pub const PODS: &str = "pods";

/// The resources kept inline, in name order.
const KNOWN: [&str; 4] = [CPU, EPHEMERAL_STORAGE, MEMORY, PODS];

/// The inline slot of a well-known resource.
fn known(name: &str) -> Option<usize> {
    match name {
        CPU => Some(0),
        EPHEMERAL_STORAGE => Some(1),
        MEMORY => Some(2),
        PODS => Some(3),
        _ => None,
    }
}

/// Amounts per resource name, in the units documented at the top of this module.
/// A missing entry reads as 0; an entry can be present with the value 0 (that
/// matters for the scheduler's non-zero defaults, which fill only MISSING entries).
#[derive(Clone, Default, PartialEq, Eq, Hash)]
pub struct ResourceList {
    /// Bit `i` set: `KNOWN[i]` is present (absent slots hold 0).
    present: u8,
    /// The amounts of `KNOWN`.
    known: [i64; 4],
    /// Every other resource, sorted by name, names unique.
    other: Others,
}

/// The resources beyond the inline ones, out of line: 8 bytes in the list
/// instead of a `Vec`'s 24, because almost no list has any (a pod holds
/// four lists; 150,000 pods, ~10 MB, kdrift issue 39). `None` exactly when
/// empty, so the derived equality and hash are the entries'.
#[derive(Clone, Default, PartialEq, Eq, Hash)]
// The box is the point: 8 bytes inline where a `Vec` takes 24.
#[allow(clippy::box_collection)]
struct Others(Option<Box<Vec<(String, i64)>>>);

impl Others {
    fn as_slice(&self) -> &[(String, i64)] {
        self.0.as_deref().map_or(&[], Vec::as_slice)
    }

    fn find(&self, name: &str) -> Result<usize, usize> {
        self.as_slice().binary_search_by(|(k, _)| k.as_str().cmp(name))
    }

    /// The amount at `at`, an index [`Others::find`] found.
    fn amount_mut(&mut self, at: usize) -> &mut i64 {
        &mut self.0.get_or_insert_with(Box::default)[at].1
    }

    fn insert(&mut self, at: usize, entry: (String, i64)) {
        self.0.get_or_insert_with(Box::default).insert(at, entry);
    }

    fn remove(&mut self, at: usize) -> Option<(String, i64)> {
        let list = self.0.as_mut()?;
        let entry = (at < list.len()).then(|| list.remove(at));
        if list.is_empty() {
            self.0 = None;
        }
        entry
    }
}

/// The empty list, as a static (what an unset [`crate::Sparse`] list reads as).
static EMPTY: ResourceList = ResourceList { present: 0, known: [0; 4], other: Others(None) };

impl crate::model::sparse::EmptyPart for ResourceList {
    fn empty() -> &'static ResourceList {
        &EMPTY
    }
}

impl ResourceList {
    /// An empty list.
    pub fn new() -> Self {
        ResourceList::default()
    }

    /// A list from `(name, amount)` pairs (later pairs win).
    pub fn from_pairs<S: AsRef<str>>(pairs: &[(S, i64)]) -> Self {
        let mut out = ResourceList::new();
        for (k, v) in pairs {
            out.set(k.as_ref(), *v);
        }
        out
    }

    /// The amount of `name`, 0 when absent.
    pub fn get(&self, name: &str) -> i64 {
        self.get_opt(name).unwrap_or(0)
    }

    /// The amount of `name` if an entry is present (even with value 0).
    pub fn get_opt(&self, name: &str) -> Option<i64> {
        match known(name) {
            Some(i) => (self.present & (1 << i) != 0).then_some(self.known[i]),
            None => self.other.find(name).ok().map(|at| self.other.as_slice()[at].1),
        }
    }

    /// True when an entry for `name` is present.
    pub fn contains(&self, name: &str) -> bool {
        self.get_opt(name).is_some()
    }

    /// The entry of `name`, created with `init` when absent.
    fn entry(&mut self, name: &str, init: i64) -> (&mut i64, bool) {
        match known(name) {
            Some(i) => {
                let existed = self.present & (1 << i) != 0;
                if !existed {
                    self.present |= 1 << i;
                    self.known[i] = init;
                }
                (&mut self.known[i], existed)
            }
            None => match self.other.find(name) {
                Ok(at) => (self.other.amount_mut(at), true),
                Err(at) => {
                    self.other.insert(at, (name.to_string(), init));
                    (self.other.amount_mut(at), false)
                }
            },
        }
    }

    /// Sets the amount of `name`.
    pub fn set(&mut self, name: &str, amount: i64) {
        *self.entry(name, amount).0 = amount;
    }

    /// Removes the entry for `name`, returning its amount.
    pub fn remove(&mut self, name: &str) -> Option<i64> {
        match known(name) {
            Some(i) => {
                let was = self.get_opt(name);
                self.present &= !(1 << i);
                self.known[i] = 0;
                was
            }
            None => {
                let at = self.other.find(name).ok()?;
                self.other.remove(at).map(|(_, v)| v)
            }
        }
    }

    /// True when there is no entry at all.
    pub fn is_empty(&self) -> bool {
        self.present == 0 && self.other.0.is_none()
    }

    /// The number of entries.
    pub fn len(&self) -> usize {
        self.present.count_ones() as usize + self.other.as_slice().len()
    }

    /// True when every entry is 0 (or there is none).
    pub fn is_all_zero(&self) -> bool {
        self.iter().all(|(_, v)| v == 0)
    }

    /// The entries in name order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, i64)> {
        Entries { list: self, known: 0, other: 0 }
    }

    /// The resource names in order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.iter().map(|(k, _)| k)
    }

    /// Applies `f(existing, amount)` for every entry of `other`; an entry
    /// only in `other` starts from `init(amount)`.
    fn combine(&mut self, other: &ResourceList, init: impl Fn(i64) -> i64, f: impl Fn(i64, i64) -> i64) {
        for i in 0..KNOWN.len() {
            if other.present & (1 << i) != 0 {
                let v = other.known[i];
                if self.present & (1 << i) != 0 {
                    self.known[i] = f(self.known[i], v);
                } else {
                    self.present |= 1 << i;
                    self.known[i] = init(v);
                }
            }
        }
        for (k, v) in other.other.as_slice() {
            let (e, existed) = self.entry(k, 0);
            *e = if existed { f(*e, *v) } else { init(*v) };
        }
    }

    /// Adds every entry of `other` (entries only in `other` are created).
    /// Source: kube `addResourceList` (component-helpers `resource/helpers.go`).
    pub fn add(&mut self, other: &ResourceList) {
        self.combine(other, |v| v, i64::saturating_add);
    }

    /// Subtracts every entry of `other` (entries only in `other` are created,
    /// negative). Results may be negative: "free" on an over-committed node is.
    pub fn sub(&mut self, other: &ResourceList) {
        self.combine(other, |v| 0i64.saturating_sub(v), i64::saturating_sub);
    }

    /// Keeps, per resource, the larger of the two amounts (union of names).
    /// Source: kube `maxResourceList` (component-helpers `resource/helpers.go`).
    pub fn max_with(&mut self, other: &ResourceList) {
        self.combine(other, |v| v, i64::max);
    }

    /// `self + other` as a new list.
    pub fn plus(&self, other: &ResourceList) -> ResourceList {
        let mut out = self.clone();
        out.add(other);
        out
    }

    /// `self - other` as a new list.
    pub fn minus(&self, other: &ResourceList) -> ResourceList {
        let mut out = self.clone();
        out.sub(other);
        out
    }

    /// The per-resource maximum of `self` and `other` as a new list.
    pub fn max(&self, other: &ResourceList) -> ResourceList {
        let mut out = self.clone();
        out.max_with(other);
        out
    }

    /// The sum of many lists.
    pub fn sum<'a>(lists: impl IntoIterator<Item = &'a ResourceList>) -> ResourceList {
        let mut out = ResourceList::new();
        for l in lists {
            out.add(l);
        }
        out
    }
}

/// The entries of a list in name order: the inline ones merged with the others.
struct Entries<'a> {
    list: &'a ResourceList,
    known: usize,
    other: usize,
}

impl<'a> Iterator for Entries<'a> {
    type Item = (&'a str, i64);

    fn next(&mut self) -> Option<(&'a str, i64)> {
        while self.known < KNOWN.len() && self.list.present & (1 << self.known) == 0 {
            self.known += 1;
        }
        let known = (self.known < KNOWN.len()).then(|| (KNOWN[self.known], self.list.known[self.known]));
        let other = self.list.other.as_slice().get(self.other).map(|(k, v)| (k.as_str(), *v));
        match (known, other) {
            (Some(k), Some(o)) if o.0 < k.0 => {
                self.other += 1;
                Some(o)
            }
            (Some(k), _) => {
                self.known += 1;
                Some(k)
            }
            (None, Some(o)) => {
                self.other += 1;
                Some(o)
            }
            (None, None) => None,
        }
    }
}

impl FromIterator<(String, i64)> for ResourceList {
    /// Later pairs for the same name win, as in a map.
    fn from_iter<T: IntoIterator<Item = (String, i64)>>(iter: T) -> Self {
        let mut out = ResourceList::new();
        for (k, v) in iter {
            out.set(&k, v);
        }
        out
    }
}

impl fmt::Debug for ResourceList {
    /// As the map it stands for: `ResourceList({"cpu": 100, "memory": 1024})`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        struct Map<'a>(&'a ResourceList);
        impl fmt::Debug for Map<'_> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_map().entries(self.0.iter()).finish()
            }
        }
        f.debug_tuple("ResourceList").field(&Map(self)).finish()
    }
}

impl Serialize for ResourceList {
    /// A JSON object from name to amount, in name order.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.iter())
    }
}

impl<'de> Deserialize<'de> for ResourceList {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let map = BTreeMap::<String, i64>::deserialize(deserializer)?;
        Ok(map.into_iter().collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn add_sub_max() {
        let a = ResourceList::from_pairs(&[("cpu", 100), ("memory", 1000)]);
        let b = ResourceList::from_pairs(&[("cpu", 250), ("nvidia.com/gpu", 1)]);
        assert_eq!(a.plus(&b), ResourceList::from_pairs(&[("cpu", 350), ("memory", 1000), ("nvidia.com/gpu", 1)]));
        assert_eq!(a.minus(&b), ResourceList::from_pairs(&[("cpu", -150), ("memory", 1000), ("nvidia.com/gpu", -1)]));
        assert_eq!(a.max(&b), ResourceList::from_pairs(&[("cpu", 250), ("memory", 1000), ("nvidia.com/gpu", 1)]));
        assert_eq!(a.get("ephemeral-storage"), 0);
        assert_eq!(a.get_opt("ephemeral-storage"), None);
        assert_eq!(ResourceList::sum([&a, &b, &a]).get("cpu"), 450);
    }

    #[test]
    fn saturates_instead_of_overflowing() {
        let mut a = ResourceList::from_pairs(&[("memory", i64::MAX - 1)]);
        a.add(&ResourceList::from_pairs(&[("memory", 10)]));
        assert_eq!(a.get("memory"), i64::MAX);
        let mut b = ResourceList::from_pairs(&[("memory", i64::MIN + 1)]);
        b.sub(&ResourceList::from_pairs(&[("memory", 10)]));
        assert_eq!(b.get("memory"), i64::MIN);
    }

    #[test]
    fn behaves_as_a_map_ordered_by_name() {
        let a = ResourceList::from_pairs(&[
            ("pods", 3),
            ("nvidia.com/gpu", 1),
            ("cpu", 100),
            ("attachable-volumes-x", 2),
            ("hugepages-2Mi", 4),
            ("memory", 5),
        ]);
        let names: Vec<&str> = a.names().collect();
        assert_eq!(names, ["attachable-volumes-x", "cpu", "hugepages-2Mi", "memory", "nvidia.com/gpu", "pods"]);
        assert_eq!(a.len(), 6);
        assert_eq!(
            serde_json::to_string(&a).expect("json"),
            r#"{"attachable-volumes-x":2,"cpu":100,"hugepages-2Mi":4,"memory":5,"nvidia.com/gpu":1,"pods":3}"#
        );
        let back: ResourceList = serde_json::from_str(&serde_json::to_string(&a).expect("json")).expect("parse");
        assert_eq!(back, a);
        assert_eq!(
            format!("{:?}", ResourceList::from_pairs(&[("memory", 2), ("cpu", 1)])),
            r#"ResourceList({"cpu": 1, "memory": 2})"#
        );
        let mut b = a.clone();
        assert_eq!(b.remove("cpu"), Some(100));
        assert_eq!(b.remove("nvidia.com/gpu"), Some(1));
        assert_eq!(b.remove("cpu"), None);
        b.set("cpu", 100);
        b.set("nvidia.com/gpu", 1);
        assert_eq!(b, a);
        let order: ResourceList = [("cpu".to_string(), 1), ("cpu".to_string(), 2)].into_iter().collect();
        assert_eq!(order.get("cpu"), 2);
    }

    #[test]
    fn zero_entries_are_kept() {
        let a = ResourceList::from_pairs(&[("cpu", 0)]);
        assert!(a.contains("cpu"));
        assert!(a.is_all_zero());
        assert!(!a.is_empty());
    }
}
