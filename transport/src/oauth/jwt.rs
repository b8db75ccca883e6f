//! A [`TokenVerifier`] for JWT access tokens (RFC 9068) signed by the authorization server:
//! the signature against its JWKS (fixed, or fetched and cached), then issuer, audience
//! (the resource), expiry and not-before. Only asymmetric algorithms are accepted, and only
//! the one a key declares, so that a public key can never serve as an HMAC secret.

use std::collections::BTreeSet;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::jwk::{Jwk, JwkSet};
use jsonwebtoken::{Algorithm, DecodingKey, Validation};

use super::http::Capped;
use super::resource::{BoxFuture, Identity, TokenVerifier, VerifyError};

/// Where the keys come from.
#[derive(Debug, Clone)]
pub enum Keys {
    /// A fixed set.
    Set(JwkSet),
    /// The authorization server's `jwks_uri`, fetched on first use and again (at most every
    /// [`JwtVerifier::refetch_after`]) when a token names a key not in the cached set.
    Url(String),
}

/// Checks JWT access tokens issued by `issuer` for `audience`.
#[derive(Debug)]
pub struct JwtVerifier {
    issuer: String,
    audience: Vec<String>,
    keys: Keys,
    leeway: u64,
    refetch_after: Duration,
    /// Where the key set is fetched with: 10 s per read, 256 KiB at most.
    http: Capped,
    cache: Mutex<Option<(JwkSet, Instant)>>,
}

impl JwtVerifier {
    /// Tokens must carry `iss` = `issuer` and name `audience` (the resource identifier) in
    /// `aud`.
    pub fn new(issuer: impl Into<String>, audience: impl Into<String>, keys: Keys) -> Self {
        let cache = match &keys {
            Keys::Set(set) => Some((set.clone(), Instant::now())),
            Keys::Url(_) => None,
        };
        Self {
            issuer: issuer.into(),
            audience: vec![audience.into()],
            keys,
            leeway: 30,
            refetch_after: Duration::from_secs(60),
            // Redirects are not followed: the key set comes from where the metadata says.
            http: Capped::new(Duration::from_secs(10), 256 * 1024),
            cache: Mutex::new(cache),
        }
    }

    /// Clock skew tolerated on `exp` and `nbf`, in seconds (30 by default).
    pub fn leeway(mut self, seconds: u64) -> Self {
        self.leeway = seconds;
        self
    }

    /// The shortest time between two fetches of the key set (60 s by default), so that
    /// tokens naming unknown keys cannot make this server hammer the authorization server.
    pub fn refetch_after(mut self, after: Duration) -> Self {
        self.refetch_after = after;
        self
    }

    async fn check(&self, token: &str) -> Result<Identity, VerifyError> {
        let header = jsonwebtoken::decode_header(token)
            .map_err(|e| VerifyError::Malformed(e.to_string()))?;
        if !asymmetric(header.alg) {
            return Err(VerifyError::Algorithm(format!("{:?}", header.alg)));
        }
        let jwk = self.key_for(header.kid.as_deref()).await?;
        // Both enums name algorithms by their JOSE names.
        if let Some(declared) = &jwk.common.key_algorithm
            && format!("{declared:?}") != format!("{:?}", header.alg)
        {
            return Err(VerifyError::Algorithm(format!("{:?}", header.alg)));
        }
        let key = DecodingKey::from_jwk(&jwk).map_err(|_| VerifyError::UnknownKey(header.kid))?;
        let mut validation = Validation::new(header.alg);
        validation.set_issuer(&[&self.issuer]);
        validation.set_audience(&self.audience);
        validation.set_required_spec_claims(&["exp", "iss", "aud"]);
        validation.leeway = self.leeway;
        validation.validate_nbf = true;
        let data = jsonwebtoken::decode::<serde_json::Map<String, serde_json::Value>>(
            token,
            &key,
            &validation,
        )
        .map_err(|e| refusal(e.kind()))?;
        Ok(identity(data.claims))
    }

    /// The key a token names (or the only one, when it names none).
    async fn key_for(&self, kid: Option<&str>) -> Result<Jwk, VerifyError> {
        if let Some(jwk) = self.cached(kid) {
            return Ok(jwk);
        }
        let Keys::Url(url) = &self.keys else {
            return Err(VerifyError::UnknownKey(kid.map(str::to_owned)));
        };
        let stale = {
            let cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
            cache
                .as_ref()
                .is_none_or(|(_, at)| at.elapsed() >= self.refetch_after)
        };
        if !stale {
            return Err(VerifyError::UnknownKey(kid.map(str::to_owned)));
        }
        let set = self.fetch(url).await?;
        *self.cache.lock().unwrap_or_else(|e| e.into_inner()) = Some((set, Instant::now()));
        self.cached(kid)
            .ok_or_else(|| VerifyError::UnknownKey(kid.map(str::to_owned)))
    }

    fn cached(&self, kid: Option<&str>) -> Option<Jwk> {
        let cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        let (set, _) = cache.as_ref()?;
        match kid {
            Some(kid) => set.find(kid).cloned(),
            None if set.keys.len() == 1 => set.keys.first().cloned(),
            None => None,
        }
    }

    async fn fetch(&self, url: &str) -> Result<JwkSet, VerifyError> {
        let unavailable = |why: String| VerifyError::Unavailable(format!("JWKS {url}: {why}"));
        let request = self.http.http.get(url).send();
        let response = tokio::time::timeout(self.http.timeout, request)
            .await
            .map_err(|_| unavailable("timed out".to_owned()))?
            .map_err(|e| unavailable(e.to_string()))?;
        if !response.status().is_success() {
            return Err(unavailable(format!("HTTP {}", response.status())));
        }
        let body = self.http.read(response).await.map_err(unavailable)?;
        serde_json::from_slice(&body).map_err(|e| unavailable(e.to_string()))
    }
}

impl TokenVerifier for JwtVerifier {
    fn verify<'a>(&'a self, token: &'a str) -> BoxFuture<'a, Result<Identity, VerifyError>> {
        Box::pin(self.check(token))
    }
}

fn asymmetric(alg: Algorithm) -> bool {
    !matches!(alg, Algorithm::HS256 | Algorithm::HS384 | Algorithm::HS512)
}

fn refusal(kind: &ErrorKind) -> VerifyError {
    match kind {
        ErrorKind::ExpiredSignature | ErrorKind::ImmatureSignature => VerifyError::Expired,
        ErrorKind::InvalidAudience => VerifyError::Audience,
        ErrorKind::InvalidIssuer => VerifyError::Issuer,
        ErrorKind::InvalidSignature => VerifyError::Signature,
        ErrorKind::InvalidAlgorithm | ErrorKind::InvalidAlgorithmName => {
            VerifyError::Algorithm("not the key's".to_owned())
        }
        ErrorKind::MissingRequiredClaim(c) => VerifyError::MissingClaim(c.clone()),
        other => VerifyError::Malformed(format!("{other:?}")),
    }
}

/// The identity a token's claims describe: scopes from `scope` (space-separated, RFC 9068)
/// or `scp` (a list, as some servers send).
fn identity(claims: serde_json::Map<String, serde_json::Value>) -> Identity {
    let text = |name: &str| claims.get(name).and_then(|v| v.as_str()).map(str::to_owned);
    let mut scopes = BTreeSet::new();
    if let Some(s) = claims.get("scope").and_then(|v| v.as_str()) {
        scopes.extend(s.split_whitespace().map(str::to_owned));
    }
    if let Some(list) = claims.get("scp").and_then(|v| v.as_array()) {
        scopes.extend(list.iter().filter_map(|v| v.as_str()).map(str::to_owned));
    }
    Identity {
        subject: text("sub"),
        client_id: text("client_id").or_else(|| text("azp")),
        scopes,
        expires_at: claims.get("exp").and_then(|v| v.as_u64()),
        claims,
    }
}
