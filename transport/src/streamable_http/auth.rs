//! The client's credentials hook: an [`Authorizer`] supplies the `Authorization` header and,
//! when the server refuses a request (401, or 403 with a challenge), obtains new credentials
//! so that the request can be sent again. The OAuth client (`oauth::client`, feature
//! `oauth-client`) is one; the transport itself knows no authorization scheme.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use reqwest::header::HeaderValue;

/// A boxed future, so that authorizers can be held as trait objects.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Supplies credentials for a client's requests.
pub trait Authorizer: Send + Sync + 'static {
    /// The `Authorization` value for the next request, if any (an implementation may refresh
    /// an expired token here).
    fn authorization(&self) -> BoxFuture<'_, Option<HeaderValue>>;

    /// The server refused a request with `status` and these `WWW-Authenticate` values;
    /// `sent` is the `Authorization` value that request carried (`None`: it carried none).
    /// `Ok` sends the request again with fresh credentials; `Err` gives up, saying why.
    /// Requests refused at the same moment each call this: an implementation that has
    /// already replaced `sent` (for another of them) says `Ok` without obtaining new
    /// credentials again. An implementation bounds how often it says `Ok` in a row.
    fn challenged<'a>(
        &'a self,
        status: u16,
        challenges: &'a [String],
        sent: Option<&'a HeaderValue>,
    ) -> BoxFuture<'a, Result<(), String>>;

    /// A request carrying this authorizer's credentials was accepted.
    fn accepted(&self) {}
}

/// An [`Authorizer`] in a [`super::ClientConfig`]: compared by identity, shown by name only
/// (credentials never reach a log through it).
#[derive(Clone)]
pub struct SharedAuthorizer(pub Arc<dyn Authorizer>);

impl std::fmt::Debug for SharedAuthorizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SharedAuthorizer(..)")
    }
}

impl PartialEq for SharedAuthorizer {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for SharedAuthorizer {}

/// Requests sent again after a challenge, at most, whatever the authorizer says.
pub(crate) const MAX_CHALLENGES: u32 = 4;

/// Whether a refusal is one an authorizer may answer: 401, or 403 with a `Bearer`-style
/// challenge (`insufficient_scope` step-up).
pub(crate) fn is_challenge(status: reqwest::StatusCode, challenges: &[String]) -> bool {
    status == reqwest::StatusCode::UNAUTHORIZED
        || (status == reqwest::StatusCode::FORBIDDEN && !challenges.is_empty())
}

/// Every `WWW-Authenticate` value of `headers`, as text.
pub(crate) fn challenges(headers: &reqwest::header::HeaderMap) -> Vec<String> {
    headers
        .get_all(reqwest::header::WWW_AUTHENTICATE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .map(str::to_owned)
        .collect()
}
