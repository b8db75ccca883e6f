//! The authorization client: an [`Authorizer`] for the Streamable HTTP client that answers a
//! server's 401 (or 403 `insufficient_scope`) by discovering the authorization server
//! (`discovery`), identifying the client there (`register`), running the authorization code
//! flow with PKCE through the application's [`UserAgent`] (`grant`), and keeping the tokens
//! in a [`TokenStore`]. Tokens go only to the server the client was made for, client
//! secrets only to the token endpoint the validated metadata names.

mod challenge;
mod discovery;
mod error;
mod fetch;
mod grant;
mod register;
mod store;

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, SystemTime};

use reqwest::Url;
use reqwest::header::HeaderValue;

pub use challenge::{Challenge, parse as parse_challenges};
pub use error::AuthError;
pub use fetch::FetchLimits;
pub use register::{AuthMethod, ClientKey, PreRegistered};
pub use store::{MemoryTokenStore, Secret, TokenStore, Tokens};

use crate::oauth::metadata::AuthorizationServerMetadata;
use crate::streamable_http::{Authorizer, BoxFuture};
use fetch::Fetcher;
use grant::Grant;
use register::Credentials;

/// The user step: show the authorization URL (open a browser) and return the URL the
/// authorization server sent the user agent back to (the redirect URI with `code`,
/// `state` and maybe `iss`).
pub trait UserAgent: Send + Sync + 'static {
    fn authorize(&self, url: Url) -> BoxFuture<'_, Result<Url, String>>;
}

/// What the client says about itself and how far it goes.
#[derive(Debug, Clone)]
pub struct OAuthSettings {
    pub client_name: String,
    /// Where the authorization server sends the user back.
    pub redirect_uri: String,
    /// `native` or `web`, sent when registering.
    pub application_type: String,
    /// An https URL serving the client's metadata, used as its `client_id` where the
    /// server supports Client ID Metadata Documents.
    pub metadata_document_url: Option<String>,
    /// Credentials registered beforehand, preferred over any other way.
    pub pre_registered: Option<PreRegistered>,
    /// Ask for `offline_access` (a refresh token) where the server offers it.
    pub offline_access: bool,
    /// Machine to machine: obtain tokens with the client credentials grant (RFC 6749 §4.4,
    /// as authorization extensions of agent protocols define it) and the
    /// pre-registered credentials (a secret, or a key for `private_key_jwt`), with no user
    /// step, instead of the authorization code flow.
    pub client_credentials: bool,
    /// Authorizations in a row without an accepted request before giving up.
    pub max_authorizations: u32,
    pub limits: FetchLimits,
}

impl OAuthSettings {
    pub fn new(client_name: impl Into<String>, redirect_uri: impl Into<String>) -> Self {
        Self {
            client_name: client_name.into(),
            redirect_uri: redirect_uri.into(),
            application_type: "native".to_owned(),
            metadata_document_url: None,
            pre_registered: None,
            offline_access: true,
            client_credentials: false,
            max_authorizations: 3,
            limits: FetchLimits::default(),
        }
    }
}

/// The authorization client of one server. Cheap to clone; put it in a
/// `ClientConfig::authorizer`.
#[derive(Clone)]
pub struct OAuthClient {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for OAuthClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OAuthClient")
            .field("server", &self.inner.server.as_str())
            .finish_non_exhaustive()
    }
}

struct Inner {
    server: Url,
    settings: OAuthSettings,
    fetch: Fetcher,
    store: Arc<dyn TokenStore>,
    agent: Arc<dyn UserAgent>,
    flow: tokio::sync::Mutex<Flow>,
    rounds: AtomicU32,
}

/// What the last authorization learnt: the client's identity at the issuer and where that
/// issuer's endpoints are, for refreshing.
#[derive(Default)]
struct Flow {
    credentials: Option<Credentials>,
    server: Option<(AuthorizationServerMetadata, String)>,
}

/// Tokens this close to expiry are refreshed before use.
const EXPIRY_MARGIN: Duration = Duration::from_secs(30);

/// Whether `tokens` expire within [`EXPIRY_MARGIN`].
fn expiring(tokens: &Tokens) -> bool {
    tokens
        .expires_at
        .is_some_and(|at| at <= SystemTime::now() + EXPIRY_MARGIN)
}

impl OAuthClient {
    /// A client for the server at `server` (the URL requests go to), asking the user
    /// through `agent` and keeping tokens in `store`.
    pub fn new(
        server: &str,
        settings: OAuthSettings,
        agent: impl UserAgent,
        store: Arc<dyn TokenStore>,
    ) -> Result<Self, AuthError> {
        let fetch = Fetcher::new(settings.limits.clone());
        let server = fetch.checked(server, "server URL")?;
        Ok(Self {
            inner: Arc::new(Inner {
                server,
                settings,
                fetch,
                store,
                agent: Arc::new(agent),
                flow: tokio::sync::Mutex::new(Flow::default()),
                rounds: AtomicU32::new(0),
            }),
        })
    }

    fn key(&self) -> &str {
        self.inner.server.as_str()
    }

    /// The current access token's header value, refreshed first when it is about to expire.
    async fn current(&self) -> Option<HeaderValue> {
        let mut tokens = self.inner.store.load(self.key())?;
        if expiring(&tokens) {
            tokens = self.refreshed().await?;
        }
        let mut value =
            HeaderValue::from_str(&format!("Bearer {}", tokens.access_token.expose())).ok()?;
        value.set_sensitive(true);
        Some(value)
    }

    /// The stored tokens refreshed with the issuer that granted them, or `None` (and the
    /// tokens dropped) when that cannot be done. One at a time: requests that found the same
    /// token expiring wait for the first one's refresh and take its result.
    async fn refreshed(&self) -> Option<Tokens> {
        let flow = self.inner.flow.lock().await;
        let tokens = self.inner.store.load(self.key())?;
        if !expiring(&tokens) {
            return Some(tokens);
        }
        let result = match (&flow.server, &flow.credentials) {
            (Some((metadata, resource)), Some(creds)) if creds.issuer == tokens.issuer => {
                let grant = self.grant(metadata, creds, resource);
                grant.refresh(&tokens).await.ok()
            }
            _ => None,
        };
        match &result {
            Some(fresh) => self.inner.store.save(self.key(), fresh.clone()),
            None => self.inner.store.clear(self.key()),
        }
        result
    }

    fn grant<'a>(
        &'a self,
        metadata: &'a AuthorizationServerMetadata,
        credentials: &'a Credentials,
        resource: &'a str,
    ) -> Grant<'a> {
        Grant {
            fetch: &self.inner.fetch,
            metadata,
            credentials,
            redirect_uri: &self.inner.settings.redirect_uri,
            resource,
        }
    }

    /// Answers one refusal: `status` (401, or 403) with these `WWW-Authenticate` values.
    /// `Ok` when fresh credentials are in the store. [`Authorizer::challenged`] is this with
    /// the typed error, and without a second flow for a request refused with credentials
    /// another request's flow has already replaced.
    pub async fn challenge(&self, status: u16, challenges: &[String]) -> Result<(), AuthError> {
        self.answer(status, challenges, None).await
    }

    /// [`Self::challenge`]; `sent`, when known, is the `Authorization` value the refused
    /// request carried (`Some(None)`: none).
    async fn answer(
        &self,
        status: u16,
        challenges: &[String],
        sent: Option<Option<&str>>,
    ) -> Result<(), AuthError> {
        let bearer = challenge::bearer(challenges).unwrap_or_default();
        let error = bearer.param("error");
        if status == 403 && error != Some("insufficient_scope") {
            return Err(AuthError::Refused(format!(
                "HTTP 403 {}",
                error.unwrap_or("")
            )));
        }
        // One flow at a time: refusals that arrive together wait here for the first one's
        // flow, then find its token in the store and only send again.
        let mut flow = self.inner.flow.lock().await;
        if let Some(sent) = sent
            && self.replaced(sent)
        {
            return Ok(());
        }
        let max = self.inner.settings.max_authorizations;
        if self.inner.rounds.fetch_add(1, Ordering::SeqCst) >= max {
            return Err(AuthError::RetryLimit(max));
        }
        self.authorize(
            &mut flow,
            status,
            bearer.param("resource_metadata"),
            bearer.param("scope"),
        )
        .await
    }

    /// Whether the stored token is no longer the one a refused request carried (`sent`, the
    /// whole `Authorization` value): another request's flow replaced it meanwhile, so
    /// sending again is all this refusal needs.
    fn replaced(&self, sent: Option<&str>) -> bool {
        let Some(tokens) = self.inner.store.load(self.key()) else {
            return false;
        };
        let carried = sent.and_then(|v| v.strip_prefix("Bearer "));
        carried != Some(tokens.access_token.expose())
    }

    /// Discovery, registration, and a refresh or a new authorization, under the flow lock.
    async fn authorize(
        &self,
        flow: &mut Flow,
        status: u16,
        hint: Option<&str>,
        challenged: Option<&str>,
    ) -> Result<(), AuthError> {
        let fetch = &self.inner.fetch;
        let found = discovery::resource_metadata(fetch, &self.inner.server, hint).await?;
        let (issuer, metadata, resource, resource_scopes) = match found {
            Some(prm) => {
                let issuer = prm
                    .authorization_servers
                    .first()
                    .ok_or(AuthError::NoAuthorizationServer)?
                    .clone();
                let metadata = discovery::server_metadata(fetch, &issuer)
                    .await?
                    .ok_or_else(|| AuthError::NoServerMetadata(issuer.clone()))?;
                (issuer, metadata, prm.resource, prm.scopes_supported)
            }
            None => self.legacy_server().await?,
        };
        let machine = self.inner.settings.client_credentials;
        let pkce = metadata
            .code_challenge_methods_supported
            .as_deref()
            .unwrap_or_default();
        // PKCE protects the authorization code, which the client credentials grant has not.
        if !machine && !pkce.iter().any(|m| m == "S256") {
            return Err(AuthError::NoPkce);
        }
        let tokens = self
            .inner
            .store
            .load(self.key())
            .filter(|t| t.issuer == issuer);
        let credentials = match flow.credentials.take() {
            Some(c) if c.issuer == issuer => c,
            // A new issuer (the resource moved): nothing of the old one is reused.
            _ if machine && self.inner.settings.pre_registered.is_none() => {
                return Err(AuthError::Registration(
                    "the client credentials grant needs pre-registered credentials".to_owned(),
                ));
            }
            _ => {
                let profile = self.profile();
                register::credentials(fetch, &issuer, &metadata, &profile).await?
            }
        };
        flow.credentials = Some(credentials.clone());
        flow.server = Some((metadata.clone(), resource.clone()));
        let grant = self.grant(&metadata, &credentials, &resource);
        if status == 401
            && let Some(old) = &tokens
            && old.refresh_token.is_some()
            && let Ok(fresh) = grant.refresh(old).await
        {
            self.inner.store.save(self.key(), fresh);
            return Ok(());
        }
        let prior = tokens.map(|t| t.scopes).unwrap_or_default();
        let scopes = self.scopes(challenged, &prior, resource_scopes.as_deref(), &metadata);
        if machine {
            let fresh = grant.client_credentials(&scopes).await?;
            self.inner.store.save(self.key(), fresh);
            return Ok(());
        }
        let pending = grant.start(&scopes)?;
        let callback = self
            .inner
            .agent
            .authorize(pending.url.clone())
            .await
            .map_err(AuthError::UserStep)?;
        let fresh = grant.finish(pending, &callback).await?;
        self.inner.store.save(self.key(), fresh);
        Ok(())
    }

    fn profile(&self) -> register::Profile<'_> {
        let s = &self.inner.settings;
        register::Profile {
            client_name: &s.client_name,
            redirect_uri: &s.redirect_uri,
            application_type: &s.application_type,
            metadata_document_url: s.metadata_document_url.as_deref(),
            pre_registered: s.pre_registered.as_ref(),
        }
    }

    /// A server without resource metadata (the 2025-03-26 revision): its origin is the
    /// issuer, with metadata at the well-known location or, failing that, the default
    /// endpoints `/authorize`, `/token` and `/register`.
    async fn legacy_server(
        &self,
    ) -> Result<
        (
            String,
            AuthorizationServerMetadata,
            String,
            Option<Vec<String>>,
        ),
        AuthError,
    > {
        let origin = self.inner.server.origin().ascii_serialization();
        let metadata = match discovery::server_metadata(&self.inner.fetch, &origin).await? {
            Some(m) => m,
            None => serde_json::from_value(serde_json::json!({
                "issuer": origin,
                "authorization_endpoint": format!("{origin}/authorize"),
                "token_endpoint": format!("{origin}/token"),
                "registration_endpoint": format!("{origin}/register"),
                "code_challenge_methods_supported": ["S256"],
            }))
            .map_err(|e| AuthError::NoServerMetadata(e.to_string()))?,
        };
        let resource = self.inner.server.as_str().to_owned();
        Ok((origin, metadata, resource, None))
    }

    /// The scopes to ask for: the challenge's (with those already granted, so that a step
    /// up loses nothing), else every scope the resource supports, else none (the parameter
    /// left out); `offline_access` added where the authorization server offers it.
    fn scopes(
        &self,
        challenged: Option<&str>,
        prior: &[String],
        supported: Option<&[String]>,
        metadata: &AuthorizationServerMetadata,
    ) -> Vec<String> {
        let mut wanted: Vec<&str> = match (challenged, supported) {
            (Some(c), _) => prior
                .iter()
                .map(String::as_str)
                .chain(c.split_whitespace())
                .collect(),
            (None, Some(list)) if !list.is_empty() => list.iter().map(String::as_str).collect(),
            _ => prior.iter().map(String::as_str).collect(),
        };
        let offered = metadata
            .scopes_supported
            .as_deref()
            .is_some_and(|s| s.iter().any(|s| s == "offline_access"));
        // A machine client asks for a new token when it needs one: no refresh token.
        let settings = &self.inner.settings;
        if settings.offline_access && !settings.client_credentials && offered && !wanted.is_empty()
        {
            wanted.push("offline_access");
        }
        let mut out: Vec<String> = Vec::new();
        for s in wanted {
            if !s.is_empty() && !out.iter().any(|o| o == s) {
                out.push(s.to_owned());
            }
        }
        out
    }
}

impl Authorizer for OAuthClient {
    fn authorization(&self) -> BoxFuture<'_, Option<HeaderValue>> {
        Box::pin(self.current())
    }

    fn challenged<'a>(
        &'a self,
        status: u16,
        challenges: &'a [String],
        sent: Option<&'a HeaderValue>,
    ) -> BoxFuture<'a, Result<(), String>> {
        Box::pin(async move {
            // A value that is not text cannot be a token of this client's.
            let sent = sent.map(|v| v.to_str().unwrap_or_default());
            self.answer(status, challenges, Some(sent))
                .await
                .map_err(|e| e.to_string())
        })
    }

    fn accepted(&self) {
        self.inner.rounds.store(0, Ordering::SeqCst);
    }
}
