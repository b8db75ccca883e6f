//! OAuth 2.1 for HTTP transports: a resource-server layer that guards any axum router
//! (feature `oauth-resource`) and an authorization client that answers a server's 401 by
//! discovering its authorization server and obtaining a token (feature `oauth-client`).
//!
//! Generic: nothing here knows a protocol. The resource server publishes its Protected
//! Resource Metadata (RFC 9728), answers `401`/`403` with `WWW-Authenticate: Bearer` naming
//! it, and checks bearer tokens through a [`resource::TokenVerifier`] (JWT against a JWKS:
//! [`jwt::JwtVerifier`]; opaque tokens by introspection: [`introspect::IntrospectionVerifier`]).
//! The client side lives in `client`.

pub mod metadata;

mod http;

#[cfg(feature = "oauth-client")]
pub mod client;
#[cfg(feature = "oauth-resource")]
pub mod introspect;
#[cfg(feature = "oauth-resource")]
pub mod jwt;
#[cfg(feature = "oauth-resource")]
pub mod resource;
