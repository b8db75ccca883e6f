//! Whole messages: a text decoded as a type of the spec the way generated `decode_checked`
//! does it (duplicate keys and syntax first, then the first decoding error and every error
//! past it, or the constraints of what decoded), and a channel's messages by sender.

use agentwire_codegen::ir::{Constraints, Ty};
use agentwire_runtime::decode::every_error_with;
use agentwire_runtime::json::{STACK_FOR_SERDE_JSON, unique, with_stack};
use agentwire_runtime::{FieldError, Invalid, JsonPointer, Rule};
use serde_json::Value;

use super::decode::Mode;
use super::node::Node;
use super::types::Types;

impl Types {
    /// Decodes `json` as `ty` and checks every constraint; `Ok` holds the message parsed.
    pub fn decode_text(&self, ty: &Ty, json: &str) -> Result<Value, Invalid> {
        if let Some(name) = ty.named()
            && let Some(desc) = self.message(name)
        {
            return self.decode_proto(name, &desc, json);
        }
        unique::check(json.as_bytes())?;
        // Reading and walking recurse once per nesting level, as serde_json does.
        with_stack(STACK_FOR_SERDE_JSON, 2 * STACK_FOR_SERDE_JSON, || {
            let node = Node::parse(json)
                .map_err(|e| Invalid::one(FieldError::new("", Rule::Syntax, e.to_string())))?;
            let first = match self.decode(ty, &node, &mut JsonPointer::new(), Mode::Text) {
                Ok(()) => {
                    let errors = self.constraints(ty, &node);
                    if errors.is_empty() {
                        return serde_json::from_str(json).map_err(|e| {
                            Invalid::one(FieldError::new("", Rule::Syntax, e.to_string()))
                        });
                    }
                    return Err(Invalid { errors });
                }
                Err(first) => Invalid::one(first),
            };
            Err(every_error_with(json, first, |value| {
                let node = Node::of(value);
                self.decode(ty, &node, &mut JsonPointer::new(), Mode::Value)?;
                Ok(self.constraints(ty, &node))
            }))
        })
    }

    fn constraints(&self, ty: &Ty, node: &Node) -> Vec<FieldError> {
        let mut errors = Vec::new();
        let none = Constraints::default();
        self.validate(ty, &none, node, &mut JsonPointer::new(), &mut errors);
        errors
    }

    /// The union of the channel `from` sends on, if `from` sends anything.
    pub fn channel_of(&self, from: &str) -> Option<Ty> {
        let channel = self.protocol.channel_from(from)?;
        Some(Ty::Named(channel.union.clone()))
    }

    /// Decodes one message `from` sends (`None`: `from` sends nothing here).
    pub fn decode_from(&self, from: &str, json: &str) -> Option<Result<Value, Invalid>> {
        let ty = self.channel_of(from)?;
        Some(self.decode_text(&ty, json))
    }
}
