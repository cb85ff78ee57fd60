//! A headless Chromium driven through chromedriver (WebDriver), for the
//! tests of pages a person reads: both installed by `scripts/test.sh`
//! (Debian's chromium and chromium-driver). [`open_page`] opens a page of
//! `sumito serve` in a browser of its own; [`wait_for`] and [`wait_text`]
//! wait on what a page shows.

use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use fantoccini::{Client, ClientBuilder, Locator};

use super::Scratch;

pub const CHROMEDRIVER: &str = "/usr/bin/chromedriver";
pub const CHROMIUM: &str = "/usr/bin/chromium";

/// chromedriver, killed when dropped.
pub struct Driver {
    child: Child,
    pub port: u16,
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts chromedriver on a free port.
pub fn start_chromedriver() -> Driver {
    assert!(
        std::path::Path::new(CHROMEDRIVER).exists() && std::path::Path::new(CHROMIUM).exists(),
        "{CHROMEDRIVER} and {CHROMIUM} are needed: `bash scripts/test.sh` installs them (Debian's chromium and chromium-driver)"
    );
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let child = Command::new(CHROMEDRIVER)
        .arg(format!("--port={port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "chromedriver did not start");
        std::thread::sleep(Duration::from_millis(50));
    }
    Driver { child, port }
}

/// A browser session of `driver`, `width` × `height` pixels, its profile in
/// `profile`.
pub async fn browser(
    driver: &Driver,
    profile: &std::path::Path,
    width: u32,
    height: u32,
) -> Client {
    let mut caps = serde_json::Map::new();
    caps.insert(
        "goog:chromeOptions".into(),
        serde_json::json!({
            "binary": CHROMIUM,
            "args": [
                "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                format!("--window-size={width},{height}"),
                format!("--user-data-dir={}", profile.display()),
            ],
        }),
    );
    ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
        .capabilities(caps)
        .connect(&format!("http://127.0.0.1:{}", driver.port))
        .await
        .expect("a browser session")
}

/// What a page opened by [`open_page`] needs beside its browser session:
/// its chromedriver and its browser profile, both gone when this is
/// dropped.
pub struct Chromium {
    _driver: Driver,
    _profile: Scratch,
}

/// Opens `url` in a headless Chromium of its own, `width` × `height`
/// pixels with a fresh profile, and waits until the page's status line
/// says `ready` (it is connected and has drawn the server's first state).
/// The browser session and what it needs, to be kept together.
pub async fn open_page(url: &str, width: u32, height: u32, ready: &str) -> (Client, Chromium) {
    // Each page its own profile: tests run side by side in one process.
    static PAGES: AtomicUsize = AtomicUsize::new(0);
    let profile = Scratch::new(&format!(
        "chromium-{}",
        PAGES.fetch_add(1, Ordering::Relaxed)
    ));
    let driver = start_chromedriver();
    let client = browser(&driver, &profile.0, width, height).await;
    client.goto(url).await.unwrap();
    wait_text(&client, "#status", |t| t.contains(ready)).await;
    let chromium = Chromium {
        _driver: driver,
        _profile: profile,
    };
    (client, chromium)
}

/// Polls `found` every 50 ms until it gives a value, for 30 s at most
/// (then the test fails, naming `what` it waited for).
pub async fn wait_for<T, Found: Future<Output = Option<T>>>(
    what: &str,
    mut found: impl FnMut() -> Found,
) -> T {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if let Some(value) = found().await {
            return value;
        }
        assert!(Instant::now() < deadline, "timed out waiting {what}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Waits until `check` on the page's text of `selector` holds.
pub async fn wait_text(client: &Client, selector: &str, check: impl Fn(&str) -> bool) -> String {
    let check = &check;
    wait_for(&format!("on {selector}"), || async move {
        let text = client
            .find(Locator::Css(selector))
            .await
            .ok()?
            .text()
            .await
            .ok()?;
        check(&text).then_some(text)
    })
    .await
}

/// Runs `code` (a script, `return` for a value) in the page; its value.
pub async fn script(client: &Client, code: &str) -> serde_json::Value {
    client.execute(code, vec![]).await.unwrap()
}

/// Sets the `<select>` `selector` finds to `value`, as a person picking it
/// does (its `change` event fires).
pub async fn select(client: &Client, selector: &str, value: &str) {
    let code = format!(
        "const s = document.querySelector('{selector}'); s.value = '{value}'; s.dispatchEvent(new Event('change'));"
    );
    script(client, &code).await;
}

/// WebDriver's codes of the keys the analysis board answers.
pub mod keys {
    pub const LEFT: &str = "\u{e012}";
    pub const UP: &str = "\u{e013}";
    pub const RIGHT: &str = "\u{e014}";
    pub const DOWN: &str = "\u{e015}";
    pub const END: &str = "\u{e010}";
    pub const HOME: &str = "\u{e011}";
}

/// Presses `key` as a person does, on the page (not in a text box).
pub async fn press(client: &Client, key: &str) {
    client
        .find(Locator::Css("body"))
        .await
        .unwrap()
        .send_keys(key)
        .await
        .unwrap();
}
