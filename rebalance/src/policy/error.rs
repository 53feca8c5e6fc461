//! Errors of reading and validating a descheduler policy.
//!
//! Three kinds, because a caller reacts differently to each: the text is not
//! YAML at all; a field has the wrong shape (or is unknown — kdrift rejects
//! unknown fields of the sections it models, naming the full path); or the
//! policy is well-formed but descheduler itself would refuse it, in which case
//! the message is descheduler's own, aggregated the way it prints it.

use thiserror::Error;

/// What is wrong with a policy file.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum PolicyError {
    /// The text is not YAML (the parser's message, with line and column).
    #[error("not valid YAML: {0}")]
    Yaml(String),
    /// A field has the wrong type or shape, is unknown, or is required and
    /// missing. `path` is the field path from the document root, e.g.
    /// `profiles[0].pluginConfig[1].args.thresholds.cpu` (prefixed with
    /// `deschedulerPolicy.` for a Helm values file).
    #[error("{path}: {problem}")]
    Field {
        /// The field path.
        path: String,
        /// What is wrong and what was expected.
        problem: String,
    },
    /// Descheduler's validation rejects the policy. Each entry is one error of
    /// descheduler v0.36 `validateDeschedulerConfiguration`
    /// (`in profile NAME: <plugin message>`); the display joins them like
    /// apimachinery `utilerrors.NewAggregate`: one error alone, several as
    /// `[a, b]`, duplicates dropped.
    #[error("{}", aggregate(.0))]
    Invalid(Vec<String>),
    /// The policy could not be written as YAML (should not happen).
    #[error("cannot write the policy as YAML: {0}")]
    Write(String),
}

impl PolicyError {
    /// A [`PolicyError::Field`] for `path`.
    pub(crate) fn field(path: &str, problem: impl Into<String>) -> PolicyError {
        PolicyError::Field { path: path.to_string(), problem: problem.into() }
    }
}

/// `Ok` when `errors` is empty, else their [`aggregate`] — how every
/// v0.36 `Validate…Args` returns (`utilerrors.NewAggregate`).
pub(crate) fn validated(errors: &[String]) -> Result<(), String> {
    if errors.is_empty() {
        Ok(())
    } else {
        Err(aggregate(errors))
    }
}

/// Joins messages like apimachinery `utilerrors.NewAggregate(errs).Error()`:
/// a single message as is; otherwise the distinct messages, in order, joined
/// with `, ` inside `[` `]`. Empty input gives an empty string.
pub fn aggregate(messages: &[String]) -> String {
    if messages.len() == 1 {
        return messages[0].clone();
    }
    let mut seen: Vec<&str> = Vec::new();
    for m in messages {
        if !seen.contains(&m.as_str()) {
            seen.push(m);
        }
    }
    match seen.len() {
        0 => String::new(),
        1 => seen[0].to_string(),
        _ => format!("[{}]", seen.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aggregate_like_apimachinery() {
        assert_eq!(aggregate(&[]), "");
        assert_eq!(aggregate(&["a".into()]), "a");
        assert_eq!(aggregate(&["a".into(), "b".into()]), "[a, b]");
        assert_eq!(aggregate(&["a".into(), "a".into()]), "a");
        assert_eq!(aggregate(&["a".into(), "b".into(), "a".into()]), "[a, b]");
    }
}
