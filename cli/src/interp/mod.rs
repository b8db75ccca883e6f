//! The run-time interpreter of a spec folder: validation and sequence checking read from the
//! IR as the command runs, with nothing compiled, giving the findings the generated code gives
//! (the same JSON pointer, rule and wording, through the runtime's shared rule functions). It
//! is a `registry::Protocol`, so `agentwire trace check --spec DIR` runs the same checker as
//! `--protocol NAME`.

mod decode;
mod message;
mod node;
mod types;
mod validate;

use std::path::Path;

use agentwire_codegen::ir::Protocol as Ir;
use agentwire_runtime::Invalid;
use agentwire_runtime::registry::{Checker, Decoded, Framing, Protocol, TransportKind};
use serde_json::Value;

pub use types::Types;

/// One spec folder, interpreted.
pub struct Interpreted {
    name: &'static str,
    title: &'static str,
    roles: &'static [&'static str],
    transport: TransportKind,
    framing: Framing,
    types: Types,
}

/// A message the interpreter decoded, as its checker takes it.
pub struct Message {
    pub from: String,
    pub value: Value,
}

/// Keeps `s` for the life of the program: the registry's names are `'static`, and one
/// interpreter is made per spec folder a command names.
fn keep(s: &str) -> &'static str {
    Box::leak(s.to_owned().into_boxed_str())
}

impl Interpreted {
    /// Loads the spec folder `dir`; `Err` is every spec error, or what the interpreter cannot
    /// run yet, as text.
    pub fn load(dir: &Path) -> Result<Interpreted, String> {
        let loaded = agentwire_codegen::front::load::load_spec(dir).map_err(|e| {
            e.errors
                .iter()
                .map(|e| e.render())
                .collect::<Vec<_>>()
                .join("\n")
        })?;
        Interpreted::new(loaded.protocol)
    }

    /// Interprets a loaded IR.
    pub fn new(ir: Ir) -> Result<Interpreted, String> {
        let Some(transport) = agentwire_codegen::transport::registry_kind(&ir) else {
            return Err(format!(
                "protocol {} has transport `{}`: only protocols with a transport have messages to check",
                ir.module, ir.transport.kind
            ));
        };
        if transport == TransportKind::JsonRpc {
            return Err(format!(
                "protocol {} is JSON-RPC: the interpreter does not read JSON-RPC envelopes yet (use the generated code)",
                ir.module
            ));
        }
        if ir.is_proto() {
            return Err(format!(
                "protocol {} is protobuf: the interpreter reads JSON specs only (use the generated code)",
                ir.module
            ));
        }
        let framing = match ir.transport.framing.as_str() {
            "content-length" => Framing::ContentLength,
            "newline" => Framing::Newline,
            "grpc" => Framing::Grpc,
            _ => Framing::JsonText,
        };
        let roles: Vec<&'static str> = ir.roles.iter().map(|r| keep(r)).collect();
        Ok(Interpreted {
            name: keep(&ir.module),
            title: keep(&ir.title),
            roles: Box::leak(roles.into_boxed_slice()),
            transport,
            framing,
            types: Types::new(ir)?,
        })
    }

    pub fn types(&self) -> &Types {
        &self.types
    }
}

impl Protocol for Interpreted {
    fn name(&self) -> &'static str {
        self.name
    }
    fn title(&self) -> &'static str {
        self.title
    }
    fn roles(&self) -> &'static [&'static str] {
        self.roles
    }
    fn transport(&self) -> TransportKind {
        self.transport
    }
    fn framing(&self) -> Framing {
        self.framing
    }
    fn decode(&self, from: &str, entry: &Value) -> Option<Result<Decoded, Invalid>> {
        let ty = self.types.channel_of(from)?;
        let Some(message) = entry.get("message") else {
            return Some(Err(Invalid::one(agentwire_runtime::FieldError::new(
                "/message",
                agentwire_runtime::Rule::Required,
                "missing field `message`",
            ))));
        };
        let json = message.to_string();
        let decoded = self
            .types
            .decode_text(&ty, &json)
            .map_err(|e| e.under("/message"));
        Some(decoded.map(|value| {
            Decoded::new(
                self.name,
                Message {
                    from: from.to_owned(),
                    value,
                },
            )
        }))
    }
    fn checker(&self) -> Option<Box<dyn Checker>> {
        None
    }
    fn decode_message(&self, from: &str, json: &str) -> Option<Result<Value, Invalid>> {
        agentwire_runtime::side::decode_by_role(self.roles, from, json, |role, json| {
            self.types.decode_from(role, json)
        })
    }
    fn decode_type(&self, type_name: &str, json: &str) -> Option<Result<Value, Invalid>> {
        self.types.def(type_name)?;
        let ty = agentwire_codegen::ir::Ty::Named(type_name.to_owned());
        Some(self.types.decode_text(&ty, json))
    }
}
