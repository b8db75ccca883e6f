//! The authorization client's typed errors, each naming what failed and why.

/// Why credentials could not be obtained.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AuthError {
    #[error("metadata document {url}: {rule}")]
    Document { url: String, rule: String },
    #[error("unsafe URL {url:?} in {context}: {rule}")]
    UnsafeUrl {
        url: String,
        context: &'static str,
        rule: String,
    },
    #[error(
        "the protected resource metadata names resource {found:?}, which does not cover the server {expected:?}"
    )]
    ResourceMismatch { expected: String, found: String },
    #[error("the protected resource metadata names no authorization server")]
    NoAuthorizationServer,
    #[error("no authorization server metadata found for issuer {0:?}")]
    NoServerMetadata(String),
    #[error("the metadata at {url} names issuer {found:?}, not {expected:?} (RFC 8414 §3.3)")]
    IssuerMismatch {
        url: String,
        expected: String,
        found: String,
    },
    #[error("the authorization server does not support PKCE with S256")]
    NoPkce,
    #[error("the authorization server lacks its {0}")]
    MissingEndpoint(&'static str),
    #[error("cannot register a client: {0}")]
    Registration(String),
    #[error("the user step failed: {0}")]
    UserStep(String),
    #[error("bad authorization response: {0}")]
    Callback(String),
    #[error("the token endpoint refused: {0}")]
    Token(String),
    #[error("gave up after {0} authorizations in a row without an accepted request")]
    RetryLimit(u32),
    #[error("the server refused the request: {0}")]
    Refused(String),
}
