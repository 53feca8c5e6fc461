//! `kubectl kdrift`: the same binary installed (or linked) as
//! `kubectl-kdrift` on the PATH is a kubectl plugin (kubectl runs
//! `kubectl-<name>` for `kubectl <name>`, and krew installs it so, see
//! deploy/krew/kdrift.yaml). Invoked under that name, usage and help lines
//! say `kubectl kdrift`, and completion registers for `kubectl-kdrift`;
//! linked as `kubectl_complete-kdrift`, it completes `kubectl kdrift …`
//! for kubectl's own completion.

use std::path::Path;

/// The file name kubectl runs for `kubectl kdrift`.
pub const PLUGIN_BIN: &str = "kubectl-kdrift";

/// The file name kubectl runs to complete `kubectl kdrift …` (kubectl
/// 1.26+: `kubectl_complete-<plugin>` on the PATH): a link to the same
/// binary ([`crate::completion::kubectl_complete`]).
pub const COMPLETER_BIN: &str = "kubectl_complete-kdrift";

/// True when `argv0` names kubectl's completer for the plugin (`kubectl_complete-kdrift`).
pub fn is_completer(argv0: &Path) -> bool {
    argv0.file_stem().and_then(|s| s.to_str()) == Some(COMPLETER_BIN)
}

/// The binary's name as invoked (`argv[0]`'s file name): `kubectl-kdrift`
/// for the plugin, else `kdrift`.
pub fn bin() -> &'static str {
    let argv0 = std::env::args_os().next().unwrap_or_default();
    if is_plugin(Path::new(&argv0)) {
        PLUGIN_BIN
    } else {
        "kdrift"
    }
}

/// True when `argv0` names the plugin (`kubectl-kdrift`, with any directory or `.exe`).
pub fn is_plugin(argv0: &Path) -> bool {
    argv0.file_stem().and_then(|s| s.to_str()) == Some(PLUGIN_BIN)
}

/// What usage and help lines call the command: `kubectl kdrift` for the plugin, else `kdrift`.
pub fn usage_name() -> &'static str {
    if bin() == PLUGIN_BIN {
        "kubectl kdrift"
    } else {
        "kdrift"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_plugin_is_recognised_by_its_file_name() {
        assert!(is_plugin(Path::new("/usr/local/bin/kubectl-kdrift")));
        assert!(is_plugin(Path::new("kubectl-kdrift.exe")));
        assert!(!is_plugin(Path::new("/usr/local/bin/kdrift")));
        assert!(!is_plugin(Path::new("kubectl-kdrift2")));
        assert!(is_completer(Path::new("/home/u/bin/kubectl_complete-kdrift")));
        assert!(!is_completer(Path::new("kubectl-kdrift")));
    }
}
