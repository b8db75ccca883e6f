//! What a protocol's spec declares about its Streamable HTTP transport: the endpoint's path,
//! the session and protocol-version header names, the versions it accepts and the request
//! that opens a session. The transport knows no protocol: every such name comes from here,
//! and a generated skeleton holds its protocol's profile (`STREAMABLE_HTTP`), so there is no
//! default.

use agentwire_runtime::version::Source;
use axum::http::HeaderName;

/// The members carrying state the server seals for the client to give back, as the
/// protocol's spec names them (`transport.streamable_http.sealed_state`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SealedState {
    /// The params member a request gives the state back in.
    pub params: &'static str,
    /// The result member a handler writes its state in.
    pub result: &'static str,
}

/// One header that mirrors a member of the message it carries (so that an intermediary can
/// route on it without reading the body): the client sets it from the message, the server
/// refuses a request whose header and body disagree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mirror {
    /// The header, as the spec spells it.
    pub header: &'static str,
    /// The members it mirrors, each a path of member names from the message's top
    /// (`["method"]`, `["params", "name"]`), tried in order: the first the message has
    /// holds the value. A message with none of them carries no such header.
    pub members: &'static [&'static [&'static str]],
}

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
    /// Where a message outside any session names its version (the spec's `version:`). When
    /// it lists a `meta:` path or a `header:`, a message sent without a session header that
    /// is not the opening request is served on its own, as the version it names, with no
    /// session (see `server`). `None`: every message outside a session must open one first.
    pub version_source: Option<Source>,
    /// The JSON-RPC error code answering a request in a version not in `versions`, with
    /// `data: {"supported": versions, "requested": ...}` (the spec's
    /// `version.unsupported_code`).
    pub unsupported_code: i64,
    /// Headers mirroring members of the message; empty when the spec declares none.
    pub mirror: &'static [Mirror],
    /// The first version (compared as text) whose requests carry the mirrored headers;
    /// `None`: every version's.
    pub mirror_since: Option<&'static str>,
    /// A mirrored value that is not plain visible ASCII travels as base64 between these two
    /// markers (`("=?b64?", "?=")`); `None`: such a value cannot be mirrored.
    pub mirror_base64: Option<(&'static str, &'static str)>,
    /// The JSON-RPC error code answering a request whose headers disagree with its body (a
    /// mirrored member, or a version named in both), or that lacks a header it must carry.
    pub mismatch_code: i64,
    /// The members carrying state the server seals for the client to give back (see
    /// `ServerConfig::sealer`); `None` when the protocol has none.
    pub sealed_state: Option<SealedState>,
    /// The HTTP status of the answer to a request served alone (see `version_source`) when
    /// it is an error with one of these JSON-RPC codes (an unknown method as 404, say); any
    /// other answer is 200. Empty when the spec declares none.
    pub error_status: &'static [(i64, u16)],
}

/// JSON-RPC's "Invalid params": the unsupported-version code of a spec that names none.
pub const DEFAULT_UNSUPPORTED_CODE: i64 = -32602;

/// JSON-RPC's "Invalid Request": the header-mismatch code of a spec that names none.
pub const DEFAULT_MISMATCH_CODE: i64 = -32600;

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
        for m in self.mirror {
            if HeaderName::from_bytes(m.header.as_bytes()).is_err() {
                return Err(format!(
                    "mirrored header {:?} is not an HTTP header name",
                    m.header
                ));
            }
            if m.members.is_empty() || m.members.iter().any(|p| p.is_empty()) {
                return Err(format!("mirrored header {:?} names no member", m.header));
            }
        }
        Ok(())
    }

    /// Whether requests of `version` carry the mirrored headers.
    pub fn mirrors(&self, version: Option<&str>) -> bool {
        match (self.mirror_since, version) {
            _ if self.mirror.is_empty() => false,
            (None, _) => true,
            (Some(since), Some(v)) => v >= since,
            (Some(_), None) => false,
        }
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
        version_source: None,
        unsupported_code: DEFAULT_UNSUPPORTED_CODE,
        mirror: &[],
        mirror_since: None,
        mirror_base64: None,
        mismatch_code: DEFAULT_MISMATCH_CODE,
        sealed_state: None,
        error_status: &[],
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
