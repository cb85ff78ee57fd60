//! Helpers shared by the end-to-end tests (`mod common;` in each).

pub use sumito_fsio::testing::Scratch;

pub mod browser;
pub mod tmux;

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

/// The first game record (`.txt`, by name) a match wrote into `folder`.
#[allow(dead_code)]
/// The games of `player` in the players' table `sumito arena` prints (the
/// line that starts with its name), or `None` where no line does.
pub fn arena_games_of(output: &str, player: &str) -> Option<u32> {
    output.lines().find_map(|line| {
        let mut words = line.split_whitespace();
        (words.next() == Some(player))
            .then(|| words.next()?.parse().ok())
            .flatten()
    })
}

pub fn first_record(folder: &std::path::Path) -> std::path::PathBuf {
    std::fs::read_dir(folder)
        .unwrap_or_else(|err| panic!("{}: {err}", folder.display()))
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "txt"))
        .min()
        .unwrap_or_else(|| panic!("no game record in {}", folder.display()))
}
