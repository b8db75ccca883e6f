//! The resource-server layer over real HTTP: the metadata document, the 401/403 challenges,
//! a JWT verifier against a JWKS (fixed and fetched), and hostile tokens, none of which
//! reaches the handler.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use agentwire_transport::axum::{self, Extension, Router, routing::get};
use agentwire_transport::oauth::jwt::{JwtVerifier, Keys};
use agentwire_transport::oauth::metadata::ProtectedResourceMetadata;
use agentwire_transport::oauth::resource::{Identity, ResourceServer};
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use ring::signature::{ECDSA_P256_SHA256_FIXED_SIGNING, EcdsaKeyPair, KeyPair as _};
use serde_json::{Value, json};

const ISSUER: &str = "https://as.example";

/// A P-256 signing key and its public JWK under `kid`.
struct TestKey {
    encoding: EncodingKey,
    jwk: Value,
}

fn test_key(kid: &str) -> TestKey {
    let rng = ring::rand::SystemRandom::new();
    let pkcs8 = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &rng).unwrap();
    let pair =
        EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, pkcs8.as_ref(), &rng).unwrap();
    let point = pair.public_key().as_ref();
    let jwk = json!({
        "kty": "EC", "crv": "P-256", "kid": kid, "alg": "ES256", "use": "sig",
        "x": B64.encode(&point[1..33]), "y": B64.encode(&point[33..65]),
    });
    TestKey {
        encoding: EncodingKey::from_ec_der(pkcs8.as_ref()),
        jwk,
    }
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

fn sign(key: &TestKey, kid: Option<&str>, claims: &Value) -> String {
    let mut header = Header::new(Algorithm::ES256);
    header.kid = kid.map(str::to_owned);
    jsonwebtoken::encode(&header, claims, &key.encoding).unwrap()
}

fn claims(aud: &str) -> Value {
    json!({"iss": ISSUER, "aud": aud, "sub": "alice", "client_id": "cli",
           "scope": "files:read tools", "exp": now() + 300, "iat": now()})
}

/// A protected app on loopback: `/mcp` answers with the caller's subject and scopes and
/// counts its calls. Returns the base URL, the resource URL and the call counter.
async fn start(
    keys: impl FnOnce(&str) -> Keys,
    scopes: &[&str],
) -> (String, String, Arc<AtomicUsize>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let resource = format!("{base}/mcp");
    let metadata: ProtectedResourceMetadata = serde_json::from_value(json!({
        "resource": resource, "authorization_servers": [ISSUER],
        "scopes_supported": ["files:read", "tools", "admin"],
    }))
    .unwrap();
    let verifier = JwtVerifier::new(ISSUER, &resource, keys(&base));
    let rs = ResourceServer::new(metadata, verifier)
        .unwrap()
        .require_scopes(scopes.iter().copied());
    let calls = Arc::new(AtomicUsize::new(0));
    let counted = calls.clone();
    let app = Router::new().route(
        "/mcp",
        get(move |Extension(id): Extension<Identity>| {
            counted.fetch_add(1, Ordering::SeqCst);
            let scopes: Vec<_> = id.scopes.into_iter().collect();
            async move { format!("{} {}", id.subject.unwrap_or_default(), scopes.join(",")) }
        }),
    );
    let app = rs.protect(app);
    tokio::spawn(async move { axum::serve(listener, app).await });
    (base, resource, calls)
}

fn fixed(key: &TestKey) -> impl FnOnce(&str) -> Keys {
    let set = serde_json::from_value(json!({"keys": [key.jwk.clone()]})).unwrap();
    move |_| Keys::Set(set)
}

async fn get_with(url: &str, auth: Option<&str>) -> reqwest::Response {
    let mut request = reqwest::Client::new().get(url);
    if let Some(a) = auth {
        request = request.header("authorization", a);
    }
    request.send().await.unwrap()
}

fn challenge(r: &reqwest::Response) -> String {
    r.headers()
        .get("www-authenticate")
        .map(|v| v.to_str().unwrap().to_owned())
        .unwrap_or_default()
}

#[tokio::test]
async fn no_token_gets_a_challenge_naming_the_metadata_which_is_served() {
    let key = test_key("k1");
    let (base, resource, calls) = start(fixed(&key), &["tools"]).await;
    let r = get_with(&resource, None).await;
    assert_eq!(r.status(), 401);
    let www = challenge(&r);
    let metadata_url = format!("{base}/.well-known/oauth-protected-resource/mcp");
    assert!(www.starts_with("Bearer "), "{www}");
    assert!(
        www.contains(&format!("resource_metadata=\"{metadata_url}\"")),
        "{www}"
    );
    assert!(www.contains("scope=\"tools\""), "{www}");
    assert!(!www.contains("error="), "no token is not an error: {www}");
    for url in [
        metadata_url,
        format!("{base}/.well-known/oauth-protected-resource"),
    ] {
        let r = get_with(&url, None).await;
        assert_eq!(r.status(), 200, "{url}");
        let doc: Value = serde_json::from_str(&r.text().await.unwrap()).unwrap();
        assert_eq!(doc["resource"], resource);
        assert_eq!(doc["authorization_servers"], json!([ISSUER]));
    }
    // Paths the app does not have are guarded too.
    assert_eq!(get_with(&format!("{base}/other"), None).await.status(), 401);
    assert_eq!(calls.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn a_valid_token_reaches_the_handler_with_its_identity() {
    let key = test_key("k1");
    let (_, resource, calls) = start(fixed(&key), &["tools"]).await;
    let token = sign(&key, Some("k1"), &claims(&resource));
    let r = get_with(&resource, Some(&format!("Bearer {token}"))).await;
    assert_eq!(r.status(), 200);
    assert_eq!(r.text().await.unwrap(), "alice files:read,tools");
    // The scheme is case-insensitive.
    let r = get_with(&resource, Some(&format!("bearer {token}"))).await;
    assert_eq!(r.status(), 200);
    assert_eq!(calls.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn a_token_without_the_required_scope_is_forbidden() {
    let key = test_key("k1");
    let (_, resource, calls) = start(fixed(&key), &["tools", "admin"]).await;
    let token = sign(&key, Some("k1"), &claims(&resource));
    let r = get_with(&resource, Some(&format!("Bearer {token}"))).await;
    assert_eq!(r.status(), 403);
    let www = challenge(&r);
    assert!(www.contains("error=\"insufficient_scope\""), "{www}");
    assert!(www.contains("scope=\"tools admin\""), "{www}");
    assert_eq!(calls.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn hostile_tokens_are_refused_before_the_handler() {
    let key = test_key("k1");
    let other = test_key("k1");
    let (_, resource, calls) = start(fixed(&key), &[]).await;
    let good = claims(&resource);
    let with = |patch: Value| {
        let mut c = good.clone();
        for (k, v) in patch.as_object().unwrap() {
            c[k] = v.clone();
        }
        c
    };
    let part = |v: &Value| B64.encode(v.to_string());
    let valid = sign(&key, Some("k1"), &good);
    let (head, rest) = valid.split_once('.').unwrap();
    let (_, sig) = rest.split_once('.').unwrap();
    let mut hs = Header::new(Algorithm::HS256);
    hs.kid = Some("k1".to_owned());
    let x = key.jwk["x"].as_str().unwrap().as_bytes().to_vec();
    let cases: Vec<(&str, String)> = vec![
        (
            "alg none",
            format!(
                "{}.{}.",
                part(&json!({"alg": "none", "kid": "k1"})),
                part(&good)
            ),
        ),
        (
            "HS256 keyed with the public key",
            jsonwebtoken::encode(&hs, &good, &EncodingKey::from_secret(&x)).unwrap(),
        ),
        (
            "another key under the same kid",
            sign(&other, Some("k1"), &good),
        ),
        (
            "payload swapped under a valid signature",
            format!("{head}.{}.{sig}", part(&with(json!({"sub": "mallory"})))),
        ),
        (
            "expired",
            sign(&key, Some("k1"), &with(json!({"exp": now() - 3600}))),
        ),
        (
            "not yet valid",
            sign(&key, Some("k1"), &with(json!({"nbf": now() + 3600}))),
        ),
        (
            "no exp",
            sign(&key, Some("k1"), &{
                let mut c = good.clone();
                c.as_object_mut().unwrap().remove("exp");
                c
            }),
        ),
        (
            "another audience",
            sign(
                &key,
                Some("k1"),
                &with(json!({"aud": "https://elsewhere.example/mcp"})),
            ),
        ),
        (
            "another issuer",
            sign(
                &key,
                Some("k1"),
                &with(json!({"iss": "https://evil.example"})),
            ),
        ),
        ("unknown kid", sign(&key, Some("k9"), &good)),
        ("garbage", "not.a.jwt".to_owned()),
        (
            "oversized",
            format!("{}.{}.{sig}", head, "A".repeat(40_000)),
        ),
    ];
    for (name, token) in &cases {
        let r = get_with(&resource, Some(&format!("Bearer {token}"))).await;
        assert_eq!(r.status(), 401, "{name}");
        let www = challenge(&r);
        assert!(www.contains("error=\"invalid_token\""), "{name}: {www}");
        assert!(www.contains("resource_metadata="), "{name}: {www}");
    }
    for header in [
        "Basic YWxpY2U6c2VjcmV0",
        "Bearer",
        "Bearer a b",
        "Token abc",
    ] {
        let r = get_with(&resource, Some(header)).await;
        assert_eq!(r.status(), 401, "{header}");
    }
    // Two Authorization headers are ambiguous.
    let r = reqwest::Client::new()
        .get(&resource)
        .header("authorization", format!("Bearer {valid}"))
        .header("authorization", format!("Bearer {valid}"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 401);
    assert_eq!(
        calls.load(Ordering::SeqCst),
        0,
        "a hostile token reached the handler"
    );
    assert_eq!(
        get_with(&resource, Some(&format!("Bearer {valid}")))
            .await
            .status(),
        200
    );
}

#[tokio::test]
async fn a_fetched_key_set_is_cached_and_unknown_keys_cannot_force_refetches() {
    let key = test_key("k1");
    let fetches = Arc::new(AtomicUsize::new(0));
    // The key set on its own loopback server, counting fetches.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let jwks_url = format!("http://{}/jwks", listener.local_addr().unwrap());
    let set = json!({"keys": [key.jwk.clone()]}).to_string();
    let counted = fetches.clone();
    let jwks = Router::new().route(
        "/jwks",
        get(move || {
            counted.fetch_add(1, Ordering::SeqCst);
            let set = set.clone();
            async move { set }
        }),
    );
    tokio::spawn(async move { axum::serve(listener, jwks).await });
    let (_, resource, calls) = start(move |_| Keys::Url(jwks_url), &[]).await;
    let token = sign(&key, Some("k1"), &claims(&resource));
    for _ in 0..3 {
        let r = get_with(&resource, Some(&format!("Bearer {token}"))).await;
        assert_eq!(r.status(), 200);
    }
    for i in 0..5 {
        let stranger = sign(&key, Some(&format!("unknown-{i}")), &claims(&resource));
        let r = get_with(&resource, Some(&format!("Bearer {stranger}"))).await;
        assert_eq!(r.status(), 401);
    }
    assert_eq!(calls.load(Ordering::SeqCst), 3);
    assert_eq!(
        fetches.load(Ordering::SeqCst),
        1,
        "the key set was fetched again"
    );
}

#[tokio::test]
async fn an_unreachable_key_set_is_the_servers_fault() {
    let key = test_key("k1");
    let (_, resource, calls) =
        start(|_| Keys::Url("http://127.0.0.1:9/jwks".to_owned()), &[]).await;
    let token = sign(&key, Some("k1"), &claims(&resource));
    let r = get_with(&resource, Some(&format!("Bearer {token}"))).await;
    assert_eq!(r.status(), 503);
    assert_eq!(calls.load(Ordering::SeqCst), 0);
}

#[test]
fn a_resource_that_is_not_an_http_url_is_a_typed_error() {
    let key = test_key("k1");
    for resource in ["not a url", "ftp://host/x", "https://host/mcp#frag"] {
        let metadata: ProtectedResourceMetadata =
            serde_json::from_value(json!({"resource": resource})).unwrap();
        let verifier = JwtVerifier::new(ISSUER, resource, fixed(&key)(""));
        assert!(
            ResourceServer::new(metadata, verifier).is_err(),
            "{resource}"
        );
    }
}
