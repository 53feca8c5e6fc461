//! What the args tests of the plugins share: a one-plugin policy, reading
//! args from YAML text, the upstream validation tables' run and count, and
//! the read-time refusal of a label selector requirement without a key.

use serde_yaml::Value;

use crate::policy::reader::Obj;
use crate::policy::{Policy, PolicyError};

/// A v1alpha2 policy with one profile `p` enabling `plugin` at `point`
/// (`deschedule`, `balance`) with `args` (YAML lines indented under the
/// pluginConfig entry, e.g. `"    args:\n      k: v\n"`, or empty).
pub(crate) fn one_plugin_policy(plugin: &str, point: &str, args: &str) -> String {
    format!(
        "apiVersion: descheduler/v1alpha2\nkind: DeschedulerPolicy\nprofiles:\n- name: p\n  pluginConfig:\n  - name: {plugin}\n{args}  plugins:\n    {point}:\n      enabled: [{plugin}]\n"
    )
}

/// Reads args with `read` from the YAML mapping `yaml`; panics when it is
/// refused.
pub(crate) fn read_yaml<A>(yaml: &str, read: impl Fn(Option<&Obj<'_>>) -> Result<A, PolicyError>) -> A {
    let v: Value = serde_yaml::from_str(yaml).expect("yaml");
    read(Some(&Obj::new(&v, "args").expect("mapping"))).expect("reads")
}

/// Runs an upstream validation table: each `(name, args, wanted error)`
/// with `args = None` is a case kdrift skips (said in the table); prints
/// `upstream vectors LABEL validation: N ported, M passed, K skipped`.
pub(crate) fn validation_vectors<A>(
    label: &str,
    cases: &[(&str, Option<A>, Option<&str>)],
    validate: impl Fn(&A) -> Result<(), String>,
) {
    let (mut ported, mut passed, mut skipped) = (0, 0, 0);
    for (name, args, want) in cases {
        let Some(args) = args else {
            skipped += 1;
            continue;
        };
        ported += 1;
        assert_eq!(validate(args).err().as_deref(), *want, "{name}");
        passed += 1;
    }
    println!("upstream vectors {label} validation: {ported} ported, {passed} passed, {skipped} skipped");
}

/// Upstream's "invalid label selector" case: kdrift refuses a requirement
/// without a key when reading, naming the field path.
pub(crate) fn selector_without_key_is_refused(plugin: &str, point: &str) {
    let yaml =
        one_plugin_policy(plugin, point, "    args:\n      labelSelector: {matchExpressions: [{operator: In}]}\n");
    let err = Policy::from_yaml(&yaml).expect_err("refused");
    assert_eq!(err.to_string(), "profiles[0].pluginConfig[0].args.labelSelector.matchExpressions[0].key: is required");
}

/// Reads args with `read` from an already parsed mapping (what `to_value`
/// wrote, to check the round trip).
pub(crate) fn read_value<A>(
    v: &Value,
    read: impl Fn(Option<&Obj<'_>>) -> Result<A, PolicyError>,
) -> Result<A, PolicyError> {
    read(Some(&Obj::new(v, "args").expect("mapping")))
}
