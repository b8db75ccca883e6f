//! The ways of turning one corpus message into a checked value that the benchmark compares:
//!
//! - `generated`: the protocol crate's `from_json` (decode and every spec constraint);
//! - `generated_decode`: the same decoder without the validation pass, to split the cost;
//! - `value`: `serde_json::from_str::<Value>`, the floor of any JSON parse;
//! - `serde_typed`: the hand-written serde types of [`crate::baseline`], no validation;
//! - `schema_typed`: parse to a `Value`, validate it with `jsonschema` against the published
//!   schema, then convert it into the same hand-written types.
//!
//! Every route drops what it built inside (through `black_box`), so allocation and drop
//! costs count for all of them alike. Errors become strings; they only occur if the corpus
//! and a route disagree, which the tests below rule out.

use std::hint::black_box;

use agentwire_protocols::{agentloop, eca, external_agents, helix_zed};
use agentwire_runtime::jsonrpc::Message;
use agentwire_runtime::{Validate, decode_json};
use jsonschema::Validator;
use serde_json::{Value, json};

use crate::baseline;
use crate::corpus::{self, Corpus, Sample};

/// The outcome of one route on one message.
pub type RouteResult = Result<(), String>;

/// A protocol's routes, with the jsonschema validators route (c) compiles once up front.
pub trait Protocol: Sized {
    /// The protocol module's name.
    const NAME: &'static str;

    /// The protocol's benchmark corpus.
    fn corpus() -> Corpus;

    /// Compiles the JSON Schema validators (outside any timed loop).
    fn compile() -> Self;

    /// (gen) the generated `from_json`: decode and validate.
    fn generated(sample: &Sample) -> RouteResult;

    /// The generated decoder alone, skipping validation.
    fn generated_decode(sample: &Sample) -> RouteResult;

    /// (b) the hand-written serde types.
    fn serde_typed(sample: &Sample) -> RouteResult;

    /// (c) `Value`, then jsonschema, then the hand-written serde types.
    fn schema_typed(&self, sample: &Sample) -> RouteResult;
}

/// (a) parse to an untyped `serde_json::Value`.
pub fn value(sample: &Sample) -> RouteResult {
    let v: Value = serde_json::from_str(&sample.json).map_err(|e| e.to_string())?;
    black_box(v);
    Ok(())
}

fn unknown_role(sample: &Sample) -> String {
    format!("no channel for role `{}`", sample.from)
}

/// Compiles `schema` the way the project's own schema tests do: draft 2020-12, with format
/// assertions on so `date-time` and `uri` are checked like the generated code checks them.
pub fn compile_schema(schema: &Value) -> Validator {
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .should_validate_formats(true)
        .build(schema)
        .unwrap_or_else(|e| panic!("schema does not compile: {e}"))
}

/// The `$defs` of a protocol's published schema document.
fn defs(schema_doc: &str) -> Value {
    let doc: Value = serde_json::from_str(schema_doc).expect("published schemas are JSON");
    doc["$defs"].clone()
}

/// A schema whose root is one definition of `defs`.
fn rooted(defs: &Value, def: &str) -> Value {
    json!({"$defs": defs, "$ref": format!("#/$defs/{def}")})
}

fn check(validator: &Validator, v: &Value) -> RouteResult {
    validator.validate(v).map_err(|e| e.to_string())
}

/// Implements [`Protocol`] for a protocol whose two channels are tagged unions: each role
/// lists its generated union, its baseline enum and the union's name in the schema.
macro_rules! tagged_protocol {
    (
        $ty:ident, $name:literal, $corpus:path, $module:ident,
        $( $role:literal => $gen:ident, $base:ty, $def:literal; )+
    ) => {
        /// Routes of the protocol named in `NAME`.
        pub struct $ty {
            validators: Vec<(&'static str, Validator)>,
        }

        impl Protocol for $ty {
            const NAME: &'static str = $name;

            fn corpus() -> Corpus {
                $corpus()
            }

            fn compile() -> Self {
                let defs = defs($module::SCHEMA);
                let validators = vec![$( ($role, compile_schema(&rooted(&defs, $def))) ),+];
                $ty { validators }
            }

            fn generated(sample: &Sample) -> RouteResult {
                match sample.from {
                    $( $role => {
                        let m = $module::$gen::from_json(&sample.json).map_err(|e| e.to_string())?;
                        black_box(m);
                    } )+
                    _ => return Err(unknown_role(sample)),
                }
                Ok(())
            }

            fn generated_decode(sample: &Sample) -> RouteResult {
                match sample.from {
                    $( $role => {
                        let m = decode_json::<$module::$gen>(&sample.json)
                            .map_err(|e| e.to_string())?;
                        black_box(m);
                    } )+
                    _ => return Err(unknown_role(sample)),
                }
                Ok(())
            }

            fn serde_typed(sample: &Sample) -> RouteResult {
                match sample.from {
                    $( $role => {
                        let m: $base = serde_json::from_str(&sample.json).map_err(|e| e.to_string())?;
                        black_box(m);
                    } )+
                    _ => return Err(unknown_role(sample)),
                }
                Ok(())
            }

            fn schema_typed(&self, sample: &Sample) -> RouteResult {
                let v: Value = serde_json::from_str(&sample.json).map_err(|e| e.to_string())?;
                let (_, validator) = self
                    .validators
                    .iter()
                    .find(|(role, _)| *role == sample.from)
                    .ok_or_else(|| unknown_role(sample))?;
                check(validator, &v)?;
                match sample.from {
                    $( $role => {
                        let m: $base = serde_json::from_value(v).map_err(|e| e.to_string())?;
                        black_box(m);
                    } )+
                    _ => return Err(unknown_role(sample)),
                }
                Ok(())
            }
        }
    };
}

tagged_protocol!(
    HelixZed, "helix_zed", corpus::helix_zed, helix_zed,
    "helix" => HelixMessage, baseline::helix_zed::HelixMessage, "HelixMessage";
    "zed" => ZedEvent, baseline::helix_zed::ZedEvent, "ZedEvent";
);

tagged_protocol!(
    AgentLoop, "agentloop", corpus::agentloop, agentloop,
    "client" => ClientMessage, baseline::agentloop::ClientMessage, "ClientMessage";
    "server" => ServerMessage, baseline::agentloop::ServerMessage, "ServerMessage";
);

tagged_protocol!(
    ExternalAgents, "external_agents", corpus::external_agents, external_agents,
    "web_ui" => WebUiMessage, baseline::external_agents::WebUiMessage, "WebUiMessage";
    "agent_server" => AgentServerMessage, baseline::external_agents::AgentServerMessage, "AgentServerMessage";
);

/// Which way an ECA method goes and how it is called, from spec/eca/protocol.yaml.
const ECA_METHODS: &[EcaMethod] = &[
    EcaMethod::request(
        "initialize",
        Some("InitializeParams"),
        Some("InitializeResponse"),
    ),
    EcaMethod::notification("client", "initialized", Some("InitializedParams")),
    EcaMethod::request("shutdown", None, None),
    EcaMethod::notification("client", "exit", None),
    EcaMethod::request(
        "chat/prompt",
        Some("ChatPromptParams"),
        Some("ChatPromptResponse"),
    ),
    EcaMethod::notification(
        "server",
        "chat/contentReceived",
        Some("ChatContentReceivedParams"),
    ),
    EcaMethod::notification(
        "client",
        "chat/toolCallApprove",
        Some("ChatToolCallApproveParams"),
    ),
    EcaMethod::notification(
        "client",
        "chat/toolCallReject",
        Some("ChatToolCallRejectParams"),
    ),
    EcaMethod::request(
        "chat/queryContext",
        Some("ChatQueryContextParams"),
        Some("ChatQueryContextResponse"),
    ),
    EcaMethod::request(
        "chat/queryCommands",
        Some("ChatQueryCommandsParams"),
        Some("ChatQueryCommandsResponse"),
    ),
    EcaMethod::notification("client", "chat/promptStop", Some("ChatPromptStopParams")),
    EcaMethod::request(
        "chat/delete",
        Some("ChatDeleteParams"),
        Some("ChatDeleteResponse"),
    ),
    EcaMethod::notification(
        "server",
        "tool/serverUpdated",
        Some("ToolServerUpdatedParams"),
    ),
    EcaMethod::notification("client", "mcp/stopServer", Some("MCPStopServerParams")),
    EcaMethod::notification("client", "mcp/startServer", Some("MCPStartServerParams")),
    EcaMethod::notification("server", "$/showMessage", Some("ShowMessageParams")),
];

struct EcaMethod {
    from: &'static str,
    name: &'static str,
    request: bool,
    params: Option<&'static str>,
    result: Option<&'static str>,
}

impl EcaMethod {
    /// Every ECA request is sent by the client.
    const fn request(
        name: &'static str,
        params: Option<&'static str>,
        result: Option<&'static str>,
    ) -> Self {
        EcaMethod {
            from: "client",
            name,
            request: true,
            params,
            result,
        }
    }

    const fn notification(
        from: &'static str,
        name: &'static str,
        params: Option<&'static str>,
    ) -> Self {
        EcaMethod {
            from,
            name,
            request: false,
            params,
            result: None,
        }
    }

    /// The envelope of one call of this method, as a `oneOf` branch keyed by its `method`.
    fn call_schema(&self) -> Value {
        let mut properties = json!({"method": {"const": self.name}});
        let mut required = vec!["method"];
        match self.params {
            Some(def) => {
                properties["params"] = json!({"$ref": format!("#/$defs/{def}")});
                required.push("params");
            }
            None => properties["params"] = json!(false),
        }
        if self.request {
            required.push("id");
        } else {
            properties["id"] = json!(false);
        }
        json!({"type": "object", "properties": properties, "required": required})
    }
}

/// The JSON-RPC envelope every message shares, around the `oneOf` of what `role` can send.
fn eca_envelope_schema(defs: &Value, role: &str) -> Value {
    let mut branches: Vec<Value> = ECA_METHODS
        .iter()
        .filter(|m| m.from == role)
        .map(EcaMethod::call_schema)
        .collect();
    if role == "server" {
        // The server also answers the client's requests: `result` or `error`, never both.
        branches.push(json!({
            "type": "object",
            "required": ["id"],
            "properties": {
                "method": false,
                "params": false,
                "id": {"type": ["integer", "string", "null"]},
                "error": {
                    "type": "object",
                    "required": ["code", "message"],
                    "properties": {"code": {"type": "integer"}, "message": {"type": "string"}},
                },
            },
            "oneOf": [{"required": ["result"]}, {"required": ["error"]}],
        }));
    }
    json!({
        "$defs": defs,
        "type": "object",
        "required": ["jsonrpc"],
        "properties": {
            "jsonrpc": {"const": "2.0"},
            "id": {"type": ["integer", "string", "null"]},
        },
        "oneOf": branches,
    })
}

/// ECA's routes. Its messages are JSON-RPC envelopes; a response's `result` has the type of
/// the request it answers, so every route decodes and checks it by the sample's
/// `response_to` method, as a client matching responses to its pending requests would.
pub struct Eca {
    client: Validator,
    server: Validator,
    /// One validator per request method for the `result` of its responses.
    results: Vec<(&'static str, Validator)>,
}

impl Eca {
    fn result_validator(&self, method: &str) -> Result<&Validator, String> {
        self.results
            .iter()
            .find(|(m, _)| *m == method)
            .map(|(_, v)| v)
            .ok_or_else(|| format!("no request method `{method}`"))
    }
}

fn response_method(sample: &Sample) -> Result<&'static str, String> {
    sample
        .response_to
        .ok_or_else(|| "a response without `response_to`".to_owned())
}

impl Protocol for Eca {
    const NAME: &'static str = "eca";

    fn corpus() -> Corpus {
        corpus::eca()
    }

    fn compile() -> Self {
        let defs = defs(eca::SCHEMA);
        let results = ECA_METHODS
            .iter()
            .filter(|m| m.request)
            .map(|m| {
                let schema = match m.result {
                    Some(def) => rooted(&defs, def),
                    None => json!({"type": "null"}),
                };
                (m.name, compile_schema(&schema))
            })
            .collect();
        Eca {
            client: compile_schema(&eca_envelope_schema(&defs, "client")),
            server: compile_schema(&eca_envelope_schema(&defs, "server")),
            results,
        }
    }

    fn generated(sample: &Sample) -> RouteResult {
        let text = |e: agentwire_runtime::Invalid| e.to_string();
        match sample.from {
            "client" => {
                let m = eca::ClientMessage::from_json(&sample.json).map_err(text)?;
                m.validate().map_err(text)?;
                black_box(m);
            }
            "server" => {
                let m = eca::ServerMessage::from_json(&sample.json).map_err(text)?;
                m.validate().map_err(text)?;
                if let Message::Response(response) = &m {
                    let method = response_method(sample)?;
                    if let Ok(result) = response
                        .typed_result::<eca::ClientRequest>(method)
                        .map_err(text)?
                    {
                        result.validate().map_err(text)?;
                        black_box(result);
                    }
                }
                black_box(m);
            }
            _ => return Err(unknown_role(sample)),
        }
        Ok(())
    }

    fn generated_decode(sample: &Sample) -> RouteResult {
        // ECA's `from_json` only decodes; `validate` is a separate call.
        let text = |e: agentwire_runtime::Invalid| e.to_string();
        match sample.from {
            "client" => {
                black_box(eca::ClientMessage::from_json(&sample.json).map_err(text)?);
            }
            "server" => {
                let m = eca::ServerMessage::from_json(&sample.json).map_err(text)?;
                if let Message::Response(response) = &m {
                    let method = response_method(sample)?;
                    let result = response
                        .typed_result::<eca::ClientRequest>(method)
                        .map_err(text)?;
                    black_box(result.ok());
                }
                black_box(m);
            }
            _ => return Err(unknown_role(sample)),
        }
        Ok(())
    }

    fn serde_typed(sample: &Sample) -> RouteResult {
        let text = |e: serde_json::Error| e.to_string();
        match sample.from {
            "client" => {
                let m: baseline::eca::ClientMessage =
                    serde_json::from_str(&sample.json).map_err(text)?;
                black_box(m);
            }
            "server" => {
                let m: baseline::eca::ServerMessage =
                    serde_json::from_str(&sample.json).map_err(text)?;
                if let baseline::eca::ServerMessage::Response(response) = m {
                    if response.error.is_none() {
                        let method = response_method(sample)?;
                        let result =
                            baseline::eca::ClientResult::from_value(method, response.result)
                                .map_err(text)?;
                        black_box(result);
                    }
                    black_box(response.error);
                } else {
                    black_box(m);
                }
            }
            _ => return Err(unknown_role(sample)),
        }
        Ok(())
    }

    fn schema_typed(&self, sample: &Sample) -> RouteResult {
        let text = |e: serde_json::Error| e.to_string();
        let v: Value = serde_json::from_str(&sample.json).map_err(text)?;
        match sample.from {
            "client" => {
                check(&self.client, &v)?;
                let m: baseline::eca::ClientMessage = serde_json::from_value(v).map_err(text)?;
                black_box(m);
            }
            "server" => {
                check(&self.server, &v)?;
                if let Some(result) = v.get("result") {
                    let method = response_method(sample)?;
                    check(self.result_validator(method)?, result)?;
                }
                let m: baseline::eca::ServerMessage = serde_json::from_value(v).map_err(text)?;
                if let baseline::eca::ServerMessage::Response(response) = m {
                    if response.error.is_none() {
                        let method = response_method(sample)?;
                        let result =
                            baseline::eca::ClientResult::from_value(method, response.result)
                                .map_err(text)?;
                        black_box(result);
                    }
                    black_box(response.error);
                } else {
                    black_box(m);
                }
            }
            _ => return Err(unknown_role(sample)),
        }
        Ok(())
    }
}

/// A route as a trait object, so the benchmark and the tests can loop over all of them.
pub type Route<'a> = Box<dyn Fn(&Sample) -> RouteResult + 'a>;

/// Every route of `P`, named as the benchmark reports them, in report order. `schemas`
/// holds the validators route (c) compiled beforehand.
pub fn all_routes<P: Protocol>(schemas: &P) -> Vec<(&'static str, Route<'_>)> {
    vec![
        ("gen", Box::new(P::generated)),
        ("gen_decode_only", Box::new(P::generated_decode)),
        ("a_value", Box::new(value)),
        ("b_serde_typed", Box::new(P::serde_typed)),
        ("c_jsonschema_typed", Box::new(|s| schemas.schema_typed(s))),
    ]
}

/// Runs `route` over a whole corpus, stopping at the first message it refuses.
pub fn run_all(corpus: &Corpus, mut route: impl FnMut(&Sample) -> RouteResult) -> RouteResult {
    for (i, sample) in corpus.samples.iter().enumerate() {
        route(sample).map_err(|e| {
            format!(
                "{} message #{i} ({}): {e}",
                corpus.protocol,
                sample.json.chars().take(120).collect::<String>()
            )
        })?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every route must accept every message of every corpus, or the benchmark would be
    /// timing error paths.
    fn accepts_everything<P: Protocol>() {
        let corpus = P::corpus();
        assert!(corpus.samples.len() >= 10, "{}: corpus too small", P::NAME);
        let schemas = P::compile();
        let routes = all_routes(&schemas);
        for (name, route) in routes {
            if let Err(e) = run_all(&corpus, route) {
                panic!("route `{name}` refused a corpus message: {e}");
            }
        }
    }

    #[test]
    fn every_route_accepts_every_corpus_message() {
        accepts_everything::<HelixZed>();
        accepts_everything::<AgentLoop>();
        accepts_everything::<ExternalAgents>();
        accepts_everything::<Eca>();
    }

    #[test]
    fn corpora_span_small_to_large_messages() {
        for corpus in corpus::all() {
            let (min, max) = corpus.size_range();
            assert!(
                min < 250,
                "{}: smallest message is {min} B",
                corpus.protocol
            );
            assert!(
                (8_000..12_000).contains(&max),
                "{}: largest message is {max} B",
                corpus.protocol
            );
        }
    }

    /// The schema route must actually reject what the spec forbids, or it would be timing
    /// a validator that checks nothing.
    #[test]
    fn schema_route_rejects_a_broken_message() {
        let bad = Sample {
            from: "agent_server",
            response_to: None,
            json: r#"{"type":"session_ready","sessionId":"has space","agentId":"a"}"#.to_owned(),
        };
        assert!(ExternalAgents::compile().schema_typed(&bad).is_err());
        assert!(ExternalAgents::generated(&bad).is_err());
        let bad = Sample {
            from: "client",
            response_to: None,
            json: r#"{"jsonrpc":"2.0","id":3,"method":"chat/prompt","params":{"message":"hi"}}"#
                .to_owned(),
        };
        assert!(Eca::compile().schema_typed(&bad).is_err());
        assert!(Eca::generated(&bad).is_err());
    }
}
