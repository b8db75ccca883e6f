//! What a spec declares about its JSON-RPC binding, as constants a generated skeleton holds.

/// The binding of one gRPC service, as `transport.jsonrpc_http` declares it.
#[derive(Debug, Clone, Copy)]
pub struct Profile {
    /// The path the endpoint answers POSTs at.
    pub path: &'static str,
    /// The full proto name of the service whose rpcs are the methods.
    pub service: &'static str,
    /// The spec's compiled `.proto` files with their imports, an encoded
    /// `google.protobuf.FileDescriptorSet`: what ProtoJSON is read and written from.
    pub descriptors: &'static [u8],
    /// The domain of the `google.rpc.ErrorInfo` details whose reasons [`Profile::errors`]
    /// maps.
    pub error_domain: &'static str,
    /// `ErrorInfo.reason` → JSON-RPC error code, as the spec's error table says.
    pub errors: &'static [(&'static str, i64)],
    /// The version header both bindings honour, if the spec has one.
    pub version: Option<VersionRule>,
    /// The document served at a well-known path, if any.
    pub discovery: Option<Discovery>,
}

/// A version header: its name, the versions served, what its absence means and how a call
/// asking for another version is refused.
#[derive(Debug, Clone, Copy)]
pub struct VersionRule {
    /// The header (gRPC metadata key, HTTP header), as the spec spells it.
    pub header: &'static str,
    /// The `Major.Minor` versions served.
    pub supported: &'static [&'static str],
    /// The version a call without the header (or with an empty one) asks for.
    pub absent: &'static str,
    /// The gRPC status code of the refusal.
    pub code: tonic::Code,
    /// The `ErrorInfo.reason` of the refusal (in [`Profile::error_domain`]).
    pub reason: &'static str,
}

/// A document served with GET at a fixed path, as ProtoJSON of one message type.
#[derive(Debug, Clone, Copy)]
pub struct Discovery {
    /// Its path.
    pub path: &'static str,
    /// The full proto name of its message type.
    pub message: &'static str,
}

impl Profile {
    /// The JSON-RPC code `reason` maps to, if the spec's table names it.
    pub fn code_of(&self, reason: &str) -> Option<i64> {
        self.errors
            .iter()
            .find(|(r, _)| *r == reason)
            .map(|(_, c)| *c)
    }
}

impl VersionRule {
    /// The `Major.Minor` a header value asks for (an absent or empty one: [`Self::absent`]);
    /// a patch is ignored, a lone major is its `.0`.
    pub fn asked(&self, value: Option<&str>) -> String {
        let value = value.map(str::trim).filter(|v| !v.is_empty());
        let value = value.unwrap_or(self.absent);
        let mut parts = value.splitn(3, '.');
        let major = parts.next().unwrap_or_default();
        let minor = parts.next().unwrap_or("0");
        format!("{major}.{minor}")
    }

    /// Whether the header value asks for a served version.
    pub fn accepts(&self, value: Option<&str>) -> bool {
        let asked = self.asked(value);
        self.supported.iter().any(|v| *v == asked)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RULE: VersionRule = VersionRule {
        header: "Demo-Version",
        supported: &["1.0"],
        absent: "0.3",
        code: tonic::Code::FailedPrecondition,
        reason: "VERSION_NOT_SUPPORTED",
    };

    #[test]
    fn major_minor_is_compared_and_absence_is_the_declared_version() {
        assert!(RULE.accepts(Some("1.0")));
        assert!(RULE.accepts(Some("1.0.7")));
        assert!(RULE.accepts(Some(" 1 ")));
        assert!(!RULE.accepts(Some("1.1")));
        assert!(!RULE.accepts(None));
        assert!(!RULE.accepts(Some("")));
        assert_eq!(RULE.asked(None), "0.3");
        assert_eq!(RULE.asked(Some("2")), "2.0");
    }
}
