//! What a protocol's spec declares about its Streamable HTTP transport: the endpoint's path,
//! the session and protocol-version header names, the versions it accepts and the request
//! that opens a session. The transport knows no protocol: every such name comes from here,
//! and a generated skeleton holds its protocol's profile (`STREAMABLE_HTTP`), so there is no
//! default.

use axum::http::HeaderName;

/// One protocol's Streamable HTTP facts, as its `protocol.yaml` declares them
/// (`transport.streamable_http`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Profile {
    /// The endpoint's path (the one URL of the transport), starting with `/`.
    pub path: &'static str,
    /// The header carrying the session id, as the spec spells it (header names match in any
    /// case; error texts use this spelling).
    pub session_header: &'static str,
    /// The header carrying the negotiated protocol version, as the spec spells it.
    pub version_header: &'static str,
    /// Accepted values of the version header, newest first; any other gets 400.
    pub versions: &'static [&'static str],
    /// The request method that opens a session (sent without a session header).
    pub opens_with: &'static str,
    /// The member of that request's params, and of its result, naming the protocol version.
    pub version_member: &'static str,
    /// The first version whose clients expect a priming event (an id and empty data) opening
    /// each POST's SSE stream; versions are compared as text (they are dates). `None`: never.
    pub priming_since: Option<&'static str>,
}

impl Profile {
    /// The session header as a header name; `None` when the spelling is not a valid one
    /// (the generator refuses such a spec, so only a hand-written profile can get here).
    pub fn session_name(&self) -> Option<HeaderName> {
        HeaderName::from_bytes(self.session_header.as_bytes()).ok()
    }

    /// The version header as a header name (as [`Self::session_name`]).
    pub fn version_name(&self) -> Option<HeaderName> {
        HeaderName::from_bytes(self.version_header.as_bytes()).ok()
    }

    /// Whether a client speaking `version` expects a priming event on its POST streams.
    pub fn primes(&self, version: Option<&str>) -> bool {
        match (self.priming_since, version) {
            (Some(since), Some(v)) => v >= since,
            _ => false,
        }
    }

    /// What is wrong with the profile, if anything: a path without its leading `/`, a header
    /// name HTTP does not allow, no version or an empty method. The server refuses to start
    /// with such a profile rather than serve an endpoint no client can reach.
    pub fn check(&self) -> Result<(), String> {
        if !self.path.starts_with('/') {
            return Err(format!("path {:?} must start with `/`", self.path));
        }
        for (what, name) in [
            ("session", self.session_header),
            ("version", self.version_header),
        ] {
            if HeaderName::from_bytes(name.as_bytes()).is_err() {
                return Err(format!("{what} header {name:?} is not an HTTP header name"));
            }
        }
        if self.versions.is_empty() {
            return Err("no protocol version is accepted".to_owned());
        }
        if self.opens_with.is_empty() || self.version_member.is_empty() {
            return Err("the opening method and its version member must be named".to_owned());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const P: Profile = Profile {
        path: "/rpc",
        session_header: "Example-Session",
        version_header: "Example-Version",
        versions: &["2024-02-01", "2024-01-01"],
        opens_with: "open",
        version_member: "version",
        priming_since: Some("2024-02-01"),
    };

    #[test]
    fn a_profile_is_checked_and_primes_from_its_version_on() {
        assert_eq!(P.check(), Ok(()));
        assert_eq!(P.session_name().unwrap().as_str(), "example-session");
        assert!(P.primes(Some("2024-02-01")) && P.primes(Some("2025-01-01")));
        assert!(!P.primes(Some("2024-01-01")) && !P.primes(None));
        let bad = Profile {
            session_header: "bad header",
            ..P
        };
        assert!(bad.check().unwrap_err().contains("not an HTTP header name"));
        let bad = Profile { path: "rpc", ..P };
        assert!(bad.check().unwrap_err().contains("must start with"));
        let bad = Profile { versions: &[], ..P };
        assert!(bad.check().is_err());
    }
}
