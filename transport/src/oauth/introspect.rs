//! A [`TokenVerifier`] for opaque access tokens: the authorization server's introspection
//! endpoint (RFC 7662), asked through the `oauth2` crate, says whether a token is active,
//! whose it is, which scopes it carries and which resource it was issued for.
//!
//! The token must be active, unexpired, issued for this resource (its `aud` names it: a
//! token without an audience is refused, as a resource server must not accept tokens
//! meant for someone else) and, when an issuer is set, by that issuer. An endpoint that does
//! not answer, answers an error status or an unreadable document makes the check
//! unavailable (`503`), not the token bad: RFC 7662 answers an unknown or expired token with
//! `200` and `"active": false`. Every answer is asked for afresh; nothing is cached, so a
//! revoked token is refused at once.

use std::collections::BTreeSet;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use oauth2::basic::{BasicClient, BasicErrorResponse};
use oauth2::{
    AccessToken, AuthType, ClientId, ClientSecret, EndpointNotSet, EndpointSet, IntrospectionUrl,
    RequestTokenError, TokenIntrospectionResponse as _,
};

use super::http::{Capped, FetchError, OAuthHttp};
use super::resource::{BoxFuture, Identity, TokenVerifier, VerifyError};

/// The `oauth2` client of an introspection endpoint.
type Introspecting =
    BasicClient<EndpointNotSet, EndpointNotSet, EndpointSet, EndpointNotSet, EndpointNotSet>;

/// Checks tokens at an introspection endpoint, for the resource `audience`.
#[derive(Debug)]
pub struct IntrospectionVerifier {
    client: Introspecting,
    audience: String,
    issuer: Option<String>,
    leeway: u64,
    http: Capped,
}

/// Why an [`IntrospectionVerifier`] could not be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the introspection endpoint {url:?} is not usable: {rule}")]
pub struct IntrospectionError {
    pub url: String,
    pub rule: String,
}

impl IntrospectionVerifier {
    /// Asks `endpoint` about each token, identifying this resource server as `client_id`
    /// (with `client_secret`, sent as HTTP Basic, when it has one); tokens must name
    /// `audience` (the resource identifier) in `aud`.
    pub fn new(
        endpoint: &str,
        audience: impl Into<String>,
        client_id: impl Into<String>,
        client_secret: Option<String>,
    ) -> Result<Self, IntrospectionError> {
        let bad = |rule: String| IntrospectionError {
            url: endpoint.chars().take(200).collect(),
            rule,
        };
        let url = IntrospectionUrl::new(endpoint.to_owned()).map_err(|e| bad(e.to_string()))?;
        if !matches!(url.url().scheme(), "http" | "https") {
            return Err(bad("the scheme must be http or https".to_owned()));
        }
        let mut client =
            BasicClient::new(ClientId::new(client_id.into())).set_introspection_url(url);
        client = match client_secret {
            Some(secret) => client
                .set_client_secret(ClientSecret::new(secret))
                .set_auth_type(AuthType::BasicAuth),
            None => client.set_auth_type(AuthType::RequestBody),
        };
        Ok(Self {
            client,
            audience: audience.into(),
            issuer: None,
            leeway: 30,
            http: Capped::new(Duration::from_secs(10), 64 * 1024),
        })
    }

    /// Tokens must also come from `issuer` when the answer names one (`iss`).
    pub fn issuer(mut self, issuer: impl Into<String>) -> Self {
        self.issuer = Some(issuer.into());
        self
    }

    /// Clock skew tolerated on `exp`, in seconds (30 by default).
    pub fn leeway(mut self, seconds: u64) -> Self {
        self.leeway = seconds;
        self
    }

    async fn check(&self, token: &str) -> Result<Identity, VerifyError> {
        let token = AccessToken::new(token.to_owned());
        let answer = self
            .client
            .introspect(&token)
            .set_token_type_hint("access_token")
            .request_async(&OAuthHttp(&self.http))
            .await
            .map_err(unavailable)?;
        if !answer.active() {
            return Err(VerifyError::Inactive);
        }
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default()
            .as_secs();
        let expires_at = answer
            .exp()
            .map(|t| u64::try_from(t.timestamp()).unwrap_or(0));
        if expires_at.is_some_and(|exp| exp.saturating_add(self.leeway) < now) {
            return Err(VerifyError::Expired);
        }
        let audiences = answer.aud().map(Vec::as_slice).unwrap_or_default();
        if !audiences.iter().any(|a| a == &self.audience) {
            return Err(VerifyError::Audience);
        }
        if let (Some(expected), Some(iss)) = (&self.issuer, answer.iss())
            && expected != iss
        {
            return Err(VerifyError::Issuer);
        }
        let scopes: BTreeSet<String> = answer
            .scopes()
            .map(|s| s.iter().map(|s| s.to_string()).collect())
            .unwrap_or_default();
        let claims = match serde_json::to_value(&answer) {
            Ok(serde_json::Value::Object(map)) => map,
            _ => serde_json::Map::new(),
        };
        Ok(Identity {
            subject: answer.sub().map(str::to_owned),
            client_id: answer.client_id().map(|c| c.as_str().to_owned()),
            scopes,
            expires_at,
            claims,
        })
    }
}

impl TokenVerifier for IntrospectionVerifier {
    fn verify<'a>(&'a self, token: &'a str) -> BoxFuture<'a, Result<Identity, VerifyError>> {
        Box::pin(self.check(token))
    }
}

/// A failed exchange: the endpoint, not the token, is at fault.
fn unavailable(e: RequestTokenError<FetchError, BasicErrorResponse>) -> VerifyError {
    let why = match e {
        RequestTokenError::ServerResponse(r) => format!("the endpoint refused: {r}"),
        RequestTokenError::Request(e) => e.to_string(),
        RequestTokenError::Parse(e, _) => format!("not an introspection answer: {e}"),
        RequestTokenError::Other(e) => e,
    };
    VerifyError::Unavailable(format!(
        "introspection: {}",
        why.chars().take(300).collect::<String>()
    ))
}
