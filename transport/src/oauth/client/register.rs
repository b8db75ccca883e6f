//! Who the client is at an authorization server: pre-registered credentials, a Client ID
//! Metadata Document URL (when the server supports them), or Dynamic Client Registration
//! (RFC 7591), in that order of preference; and how it authenticates at the token endpoint.

use super::error::AuthError;
use super::fetch::Fetcher;
use super::store::Secret;
use crate::oauth::metadata::AuthorizationServerMetadata;

/// How the client authenticates at the token endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AuthMethod {
    /// `client_secret_basic`: the id and secret in HTTP Basic.
    SecretBasic,
    /// `client_secret_post`: the id and secret in the form body.
    SecretPost,
    /// `none`: a public client; only the id.
    None,
    /// `private_key_jwt` (RFC 7523): a JWT signed with the client's key.
    PrivateKeyJwt,
}

impl AuthMethod {
    pub fn name(self) -> &'static str {
        match self {
            Self::SecretBasic => "client_secret_basic",
            Self::SecretPost => "client_secret_post",
            Self::None => "none",
            Self::PrivateKeyJwt => "private_key_jwt",
        }
    }

    fn from_name(name: &str) -> Option<Self> {
        [
            Self::SecretBasic,
            Self::SecretPost,
            Self::None,
            Self::PrivateKeyJwt,
        ]
        .into_iter()
        .find(|m| m.name() == name)
    }
}

/// A signing key for `private_key_jwt`: PKCS#8 DER of a P-256 key (ES256).
#[derive(Clone)]
pub struct ClientKey {
    pub key_id: Option<String>,
    pub pkcs8_der: Vec<u8>,
}

impl std::fmt::Debug for ClientKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientKey")
            .field("key_id", &self.key_id)
            .finish_non_exhaustive()
    }
}

/// Credentials the application registered beforehand.
#[derive(Debug, Clone)]
pub struct PreRegistered {
    pub client_id: String,
    pub client_secret: Option<Secret>,
    /// The key for `private_key_jwt`, when the client was registered with one.
    pub key: Option<ClientKey>,
    /// The issuer they belong to; `None`: whichever the resource names.
    pub issuer: Option<String>,
}

/// The client's identity at one authorization server.
#[derive(Debug, Clone)]
pub(crate) struct Credentials {
    pub(crate) issuer: String,
    pub(crate) client_id: String,
    pub(crate) client_secret: Option<Secret>,
    pub(crate) key: Option<ClientKey>,
    pub(crate) method: AuthMethod,
}

/// What the client says about itself when registering.
#[derive(Debug, Clone)]
pub(crate) struct Profile<'a> {
    pub(crate) client_name: &'a str,
    pub(crate) redirect_uri: &'a str,
    pub(crate) application_type: &'a str,
    pub(crate) metadata_document_url: Option<&'a str>,
    pub(crate) pre_registered: Option<&'a PreRegistered>,
}

/// The client's credentials at `issuer`, by the first way the server allows.
pub(crate) async fn credentials(
    fetch: &Fetcher,
    issuer: &str,
    metadata: &AuthorizationServerMetadata,
    profile: &Profile<'_>,
) -> Result<Credentials, AuthError> {
    let supported = metadata
        .token_endpoint_auth_methods_supported
        .clone()
        // RFC 8414 §2: absent means client_secret_basic.
        .unwrap_or_else(|| vec!["client_secret_basic".to_owned()]);
    if let Some(pre) = profile.pre_registered
        && pre.issuer.as_deref().is_none_or(|i| i == issuer)
    {
        let method = choose(&supported, pre.client_secret.is_some(), pre.key.is_some());
        return Ok(Credentials {
            issuer: issuer.to_owned(),
            client_id: pre.client_id.clone(),
            client_secret: pre.client_secret.clone(),
            key: pre.key.clone(),
            method,
        });
    }
    if metadata.client_id_metadata_document_supported == Some(true)
        && let Some(url) = profile.metadata_document_url
    {
        return Ok(Credentials {
            issuer: issuer.to_owned(),
            client_id: url.to_owned(),
            client_secret: None,
            key: None,
            method: AuthMethod::None,
        });
    }
    let Some(endpoint) = &metadata.registration_endpoint else {
        return Err(AuthError::Registration(
            "no pre-registered credentials, no client metadata document the server accepts, \
             and no registration endpoint"
                .to_owned(),
        ));
    };
    register(fetch, issuer, endpoint, &supported, profile).await
}

/// The method to use given what the server supports and what the client holds.
fn choose(supported: &[String], has_secret: bool, has_key: bool) -> AuthMethod {
    let offered = |m: AuthMethod| supported.iter().any(|s| s == m.name());
    let order: &[AuthMethod] = match (has_key, has_secret) {
        (true, _) => &[AuthMethod::PrivateKeyJwt],
        (false, true) => &[AuthMethod::SecretBasic, AuthMethod::SecretPost],
        (false, false) => &[AuthMethod::None],
    };
    order
        .iter()
        .copied()
        .find(|m| offered(*m))
        .or_else(|| order.first().copied())
        .unwrap_or(AuthMethod::None)
}

/// Dynamic Client Registration (RFC 7591).
async fn register(
    fetch: &Fetcher,
    issuer: &str,
    endpoint: &str,
    supported: &[String],
    profile: &Profile<'_>,
) -> Result<Credentials, AuthError> {
    let url = fetch.checked(endpoint, "registration_endpoint")?;
    // A public client when the server allows one; else one with a secret.
    let asked = if supported.iter().any(|s| s == "none") {
        AuthMethod::None
    } else if supported.iter().any(|s| s == "client_secret_post")
        && !supported.iter().any(|s| s == "client_secret_basic")
    {
        AuthMethod::SecretPost
    } else {
        AuthMethod::SecretBasic
    };
    let request = serde_json::json!({
        "client_name": profile.client_name,
        "redirect_uris": [profile.redirect_uri],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": asked.name(),
        "application_type": profile.application_type,
    });
    let fetched = fetch.post_json(&url, &request).await?;
    let bad = |rule: String| AuthError::Registration(format!("{url}: {rule}"));
    if !(200..300).contains(&fetched.status) {
        return Err(bad(format!("HTTP {}", fetched.status)));
    }
    #[derive(serde::Deserialize)]
    struct Registered {
        client_id: String,
        client_secret: Option<String>,
        token_endpoint_auth_method: Option<String>,
    }
    let registered: Registered = serde_json::from_slice(&fetched.body)
        .map_err(|e| bad(format!("not a registration response: {e}")))?;
    if registered.client_id.is_empty() {
        return Err(bad("an empty client_id".to_owned()));
    }
    let has_secret = registered.client_secret.is_some();
    let method = match registered.token_endpoint_auth_method.as_deref() {
        Some(name) => AuthMethod::from_name(name)
            .ok_or_else(|| bad(format!("unknown token_endpoint_auth_method {name:?}")))?,
        None if has_secret => choose(supported, true, false),
        None => AuthMethod::None,
    };
    Ok(Credentials {
        issuer: issuer.to_owned(),
        client_id: registered.client_id,
        client_secret: registered.client_secret.map(Secret::new),
        key: None,
        method,
    })
}
