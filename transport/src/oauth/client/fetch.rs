//! Every HTTP exchange the authorization client makes: no redirects followed (a redirect to
//! another host would carry the request, and any secret in it, there), a deadline on each
//! read, a cap on each body, and http only to loopback.

use std::time::Duration;

use reqwest::Url;
use reqwest::header::{ACCEPT, CONTENT_TYPE};

use super::error::AuthError;
use crate::oauth::http::Capped;

/// The client's limits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FetchLimits {
    /// Deadline for an answer's status and headers, and for each read of its body.
    pub timeout: Duration,
    /// Largest metadata, registration or token document read.
    pub max_document_bytes: usize,
    /// Whether plain `http` is allowed to hosts other than loopback (never by default).
    pub allow_http: bool,
}

impl Default for FetchLimits {
    fn default() -> Self {
        Self {
            timeout: Duration::from_secs(15),
            max_document_bytes: 256 * 1024,
            allow_http: false,
        }
    }
}

/// The HTTP side of the authorization client.
#[derive(Debug, Clone)]
pub(crate) struct Fetcher {
    pub(crate) capped: Capped,
    pub(crate) limits: FetchLimits,
}

/// A fetched document: its status and body (capped).
pub(crate) struct Fetched {
    pub(crate) status: u16,
    pub(crate) body: Vec<u8>,
}

impl Fetcher {
    pub(crate) fn new(limits: FetchLimits) -> Self {
        let capped = Capped::new(limits.timeout, limits.max_document_bytes);
        Self { capped, limits }
    }

    /// `url` parsed and checked: http(s), no credentials in it, http only to loopback.
    pub(crate) fn checked(&self, url: &str, context: &'static str) -> Result<Url, AuthError> {
        let bad = |rule: &str| AuthError::UnsafeUrl {
            url: url.chars().take(200).collect(),
            context,
            rule: rule.to_owned(),
        };
        let parsed = Url::parse(url).map_err(|e| bad(&e.to_string()))?;
        if !parsed.username().is_empty() || parsed.password().is_some() {
            return Err(bad("it carries credentials"));
        }
        match parsed.scheme() {
            "https" => Ok(parsed),
            "http" if self.limits.allow_http || is_loopback(&parsed) => Ok(parsed),
            "http" => Err(bad("plain http is allowed only to loopback")),
            _ => Err(bad("the scheme must be https")),
        }
    }

    /// GET `url` for JSON.
    pub(crate) async fn get(&self, url: &Url) -> Result<Fetched, AuthError> {
        let request = self
            .capped
            .http
            .get(url.clone())
            .header(ACCEPT, "application/json");
        self.send(url, request).await
    }

    /// POST `body` as JSON to `url`.
    pub(crate) async fn post_json(
        &self,
        url: &Url,
        body: &serde_json::Value,
    ) -> Result<Fetched, AuthError> {
        let request = self
            .capped
            .http
            .post(url.clone())
            .header(ACCEPT, "application/json")
            .header(CONTENT_TYPE, "application/json")
            .body(body.to_string());
        self.send(url, request).await
    }

    async fn send(
        &self,
        url: &Url,
        request: reqwest::RequestBuilder,
    ) -> Result<Fetched, AuthError> {
        let doc = |rule: String| AuthError::Document {
            url: url.to_string(),
            rule,
        };
        let response = tokio::time::timeout(self.limits.timeout, request.send())
            .await
            .map_err(|_| doc("no answer in time".to_owned()))?
            .map_err(|e| doc(e.to_string()))?;
        let status = response.status().as_u16();
        let body = self.capped.read(response).await.map_err(doc)?;
        Ok(Fetched { status, body })
    }
}

fn is_loopback(url: &Url) -> bool {
    match url.host() {
        Some(oauth2::url::Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
        Some(oauth2::url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(oauth2::url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    }
}
