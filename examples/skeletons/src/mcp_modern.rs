//! The example client's 2026-07-28 side, over Streamable HTTP and stdio: it learns the
//! server's era with the generated client's `negotiate_http` or `probe_era` (a
//! `server/discover` probe naming the newest version, retried in one the server lists,
//! spec/mcp's versions and codes deciding the fallback), then sends every request naming its
//! version, its identity and its capabilities in `_meta`. A result that asks for input (sampling, elicitation, roots) is answered through
//! [`ClientAnswers`] and the request retried with `inputResponses` and the server's
//! `requestState` unchanged, for a bounded number of rounds.

use std::sync::Arc;
use std::time::Duration;

use agentwire_protocols::mcp::v2026_07_28::{
    CallToolResult, CallToolResultResponseResult, ClientRequest, DiscoverResult, Tool,
};
use agentwire_protocols::mcp::{VERSION_SOURCE, VERSION_UNSUPPORTED_CODE, VERSIONS};
use agentwire_protocols::skeletons::mcp::v2026_07_28::{
    Client, NoRequests, STREAMABLE_HTTP, ServerNotifications,
};
use agentwire_transport::jsonrpc::{Config, HttpSession, spawn_child};
use agentwire_transport::streamable_http::{ClientConfig, Era};
use serde_json::{Value, json};
use tokio::process::{Child, ChildStdin, ChildStdout};

use crate::Failure;
use crate::mcp::{ClientAnswers, client_capabilities};
use crate::mcp_param_headers::{ToolHeaders, marks};

type Boxed = Box<dyn std::error::Error + Send + Sync>;

/// The version this side speaks newest; the probe names it first.
pub const NEWEST: &str = "2026-07-28";

/// How many times one request is retried with collected input before the client gives up
/// (a server asking again and again would otherwise hold it for ever).
const MAX_ROUNDS: usize = 8;

/// How long the era probe waits for its answer over HTTP.
const PROBE_WAIT: Duration = Duration::from_secs(30);

/// How long it waits on stdio, where a server of the earlier era may answer nothing at all.
const STDIO_PROBE_WAIT: Duration = Duration::from_secs(10);

/// A typed value from a JSON literal.
fn typed<T: agentwire_runtime::serde::de::DeserializeOwned>(v: Value) -> Result<T, Boxed> {
    Ok(serde_json::from_value(v)?)
}

/// What every request of this client carries in `_meta` in `version`.
pub fn meta(version: &str) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": version,
        "io.modelcontextprotocol/clientInfo":
            {"name": "agentwire-mcp-client", "version": env!("CARGO_PKG_VERSION")},
        "io.modelcontextprotocol/clientCapabilities": client_capabilities(),
    })
}

/// What carries the client's messages, and ends with it.
enum Link {
    Http(HttpSession),
    Child(Child),
}

/// What probing a server on its stdio found.
pub enum Probed {
    /// It speaks this era: the client, connected.
    Modern(Modern),
    /// It opens with `initialize`: the child and its pipes, untouched past the probe.
    Legacy(Child, ChildStdout, ChildStdin),
}

/// The `server/discover` probe, naming the newest version (the probe rewrites it).
fn discover_probe() -> Result<ClientRequest, Boxed> {
    Ok(ClientRequest::ServerDiscover(typed(
        json!({"_meta": meta(NEWEST)}),
    )?))
}

/// A client of a server that speaks a version naming itself per request.
pub struct Modern {
    pub client: Client,
    pub notes: Option<ServerNotifications>,
    /// The version every request names.
    pub version: String,
    link: Link,
    answers: ClientAnswers,
    /// The `x-mcp-header` marks of the tools listed, which each call's headers follow.
    headers: ToolHeaders,
}

impl Modern {
    /// Probes `url`: `Some` when the server speaks a version of this era (the one both
    /// list, newest first), `None` when it is of the era that opens with `initialize`.
    pub async fn negotiate(url: &str, answers: ClientAnswers) -> Result<Option<Self>, Boxed> {
        let probe = discover_probe()?;
        let http = ClientConfig::default();
        let era = Client::negotiate_http(url, STREAMABLE_HTTP, &probe, http, PROBE_WAIT).await?;
        let Era::Named(version) = era else {
            return Ok(None);
        };
        let headers = ToolHeaders::default();
        let config = ClientConfig {
            derived: Some(headers.deriver()),
            ..ClientConfig::default()
        };
        let (client, notes, http, _connection) = Client::connect_http(
            url,
            STREAMABLE_HTTP,
            Arc::new(NoRequests),
            config,
            Config::default(),
        )?;
        Ok(Some(Self {
            client,
            notes: Some(notes),
            version,
            link: Link::Http(http),
            answers,
            headers,
        }))
    }

    /// Starts `program` with `args` as a server on its stdio and probes it
    /// (basic/transports/stdio.mdx, "Backward Compatibility": a `server/discover` first; any
    /// answer that is no discovery result or modern error, or none within a few seconds, is
    /// a server of the earlier era).
    pub async fn spawn(
        program: &str,
        args: &[String],
        answers: ClientAnswers,
    ) -> Result<Probed, Boxed> {
        let mut command = tokio::process::Command::new(program);
        command.args(args);
        let (child, mut stdout, mut stdin) =
            spawn_child(command).map_err(|e| Failure(format!("cannot start `{program}`: {e}")))?;
        let source = (VERSIONS, VERSION_SOURCE, VERSION_UNSUPPORTED_CODE);
        let probe = discover_probe()?;
        let era =
            Client::probe_era(&mut stdout, &mut stdin, source, &probe, STDIO_PROBE_WAIT).await?;
        let Era::Named(version) = era else {
            return Ok(Probed::Legacy(child, stdout, stdin));
        };
        let (client, notes, _connection) =
            Client::connect_with(Arc::new(NoRequests), stdout, stdin, Config::default());
        Ok(Probed::Modern(Self {
            client,
            notes: Some(notes),
            version,
            link: Link::Child(child),
            answers,
            headers: ToolHeaders::default(),
        }))
    }

    /// `params` with this client's `_meta` beside what they say (a `_meta` of their own,
    /// a progress token say, is kept).
    pub fn with_meta(&self, mut params: Value) -> Value {
        let mut meta = meta(&self.version);
        if let (Some(mine), Some(theirs)) = (
            meta.as_object_mut(),
            params.get("_meta").and_then(Value::as_object),
        ) {
            mine.extend(theirs.clone());
        }
        params["_meta"] = meta;
        params
    }

    /// `server/discover`.
    pub async fn discover(&self) -> Result<DiscoverResult, Boxed> {
        let params = typed(self.with_meta(json!({})))?;
        Ok(self.client.server_discover(params).await?)
    }

    /// Every tool of the server (every page) but those whose `x-mcp-header` marks break
    /// their constraints, which are left out with a warning; the marks of the others decide
    /// the headers of their calls.
    pub async fn tools(&self) -> Result<Vec<Tool>, Boxed> {
        let mut kept = Vec::new();
        for tool in self.all_tools().await? {
            match marks(&serde_json::to_value(&tool.input_schema)?) {
                Ok(marked) => {
                    self.headers.learn(&tool.name, marked);
                    kept.push(tool);
                }
                Err(why) => eprintln!("warning: tool {} left out: {why}", tool.name),
            }
        }
        Ok(kept)
    }

    /// Every tool of the server, every page.
    async fn all_tools(&self) -> Result<Vec<Tool>, Boxed> {
        let mut tools = Vec::new();
        let mut cursor: Option<String> = None;
        loop {
            let mut params = json!({});
            if let Some(c) = &cursor {
                params["cursor"] = json!(c);
            }
            let page = self
                .client
                .tools_list(typed(self.with_meta(params))?)
                .await?;
            tools.extend(page.tools);
            cursor = page.next_cursor;
            if cursor.is_none() {
                return Ok(tools);
            }
        }
    }

    /// Calls tool `name` with `arguments`; a result asking for input is answered and the call
    /// retried (a new request each time) with the answers and the state as the server sent it.
    pub async fn call_tool(&self, name: &str, arguments: Value) -> Result<CallToolResult, Boxed> {
        let mut retry = json!({});
        for _ in 0..MAX_ROUNDS {
            let mut params = json!({"name": name, "arguments": arguments});
            if let (Some(p), Some(r)) = (params.as_object_mut(), retry.as_object()) {
                p.extend(r.clone());
            }
            let answer = self
                .client
                .tools_call(typed(self.with_meta(params))?)
                .await?;
            let asked = match answer {
                CallToolResultResponseResult::CallToolResult(done) => return Ok(done),
                CallToolResultResponseResult::InputRequiredResult(asked) => asked,
            };
            retry = self.answer_input(&serde_json::to_value(&asked)?)?;
        }
        Err(Failure(format!(
            "tools/call {name}: still asking for input after {MAX_ROUNDS} rounds"
        ))
        .into())
    }

    /// The retry's members for an input-required result: `inputResponses` under the keys
    /// the server used and `requestState` exactly as it came (left out when none came).
    fn answer_input(&self, asked: &Value) -> Result<Value, Boxed> {
        let mut responses = serde_json::Map::new();
        for (key, request) in asked["inputRequests"].as_object().into_iter().flatten() {
            let answer = self.answers.input(request).ok_or_else(|| {
                Failure(format!(
                    "the server asked for {} ({key}), which this client does not answer",
                    request["method"]
                ))
            })?;
            responses.insert(key.clone(), answer);
        }
        let mut retry = json!({"inputResponses": responses});
        if let Some(state) = asked.get("requestState") {
            retry["requestState"] = state.clone();
        }
        Ok(retry)
    }

    /// Ends the client: its engine closes (there is no session to end); over stdio the
    /// server's input is closed and it is waited for (a few seconds, then killed).
    pub async fn close(self) -> Result<(), Boxed> {
        match self.link {
            Link::Http(http) => Ok(http.close(&self.client).await?),
            Link::Child(mut child) => {
                self.client.close();
                if tokio::time::timeout(Duration::from_secs(5), child.wait())
                    .await
                    .is_err()
                {
                    child.kill().await?;
                }
                Ok(())
            }
        }
    }
}
