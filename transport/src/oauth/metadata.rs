//! The metadata documents both sides share: Protected Resource Metadata (RFC 9728) and
//! authorization server metadata (RFC 8414 / OpenID Connect Discovery), and where their
//! well-known URLs are.

use serde::{Deserialize, Serialize};

/// The well-known suffix of Protected Resource Metadata (RFC 9728 §3).
pub const PROTECTED_RESOURCE: &str = "oauth-protected-resource";
/// The well-known suffix of authorization server metadata (RFC 8414 §3).
pub const AUTHORIZATION_SERVER: &str = "oauth-authorization-server";
/// The well-known suffix of OpenID Connect Discovery.
pub const OPENID_CONFIGURATION: &str = "openid-configuration";

/// A protected resource's metadata (RFC 9728 §2). Members this crate does not use are kept
/// in `extra`, so that a server can publish them and a client can pass them on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProtectedResourceMetadata {
    /// The resource identifier: the URL the client talks to.
    pub resource: String,
    /// Issuer identifiers of the authorization servers that issue tokens for it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub authorization_servers: Vec<String>,
    /// The scopes a client may ask for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scopes_supported: Option<Vec<String>>,
    /// How tokens are presented; this crate reads only the `Authorization` header.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bearer_methods_supported: Option<Vec<String>>,
    /// A human-readable name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_name: Option<String>,
    /// Everything else the document carries.
    #[serde(flatten)]
    pub extra: serde_json::Map<String, serde_json::Value>,
}

/// An authorization server's metadata (RFC 8414 §2; OpenID Connect Discovery has the same
/// members for what is read here).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AuthorizationServerMetadata {
    pub issuer: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authorization_endpoint: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_endpoint: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub registration_endpoint: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jwks_uri: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scopes_supported: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_types_supported: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grant_types_supported: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_endpoint_auth_methods_supported: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_endpoint_auth_signing_alg_values_supported: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code_challenge_methods_supported: Option<Vec<String>>,
    /// RFC 9207: the server puts `iss` in its authorization responses.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authorization_response_iss_parameter_supported: Option<bool>,
    /// Client ID Metadata Documents: a URL may serve as `client_id`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_id_metadata_document_supported: Option<bool>,
    #[serde(flatten)]
    pub extra: serde_json::Map<String, serde_json::Value>,
}

/// The path of a well-known document for an identifier whose path is `path` (RFC 8414 §3.1,
/// RFC 9728 §3.1): the suffix goes between the host and the path, and a path of `/` counts
/// as none.
pub fn well_known_path(suffix: &str, path: &str) -> String {
    let path = path.trim_end_matches('/');
    if path.is_empty() {
        format!("/.well-known/{suffix}")
    } else {
        format!("/.well-known/{suffix}{path}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_suffix_goes_before_the_path() {
        assert_eq!(
            well_known_path(PROTECTED_RESOURCE, "/mcp"),
            "/.well-known/oauth-protected-resource/mcp"
        );
        assert_eq!(
            well_known_path(AUTHORIZATION_SERVER, "/"),
            "/.well-known/oauth-authorization-server"
        );
        assert_eq!(
            well_known_path(OPENID_CONFIGURATION, "/tenant/a/"),
            "/.well-known/openid-configuration/tenant/a"
        );
    }
}
