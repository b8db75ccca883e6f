//! One origin and host policy for every HTTP and WebSocket server (the WebSocket skeletons,
//! the HTTP + WebSocket session server and its receivers, Streamable HTTP): which browser
//! pages (`Origin`) and which names of the server (`Host`) may reach it.
//!
//! A web page the user has open can open a WebSocket to any address and post `text/plain`
//! bodies across sites; without this check it could drive a local agent and read its
//! replies (cross-site WebSocket hijacking), or reach it through a rebound DNS name.
//! Browsers always send `Origin` on a WebSocket upgrade and on a cross-site POST, so a
//! request without one does not come from a page and passes.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use axum::Router;
use axum::extract::Request;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

/// Which `Origin` headers a server accepts. `null` (sandboxed frames, `file:` pages,
/// redirects) is refused by every variant: it names no site, so no list can allow it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Origins {
    /// Decided by the address the server is bound to: [`Origins::Loopback`] on a loopback
    /// address, otherwise no browser origin at all (an empty [`Origins::List`]). A router
    /// served by the caller, whose address is unknown, is treated as bound to loopback.
    #[default]
    ByAddress,
    /// `http(s)://localhost`, `127.0.0.0/8` and `[::1]`, on any port: pages served from this
    /// machine only, so a page from another host cannot reach a local server.
    Loopback,
    /// Exactly these origins (scheme, host and port, as browsers send them; compared
    /// without regard to case).
    List(Vec<String>),
    /// Any origin but `null`: only behind a proxy that checks it, or with authentication.
    Any,
}

impl Origins {
    /// Whether `origin` (the header's value) may reach the server, `addr` being where it is
    /// bound (`None`: unknown).
    pub fn allows_at(&self, origin: &str, addr: Option<SocketAddr>) -> bool {
        if origin.trim().eq_ignore_ascii_case("null") {
            return false;
        }
        match self {
            Origins::ByAddress if is_loopback_bind(addr) => Origins::Loopback.allows(origin),
            Origins::ByAddress => false,
            Origins::Any => true,
            Origins::List(list) => list.iter().any(|o| o.eq_ignore_ascii_case(origin)),
            Origins::Loopback => origin
                .strip_prefix("http://")
                .or_else(|| origin.strip_prefix("https://"))
                .is_some_and(is_loopback_host),
        }
    }

    /// [`Origins::allows_at`] for a server bound to loopback.
    pub fn allows(&self, origin: &str) -> bool {
        self.allows_at(origin, None)
    }
}

/// Which `Host` headers a server accepts: the second half of the DNS rebinding defence (a
/// rebound name reaches the server with the attacker's host name in `Host`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Hosts {
    /// Decided by the address the server is bound to: [`Hosts::Loopback`] on a loopback
    /// address, [`Hosts::Any`] otherwise (a server on the network has names this side
    /// cannot know; list them to check them). Unknown address: loopback.
    #[default]
    ByAddress,
    /// `localhost`, `127.0.0.0/8` and `[::1]`, on any port: a server bound to loopback. One
    /// reachable by other names must list them.
    Loopback,
    /// Exactly these `Host` values (host, and port when not the scheme's default).
    List(Vec<String>),
    /// Any host.
    Any,
}

impl Hosts {
    /// Whether `host` (the header's value) names the server bound at `addr`.
    pub fn allows_at(&self, host: &str, addr: Option<SocketAddr>) -> bool {
        match self {
            Hosts::ByAddress if is_loopback_bind(addr) => is_loopback_host(host),
            Hosts::ByAddress | Hosts::Any => true,
            Hosts::List(list) => list.iter().any(|h| h.eq_ignore_ascii_case(host)),
            Hosts::Loopback => is_loopback_host(host),
        }
    }

    /// [`Hosts::allows_at`] for a server bound to loopback.
    pub fn allows(&self, host: &str) -> bool {
        self.allows_at(host, None)
    }
}

/// Both halves of the policy, with the address they are resolved against.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SitePolicy {
    pub origins: Origins,
    pub hosts: Hosts,
    /// Where the server is bound; `None` when unknown (checked as loopback).
    pub addr: Option<SocketAddr>,
}

/// Why a request was refused (the text of the refusal, for the answer and the log).
pub type Refusal = &'static str;

/// Builds the answer to a refused request in the server's own error format.
pub type Refuse = Arc<dyn Fn(Refusal) -> Response + Send + Sync>;

impl SitePolicy {
    pub fn new(origins: Origins, hosts: Hosts, addr: Option<SocketAddr>) -> Self {
        Self {
            origins,
            hosts,
            addr,
        }
    }

    /// `Ok` when a present `Origin` and `Host` are both allowed.
    pub fn check(&self, headers: &HeaderMap) -> Result<(), Refusal> {
        // A header that is not visible ASCII matches nothing.
        let text = |name| {
            headers
                .get(name)
                .map(|v: &HeaderValue| v.to_str().unwrap_or("\u{0}"))
        };
        if text(header::ORIGIN).is_some_and(|o| !self.origins.allows_at(o, self.addr)) {
            return Err("Origin not allowed (cross-site request or DNS rebinding)");
        }
        if text(header::HOST).is_some_and(|h| !self.hosts.allows_at(h, self.addr)) {
            return Err("Host not allowed (DNS rebinding protection)");
        }
        Ok(())
    }

    /// `router` with every request checked first; a refused one gets `refuse`'s answer
    /// (403) and never reaches a route, a WebSocket upgrade included.
    pub fn layer<S>(self, router: Router<S>, refuse: Refuse) -> Router<S>
    where
        S: Clone + Send + Sync + 'static,
    {
        let policy = Arc::new(self);
        router.layer(axum::middleware::from_fn(
            move |req: Request, next: Next| {
                let refused = policy.check(req.headers()).err();
                let refuse = refuse.clone();
                async move {
                    match refused {
                        Some(rule) => {
                            tracing::debug!(rule, "request refused by the origin policy");
                            refuse(rule)
                        }
                        None => next.run(req).await,
                    }
                }
            },
        ))
    }
}

/// The plain answer to a refused request: 403 and the rule as text.
pub fn plain_refusal() -> Refuse {
    Arc::new(|rule| (StatusCode::FORBIDDEN, rule).into_response())
}

/// Whether the server bound at `addr` listens on loopback only (unknown: assumed so, the
/// stricter choice).
fn is_loopback_bind(addr: Option<SocketAddr>) -> bool {
    addr.is_none_or(|a| is_loopback_ip(a.ip()))
}

fn is_loopback_ip(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => v4.is_loopback(),
        IpAddr::V6(v6) => {
            v6.is_loopback() || v6.to_ipv4_mapped().is_some_and(|v4| v4.is_loopback())
        }
    }
}

/// `host[:port]` naming the loopback interface.
fn is_loopback_host(rest: &str) -> bool {
    let host = if let Some(v6) = rest.strip_prefix('[') {
        match v6.split_once(']') {
            Some((h, port)) if port.is_empty() || is_port(port) => {
                return h.parse().is_ok_and(|ip| is_loopback_ip(IpAddr::V6(ip)));
            }
            _ => return false,
        }
    } else {
        match rest.split_once(':') {
            Some((h, port)) if is_port(port) => h,
            Some(_) => return false,
            None => rest,
        }
    };
    host.eq_ignore_ascii_case("localhost")
        || host.parse().is_ok_and(|ip| is_loopback_ip(IpAddr::V4(ip)))
}

fn is_port(s: &str) -> bool {
    s.strip_prefix(':').unwrap_or(s).parse::<u16>().is_ok()
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
            "http://127.0.0.2",
            "http://[::1]:9",
            "http://LOCALHOST",
        ] {
            assert!(Origins::Loopback.allows(ok), "{ok}");
            assert!(Origins::ByAddress.allows(ok), "{ok}");
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
            assert!(!Origins::ByAddress.allows(bad), "{bad}");
        }
        assert!(Hosts::Loopback.allows("127.0.0.1:8080"));
        assert!(Hosts::Loopback.allows("localhost"));
        assert!(!Hosts::Loopback.allows("evil.example.com:8080"));
        assert!(Hosts::List(vec!["mcp.example:443".into()]).allows("MCP.example:443"));
    }

    #[test]
    fn null_is_refused_by_every_policy() {
        for o in [
            Origins::ByAddress,
            Origins::Loopback,
            Origins::List(vec!["null".into()]),
            Origins::Any,
        ] {
            assert!(!o.allows("null"), "{o:?}");
            assert!(!o.allows("NULL"), "{o:?}");
        }
    }

    #[test]
    fn the_bound_address_decides_the_default() {
        let public: SocketAddr = "0.0.0.0:80".parse().unwrap();
        let local: SocketAddr = "[::1]:80".parse().unwrap();
        let page = "http://localhost:5173";
        assert!(Origins::ByAddress.allows_at(page, Some(local)));
        assert!(!Origins::ByAddress.allows_at(page, Some(public)));
        assert!(Origins::Loopback.allows_at(page, Some(public)));
        assert!(Hosts::ByAddress.allows_at("agent.example", Some(public)));
        assert!(!Hosts::ByAddress.allows_at("agent.example", Some(local)));
        assert!(!Hosts::ByAddress.allows_at("agent.example", None));
    }
}
