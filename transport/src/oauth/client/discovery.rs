//! Finding the authorization server: the resource's Protected Resource Metadata (RFC 9728)
//! from the challenge's `resource_metadata` or the well-known locations, then the
//! authorization server's metadata (RFC 8414, then OpenID Connect Discovery), in the order
//! the authorization spec gives, each checked against the identifier it was found under.

use reqwest::Url;
use serde::de::DeserializeOwned;

use super::error::AuthError;
use super::fetch::Fetcher;
use crate::oauth::metadata::{
    AUTHORIZATION_SERVER, AuthorizationServerMetadata, OPENID_CONFIGURATION, PROTECTED_RESOURCE,
    ProtectedResourceMetadata, well_known_path,
};

/// The resource's metadata, or `None` when the server publishes none (a server of the
/// 2025-03-26 revision, whose own origin is its authorization server).
pub(crate) async fn resource_metadata(
    fetch: &Fetcher,
    server: &Url,
    hint: Option<&str>,
) -> Result<Option<ProtectedResourceMetadata>, AuthError> {
    let mut candidates = Vec::new();
    if let Some(hint) = hint {
        candidates.push(fetch.checked(hint, "resource_metadata")?);
    }
    let origin = server.origin().ascii_serialization();
    for path in [server.path(), "/"] {
        let url = format!("{origin}{}", well_known_path(PROTECTED_RESOURCE, path));
        let url = fetch.checked(&url, "resource metadata location")?;
        if !candidates.contains(&url) {
            candidates.push(url);
        }
    }
    for url in candidates {
        if let Some(metadata) = document::<ProtectedResourceMetadata>(fetch, &url).await? {
            check_resource(server, &metadata.resource)?;
            return Ok(Some(metadata));
        }
    }
    Ok(None)
}

/// The resource identifier must cover the server's URL: same origin, and its path a prefix
/// of the server's on a segment boundary (RFC 9728 §3.3, RFC 8707).
pub(crate) fn check_resource(server: &Url, resource: &str) -> Result<(), AuthError> {
    let mismatch = || AuthError::ResourceMismatch {
        expected: server.to_string(),
        found: resource.chars().take(200).collect(),
    };
    let parsed = Url::parse(resource).map_err(|_| mismatch())?;
    if parsed.origin() != server.origin() || parsed.fragment().is_some() {
        return Err(mismatch());
    }
    let prefix = parsed.path().trim_end_matches('/');
    let path = server.path().trim_end_matches('/');
    let covered = path == prefix
        || path
            .strip_prefix(prefix)
            .is_some_and(|rest| rest.starts_with('/'));
    if covered { Ok(()) } else { Err(mismatch()) }
}

/// The metadata of the authorization server `issuer`, from the first well-known location
/// that has it: for an issuer with a path, RFC 8414's (suffix before the path), then OpenID
/// Connect's with the suffix before and after the path; for one without, RFC 8414's then
/// OpenID Connect's. Its `issuer` must be `issuer`, character for character.
pub(crate) async fn server_metadata(
    fetch: &Fetcher,
    issuer: &str,
) -> Result<Option<AuthorizationServerMetadata>, AuthError> {
    let parsed = fetch.checked(issuer, "issuer")?;
    if parsed.query().is_some() || parsed.fragment().is_some() {
        return Err(AuthError::UnsafeUrl {
            url: issuer.to_owned(),
            context: "issuer",
            rule: "an issuer has no query or fragment".to_owned(),
        });
    }
    let origin = parsed.origin().ascii_serialization();
    let path = parsed.path().trim_end_matches('/');
    let mut locations = vec![
        well_known_path(AUTHORIZATION_SERVER, path),
        well_known_path(OPENID_CONFIGURATION, path),
    ];
    if !path.is_empty() {
        locations.push(format!("{path}/.well-known/{OPENID_CONFIGURATION}"));
    }
    for location in locations {
        let url = fetch.checked(&format!("{origin}{location}"), "metadata location")?;
        let Some(metadata) = document::<AuthorizationServerMetadata>(fetch, &url).await? else {
            continue;
        };
        if metadata.issuer != issuer {
            return Err(AuthError::IssuerMismatch {
                url: url.to_string(),
                expected: issuer.to_owned(),
                found: metadata.issuer.chars().take(200).collect(),
            });
        }
        return Ok(Some(metadata));
    }
    Ok(None)
}

/// The document at `url`: `None` when the server has none there (4xx), an error when it
/// answers otherwise or with something that is not the document.
async fn document<T: DeserializeOwned>(fetch: &Fetcher, url: &Url) -> Result<Option<T>, AuthError> {
    let fetched = fetch.get(url).await?;
    if (400..500).contains(&fetched.status) {
        return Ok(None);
    }
    let bad = |rule: String| AuthError::Document {
        url: url.to_string(),
        rule,
    };
    if fetched.status != 200 {
        return Err(bad(format!("HTTP {}", fetched.status)));
    }
    serde_json::from_slice(&fetched.body)
        .map(Some)
        .map_err(|e| bad(format!("not the expected document: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_resource_covers_its_own_paths_only() {
        let server = Url::parse("https://h.example/mcp/v1").unwrap();
        for ok in [
            "https://h.example/mcp/v1",
            "https://h.example/mcp",
            "https://h.example",
            "https://h.example/mcp/",
        ] {
            assert!(check_resource(&server, ok).is_ok(), "{ok}");
        }
        for bad in [
            "https://evil.example/mcp/v1",
            "http://h.example/mcp/v1",
            "https://h.example/mc",
            "https://h.example:8443/mcp",
            "https://h.example/other",
            "not a url",
            "https://h.example/mcp#f",
        ] {
            assert!(check_resource(&server, bad).is_err(), "{bad}");
        }
    }
}
