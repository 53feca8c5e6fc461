//! Build script shared by `kdrift-tests`, `kdrift-analyze` (their
//! Cargo.toml name this file as `build`) and `kdrift` (its `cli/build.rs`
//! runs this one first): tells the tests whether
//! `../shared/fixtures/real` (the real data next to the checkout) is present.
//! When it is absent (a clone elsewhere), tests over real data are compiled
//! as `#[ignore]`d, so cargo's summary shows them as ignored instead of
//! passing silently. `KDRIFT_REAL_FIXTURES` names the directory instead,
//! for a checkout that is not next to it (a git worktree elsewhere).

/// Says whether the real data is present (`cfg(kdrift_no_real_fixtures)` when not).
pub fn main() {
    println!("cargo::rustc-check-cfg=cfg(kdrift_no_real_fixtures)");
    println!("cargo::rerun-if-env-changed=KDRIFT_REAL_FIXTURES");
    let manifest = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| ".".into());
    let real = match std::env::var_os("KDRIFT_REAL_FIXTURES") {
        Some(dir) => std::path::PathBuf::from(dir),
        None => std::path::Path::new(&manifest).join("../../shared/fixtures/real"),
    };
    println!("cargo::rerun-if-changed={}", real.display());
    println!("cargo::rerun-if-changed=../tests/build.rs");
    if !real.is_dir() {
        println!("cargo::rustc-cfg=kdrift_no_real_fixtures");
    }
}
