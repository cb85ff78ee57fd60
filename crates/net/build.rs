//! Finds libtorch before torch-sys tries to compile against it, so that a
//! missing install fails with a message saying what to run, and makes the
//! binaries of this build find libtorch at run time without LD_LIBRARY_PATH.
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
use std::process::Command;

const SETUP_HINT: &str = "run scripts/setup-libtorch.sh (CPU) or scripts/setup-libtorch.sh --cuda, \
     or point LIBTORCH at a libtorch 2.13.0 folder (holding include/ and lib/)";

fn main() {
    for var in [
        "LIBTORCH",
        "LIBTORCH_LIB",
        "LIBTORCH_USE_PYTORCH",
        "VIRTUAL_ENV",
    ] {
        println!("cargo:rerun-if-env-changed={var}");
    }
    let lib_dir = libtorch_lib_dir();
    let cpu_library = lib_dir.join("libtorch_cpu.so");
    if !cpu_library.is_file() {
        panic!(
            "\n\nlibtorch not found at {}: {SETUP_HINT}.\n\n",
            lib_dir.display()
        );
    }
    println!("cargo:rerun-if-changed={}", cpu_library.display());
    link_into_profile_dir(&lib_dir);
    // This package's own tests and examples also get the absolute path, so that
    // they run even when RUSTFLAGS in the shell replaces the configured rpath.
    println!("cargo:rustc-link-arg=-Wl,-rpath,{}", lib_dir.display());

    #[cfg(feature = "cuda")]
    keep_libtorch_cuda(&lib_dir);
}

/// The lib folder torch-sys links against, found the same way torch-sys
/// finds it.
fn libtorch_lib_dir() -> PathBuf {
    if env::var_os("LIBTORCH_USE_PYTORCH").is_some() {
        let python = if env::var_os("VIRTUAL_ENV").is_some() {
            "python"
        } else {
            "python3"
        };
        let output = Command::new(python)
            .args([
                "-c",
                "from torch.utils import cpp_extension; print(cpp_extension.library_paths()[0])",
            ])
            .output()
            .unwrap_or_else(|err| {
                panic!("\n\nLIBTORCH_USE_PYTORCH is set but `{python}` does not run ({err}).\n\n")
            });
        if !output.status.success() {
            panic!(
                "\n\nLIBTORCH_USE_PYTORCH is set but `{python}` cannot import torch:\n{}\n{SETUP_HINT}.\n\n",
                String::from_utf8_lossy(&output.stderr)
            );
        }
        return PathBuf::from(String::from_utf8_lossy(&output.stdout).trim());
    }
    if let Some(lib) = env::var_os("LIBTORCH_LIB") {
        return PathBuf::from(lib).join("lib");
    }
    match env::var_os("LIBTORCH") {
        Some(root) => PathBuf::from(root).join("lib"),
        None if Path::new("/usr/lib/libtorch.so").exists() => PathBuf::from("/usr/lib"),
        None => panic!(
            "\n\nLIBTORCH is not set and no libtorch is installed in /usr/lib: {SETUP_HINT}.\n\n"
        ),
    }
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
        .unwrap_or_else(|err| panic!("cannot create the symlink {}: {err}", link.display()));
}

#[cfg(feature = "cuda")]
fn keep_libtorch_cuda(lib_dir: &Path) {
    if !lib_dir.join("libtorch_cuda.so").is_file() {
        panic!(
            "\n\nthe `cuda` feature needs a CUDA build of libtorch, but {} has no libtorch_cuda.so: \
             run scripts/setup-libtorch.sh --cuda and build with LIBTORCH=$PWD/.libtorch/cuda \
             (see README, \"libtorch and GPU\").\n\n",
            lib_dir.display()
        );
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
