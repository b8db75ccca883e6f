//! Input-required rounds (2026-07-28, basic/patterns/mrtr.mdx): instead of asking the client
//! itself, a handler answers with the requests it needs answered (sampling, elicitation,
//! roots) and state of its own; the client retries the same request with its answers under
//! the same keys and the state unchanged. The state is plain JSON here: the transport seals
//! it before it leaves and opens it before the retry reaches the handler, refusing state that
//! was changed, forged or kept too long, so what a handler reads back is what it wrote.

use serde_json::{Map, Value, json};

use super::text;

/// What a request's params say of its round: the client's answers, the handler's state (as
/// the handler wrote it, opened by the transport) and the capabilities the client declared.
#[derive(Debug, Default)]
pub struct Round {
    answers: Map<String, Value>,
    state: Option<Value>,
    capabilities: Value,
}

impl Round {
    /// The round `params` (a request's params as JSON) is in.
    pub fn of(params: &Value) -> Self {
        let answers = params["inputResponses"]
            .as_object()
            .cloned()
            .unwrap_or_default();
        let state = params["requestState"]
            .as_str()
            .and_then(|s| serde_json::from_str(s).ok());
        let capabilities = params["_meta"]["io.modelcontextprotocol/clientCapabilities"].clone();
        Round {
            answers,
            state,
            capabilities,
        }
    }

    /// The client's answer under `key`, when it gave one.
    pub fn answer(&self, key: &str) -> Option<&Value> {
        self.answers.get(key)
    }

    /// The state this handler wrote for `tool` in an earlier round; state written for another
    /// tool is none (the transport binds state to the method, not to the tool).
    pub fn state_for(&self, tool: &str) -> Option<&Value> {
        self.state.as_ref().filter(|s| s["tool"] == tool)
    }

    /// Whether the client declared the capability the input request `method` needs.
    pub fn can(&self, method: &str) -> bool {
        let capability = match method {
            "sampling/createMessage" => "sampling",
            "elicitation/create" => "elicitation",
            "roots/list" => "roots",
            _ => return false,
        };
        self.capabilities.get(capability).is_some()
    }
}

/// An input request for an elicitation form asking `message` with one required string or
/// boolean `field`.
pub fn form(message: &str, field: &str, kind: &str) -> Value {
    json!({"method": "elicitation/create", "params": {
        "mode": "form",
        "message": message,
        "requestedSchema": {"type": "object", "properties": {field: {"type": kind}}, "required": [field]}
    }})
}

/// An input request asking the client's model `question`.
pub fn sampling(question: &str, max_tokens: u32) -> Value {
    json!({"method": "sampling/createMessage", "params": {
        "messages": [{"role": "user", "content": {"type": "text", "text": question}}],
        "maxTokens": max_tokens
    }})
}

/// An input request for the client's roots.
pub fn roots() -> Value {
    json!({"method": "roots/list", "params": {}})
}

/// The result asking for `requests` (key to input request), with `state` for the next round
/// (written as JSON text, sealed by the transport), when given.
pub fn input_required(requests: Value, state: Option<Value>) -> Value {
    let mut result = json!({"resultType": "input_required", "inputRequests": requests});
    if let Some(state) = state {
        result["requestState"] = json!(state.to_string());
    }
    result
}

/// A complete tool result of one text block.
pub fn said(s: &str) -> Value {
    json!({"resultType": "complete", "content": [text(s)]})
}

/// The text an accepted elicitation answer gives for `field`, if it is one.
pub fn accepted(answer: Option<&Value>, field: &str) -> Option<String> {
    let answer = answer?;
    if answer["action"] != "accept" {
        return None;
    }
    match &answer["content"][field] {
        Value::String(s) => Some(s.clone()),
        Value::Null => None,
        other => Some(other.to_string()),
    }
}

/// The text a sampling answer gives, if it is one.
pub fn sampled(answer: Option<&Value>) -> Option<String> {
    let content = &answer?["content"];
    let blocks = content
        .as_array()
        .cloned()
        .unwrap_or_else(|| vec![content.clone()]);
    let texts: Vec<&str> = blocks.iter().filter_map(|b| b["text"].as_str()).collect();
    (!texts.is_empty()).then(|| texts.join(" "))
}

/// The root URIs a roots answer lists, if it is one.
pub fn listed_roots(answer: Option<&Value>) -> Option<Vec<String>> {
    let roots = answer?["roots"].as_array()?;
    Some(
        roots
            .iter()
            .filter_map(|r| r["uri"].as_str().map(str::to_owned))
            .collect(),
    )
}
