//! Build script of `kdrift-store`: rebuilds the crate when a file under
//! `queries/` (this package) changes. The SQL is embedded with
//! `include_str!`, and when the SQL lived outside the package cargo recorded
//! such files by their absolute path: after `.ci/run` built a clone of the
//! repository in the shared target directory, a query edited in this
//! checkout left the crate looking fresh, and the binary ran the clone's
//! SQL. `rerun-if-changed` is resolved against this package wherever it is
//! checked out.

fn main() {
    println!("cargo::rerun-if-changed=.");
    println!("cargo::rerun-if-changed=build.rs");
}
