//! The `mcp_server` example's 2026-07-28 handler: the same tools, resources and prompt as its
//! 2025-11-25 one, each request served on its own. What the server needs from the client
//! (a sample, a form, the roots) it asks with an input-required result, and the client's retry
//! brings the answer; subscriptions are `subscriptions/listen` streams.

use std::sync::Arc;
use std::time::Duration;

use agentwire_protocols::mcp::v2026_07_28::{
    CallToolRequestParams, CallToolResultResponseResult, CompleteRequestParams, CompleteResult,
    DiscoverResult, GetPromptRequestParams, GetPromptResultResponseResult, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, PaginatedRequestParams,
    ReadResourceRequestParams, ReadResourceResultResponseResult, RequestParams,
    SubscriptionsListenRequestParams, SubscriptionsListenResult,
};
use agentwire_protocols::skeletons::mcp::STREAMABLE_HTTP;
use agentwire_protocols::skeletons::mcp::v2026_07_28::{ServerHandler, ServerSender};
use agentwire_runtime::jsonrpc::RpcError;
use serde_json::{Value, json};

use super::{SERVER_NAME, Shared};
use crate::mcp::{invalid_params, typed};
use crate::mcp_fixtures::rounds::{
    Round, accepted, form, input_required, listed_roots, roots, said, sampled, sampling,
};

/// The example's 2026-07-28 side; `shared` is what it shares with the 2025-11-25 side.
pub struct Modern {
    pub shared: Arc<Shared>,
}

/// A complete result: `value` with `resultType` (every 2026-07-28 result names its type).
fn complete(mut value: Value) -> Value {
    value["resultType"] = json!("complete");
    value
}

/// A complete result a client may cache (server/utilities/caching.mdx: lists, reads and
/// discovery say for how long and for whom); this example promises nothing (`ttlMs: 0`), as
/// a `touch` may change a resource at any time.
fn cacheable(value: Value) -> Value {
    let mut value = complete(value);
    value["ttlMs"] = json!(0);
    value["cacheScope"] = json!("private");
    value
}

fn as_json<T: agentwire_runtime::serde::Serialize>(params: &T) -> Value {
    serde_json::to_value(params).unwrap_or(Value::Null)
}

impl Modern {
    /// `progress`: `steps` reports when the caller gave a token, then the result.
    async fn progress(sender: &ServerSender, steps: u64) -> Value {
        let work = Duration::from_millis(50);
        if let Some(call) = sender.incoming() {
            for step in 1..=steps {
                tokio::time::sleep(work).await;
                let report = json!({"progress": step, "total": steps});
                if !call.progress(report).await.unwrap_or(false) {
                    break;
                }
            }
        }
        tokio::time::sleep(work).await;
        said(&format!("done in {steps} steps"))
    }

    /// `slow`: one report, then waits until cancelled (the transport aborts this future).
    async fn slow(&self, sender: &ServerSender) -> Value {
        let run = self.shared.slow_started();
        if let Some(call) = sender.incoming() {
            let started = json!({"progress": 0, "message": "started"});
            call.progress(started).await.unwrap_or(false);
        }
        tokio::time::sleep(Duration::from_secs(30)).await;
        run.finish();
        said("slow finished")
    }

    /// The tools that need the client's input: asked for in the first round, used in the
    /// retry that brings the answer.
    fn asking(name: &str, params: &Value) -> Option<Value> {
        let round = Round::of(params);
        let answer = |key: &str, asked: Value, done: Option<String>| match done {
            Some(text) => said(&text),
            None => input_required(json!({ key: asked }), None),
        };
        Some(match name {
            "sample" => {
                let prompt = params["arguments"]["prompt"]
                    .as_str()
                    .unwrap_or("Say hello");
                let done = sampled(round.answer("sample")).map(|t| format!("the model said: {t}"));
                answer("sample", sampling(prompt, 100), done)
            }
            "confirm" => {
                let done = accepted(round.answer("who"), "name").map(|n| format!("hello {n}"));
                answer("who", form("Who is there?", "name", "string"), done)
            }
            "roots" => {
                let done = listed_roots(round.answer("roots"))
                    .map(|r| r.first().cloned().unwrap_or_default());
                answer("roots", roots(), done)
            }
            _ => return None,
        })
    }
}

impl ServerHandler for Modern {
    async fn server_discover(
        &self,
        _sender: ServerSender,
        _params: RequestParams,
    ) -> Result<DiscoverResult, RpcError> {
        typed(cacheable(json!({
            "supportedVersions": STREAMABLE_HTTP.versions,
            "capabilities": {"tools": {}, "resources": {"subscribe": true}, "prompts": {},
                "completions": {}},
            "_meta": {"io.modelcontextprotocol/serverInfo":
                {"name": SERVER_NAME, "version": env!("CARGO_PKG_VERSION")}}
        })))
    }

    async fn tools_list(
        &self,
        _sender: ServerSender,
        _params: PaginatedRequestParams,
    ) -> Result<ListToolsResult, RpcError> {
        typed(cacheable(json!({ "tools": super::tools() })))
    }

    async fn tools_call(
        &self,
        sender: ServerSender,
        params: CallToolRequestParams,
    ) -> Result<CallToolResultResponseResult, RpcError> {
        let json = as_json(&params);
        let args = &json["arguments"];
        let result = match params.name.as_str() {
            "echo" => match args["text"].as_str() {
                Some(t) => said(t),
                None => return Err(invalid_params("`echo` needs a string `text`".into())),
            },
            "add" => match (args["a"].as_f64(), args["b"].as_f64()) {
                (Some(a), Some(b)) => said(&format!("{}", a + b)),
                _ => return Err(invalid_params("`add` needs numbers `a` and `b`".into())),
            },
            "payload" => {
                let size = args["size"].as_u64().unwrap_or(1024).min(16 * 1024 * 1024);
                let body: String = "abcdefghijklmnopqrstuvwxyz012345"
                    .chars()
                    .cycle()
                    .take(usize::try_from(size).unwrap_or(0))
                    .collect();
                said(&body)
            }
            "progress" => {
                Self::progress(&sender, args["steps"].as_u64().unwrap_or(3).min(100)).await
            }
            "slow" => self.slow(&sender).await,
            "was_cancelled" => said(self.shared.slow_seen()),
            "touch" => {
                let uri = args["uri"].as_str().unwrap_or_default();
                let told = self.shared.touch(uri).await;
                said(&format!("{told} subscriber(s) told"))
            }
            "fail" => {
                json!({"resultType": "complete", "content": [{"type": "text", "text": "this tool always fails"}], "isError": true})
            }
            other => match Self::asking(other, &json) {
                Some(result) => result,
                None => return Err(invalid_params(format!("unknown tool `{other}`"))),
            },
        };
        typed(result)
    }

    async fn resources_list(
        &self,
        _sender: ServerSender,
        _params: PaginatedRequestParams,
    ) -> Result<ListResourcesResult, RpcError> {
        typed(cacheable(json!({ "resources": super::resources() })))
    }

    async fn resources_templates_list(
        &self,
        _sender: ServerSender,
        _params: PaginatedRequestParams,
    ) -> Result<ListResourceTemplatesResult, RpcError> {
        typed(cacheable(
            json!({ "resourceTemplates": super::templates() }),
        ))
    }

    async fn resources_read(
        &self,
        _sender: ServerSender,
        params: ReadResourceRequestParams,
    ) -> Result<ReadResourceResultResponseResult, RpcError> {
        let uri = params.uri.as_str();
        match super::read(uri) {
            Some(text) => typed(cacheable(json!({"contents": [
                {"uri": uri, "mimeType": "text/plain", "text": text}]}))),
            // server/resources.mdx (2026-07-28): an unknown resource is -32602, with its URI.
            None => Err(RpcError {
                data: Some(json!({ "uri": uri })),
                ..invalid_params(format!("resource not found: {uri}"))
            }),
        }
    }

    async fn prompts_list(
        &self,
        _sender: ServerSender,
        _params: PaginatedRequestParams,
    ) -> Result<ListPromptsResult, RpcError> {
        typed(cacheable(json!({ "prompts": super::prompts() })))
    }

    async fn prompts_get(
        &self,
        _sender: ServerSender,
        params: GetPromptRequestParams,
    ) -> Result<GetPromptResultResponseResult, RpcError> {
        if params.name != "greet" {
            return Err(invalid_params(format!("unknown prompt `{}`", params.name)));
        }
        let Some(name) = params.arguments.as_ref().and_then(|a| a.get("name")) else {
            return Err(invalid_params(
                "prompt `greet` needs the argument `name`".into(),
            ));
        };
        typed(complete(
            json!({ "messages": super::greeting_prompt(name) }),
        ))
    }

    async fn completion_complete(
        &self,
        _sender: ServerSender,
        _params: CompleteRequestParams,
    ) -> Result<CompleteResult, RpcError> {
        typed(complete(json!({ "completion": super::completion() })))
    }

    /// Honours the resources the client names that exist (lists never change here, so no
    /// list-changed kind is honoured), acknowledges, and holds the stream open until the
    /// client cancels it; a `touch` of a watched resource is told on it.
    async fn subscriptions_listen(
        &self,
        sender: ServerSender,
        params: SubscriptionsListenRequestParams,
    ) -> Result<SubscriptionsListenResult, RpcError> {
        let asked = as_json(&params.notifications);
        let uris: Vec<String> = asked["resourceSubscriptions"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|u| u.as_str())
            .filter(|u| super::read(u).is_some())
            .map(str::to_owned)
            .collect();
        let id = sender.request_id().map(as_json).unwrap_or(Value::Null);
        let _held = self.shared.listen(uris.clone(), id.clone(), sender.clone());
        let ack = typed(json!({"notifications": {"resourceSubscriptions": uris},
            "_meta": {"io.modelcontextprotocol/subscriptionId": id}}))?;
        if let Err(e) = sender.notifications_subscriptions_acknowledged(ack).await {
            tracing::warn!(%e, "subscription not acknowledged");
        }
        std::future::pending().await
    }
}
