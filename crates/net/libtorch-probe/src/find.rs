// Shared by this crate's build script (which runs before torch-sys's) and its
// library (which sumito-net's build script uses).

use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;

/// What to do when libtorch is missing.
pub const SETUP_HINT: &str = "run scripts/setup-libtorch.sh (CPU) or scripts/setup-libtorch.sh --cuda, \
     or point LIBTORCH at a libtorch 2.13.0 folder (holding include/ and lib/)";

/// Environment variables that decide where libtorch is (for
/// `cargo:rerun-if-env-changed`).
pub const LIBTORCH_VARIABLES: [&str; 4] = [
    "LIBTORCH",
    "LIBTORCH_LIB",
    "LIBTORCH_USE_PYTORCH",
    "VIRTUAL_ENV",
];

/// The lib folder torch-sys will link against, found the way torch-sys finds
/// it, after checking that it holds libtorch; the error says what to run.
pub fn libtorch_lib_dir() -> Result<PathBuf, String> {
    let lib_dir = locate()?;
    if lib_dir.join("libtorch_cpu.so").is_file() {
        Ok(lib_dir)
    } else {
        Err(format!(
            "libtorch not found at {}: {SETUP_HINT}",
            lib_dir.display()
        ))
    }
}

fn locate() -> Result<PathBuf, String> {
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
            .map_err(|err| {
                format!("LIBTORCH_USE_PYTORCH is set but `{python}` does not run ({err})")
            })?;
        if !output.status.success() {
            return Err(format!(
                "LIBTORCH_USE_PYTORCH is set but `{python}` cannot import torch:\n{}\n{SETUP_HINT}",
                String::from_utf8_lossy(&output.stderr)
            ));
        }
        return Ok(PathBuf::from(
            String::from_utf8_lossy(&output.stdout).trim(),
        ));
    }
    if let Some(lib) = env::var_os("LIBTORCH_LIB") {
        return Ok(PathBuf::from(lib).join("lib"));
    }
    match env::var_os("LIBTORCH") {
        Some(root) => Ok(PathBuf::from(root).join("lib")),
        None if Path::new("/usr/lib/libtorch.so").exists() => Ok(PathBuf::from("/usr/lib")),
        None => Err(format!(
            "LIBTORCH is not set and no libtorch is installed in /usr/lib: {SETUP_HINT}"
        )),
    }
}
