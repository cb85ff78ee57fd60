//! `sumito` hands a network command to `sumito-torch` by executing it in its
//! own place (the same process id, so signals, exit status and the terminal
//! are the command's own) with the same arguments, the OpenMP settings libgomp
//! must start with, and the build it expects.

use std::ffi::OsString;
use std::path::PathBuf;

/// The binary that runs the network commands, installed beside `sumito`.
pub const TORCH_BINARY: &str = "sumito-torch";

/// Environment variable by which `sumito` tells `sumito-torch` which build
/// handed it the command: both must come from one build, since they share
/// the command line.
pub const BUILD_ID_VARIABLE: &str = "SUMITO_BUILD_ID";

/// This build's identity (set by the package's build script whenever the
/// command line's sources change).
pub const BUILD_ID: &str = env!("SUMITO_BUILD_ID");

/// Where `sumito-torch` must be: beside the running `sumito`.
pub fn torch_binary_path() -> anyhow::Result<PathBuf> {
    let program = std::env::current_exe()
        .map_err(|err| anyhow::anyhow!("cannot tell where sumito is installed: {err}"))?;
    let dir = program
        .parent()
        .ok_or_else(|| anyhow::anyhow!("{} has no folder", program.display()))?;
    Ok(dir.join(format!("{TORCH_BINARY}{}", std::env::consts::EXE_SUFFIX)))
}

/// Executes `sumito-torch` with `args` (the command line after the program
/// name). Returns only if that fails, with the reason and what to run.
pub fn exec_torch(args: impl IntoIterator<Item = OsString>) -> anyhow::Error {
    let path = match torch_binary_path() {
        Ok(path) => path,
        Err(err) => return err,
    };
    if !path.is_file() {
        return missing_torch_binary(&path);
    }
    let mut command = std::process::Command::new(&path);
    command
        .args(args)
        .envs(crate::openmp::missing_variables())
        .env(BUILD_ID_VARIABLE, BUILD_ID);
    let err = replace_process(&mut command);
    anyhow::anyhow!("cannot start {}: {err}", path.display())
}

/// Runs `command` in this process's place; returns only on failure.
#[cfg(unix)]
fn replace_process(command: &mut std::process::Command) -> std::io::Error {
    use std::os::unix::process::CommandExt;
    command.exec()
}

/// Without `exec`: runs `command` and exits with its status.
#[cfg(not(unix))]
fn replace_process(command: &mut std::process::Command) -> std::io::Error {
    match command.status() {
        Ok(status) => std::process::exit(status.code().unwrap_or(1)),
        Err(err) => err,
    }
}

fn missing_torch_binary(path: &std::path::Path) -> anyhow::Error {
    anyhow::anyhow!(
        "this command uses a network, which runs in {TORCH_BINARY}, but {} does not exist. \
         Build both binaries with `cargo build --release` (scripts/train.sh does), or install \
         both with `cargo install --path .`; {TORCH_BINARY} also needs libtorch \
         (scripts/setup-libtorch.sh)",
        path.display()
    )
}

/// In `sumito-torch`: refuses a command handed over by a `sumito` of another
/// build (`given`: the value of [`BUILD_ID_VARIABLE`], if any).
pub fn check_build(given: Option<&std::ffi::OsStr>) -> anyhow::Result<()> {
    match given {
        Some(id) if id != BUILD_ID => anyhow::bail!(
            "{TORCH_BINARY} and sumito come from different builds; rebuild both with \
             `cargo build --release` (`cargo build --bin sumito` alone leaves {TORCH_BINARY} old)"
        ),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_command_from_another_build_is_refused() {
        assert!(check_build(None).is_ok());
        assert!(check_build(Some(BUILD_ID.as_ref())).is_ok());
        let err = check_build(Some("another".as_ref())).unwrap_err();
        assert!(err.to_string().contains("different builds"), "{err}");
    }

    #[test]
    fn the_torch_binary_is_looked_for_beside_this_program() {
        let path = torch_binary_path().unwrap();
        let here = std::env::current_exe().unwrap();
        assert_eq!(path.parent(), here.parent());
        assert!(
            path.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with(TORCH_BINARY)
        );
    }
}
