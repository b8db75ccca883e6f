//! An MCP client on the generated skeleton, of both eras. Over Streamable HTTP it speaks
//! 2026-07-28 first: a `server/discover` probe (spec/mcp's versions and codes deciding the
//! fallback, `agentwire_examples::mcp_modern`), then every request on its own naming its
//! version, a result that asks for input (sampling, elicitation, roots) answered and the
//! request retried with `inputResponses` and the server's `requestState` unchanged. Against a
//! server of the earlier era (the probe answered with anything but a discovery result or a
//! modern error) it falls back to 2025-11-25: initializes (declaring sampling, roots and form
//! elicitation, which it answers), lists the server's tools, resources and prompts, calls a
//! tool with progress, lets the server sample back through it, cancels a call, and prints
//! each step.
//!
//! `cargo run --example mcp_client` starts the `mcp_server` example found next to its own
//! executable (building it first if it is not there) and talks to it over its stdio;
//! `-- COMMAND [ARGS...]` starts any MCP server on its stdio; `-- --http URL` connects to a
//! Streamable HTTP endpoint (e.g. `mcp_server -- --http`'s `http://127.0.0.1:8765/mcp`).
//! `-- --conformance URL` is the mode MCP's conformance suite runs (it appends the URL and
//! names the scenario in `$MCP_CONFORMANCE_SCENARIO`): the same choice of era, then every
//! tool the server lists, called with arguments made from its input schema.

use std::sync::Arc;
use std::time::Duration;

use agentwire_examples::Failure;
use agentwire_examples::mcp::{ClientAnswers, arguments_for, client_capabilities};
use agentwire_examples::mcp_modern::{Modern, Probed};
use agentwire_protocols::mcp::v2025_11_25::{
    CallToolRequestParams, CallToolResult, ClientRequest, ClientResult, InitializeResult,
    ServerNotification,
};
use agentwire_protocols::skeletons::mcp::{Client, STREAMABLE_HTTP, ServerNotifications};
use agentwire_runtime::jsonrpc::MethodSet as _;
use agentwire_transport::jsonrpc::{Config, HttpSession};
use agentwire_transport::streamable_http::ClientConfig;
use serde_json::{Value, json};

type Boxed = Box<dyn std::error::Error + Send + Sync>;

const USAGE: &str = "usage: mcp_client [COMMAND [ARGS...] | --http URL | --conformance URL] (no argument: \
     the mcp_server example on stdio)";

/// The protocol version this client asks for.
const VERSION: &str = "2025-11-25";

/// A typed value from a JSON literal.
fn typed<T: agentwire_runtime::serde::de::DeserializeOwned>(v: Value) -> Result<T, Boxed> {
    Ok(serde_json::from_value(v)?)
}

/// A connected client and what ends its transport.
struct Session {
    client: Client,
    notes: Option<ServerNotifications>,
    end: End,
    target: String,
}

enum End {
    Child(tokio::process::Child),
    Http(HttpSession),
}

impl Session {
    /// A client of the server `program` started on its stdio, which the probe found to be
    /// of the era that opens with `initialize`.
    fn over_child(
        program: &str,
        (child, stdout, stdin): (
            tokio::process::Child,
            tokio::process::ChildStdout,
            tokio::process::ChildStdin,
        ),
        answers: ClientAnswers,
    ) -> Self {
        let (client, notes, _connection) =
            Client::connect_with(Arc::new(answers), stdout, stdin, Config::default());
        Self {
            client,
            notes: Some(notes),
            end: End::Child(child),
            target: program.to_owned(),
        }
    }

    /// A client of the Streamable HTTP endpoint `url`.
    fn http(url: &str, answers: ClientAnswers) -> Result<Self, Boxed> {
        let http = ClientConfig::default();
        let (client, notes, http, _connection) = Client::connect_http(
            url,
            STREAMABLE_HTTP,
            Arc::new(answers),
            http,
            Config::default(),
        )?;
        Ok(Self {
            client,
            notes: Some(notes),
            end: End::Http(http),
            target: url.to_owned(),
        })
    }

    /// Sends `initialize` and `notifications/initialized`.
    async fn initialize(&self) -> Result<InitializeResult, Boxed> {
        let params = typed(json!({
            "protocolVersion": VERSION,
            "capabilities": client_capabilities(),
            "clientInfo": {"name": "agentwire-mcp-client", "version": env!("CARGO_PKG_VERSION")}
        }))?;
        let init = match self.client.initialize(params).await {
            Ok(init) => init,
            Err(e) => {
                let server = "mcp_server -- --http ADDR";
                return Err(match &self.end {
                    End::Http(_) => agentwire_examples::connect_error(&self.target, server, &e),
                    End::Child(_) => Failure(format!("`{}` did not initialize: {e}", self.target)),
                }
                .into());
            }
        };
        self.client.notifications_initialized(None).await?;
        if let End::Http(http) = &self.end {
            // What the server sends outside any request (a request of its own made outside a
            // tool call, say) comes on the GET stream; a server may offer none.
            match http.http.open_stream().await {
                Ok(true) => println!("GET stream open for the server's own messages"),
                Ok(false) => println!("the server offers no GET stream"),
                Err(e) => println!("no GET stream: {e}"),
            }
        }
        Ok(init)
    }

    /// Ends the session: DELETE over HTTP; over stdio the server's input is closed and it
    /// is waited for.
    async fn close(self) -> Result<(), Boxed> {
        match self.end {
            End::Http(http) => Ok(http.close(&self.client).await?),
            End::Child(mut child) => {
                self.client.close();
                match tokio::time::timeout(Duration::from_secs(5), child.wait()).await {
                    Ok(status) => println!("server exited: {}", status?),
                    Err(_) => {
                        child.kill().await?;
                        println!("server did not exit at the end of its input; killed");
                    }
                }
                Ok(())
            }
        }
    }
}

/// The text of a tool result's `content` (as JSON), one block per line (`[image]` for what
/// is not text).
fn blocks_text(content: &Value) -> String {
    let lines: Vec<String> = content
        .as_array()
        .into_iter()
        .flatten()
        .map(|block| match block["text"].as_str() {
            Some(text) => text.to_owned(),
            None => format!("[{}]", block["type"].as_str().unwrap_or("?")),
        })
        .collect();
    lines.join("\n")
}

/// The text of a tool result's content.
fn content_text(result: &CallToolResult) -> String {
    blocks_text(&serde_json::to_value(&result.content).unwrap_or_default())
}

/// Starts `tools/call` of `name` with `arguments`, asking for progress with `token`.
async fn start_call(
    client: &Client,
    name: &str,
    arguments: Value,
    token: &str,
) -> Result<
    agentwire_transport::jsonrpc::Pending<agentwire_protocols::skeletons::mcp::ClientSide>,
    Boxed,
> {
    let params: CallToolRequestParams = typed(json!({
        "name": name,
        "arguments": arguments,
        "_meta": {"progressToken": token}
    }))?;
    Ok(client
        .peer()
        .start(ClientRequest::ToolsCall(params))
        .await?)
}

fn tool_result(result: ClientResult) -> Result<CallToolResult, Boxed> {
    match result {
        ClientResult::ToolsCall(r) => Ok(r),
        _ => Err("tools/call was answered with another result type".into()),
    }
}

fn progress_line(note: &ServerNotification) -> Option<String> {
    let ServerNotification::NotificationsProgress(p) = note else {
        return None;
    };
    let total = p.total.map(|t| format!("/{t}")).unwrap_or_default();
    let message = p.message.as_deref().unwrap_or("");
    Some(format!("progress {}{total} {message}", p.progress))
}

/// Calls `tool` with progress and prints each report and the result.
async fn call_with_progress(client: &Client, tool: &str, arguments: Value) -> Result<(), Boxed> {
    let mut pending = start_call(client, tool, arguments, "progress-1").await?;
    println!(
        "tools/call {tool} (request id {}), with progress:",
        pending.id()
    );
    let mut progress = pending.take_progress();
    let result = tool_result(pending.result().await?)?;
    // The server's reports come before its answer; whatever was queued is printed now.
    while let Some(note) = progress.as_mut().and_then(|rx| rx.try_recv().ok()) {
        if let Some(line) = progress_line(&note) {
            println!("  {line}");
        }
    }
    println!("  result: {}", content_text(&result));
    Ok(())
}

/// Starts a long call of `tool`, cancels it after its first progress report, and checks that
/// the session goes on.
async fn cancel_a_call(client: &Client, tool: &str, arguments: Value) -> Result<(), Boxed> {
    let mut pending = start_call(client, tool, arguments, "progress-cancel").await?;
    let id = pending.id().clone();
    let first = match pending.take_progress() {
        Some(mut rx) => tokio::time::timeout(Duration::from_secs(10), rx.recv())
            .await
            .ok()
            .flatten(),
        None => None,
    };
    let after = match first.as_ref().and_then(progress_line) {
        Some(line) => format!("its first report ({})", line.trim_end()),
        None => "no report in 10 s".to_owned(),
    };
    pending.cancel().await?;
    println!("cancelled tools/call {tool} (request id {id}) after {after}");
    client.ping(None).await?;
    println!("ping answered after the cancellation");
    Ok(())
}

/// Prints what the server sends outside any call (log messages, list changes).
fn print_notifications(notes: Option<ServerNotifications>) {
    let Some(mut notes) = notes else { return };
    tokio::spawn(async move {
        while let Some(note) = notes.recv().await {
            match note {
                // Progress is printed with its call.
                ServerNotification::NotificationsProgress(_) => {}
                ServerNotification::NotificationsMessage(m) => {
                    println!("server log [{}]: {}", m.level.as_str(), m.data);
                }
                other => println!("server notification {}", other.method()),
            }
        }
    });
}

/// The tour: everything the server declared, then a progress call, sampling and a cancel
/// when it offers the tools the `mcp_server` example has.
async fn demo(mut session: Session) -> Result<(), Boxed> {
    print_notifications(session.notes.take());
    let init = session.initialize().await?;
    println!(
        "initialized: {} {} speaking {}",
        init.server_info.name, init.server_info.version, init.protocol_version
    );
    if let Some(text) = &init.instructions {
        println!("instructions: {text}");
    }
    let client = &session.client;
    let caps = &init.capabilities;
    let mut tools = Vec::new();
    if caps.tools.is_some() {
        tools = client.tools_list(None).await?.tools;
        let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
        println!("tools: {}", names.join(", "));
    }
    if caps.resources.is_some() {
        let resources = client.resources_list(None).await?.resources;
        let uris: Vec<&str> = resources.iter().map(|r| r.uri.as_str()).collect();
        println!("resources: {}", uris.join(", "));
    }
    if caps.prompts.is_some() {
        let prompts = client.prompts_list(None).await?.prompts;
        let names: Vec<&str> = prompts.iter().map(|p| p.name.as_str()).collect();
        println!("prompts: {}", names.join(", "));
    }
    let has = |name: &str| tools.iter().any(|t| t.name == name);
    if has("progress") {
        call_with_progress(client, "progress", json!({"steps": 3})).await?;
    }
    if has("sample") {
        let result = client
            .tools_call(typed(
                json!({"name": "sample", "arguments": {"prompt": "Say hello"}}),
            )?)
            .await?;
        println!("tools/call sample: {}", content_text(&result));
    }
    if has("progress") {
        cancel_a_call(client, "progress", json!({"steps": 100})).await?;
    }
    session.close().await
}

/// The text of a 2026-07-28 tool result's content.
fn modern_text(result: &agentwire_protocols::mcp::v2026_07_28::CallToolResult) -> String {
    blocks_text(&serde_json::to_value(&result.content).unwrap_or_default())
}

/// Calls every tool `modern`'s server lists with arguments made from its schema, printing
/// each result; with `tolerant`, a call that fails is printed and the next one made (the
/// conformance suite's servers refuse some on purpose).
async fn call_every_tool(modern: &Modern, tolerant: bool) -> Result<(), Boxed> {
    for tool in modern.tools().await? {
        let schema = serde_json::to_value(&tool.input_schema)?;
        let arguments = Value::Object(arguments_for(&schema));
        match modern.call_tool(&tool.name, arguments.clone()).await {
            Ok(result) => println!(
                "tools/call {} {arguments}: {}",
                tool.name,
                modern_text(&result)
            ),
            Err(e) if tolerant => println!("tools/call {} {arguments} failed: {e}", tool.name),
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// The calls a scenario asks for in its context (`$MCP_CONFORMANCE_CONTEXT`'s `toolCalls`,
/// each a name and its arguments), when it names any.
fn context_calls() -> Option<Vec<(String, Value)>> {
    let context: Value =
        serde_json::from_str(&std::env::var("MCP_CONFORMANCE_CONTEXT").ok()?).ok()?;
    let calls = context.get("toolCalls")?.as_array()?;
    let named = calls
        .iter()
        .filter_map(|c| {
            Some((
                c.get("name")?.as_str()?.to_owned(),
                c.get("arguments")?.clone(),
            ))
        })
        .collect();
    Some(named)
}

/// Lists the tools (so their header marks are known), then makes the calls the scenario
/// asked for, printing each result or failure.
async fn call_as_told(modern: &Modern, calls: Vec<(String, Value)>) -> Result<(), Boxed> {
    let listed = modern.tools().await?;
    for (name, arguments) in calls {
        if !listed.iter().any(|t| t.name == name) {
            println!("tools/call {name}: not among the tools kept; not called");
            continue;
        }
        match modern.call_tool(&name, arguments.clone()).await {
            Ok(result) => println!("tools/call {name} {arguments}: {}", modern_text(&result)),
            Err(e) => println!("tools/call {name} {arguments} failed: {e}"),
        }
    }
    Ok(())
}

/// The tour of a server of the 2026-07-28 era: what it discovers, then every tool, the ones
/// asking for input answered on the way.
async fn modern_demo(mut modern: Modern) -> Result<(), Boxed> {
    print_modern_notifications(modern.notes.take());
    let found = modern.discover().await?;
    println!(
        "speaking {} (the server speaks {})",
        modern.version,
        found.supported_versions.join(", ")
    );
    if let Some(text) = &found.instructions {
        println!("instructions: {text}");
    }
    call_every_tool(&modern, false).await?;
    modern.close().await
}

/// Prints what a 2026-07-28 server sends beside its answers (progress, log messages).
fn print_modern_notifications(
    notes: Option<agentwire_protocols::skeletons::mcp::v2026_07_28::ServerNotifications>,
) {
    let Some(mut notes) = notes else { return };
    tokio::spawn(async move {
        while let Some(note) = notes.recv().await {
            println!("server notification {}", note.method());
        }
    });
}

/// The conformance suite's client: the era the server speaks, then every tool the server
/// lists, called with arguments made from its schema. The suite checks what reaches its
/// server.
async fn conformance(url: &str) -> Result<(), Boxed> {
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    println!("conformance scenario {scenario:?} against {url}");
    if let Some(modern) = Modern::negotiate(url, ClientAnswers { report: true }).await? {
        println!("speaking {}", modern.version);
        match context_calls() {
            Some(calls) => call_as_told(&modern, calls).await?,
            None => call_every_tool(&modern, true).await?,
        }
        return modern.close().await;
    }
    println!("the server opens with initialize: speaking 2025-11-25");
    let mut session = Session::http(url, ClientAnswers { report: true })?;
    print_notifications(session.notes.take());
    let init = session.initialize().await?;
    println!("initialized: {}", init.server_info.name);
    if init.capabilities.tools.is_some() {
        for tool in session.client.tools_list(None).await?.tools {
            let schema = serde_json::to_value(&tool.input_schema)?;
            let arguments = Value::Object(arguments_for(&schema));
            let params = typed(json!({"name": tool.name, "arguments": arguments}))?;
            let result = session.client.tools_call(params).await?;
            println!(
                "tools/call {} {arguments}: {}",
                tool.name,
                content_text(&result)
            );
        }
    }
    session.close().await
}

/// The `mcp_server` example beside this executable (cargo builds examples into one folder).
/// `cargo run --example mcp_client` builds only the client, so a missing server is built the
/// same way first: over the whole workspace, whose features `cargo run` in it resolves
/// (`-p agentwire-examples` alone would resolve fewer and compile the generated protocols crate
/// a second time).
fn sibling_server() -> Result<String, Boxed> {
    let me = std::env::current_exe()?;
    let server = me.with_file_name(format!("mcp_server{}", std::env::consts::EXE_SUFFIX));
    if !server.exists() {
        eprintln!("mcp_client: building the mcp_server example first");
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let status = std::process::Command::new(cargo)
            .args(["build", "--quiet", "--workspace", "--example", "mcp_server"])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .status()?;
        if !status.success() || !server.exists() {
            return Err(Failure(format!(
                "no mcp_server at {}; build it with `cargo build --example mcp_server`, or pass \
                 a server command or --http URL",
                server.display()
            ))
            .into());
        }
    }
    Ok(server.to_string_lossy().into_owned())
}

async fn run(args: Vec<String>) -> Result<(), Boxed> {
    let answers = ClientAnswers { report: true };
    let session = match args.as_slice() {
        [flag, url] if flag == "--conformance" => return conformance(url).await,
        [flag, url] if flag == "--http" => match Modern::negotiate(url, answers).await {
            Ok(Some(modern)) => return modern_demo(modern).await,
            Ok(None) => {
                println!("the server opens with initialize: speaking {VERSION}");
                Session::http(url, answers)?
            }
            // The version probe is the first request: say so when nothing listens there.
            Err(e) => {
                let server = "mcp_server -- --http ADDR";
                return Err(agentwire_examples::connect_error(url, server, &*e).into());
            }
        },
        [flag, ..] if flag.starts_with("--") => return Err(Failure(USAGE.to_owned()).into()),
        [] => return stdio(&sibling_server()?, &[], answers).await,
        [program, rest @ ..] => return stdio(program, rest, answers).await,
    };
    demo(session).await
}

/// The tour of the server `program` started on its stdio, in the era its probe found.
async fn stdio(program: &str, args: &[String], answers: ClientAnswers) -> Result<(), Boxed> {
    match Modern::spawn(program, args, answers).await? {
        Probed::Modern(modern) => modern_demo(modern).await,
        Probed::Legacy(child, stdout, stdin) => {
            println!("the server opens with initialize: speaking {VERSION}");
            demo(Session::over_child(
                program,
                (child, stdout, stdin),
                answers,
            ))
            .await
        }
    }
}

#[tokio::main]
async fn main() {
    agentwire_examples::init_logging();
    agentwire_examples::exit_on_error("mcp_client", run(std::env::args().skip(1).collect()).await);
}
