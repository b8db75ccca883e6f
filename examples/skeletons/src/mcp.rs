//! What the MCP examples share: typed values from JSON literals, the JSON-RPC errors the
//! servers answer with and the client's answers to the server's requests. Streamable HTTP
//! needs no glue: `Server::serve_http` and `Client::connect_http` take the skeleton's
//! `STREAMABLE_HTTP` profile.

use agentwire_protocols::mcp::v2025_11_25::{
    CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams, ElicitResult,
    EmptyResult, ListRootsResult, RequestParams,
};
use agentwire_protocols::skeletons::mcp::{Client, ClientHandler};
use agentwire_runtime::jsonrpc::{RpcError, codes};
use serde_json::Value;

/// A typed value from a JSON literal (the schema's structs have many optional members).
pub fn typed<T: agentwire_runtime::serde::de::DeserializeOwned>(v: Value) -> Result<T, RpcError> {
    serde_json::from_value(v).map_err(|e| RpcError {
        code: codes::INTERNAL_ERROR,
        message: format!("server built a bad result: {e}"),
        data: None,
    })
}

/// The -32602 answer with `message`.
pub fn invalid_params(message: String) -> RpcError {
    RpcError {
        code: codes::INVALID_PARAMS,
        message,
        data: None,
    }
}

/// The client capabilities the example client declares: it answers the server's sampling,
/// roots and (form) elicitation requests.
pub fn client_capabilities() -> Value {
    serde_json::json!({
        "sampling": {},
        "roots": {"listChanged": false},
        "elicitation": {"form": {}}
    })
}

/// How the example client answers what the server asks of it, with no model and no user at
/// hand: sampling gets a fixed reply naming the question, roots are the working directory,
/// a form elicitation is accepted with every default the form declares (SEP-1034) and a URL
/// elicitation is declined. With `report`, each answer is printed on standard output.
#[derive(Debug, Clone, Copy, Default)]
pub struct ClientAnswers {
    pub report: bool,
}

/// The model name the example client's sampling answers carry.
pub const EXAMPLE_MODEL: &str = "agentwire-example-model";

impl ClientAnswers {
    fn say(&self, line: String) {
        if self.report {
            println!("{line}");
        }
    }
}

impl ClientAnswers {
    /// The answer to a sampling request (`params` as sent, in either era's shape): a fixed
    /// reply naming the last text the server asked about.
    pub fn sampling(&self, params: &Value) -> Value {
        let messages = params["messages"].as_array().cloned().unwrap_or_default();
        let asked = messages
            .iter()
            .rev()
            .find_map(|m| m.pointer("/content/text")?.as_str().map(str::to_owned))
            .unwrap_or_default();
        let reply = format!("(no model here) you asked: {asked}");
        self.say(format!(
            "server asked for sampling ({} message(s)); answered {reply:?}",
            messages.len()
        ));
        serde_json::json!({
            "role": "assistant",
            "content": {"type": "text", "text": reply},
            "model": EXAMPLE_MODEL,
            "stopReason": "endTurn"
        })
    }

    /// The answer to a roots request: the working directory.
    pub fn roots(&self) -> Value {
        let dir = std::env::current_dir().unwrap_or_else(|_| "/".into());
        let uri = format!("file://{}", dir.display());
        self.say(format!("server asked for roots; answered {uri}"));
        serde_json::json!({"roots": [{"uri": uri, "name": "working directory"}]})
    }

    /// The answer to an elicitation: a form is accepted with every default it declares (and,
    /// with `fill`, a made-up value of its type for each field without one, as a user would
    /// fill it), a URL declined.
    pub fn elicitation(&self, params: &Value, fill: bool) -> Value {
        let message = params["message"].as_str().unwrap_or_default();
        let Some(schema) = params.get("requestedSchema") else {
            self.say(format!("server asked to open a URL ({message}); declined"));
            return serde_json::json!({"action": "decline"});
        };
        let content = if fill {
            arguments_for(schema)
        } else {
            form_defaults(schema)
        };
        self.say(format!(
            "server asked for a form ({message}); accepted with {}",
            Value::Object(content.clone())
        ));
        serde_json::json!({"action": "accept", "content": content})
    }

    /// The answer to one input request of an input-required result (`{"method", "params"}`),
    /// by its method; `None` for a method this client does not answer.
    pub fn input(&self, request: &Value) -> Option<Value> {
        let params = request.get("params").unwrap_or(&Value::Null);
        match request["method"].as_str()? {
            "sampling/createMessage" => Some(self.sampling(params)),
            "roots/list" => Some(self.roots()),
            "elicitation/create" => Some(self.elicitation(params, true)),
            _ => None,
        }
    }
}

impl ClientHandler for ClientAnswers {
    async fn ping(
        &self,
        _handle: Client,
        _params: Option<RequestParams>,
    ) -> Result<EmptyResult, RpcError> {
        typed(serde_json::json!({}))
    }

    async fn sampling_create_message(
        &self,
        _handle: Client,
        params: CreateMessageRequestParams,
    ) -> Result<CreateMessageResult, RpcError> {
        typed(self.sampling(&serde_json::to_value(&params).unwrap_or_default()))
    }

    async fn roots_list(
        &self,
        _handle: Client,
        _params: Option<RequestParams>,
    ) -> Result<ListRootsResult, RpcError> {
        typed(self.roots())
    }

    async fn elicitation_create(
        &self,
        _handle: Client,
        params: ElicitRequestParams,
    ) -> Result<ElicitResult, RpcError> {
        typed(self.elicitation(&serde_json::to_value(&params).unwrap_or_default(), false))
    }
}

/// The answer to a form that takes every default it declares (SEP-1034: a client applies the
/// defaults of the fields the user left alone).
pub fn form_defaults(schema: &Value) -> serde_json::Map<String, Value> {
    schema["properties"]
        .as_object()
        .into_iter()
        .flatten()
        .filter_map(|(name, field)| Some((name.clone(), field.get("default")?.clone())))
        .collect()
}

/// Arguments made up from a tool's input schema: each property's default, else a value of
/// its type (numbers count up from 1, so two numbers differ).
pub fn arguments_for(schema: &Value) -> serde_json::Map<String, Value> {
    let mut next = 0;
    schema["properties"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|(name, field)| {
            if let Some(default) = field.get("default") {
                return (name.clone(), default.clone());
            }
            let value = match field["type"].as_str().unwrap_or("string") {
                "number" | "integer" => {
                    next += 1;
                    serde_json::json!(next)
                }
                "boolean" => Value::Bool(true),
                "array" => serde_json::json!([]),
                "object" => serde_json::json!({}),
                _ => match field["enum"].as_array().and_then(|e| e.first()) {
                    Some(first) => first.clone(),
                    None => Value::String("agentwire".to_owned()),
                },
            };
            (name.clone(), value)
        })
        .collect()
}
