//! HTTP exchanges of a trace (`{"from", "http": {"method", "path", "status", "body"}}`)
//! matched to their route and decoded as the generated `HttpExchange::decode` does: the
//! first route of the sender whose method and path template match, its path parameters and
//! body decoded and validated, errors under `/path/<name>` and `/body`.

use agentwire_codegen::ir::{Body, Constraints, Ty};
use agentwire_runtime::{Invalid, JsonPointer, http};
use serde_json::{Map, Value, json};

use super::decode::Mode;
use super::node::Node;
use super::types::Types;
use super::{Message, Spec};

impl Types {
    /// Decodes a parsed value as `ty` (first decoding error only, as `decode_value`), then
    /// checks its constraints.
    pub fn decode_value(&self, ty: &Ty, value: &Value) -> Result<(), Invalid> {
        let node = Node::of(value);
        self.decode(ty, &node, &mut JsonPointer::new(), Mode::Value)
            .map_err(Invalid::one)?;
        let mut errors = Vec::new();
        self.validate(
            ty,
            &Constraints::default(),
            &node,
            &mut JsonPointer::new(),
            &mut errors,
        );
        if errors.is_empty() {
            Ok(())
        } else {
            Err(Invalid { errors })
        }
    }
}

impl Spec {
    /// The exchange `from` recorded, typed by its route; errors point under the exchange.
    pub fn decode_http(&self, from: &str, exchange: &Value) -> Result<Message, Invalid> {
        let text = |k: &str| exchange.get(k).and_then(Value::as_str).unwrap_or_default();
        let (method, path) = (text("method"), text("path"));
        let status = exchange
            .get("status")
            .and_then(Value::as_u64)
            .and_then(|s| u16::try_from(s).ok());
        let body = exchange.get("body").cloned().unwrap_or_default();
        let routes = &self.types.protocol.routes;
        for (i, r) in routes.iter().enumerate() {
            if r.from != from || !method.eq_ignore_ascii_case(&r.method) {
                continue;
            }
            let Some(params) = http::match_path(&r.path, path) else {
                continue;
            };
            let mut raw = Map::new();
            for name in r.param_names() {
                let value = Value::String(http::param(&params, &name).to_owned());
                let ty = match r.path_params.get(&name).map(String::as_str) {
                    None | Some("string") => Ty::String,
                    Some(t) => Ty::Named(t.to_owned()),
                };
                let at = format!("/path/{name}");
                self.types
                    .decode_value(&ty, &value)
                    .map_err(|e| e.under(&at))?;
                raw.insert(name, value);
            }
            match &r.body {
                Body::Json(t) => self
                    .types
                    .decode_value(&Ty::Named(t.clone()), &body)
                    .map_err(|e| e.under("/body"))?,
                Body::Text(_) => {
                    http::text_body(&body)?;
                }
                Body::None => {}
            }
            let value = json!({"status": status, "path": raw, "body": body});
            return Ok(Message {
                kind: Some(self.route_kinds[i]),
                value,
            });
        }
        Err(http::no_route(from, method, path))
    }
}
