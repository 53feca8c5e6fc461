//! Build script of `kdrift-ingest`: rebuilds the crate when a file under
//! `queries/` changes. The SQL is embedded with `include_str!` from outside
//! the package, and cargo records such files by their absolute path: after
//! `.ci/run` built a clone of the repository in the shared target directory,
//! a query edited in this checkout left the crate looking fresh, and the
//! binary ran the clone's SQL. `rerun-if-changed` is resolved against this
//! package wherever it is checked out.

fn main() {
    println!("cargo::rerun-if-changed=../queries");
    println!("cargo::rerun-if-changed=build.rs");
}
