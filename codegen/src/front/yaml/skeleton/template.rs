//! Message templates: a JSON value as it will be sent, where a string starting with `$` is
//! a placeholder the engine fills (`$session`, `$text`, `$code`, ...). A template is checked
//! against the type it must decode as: every key a field, every required field present,
//! literals and enum values allowed, placeholders only where their value fits.

use std::collections::BTreeMap;

use serde_json::Value;
use serde_saphyr::Spanned;

use super::Check;
use crate::ir::{Protocol, Ty, TypeKind};

/// Why the engine refuses a WebSocket frame (the `$code` of `refusal`).
pub const WS_CODES: &[&str] = &[
    "invalid_message",
    "hello_required",
    "invalid_session_id",
    "session_not_found",
];

/// Why the engine refuses an HTTP request (the `$code` of `error_body`).
pub const HTTP_CODES: &[&str] = &[
    "invalid_request",
    "invalid_session_id",
    "owner_not_found",
    "session_owner_mismatch",
    "session_not_found",
    "empty_message",
    "payload_too_large",
];

/// Who a conversation entry comes from (the `$role` of `broadcast`).
pub const LOG_ROLES: &[&str] = &["user", "assistant", "error"];

pub(crate) struct Templates<'w> {
    pub words: &'w BTreeMap<String, String>,
}

impl Templates<'_> {
    /// Checks `tpl` against type `ty`; `allowed` lists the placeholders it may use
    /// (`$code:ws` / `$code:http` name the code set).
    pub fn check(&self, c: &mut Check<'_>, tpl: &Spanned<Value>, ty: &str, allowed: &[&str]) {
        let mut problems = Vec::new();
        self.walk(
            c.p,
            &tpl.value,
            &Ty::Named(ty.to_owned()),
            allowed,
            "",
            &mut problems,
        );
        for p in problems {
            c.at(&tpl.referenced, format!("template for `{ty}`: {p}"));
        }
    }

    fn walk(
        &self,
        p: &Protocol,
        v: &Value,
        ty: &Ty,
        allowed: &[&str],
        at: &str,
        out: &mut Vec<String>,
    ) {
        let here = if at.is_empty() { "the root" } else { at };
        if let Some(ph) = v.as_str().filter(|s| s.starts_with('$')) {
            self.placeholder(p, ph, ty, allowed, here, out);
            return;
        }
        match (ty, v) {
            (Ty::Nullable(_), Value::Null) | (Ty::Any, _) => {}
            (Ty::Nullable(inner), _) => self.walk(p, v, inner, allowed, at, out),
            (Ty::String, Value::String(_)) | (Ty::Bool, Value::Bool(_)) => {}
            (Ty::Number | Ty::Integer, Value::Number(_)) => {}
            (Ty::BoolLiteral(b), Value::Bool(x)) if b == x => {}
            (Ty::Named(n), _) => self.named(p, n, v, allowed, at, out),
            _ => out.push(format!("{here} does not fit {ty:?}")),
        }
    }

    fn named(
        &self,
        p: &Protocol,
        name: &str,
        v: &Value,
        allowed: &[&str],
        at: &str,
        out: &mut Vec<String>,
    ) {
        let here = if at.is_empty() { "the root" } else { at };
        let Some(def) = p.types.get(name) else {
            out.push(format!("{here}: unknown type `{name}`"));
            return;
        };
        match (&def.kind, v) {
            (TypeKind::Alias { target, .. }, _) => self.walk(p, v, target, allowed, at, out),
            (TypeKind::Enum(values), Value::String(s)) => {
                if !values.contains(s) {
                    out.push(format!("{here}: `{s}` is not one of {}", values.join(", ")));
                }
            }
            (TypeKind::Struct(fields), Value::Object(map)) => {
                for (k, x) in map {
                    match fields.iter().find(|f| &f.name == k) {
                        Some(f) => self.walk(p, x, &f.ty, allowed, &format!("{at}/{k}"), out),
                        None => out.push(format!("`{name}` has no field `{k}` ({here})")),
                    }
                }
                for f in fields
                    .iter()
                    .filter(|f| !f.optional && !map.contains_key(&f.name))
                {
                    out.push(format!("{here} lacks the required field `{}`", f.name));
                }
            }
            (TypeKind::Union { tag, variants }, Value::Object(map)) => {
                let value = map.get(tag).and_then(Value::as_str).unwrap_or_default();
                let Some(member) = variants.iter().find(|m| m.value == value) else {
                    let kinds: Vec<&str> = variants.iter().map(|m| m.value.as_str()).collect();
                    out.push(format!(
                        "{here}: `{tag}` must be one of {}",
                        kinds.join(", ")
                    ));
                    return;
                };
                let mut rest = map.clone();
                rest.remove(tag);
                self.named(p, &member.type_name, &Value::Object(rest), allowed, at, out);
            }
            _ => out.push(format!("{here} does not fit `{name}`")),
        }
    }

    fn placeholder(
        &self,
        p: &Protocol,
        ph: &str,
        ty: &Ty,
        allowed: &[&str],
        here: &str,
        out: &mut Vec<String>,
    ) {
        let set = match ph {
            "$code" => allowed.iter().find_map(|a| match *a {
                "$code:ws" => Some(WS_CODES),
                "$code:http" => Some(HTTP_CODES),
                _ => None,
            }),
            "$role" if allowed.contains(&"$role") => Some(LOG_ROLES),
            _ if allowed.contains(&ph) => None,
            _ => {
                out.push(format!(
                    "{here}: `{ph}` is not available here (use one of {})",
                    allowed.join(", ")
                ));
                return;
            }
        };
        let Some(words) = set else {
            if !string_like(p, ty) {
                out.push(format!("{here}: `{ph}` is a string, the field is not"));
            }
            return;
        };
        for w in words {
            let value = self.words.get(*w).map_or(*w, String::as_str);
            let mut sub = Vec::new();
            self.walk(p, &Value::String(value.to_owned()), ty, &[], here, &mut sub);
            if !sub.is_empty() {
                out.push(format!("{here}: the engine's `{w}` is `{value}` here, which the field does not accept; add the value or map it under `words`"));
            }
        }
    }
}

fn string_like(p: &Protocol, ty: &Ty) -> bool {
    match ty {
        Ty::String | Ty::Any => true,
        Ty::Nullable(inner) => string_like(p, inner),
        Ty::Named(n) => match p.types.get(n).map(|d| &d.kind) {
            Some(TypeKind::Alias { target, .. }) => string_like(p, target),
            _ => false,
        },
        _ => false,
    }
}
