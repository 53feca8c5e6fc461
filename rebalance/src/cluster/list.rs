//! Paginated lists (`limit` / `continue`) of any [`ResourceKind`] as raw
//! `serde_json::Value` items, each completed with its `kind` and
//! `apiVersion` (the apiserver leaves them out of list items), plus the
//! list's `resourceVersion` (where a watch starts). [`ListPager`] yields one
//! page at a time so callers keep memory bounded; [`list_all`] collects.
//! Shared by `kdrift ingest api`, `kdrift record` and the rebalance executor.

use kube::api::ListParams;
use kube::Client;
use serde_json::Value;

use super::error::ClusterError;
use super::resource::{ResourceKind, Scope};

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
    /// The items of `items` that are input errors: an object holding a key
    /// twice at any depth ([`crate::parse_noting_duplicates`], issue 34),
    /// whose meaning is unknown. Not to be stored; still listed, so a
    /// recorder does not take them for deleted.
    pub refused: Vec<RefusedItem>,
}

/// An item of a [`Page`] that is an input error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefusedItem {
    /// Its index in [`Page::items`].
    pub index: usize,
    /// What is wrong, naming the key and its path inside the item
    /// (`the key "app" appears twice in one object (at
    /// metadata.labels.app; …)`).
    pub message: String,
}

/// A whole list.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ObjectList {
    /// Every object of every page, in the server's order.
    pub items: Vec<Value>,
    /// The list's `metadata.resourceVersion`.
    pub resource_version: String,
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
        }
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
    /// or [`ClusterError::Decode`] when the body is not a list.
    pub async fn next_page(&mut self) -> Result<Option<Page>, ClusterError> {
        if self.done {
            return Ok(None);
        }
        let name = self.resource.name();
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
        let text =
            self.client.request_text(request).await.map_err(|e| ClusterError::from_kube(&name, &self.path, e))?;
        let (body, duplicates) = crate::parse_noting_duplicates(&text)
            .map_err(|e| ClusterError::from_kube(&name, &self.path, kube::Error::SerdeError(e)))?;
        drop(text);
        // A problem may quote the server (a Status message, a token).
        let decode = |problem: String| ClusterError::Decode {
            resource: name.clone(),
            path: self.path.clone(),
            problem: crate::redact::held().redact(&problem),
        };
        let Value::Object(mut body) = body else {
            return Err(decode("expected a list object".into()));
        };
        if let Some(kind) = body.get("kind").and_then(Value::as_str) {
            if kind == "Status" {
                let message = body.get("message").and_then(Value::as_str).unwrap_or("").to_string();
                return Err(decode(format!("a Status instead of a list: {message}")));
            }
        }
        let items = match body.remove("items") {
            Some(Value::Array(items)) => items,
            // An empty list may come back with `"items": null`.
            Some(Value::Null) | None => Vec::new(),
            Some(other) => return Err(decode(format!("`items` is not an array but {}", json_type(&other)))),
        };
        let refused = match refused_items(&duplicates, items.len()) {
            Ok(refused) => refused,
            Err(message) => return Err(decode(message)),
        };
        let meta = body.get("metadata");
        let rv = meta.and_then(|m| m.get("resourceVersion")).and_then(Value::as_str).unwrap_or("").to_string();
        if rv.is_empty() {
            return Err(decode("the list has no metadata.resourceVersion".into()));
        }
        let next = meta.and_then(|m| m.get("continue")).and_then(Value::as_str).filter(|t| !t.is_empty());
        match next {
            Some(token) if self.continue_token.as_deref() == Some(token) => {
                return Err(decode(format!("the server returned the same continue token twice ({token:?})")));
            }
            Some(token) => self.continue_token = Some(token.to_string()),
            None => self.done = true,
        }
        // The snapshot is the first page's: later pages read the same one.
        let resource_version = self.resource_version.get_or_insert(rv).clone();
        let api_version = self.resource.api_version();
        let items = items.into_iter().map(|item| complete_item(item, &api_version, self.resource.kind)).collect();
        Ok(Some(Page { items, resource_version, refused }))
    }
}

/// The items holding a [`crate::Duplicate`] key (the first one each), or
/// the message of one outside `items` (the list itself is then unreadable).
fn refused_items(duplicates: &[crate::Duplicate], items: usize) -> Result<Vec<RefusedItem>, String> {
    let mut refused: Vec<RefusedItem> = Vec::new();
    for d in duplicates {
        let item = d.path.strip_prefix("items[").and_then(|rest| {
            let (index, within) = rest.split_once(']')?;
            Some((index.parse::<usize>().ok()?, within.trim_start_matches('.')))
        });
        match item {
            Some((index, within)) if index < items && !within.is_empty() => {
                if refused.last().is_none_or(|r| r.index != index) {
                    let message = format!("{}; this item is not stored", crate::duplicate_message(&d.key, within));
                    refused.push(RefusedItem { index, message });
                }
            }
            _ => return Err(crate::duplicate_message(&d.key, &d.path)),
        }
    }
    Ok(refused)
}

/// Sets `kind` and `apiVersion` on a list item that lacks them.
fn complete_item(mut item: Value, api_version: &str, kind: &str) -> Value {
    if let Value::Object(map) = &mut item {
        if map.get("kind").and_then(Value::as_str).is_none_or(str::is_empty) {
            map.insert("kind".into(), Value::String(kind.to_string()));
        }
        if map.get("apiVersion").and_then(Value::as_str).is_none_or(str::is_empty) {
            map.insert("apiVersion".into(), Value::String(api_version.to_string()));
        }
    }
    item
}

fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
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
    let mut pager = ListPager::new(client.clone(), resource, scope, page_size);
    let mut out = ObjectList::default();
    while let Some(page) = pager.next_page().await? {
        out.items.extend(page.items);
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
    }
}
