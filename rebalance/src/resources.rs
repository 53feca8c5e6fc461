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

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// The `cpu` resource, in millicores.
pub const CPU: &str = "cpu";
/// The `memory` resource, in bytes.
pub const MEMORY: &str = "memory";
/// The `ephemeral-storage` resource, in bytes.
pub const EPHEMERAL_STORAGE: &str = "ephemeral-storage";
/// The `pods` resource: a node's allocatable pod count.
pub const PODS: &str = "pods";

/// Amounts per resource name, in the units documented at the top of this module.
/// A missing entry reads as 0; an entry can be present with the value 0 (that
/// matters for the scheduler's non-zero defaults, which fill only MISSING entries).
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ResourceList(pub BTreeMap<String, i64>);

impl ResourceList {
    /// An empty list.
    pub fn new() -> Self {
        ResourceList(BTreeMap::new())
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
        self.0.get(name).copied().unwrap_or(0)
    }

    /// The amount of `name` if an entry is present (even with value 0).
    pub fn get_opt(&self, name: &str) -> Option<i64> {
        self.0.get(name).copied()
    }

    /// True when an entry for `name` is present.
    pub fn contains(&self, name: &str) -> bool {
        self.0.contains_key(name)
    }

    /// Sets the amount of `name`.
    pub fn set(&mut self, name: &str, amount: i64) {
        self.0.insert(name.to_string(), amount);
    }

    /// Removes the entry for `name`, returning its amount.
    pub fn remove(&mut self, name: &str) -> Option<i64> {
        self.0.remove(name)
    }

    /// True when there is no entry at all.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// True when every entry is 0 (or there is none).
    pub fn is_all_zero(&self) -> bool {
        self.0.values().all(|v| *v == 0)
    }

    /// The entries in name order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, i64)> {
        self.0.iter().map(|(k, v)| (k.as_str(), *v))
    }

    /// The resource names in order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.0.keys().map(String::as_str)
    }

    /// Adds every entry of `other` (entries only in `other` are created).
    /// Source: kube `addResourceList` (component-helpers `resource/helpers.go`).
    pub fn add(&mut self, other: &ResourceList) {
        for (k, v) in &other.0 {
            match self.0.get_mut(k) {
                Some(e) => *e = e.saturating_add(*v),
                None => {
                    self.0.insert(k.clone(), *v);
                }
            }
        }
    }

    /// Subtracts every entry of `other` (entries only in `other` are created,
    /// negative). Results may be negative: "free" on an over-committed node is.
    pub fn sub(&mut self, other: &ResourceList) {
        for (k, v) in &other.0 {
            match self.0.get_mut(k) {
                Some(e) => *e = e.saturating_sub(*v),
                None => {
                    self.0.insert(k.clone(), 0i64.saturating_sub(*v));
                }
            }
        }
    }

    /// Keeps, per resource, the larger of the two amounts (union of names).
    /// Source: kube `maxResourceList` (component-helpers `resource/helpers.go`).
    pub fn max_with(&mut self, other: &ResourceList) {
        for (k, v) in &other.0 {
            match self.0.get_mut(k) {
                Some(e) => *e = (*e).max(*v),
                None => {
                    self.0.insert(k.clone(), *v);
                }
            }
        }
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

impl FromIterator<(String, i64)> for ResourceList {
    fn from_iter<T: IntoIterator<Item = (String, i64)>>(iter: T) -> Self {
        ResourceList(iter.into_iter().collect())
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
    fn zero_entries_are_kept() {
        let a = ResourceList::from_pairs(&[("cpu", 0)]);
        assert!(a.contains("cpu"));
        assert!(a.is_all_zero());
        assert!(!a.is_empty());
    }
}
