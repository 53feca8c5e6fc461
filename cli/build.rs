//! Build script: tells the binary's end-to-end tests (tests/report_html.rs)
//! whether `../shared/fixtures/real` is present, as tests/build.rs does for
//! the other end-to-end tests: without it, tests over real data are
//! compiled as `#[ignore]`d and cargo's summary shows them as ignored.

fn main() {
    println!("cargo::rustc-check-cfg=cfg(kdrift_no_real_fixtures)");
    let manifest = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| ".".into());
    let real = std::path::Path::new(&manifest).join("../../shared/fixtures/real");
    println!("cargo::rerun-if-changed={}", real.display());
    println!("cargo::rerun-if-changed=build.rs");
    if !real.is_dir() {
        println!("cargo::rustc-cfg=kdrift_no_real_fixtures");
    }
}
