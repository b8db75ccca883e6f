//! The grants, on the `oauth2` crate: the authorization code flow with PKCE (S256), `state`
//! and the resource indicator (RFC 8707), the authorization response checked (`state`,
//! `error`, RFC 9207's `iss`), the code exchanged with the client's token endpoint
//! authentication; and the refresh grant.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use oauth2::basic::{BasicClient, BasicErrorResponse, BasicTokenResponse};
use oauth2::{
    AuthType, AuthUrl, AuthorizationCode, ClientId, ClientSecret, CsrfToken, PkceCodeChallenge,
    RedirectUrl, RefreshToken, RequestTokenError, Scope, TokenResponse as _, TokenUrl,
};
use reqwest::Url;

use super::error::AuthError;
use super::fetch::Fetcher;
use super::register::{AuthMethod, Credentials};
use super::store::{Secret, Tokens};
use crate::oauth::http::{FetchError, OAuthHttp};
use crate::oauth::metadata::AuthorizationServerMetadata;

/// Where the flow goes and for what.
pub(crate) struct Grant<'a> {
    pub(crate) fetch: &'a Fetcher,
    pub(crate) metadata: &'a AuthorizationServerMetadata,
    pub(crate) credentials: &'a Credentials,
    pub(crate) redirect_uri: &'a str,
    /// The resource indicator.
    pub(crate) resource: &'a str,
}

/// An authorization request ready for the user: the URL and what checks its response.
pub(crate) struct Pending {
    pub(crate) url: Url,
    state: CsrfToken,
    verifier: oauth2::PkceCodeVerifier,
    scopes: Vec<String>,
}

const ASSERTION_TYPE: &str = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";

impl Grant<'_> {
    fn endpoint(&self, url: Option<&String>, what: &'static str) -> Result<Url, AuthError> {
        let url = url.ok_or(AuthError::MissingEndpoint(what))?;
        self.fetch.checked(url, what)
    }

    /// The authorization URL for `scopes` (none: the parameter is left out).
    pub(crate) fn start(&self, scopes: &[String]) -> Result<Pending, AuthError> {
        let auth = self.endpoint(
            self.metadata.authorization_endpoint.as_ref(),
            "authorization_endpoint",
        )?;
        let redirect = RedirectUrl::new(self.redirect_uri.to_owned())
            .map_err(|e| AuthError::Callback(format!("bad redirect URI: {e}")))?;
        let client = BasicClient::new(ClientId::new(self.credentials.client_id.clone()))
            .set_auth_uri(AuthUrl::from_url(auth))
            .set_redirect_uri(redirect);
        let (challenge, verifier) = PkceCodeChallenge::new_random_sha256();
        let (url, state) = client
            .authorize_url(CsrfToken::new_random)
            .add_scopes(scopes.iter().map(|s| Scope::new(s.clone())))
            .set_pkce_challenge(challenge)
            .add_extra_param("resource", self.resource)
            .url();
        Ok(Pending {
            url,
            state,
            verifier,
            scopes: scopes.to_vec(),
        })
    }

    /// Checks the authorization response (the URL the user agent was sent back to) and
    /// exchanges its code for tokens.
    pub(crate) async fn finish(
        &self,
        pending: Pending,
        callback: &Url,
    ) -> Result<Tokens, AuthError> {
        let param = |name: &str| {
            callback
                .query_pairs()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.into_owned())
        };
        if param("state").as_deref() != Some(pending.state.secret().as_str()) {
            return Err(AuthError::Callback(
                "the state does not match the request's".to_owned(),
            ));
        }
        self.check_iss(param("iss").as_deref())?;
        if let Some(error) = param("error") {
            let detail = param("error_description").unwrap_or_default();
            return Err(AuthError::Callback(
                format!("{error} {detail}")
                    .trim()
                    .chars()
                    .take(300)
                    .collect(),
            ));
        }
        let code = param("code").ok_or_else(|| AuthError::Callback("no code".to_owned()))?;
        let token = self.endpoint(self.metadata.token_endpoint.as_ref(), "token_endpoint")?;
        let redirect = RedirectUrl::new(self.redirect_uri.to_owned())
            .map_err(|e| AuthError::Callback(format!("bad redirect URI: {e}")))?;
        let client = self.client(token.clone()).set_redirect_uri(redirect);
        let mut request = client
            .exchange_code(AuthorizationCode::new(code))
            .set_pkce_verifier(pending.verifier)
            .add_extra_param("resource", self.resource);
        for (name, value) in self.assertion(&token)? {
            request = request.add_extra_param(name, value);
        }
        let http = OAuthHttp(&self.fetch.capped);
        let response = request.request_async(&http).await.map_err(token_error)?;
        Ok(self.tokens(&response, &pending.scopes, None))
    }

    /// RFC 9207: an `iss` in the response must be the issuer, character for character; a
    /// server that promises one must send it.
    fn check_iss(&self, iss: Option<&str>) -> Result<(), AuthError> {
        let promised = self.metadata.authorization_response_iss_parameter_supported == Some(true);
        match iss {
            Some(iss) if iss != self.credentials.issuer => Err(AuthError::Callback(format!(
                "iss {:?} is not the issuer {:?}",
                iss.chars().take(200).collect::<String>(),
                self.credentials.issuer
            ))),
            None if promised => Err(AuthError::Callback(
                "the server promises iss in its responses and sent none".to_owned(),
            )),
            _ => Ok(()),
        }
    }

    /// The client credentials grant (RFC 6749 §4.4): a token for the client itself, with
    /// its own credentials and no user step, for `scopes` and the resource.
    pub(crate) async fn client_credentials(&self, scopes: &[String]) -> Result<Tokens, AuthError> {
        let token = self.endpoint(self.metadata.token_endpoint.as_ref(), "token_endpoint")?;
        let client = self.client(token.clone());
        let mut request = client
            .exchange_client_credentials()
            .add_scopes(scopes.iter().map(|s| Scope::new(s.clone())))
            .add_extra_param("resource", self.resource);
        for (name, value) in self.assertion(&token)? {
            request = request.add_extra_param(name, value);
        }
        let http = OAuthHttp(&self.fetch.capped);
        let response = request.request_async(&http).await.map_err(token_error)?;
        Ok(self.tokens(&response, scopes, None))
    }

    /// A refresh grant for `tokens`.
    pub(crate) async fn refresh(&self, tokens: &Tokens) -> Result<Tokens, AuthError> {
        let Some(refresh) = &tokens.refresh_token else {
            return Err(AuthError::Token("no refresh token".to_owned()));
        };
        let token = self.endpoint(self.metadata.token_endpoint.as_ref(), "token_endpoint")?;
        let client = self.client(token.clone());
        let refresh_token = RefreshToken::new(refresh.expose().to_owned());
        let mut request = client
            .exchange_refresh_token(&refresh_token)
            .add_extra_param("resource", self.resource);
        for (name, value) in self.assertion(&token)? {
            request = request.add_extra_param(name, value);
        }
        let http = OAuthHttp(&self.fetch.capped);
        let response = request.request_async(&http).await.map_err(token_error)?;
        Ok(self.tokens(&response, &tokens.scopes, Some(refresh)))
    }

    fn client(
        &self,
        token: Url,
    ) -> BasicClient<
        oauth2::EndpointNotSet,
        oauth2::EndpointNotSet,
        oauth2::EndpointNotSet,
        oauth2::EndpointNotSet,
        oauth2::EndpointSet,
    > {
        let creds = self.credentials;
        let mut client = BasicClient::new(ClientId::new(creds.client_id.clone()))
            .set_token_uri(TokenUrl::from_url(token));
        let secret = creds
            .client_secret
            .as_ref()
            .map(|s| ClientSecret::new(s.expose().to_owned()));
        match (creds.method, secret) {
            (AuthMethod::SecretBasic, Some(secret)) => {
                client = client
                    .set_client_secret(secret)
                    .set_auth_type(AuthType::BasicAuth);
            }
            (AuthMethod::SecretPost, Some(secret)) => {
                client = client
                    .set_client_secret(secret)
                    .set_auth_type(AuthType::RequestBody);
            }
            // Public clients and private_key_jwt send only the id in the body.
            _ => client = client.set_auth_type(AuthType::RequestBody),
        }
        client
    }

    /// The `private_key_jwt` parameters (RFC 7523 §2.2), when that is the method.
    fn assertion(&self, token: &Url) -> Result<Vec<(&'static str, String)>, AuthError> {
        let creds = self.credentials;
        if creds.method != AuthMethod::PrivateKeyJwt {
            return Ok(Vec::new());
        }
        let key = creds
            .key
            .as_ref()
            .ok_or_else(|| AuthError::Token("private_key_jwt without a key".to_owned()))?;
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default()
            .as_secs();
        // RFC 7523 §3: the audience identifies the authorization server; its issuer and its
        // token endpoint both do, and servers differ in which one they check.
        let claims = serde_json::json!({
            "iss": creds.client_id, "sub": creds.client_id,
            "aud": [creds.issuer.as_str(), token.as_str()],
            "jti": CsrfToken::new_random().secret(), "iat": now, "exp": now + 60,
        });
        let mut header = jsonwebtoken::Header::new(jsonwebtoken::Algorithm::ES256);
        header.kid = key.key_id.clone();
        let encoding = jsonwebtoken::EncodingKey::from_ec_der(&key.pkcs8_der);
        let jwt = jsonwebtoken::encode(&header, &claims, &encoding)
            .map_err(|e| AuthError::Token(format!("cannot sign the client assertion: {e}")))?;
        Ok(vec![
            ("client_assertion_type", ASSERTION_TYPE.to_owned()),
            ("client_assertion", jwt),
        ])
    }

    fn tokens(
        &self,
        response: &BasicTokenResponse,
        asked: &[String],
        old_refresh: Option<&Secret>,
    ) -> Tokens {
        let scopes = response
            .scopes()
            .map(|s| s.iter().map(|s| s.to_string()).collect())
            .unwrap_or_else(|| asked.to_vec());
        Tokens {
            access_token: Secret::new(response.access_token().secret().clone()),
            // A refresh response without a new refresh token keeps the old one (RFC 6749 §6).
            refresh_token: response
                .refresh_token()
                .map(|r| Secret::new(r.secret().clone()))
                .or_else(|| old_refresh.cloned()),
            expires_at: response
                .expires_in()
                .map(|d| SystemTime::now() + d.min(Duration::from_secs(365 * 24 * 3600))),
            scopes,
            issuer: self.credentials.issuer.clone(),
        }
    }
}

fn token_error(e: RequestTokenError<FetchError, BasicErrorResponse>) -> AuthError {
    let text = match e {
        RequestTokenError::ServerResponse(r) => format!(
            "{}{}",
            r.error(),
            r.error_description()
                .map(|d| format!(": {d}"))
                .unwrap_or_default()
        ),
        RequestTokenError::Request(e) => e.0,
        RequestTokenError::Parse(e, _) => format!("not a token response: {e}"),
        RequestTokenError::Other(e) => e,
    };
    AuthError::Token(text.chars().take(300).collect())
}
