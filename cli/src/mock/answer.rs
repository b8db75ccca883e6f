//! The mock's answers: for a request of a method the mocked role answers, the first of the
//! protocol document's results for the method (`examples`) that the protocol's own decoder
//! accepts, else a result of the method's result type drawn from the spec's JSON Schema and
//! kept only once the decoder accepts it. Members of the request's params that the result type has too
//! (a version offered, an id named) are copied over first, so that a peer which expects its
//! own value back gets it; a draw that still does not validate falls back to the plain draw.

use agentwire_runtime::jsonrpc::codes;
use agentwire_runtime::registry::Protocol;
use serde_json::{Value, json};

use agentwire_runtime::instances::{Rng, draw};

use super::examples::Examples;
use crate::interp::Owed;

/// Seeds tried per answer before giving up.
const TRIES: u64 = 64;

/// One method the mocked role answers: its name and its result type (`None`: `{}`).
#[derive(Clone)]
struct Answered {
    name: String,
    result: Option<String>,
}

/// Makes the mocked role's answers.
#[derive(Clone)]
pub struct Answerer {
    protocol: &'static dyn Protocol,
    schema: Value,
    methods: Vec<Answered>,
    /// The document's examples, tried before a draw.
    examples: Examples,
    /// Answers made so far, so that each draws from its own seeds.
    made: u64,
}

impl Answerer {
    pub fn new(
        protocol: &'static dyn Protocol,
        types: &crate::interp::Types,
        role: &str,
        schema: Value,
        examples: Examples,
    ) -> Self {
        let methods = types
            .protocol
            .methods
            .iter()
            .filter(|m| m.answered_by(role))
            .map(|m| Answered {
                name: m.name.clone(),
                result: m.result.clone(),
            })
            .collect();
        Self {
            protocol,
            schema,
            methods,
            examples,
            made: 0,
        }
    }

    /// The answer to `message` when it is a request the role answers (an error response for a
    /// method it does not know); `None` for anything else.
    pub fn answer(&mut self, message: &Value) -> Option<String> {
        let id = message
            .get("id")
            .filter(|id| id.is_string() || id.is_number())?;
        let method = message.get("method")?.as_str()?;
        let Some(m) = self.methods.iter().find(|m| m.name == method) else {
            return Some(error(
                id,
                codes::METHOD_NOT_FOUND,
                &format!("method `{method}` is not answered here"),
            ));
        };
        let Some(ty) = &m.result else {
            return Some(json!({"jsonrpc": "2.0", "id": id, "result": {}}).to_string());
        };
        let ty = ty.clone();
        let params = message.get("params").cloned().unwrap_or(Value::Null);
        self.made += 1;
        match self.result(method, &ty, &params) {
            Some(result) => Some(json!({"jsonrpc": "2.0", "id": id, "result": result}).to_string()),
            None => Some(error(
                id,
                codes::INTERNAL_ERROR,
                &format!("no valid {ty} found to answer with"),
            )),
        }
    }

    /// A value of `ty` the protocol's decoder accepts: the document's first for `method`, else
    /// a draw, if a few seeds find one.
    fn result(&self, method: &str, ty: &str, params: &Value) -> Option<Value> {
        self.pick(self.examples.results(method), ty, params)
    }

    /// The first of `examples`, else of a few draws of `ty`, that the decoder accepts as a
    /// `ty`, each tried with the members it shares with `given` echoed first.
    fn pick(&self, examples: &[Value], ty: &str, given: &Value) -> Option<Value> {
        let target = json!({"$ref": format!("#/$defs/{ty}")});
        let valid =
            |v: &Value| matches!(self.protocol.decode_type(ty, &v.to_string()), Some(Ok(_)));
        let drawn = (0..TRIES).map(|seed| {
            let mut rng = Rng::new(self.made.wrapping_mul(1_000).wrapping_add(seed + 1));
            draw(&self.schema, &target, &mut rng, 0)
        });
        for candidate in examples.iter().cloned().chain(drawn) {
            let echoed = echo(candidate.clone(), given);
            if valid(&echoed) {
                return Some(echoed);
            }
            if valid(&candidate) {
                return Some(candidate);
            }
        }
        None
    }

    /// The request (with `id`) or notification `owed` names, which the role sends unprompted:
    /// its params the document's first for the method, else drawn, echoing what `given` (the
    /// peer's latest params) shares; `None` when no valid params are found.
    pub fn call(&mut self, owed: &Owed, id: u64, given: &Value) -> Option<String> {
        let mut message = json!({"jsonrpc": "2.0", "method": owed.method});
        if owed.request {
            message["id"] = json!(id);
        }
        if let Some(ty) = &owed.params {
            self.made += 1;
            message["params"] = self.pick(self.examples.params(&owed.method), ty, given)?;
        }
        Some(message.to_string())
    }
}

/// `result` with each of its top-level members that `params` has too taking the params'
/// value, when both are strings or both numbers.
fn echo(mut result: Value, params: &Value) -> Value {
    if let (Value::Object(r), Value::Object(p)) = (&mut result, params) {
        for (key, value) in r.iter_mut() {
            if let Some(given) = p.get(key)
                && ((given.is_string() && value.is_string())
                    || (given.is_number() && value.is_number()))
            {
                *value = given.clone();
            }
        }
    }
    result
}

/// The answer to a request when nothing is drawn (a replay of a registered protocol): a
/// request outside the recording gets -32601.
pub fn not_replayed(message: &Value) -> Option<String> {
    let id = message
        .get("id")
        .filter(|id| id.is_string() || id.is_number())?;
    let method = message.get("method")?.as_str()?;
    Some(error(
        id,
        codes::METHOD_NOT_FOUND,
        &format!("method `{method}` is not in the replayed recording"),
    ))
}

fn error(id: &Value, code: i64, message: &str) -> String {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}}).to_string()
}
