//! Helpers shared by the end-to-end tests (`mod common;` in each).

use std::path::PathBuf;

/// A fresh scratch directory for one test, removed when dropped.
pub struct Scratch(pub PathBuf);

impl Scratch {
    /// `<temp>/sumito-<name>-<pid>`, emptied first.
    pub fn new(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("sumito-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Runs `command` with `input` written to its standard input, to the end;
/// what it printed. (Not every test crate plays through a pipe.)
#[allow(dead_code)]
pub fn feed(command: &mut std::process::Command, input: &str) -> std::process::Output {
    use std::io::Write;
    use std::process::Stdio;
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

/// `program ARGS` fed `input` (see [`feed`]).
#[allow(dead_code)]
pub fn run_with_input(program: &str, args: &[&str], input: &str) -> std::process::Output {
    feed(std::process::Command::new(program).args(args), input)
}
