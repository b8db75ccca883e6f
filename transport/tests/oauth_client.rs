//! The OAuth client against authorization servers on loopback: the whole flow against this
//! crate's own resource-server layer (discovery, registration, PKCE, a JWT the layer
//! accepts), and hostile metadata and responses, each a typed error with no token or secret
//! sent where it does not belong.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use agentwire_transport::axum::{
    self, Router,
    extract::{Query, Request},
    http::{HeaderMap, StatusCode},
    response::{IntoResponse, Redirect, Response},
    routing::{any, get, post},
};
use agentwire_transport::oauth::client::{
    AuthError, MemoryTokenStore, OAuthClient, OAuthSettings, TokenStore, UserAgent,
};
use agentwire_transport::oauth::jwt::{JwtVerifier, Keys};
use agentwire_transport::oauth::metadata::ProtectedResourceMetadata;
use agentwire_transport::oauth::resource::ResourceServer;
use agentwire_transport::reqwest::{self, Url};
use agentwire_transport::streamable_http::{
    self, BoxFuture, Client, ClientConfig, ClientError, Kind, Outgoing, Profile, ServerConfig,
    SessionPipe, SharedAuthorizer,
};
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use ring::signature::{ECDSA_P256_SHA256_FIXED_SIGNING, EcdsaKeyPair, KeyPair as _};
use serde_json::{Value, json};

const PROFILE: Profile = Profile {
    path: "/mcp",
    session_header: "Mcp-Session-Id",
    version_header: "MCP-Protocol-Version",
    versions: &["2025-11-25"],
    opens_with: "initialize",
    version_member: "protocolVersion",
    priming_since: None,
    version_source: None,
    unsupported_code: agentwire_transport::streamable_http::DEFAULT_UNSUPPORTED_CODE,
    mirror: &[],
    mirror_since: None,
    mirror_base64: None,
    mismatch_code: agentwire_transport::streamable_http::DEFAULT_MISMATCH_CODE,
    sealed_state: None,
    error_status: &[],
};

const INIT: &str =
    r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}"#;

/// The user step without a user: read the authorization endpoint's redirect.
struct ReadRedirect;

impl UserAgent for ReadRedirect {
    fn authorize(&self, url: Url) -> BoxFuture<'_, Result<Url, String>> {
        Box::pin(async move {
            let http = reqwest::Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .map_err(|e| e.to_string())?;
            let r = http.get(url).send().await.map_err(|e| e.to_string())?;
            let location = r
                .headers()
                .get("location")
                .and_then(|v| v.to_str().ok())
                .ok_or("no redirect")?;
            Url::parse(location).map_err(|e| e.to_string())
        })
    }
}

/// Every request a mock server saw: method, path and `Authorization` header.
type Log = Arc<Mutex<Vec<(String, String, Option<String>)>>>;

async fn listen() -> (tokio::net::TcpListener, String) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    (listener, base)
}

fn logged(router: Router, log: Log) -> Router {
    router.layer(axum::middleware::from_fn(
        move |req: Request, next: axum::middleware::Next| {
            let log = log.clone();
            async move {
                let auth = req
                    .headers()
                    .get("authorization")
                    .and_then(|v| v.to_str().ok())
                    .map(str::to_owned);
                log.lock().unwrap().push((
                    req.method().to_string(),
                    req.uri().path().to_owned(),
                    auth,
                ));
                next.run(req).await
            }
        },
    ))
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

/// A mock authorization server: metadata (patched by `patch`), registration, an
/// authorization endpoint that grants at once (with `iss` as given), and a token endpoint
/// issuing ES256 JWTs for the `resource` it is asked for.
struct AuthServer {
    base: String,
    log: Log,
    jwk: Value,
}

async fn auth_server(patch: Value, iss: Option<&'static str>) -> AuthServer {
    let (listener, base) = listen().await;
    let rng = ring::rand::SystemRandom::new();
    let pkcs8 = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &rng).unwrap();
    let pair =
        EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, pkcs8.as_ref(), &rng).unwrap();
    let point = pair.public_key().as_ref().to_vec();
    let jwk = json!({"kty": "EC", "crv": "P-256", "kid": "as", "alg": "ES256",
                     "x": B64.encode(&point[1..33]), "y": B64.encode(&point[33..65])});
    let key = EncodingKey::from_ec_der(pkcs8.as_ref());
    let mut metadata = json!({
        "issuer": base,
        "authorization_endpoint": format!("{base}/authorize"),
        "token_endpoint": format!("{base}/token"),
        "registration_endpoint": format!("{base}/register"),
        "code_challenge_methods_supported": ["S256"],
        "token_endpoint_auth_methods_supported": ["client_secret_basic"],
        "authorization_response_iss_parameter_supported": true,
    });
    for (k, v) in patch.as_object().unwrap() {
        metadata[k] = v.clone();
    }
    let issuer = base.clone();
    let iss = iss.map(|i| i.replace("{issuer}", &issuer));
    let app = Router::new()
        .route(
            "/.well-known/oauth-authorization-server",
            get(move || {
                let m = metadata.to_string();
                async move { ([("content-type", "application/json")], m) }
            }),
        )
        .route(
            "/register",
            post(|| async {
                let body = json!({"client_id": "dyn-client", "client_secret": "dyn-secret"});
                (StatusCode::CREATED, body.to_string())
            }),
        )
        .route(
            "/authorize",
            get(move |Query(q): Query<HashMap<String, String>>| {
                let iss = iss.clone();
                async move {
                    let mut back = Url::parse(&q["redirect_uri"]).unwrap();
                    back.query_pairs_mut()
                        .append_pair("code", "the-code")
                        .append_pair("state", &q["state"]);
                    if let Some(iss) = iss {
                        back.query_pairs_mut().append_pair("iss", &iss);
                    }
                    Redirect::to(back.as_str())
                }
            }),
        )
        .route(
            "/token",
            post(move |headers: HeaderMap, body: String| {
                let (key, issuer) = (key.clone(), issuer.clone());
                async move { token(&key, &issuer, &headers, &body) }
            }),
        );
    let log = Log::default();
    let app = logged(app, log.clone());
    tokio::spawn(async move { axum::serve(listener, app).await });
    AuthServer { base, log, jwk }
}

fn token(key: &EncodingKey, issuer: &str, headers: &HeaderMap, body: &str) -> Response {
    let form: HashMap<String, String> = url_form(body);
    let basic = headers.get("authorization").and_then(|v| v.to_str().ok());
    let expected = format!(
        "Basic {}",
        base64::engine::general_purpose::STANDARD.encode("dyn-client:dyn-secret")
    );
    if basic != Some(expected.as_str())
        || form.get("code").map(String::as_str) != Some("the-code")
        || !form.contains_key("code_verifier")
    {
        return (StatusCode::BAD_REQUEST, r#"{"error":"invalid_grant"}"#).into_response();
    }
    let claims = json!({"iss": issuer, "aud": form["resource"], "sub": "alice",
                        "scope": "tools", "exp": now() + 600});
    let mut header = Header::new(Algorithm::ES256);
    header.kid = Some("as".to_owned());
    let jwt = jsonwebtoken::encode(&header, &claims, key).unwrap();
    let body =
        json!({"access_token": jwt, "token_type": "Bearer", "expires_in": 600, "scope": "tools"});
    ([("content-type", "application/json")], body.to_string()).into_response()
}

fn url_form(body: &str) -> HashMap<String, String> {
    Url::parse(&format!("http://x/?{body}"))
        .unwrap()
        .query_pairs()
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect()
}

fn settings() -> OAuthSettings {
    OAuthSettings::new("test client", "http://localhost:1/callback")
}

/// An echo service answering every request with `{}`.
fn echo(mut pipe: SessionPipe) {
    tokio::spawn(async move {
        while let Some(message) = pipe.inbound.recv().await {
            if let Ok(Kind::Request { id, .. }) = streamable_http::classify(&message.text) {
                let answer = json!({"jsonrpc": "2.0", "id": id, "result": {"ok": true}});
                let _ = pipe
                    .outbound
                    .send(Outgoing::unrelated(answer.to_string()))
                    .await;
            }
        }
    });
}

/// The echo service behind this crate's resource layer, trusting `auth`'s tokens: its URL
/// and the log of what reached it.
async fn protected(auth: &AuthServer) -> (String, Log) {
    let (listener, base) = listen().await;
    let resource = format!("{base}/mcp");
    let metadata: ProtectedResourceMetadata = serde_json::from_value(json!({
        "resource": resource, "authorization_servers": [auth.base], "scopes_supported": ["tools"],
    }))
    .unwrap();
    let set = serde_json::from_value(json!({"keys": [auth.jwk]})).unwrap();
    let verifier = JwtVerifier::new(&auth.base, &resource, Keys::Set(set));
    let rs = ResourceServer::new(metadata, verifier)
        .unwrap()
        .require_scopes(["tools"]);
    let mcp_log = Log::default();
    let app = logged(
        rs.protect(streamable_http::router(echo, ServerConfig::new(PROFILE)).unwrap()),
        mcp_log.clone(),
    );
    tokio::spawn(async move { axum::serve(listener, app).await });
    (resource, mcp_log)
}

/// How many requests of `log` went to `path`.
fn hits(log: &Log, path: &str) -> usize {
    log.lock()
        .unwrap()
        .iter()
        .filter(|(_, p, _)| p == path)
        .count()
}

#[tokio::test]
async fn the_client_gets_a_token_the_resource_layer_accepts() {
    let auth = auth_server(json!({}), Some("{issuer}")).await;
    let (resource, mcp_log) = protected(&auth).await;

    let store = Arc::new(MemoryTokenStore::default());
    let oauth = OAuthClient::new(&resource, settings(), ReadRedirect, store.clone()).unwrap();
    let config = ClientConfig {
        authorizer: Some(SharedAuthorizer(Arc::new(oauth.clone()))),
        ..ClientConfig::default()
    };
    let (client, mut rx) = Client::new(&resource, PROFILE, config).unwrap();
    client.send(INIT).await.unwrap();
    let answer = tokio::time::timeout(std::time::Duration::from_secs(10), rx.recv())
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    assert!(answer.contains(r#""ok":true"#), "{answer}");
    let tokens = store.load(&resource).expect("tokens stored");
    assert_eq!(tokens.scopes, ["tools"]);
    // The token is never shown, by the store's entries nor by the client.
    let secret = tokens.access_token.expose().to_owned();
    assert!(!format!("{tokens:?} {oauth:?} {store:?}").contains(&secret));
    // The token went to the resource only; the client secret to the token endpoint only.
    for (method, path, authorization) in auth.log.lock().unwrap().iter() {
        let authorization = authorization.clone().unwrap_or_default();
        assert!(!authorization.contains(&secret), "{method} {path}");
        if path != "/token" {
            assert!(
                authorization.is_empty(),
                "{method} {path} carried {authorization}"
            );
        }
    }
    let mcp = mcp_log.lock().unwrap();
    assert_eq!(
        mcp.iter()
            .filter(|(_, p, a)| p == "/mcp" && a.is_none())
            .count(),
        1
    );
    assert_eq!(
        mcp.iter()
            .filter(|(_, p, a)| p == "/mcp" && a.as_deref() == Some(&format!("Bearer {secret}")))
            .count(),
        1
    );
}

/// Two requests refused at the same moment run one flow: the second waits for the first's,
/// finds its token and only sends again.
#[tokio::test]
async fn two_refusals_at_once_run_the_flow_once() {
    let auth = auth_server(json!({}), Some("{issuer}")).await;
    let (resource, mcp_log) = protected(&auth).await;
    let store = Arc::new(MemoryTokenStore::default());
    let oauth = OAuthClient::new(&resource, settings(), ReadRedirect, store.clone()).unwrap();
    let config = ClientConfig {
        authorizer: Some(SharedAuthorizer(Arc::new(oauth))),
        ..ClientConfig::default()
    };
    let (client, mut rx) = Client::new(&resource, PROFILE, config).unwrap();
    let second = INIT.replace(r#""id":1"#, r#""id":2"#);
    let (a, b) = tokio::join!(client.send(INIT), client.send(&second));
    a.unwrap();
    b.unwrap();
    let mut answered = Vec::new();
    for _ in 0..2 {
        let answer = tokio::time::timeout(std::time::Duration::from_secs(10), rx.recv())
            .await
            .unwrap()
            .unwrap()
            .unwrap();
        let answer: Value = serde_json::from_str(&answer).unwrap();
        assert_eq!(answer["result"]["ok"], true, "{answer}");
        answered.push(answer["id"].as_u64().unwrap());
    }
    answered.sort_unstable();
    assert_eq!(answered, [1, 2]);
    // Both were refused (no token yet), and one flow served both.
    let refused = mcp_log
        .lock()
        .unwrap()
        .iter()
        .filter(|(_, p, a)| p == "/mcp" && a.is_none())
        .count();
    assert_eq!(refused, 2);
    assert_eq!(hits(&auth.log, "/register"), 1);
    assert_eq!(hits(&auth.log, "/authorize"), 1, "one user step");
    assert_eq!(hits(&auth.log, "/token"), 1);
}

/// A machine client (client credentials grant) without pre-registered credentials stops
/// with a typed error: it registers nothing and asks for no token.
#[tokio::test]
async fn client_credentials_need_pre_registered_credentials() {
    let auth = auth_server(json!({}), None).await;
    let (resource, _mcp_log) = protected(&auth).await;
    let mut machine = settings();
    machine.client_credentials = true;
    let store = Arc::new(MemoryTokenStore::default());
    let oauth = OAuthClient::new(&resource, machine, ReadRedirect, store).unwrap();
    let prm = resource.replace("/mcp", "/.well-known/oauth-protected-resource/mcp");
    let e = oauth
        .challenge(401, &[format!("Bearer resource_metadata=\"{prm}\"")])
        .await
        .unwrap_err();
    assert!(matches!(e, AuthError::Registration(_)), "{e:?}");
    assert_eq!(hits(&auth.log, "/register"), 0);
    assert_eq!(hits(&auth.log, "/token"), 0);
}

/// A resource server whose metadata document is `prm` (status, body; `{self}` in the body
/// is the server's own URL, and a 3xx body is its `Location`), refusing every other request.
async fn hostile_resource(prm: (u16, String)) -> (String, Log) {
    let (listener, base) = listen().await;
    let server = format!("{base}/mcp");
    let (status, body) = (prm.0, prm.1.replace("{self}", &server));
    let app = Router::new()
        .route(
            "/.well-known/oauth-protected-resource/mcp",
            get(move || {
                let body = body.clone();
                async move {
                    let status = StatusCode::from_u16(status).unwrap();
                    if status.is_redirection() {
                        return (status, [("location", body)]).into_response();
                    }
                    (status, [("content-type", "application/json")], body).into_response()
                }
            }),
        )
        .fallback(any(|| async { StatusCode::UNAUTHORIZED }));
    let log = Log::default();
    let app = logged(app, log.clone());
    tokio::spawn(async move { axum::serve(listener, app).await });
    (server, log)
}

async fn refused(server: &str, challenge: &str) -> AuthError {
    let store = Arc::new(MemoryTokenStore::default());
    let oauth = OAuthClient::new(server, settings(), ReadRedirect, store.clone()).unwrap();
    let e = oauth
        .challenge(401, &[challenge.to_owned()])
        .await
        .unwrap_err();
    assert!(store.load(server).is_none());
    e
}

fn prm(resource: &str, issuer: &str) -> (u16, String) {
    (
        200,
        json!({"resource": resource, "authorization_servers": [issuer]}).to_string(),
    )
}

/// A metadata document (status, body) and the error it must cause.
type Document = (u16, String);
type Expected = fn(&AuthError) -> bool;

#[tokio::test]
async fn hostile_metadata_is_a_typed_error_and_nothing_reaches_the_token_endpoint() {
    let auth = auth_server(json!({}), Some("{issuer}")).await;
    let wrong_issuer = auth_server(json!({"issuer": "https://attacker.example"}), None).await;
    let no_pkce = auth_server(json!({"code_challenge_methods_supported": ["plain"]}), None).await;
    let elsewhere = auth_server(json!({}), None).await;
    let redirect = (
        302,
        format!("{}/.well-known/oauth-authorization-server", elsewhere.base),
    );
    let cases: Vec<(Document, Expected)> = vec![
        (prm("https://evil.example/mcp", &auth.base), |e| {
            matches!(e, AuthError::ResourceMismatch { .. })
        }),
        (prm("{self}", &wrong_issuer.base), |e| {
            matches!(e, AuthError::IssuerMismatch { .. })
        }),
        (prm("{self}", &no_pkce.base), |e| {
            matches!(e, AuthError::NoPkce)
        }),
        (prm("{self}", "http://evil.example"), |e| {
            matches!(e, AuthError::UnsafeUrl { .. })
        }),
        (prm("{self}", "javascript:alert(1)"), |e| {
            matches!(e, AuthError::UnsafeUrl { .. })
        }),
        ((200, "{\"resource\": 12".to_owned()), |e| {
            matches!(e, AuthError::Document { .. })
        }),
        (
            (
                200,
                format!("{{\"resource\": \"{}\"}}", "a".repeat(400_000)),
            ),
            |e| matches!(e, AuthError::Document { rule, .. } if rule.contains("limit")),
        ),
        ((200, json!({"resource": "{self}"}).to_string()), |e| {
            matches!(e, AuthError::NoAuthorizationServer)
        }),
        (
            redirect,
            |e| matches!(e, AuthError::Document { rule, .. } if rule.contains("302")),
        ),
    ];
    for (i, ((status, body), expected)) in cases.into_iter().enumerate() {
        let (server, log) = hostile_resource((status, body)).await;
        let hint = format!(
            "Bearer resource_metadata=\"{}\"",
            server.replace("/mcp", "/.well-known/oauth-protected-resource/mcp")
        );
        let e = refused(&server, &hint).await;
        assert!(expected(&e), "case {i}: {e:?}");
        assert!(
            log.lock().unwrap().iter().all(|(_, _, a)| a.is_none()),
            "case {i}"
        );
    }
    assert!(
        elsewhere.log.lock().unwrap().is_empty(),
        "a redirect was followed"
    );
    for s in [&auth, &wrong_issuer, &no_pkce] {
        let log = s.log.lock().unwrap();
        assert!(
            log.iter()
                .all(|(_, p, _)| p != "/token" && p != "/register"),
            "{log:?}"
        );
    }
}

#[tokio::test]
async fn a_wrong_or_missing_iss_stops_the_flow_before_the_code_is_exchanged() {
    for (iss, advertised) in [
        (Some("https://evil.example"), true),
        (None, true),
        (Some("{issuer}/"), true),
        (Some("https://evil.example"), false),
    ] {
        let patch = json!({"authorization_response_iss_parameter_supported": advertised});
        let auth = auth_server(patch, iss).await;
        let (server, _) = hostile_resource(prm("{self}", &auth.base)).await;
        let e = refused(&server, "Bearer").await;
        assert!(
            matches!(e, AuthError::Callback(ref why) if why.contains("iss")),
            "{iss:?}: {e:?}"
        );
        assert!(
            auth.log
                .lock()
                .unwrap()
                .iter()
                .all(|(_, p, _)| p != "/token"),
            "{iss:?}"
        );
    }
}

#[tokio::test]
async fn a_server_that_keeps_refusing_is_given_up_on() {
    let auth = auth_server(json!({}), Some("{issuer}")).await;
    let (server, mcp_log) = hostile_resource(prm("{self}", &auth.base)).await;
    let store = Arc::new(MemoryTokenStore::default());
    let oauth = OAuthClient::new(&server, settings(), ReadRedirect, store).unwrap();
    let config = ClientConfig {
        authorizer: Some(SharedAuthorizer(Arc::new(oauth))),
        ..ClientConfig::default()
    };
    let (client, _rx) = Client::new(&server, PROFILE, config).unwrap();
    let e = client.send(INIT).await.unwrap_err();
    assert!(
        matches!(e, ClientError::Unauthorized { status: 401, ref reason } if reason.contains("gave up")),
        "{e:?}"
    );
    let tokens = auth
        .log
        .lock()
        .unwrap()
        .iter()
        .filter(|(_, p, _)| p == "/token")
        .count();
    assert_eq!(tokens, 3, "three authorizations, then the limit");
    let posts = mcp_log
        .lock()
        .unwrap()
        .iter()
        .filter(|(m, p, _)| m == "POST" && p == "/mcp")
        .count();
    assert_eq!(posts, 4);
}
