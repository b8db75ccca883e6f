//! MCP authorization against the official TypeScript SDK's own auth examples
//! (`@modelcontextprotocol/sdk` 1.32.2 on npm, run where `scripts/install-peers` puts them),
//! both ways:
//!
//! - their protected server (`examples/server/simpleStreamableHttp.js --oauth --oauth-strict`:
//!   the demo authorization server on a port of its own, tokens checked by introspection and
//!   accepted only when issued for that server) and our generated client with the transport's
//!   `OAuthClient`: discovery, dynamic registration, the code flow with PKCE and the resource
//!   indicator (the user step follows the authorization URL's redirect, as their demo server
//!   grants at once), then a tool call;
//! - their OAuth client (`examples/client/simpleOAuthClient.js`, driven through its prompt)
//!   against our protected server (`examples/mcp_auth_server`: the generated server behind
//!   `ResourceServer`, tokens checked at the authorization server's introspection endpoint),
//!   with their SDK's demo authorization server (`peers/node/mcp_demo_as.cjs` starts it
//!   alone); its `whoami` tool answers with the identity the resource server found.

use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use agentwire_examples::mcp::{ClientAnswers, typed};
use agentwire_protocols::mcp::v2025_11_25::{ClientRequest, ContentBlock, InitializeResult};
use agentwire_protocols::skeletons::mcp::{Client, STREAMABLE_HTTP};
use agentwire_runtime::Validate as _;
use agentwire_runtime::jsonrpc::Outcome;
use agentwire_tests::examples::example_binary;
use agentwire_tests::peers::{ensure_installed, node, target_dir};
use agentwire_transport::jsonrpc::Config;
use agentwire_transport::oauth::client::{MemoryTokenStore, OAuthClient, OAuthSettings, UserAgent};
use agentwire_transport::reqwest::{self, Url};
use agentwire_transport::streamable_http::{BoxFuture, ClientConfig, SharedAuthorizer};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _, BufReader, Lines};
use tokio::process::{Child, ChildStdout};
use tokio::time::timeout;

/// Each test's whole run, peers' start-up included.
const BOUND: Duration = Duration::from_secs(120);
/// How long any one expected line may take.
const LINE: Duration = Duration::from_secs(60);

/// A free loopback port (for peers that take a port rather than report one).
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

/// How many times a peer that takes its ports from us is started on fresh ones.
const PORT_TRIES: usize = 5;

/// Starts a peer that listens on `count` ports we choose, and waits for its `ready` line.
/// A port found free can be taken by a test running beside this one before the peer binds
/// it (the peer then exits, `EADDRINUSE` on its standard error), so a peer that ends before
/// it is ready is started again on fresh ports. Returns the peer and its ports.
async fn start_on_free_ports(
    count: usize,
    ready: &str,
    command: impl Fn(&[u16]) -> std::process::Command,
) -> (Peer, Vec<u16>) {
    let mut ended = Vec::new();
    for _ in 0..PORT_TRIES {
        let ports: Vec<u16> = (0..count).map(|_| free_port()).collect();
        let mut peer = Peer::start(command(&ports));
        match peer.ready(ready).await {
            Ok(_) => return (peer, ports),
            Err(seen) => ended.push(format!("ports {ports:?}: {}", seen.join(" | "))),
        }
    }
    panic!("the peer never got to {ready:?}:\n{}", ended.join("\n"));
}

/// Where the SDK's examples are installed.
fn sdk_example(path: &str) -> std::path::PathBuf {
    target_dir()
        .join("peers/node/node_modules/@modelcontextprotocol/sdk/dist/esm/examples")
        .join(path)
}

/// A peer process with its output read line by line; killed on drop.
struct Peer {
    child: Child,
    lines: Lines<BufReader<ChildStdout>>,
    seen: Vec<String>,
}

impl Peer {
    fn start(cmd: std::process::Command) -> Self {
        let mut cmd = tokio::process::Command::from(cmd);
        cmd.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true);
        let mut child = cmd.spawn().expect("the peer starts");
        let stdout = child.stdout.take().expect("piped stdout");
        Self {
            child,
            lines: BufReader::new(stdout).lines(),
            seen: Vec::new(),
        }
    }

    /// Reads lines until one contains `needle`; returns it.
    async fn until(&mut self, needle: &str) -> String {
        match self.ready(needle).await {
            Ok(line) => line,
            Err(seen) => panic!("no line with {needle:?}; so far:\n{}", seen.join("\n")),
        }
    }

    /// Reads lines until one contains `needle`, or the output ends or stalls, which gives
    /// back every line read so far.
    async fn ready(&mut self, needle: &str) -> Result<String, Vec<String>> {
        loop {
            let Ok(Ok(Some(line))) = timeout(LINE, self.lines.next_line()).await else {
                return Err(self.seen.clone());
            };
            self.seen.push(line.clone());
            if line.contains(needle) {
                return Ok(line);
            }
        }
    }

    async fn say(&mut self, line: &str) {
        let stdin = self.child.stdin.as_mut().expect("piped stdin");
        stdin
            .write_all(format!("{line}\n").as_bytes())
            .await
            .unwrap();
        stdin.flush().await.unwrap();
    }
}

/// The user step without a user: fetch the authorization URL and read where it redirects.
struct ReadRedirect;

impl UserAgent for ReadRedirect {
    fn authorize(&self, url: Url) -> BoxFuture<'_, Result<Url, String>> {
        Box::pin(async move {
            let browser = reqwest::Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .map_err(|e| e.to_string())?;
            let response = timeout(LINE, browser.get(url).send())
                .await
                .map_err(|_| "the authorization endpoint did not answer".to_owned())?
                .map_err(|e| e.to_string())?;
            let location = response
                .headers()
                .get(reqwest::header::LOCATION)
                .and_then(|v| v.to_str().ok())
                .ok_or_else(|| format!("no redirect (HTTP {})", response.status()))?;
            Url::parse(location).map_err(|e| e.to_string())
        })
    }
}

fn text_of(content: &[ContentBlock]) -> String {
    content
        .iter()
        .filter_map(|c| match c {
            ContentBlock::Text(t) => Some(t.text.clone()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn our_client_gets_into_the_typescript_sdks_protected_server() {
    ensure_installed();
    timeout(BOUND, async {
        // The SDK's example itself, not a script of ours.
        let (_peer, ports) =
            start_on_free_ports(2, "MCP Streamable HTTP Server listening", |ports| {
                let mut server = std::process::Command::new("node");
                server
                    .arg(sdk_example("server/simpleStreamableHttp.js"))
                    .args(["--oauth", "--oauth-strict"])
                    .env("MCP_PORT", ports[0].to_string())
                    .env("MCP_AUTH_PORT", ports[1].to_string());
                server
            })
            .await;
        let mcp_port = ports[0];
        // Their resource identifier names `localhost`; the client must use the same URL.
        let url = format!("http://localhost:{mcp_port}/mcp");
        let store = Arc::new(MemoryTokenStore::default());
        let settings =
            OAuthSettings::new("agentwire interop client", "http://localhost:1/callback");
        let oauth = OAuthClient::new(&url, settings, ReadRedirect, store.clone()).unwrap();
        let http = ClientConfig {
            authorizer: Some(SharedAuthorizer(Arc::new(oauth))),
            ..ClientConfig::default()
        };
        let answers = Arc::new(ClientAnswers::default());
        let (client, _notes, session, _connection) =
            Client::connect_http(&url, STREAMABLE_HTTP, answers, http, Config::default()).unwrap();
        let params = typed(json!({
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "agentwire-interop", "version": "0"}
        }))
        .unwrap();
        let answered = client
            .peer()
            .request(ClientRequest::Initialize(params))
            .await
            .expect("initialize, after the authorization flow");
        let Outcome::Result(raw) = answered.outcome else {
            panic!("initialize refused: {answered:?}");
        };
        let init: Value = serde_json::from_str(raw.get()).unwrap();
        assert_eq!(init["serverInfo"]["name"], "simple-streamable-http-server");
        // A finding, read untyped for that reason: their example's server icon is the
        // relative reference `./mcp.svg` where the schema says `format: uri`, so the typed
        // `initialize` refuses the result at that pointer.
        let typed_init: InitializeResult = serde_json::from_str(raw.get()).unwrap();
        let refused = typed_init.validate().unwrap_err();
        assert!(
            format!("{refused:?}").contains("/serverInfo/icons/0/src"),
            "{refused:?}"
        );
        client.notifications_initialized(None).await.unwrap();
        let tools = client.tools_list(None).await.unwrap();
        assert!(tools.tools.iter().any(|t| t.name == "greet"), "{tools:?}");
        let greeted = client
            .tools_call(
                typed(json!({"name": "greet", "arguments": {"name": "agentwire"}})).unwrap(),
            )
            .await
            .unwrap();
        assert_eq!(text_of(&greeted.content), "Hello, agentwire!");
        // Their demo grants what the resource asks for; the token is ours and kept.
        let tokens = agentwire_transport::oauth::client::TokenStore::load(&*store, &url)
            .expect("tokens stored");
        assert!(
            tokens.scopes.iter().any(|s| s == "mcp:tools"),
            "{:?}",
            tokens.scopes
        );
        session.close(&client).await.unwrap();
    })
    .await
    .expect("in time");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_typescript_sdks_oauth_client_gets_into_our_protected_server() {
    ensure_installed();
    // Built (when stale) before the clock starts.
    let server_binary = example_binary("mcp_auth_server");
    timeout(BOUND, async {
        // Our server is told the authorization server's address before either listens, and
        // theirs takes its port from us: a clash restarts the pair.
        let mut started = None;
        for _ in 0..PORT_TRIES {
            let auth_port = free_port();
            let issuer = format!("http://127.0.0.1:{auth_port}/");
            let introspect = format!("http://127.0.0.1:{auth_port}/introspect");
            let mut ours = std::process::Command::new(&server_binary);
            ours.args(["127.0.0.1:0", "--authorization-server", &issuer])
                .args(["--introspect", &introspect, "--scope", "mcp:tools"])
                .env("RUST_LOG", "error");
            let mut ours = Peer::start(ours);
            let url = ours.until("listening on ").await;
            let url = url.trim().strip_prefix("listening on ").unwrap().to_owned();
            let mut auth = node("mcp_demo_as.cjs");
            auth.args([&auth_port.to_string(), &url]);
            let mut auth = Peer::start(auth);
            if auth.ready("Authorization Server listening").await.is_ok() {
                started = Some((ours, auth, url));
                break;
            }
        }
        let (_ours, _auth, url) = started.expect("the authorization server listens");

        let mut theirs = std::process::Command::new("node");
        theirs
            .arg(sdk_example("client/simpleOAuthClient.js"))
            .arg(&url);
        let mut theirs = Peer::start(theirs);
        theirs.until("Please open this URL in your browser").await;
        let authorize = theirs.until("http").await;
        // Its callback server listens only once the connection attempt has failed.
        theirs.until("OAuth callback server started").await;
        // The browser: their demo grants at once and redirects to the client's callback
        // server, which takes the code.
        let browser = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::limited(5))
            .build()
            .unwrap();
        let landed = browser.get(authorize.trim()).send().await.unwrap();
        assert!(landed.status().is_success(), "{:?}", landed.status());
        theirs.until("Connected successfully").await;
        theirs.say("call whoami {}").await;
        let who = theirs.until(r#""scopes""#).await;
        let who: Value = serde_json::from_str(who.trim()).expect("whoami's JSON text");
        let client_id = who["client_id"].as_str().unwrap_or_default();
        assert!(!client_id.is_empty(), "{who}");
        assert_eq!(who["scopes"], json!(["mcp:tools"]), "{who}");
        theirs.say("quit").await;
    })
    .await
    .expect("in time");
}
