//! The `kdrift` binary's build script: the shared one (`../tests/build.rs`:
//! is the real data present?), then the git commit the binary is built
//! from, for `kdrift version` (`KDRIFT_GIT_COMMIT`, empty outside a git
//! checkout; a build without `.git`, such as a container build, may set
//! `KDRIFT_GIT_COMMIT` itself).

#[path = "../tests/build.rs"]
mod fixtures;

use std::process::Command;

fn main() {
    fixtures::main();
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-env-changed=KDRIFT_GIT_COMMIT");
    let commit = match std::env::var("KDRIFT_GIT_COMMIT") {
        Ok(given) => given,
        Err(_) => git(&["rev-parse", "HEAD"]).unwrap_or_default(),
    };
    println!("cargo::rustc-env=KDRIFT_GIT_COMMIT={commit}");
    // Built again when HEAD moves: HEAD itself (another branch) and the
    // branch's ref (a new commit), or packed-refs when the ref is packed;
    // and HEAD's reflog, which git appends to on every move of HEAD (a
    // commit, checkout, reset or merge), also when the branch's ref was
    // packed at the last build and a commit then wrote it loose (a file
    // not watched: break-it 41 L5 saw a commit reported stale). Only files
    // that exist: a missing one would rerun this every build.
    let (Some(git_dir), Some(common)) =
        (git(&["rev-parse", "--absolute-git-dir"]), git(&["rev-parse", "--path-format=absolute", "--git-common-dir"]))
    else {
        return;
    };
    let git_dir = std::path::Path::new(&git_dir);
    let mut watched = vec![git_dir.join("HEAD"), git_dir.join("logs").join("HEAD")];
    if let Some(reference) = git(&["symbolic-ref", "-q", "HEAD"]) {
        watched.push(std::path::Path::new(&common).join(reference));
    }
    watched.push(std::path::Path::new(&common).join("packed-refs"));
    for path in watched.iter().filter(|p| p.exists()) {
        println!("cargo::rerun-if-changed={}", path.display());
    }
}

/// `git ARGS` in this crate's directory: its trimmed output, `None` when
/// git is absent or fails (not a checkout).
fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    (out.status.success() && !text.trim().is_empty()).then(|| text.trim().to_string())
}
