//! Paginated lists (`limit` / `continue`) of any [`ResourceKind`] as raw
//! `serde_json::Value` items, each completed with its `kind` and
//! `apiVersion` (the apiserver leaves them out of list items), plus the
//! list's `resourceVersion` (where a watch starts). [`ListPager`] yields one
//! page at a time so callers keep memory bounded; [`list_all`] collects.
//! A page is decoded item by item ([`super::page`]): a bad item is skipped
//! as a [`BadItem`] and the page's other items are kept. Each request is
//! bounded by [`Deadlines`] ([`super::answer`]): a server that does not
//! answer, or stops in the middle of a page, is a [`ClusterError::Timeout`];
//! one that sends a page too slowly to end within [`Deadlines::page`] is a
//! [`ClusterError::TooSlow`].
//! Shared by `kdrift ingest api`, `kdrift record` and the rebalance executor.

use kube::api::ListParams;
use kube::Client;
use serde_json::Value;

use super::answer::Deadlines;
use super::error::ClusterError;
pub use super::page::BadItem;
use super::resource::{ResourceKind, Scope};

/// The most pages one list may take ([`ListPager::with_max_pages`]):
/// 100,000, i.e. 50 million objects at [`DEFAULT_PAGE_SIZE`], far above any
/// real cluster. A server handing out new continue tokens forever
/// otherwise keeps `ingest api` and `record` paging forever (break-it 34 H3).
pub const MAX_PAGES: u32 = 100_000;

/// The most pages in a row that may hold no item yet give a new continue
/// token: 100. A real API server fills a page up to its `limit` unless the
/// list ends; a server paging through nothing forever is stopped long
/// before [`MAX_PAGES`] or the list's time bound ([`Deadlines::list`]).
pub const MAX_EMPTY_PAGES: u32 = 100;

/// Items per page when the caller has no preference (kubectl's `--chunk-size`
/// default).
pub const DEFAULT_PAGE_SIZE: u32 = 500;

/// One page of a list.
#[derive(Debug, Clone, PartialEq)]
pub struct Page {
    /// The objects, each with `kind` and `apiVersion` set.
    pub items: Vec<Value>,
    /// The list's `metadata.resourceVersion` (the same on every page of one
    /// list: the snapshot it reads).
    pub resource_version: String,
    /// The page's number in this list (1-based).
    pub number: u32,
    /// Items skipped, with why (`items[i]` of this page).
    pub bad: Vec<BadItem>,
    /// What was odd about the page as a whole, its items kept (a key twice
    /// in its `metadata`, text after its JSON, a byte-order mark; redacted).
    pub odd: Vec<String>,
}

/// A whole list.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ObjectList {
    /// Every object of every page, in the server's order.
    pub items: Vec<Value>,
    /// The list's `metadata.resourceVersion`.
    pub resource_version: String,
    /// Items skipped: the page's number and the item.
    pub bad: Vec<(u32, BadItem)>,
    /// What was odd about a page as a whole: the page's number and what.
    pub odd: Vec<(u32, String)>,
}

/// Reads a list page by page. Create with [`ListPager::new`], then call
/// [`ListPager::next_page`] until it returns `Ok(None)`.
pub struct ListPager {
    client: Client,
    resource: ResourceKind,
    path: String,
    page_size: u32,
    continue_token: Option<String>,
    resource_version: Option<String>,
    done: bool,
    pages: u32,
    deadlines: Deadlines,
    /// The error the next call returns, after a page whose items were kept
    /// (a continue token repeated, a page cut mid-body: break-it 32 N5).
    pending: Option<ClusterError>,
    /// A hash of every continue token of this list → the page that returned
    /// it (a token seen before is a cycle: tokA → tokB → tokA, break-it 34
    /// H3). Hashes, not tokens: a hostile server's huge tokens cost 8 bytes.
    seen: std::collections::HashMap<u64, u32>,
    max_pages: u32,
    max_page_bytes: usize,
    /// A list without `metadata.resourceVersion` is read (its pages say `""`).
    versionless: bool,
    /// When the first page was asked for (the list's time bound, [`Deadlines::list`]).
    started: Option<std::time::Instant>,
    /// Pages in a row with no item, the last one included.
    empty_in_a_row: u32,
}

impl std::fmt::Debug for ListPager {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ListPager")
            .field("path", &self.path)
            .field("page_size", &self.page_size)
            .field("continue_token", &self.continue_token)
            .field("done", &self.done)
            .finish_non_exhaustive()
    }
}

impl ListPager {
    /// A pager over `resource` in `scope`, `page_size` items per request
    /// (0 means no limit: one request).
    pub fn new(client: Client, resource: &ResourceKind, scope: &Scope, page_size: u32) -> ListPager {
        ListPager {
            client,
            resource: *resource,
            path: resource.collection_path(scope),
            page_size,
            continue_token: None,
            resource_version: None,
            done: false,
            pages: 0,
            deadlines: Deadlines::default(),
            pending: None,
            seen: std::collections::HashMap::new(),
            max_pages: MAX_PAGES,
            max_page_bytes: super::answer::MAX_PAGE_BYTES,
            versionless: false,
            started: None,
            empty_in_a_row: 0,
        }
    }

    /// Reads a list that has no `metadata.resourceVersion` (metrics-server's
    /// `NodeMetricsList` / `PodMetricsList`: `"metadata": {}`, nothing to
    /// watch from) instead of failing it; its pages' `resource_version` is `""`.
    #[must_use]
    pub fn without_resource_version(mut self) -> ListPager {
        self.versionless = true;
        self
    }

    /// Stops after `max_pages` pages with an error, the items read kept
    /// (default [`MAX_PAGES`]; at least 1).
    #[must_use]
    pub fn with_max_pages(mut self, max_pages: u32) -> ListPager {
        self.max_pages = max_pages.max(1);
        self
    }

    /// Waits for the server as `deadlines` say (default: 60 s, the server
    /// unnamed); the whole list may take [`Deadlines::list`].
    #[must_use]
    pub fn with_deadlines(mut self, deadlines: Deadlines) -> ListPager {
        self.deadlines = deadlines;
        self
    }

    /// Reads at most `bytes` of one page (default
    /// [`super::answer::MAX_PAGE_BYTES`]); a page going on past it keeps its
    /// complete items before the cap and ends the list with an error.
    #[must_use]
    pub fn with_max_page_bytes(mut self, bytes: usize) -> ListPager {
        self.max_page_bytes = bytes;
        self
    }

    /// Whether [`ListPager::next_page`] may be called again after the
    /// error it returned, and then asks for the same page (the same
    /// continue token): true after an error Status or a broken connection
    /// that left no item of the page; false once the list ended (its
    /// items kept before a cut, its time bound reached, paging stopped).
    pub fn can_retry(&self) -> bool {
        !self.done
    }

    /// The collection path requested, e.g. `/api/v1/pods`.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The next page, `Ok(None)` after the last one.
    ///
    /// # Errors
    /// [`ClusterError::Api`] with the server's Status (403 Forbidden, 404 for
    /// an API the server does not serve, 410 Expired when a continue token
    /// is too old: list again from the start), [`ClusterError::Transport`],
    /// [`ClusterError::Timeout`] when the server does not answer (or stops
    /// sending) within the deadlines, [`ClusterError::TooSlow`] when the
    /// page is not whole within [`Deadlines::page`], or
    /// [`ClusterError::Decode`] when the body is not a list (a bad item is
    /// no error: [`Page::bad`]).
    pub async fn next_page(&mut self) -> Result<Option<Page>, ClusterError> {
        if let Some(e) = self.pending.take() {
            self.done = true;
            return Err(e);
        }
        if self.done {
            return Ok(None);
        }
        let name = self.resource.name();
        let started = *self.started.get_or_insert_with(std::time::Instant::now);
        if self.pages > 0 && started.elapsed() >= self.deadlines.list() {
            self.done = true;
            let pages = self.pages;
            return Err(ClusterError::Decode {
                resource: name,
                path: self.path.clone(),
                problem: format!(
                    "the list did not end within {} s ({} times --request-timeout, {} s): the items of the {pages} \
                     pages read are kept, paging stops there (the rest of the list is not read)",
                    self.deadlines.list().as_secs_f64(),
                    super::answer::LIST_BOUND_FACTOR,
                    self.deadlines.idle.as_secs_f64()
                ),
            });
        }
        let mut params = ListParams::default();
        if self.page_size > 0 {
            params = params.limit(self.page_size);
        }
        if let Some(token) = &self.continue_token {
            params = params.continue_token(token);
        }
        let request = kube::core::Request::new(self.path.clone())
            .list(&params)
            .map_err(|source| ClusterError::Request { resource: name.clone(), path: self.path.clone(), source })?;
        let mut got = Vec::new();
        let whole = async {
            let response =
                super::answer::send(&self.client, request, &name, &self.path, &self.deadlines, "the list's answer")
                    .await?;
            super::answer::read_into(
                response,
                &name,
                &self.path,
                &self.deadlines,
                "the rest of the list",
                self.max_page_bytes,
                &mut got,
            )
            .await
        };
        let failed = match tokio::time::timeout(self.deadlines.page(), whole).await {
            Ok(Ok(())) => None,
            // A page past the byte cap: the error says how to raise it.
            Ok(Err(ClusterError::Decode { resource, path, problem })) if got.len() >= self.max_page_bytes => {
                Some(ClusterError::Decode { resource, path, problem: format!("{problem} (raise --max-page-bytes)") })
            }
            Ok(Err(e)) => Some(e),
            Err(_) => Some(self.deadlines.too_slow(&name, &self.path)),
        };
        // A problem may quote the server (a Status message, a token).
        let decode = |problem: String| ClusterError::Decode {
            resource: name.clone(),
            path: self.path.clone(),
            problem: crate::redact::held().redact(&problem),
        };
        let page = match failed {
            None => super::page::decode(&got).map_err(decode)?,
            // Cut mid-body: its complete items are kept, as a List file cut
            // the same way keeps them, and the cut is the next call's error.
            Some(e) => match super::page::decode_cut(&got).filter(|d| !d.items.is_empty() || !d.bad.is_empty()) {
                Some(mut d) => {
                    d.odd.push(format!(
                        "the answer stopped after {} bytes, inside the page: its {} complete items before the cut \
                         are kept, the rest of the list is not read",
                        got.len(),
                        d.items.len()
                    ));
                    self.pending = Some(e);
                    d
                }
                None => return Err(e),
            },
        };
        let body = &page.fields;
        if let Some(kind) = body.get("kind").and_then(Value::as_str) {
            if kind == "Status" {
                let message = body.get("message").and_then(Value::as_str).unwrap_or("").to_string();
                return Err(decode(format!("a Status instead of a list: {message}")));
            }
        }
        let meta = body.get("metadata");
        let rv = meta.and_then(|m| m.get("resourceVersion")).and_then(Value::as_str).unwrap_or("").to_string();
        // Its own fields broken (break-it 42 M1) and its metadata with
        // them: its items are kept, with no snapshot or continue token the
        // list stops there.
        let no_metadata = rv.is_empty() && !self.versionless && page.envelope.is_some();
        if no_metadata && self.pending.is_none() {
            self.pending = Some(decode(format!(
                "page {}'s metadata could not be read (the list's own fields are broken): with no resourceVersion or \
                 continue token the rest of the list is not read; the page's {} items are kept",
                self.pages + 1,
                page.items.len()
            )));
        }
        if rv.is_empty() && !self.versionless && !no_metadata {
            return Err(self
                .pending
                .take()
                .unwrap_or_else(|| decode("the list has no metadata.resourceVersion".into())));
        }
        let next = meta.and_then(|m| m.get("continue")).and_then(Value::as_str).filter(|t| !t.is_empty());
        let empty = page.items.is_empty() && page.bad.is_empty();
        self.empty_in_a_row = if empty { self.empty_in_a_row + 1 } else { 0 };
        match next {
            // The page is kept; reading on would read it again (or loop).
            Some(token) if self.continue_token.as_deref() == Some(token) => {
                if self.pending.is_none() {
                    self.pending = Some(decode(format!(
                        "the server returned the same continue token again ({token:?}) on page {}: its items are \
                         kept, paging stops there (the rest of the list is not read)",
                        self.pages + 1
                    )));
                }
            }
            Some(token) => {
                let page = self.pages + 1;
                let hash = token_hash(token);
                if let Some(first) = self.seen.get(&hash).copied() {
                    if self.pending.is_none() {
                        self.pending = Some(decode(format!(
                            "the server returned on page {page} the continue token page {first} already returned \
                             ({token:?}): the tokens go round in a cycle; the items of the {page} pages are kept, \
                             paging stops there (the rest of the list is not read)"
                        )));
                    }
                } else if self.empty_in_a_row >= MAX_EMPTY_PAGES {
                    if self.pending.is_none() {
                        self.pending = Some(decode(format!(
                            "{} pages in a row up to page {page} held no item yet gave a new continue token (at \
                             most {MAX_EMPTY_PAGES}): the items of the {page} pages are kept, paging stops there (the \
                             rest of the list is not read)",
                            self.empty_in_a_row
                        )));
                    }
                } else if page >= self.max_pages {
                    if self.pending.is_none() {
                        self.pending = Some(decode(format!(
                            "the list did not end after {page} pages (at most {}; every page gave a new continue \
                             token): the items of the {page} pages are kept, paging stops there (the rest of the \
                             list is not read)",
                            self.max_pages
                        )));
                    }
                } else {
                    self.seen.insert(hash, page);
                    self.continue_token = Some(token.to_string());
                }
            }
            None => self.done = true,
        }
        // The snapshot is the first page's: later pages read the same one.
        let resource_version = self.resource_version.get_or_insert(rv).clone();
        let api_version = self.resource.api_version();
        let items = page.items.into_iter().map(|item| complete_item(item, &api_version, self.resource.kind)).collect();
        self.pages += 1;
        Ok(Some(Page { items, resource_version, number: self.pages, bad: page.bad, odd: page.odd }))
    }
}

/// A 64-bit hash of a continue token (SipHash with fixed keys).
fn token_hash(token: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    token.hash(&mut hasher);
    hasher.finish()
}

/// Sets `kind` and `apiVersion` on a list item that lacks them (absent,
/// null or empty); a value of another type is left for the store to refuse
/// (`kind: 5` was replaced silently, break-it 34 L2).
fn complete_item(mut item: Value, api_version: &str, kind: &str) -> Value {
    let missing = |v: Option<&Value>| match v {
        None | Some(Value::Null) => true,
        Some(Value::String(s)) => s.is_empty(),
        Some(_) => false,
    };
    if let Value::Object(map) = &mut item {
        if missing(map.get("kind")) {
            map.insert("kind".into(), Value::String(kind.to_string()));
        }
        if missing(map.get("apiVersion")) {
            map.insert("apiVersion".into(), Value::String(api_version.to_string()));
        }
    }
    item
}

/// Lists every object of `resource` in `scope`, following `continue` tokens.
///
/// # Errors
/// As [`ListPager::next_page`].
pub async fn list_all(
    client: &Client,
    resource: &ResourceKind,
    scope: &Scope,
    page_size: u32,
) -> Result<ObjectList, ClusterError> {
    collect(ListPager::new(client.clone(), resource, scope, page_size)).await
}

/// Every page of `pager`, collected.
///
/// # Errors
/// As [`ListPager::next_page`].
pub async fn collect(mut pager: ListPager) -> Result<ObjectList, ClusterError> {
    let mut out = ObjectList::default();
    while let Some(page) = pager.next_page().await? {
        out.items.extend(page.items);
        out.bad.extend(page.bad.into_iter().map(|b| (page.number, b)));
        out.odd.extend(page.odd.into_iter().map(|o| (page.number, o)));
        out.resource_version = page.resource_version;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn list_items_get_their_kind_and_api_version() {
        let item = complete_item(json!({"metadata": {"name": "a"}}), "apps/v1", "Deployment");
        assert_eq!(item["kind"], "Deployment");
        assert_eq!(item["apiVersion"], "apps/v1");
        let kept = complete_item(json!({"kind": "X", "apiVersion": "v9"}), "v1", "Pod");
        assert_eq!((kept["kind"].as_str(), kept["apiVersion"].as_str()), (Some("X"), Some("v9")));
        assert_eq!(complete_item(json!(3), "v1", "Pod"), json!(3));
        // A wrong type stays, for the store to refuse naming it.
        let wrong = complete_item(json!({"kind": 5, "apiVersion": ["v1"]}), "v1", "Pod");
        assert_eq!(wrong, json!({"kind": 5, "apiVersion": ["v1"]}));
    }
}
