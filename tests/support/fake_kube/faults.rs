//! Faults a test can inject into the fake apiserver: error answers for one
//! resource, resources the server does not serve, expired watches, slow or
//! failing evictions, the bookmark cadence, and error messages echoing the
//! request's `Authorization` header (as a hostile server or proxy may).

use std::collections::{HashMap, HashSet};
use std::time::Duration;

/// What an eviction request gets instead of the normal outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EvictionFault {
    /// 429 with the PDB message, as if a budget allowed no disruption.
    TooManyRequests,
    /// 500 InternalError.
    ServerError,
    /// Answer normally, after this delay (for client timeouts).
    Delay(Duration),
}

/// An eviction fault rule: for one pod or any, a number of times or always.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EvictionRule {
    /// The fault.
    pub fault: EvictionFault,
    /// Only for this `(namespace, name)`; `None`: every pod.
    pub pod: Option<(String, String)>,
    /// Applies this many more times; `None`: always.
    pub remaining: Option<usize>,
}

/// Injected faults (see the `FakeKube` methods that set them).
#[derive(Debug, Clone)]
pub struct Faults {
    /// Resource name (`pods`, `poddisruptionbudgets.policy`) → status code
    /// answered to every list, watch and get of it (`200`: a page that is
    /// not JSON, quoting the `Authorization` header when
    /// `echo_authorization`).
    pub resource_codes: HashMap<String, u16>,
    /// Resources not served at all: absent from discovery, 404.
    pub hidden: HashSet<String>,
    /// The next this-many watch requests get 410 Gone whatever their
    /// resourceVersion.
    pub expire_watches: usize,
    /// Eviction rules, first match wins.
    pub evictions: Vec<EvictionRule>,
    /// How often open watches that asked for bookmarks get one.
    pub bookmark_interval: Duration,
    /// The injected errors of `resource_codes`, and every eviction error,
    /// quote the request's
    /// `Authorization` header: raw, base64 (padded and not), URL-encoded
    /// and JSON-escaped (a `200` page: raw, base64, hex, JSON-escaped).
    pub echo_authorization: bool,
    /// Every list answer's JSON text, and every watch event's line, has
    /// each `from` replaced by its `to` (a broken writer or proxy: a key
    /// twice in an item).
    pub list_rewrites: Vec<(String, String)>,
}

impl Default for Faults {
    fn default() -> Self {
        Faults {
            resource_codes: HashMap::new(),
            hidden: HashSet::new(),
            expire_watches: 0,
            evictions: Vec::new(),
            bookmark_interval: Duration::from_millis(500),
            echo_authorization: false,
            list_rewrites: Vec::new(),
        }
    }
}

impl Faults {
    /// The eviction fault for `(namespace, name)`, consuming one use.
    pub fn take_eviction_fault(&mut self, namespace: &str, name: &str) -> Option<EvictionFault> {
        let i = self.evictions.iter().position(|r| {
            r.remaining != Some(0) && r.pod.as_ref().is_none_or(|(ns, n)| ns == namespace && n == name)
        })?;
        let rule = &mut self.evictions[i];
        if let Some(n) = &mut rule.remaining {
            *n -= 1;
        }
        Some(rule.fault)
    }
}
