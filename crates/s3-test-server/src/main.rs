//! `sumito-s3-test-server --port P --access-key K --secret-key S ROOT`:
//! serves the S3 API over the folder ROOT (each sub-folder a bucket) on
//! 127.0.0.1:P until killed. Only for tests and trying runs on object
//! storage by hand: plain HTTP, one access key, no TLS.

use std::path::PathBuf;
use std::process::ExitCode;

use hyper::server::conn::http1;
use hyper_util::rt::TokioIo;
use s3s::auth::SimpleAuth;
use s3s::service::S3ServiceBuilder;
use s3s_fs::FileSystem;

const USAGE: &str =
    "usage: sumito-s3-test-server [--host H] --port P [--access-key K --secret-key S] ROOT";

/// What the command line asks for.
#[derive(Debug)]
struct Settings {
    host: String,
    port: u16,
    credentials: Option<(String, String)>,
    root: PathBuf,
}

fn parse(mut args: impl Iterator<Item = String>) -> Result<Settings, String> {
    let mut host = "127.0.0.1".to_owned();
    let mut port = None;
    let mut access_key = None;
    let mut secret_key = None;
    let mut root = None;
    while let Some(arg) = args.next() {
        let mut value = |name: &str| args.next().ok_or_else(|| format!("{name} needs a value"));
        match arg.as_str() {
            "--host" => host = value("--host")?,
            "--port" => {
                let text = value("--port")?;
                port = Some(
                    text.parse::<u16>()
                        .map_err(|_| format!("--port {text} is not a port number"))?,
                );
            }
            "--access-key" => access_key = Some(value("--access-key")?),
            "--secret-key" => secret_key = Some(value("--secret-key")?),
            flag if flag.starts_with("--") => return Err(format!("unknown option {flag}")),
            _ if root.is_some() => return Err(format!("a second folder {arg}")),
            _ => root = Some(PathBuf::from(arg)),
        }
    }
    let credentials = match (access_key, secret_key) {
        (Some(access), Some(secret)) => Some((access, secret)),
        (None, None) => None,
        _ => return Err("--access-key and --secret-key go together".into()),
    };
    Ok(Settings {
        host,
        port: port.ok_or("--port is missing")?,
        credentials,
        root: root.ok_or("the folder to serve is missing")?,
    })
}

fn main() -> ExitCode {
    let settings = match parse(std::env::args().skip(1)) {
        Ok(settings) => settings,
        Err(problem) => {
            eprintln!("sumito-s3-test-server: {problem}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(err) => {
            eprintln!("sumito-s3-test-server: cannot start the runtime: {err}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(serve(settings)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(problem) => {
            eprintln!("sumito-s3-test-server: {problem}");
            ExitCode::FAILURE
        }
    }
}

async fn serve(settings: Settings) -> Result<(), String> {
    let root = settings.root.display().to_string();
    let files =
        FileSystem::new(&settings.root).map_err(|err| format!("cannot serve {root}: {err:?}"))?;
    let mut service = S3ServiceBuilder::new(files);
    if let Some((access, secret)) = settings.credentials {
        service.set_auth(SimpleAuth::from_single(access, secret));
    }
    let service = service.build();
    let address = format!("{}:{}", settings.host, settings.port);
    let listener = tokio::net::TcpListener::bind(&address)
        .await
        .map_err(|err| format!("cannot listen on {address}: {err}"))?;
    loop {
        // A failed accept (a connection reset before it was taken, too many
        // open files for a moment) ends only that connection.
        let Ok((socket, _)) = listener.accept().await else {
            continue;
        };
        let connection =
            http1::Builder::new().serve_connection(TokioIo::new(socket), service.clone());
        tokio::spawn(async move {
            let _ = connection.await;
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(text: &str) -> impl Iterator<Item = String> {
        text.split_whitespace()
            .map(str::to_owned)
            .collect::<Vec<_>>()
            .into_iter()
    }

    #[test]
    fn the_command_line_reads_every_setting_and_names_what_is_wrong() {
        let settings = parse(args("--port 9000 --access-key k --secret-key s data")).unwrap();
        assert_eq!(settings.host, "127.0.0.1");
        assert_eq!(settings.port, 9000);
        assert_eq!(settings.credentials, Some(("k".into(), "s".into())));
        assert_eq!(settings.root, PathBuf::from("data"));
        assert_eq!(parse(args("data")).unwrap_err(), "--port is missing");
        assert_eq!(
            parse(args("--port 70000 data")).unwrap_err(),
            "--port 70000 is not a port number"
        );
        assert_eq!(
            parse(args("--port 1 --access-key k data")).unwrap_err(),
            "--access-key and --secret-key go together"
        );
        assert_eq!(
            parse(args("--port 1 --tls data")).unwrap_err(),
            "unknown option --tls"
        );
        assert_eq!(
            parse(args("--port 1")).unwrap_err(),
            "the folder to serve is missing"
        );
    }
}
