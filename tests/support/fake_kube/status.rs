//! `Status` objects as the real apiserver writes them (kind, apiVersion,
//! metadata, status, message, reason, details, code) and the errors the fake
//! answers with.

use serde_json::{json, Value};

/// An error answer: HTTP code plus the Status body.
#[derive(Debug, Clone, PartialEq)]
pub struct ApiError {
    /// HTTP status code.
    pub code: u16,
    /// Status reason (`NotFound`, `Forbidden`, `Expired`, …).
    pub reason: &'static str,
    /// Status message.
    pub message: String,
    /// Status details (`{}` when none).
    pub details: Value,
}

impl ApiError {
    /// The Status object.
    pub fn status(&self) -> Value {
        let mut v = json!({
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Failure",
            "message": self.message,
            "reason": self.reason,
            "details": self.details,
            "code": self.code,
        });
        if self.details.as_object().is_some_and(|d| d.is_empty()) {
            if let Some(m) = v.as_object_mut() {
                m.remove("details");
            }
        }
        v
    }

    /// 404 for an object: `pods "x" not found`.
    pub fn not_found(plural: &str, group: &str, name: &str) -> ApiError {
        let what = if group.is_empty() { plural.to_string() } else { format!("{plural}.{group}") };
        ApiError {
            code: 404,
            reason: "NotFound",
            message: format!("{what} \"{name}\" not found"),
            details: json!({"name": name, "group": group, "kind": plural}),
        }
        .without_empty_group()
    }

    /// 404 for a path the server does not serve.
    pub fn no_route() -> ApiError {
        ApiError {
            code: 404,
            reason: "NotFound",
            message: "the server could not find the requested resource".into(),
            details: json!({}),
        }
    }

    /// 409 AlreadyExists.
    pub fn already_exists(plural: &str, group: &str, name: &str) -> ApiError {
        let what = if group.is_empty() { plural.to_string() } else { format!("{plural}.{group}") };
        ApiError {
            code: 409,
            reason: "AlreadyExists",
            message: format!("{what} \"{name}\" already exists"),
            details: json!({"name": name, "group": group, "kind": plural}),
        }
        .without_empty_group()
    }

    /// 409 Conflict on a stale resourceVersion.
    pub fn conflict(plural: &str, group: &str, name: &str) -> ApiError {
        let what = if group.is_empty() { plural.to_string() } else { format!("{plural}.{group}") };
        ApiError {
            code: 409,
            reason: "Conflict",
            message: format!(
                "Operation cannot be fulfilled on {what} \"{name}\": the object has been modified; \
                 please apply your changes to the latest version and try again"
            ),
            details: json!({"name": name, "group": group, "kind": plural}),
        }
        .without_empty_group()
    }

    /// 410 Expired for a watch from a compacted resourceVersion.
    pub fn too_old(requested: u64, oldest: u64) -> ApiError {
        ApiError {
            code: 410,
            reason: "Expired",
            message: format!("too old resource version: {requested} ({oldest})"),
            details: json!({}),
        }
    }

    /// 410 Expired for a continue token from before a compaction.
    pub fn continue_expired() -> ApiError {
        ApiError {
            code: 410,
            reason: "Expired",
            message: "The provided continue parameter is too old to display a consistent list result. You can \
                      start a new list without the continue parameter, or use the continue token in this response \
                      to retrieve the remainder of the results. Continuing with the provided token results in an \
                      inconsistent list - objects that were created, modified, or deleted between the time the \
                      first chunk was returned and now may show up in the list."
                .into(),
            details: json!({}),
        }
    }

    /// 400 BadRequest.
    pub fn bad_request(message: impl Into<String>) -> ApiError {
        ApiError { code: 400, reason: "BadRequest", message: message.into(), details: json!({}) }
    }

    /// 403 Forbidden as RBAC words it.
    pub fn forbidden(plural: &str, group: &str, verb: &str, namespace: Option<&str>) -> ApiError {
        let what = if group.is_empty() { plural.to_string() } else { format!("{plural}.{group}") };
        let scope = match namespace {
            Some(ns) => format!("in the namespace \"{ns}\""),
            None => "at the cluster scope".to_string(),
        };
        ApiError {
            code: 403,
            reason: "Forbidden",
            message: format!(
                "{what} is forbidden: User \"system:serviceaccount:kdrift:kdrift\" cannot {verb} resource \
                 \"{plural}\" in API group \"{group}\" {scope}"
            ),
            details: json!({"group": group, "kind": plural}),
        }
        .without_empty_group()
    }

    /// 500 InternalError.
    pub fn internal(message: impl Into<String>) -> ApiError {
        ApiError {
            code: 500,
            reason: "InternalError",
            message: format!("Internal error occurred: {}", message.into()),
            details: json!({}),
        }
    }

    /// An injected answer with any code.
    pub fn injected(code: u16) -> ApiError {
        match code {
            403 => ApiError::forbidden("resources", "", "list", None),
            404 => ApiError::no_route(),
            410 => ApiError::too_old(0, 0),
            429 => ApiError {
                code: 429,
                reason: "TooManyRequests",
                message: "the server has received too many requests and has asked us to try again later".into(),
                details: json!({}),
            },
            500 => ApiError::internal("injected fault"),
            503 => ApiError {
                code: 503,
                reason: "ServiceUnavailable",
                message: "the server is currently unable to handle the request".into(),
                details: json!({}),
            },
            other => {
                ApiError { code: other, reason: "Unknown", message: format!("injected {other}"), details: json!({}) }
            }
        }
    }

    fn without_empty_group(mut self) -> ApiError {
        if let Some(d) = self.details.as_object_mut() {
            if d.get("group").and_then(Value::as_str) == Some("") {
                d.remove("group");
            }
        }
        self
    }
}
