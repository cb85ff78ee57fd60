//! The built server answers the S3 API over its folder. (This test also
//! makes `cargo test --workspace` build the binary, which the storage tests
//! of other crates start.)

use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use sumito_fsio::testing::Scratch;

#[test]
fn it_lists_the_folders_of_its_root_as_buckets() {
    let root = Scratch::new("s3-test-server");
    std::fs::create_dir_all(root.0.join("bucket-one")).unwrap();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut server = Command::new(env!("CARGO_BIN_EXE_sumito-s3-test-server"))
        .args(["--port", &port.to_string()])
        .arg(&root.0)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut stream = loop {
        match std::net::TcpStream::connect(("127.0.0.1", port)) {
            Ok(stream) => break stream,
            Err(_) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(20)),
            Err(err) => panic!("the server did not start: {err}"),
        }
    };
    // Without keys the server takes anonymous requests: ListBuckets.
    stream
        .write_all(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    let _ = server.kill();
    let _ = server.wait();
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(answer.contains("<Name>bucket-one</Name>"), "{answer}");
}

#[test]
fn a_bad_command_line_is_refused_with_the_usage() {
    let output = Command::new(env!("CARGO_BIN_EXE_sumito-s3-test-server"))
        .arg("--port")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let text = String::from_utf8_lossy(&output.stderr);
    assert!(text.contains("--port needs a value"), "{text}");
    assert!(text.contains("usage: sumito-s3-test-server"), "{text}");
}
