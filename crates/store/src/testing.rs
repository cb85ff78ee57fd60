//! Test helpers for crates that test against a store (feature `testing`):
//! a scratch folder, and a real S3-compatible server on 127.0.0.1.

use std::path::PathBuf;

pub use sumito_fsio::testing::Scratch;

use crate::{Location, Store};

/// An S3-compatible server (`sumito-s3-test-server`, the crate
/// `crates/s3-test-server` that `cargo test --workspace` builds beside the
/// tests) on a free port of 127.0.0.1, serving a scratch folder, stopped
/// when dropped.
#[derive(Debug)]
pub struct S3Server {
    child: std::process::Child,
    pub port: u16,
    pub root: Scratch,
    program: PathBuf,
}

/// The test server's program: `SUMITO_S3_TEST_SERVER`, or the binary in the
/// target folder of the running test (`target/debug/deps/TEST` →
/// `target/debug/sumito-s3-test-server`).
pub fn s3_server_program() -> PathBuf {
    if let Some(program) = std::env::var_os("SUMITO_S3_TEST_SERVER") {
        return PathBuf::from(program);
    }
    let exe = std::env::current_exe().expect("the test's own path");
    let name = format!("sumito-s3-test-server{}", std::env::consts::EXE_SUFFIX);
    exe.ancestors()
        .skip(1)
        .take(2)
        .map(|folder| folder.join(&name))
        .find(|program| program.is_file())
        .unwrap_or_else(|| exe.with_file_name(&name))
}

impl S3Server {
    pub fn start(name: &str) -> S3Server {
        let program = s3_server_program();
        assert!(
            program.is_file(),
            "no S3 test server at {}: `cargo test --workspace` builds it, or `cargo build -p sumito-s3-test-server` (SUMITO_S3_TEST_SERVER names another)",
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
