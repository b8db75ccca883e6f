//! The resource-server layer: wraps any axum [`Router`] so that every request needs a valid
//! bearer token, publishes the Protected Resource Metadata at its well-known paths, and
//! hands the caller's [`Identity`] to handlers as a request extension.
//!
//! A missing or bad token is answered `401` with `WWW-Authenticate: Bearer
//! resource_metadata="…"` (and `scope="…"` when scopes are required), which is all a client
//! needs to find the authorization server; a token without the required scopes is answered
//! `403` with `error="insufficient_scope"`.

use std::collections::BTreeSet;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use axum::Router;
use axum::extract::Request;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::metadata::{PROTECTED_RESOURCE, ProtectedResourceMetadata, well_known_path};

/// Who called: what a verified token says. Handlers read it as `Extension<Identity>`.
/// It holds the token's claims, never the token itself.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Identity {
    /// The token's subject (`sub`): the user or service on whose behalf the call is made.
    pub subject: Option<String>,
    /// The client the token was issued to (`client_id`, else `azp`).
    pub client_id: Option<String>,
    /// The granted scopes.
    pub scopes: BTreeSet<String>,
    /// Expiry, seconds since the Unix epoch.
    pub expires_at: Option<u64>,
    /// Every claim, for what the fields above leave out.
    pub claims: serde_json::Map<String, serde_json::Value>,
}

impl Identity {
    /// Whether every scope in `needed` was granted.
    pub fn has_scopes<S: AsRef<str>>(&self, needed: &[S]) -> bool {
        needed.iter().all(|s| self.scopes.contains(s.as_ref()))
    }
}

/// Why a token was refused. Every variant but [`VerifyError::Unavailable`] is the caller's
/// fault (401); that one is the verifier's (503).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum VerifyError {
    #[error("the token is not well-formed: {0}")]
    Malformed(String),
    #[error("the token's signature does not verify")]
    Signature,
    #[error("the token's algorithm {0} is not accepted")]
    Algorithm(String),
    #[error("no key for the token (key id {0:?})")]
    UnknownKey(Option<String>),
    #[error("the token has expired or is not yet valid")]
    Expired,
    #[error("the authorization server says the token is not active")]
    Inactive,
    #[error("the token was not issued for this resource (audience)")]
    Audience,
    #[error("the token was not issued by the expected authorization server")]
    Issuer,
    #[error("the token lacks the claim {0}")]
    MissingClaim(String),
    #[error("the token is over the {0}-byte limit")]
    TooLarge(usize),
    #[error("the token cannot be checked now: {0}")]
    Unavailable(String),
}

/// A boxed future, so that verifiers can be held as trait objects.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Checks a bearer token and says who it belongs to. [`super::jwt::JwtVerifier`] checks
/// JWTs against a JWKS; an application may check opaque tokens by introspection instead.
pub trait TokenVerifier: Send + Sync + 'static {
    fn verify<'a>(&'a self, token: &'a str) -> BoxFuture<'a, Result<Identity, VerifyError>>;
}

/// A protected resource: its metadata, the scopes every request needs, and its verifier.
/// Cheap to clone.
#[derive(Clone)]
pub struct ResourceServer {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for ResourceServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResourceServer")
            .field("metadata", &self.inner.metadata)
            .field("required_scopes", &self.inner.required_scopes)
            .finish_non_exhaustive()
    }
}

struct Inner {
    metadata: ProtectedResourceMetadata,
    /// The absolute URL of the metadata document, named in every challenge.
    metadata_url: String,
    /// The paths the document is served at.
    paths: Vec<String>,
    required_scopes: Vec<String>,
    verifier: Box<dyn TokenVerifier>,
    max_token_bytes: usize,
}

/// Why a [`ResourceServer`] could not be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ResourceError {
    #[error("the resource identifier {url:?} is not usable: {rule}")]
    Resource { url: String, rule: String },
}

/// The largest bearer token read by default: JWTs with many claims stay far below it.
const MAX_TOKEN_BYTES: usize = 16 * 1024;

impl ResourceServer {
    /// A resource server publishing `metadata` (whose `resource` is the public URL clients
    /// use, with no fragment) and checking tokens with `verifier`.
    pub fn new(
        metadata: ProtectedResourceMetadata,
        verifier: impl TokenVerifier,
    ) -> Result<Self, ResourceError> {
        let bad = |rule: &str| ResourceError::Resource {
            url: metadata.resource.clone(),
            rule: rule.to_owned(),
        };
        let url = reqwest::Url::parse(&metadata.resource).map_err(|e| bad(&e.to_string()))?;
        if !matches!(url.scheme(), "http" | "https") || url.fragment().is_some() {
            return Err(bad("it must be an http(s) URL without a fragment"));
        }
        let specific = well_known_path(PROTECTED_RESOURCE, url.path());
        let root = well_known_path(PROTECTED_RESOURCE, "/");
        let origin = url.origin().ascii_serialization();
        let metadata_url = format!("{origin}{specific}");
        // The path-specific location is the one RFC 9728 names; the root one serves clients
        // that only try it (a server with one resource is unambiguous).
        let mut paths = vec![specific];
        if !paths.contains(&root) {
            paths.push(root);
        }
        Ok(Self {
            inner: Arc::new(Inner {
                metadata,
                metadata_url,
                paths,
                required_scopes: Vec::new(),
                verifier: Box::new(verifier),
                max_token_bytes: MAX_TOKEN_BYTES,
            }),
        })
    }

    /// Scopes every request needs (sent in challenges so that the client asks for them).
    pub fn require_scopes<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        let scopes = scopes.into_iter().map(Into::into).collect();
        if let Some(inner) = Arc::get_mut(&mut self.inner) {
            inner.required_scopes = scopes;
        }
        self
    }

    /// The absolute URL of the metadata document.
    pub fn metadata_url(&self) -> &str {
        &self.inner.metadata_url
    }

    /// `router` behind the token check, beside the metadata document (which needs no
    /// token). Handlers of `router` can extract `Extension<Identity>`. The document is
    /// answered before routing, so that no resource path can clash with `router`'s routes.
    pub fn protect(&self, router: Router) -> Router {
        let guard = self.clone();
        Router::new()
            .fallback_service(router)
            .layer(axum::middleware::from_fn(
                move |req: Request, next: Next| {
                    let guard = guard.clone();
                    async move { guard.admit(req, next).await }
                },
            ))
    }

    fn metadata_response(&self) -> Response {
        let body = serde_json::to_string(&self.inner.metadata).unwrap_or_default();
        (
            [
                (header::CONTENT_TYPE, "application/json"),
                (header::CACHE_CONTROL, "max-age=3600"),
            ],
            body,
        )
            .into_response()
    }

    async fn admit(&self, mut req: Request, next: Next) -> Response {
        let path = req.uri().path();
        if self.inner.paths.iter().any(|p| p == path) {
            return if req.method() == axum::http::Method::GET {
                self.metadata_response()
            } else {
                StatusCode::METHOD_NOT_ALLOWED.into_response()
            };
        }
        match self.authenticate(req.headers()).await {
            Ok(identity) => {
                req.extensions_mut().insert(identity);
                next.run(req).await
            }
            Err(refusal) => refusal,
        }
    }

    /// Checks the request's bearer token: the caller's identity, or the answer refusing
    /// the request. For servers that are not axum routers.
    pub async fn authenticate(&self, headers: &HeaderMap) -> Result<Identity, Response> {
        let token = match bearer(headers) {
            Bearer::Missing => return Err(self.unauthorized(None)),
            Bearer::Malformed => {
                return Err(self.unauthorized(Some("the Authorization header is not Bearer")));
            }
            Bearer::Token(t) => t,
        };
        if token.len() > self.inner.max_token_bytes {
            let e = VerifyError::TooLarge(self.inner.max_token_bytes);
            return Err(self.unauthorized(Some(&e.to_string())));
        }
        let identity = match self.inner.verifier.verify(token).await {
            Ok(identity) => identity,
            Err(VerifyError::Unavailable(why)) => {
                tracing::warn!("token verification unavailable: {why}");
                return Err(StatusCode::SERVICE_UNAVAILABLE.into_response());
            }
            Err(e) => return Err(self.unauthorized(Some(&e.to_string()))),
        };
        if !identity.has_scopes(&self.inner.required_scopes) {
            return Err(self.insufficient_scope(&self.inner.required_scopes));
        }
        Ok(identity)
    }

    /// `401`: no token, or a bad one (`why`, sent as `error_description`).
    pub fn unauthorized(&self, why: Option<&str>) -> Response {
        let mut params = vec![("resource_metadata", self.inner.metadata_url.clone())];
        if !self.inner.required_scopes.is_empty() {
            params.push(("scope", self.inner.required_scopes.join(" ")));
        }
        if let Some(why) = why {
            params.push(("error", "invalid_token".to_owned()));
            params.push(("error_description", why.to_owned()));
        }
        challenge(StatusCode::UNAUTHORIZED, &params)
    }

    /// `403`: the token is good but lacks `scopes`; the client may step up and ask for them.
    /// Handlers that need more than the layer's required scopes answer with this.
    pub fn insufficient_scope<S: AsRef<str>>(&self, scopes: &[S]) -> Response {
        let scope = scopes
            .iter()
            .map(AsRef::as_ref)
            .collect::<Vec<_>>()
            .join(" ");
        let params = [
            ("error", "insufficient_scope".to_owned()),
            ("scope", scope),
            ("resource_metadata", self.inner.metadata_url.clone()),
        ];
        challenge(StatusCode::FORBIDDEN, &params)
    }
}

/// A `WWW-Authenticate: Bearer` answer with `params` as quoted strings (RFC 6750 §3).
fn challenge(status: StatusCode, params: &[(&str, String)]) -> Response {
    let rendered = params
        .iter()
        .map(|(k, v)| format!("{k}=\"{}\"", quoted(v)))
        .collect::<Vec<_>>()
        .join(", ");
    let value = HeaderValue::from_str(&format!("Bearer {rendered}"))
        .unwrap_or_else(|_| HeaderValue::from_static("Bearer"));
    let mut response = status.into_response();
    response
        .headers_mut()
        .insert(header::WWW_AUTHENTICATE, value);
    response
}

/// A quoted-string's content: quotes and backslashes escaped, control characters and
/// non-ASCII (which a header cannot carry) dropped.
fn quoted(v: &str) -> String {
    let mut out = String::with_capacity(v.len());
    for c in v.chars() {
        match c {
            '"' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            ' '..='~' => out.push(c),
            _ => {}
        }
    }
    out
}

enum Bearer<'a> {
    Missing,
    Malformed,
    Token(&'a str),
}

/// The `Authorization` header's bearer token (the scheme is case-insensitive, RFC 7235).
fn bearer(headers: &HeaderMap) -> Bearer<'_> {
    let mut values = headers.get_all(header::AUTHORIZATION).iter();
    let (Some(value), None) = (values.next(), values.next()) else {
        return if headers.contains_key(header::AUTHORIZATION) {
            Bearer::Malformed
        } else {
            Bearer::Missing
        };
    };
    let Ok(value) = value.to_str() else {
        return Bearer::Malformed;
    };
    match value.split_once(' ') {
        Some((scheme, token))
            if scheme.eq_ignore_ascii_case("bearer")
                && !token.trim().is_empty()
                && !token.trim().contains(' ') =>
        {
            Bearer::Token(token.trim())
        }
        _ => Bearer::Malformed,
    }
}
