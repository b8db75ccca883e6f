//! The conformance suite's input-required tools and prompt (2026-07-28): each call without
//! the answers it needs is answered with the input requests for them (and state when a later
//! round must know where it is), and completes once the retry brings them. A request for a
//! capability the client did not declare is never sent: the call fails with
//! MissingRequiredClientCapability (-32021) and the capabilities it needs.

use agentwire_runtime::jsonrpc::RpcError;
use serde_json::{Value, json};

use super::rounds::{
    Round, accepted, form, input_required, listed_roots, roots, said, sampled, sampling,
};

/// basic/index.mdx (2026-07-28): a request needing a capability the client did not declare
/// is answered with -32021 and `data.requiredCapabilities`.
const MISSING_CAPABILITY: i64 = -32021;

/// The input-required tool `name`'s answer in `round`; `None` when `name` is no such tool.
pub fn tool(name: &str, round: &Round) -> Option<Result<Value, RpcError>> {
    let answer = match name {
        "test_input_required_result_elicitation" | "test_streaming_elicitation" => {
            let asked = form("What is your name?", "name", "string");
            one_answer(round, "user_name", asked, |a| {
                accepted(a, "name").map(|n| format!("Hello, {n}!"))
            })
        }
        "test_input_required_result_sampling" => {
            let asked = sampling("What is the capital of France?", 100);
            one_answer(round, "capital_question", asked, |a| {
                sampled(a).map(|t| format!("The model answered: {t}"))
            })
        }
        "test_input_required_result_list_roots" => {
            one_answer(round, "client_roots", roots(), |a| {
                listed_roots(a).map(|r| format!("The client's roots: {}", r.join(", ")))
            })
        }
        "test_missing_capability" => {
            let asked = sampling("Say something.", 20);
            one_answer(round, "sample", asked, |a| {
                sampled(a).map(|t| format!("The model said: {t}"))
            })
        }
        "test_input_required_result_request_state"
        | "test_input_required_result_tampered_state" => confirmed(name, round),
        "test_input_required_result_multiple_inputs" => all_three(name, round),
        "test_input_required_result_multi_round" => three_rounds(name, round),
        "test_input_required_result_capabilities" => Ok(declared_only(round)),
        _ => return None,
    };
    Some(answer)
}

/// The prompt that asks for its context first (`test_input_required_result_prompt`).
pub fn prompt(round: &Round) -> Result<Value, RpcError> {
    let asked = form("What context should the prompt use?", "context", "string");
    let Some(context) = accepted(round.answer("user_context"), "context") else {
        return ask(round, json!({"user_context": asked}), None);
    };
    Ok(
        json!({"resultType": "complete", "messages": [{"role": "user", "content":
        {"type": "text", "text": format!("Answer within this context: {context}")}}]}),
    )
}

/// Asks for `requests`, unless one needs a capability the client did not declare.
fn ask(round: &Round, requests: Value, state: Option<Value>) -> Result<Value, RpcError> {
    let missing: serde_json::Map<String, Value> = requests
        .as_object()
        .into_iter()
        .flatten()
        .filter_map(|(_, r)| r["method"].as_str())
        .filter(|m| !round.can(m))
        .map(|m| (capability_of(m).to_owned(), json!({})))
        .collect();
    if missing.is_empty() {
        return Ok(input_required(requests, state));
    }
    Err(RpcError {
        code: MISSING_CAPABILITY,
        message: "this tool needs capabilities the client did not declare".to_owned(),
        data: Some(json!({ "requiredCapabilities": missing })),
    })
}

/// The capability an input request's method needs.
fn capability_of(method: &str) -> &'static str {
    match method {
        "sampling/createMessage" => "sampling",
        "roots/list" => "roots",
        _ => "elicitation",
    }
}

/// A tool needing one answer under `key` (asked by `asked`), which `done` turns into its text;
/// an answer missing or not of the kind asked is asked for again.
fn one_answer(
    round: &Round,
    key: &str,
    asked: Value,
    done: impl Fn(Option<&Value>) -> Option<String>,
) -> Result<Value, RpcError> {
    match done(round.answer(key)) {
        Some(text) => Ok(said(&text)),
        None => ask(round, json!({ key: asked }), None),
    }
}

/// A confirmation whose state must come back: the result says `state-ok` only when the state
/// this tool wrote came back (the transport refuses any state it did not seal).
fn confirmed(tool: &str, round: &Round) -> Result<Value, RpcError> {
    let ok = accepted(round.answer("confirm"), "ok");
    match (round.state_for(tool), ok) {
        (Some(state), Some(ok)) if state["round"] == 1 => {
            Ok(said(&format!("state-ok: confirmed {ok}")))
        }
        _ => {
            let asked = json!({"confirm": form("Please confirm", "ok", "boolean")});
            ask(round, asked, Some(json!({"tool": tool, "round": 1})))
        }
    }
}

/// Three inputs at once (a name, a greeting from the model, the roots), with state.
fn all_three(tool: &str, round: &Round) -> Result<Value, RpcError> {
    let name = accepted(round.answer("user_name"), "name");
    let greeting = sampled(round.answer("greeting"));
    let listed = listed_roots(round.answer("client_roots"));
    if let (Some(_), Some(name), Some(greeting), Some(listed)) =
        (round.state_for(tool), name, greeting, listed)
    {
        let roots = listed.join(", ");
        return Ok(said(&format!("{greeting}, {name}; roots: {roots}")));
    }
    let asked = json!({
        "user_name": form("What is your name?", "name", "string"),
        "greeting": sampling("Generate a greeting", 50),
        "client_roots": roots(),
    });
    ask(round, asked, Some(json!({"tool": tool, "round": 1})))
}

/// Two questions in turn, the state carrying the first answer into the third round.
fn three_rounds(tool: &str, round: &Round) -> Result<Value, RpcError> {
    let state = round.state_for(tool);
    let at = state.and_then(|s| s["round"].as_u64()).unwrap_or(0);
    if at == 2
        && let Some(color) = accepted(round.answer("step2"), "color")
    {
        let name = state.and_then(|s| s["name"].as_str()).unwrap_or("");
        return Ok(said(&format!("{name} likes {color}")));
    }
    if at >= 1
        && let Some(name) = accepted(round.answer("step1"), "name")
    {
        let asked =
            json!({"step2": form("Step 2: What is your favorite color?", "color", "string")});
        return ask(
            round,
            asked,
            Some(json!({"tool": tool, "round": 2, "name": name})),
        );
    }
    let asked = json!({"step1": form("Step 1: What is your name?", "name", "string")});
    ask(round, asked, Some(json!({"tool": tool, "round": 1})))
}

/// Asks for a sample and a form, but only what the client declared it can answer; a client
/// declaring neither gets -32021.
fn declared_only(round: &Round) -> Value {
    let mut asked = serde_json::Map::new();
    if round.can("sampling/createMessage") {
        asked.insert("sample".into(), sampling("Pick a colour.", 20));
    }
    if round.can("elicitation/create") {
        asked.insert("form".into(), form("Pick a colour.", "colour", "string"));
    }
    if asked.is_empty() {
        return said("the client declared neither sampling nor elicitation");
    }
    input_required(Value::Object(asked), None)
}
