//! A real terminal for the tests of what a person sees: a tmux session
//! running a command, its screen read and keys typed into it.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

/// A tmux session in `dir` running `command`, ended when dropped.
///
/// Each session has a server of its own (`-L`): when the last session of a
/// shared server ends, the server exits, and a session started at that
/// moment fails ("server exited unexpectedly"), which made the tests that
/// start one terminal after another flaky.
pub struct Tmux {
    name: String,
}

impl Tmux {
    pub fn start(dir: &Path, name: &str, command: &str) -> Tmux {
        let name = format!("{name}-{}", std::process::id());
        let started = tmux(&name)
            .args([
                "new-session",
                "-d",
                "-x",
                "120",
                "-y",
                "50",
                "-s",
                &name,
                "-c",
            ])
            .arg(dir)
            .arg(command)
            .output()
            .unwrap_or_else(|err| {
                panic!("tmux is needed for this test (apt-get install tmux): {err}")
            });
        assert!(
            started.status.success(),
            "tmux new-session failed: {}",
            String::from_utf8_lossy(&started.stderr)
        );
        // The pane stays after the command ends, so that its last screen can be read.
        tmux(&name)
            .args(["set-option", "-t", &name, "remain-on-exit", "on"])
            .status()
            .unwrap();
        Tmux { name }
    }

    /// The screen and its history, with colours (`-e`) if asked.
    pub fn screen(&self, escapes: bool) -> String {
        let mut args = vec!["capture-pane", "-p", "-S", "-300", "-t", &self.name];
        if escapes {
            args.push("-e");
        }
        let output = tmux(&self.name).args(&args).output().unwrap();
        String::from_utf8_lossy(&output.stdout).into_owned()
    }

    /// Waits until the screen shows `text` `count` times.
    pub fn wait_for(&self, text: &str, count: usize) -> String {
        self.wait_until(&format!("{text:?} ({count} times)"), |screen| {
            screen.matches(text).count() >= count
        })
    }

    /// Waits until the screen shows `text` `count` times, or `other`.
    pub fn wait_for_either(&self, text: &str, count: usize, other: &str) -> String {
        self.wait_until(
            &format!("{text:?} ({count} times) or {other:?}"),
            |screen| screen.matches(text).count() >= count || screen.contains(other),
        )
    }

    fn wait_until(&self, what: &str, done: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + Duration::from_secs(120);
        loop {
            let screen = self.screen(false);
            if done(&screen) {
                return screen;
            }
            assert!(
                Instant::now() < deadline,
                "no {what} on the screen:\n{screen}"
            );
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    pub fn type_line(&self, line: &str) {
        let status = tmux(&self.name)
            .args(["send-keys", "-t", &self.name, "-l", line])
            .status()
            .unwrap();
        assert!(status.success());
        tmux(&self.name)
            .args(["send-keys", "-t", &self.name, "Enter"])
            .status()
            .unwrap();
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = tmux(&self.name).arg("kill-server").status();
    }
}

/// A tmux command on the session's own server.
fn tmux(name: &str) -> Command {
    let mut command = Command::new("tmux");
    command.args(["-L", name]);
    command
}
