//! The caller's identity reaches the generated MCP server's handlers, per request: the
//! example `whoami` server (`agentwire_examples::mcp_auth`, the generated skeleton over
//! Streamable HTTP behind `ResourceServer`) answers with the identity the resource server
//! found for that very request. Within one session, a client whose token changes (refreshed,
//! stepped up to more scopes) is seen with the new token's identity from its next request
//! on; a token the verifier refuses never reaches a handler.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};

use agentwire_examples::mcp::{ClientAnswers, typed};
use agentwire_protocols::mcp::v2025_11_25::ContentBlock;
use agentwire_protocols::skeletons::mcp::{Client, STREAMABLE_HTTP};
use agentwire_transport::jsonrpc::{CallError, Config};
use agentwire_transport::oauth::metadata::ProtectedResourceMetadata;
use agentwire_transport::oauth::resource::{
    BoxFuture, Identity, ResourceServer, TokenVerifier, VerifyError,
};
use agentwire_transport::reqwest::header::HeaderValue;
use agentwire_transport::streamable_http::{Authorizer, ClientConfig, SharedAuthorizer};
use serde_json::{Value, json};

/// Three tokens of one user: `read` (scope `tools:read`), `write` (stepped up: also
/// `tools:write`) and `revoked`, which the authorization server no longer vouches for.
struct Fixed;

impl TokenVerifier for Fixed {
    fn verify<'a>(&'a self, token: &'a str) -> BoxFuture<'a, Result<Identity, VerifyError>> {
        Box::pin(async move {
            let scopes: &[&str] = match token {
                "read" => &["tools:read"],
                "write" => &["tools:read", "tools:write"],
                _ => return Err(VerifyError::Inactive),
            };
            Ok(Identity {
                subject: Some("alice".to_owned()),
                client_id: Some("the-app".to_owned()),
                scopes: scopes
                    .iter()
                    .map(|s| (*s).to_owned())
                    .collect::<BTreeSet<_>>(),
                ..Identity::default()
            })
        })
    }
}

/// Sends whichever token the test last set, and gives up on any refusal.
struct Switch(Mutex<&'static str>);

impl Authorizer for Switch {
    fn authorization(&self) -> BoxFuture<'_, Option<HeaderValue>> {
        let token = *self.0.lock().unwrap();
        Box::pin(async move { HeaderValue::from_str(&format!("Bearer {token}")).ok() })
    }

    fn challenged<'a>(
        &'a self,
        status: u16,
        _challenges: &'a [String],
        _sent: Option<&'a HeaderValue>,
    ) -> BoxFuture<'a, Result<(), String>> {
        Box::pin(async move { Err(format!("refused with {status}")) })
    }
}

async fn whoami(client: &Client) -> Result<Value, CallError> {
    let result = client
        .tools_call(typed(json!({"name": "whoami", "arguments": {}})).unwrap())
        .await?;
    let text = result
        .content
        .iter()
        .find_map(|c| match c {
            ContentBlock::Text(t) => Some(t.text.clone()),
            _ => None,
        })
        .expect("a text block");
    Ok(serde_json::from_str(&text).unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_request_reaches_its_handler_with_its_own_identity() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let metadata: ProtectedResourceMetadata = serde_json::from_value(json!({
        "resource": url, "authorization_servers": ["https://as.example"],
    }))
    .unwrap();
    let guard = ResourceServer::new(metadata, Fixed)
        .unwrap()
        .require_scopes(["tools:read"]);
    let server = agentwire_examples::mcp_auth::serve(listener, &guard).unwrap();

    let switch = Arc::new(Switch(Mutex::new("read")));
    let http = ClientConfig {
        authorizer: Some(SharedAuthorizer(switch.clone())),
        ..ClientConfig::default()
    };
    let answers = Arc::new(ClientAnswers::default());
    let (client, _notes, session, _connection) =
        Client::connect_http(&url, STREAMABLE_HTTP, answers, http, Config::default()).unwrap();
    client
        .initialize(
            typed(json!({"protocolVersion": "2025-11-25", "capabilities": {},
                         "clientInfo": {"name": "t", "version": "0"}}))
            .unwrap(),
        )
        .await
        .unwrap();
    client.notifications_initialized(None).await.unwrap();
    let opened = session.http.session_id();

    let who = whoami(&client).await.unwrap();
    assert_eq!(who["subject"], "alice", "{who}");
    assert_eq!(who["client_id"], "the-app", "{who}");
    assert_eq!(who["scopes"], json!(["tools:read"]), "{who}");

    // Stepped up mid-session: the next request is seen with the new scopes.
    *switch.0.lock().unwrap() = "write";
    let who = whoami(&client).await.unwrap();
    assert_eq!(who["scopes"], json!(["tools:read", "tools:write"]), "{who}");
    assert_eq!(session.http.session_id(), opened, "the same session");

    // A revoked token is refused at the door: the call fails, no handler runs.
    *switch.0.lock().unwrap() = "revoked";
    let refused = whoami(&client).await.unwrap_err();
    assert!(refused.to_string().contains("401"), "{refused}");

    // And the next good token is seen again.
    *switch.0.lock().unwrap() = "read";
    let who = whoami(&client).await.unwrap();
    assert_eq!(who["scopes"], json!(["tools:read"]), "{who}");
    session.close(&client).await.unwrap();
    server.shutdown().await.unwrap();
}
