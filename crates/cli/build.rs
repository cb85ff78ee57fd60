//! Gives both binaries of this package one build identity, so that `sumito`
//! can tell a `sumito-torch` left from another build (crates/cli/handoff.rs).
//! It changes whenever the command line's sources change.

fn main() {
    println!("cargo:rerun-if-changed=crates/cli");
    println!("cargo:rerun-if-changed=Cargo.toml");
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |since| since.as_nanos());
    println!(
        "cargo:rustc-env=SUMITO_BUILD_ID={}-{now:x}",
        env!("CARGO_PKG_VERSION")
    );
}
