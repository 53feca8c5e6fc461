//! Errors of the cluster model: bad quantities and bad fields of stored objects.
//!
//! Every message is complete on its own (it names the object, the field, the
//! offending value and what was expected), because callers report one bad pod
//! and go on with the rest: `pod default/x: spec.containers[1].resources.requests.cpu:
//! "abc" is not a quantity (...)`. For that reason the wrapped error of
//! [`ModelError::InField`] is part of the message and not exposed again as a
//! `source()`, so error-chain printers do not repeat it.

use thiserror::Error;

/// What went wrong while reading a quantity or a stored Kubernetes object.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum ModelError {
    /// A string is not a Kubernetes quantity at all (grammar of apimachinery `resource.ParseQuantity`).
    #[error("{input:?} is not a quantity ({expected})")]
    NotAQuantity {
        /// The string as found.
        input: String,
        /// What the parser expected at the point it gave up.
        expected: String,
    },
    /// A well-formed quantity that cannot be used here: negative where only
    /// non-negative amounts make sense, or too large for 64 bits.
    #[error("{input:?} is out of range: {reason}")]
    QuantityOutOfRange {
        /// The string as found.
        input: String,
        /// Why it cannot be used.
        reason: &'static str,
    },
    /// A field of a stored object has a value of the wrong JSON type or form.
    #[error("{object}: {field}: {problem}")]
    BadField {
        /// The object, e.g. `pod default/web-0` or `node node-1`.
        object: String,
        /// The JSON path of the field, e.g. `spec.priority`.
        field: String,
        /// What is wrong with the value and what was expected.
        problem: String,
    },
    /// A value error (for example a bad quantity) found at a field of a stored object.
    #[error("{object}: {field}: {error}")]
    InField {
        /// The object, e.g. `pod default/web-0` or `node node-1`.
        object: String,
        /// The JSON path of the field, e.g. `spec.containers[1].resources.requests.cpu`.
        field: String,
        /// The value error; its text is part of this error's message.
        error: Box<ModelError>,
    },
    /// A field every object of this kind must have is missing or null.
    #[error("{object}: {field} is missing")]
    MissingField {
        /// The object as far as it could be named.
        object: String,
        /// The JSON path of the missing field.
        field: String,
    },
    /// The JSON value handed in is not a JSON object.
    #[error("expected a {expected} object, got {found}")]
    NotAnObject {
        /// The kind that was expected (`Pod`, `Node`).
        expected: &'static str,
        /// A short description of what was found instead.
        found: String,
    },
}
