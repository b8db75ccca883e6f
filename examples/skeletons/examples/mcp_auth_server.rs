//! An MCP server behind OAuth: the generated server skeleton over Streamable HTTP behind the
//! transport's resource-server layer, with one tool, `whoami`, that answers who called it
//! (`agentwire_examples::mcp_auth`). Tokens are checked at the authorization server's token
//! introspection endpoint (RFC 7662); the server publishes its Protected Resource Metadata
//! naming that authorization server, so an MCP client finds where to get a token.
//!
//! `cargo run --example mcp_auth_server -- 127.0.0.1:0 --authorization-server ISSUER
//! --introspect URL [--scope SCOPE]...` prints `listening on <url>` as its first stdout line
//! and serves until stdin ends or reads `quit`. With `--scope`, every request needs those
//! scopes (a 401 challenge names them). Logs go to stderr.

use agentwire_examples::{Failure, bind};
use agentwire_transport::oauth::introspect::IntrospectionVerifier;
use agentwire_transport::oauth::metadata::ProtectedResourceMetadata;
use agentwire_transport::oauth::resource::ResourceServer;
use serde_json::json;

const USAGE: &str = "usage: mcp_auth_server [ADDR] --authorization-server ISSUER --introspect URL \
                     [--scope SCOPE]...";

/// The command line: the address, the issuer, the introspection endpoint and the scopes.
struct Args {
    addr: String,
    issuer: String,
    introspect: String,
    scopes: Vec<String>,
}

fn args() -> Result<Args, Failure> {
    let mut args = std::env::args().skip(1);
    let (mut addr, mut issuer, mut introspect) = (None, None, None);
    let mut scopes = Vec::new();
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or_else(|| Failure(USAGE.to_owned()));
        match arg.as_str() {
            "--authorization-server" => issuer = Some(value()?),
            "--introspect" => introspect = Some(value()?),
            "--scope" => scopes.push(value()?),
            a if !a.starts_with('-') && addr.is_none() => addr = Some(a.to_owned()),
            _ => return Err(Failure(USAGE.to_owned())),
        }
    }
    Ok(Args {
        addr: addr.unwrap_or_else(|| "127.0.0.1:8766".to_owned()),
        issuer: issuer.ok_or_else(|| Failure(USAGE.to_owned()))?,
        introspect: introspect.ok_or_else(|| Failure(USAGE.to_owned()))?,
        scopes,
    })
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    agentwire_examples::init_logging();
    let args = args()?;
    let listener = bind(&args.addr).await?;
    let url = format!("http://{}/mcp", listener.local_addr()?);
    let metadata: ProtectedResourceMetadata = serde_json::from_value(json!({
        "resource": url,
        "authorization_servers": [args.issuer],
        "scopes_supported": args.scopes,
        "resource_name": "agentwire whoami example",
    }))?;
    // The resource server identifies itself at the introspection endpoint by its URL.
    let verifier = IntrospectionVerifier::new(&args.introspect, &url, url.clone(), None)?;
    let guard = ResourceServer::new(metadata, verifier)?.require_scopes(args.scopes);
    let handle = agentwire_examples::mcp_auth::serve(listener, &guard)?;
    println!("listening on {url}");
    tracing::info!(%url, "mcp auth server listening; {}", agentwire_examples::STOP_HINT);
    agentwire_examples::wait_for_stop().await;
    handle.shutdown().await?;
    Ok(())
}
