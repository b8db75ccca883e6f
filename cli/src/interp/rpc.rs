//! JSON-RPC envelopes of an interpreted spec: each sender's requests and notifications read
//! from the spec's methods and decoded by the runtime's own envelope decoder
//! (`jsonrpc::decode_with`, which the generated `Message::from_json` also calls), params and
//! results typed by the interpreter, so errors carry the generated code's pointers and rules.

use agentwire_codegen::ir::{Call, Method, Ty};
use agentwire_runtime::jsonrpc::{self, Calls, Outcome};
use agentwire_runtime::machine::Field;
use agentwire_runtime::{FieldError, Invalid, Rule};
use serde_json::value::RawValue;
use serde_json::{Value, json};

use super::types::Types;

/// A call decoded by the interpreter: the method's index in the spec, and its params (JSON
/// `null` for a method without params, or optional params left out).
pub type Decoded = (usize, Option<Value>);

/// The calls one role sends, as the runtime's envelope decoder asks for them.
struct Side<'a> {
    types: &'a Types,
    role: &'a str,
}

impl Side<'_> {
    fn of(&self, call: Call) -> impl Iterator<Item = (usize, &Method)> {
        let role = self.role;
        self.types
            .protocol
            .methods
            .iter()
            .enumerate()
            .filter(move |(_, m)| m.call == call && m.sent_by(role))
    }

    fn find(&self, call: Call, method: &str) -> Option<(usize, &Method)> {
        self.of(call).find(|(_, m)| m.name == method)
    }

    /// The params of `m`, as the generated `decode_params` arm of its method decodes them.
    fn params(&self, m: &Method, raw: Option<&RawValue>) -> Result<Option<Value>, Invalid> {
        let Some(ty) = &m.params else {
            // A method without params ignores whatever the envelope carries.
            return Ok(None);
        };
        match raw {
            None if m.params_optional => Ok(None),
            None => Err(Invalid::one(FieldError::new(
                "",
                Rule::Required,
                "missing field `params`",
            ))),
            // The spec's params are objects; by-position (array) params are not part of it.
            Some(raw) if !raw.get().starts_with('{') => Err(Invalid::one(FieldError::new(
                "",
                Rule::Type,
                "params must be an object",
            ))),
            Some(raw) => self
                .types
                .decode_text(&Ty::Named(ty.clone()), raw.get())
                .map(Some),
        }
    }

    fn decode(
        &self,
        call: Call,
        method: &str,
        raw: Option<&RawValue>,
    ) -> Option<Result<Decoded, Invalid>> {
        let (i, m) = self.find(call, method)?;
        Some(self.params(m, raw).map(|p| (i, p)))
    }
}

impl Calls for Side<'_> {
    type Request = Decoded;
    type Notification = Decoded;
    fn is_request(&self, method: &str) -> bool {
        self.find(Call::Request, method).is_some()
    }
    fn is_notification(&self, method: &str) -> bool {
        self.find(Call::Notification, method).is_some()
    }
    fn methods(&self) -> Vec<&str> {
        let names = |call| self.of(call).map(|(_, m)| m.name.as_str());
        names(Call::Request)
            .chain(names(Call::Notification))
            .collect()
    }
    fn request(&self, method: &str, raw: Option<&RawValue>) -> Option<Result<Decoded, Invalid>> {
        self.decode(Call::Request, method, raw)
    }
    fn notification(
        &self,
        method: &str,
        raw: Option<&RawValue>,
    ) -> Option<Result<Decoded, Invalid>> {
        self.decode(Call::Notification, method, raw)
    }
}

impl Types {
    /// Whether `role` writes JSON-RPC messages here (it sends a method or answers one).
    pub fn rpc_sender(&self, role: &str) -> bool {
        let methods = &self.protocol.methods;
        methods
            .iter()
            .any(|m| m.sent_by(role) || m.answered_by(role))
    }

    /// Decodes one JSON-RPC message `role` sends and re-encodes it as the generated
    /// `Message` serializes: `{"jsonrpc", "id", "method", "params"}` or a response.
    pub fn decode_rpc(&self, role: &str, json: &str) -> Result<Value, Invalid> {
        let side = Side { types: self, role };
        let envelope = |method: usize, params: Option<Value>| {
            let mut v = json!({"jsonrpc": "2.0", "method": self.protocol.methods[method].name});
            if let Some(p) = params {
                v["params"] = p;
            }
            v
        };
        Ok(match jsonrpc::decode_with(json, &side)? {
            jsonrpc::Message::Request {
                id,
                request: (m, p),
            } => {
                let mut v = envelope(m, p);
                v["id"] = serde_json::to_value(&id).unwrap_or_default();
                v
            }
            jsonrpc::Message::Notification((m, p)) => envelope(m, p),
            jsonrpc::Message::Response(r) => {
                let id = serde_json::to_value(&r.id).unwrap_or_default();
                match r.outcome {
                    Outcome::Result(raw) => json!({"jsonrpc": "2.0", "id": id, "result": raw}),
                    Outcome::Error(e) => json!({"jsonrpc": "2.0", "id": id, "error": e}),
                }
            }
        })
    }

    /// A response to a `method` request, its result typed, as the generated
    /// `decode_response`; `None` when no request has that method.
    pub fn decode_rpc_response(&self, method: &str, json: &str) -> Option<Result<Value, Invalid>> {
        let m = self
            .protocol
            .methods
            .iter()
            .find(|m| m.call == Call::Request && m.name == method)?;
        Some(self.response_as(m, json))
    }

    fn response_as(&self, m: &Method, json: &str) -> Result<Value, Invalid> {
        let nobody = Side {
            types: self,
            role: "",
        };
        let jsonrpc::Message::Response(r) = jsonrpc::decode_with(json, &nobody)? else {
            // No role is "", so only a response decodes.
            return Err(Invalid::one(FieldError::new(
                "",
                Rule::Type,
                "not a response",
            )));
        };
        let id = serde_json::to_value(&r.id).unwrap_or_default();
        match r.outcome {
            Outcome::Error(e) => Ok(json!({"jsonrpc": "2.0", "id": id, "error": e})),
            Outcome::Result(raw) => {
                let result = match &m.result {
                    Some(t) => self.decode_text(&Ty::Named(t.clone()), raw.get()),
                    None => agentwire_runtime::decode_all::<()>(raw.get()).map(|()| Value::Null),
                };
                let result = result.map_err(|e| e.under("/result"))?;
                Ok(json!({"jsonrpc": "2.0", "id": id, "result": result}))
            }
        }
    }

    /// The result of a response answering a `method` request, decoded as its result type
    /// the way the generated checker's `Answer` does (first error only, not validated);
    /// `None` for an error response or a result that does not decode.
    pub fn answer_result(&self, method: usize, response: &Value) -> Option<Value> {
        let result = response.get("result")?;
        let ty = self.protocol.methods.get(method)?.result.as_ref()?;
        let text = result.to_string();
        agentwire_runtime::json::unique::check(text.as_bytes()).ok()?;
        let stack = agentwire_runtime::json::STACK_FOR_SERDE_JSON;
        let decoded = agentwire_runtime::json::with_stack(stack, 2 * stack, || {
            let node = super::node::Node::parse(&text).ok()?;
            let mut at = agentwire_runtime::JsonPointer::new();
            let ty = Ty::Named(ty.clone());
            self.decode(&ty, &node, &mut at, super::decode::Mode::Text)
                .ok()
        });
        decoded?;
        Some(result.clone())
    }
}

/// A request id as the checker reads it (`2` and `"2"` apart), `Null` for `null`.
pub fn id_field(id: Option<&Value>) -> Field<'_> {
    match id {
        Some(Value::Number(n)) => n.as_i64().map_or(Field::Absent, Field::Int),
        Some(Value::String(s)) => Field::Str(s),
        Some(Value::Null) => Field::Null,
        _ => Field::Absent,
    }
}
