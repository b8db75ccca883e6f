//! An MCP client behind OAuth: connects to a Streamable HTTP server that answers 401, lets
//! the transport's OAuth client discover the authorization server, register and obtain a
//! token, then lists the server's tools and calls the first one.
//!
//! `cargo run --example mcp_auth_client -- URL` is the mode MCP's conformance suite runs for
//! its authorization scenarios (`auth/*`): it appends the URL, names the protocol revision in
//! `$MCP_CONFORMANCE_PROTOCOL_VERSION` (2025-11-25 opens a session with `initialize`;
//! 2026-07-28 is stateless, every request carrying the version and capabilities in `_meta`)
//! and pre-registered credentials in `$MCP_CONFORMANCE_CONTEXT` (a secret, or a private key
//! for `private_key_jwt`). In the client credentials scenarios
//! (`$MCP_CONFORMANCE_SCENARIO` `auth/client-credentials-*`) it uses that grant instead. The user step follows the
//! authorization URL's redirect without a browser, as the suite's authorization server
//! grants at once; an interactive application would open a browser there instead.

use std::sync::Arc;
use std::time::Duration;

use agentwire_examples::Failure;
use agentwire_protocols::skeletons::mcp::STREAMABLE_HTTP;
use agentwire_transport::oauth::client::{
    ClientKey, MemoryTokenStore, OAuthClient, OAuthSettings, PreRegistered, Secret, UserAgent,
};
use agentwire_transport::reqwest::{self, Url};
use agentwire_transport::streamable_http::{
    BoxFuture, Client, ClientConfig, Received, SharedAuthorizer,
};
use serde_json::{Value, json};
use tokio::sync::mpsc;

type Boxed = Box<dyn std::error::Error + Send + Sync>;

const USAGE: &str = "usage: mcp_auth_client URL";

/// Where the authorization server sends the user back (nothing listens: the redirect is
/// read, not followed).
const REDIRECT_URI: &str = "http://localhost:3000/callback";

/// The URL the suite's authorization servers accept as a Client ID Metadata Document.
const METADATA_DOCUMENT: &str = "https://conformance-test.local/client-metadata.json";

/// How long any one answer may take.
const DEADLINE: Duration = Duration::from_secs(20);

/// The user step without a user: fetch the authorization URL and read where it redirects.
struct FollowRedirect(reqwest::Client);

impl UserAgent for FollowRedirect {
    fn authorize(&self, url: Url) -> BoxFuture<'_, Result<Url, String>> {
        Box::pin(async move {
            let sent = tokio::time::timeout(DEADLINE, self.0.get(url).send());
            let response = sent
                .await
                .map_err(|_| "the authorization endpoint did not answer".to_owned())?
                .map_err(|e| e.to_string())?;
            let location = response
                .headers()
                .get(reqwest::header::LOCATION)
                .and_then(|v| v.to_str().ok())
                .ok_or_else(|| format!("no redirect (HTTP {})", response.status()))?;
            Url::parse(location).map_err(|e| format!("bad redirect {location:?}: {e}"))
        })
    }
}

/// Pre-registered credentials from the suite's context, if it gives any: a client id with a
/// secret, or with a private key (PKCS#8 PEM) for `private_key_jwt`.
fn pre_registered() -> Option<PreRegistered> {
    let context: Value =
        serde_json::from_str(&std::env::var("MCP_CONFORMANCE_CONTEXT").ok()?).ok()?;
    let key = context
        .get("private_key_pem")
        .and_then(Value::as_str)
        .and_then(pkcs8_der)
        .map(|pkcs8_der| ClientKey {
            key_id: None,
            pkcs8_der,
        });
    Some(PreRegistered {
        client_id: context.get("client_id")?.as_str()?.to_owned(),
        client_secret: context
            .get("client_secret")
            .and_then(Value::as_str)
            .map(Secret::new),
        key,
        issuer: None,
    })
}

/// The DER bytes of a PEM `PRIVATE KEY` block.
fn pkcs8_der(pem: &str) -> Option<Vec<u8>> {
    use base64::Engine as _;
    let body: String = pem
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("-----"))
        .collect();
    base64::engine::general_purpose::STANDARD.decode(body).ok()
}

/// Waits for the answer to request `id`.
async fn answer(rx: &mut mpsc::Receiver<Received>, id: u64) -> Result<Value, Boxed> {
    loop {
        let item = tokio::time::timeout(DEADLINE, rx.recv())
            .await
            .map_err(|_| Failure(format!("no answer to request {id}")))?
            .ok_or_else(|| Failure("the connection ended".to_owned()))?;
        let message: Value = serde_json::from_str(&item?)?;
        if message.get("id") != Some(&json!(id)) {
            continue;
        }
        if let Some(error) = message.get("error") {
            return Err(Failure(format!("request {id} failed: {error}")).into());
        }
        return Ok(message.get("result").cloned().unwrap_or(Value::Null));
    }
}

/// The requests of the session, with `meta` in each one's `_meta` (stateless revisions).
async fn run(
    client: &Client,
    rx: &mut mpsc::Receiver<Received>,
    version: &str,
) -> Result<(), Boxed> {
    let stateless = version.as_bytes() >= b"2026".as_slice();
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": version,
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    let request = |id: u64, method: &str, mut params: Value| {
        if stateless {
            params["_meta"] = meta.clone();
        }
        json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string()
    };
    if stateless {
        client.set_protocol_version(Some(version.to_owned()));
    } else {
        let init = json!({"protocolVersion": version, "capabilities": {},
                          "clientInfo": {"name": "agentwire-auth-client", "version": "0.1.0"}});
        client.send(&request(1, "initialize", init)).await?;
        answer(rx, 1).await?;
        let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        client.send(&initialized.to_string()).await?;
    }
    client.send(&request(2, "tools/list", json!({}))).await?;
    let tools = answer(rx, 2).await?;
    let first = tools["tools"][0]["name"]
        .as_str()
        .unwrap_or("test-tool")
        .to_owned();
    println!("tools: {}", tools["tools"]);
    client
        .send(&request(
            3,
            "tools/call",
            json!({"name": first, "arguments": {}}),
        ))
        .await?;
    println!("call {first}: {}", answer(rx, 3).await?);
    if !stateless {
        client.terminate().await?;
    }
    Ok(())
}

#[tokio::main]
async fn main() -> Result<(), Boxed> {
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .with_writer(std::io::stderr)
        .init();
    let url = std::env::args()
        .nth(1)
        .filter(|a| !a.starts_with('-'))
        .ok_or_else(|| Failure(USAGE.to_owned()))?;
    let version = std::env::var("MCP_CONFORMANCE_PROTOCOL_VERSION")
        .unwrap_or_else(|_| "2025-11-25".to_owned());
    let mut settings = OAuthSettings::new("agentwire-auth-client", REDIRECT_URI);
    settings.metadata_document_url = Some(METADATA_DOCUMENT.to_owned());
    settings.pre_registered = pre_registered();
    // The suite's client credentials scenarios (MCP's oauth-client-credentials extension)
    // are machine to machine: no user step, the pre-registered credentials themselves.
    settings.client_credentials = std::env::var("MCP_CONFORMANCE_SCENARIO")
        .is_ok_and(|s| s.starts_with("auth/client-credentials"));
    let browser = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()?;
    let store = Arc::new(MemoryTokenStore::default());
    let oauth = OAuthClient::new(&url, settings, FollowRedirect(browser), store)?;
    let config = ClientConfig {
        authorizer: Some(SharedAuthorizer(Arc::new(oauth))),
        ..ClientConfig::default()
    };
    let (client, mut rx) = Client::new(&url, STREAMABLE_HTTP, config)?;
    run(&client, &mut rx, &version).await
}
