//! Test helpers for crates that test against a store (feature `testing`):
//! a scratch folder, and a real S3-compatible server on 127.0.0.1.

use std::path::PathBuf;

pub use sumito_fsio::testing::Scratch;

use crate::{Location, Store};

/// An S3-compatible server (`s3s-fs`, which `scripts/test.sh` installs
/// into `.tools/`) on a free port of 127.0.0.1, serving a scratch folder,
/// stopped when dropped.
#[derive(Debug)]
pub struct S3Server {
    child: std::process::Child,
    pub port: u16,
    pub root: Scratch,
    program: PathBuf,
}

impl S3Server {
    pub fn start(name: &str) -> S3Server {
        let program = std::env::var_os("SUMITO_S3S_FS").map_or_else(
            || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../.tools/s3s-fs/bin/s3s-fs"),
            PathBuf::from,
        );
        assert!(
            program.is_file(),
            "no S3 test server at {}: scripts/test.sh installs it (cargo install s3s-fs --version 0.14.1 --features binary --locked --root .tools/s3s-fs)",
            program.display()
        );
        let root = Scratch::new(&format!("s3-{name}"));
        std::fs::create_dir_all(root.0.join("bucket")).unwrap();
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let child = Self::spawn(&program, port, &root.0);
        S3Server {
            child,
            port,
            root,
            program,
        }
    }

    /// Starts the server on `port` over the folder `root`, and waits until
    /// it answers.
    fn spawn(program: &std::path::Path, port: u16, root: &std::path::Path) -> std::process::Child {
        let child = std::process::Command::new(program)
            .args(["--host", "127.0.0.1", "--port", &port.to_string()])
            .args(["--access-key", "sumito", "--secret-key", "sumito-secret"])
            .arg(root)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                std::time::Instant::now() < deadline,
                "the S3 server did not start"
            );
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        child
    }

    /// Kills the server (an outage: its objects stay in its folder).
    pub fn stop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Starts the server again on the same port and folder.
    pub fn restart(&mut self) {
        self.child = Self::spawn(&self.program, self.port, &self.root.0);
    }

    /// The settings that reach it, as environment variables.
    pub fn settings(&self) -> Vec<(&'static str, String)> {
        vec![
            (
                "AWS_ENDPOINT_URL",
                format!("http://127.0.0.1:{}", self.port),
            ),
            ("AWS_ALLOW_HTTP", "true".into()),
            ("AWS_ACCESS_KEY_ID", "sumito".into()),
            ("AWS_SECRET_ACCESS_KEY", "sumito-secret".into()),
            ("AWS_REGION", "us-east-1".into()),
        ]
    }

    pub fn store(&self, prefix: &str) -> Store {
        let settings = self.settings();
        let settings: Vec<(&str, &str)> = settings.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let location = Location::parse(&format!("s3://bucket/{prefix}")).unwrap();
        Store::open_with(&location, &settings).unwrap()
    }
}

impl Drop for S3Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
