//! [`Sparse`]: a part of a model that is almost always empty (a pod's
//! affinity, its pod-level resources and overhead), kept out of line. Empty,
//! it holds no allocation and takes 8 bytes in its struct instead of the
//! part's own size (144 bytes for an affinity, 64 for a resource list): at
//! 150,000 pods, ~45 MB less to load (kdrift issue 39).
//!
//! It reads as the part itself ([`std::ops::Deref`]); writing through it
//! ([`std::ops::DerefMut`]) allocates the part first. Equality, hashing,
//! `Debug` and serialization are the part's own, whether it is allocated or
//! not, so a model reads, compares and prints exactly as with the part inline.

use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::{Deref, DerefMut};

use serde::{Serialize, Serializer};

/// A part with an empty value to read when it is not set.
pub trait EmptyPart: Default + 'static {
    /// The empty part ([`Default::default`]'s value), as a static.
    fn empty() -> &'static Self;
}

/// A rarely set part `T`, allocated only once set (see the module docs).
#[derive(Clone, Default)]
pub struct Sparse<T>(Option<Box<T>>);

impl<T> Sparse<T> {
    /// The unset part (no allocation), usable in a `static`.
    pub const fn none() -> Sparse<T> {
        Sparse(None)
    }

    /// The part to write to when it is allocated; `None` (and no
    /// allocation made) when it is not.
    pub fn get_mut_if_set(&mut self) -> Option<&mut T> {
        self.0.as_deref_mut()
    }
}

impl<T: EmptyPart + PartialEq> Sparse<T> {
    /// The part, allocated only when it differs from the empty one.
    pub fn new(part: T) -> Sparse<T> {
        if part == T::default() {
            Sparse(None)
        } else {
            Sparse(Some(Box::new(part)))
        }
    }
}

impl<T: EmptyPart + PartialEq> From<T> for Sparse<T> {
    fn from(part: T) -> Sparse<T> {
        Sparse::new(part)
    }
}

impl<T: EmptyPart> Deref for Sparse<T> {
    type Target = T;
    fn deref(&self) -> &T {
        self.0.as_deref().unwrap_or_else(|| T::empty())
    }
}

impl<T: EmptyPart> DerefMut for Sparse<T> {
    fn deref_mut(&mut self) -> &mut T {
        self.0.get_or_insert_with(Box::default)
    }
}

impl<T: EmptyPart + PartialEq> PartialEq for Sparse<T> {
    fn eq(&self, other: &Sparse<T>) -> bool {
        **self == **other
    }
}

impl<T: EmptyPart + Eq> Eq for Sparse<T> {}

impl<T: EmptyPart + Hash> Hash for Sparse<T> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        (**self).hash(state);
    }
}

impl<T: EmptyPart + fmt::Debug> fmt::Debug for Sparse<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        (**self).fmt(f)
    }
}

impl<T: EmptyPart + Serialize> Serialize for Sparse<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        (**self).serialize(serializer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::resources::ResourceList;

    #[test]
    fn an_empty_part_is_not_allocated_and_reads_compares_and_prints_as_the_part() {
        let empty: Sparse<ResourceList> = ResourceList::new().into();
        assert!(empty.0.is_none());
        assert!(empty.is_empty());
        let mut set = Sparse::<ResourceList>::default();
        set.set("cpu", 100);
        assert!(set.0.is_some());
        assert_eq!(set.get_opt("cpu"), Some(100));
        assert_eq!(format!("{set:?}"), format!("{:?}", ResourceList::from_pairs(&[("cpu", 100)])));
        // Allocated but empty again: equal to the unallocated one.
        set.remove("cpu");
        assert_eq!(set, empty);
        assert_eq!(serde_json::to_string(&set).ok(), serde_json::to_string(&ResourceList::new()).ok());
    }
}
