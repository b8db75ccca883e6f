//! The server's settings: limits with safe defaults, the Origin allow-list and the protocol
//! versions it accepts in `MCP-Protocol-Version`.

use std::time::Duration;

/// Every size, count and time limit of the server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// Largest POST body; a larger one gets 413 (from `Content-Length` alone when declared).
    pub max_body_bytes: usize,
    /// Live sessions; an `initialize` that would open one more gets 503.
    pub max_sessions: usize,
    /// A session that sees no request and has no open stream for this long is ended.
    pub idle_timeout: Duration,
    /// Deadline for reading one request's header, and for a keep-alive connection to start
    /// its next request.
    pub header_timeout: Duration,
    /// Deadline for reading one request's body.
    pub body_timeout: Duration,
    /// HTTP connections open at once; one more is closed on accept.
    pub max_connections: usize,
    /// Messages queued for one session's GET stream while none is open (or while it is
    /// slow); past this the oldest message is dropped, with a warning.
    pub max_queued: usize,
    /// Requests of one session waiting for their answers; one more gets 429.
    pub max_in_flight: usize,
    /// Interval between keep-alive comments on an idle SSE stream.
    pub keep_alive: Duration,
    /// Events each SSE stream keeps after writing them, for replay to a client resuming
    /// with `Last-Event-ID` (events written to a connection that broke may be lost).
    pub replay_events: usize,
    /// POST streams of one session whose connection went away before their response,
    /// kept for resumption; past this the oldest is dropped.
    pub max_parked_streams: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_body_bytes: 4 * 1024 * 1024,
            max_sessions: 1024,
            idle_timeout: Duration::from_secs(30 * 60),
            header_timeout: Duration::from_secs(10),
            body_timeout: Duration::from_secs(30),
            max_connections: 1024,
            max_queued: 1024,
            max_in_flight: 256,
            keep_alive: Duration::from_secs(15),
            replay_events: 64,
            max_parked_streams: 16,
        }
    }
}

/// Which `Origin` headers the server accepts (a request without one is accepted: it does
/// not come from a browser page, so DNS rebinding does not apply).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origins {
    /// `http(s)://localhost`, `127.0.0.1` and `[::1]`, on any port: the default, which stops
    /// a web page from another host reaching a local server through DNS rebinding.
    Loopback,
    /// Exactly these origins (scheme, host and port, as browsers send them).
    List(Vec<String>),
    /// Any origin: only behind a proxy that checks it, or with authentication.
    Any,
}

impl Origins {
    /// Whether `origin` (the header's value) may reach the server.
    pub fn allows(&self, origin: &str) -> bool {
        match self {
            Origins::Any => true,
            Origins::List(list) => list.iter().any(|o| o.eq_ignore_ascii_case(origin)),
            Origins::Loopback => origin
                .strip_prefix("http://")
                .or_else(|| origin.strip_prefix("https://"))
                .is_some_and(is_loopback_host),
        }
    }
}

/// Which `Host` headers the server accepts: the second half of the DNS rebinding defence
/// (a rebound name reaches the server with the attacker's host name in `Host`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Hosts {
    /// `localhost`, `127.0.0.1` and `[::1]`, on any port: the default, for a server bound
    /// to loopback. A server reachable by other names must list them.
    Loopback,
    /// Exactly these `Host` values (host, and port when not the scheme's default).
    List(Vec<String>),
    /// Any host.
    Any,
}

impl Hosts {
    /// Whether `host` (the header's value) names this server.
    pub fn allows(&self, host: &str) -> bool {
        match self {
            Hosts::Any => true,
            Hosts::List(list) => list.iter().any(|h| h.eq_ignore_ascii_case(host)),
            Hosts::Loopback => is_loopback_host(host),
        }
    }
}

/// `host[:port]` naming the loopback interface.
fn is_loopback_host(rest: &str) -> bool {
    let host = if let Some(v6) = rest.strip_prefix('[') {
        match v6.split_once(']') {
            Some((h, port)) if port.is_empty() || is_port(port) => return h == "::1",
            _ => return false,
        }
    } else {
        match rest.split_once(':') {
            Some((h, port)) if is_port(port) => h,
            Some(_) => return false,
            None => rest,
        }
    };
    host.eq_ignore_ascii_case("localhost") || host == "127.0.0.1"
}

fn is_port(s: &str) -> bool {
    s.strip_prefix(':').unwrap_or(s).parse::<u16>().is_ok()
}

/// The MCP protocol versions whose Streamable HTTP rules this transport follows.
pub const PROTOCOL_VERSIONS: &[&str] = &["2025-11-25", "2025-06-18", "2025-03-26"];

/// How the server behaves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerConfig {
    /// The MCP endpoint's path (the one URL of the transport).
    pub path: String,
    pub limits: Limits,
    pub origins: Origins,
    /// Accepted `Host` headers; another gets 403. A request without one (HTTP/1.0) passes.
    pub hosts: Hosts,
    /// Accepted values of `MCP-Protocol-Version`; any other gets 400. A request without the
    /// header is accepted (the spec then assumes 2025-03-26 or the negotiated version).
    pub protocol_versions: Vec<String>,
    /// Whether GET opens the session's server-to-client stream; `false` answers GET with 405.
    pub standalone_stream: bool,
    /// The `retry` (reconnection delay) of the priming event that opens a POST's SSE stream
    /// for clients of 2025-11-25 or later; `None` sends the priming event without one.
    pub retry: Option<Duration>,
    /// How long a request's answer may take to be sent as one `application/json` body; a
    /// slower one is answered with an SSE stream (keep-alives, then the response), so that
    /// a long call does not look like a dead connection to the client.
    pub json_wait: Duration,
    /// When set, every request must carry `Authorization: Bearer <token>`; others get 401.
    /// `None` (the default) asks for nothing: fine on loopback, not on a network.
    pub token: Option<String>,
}

impl Default for ServerConfig {
    fn default() -> Self {
        Self {
            path: "/mcp".to_owned(),
            limits: Limits::default(),
            origins: Origins::Loopback,
            hosts: Hosts::Loopback,
            protocol_versions: PROTOCOL_VERSIONS.iter().map(|v| (*v).to_owned()).collect(),
            standalone_stream: true,
            retry: Some(Duration::from_secs(1)),
            json_wait: Duration::from_secs(5),
            token: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_origins() {
        for ok in [
            "http://localhost",
            "http://localhost:3000",
            "https://127.0.0.1:8443",
            "http://[::1]:9",
            "http://LOCALHOST",
        ] {
            assert!(Origins::Loopback.allows(ok), "{ok}");
        }
        for bad in [
            "http://evil.example",
            "http://localhost.evil.example",
            "http://127.0.0.1.nip.io",
            "http://localhost:99999",
            "http://[::2]",
            "file://localhost",
            "null",
        ] {
            assert!(!Origins::Loopback.allows(bad), "{bad}");
        }
        assert!(Hosts::Loopback.allows("127.0.0.1:8080"));
        assert!(Hosts::Loopback.allows("localhost"));
        assert!(!Hosts::Loopback.allows("evil.example.com:8080"));
        assert!(Hosts::List(vec!["mcp.example:443".into()]).allows("MCP.example:443"));
    }
}
