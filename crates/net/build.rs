//! Makes the binaries of this build find libtorch at run time without
//! LD_LIBRARY_PATH. (A missing libtorch has already stopped the build, with a
//! message saying what to run, in the build script of the build-dependency
//! sumito-libtorch-probe, which runs before torch-sys's.)
//!
//! The workspace's `.cargo/config.toml` gives every Linux binary the rpath
//! `$ORIGIN/libtorch:$ORIGIN/../libtorch`; this script puts a `libtorch` symlink
//! to the libtorch lib folder into the profile folder (e.g. target/release) that
//! holds the binaries (target/release/sumito) and the folders of tests and
//! examples (target/release/deps, target/release/examples).
//!
//! With the `cuda` feature it also keeps libtorch_cuda.so linked: rustc links
//! with `--as-needed`, and since no Rust code calls into libtorch_cuda.so the
//! linker would drop it, leaving torch without CUDA at run time (CUDA support
//! registers itself from that library's static initialisers).

use std::env;
use std::path::{Path, PathBuf};

fn main() {
    for variable in sumito_libtorch_probe::LIBTORCH_VARIABLES {
        println!("cargo:rerun-if-env-changed={variable}");
    }
    // The probe's own build script has already stopped a build without
    // libtorch; this repeats the check in case the environment changed.
    let lib_dir =
        sumito_libtorch_probe::libtorch_lib_dir().unwrap_or_else(|message| fail(&message));
    println!(
        "cargo:rerun-if-changed={}",
        lib_dir.join("libtorch_cpu.so").display()
    );
    link_into_profile_dir(&lib_dir);
    // This package's own tests and examples also get the absolute path, so that
    // they run even when RUSTFLAGS in the shell replaces the configured rpath.
    println!("cargo:rustc-link-arg=-Wl,-rpath,{}", lib_dir.display());

    #[cfg(feature = "cuda")]
    keep_libtorch_cuda(&lib_dir);
}

/// Points `<profile dir>/libtorch` at `lib_dir`. OUT_DIR is
/// `<target>/<profile>/build/<package>-<hash>/out`.
fn link_into_profile_dir(lib_dir: &Path) {
    let out_dir = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let build_dir = out_dir.ancestors().nth(2);
    let profile_dir = match build_dir {
        Some(build) if build.file_name().is_some_and(|name| name == "build") => build.parent(),
        _ => None,
    };
    let Some(profile_dir) = profile_dir else {
        println!(
            "cargo:warning=unexpected OUT_DIR layout {}; binaries will need LD_LIBRARY_PATH={}",
            out_dir.display(),
            lib_dir.display()
        );
        return;
    };
    let link = profile_dir.join("libtorch");
    if std::fs::read_link(&link).is_ok_and(|target| target == lib_dir) {
        return;
    }
    // A new symlink renamed over the old one, so that a binary running at the
    // same time never sees the link missing.
    let temporary = profile_dir.join(format!("libtorch.{}.tmp", std::process::id()));
    let _ = std::fs::remove_file(&temporary);
    std::os::unix::fs::symlink(lib_dir, &temporary)
        .and_then(|()| std::fs::rename(&temporary, &link))
        .unwrap_or_else(|err| {
            fail(&format!(
                "cannot create the symlink {}: {err}",
                link.display()
            ))
        });
}

/// Stops the build with `message` (not a panic: a backtrace would bury it).
fn fail(message: &str) -> ! {
    eprintln!("\n{message}.\n");
    std::process::exit(1)
}

#[cfg(feature = "cuda")]
fn keep_libtorch_cuda(lib_dir: &Path) {
    if !lib_dir.join("libtorch_cuda.so").is_file() {
        fail(&format!(
            "the `cuda` feature needs a CUDA build of libtorch, but {} has no libtorch_cuda.so: \
             run scripts/setup-libtorch.sh --cuda and build with LIBTORCH=$PWD/.libtorch/cuda \
             (see README, \"libtorch and GPU\")",
            lib_dir.display()
        ));
    }
    println!("cargo:rerun-if-changed=src/keep_libtorch_cuda.c");
    // Linked whole-archive, so that the object (and its reference into
    // libtorch_cuda.so) is in every binary, before `-ltorch_cuda` on the
    // linker's command line.
    cc::Build::new()
        .file("src/keep_libtorch_cuda.c")
        .link_lib_modifier("+whole-archive")
        .link_lib_modifier("-bundle")
        .compile("sumito_keep_libtorch_cuda");
    println!("cargo:rustc-link-lib=dylib=torch_cuda");
}
