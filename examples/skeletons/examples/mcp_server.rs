//! An MCP server on the generated skeleton: tools (`echo`, `add`, `payload`, `progress`,
//! `sample`, `confirm`, `roots`, `slow`, `was_cancelled`, `touch`, `fail`), one resource and
//! one resource template with subscriptions, one prompt, logging, completion, progress
//! notifications, and sampling, elicitation and roots asked of the client.
//!
//! `cargo run --example mcp_server` speaks newline-delimited JSON-RPC on stdin/stdout (point any
//! MCP client at it); `-- --http 127.0.0.1:8765` serves Streamable HTTP at
//! `http://127.0.0.1:8765/mcp` instead, printing `listening on <url>` as its first stdout line,
//! until stdin ends or reads `quit`. Logs go to stderr.
//!
//! It speaks MCP 2025-11-25 (and 2025-06-18, 2025-03-26), sessions opened by `initialize`.
//! With `--all-versions` it serves 2026-07-28 beside them on the same endpoint
//! (`agentwire_examples::mcp_example::modern`): over stdio the first message chooses the era
//! (`initialize` opens 2025-11-25, a request naming 2026-07-28 in `_meta` the new one); over
//! HTTP each request or session is served in its own. Without the flag a request before
//! `initialize` is refused as 2025-11-25 says, where a stream of both eras would read it as
//! 2026-07-28's (which names its version on every request).

use std::sync::Arc;

use agentwire_examples::mcp::{invalid_params, typed};
use agentwire_examples::mcp_example::modern::Modern;
use agentwire_examples::mcp_example::{self as content, SERVER_NAME, Shared};
use agentwire_examples::mcp_fixtures;
use agentwire_protocols::mcp::v2025_11_25::{
    CallToolRequestParams, CallToolResult, CompleteRequestParams, CompleteResult, ContentBlock,
    CreateMessageRequestParams, EmptyResult, GetPromptRequestParams, GetPromptResult,
    InitializeRequestParams, InitializeResult, ListPromptsResult, ListResourceTemplatesResult,
    ListResourcesResult, ListToolsResult, PaginatedRequestParams, ReadResourceRequestParams,
    ReadResourceResult, SamplingMessageContent, SamplingMessageContentBlock, SetLevelRequestParams,
    SubscribeRequestParams, TextContent, UnsubscribeRequestParams,
};
use agentwire_protocols::skeletons::mcp::{
    STREAMABLE_HTTP, Server, ServerHandler, ServerHandlers, ServerSender,
};
use agentwire_runtime::jsonrpc::RpcError;
use agentwire_transport::jsonrpc::serve_versions_http;
use agentwire_transport::seal::Sealer;
use agentwire_transport::streamable_http::{ServerConfig, SharedSealer};
use serde_json::{Value, json};

/// The protocol versions this server speaks, newest first; a client offering another one
/// gets the newest.
const VERSIONS: &[&str] = &["2025-11-25", "2025-06-18", "2025-03-26"];

fn text(s: impl Into<String>) -> ContentBlock {
    ContentBlock::Text(TextContent {
        text: s.into(),
        annotations: None,
        meta: None,
    })
}

fn tool_result(content: Vec<ContentBlock>, is_error: bool) -> CallToolResult {
    CallToolResult {
        meta: None,
        content,
        structured_content: None,
        is_error: is_error.then_some(true),
        extra: Default::default(),
    }
}

/// The example's 2025-11-25 behaviour; `shared` is what the 2026-07-28 side sees too.
struct Example {
    shared: Arc<Shared>,
}

impl Example {
    /// `progress`: reports `steps` steps when the caller gave a progress token.
    async fn progress(sender: &ServerSender, steps: u64) -> Result<CallToolResult, RpcError> {
        let Some(call) = sender.incoming() else {
            return Ok(tool_result(vec![text("no request")], true));
        };
        // Each step stands for some work. The pause after the last report matters to clients
        // that handle notifications a tick later than responses (the TypeScript SDK does):
        // a report read together with the response would find its call already finished.
        let work = std::time::Duration::from_millis(50);
        for step in 1..=steps {
            tokio::time::sleep(work).await;
            let sent = call
                .progress(
                    json!({"progress": step, "total": steps, "message": format!("step {step}")}),
                )
                .await
                .unwrap_or(false);
            if !sent {
                break;
            }
        }
        tokio::time::sleep(work).await;
        Ok(tool_result(
            vec![text(format!("done in {steps} steps"))],
            false,
        ))
    }

    /// `sample`: asks the client's model and returns what it said.
    async fn sample(sender: &ServerSender, prompt: &str) -> Result<CallToolResult, RpcError> {
        let params: CreateMessageRequestParams = typed(json!({
            "messages": [{"role": "user", "content": {"type": "text", "text": prompt}}],
            "maxTokens": 100
        }))?;
        match sender.sampling_create_message(params).await {
            Ok(result) => {
                let said = match result.content {
                    SamplingMessageContent::SamplingMessageContentBlock(
                        SamplingMessageContentBlock::Text(t),
                    ) => t.text,
                    _ => "(not text)".to_owned(),
                };
                Ok(tool_result(
                    vec![text(format!("{} said: {said}", result.model))],
                    false,
                ))
            }
            Err(e) => Ok(tool_result(
                vec![text(format!("sampling failed: {e}"))],
                true,
            )),
        }
    }
    /// `confirm`: asks the user (through the client) for a name, then greets it.
    async fn confirm(sender: &ServerSender) -> Result<CallToolResult, RpcError> {
        let params =
            typed(json!({"message": "Who is there?", "requestedSchema": content::name_form()}))?;
        let said = match sender.elicitation_create(params).await {
            Ok(answer) => {
                let answer = serde_json::to_value(&answer).unwrap_or_default();
                match answer["content"]["name"].as_str() {
                    Some(name) if answer["action"] == "accept" => format!("hello {name}"),
                    _ => format!("no name ({})", answer["action"]),
                }
            }
            Err(e) => {
                return Ok(tool_result(
                    vec![text(format!("elicitation failed: {e}"))],
                    true,
                ));
            }
        };
        Ok(tool_result(vec![text(said)], false))
    }

    /// `roots`: the client's first root.
    async fn roots(sender: &ServerSender) -> Result<CallToolResult, RpcError> {
        match sender.roots_list(None).await {
            Ok(listed) => {
                let first = listed
                    .roots
                    .first()
                    .map(|r| r.uri.clone())
                    .unwrap_or_default();
                Ok(tool_result(vec![text(first)], false))
            }
            Err(e) => Ok(tool_result(
                vec![text(format!("roots/list failed: {e}"))],
                true,
            )),
        }
    }

    /// `slow`: one progress report, then waits until cancelled (the transport aborts this
    /// future) or 30 s have passed.
    async fn slow(&self, sender: &ServerSender) -> Result<CallToolResult, RpcError> {
        let run = self.shared.slow_started();
        if let Some(call) = sender.incoming() {
            let started = json!({"progress": 0, "message": "started"});
            call.progress(started).await.unwrap_or(false);
        }
        tokio::time::sleep(std::time::Duration::from_secs(30)).await;
        run.finish();
        Ok(tool_result(vec![text("slow finished")], false))
    }
}

fn arg<'a>(p: &'a CallToolRequestParams, name: &str) -> Option<&'a Value> {
    p.arguments.as_ref().and_then(|a| a.get(name))
}

impl ServerHandler for Example {
    async fn initialize(
        &self,
        _sender: ServerSender,
        params: InitializeRequestParams,
    ) -> Result<InitializeResult, RpcError> {
        let version = VERSIONS
            .iter()
            .find(|v| **v == params.protocol_version)
            .unwrap_or(&VERSIONS[0]);
        tracing::info!(client = %params.client_info.name, version, "initialize");
        typed(json!({
            "protocolVersion": version,
            "capabilities": {
                "tools": {"listChanged": false},
                "resources": {"subscribe": true, "listChanged": false},
                "prompts": {"listChanged": false},
                "logging": {},
                "completions": {}
            },
            "serverInfo": {"name": SERVER_NAME, "version": env!("CARGO_PKG_VERSION")},
            "instructions": "Tools: echo, add, payload, progress, sample, confirm, roots, slow, \
                was_cancelled, touch, fail."
        }))
    }

    async fn resources_list(
        &self,
        _sender: ServerSender,
        _params: Option<PaginatedRequestParams>,
    ) -> Result<ListResourcesResult, RpcError> {
        typed(json!({ "resources": content::resources() }))
    }

    async fn resources_templates_list(
        &self,
        _sender: ServerSender,
        _params: Option<PaginatedRequestParams>,
    ) -> Result<ListResourceTemplatesResult, RpcError> {
        typed(json!({ "resourceTemplates": content::templates() }))
    }

    async fn resources_read(
        &self,
        _sender: ServerSender,
        params: ReadResourceRequestParams,
    ) -> Result<ReadResourceResult, RpcError> {
        let Some(body) = content::read(&params.uri) else {
            return Err(RpcError {
                code: -32002,
                message: format!("resource not found: {}", params.uri),
                data: Some(json!({"uri": params.uri})),
            });
        };
        typed(json!({"contents": [{"uri": params.uri, "mimeType": "text/plain", "text": body}]}))
    }

    async fn resources_subscribe(
        &self,
        sender: ServerSender,
        params: SubscribeRequestParams,
    ) -> Result<EmptyResult, RpcError> {
        // The session's handle, not this request's: updates come after the answer.
        let session = ServerSender::new(sender.peer().clone());
        self.shared.subscribe(params.uri, session);
        typed(json!({}))
    }

    async fn resources_unsubscribe(
        &self,
        _sender: ServerSender,
        params: UnsubscribeRequestParams,
    ) -> Result<EmptyResult, RpcError> {
        self.shared.unsubscribe(&params.uri);
        typed(json!({}))
    }

    async fn prompts_list(
        &self,
        _sender: ServerSender,
        _params: Option<PaginatedRequestParams>,
    ) -> Result<ListPromptsResult, RpcError> {
        typed(json!({ "prompts": content::prompts() }))
    }

    async fn prompts_get(
        &self,
        _sender: ServerSender,
        params: GetPromptRequestParams,
    ) -> Result<GetPromptResult, RpcError> {
        if params.name != "greet" {
            return Err(invalid_params(format!("unknown prompt `{}`", params.name)));
        }
        let Some(name) = params.arguments.as_ref().and_then(|a| a.get("name")) else {
            return Err(invalid_params(
                "prompt `greet` needs the argument `name`".into(),
            ));
        };
        typed(json!({ "messages": content::greeting_prompt(name) }))
    }

    async fn tools_list(
        &self,
        _sender: ServerSender,
        _params: Option<PaginatedRequestParams>,
    ) -> Result<ListToolsResult, RpcError> {
        typed(json!({ "tools": content::tools() }))
    }

    async fn tools_call(
        &self,
        sender: ServerSender,
        params: CallToolRequestParams,
    ) -> Result<CallToolResult, RpcError> {
        let str_arg = |name: &str| arg(&params, name).and_then(Value::as_str);
        let num_arg = |name: &str| arg(&params, name).and_then(Value::as_f64);
        match params.name.as_str() {
            "echo" => match str_arg("text") {
                Some(t) => Ok(tool_result(vec![text(t)], false)),
                None => Err(invalid_params("`echo` needs a string `text`".into())),
            },
            "add" => match (num_arg("a"), num_arg("b")) {
                (Some(a), Some(b)) => Ok(tool_result(vec![text(format!("{}", a + b))], false)),
                _ => Err(invalid_params("`add` needs numbers `a` and `b`".into())),
            },
            "payload" => {
                let size = arg(&params, "size").and_then(Value::as_u64).unwrap_or(1024);
                if size > 16 * 1024 * 1024 {
                    return Err(invalid_params("`size` is at most 16 MiB".into()));
                }
                let body: String = "abcdefghijklmnopqrstuvwxyz012345"
                    .chars()
                    .cycle()
                    .take(usize::try_from(size).unwrap_or(0))
                    .collect();
                Ok(tool_result(vec![text(body)], false))
            }
            "progress" => {
                let steps = arg(&params, "steps").and_then(Value::as_u64).unwrap_or(3);
                Self::progress(&sender, steps.min(100)).await
            }
            "sample" => Self::sample(&sender, str_arg("prompt").unwrap_or("Say hello")).await,
            "confirm" => Self::confirm(&sender).await,
            "roots" => Self::roots(&sender).await,
            "slow" => self.slow(&sender).await,
            "was_cancelled" => Ok(tool_result(vec![text(self.shared.slow_seen())], false)),
            "touch" => {
                let told = self.shared.touch(str_arg("uri").unwrap_or_default()).await;
                Ok(tool_result(
                    vec![text(format!("{told} subscriber(s) told"))],
                    false,
                ))
            }
            "fail" => Ok(tool_result(vec![text("this tool always fails")], true)),
            other => Err(invalid_params(format!("unknown tool `{other}`"))),
        }
    }

    async fn logging_set_level(
        &self,
        _sender: ServerSender,
        params: SetLevelRequestParams,
    ) -> Result<EmptyResult, RpcError> {
        tracing::info!(level = ?params.level, "log level set");
        typed(json!({}))
    }

    async fn completion_complete(
        &self,
        _sender: ServerSender,
        _params: CompleteRequestParams,
    ) -> Result<CompleteResult, RpcError> {
        typed(json!({ "completion": content::completion() }))
    }

    // This server runs no request as a task (it does not declare `tasks`).
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    agentwire_examples::init_logging();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let all_versions = args.iter().any(|a| a == "--all-versions");
    let shared = Shared::new();
    let legacy = || Example {
        shared: Arc::clone(&shared),
    };
    let handlers = ServerHandlers {
        v2026_07_28: Arc::new(Modern {
            shared: Arc::clone(&shared),
        }),
        v2025_11_25: Arc::new(legacy()),
    };
    let config = agentwire_transport::jsonrpc::Config::default();
    let Some(i) = args.iter().position(|a| a == "--http") else {
        return if all_versions {
            handlers.serve_stdio(config).await
        } else {
            Server::serve_stdio(legacy(), config).await
        };
    };
    let addr = args.get(i + 1).map_or("127.0.0.1:8765", String::as_str);
    let listener = tokio::net::TcpListener::bind(addr).await?;
    let mut http = ServerConfig::new(STREAMABLE_HTTP);
    let handle = if all_versions {
        // Input-required state travels sealed; this process alone opens what it sealed.
        let key = mcp_fixtures::seal_key()?;
        let sealer = Sealer::new(&key, mcp_fixtures::STATE_TTL)
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e.to_string()))?;
        http.sealer = Some(SharedSealer(Arc::new(sealer)));
        serve_versions_http(Arc::new(handlers), listener, http, config)?
    } else {
        Server::serve_http(listener, Arc::new(legacy()), http, config)?
    };
    let url = format!("http://{}{}", handle.local_addr(), STREAMABLE_HTTP.path);
    println!("listening on {url}");
    tracing::info!(%url, "mcp server listening; {}", agentwire_examples::STOP_HINT);
    agentwire_examples::wait_for_stop().await;
    handle.shutdown().await
}
