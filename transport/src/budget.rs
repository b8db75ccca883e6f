//! Budgets of state a server keeps for its clients (sessions, say): a global cap, and beside
//! it a share per client, so that one client cannot take the whole budget and lock everyone
//! else out for as long as it keeps renewing what it holds.
//!
//! A client is its peer address: IPv4 addresses one by one, IPv6 ones by their /64 prefix
//! (one host is commonly given a whole /64, so single IPv6 addresses cost an attacker
//! nothing). A shared token names no single client, so it does not split budgets; it keeps
//! clients without it out altogether. Behind a proxy every client has the proxy's address:
//! raise the share to the cap there.
//!
//! The HTTP servers learn the peer address from axum's `ConnectInfo<SocketAddr>` request
//! extension, which their accept loop adds to every request; a router served by other code
//! without it has only the global cap. The gRPC gateway takes it from tonic's
//! `Request::remote_addr`.

use std::collections::HashMap;
use std::net::{IpAddr, Ipv6Addr, SocketAddr};
use std::sync::{Arc, Mutex, MutexGuard};

use axum::extract::ConnectInfo;
use axum::http::Extensions;

/// One client, as budgets count them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ClientKey(IpAddr);

impl ClientKey {
    /// The client at `addr` (an IPv4-mapped IPv6 address counts as its IPv4 address).
    pub fn of(addr: IpAddr) -> Self {
        let addr = match addr {
            IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
                Some(v4) => IpAddr::V4(v4),
                None => {
                    let prefix = u128::from(v6) & !((1u128 << 64) - 1);
                    IpAddr::V6(Ipv6Addr::from(prefix))
                }
            },
            v4 => v4,
        };
        Self(addr)
    }

    /// The client a request came from, when its connection's address is known.
    pub fn of_request(extensions: &Extensions) -> Option<Self> {
        extensions
            .get::<ConnectInfo<SocketAddr>>()
            .map(|ConnectInfo(addr)| Self::of(addr.ip()))
    }
}

impl std::fmt::Display for ClientKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            IpAddr::V6(v6) => write!(f, "{v6}/64"),
            v4 => write!(f, "{v4}"),
        }
    }
}

/// Why nothing more could be taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Exhausted {
    /// The global cap is reached.
    #[error("the server holds its maximum of {0}")]
    Total(usize),
    /// This client holds its share.
    #[error("this client already holds its share of {0}")]
    Client(usize),
}

#[derive(Debug, Default)]
struct Counts {
    total: usize,
    per_client: HashMap<ClientKey, usize>,
}

/// A global cap with a per-client share. Cheap to clone (the clones share the counts).
#[derive(Debug, Clone)]
pub struct Budget {
    max_total: usize,
    max_per_client: usize,
    counts: Arc<Mutex<Counts>>,
}

/// One unit of a budget, given back when dropped.
#[derive(Debug)]
pub struct Lease {
    counts: Arc<Mutex<Counts>>,
    client: Option<ClientKey>,
}

fn lock(counts: &Mutex<Counts>) -> MutexGuard<'_, Counts> {
    // Counts stay consistent across a panic elsewhere (each change is one statement).
    counts.lock().unwrap_or_else(|p| p.into_inner())
}

impl Budget {
    /// At most `max_total` units in all, at most `max_per_client` of them for one client.
    pub fn new(max_total: usize, max_per_client: usize) -> Self {
        Self {
            max_total,
            max_per_client,
            counts: Arc::default(),
        }
    }

    /// One unit for `client` (`None`: unknown, counted against the global cap only), or
    /// why there is none. Never waits.
    pub fn try_take(&self, client: Option<ClientKey>) -> Result<Lease, Exhausted> {
        let mut counts = lock(&self.counts);
        if let Some(key) = client {
            let held = counts.per_client.get(&key).copied().unwrap_or(0);
            if held >= self.max_per_client {
                return Err(Exhausted::Client(self.max_per_client));
            }
        }
        if counts.total >= self.max_total {
            return Err(Exhausted::Total(self.max_total));
        }
        counts.total += 1;
        if let Some(key) = client {
            *counts.per_client.entry(key).or_insert(0) += 1;
        }
        Ok(Lease {
            counts: Arc::clone(&self.counts),
            client,
        })
    }

    /// Units held in all.
    pub fn in_use(&self) -> usize {
        lock(&self.counts).total
    }

    /// Units `client` holds.
    pub fn held_by(&self, client: ClientKey) -> usize {
        lock(&self.counts)
            .per_client
            .get(&client)
            .copied()
            .unwrap_or(0)
    }
}

impl Drop for Lease {
    fn drop(&mut self) {
        let mut counts = lock(&self.counts);
        counts.total = counts.total.saturating_sub(1);
        if let Some(key) = self.client
            && let Some(n) = counts.per_client.get_mut(&key)
        {
            *n -= 1;
            if *n == 0 {
                counts.per_client.remove(&key);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(text: &str) -> Option<ClientKey> {
        Some(ClientKey::of(text.parse().unwrap()))
    }

    #[test]
    fn a_client_gets_its_share_and_the_rest_stays_for_others() {
        let budget = Budget::new(3, 2);
        let a1 = budget.try_take(key("10.0.0.1")).unwrap();
        let _a2 = budget.try_take(key("10.0.0.1")).unwrap();
        assert_eq!(
            budget.try_take(key("10.0.0.1")).unwrap_err(),
            Exhausted::Client(2)
        );
        let _b = budget.try_take(key("10.0.0.2")).unwrap();
        assert_eq!(
            budget.try_take(key("10.0.0.3")).unwrap_err(),
            Exhausted::Total(3)
        );
        assert_eq!(budget.try_take(None).unwrap_err(), Exhausted::Total(3));
        drop(a1);
        assert_eq!(budget.held_by(key("10.0.0.1").unwrap()), 1);
        let _a3 = budget.try_take(key("10.0.0.1")).unwrap();
        assert_eq!(budget.in_use(), 3);
    }

    #[test]
    fn ipv6_clients_are_their_64_prefix() {
        assert_eq!(key("2001:db8::1"), key("2001:db8::ffff:1"));
        assert_ne!(key("2001:db8::1"), key("2001:db8:0:1::1"));
        assert_eq!(key("::ffff:192.0.2.7"), key("192.0.2.7"));
        assert_eq!(key("2001:db8::1").unwrap().to_string(), "2001:db8::/64");
    }
}
