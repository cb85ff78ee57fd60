//! Who may use the server. A local server is reachable by every web page the
//! user's browser shows, and a browser lets any page open a WebSocket to
//! 127.0.0.1; what stops a foreign page is the `Origin` header the browser
//! adds to the upgrade, which a page cannot forge. DNS rebinding (a foreign
//! name that resolves to 127.0.0.1) is stopped by the `Host` header: only
//! the names this server is reached by are answered.
//!
//! - `Host` must be given once and name this machine's loopback
//!   (`localhost`, `127.x.y.z`, `[::1]`), the address the server listens
//!   on, or a host of an allowed origin; every request, page and socket
//!   alike. A request target written out with a host must name one of them
//!   too.
//! - A WebSocket upgrade with an `Origin` must come from the page's own
//!   origin (`http://` one of those hosts, with the server's port) or from
//!   one allowed with `--allow-origin`. Programs that are not browsers send
//!   no `Origin` and are let in: no web page can send without one.

use std::net::{IpAddr, SocketAddr};

use axum::http::header::{HOST, ORIGIN};
use axum::http::{HeaderMap, Uri};

/// The hosts and origins this server answers.
#[derive(Clone, Debug)]
pub struct Access {
    /// Host names and addresses, lowercase, without port or brackets.
    hosts: Vec<String>,
    port: u16,
    /// Origins allowed on the command line, lowercase, without a trailing `/`.
    origins: Vec<String>,
}

/// Splits `host[:port]` (with `[v6]` in brackets) into lowercase host and port.
fn split_host(text: &str) -> Option<(String, Option<u16>)> {
    let text = text.trim().to_ascii_lowercase();
    if let Some(rest) = text.strip_prefix('[') {
        let (host, after) = rest.split_once(']')?;
        let port = match after.strip_prefix(':') {
            Some(port) => Some(port.parse().ok()?),
            None if after.is_empty() => None,
            None => return None,
        };
        return Some((host.to_string(), port));
    }
    match text.rsplit_once(':') {
        Some((host, port)) if !host.contains(':') => {
            Some((host.to_string(), Some(port.parse().ok()?)))
        }
        Some(_) => None,
        None => Some((text, None)),
    }
}

fn is_loopback(host: &str) -> bool {
    host == "localhost"
        || host
            .parse::<IpAddr>()
            .is_ok_and(|address| address.is_loopback())
}

impl Access {
    /// The access of a server listening on `address` (its real port, after
    /// binding) with the origins `allowed` by the command line, each
    /// `http://HOST[:PORT]` or `https://…`.
    pub fn new(address: SocketAddr, allowed: &[String]) -> Result<Access, String> {
        let mut hosts = Vec::new();
        if !address.ip().is_unspecified() {
            hosts.push(address.ip().to_string());
        }
        let mut origins = Vec::new();
        for origin in allowed {
            let normal = origin.trim().trim_end_matches('/').to_ascii_lowercase();
            let Some(rest) = normal
                .strip_prefix("http://")
                .or_else(|| normal.strip_prefix("https://"))
            else {
                return Err(format!(
                    "--allow-origin {origin:?}: expected http://HOST[:PORT] or https://HOST[:PORT]"
                ));
            };
            let Some((host, _)) = split_host(rest).filter(|(host, _)| !host.is_empty()) else {
                return Err(format!("--allow-origin {origin:?}: no host name in it"));
            };
            hosts.push(host);
            origins.push(normal);
        }
        Ok(Access {
            hosts,
            port: address.port(),
            origins,
        })
    }

    fn host_allowed(&self, host: &str) -> bool {
        is_loopback(host) || self.hosts.iter().any(|allowed| allowed == host)
    }

    /// Checks the `Host` header of any request: exactly one, naming this
    /// server (of two, a proxy and the server could each read another).
    pub fn check_host(&self, headers: &HeaderMap) -> Result<(), String> {
        let mut given = headers.get_all(HOST).iter();
        let (Some(value), None) = (given.next(), given.next()) else {
            return Err(match headers.get(HOST) {
                None => "a request without a Host header".into(),
                Some(_) => "a request with more than one Host header".into(),
            });
        };
        let text = value
            .to_str()
            .map_err(|_| "a Host header that is not text".to_string())?;
        self.check_named_host(text, "Host")
    }

    /// Checks a whole request: its `Host` header, and the host its target
    /// names when it is written out (`GET http://HOST/ HTTP/1.1`), which
    /// must name this server too.
    pub fn check_request(&self, headers: &HeaderMap, target: &Uri) -> Result<(), String> {
        self.check_host(headers)?;
        match target.authority() {
            Some(authority) => self.check_named_host(authority.as_str(), "request target"),
            None => Ok(()),
        }
    }

    fn check_named_host(&self, text: &str, what: &str) -> Result<(), String> {
        match split_host(text) {
            Some((host, _)) if self.host_allowed(&host) => Ok(()),
            _ => Err(format!(
                "this server answers requests to its own address only ({what} {:?}); \
                 start it with --allow-origin to serve another name",
                text.chars().take(80).collect::<String>()
            )),
        }
    }

    /// Checks a WebSocket upgrade: its `Host`, and its `Origin` if any.
    pub fn check_upgrade(&self, headers: &HeaderMap) -> Result<(), String> {
        self.check_host(headers)?;
        let Some(origin) = headers.get(ORIGIN) else {
            return Ok(());
        };
        let origin = origin
            .to_str()
            .map_err(|_| "an Origin header that is not text".to_string())?;
        let normal = origin.trim().trim_end_matches('/').to_ascii_lowercase();
        if self.origins.contains(&normal) {
            return Ok(());
        }
        let own = normal
            .strip_prefix("http://")
            .and_then(split_host)
            .is_some_and(|(host, port)| {
                self.host_allowed(&host) && port.unwrap_or(80) == self.port
            });
        if own {
            Ok(())
        } else {
            Err(format!(
                "a page from {:?} may not use this server (only its own page, and origins given with --allow-origin)",
                origin.chars().take(80).collect::<String>()
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn headers(host: Option<&str>, origin: Option<&str>) -> HeaderMap {
        let mut map = HeaderMap::new();
        if let Some(host) = host {
            map.insert(HOST, HeaderValue::from_str(host).unwrap());
        }
        if let Some(origin) = origin {
            map.insert(ORIGIN, HeaderValue::from_str(origin).unwrap());
        }
        map
    }

    #[test]
    fn only_the_pages_own_origin_and_loopback_names_are_let_in() {
        let access = Access::new("127.0.0.1:8080".parse().unwrap(), &[]).unwrap();
        for (host, origin) in [
            ("127.0.0.1:8080", Some("http://127.0.0.1:8080")),
            ("localhost:8080", Some("http://localhost:8080")),
            ("[::1]:8080", Some("http://[::1]:8080")),
            ("127.0.0.1:8080", None),
            ("LOCALHOST:8080", Some("http://LocalHost:8080/")),
        ] {
            assert!(
                access.check_upgrade(&headers(Some(host), origin)).is_ok(),
                "{host} {origin:?}"
            );
        }
        for (host, origin) in [
            (Some("127.0.0.1:8080"), Some("http://evil.example")),
            (Some("127.0.0.1:8080"), Some("null")),
            (Some("127.0.0.1:8080"), Some("http://127.0.0.1:9999")),
            (Some("127.0.0.1:8080"), Some("https://127.0.0.1:8080")),
            (
                Some("127.0.0.1:8080"),
                Some("http://127.0.0.1.evil.example:8080"),
            ),
            // DNS rebinding: a foreign name resolved to 127.0.0.1.
            (Some("evil.example:8080"), Some("http://evil.example:8080")),
            (Some("evil.example:8080"), None),
            (None, None),
        ] {
            assert!(
                access.check_upgrade(&headers(host, origin)).is_err(),
                "{host:?} {origin:?}"
            );
        }
        assert!(
            access
                .check_host(&headers(Some("evil.example"), None))
                .is_err()
        );
        assert!(
            access
                .check_host(&headers(Some("127.0.0.1:8080"), None))
                .is_ok()
        );
        // Two Host headers: refused, whichever comes first.
        let mut twice = headers(Some("127.0.0.1:8080"), None);
        twice.append(HOST, HeaderValue::from_static("evil.example"));
        let err = access.check_host(&twice).unwrap_err();
        assert!(err.contains("more than one Host"), "{err}");
        // A target that names another host.
        let own = headers(Some("127.0.0.1:8080"), None);
        let foreign: Uri = "http://evil.example/".parse().unwrap();
        let err = access.check_request(&own, &foreign).unwrap_err();
        assert!(err.contains("request target"), "{err}");
        let local: Uri = "http://127.0.0.1:8080/".parse().unwrap();
        assert!(access.check_request(&own, &local).is_ok());
        assert!(access.check_request(&own, &"/".parse().unwrap()).is_ok());
    }

    #[test]
    fn allowed_origins_and_a_listening_address_add_their_hosts() {
        let access = Access::new(
            "0.0.0.0:8080".parse().unwrap(),
            &["http://board.lan:8080".into()],
        )
        .unwrap();
        assert!(
            access
                .check_upgrade(&headers(
                    Some("board.lan:8080"),
                    Some("http://board.lan:8080")
                ))
                .is_ok()
        );
        assert!(
            access
                .check_host(&headers(Some("other.lan:8080"), None))
                .is_err()
        );
        let bound = Access::new("192.168.1.5:8080".parse().unwrap(), &[]).unwrap();
        assert!(
            bound
                .check_upgrade(&headers(
                    Some("192.168.1.5:8080"),
                    Some("http://192.168.1.5:8080")
                ))
                .is_ok()
        );
        assert!(Access::new("127.0.0.1:1".parse().unwrap(), &["ftp://x".into()]).is_err());
        assert!(Access::new("127.0.0.1:1".parse().unwrap(), &["http://".into()]).is_err());
    }
}
