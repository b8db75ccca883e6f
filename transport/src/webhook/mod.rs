//! Delivery of a JSON notification to a webhook a peer registered, guarded the way a server
//! must guard requests a peer aims: only `https` (or `http` where the policy allows it), every
//! address the host resolves to public unless the policy allows loopback (no private,
//! link-local, unique-local, shared, documentation or unspecified ranges, nor IPv4 mapped
//! into IPv6), the connection pinned to the checked address (so a second resolution cannot
//! swap it), redirects refused rather than followed, and a deadline on the whole exchange.
//! [`Outbox`] queues notifications and delivers them in order, retrying transient failures.
//!
//! The guard is on by default: [`Policy::default`] reaches only public `https` hosts. A
//! deployment that must reach a local receiver (a test, a relay on the same machine) opts in
//! with [`Policy::local`], by name, never by accident.

mod outbox;

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::time::Duration;

use reqwest::header::{CONTENT_TYPE, HeaderMap, HeaderValue};

pub use outbox::{Notification, Outbox, Stats};

/// What a delivery may reach.
#[derive(Debug, Clone, Copy)]
pub struct Policy {
    /// Plain `http` URLs are allowed (for development).
    pub allow_http: bool,
    /// Loopback addresses are allowed (tests, a local relay).
    pub allow_loopback: bool,
    /// The deadline of one delivery, connection included.
    pub timeout: Duration,
}

impl Default for Policy {
    fn default() -> Self {
        Policy {
            allow_http: false,
            allow_loopback: false,
            timeout: Duration::from_secs(10),
        }
    }
}

impl Policy {
    /// The explicit opt-in for receivers on this machine: plain `http` and loopback
    /// addresses allowed, every other private range still refused.
    pub fn local() -> Self {
        Policy {
            allow_http: true,
            allow_loopback: true,
            ..Policy::default()
        }
    }
}

/// Why a notification was not delivered.
#[derive(Debug, thiserror::Error)]
pub enum DeliveryError {
    #[error("`{0}` is not a URL a notification may be sent to: {1}")]
    Url(String, String),
    #[error("{host} resolves to {addr}, which is not a public address")]
    Private { host: String, addr: IpAddr },
    #[error("{0} cannot be resolved: {1}")]
    Resolve(String, String),
    #[error("the webhook answered with a redirect ({0}), which is not followed")]
    Redirect(u16),
    #[error("the webhook answered {0}")]
    Status(u16),
    #[error("the delivery failed: {0}")]
    Http(String),
}

/// Whether `addr` is an address of the public internet.
pub fn is_public(addr: IpAddr) -> bool {
    match addr {
        IpAddr::V4(v4) => is_public_v4(v4),
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => is_public_v4(v4),
            None => is_public_v6(v6),
        },
    }
}

fn is_public_v4(a: Ipv4Addr) -> bool {
    let [b0, b1, _, _] = a.octets();
    let shared = b0 == 100 && (64..128).contains(&b1); // 100.64.0.0/10
    let benchmark = b0 == 198 && (b1 == 18 || b1 == 19); // 198.18.0.0/15
    let reserved = b0 >= 240; // 240.0.0.0/4 and broadcast
    !(a.is_private()
        || a.is_loopback()
        || a.is_link_local()
        || a.is_unspecified()
        || a.is_documentation()
        || a.is_multicast()
        || b0 == 0
        || shared
        || benchmark
        || reserved)
}

fn is_public_v6(a: Ipv6Addr) -> bool {
    let first = a.segments()[0];
    let unique_local = first & 0xfe00 == 0xfc00; // fc00::/7
    let link_local = first & 0xffc0 == 0xfe80; // fe80::/10
    let documentation = first == 0x2001 && a.segments()[1] == 0x0db8; // 2001:db8::/32
    !(a.is_loopback()
        || a.is_unspecified()
        || a.is_multicast()
        || unique_local
        || link_local
        || documentation)
}

impl DeliveryError {
    /// Whether trying again later may succeed: a failed connection or resolution, or the
    /// receiver's 408, 429 or 5xx. A refused URL or address, a redirect and any other
    /// answer are final.
    pub fn is_transient(&self) -> bool {
        match self {
            DeliveryError::Resolve(..) | DeliveryError::Http(_) => true,
            DeliveryError::Status(code) => *code == 408 || *code == 429 || *code >= 500,
            _ => false,
        }
    }
}

/// Sends `body` as JSON with `headers` to `url` under `policy` (`Content-Type:
/// application/json` unless `headers` name another JSON media type).
pub async fn deliver(
    url: &str,
    headers: HeaderMap,
    body: &serde_json::Value,
    policy: Policy,
) -> Result<(), DeliveryError> {
    let bad = |why: &str| DeliveryError::Url(url.to_owned(), why.to_owned());
    let parsed = reqwest::Url::parse(url).map_err(|e| bad(&e.to_string()))?;
    match parsed.scheme() {
        "https" => {}
        "http" if policy.allow_http => {}
        other => return Err(bad(&format!("the scheme `{other}` is not allowed"))),
    }
    let host = parsed
        .host_str()
        .ok_or_else(|| bad("it has no host"))?
        .to_owned();
    let port = parsed
        .port_or_known_default()
        .ok_or_else(|| bad("it has no port"))?;
    let lookup = tokio::time::timeout(
        policy.timeout,
        tokio::net::lookup_host((host.as_str(), port)),
    );
    let addrs: Vec<SocketAddr> = lookup
        .await
        .map_err(|_| DeliveryError::Resolve(host.clone(), "timed out".to_owned()))?
        .map_err(|e| DeliveryError::Resolve(host.clone(), e.to_string()))?
        .collect();
    let first = *addrs
        .first()
        .ok_or_else(|| DeliveryError::Resolve(host.clone(), "no address".to_owned()))?;
    for a in &addrs {
        let allowed = is_public(a.ip()) || (policy.allow_loopback && a.ip().is_loopback());
        if !allowed {
            return Err(DeliveryError::Private { host, addr: a.ip() });
        }
    }
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .resolve(&host, first)
        .timeout(policy.timeout)
        .build()
        .map_err(|e| DeliveryError::Http(e.to_string()))?;
    let mut headers = headers;
    if !headers.contains_key(CONTENT_TYPE) {
        headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    }
    let response = client
        .post(parsed)
        .headers(headers)
        .body(body.to_string())
        .send()
        .await
        .map_err(|e| DeliveryError::Http(e.to_string()))?;
    let status = response.status();
    if status.is_redirection() {
        return Err(DeliveryError::Redirect(status.as_u16()));
    }
    if !status.is_success() {
        return Err(DeliveryError::Status(status.as_u16()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_public_addresses_are_public() {
        for private in [
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "127.0.0.1",
            "169.254.169.254",
            "0.0.0.0",
            "100.64.0.1",
            "198.18.0.1",
            "192.0.2.1",
            "224.0.0.1",
            "255.255.255.255",
            "::1",
            "::",
            "fc00::1",
            "fe80::1",
            "2001:db8::1",
            "::ffff:10.0.0.1",
            "::ffff:127.0.0.1",
        ] {
            assert!(!is_public(private.parse().unwrap()), "{private}");
        }
        for public in [
            "8.8.8.8",
            "1.1.1.1",
            "2606:4700:4700::1111",
            "::ffff:8.8.8.8",
        ] {
            assert!(is_public(public.parse().unwrap()), "{public}");
        }
    }

    /// A one-shot HTTP server answering `reply` to the first request; its address.
    async fn answering(reply: &'static str) -> SocketAddr {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move {
            let (mut s, _) = listener.accept().await.unwrap();
            let mut buf = [0u8; 4096];
            let _ = s.read(&mut buf).await;
            let _ = s.write_all(reply.as_bytes()).await;
        });
        addr
    }

    #[tokio::test]
    async fn private_targets_schemes_and_redirects_are_refused() {
        let body = serde_json::json!({"ok": true});
        let strict = Policy::default();
        let e = deliver("http://127.0.0.1:9/hook", HeaderMap::new(), &body, strict).await;
        assert!(matches!(e, Err(DeliveryError::Url(..))), "{e:?}");
        let e = deliver("https://127.0.0.1:9/hook", HeaderMap::new(), &body, strict).await;
        assert!(matches!(e, Err(DeliveryError::Private { .. })), "{e:?}");
        let e = deliver("https://10.0.0.1/hook", HeaderMap::new(), &body, strict).await;
        assert!(matches!(e, Err(DeliveryError::Private { .. })), "{e:?}");
        let e = deliver("file:///etc/passwd", HeaderMap::new(), &body, strict).await;
        assert!(matches!(e, Err(DeliveryError::Url(..))), "{e:?}");
        let local = Policy::local();
        let e = deliver("http://10.0.0.1/hook", HeaderMap::new(), &body, local).await;
        assert!(matches!(e, Err(DeliveryError::Private { .. })), "{e:?}");
        let moved = "HTTP/1.1 302 Found\r\nLocation: http://10.0.0.1/\r\nContent-Length: 0\r\n\r\n";
        let addr = answering(moved).await;
        let e = deliver(
            &format!("http://{addr}/hook"),
            HeaderMap::new(),
            &body,
            local,
        )
        .await;
        assert!(matches!(e, Err(DeliveryError::Redirect(302))), "{e:?}");
        let ok = "HTTP/1.1 204 No Content\r\nContent-Length: 0\r\n\r\n";
        let addr = answering(ok).await;
        let e = deliver(
            &format!("http://{addr}/hook"),
            HeaderMap::new(),
            &body,
            local,
        )
        .await;
        assert!(e.is_ok(), "{e:?}");
    }
}
