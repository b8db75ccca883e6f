//! The version header, honoured for every call of both bindings: a tonic interceptor on the
//! gRPC service, which the JSON-RPC binding calls in process with its HTTP headers as
//! metadata. A call asking for a version the profile does not serve is refused with the
//! profile's status code and `ErrorInfo` reason before any handler runs.

use tonic::service::Interceptor;
use tonic::{Request, Status};

use super::{Profile, error_status};

/// Refuses calls whose version header asks for a version the profile does not serve; lets
/// every call through when the profile declares no version header.
#[derive(Debug, Clone)]
pub struct VersionGate {
    profile: &'static Profile,
    /// The header as metadata spells it (lower case).
    key: String,
}

impl VersionGate {
    /// The gate of `profile`'s version rule.
    pub fn new(profile: &'static Profile) -> Self {
        let key = profile
            .version
            .map(|v| v.header.to_ascii_lowercase())
            .unwrap_or_default();
        VersionGate { profile, key }
    }

    /// The refusal of `value`, or `None` when it is served.
    pub fn check(&self, value: Option<&str>) -> Option<Status> {
        let rule = self.profile.version?;
        if rule.accepts(value) {
            return None;
        }
        let asked = match value.map(str::trim).filter(|v| !v.is_empty()) {
            Some(v) => v.to_owned(),
            None => format!("{} (no {})", rule.absent, rule.header),
        };
        let message = format!(
            "{} {asked} is not supported; this server speaks {}",
            rule.header,
            rule.supported.join(", ")
        );
        Some(error_status(
            rule.code,
            rule.reason,
            self.profile.error_domain,
            message,
        ))
    }
}

impl Interceptor for VersionGate {
    fn call(&mut self, request: Request<()>) -> Result<Request<()>, Status> {
        if self.key.is_empty() {
            return Ok(request);
        }
        let value = request
            .metadata()
            .get(self.key.as_str())
            .map(|v| v.to_str().unwrap_or("\u{fffd}"));
        match self.check(value) {
            Some(refusal) => Err(refusal),
            None => Ok(request),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{VersionRule, reason_of};
    use super::*;

    static PROFILE: Profile = Profile {
        path: "/",
        service: "demo.Demo",
        descriptors: &[],
        error_domain: "demo.example",
        errors: &[],
        version: Some(VersionRule {
            header: "Demo-Version",
            supported: &["1.0"],
            absent: "0.3",
            code: tonic::Code::FailedPrecondition,
            reason: "VERSION_NOT_SUPPORTED",
        }),
        discovery: None,
    };

    #[test]
    fn an_unserved_or_missing_version_is_refused_with_the_declared_reason() {
        let mut gate = VersionGate::new(&PROFILE);
        let mut ok = Request::new(());
        ok.metadata_mut()
            .insert("demo-version", "1.0".parse().unwrap());
        assert!(gate.call(ok).is_ok());
        let refused = gate.call(Request::new(())).unwrap_err();
        assert_eq!(refused.code(), tonic::Code::FailedPrecondition);
        assert_eq!(
            refused.message(),
            "Demo-Version 0.3 (no Demo-Version) is not supported; this server speaks 1.0"
        );
        assert_eq!(
            reason_of(&refused, "demo.example").as_deref(),
            Some("VERSION_NOT_SUPPORTED")
        );
        let mut old = Request::new(());
        old.metadata_mut()
            .insert("demo-version", "0.3".parse().unwrap());
        assert!(gate.call(old).is_err());
    }
}
