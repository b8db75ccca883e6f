//! The engine's view of a [`Layout`]: templates parsed once, messages built from them and
//! validated by the protocol, and the checker fed trace entries built from the layout's
//! names.

use std::marker::PhantomData;

use agentwire_runtime::Invalid;
use agentwire_runtime::machine::Violation;
use serde_json::{Map, Value, json};

use super::layout::{Binding, Layout, RouteLayout};

/// The value at a dotted path.
pub fn get_path<'v>(v: &'v Value, path: &str) -> Option<&'v Value> {
    path.split('.').try_fold(v, |cur, seg| cur.get(seg))
}

/// Sets the value at a dotted path, creating objects on the way.
pub fn set_path(v: &mut Value, path: &str, value: Value) {
    let mut cur = v;
    for seg in path.split('.') {
        if !cur.is_object() {
            *cur = Value::Object(Map::new());
        }
        let Value::Object(map) = cur else { return };
        cur = map.entry(seg.to_owned()).or_insert(Value::Null);
    }
    *cur = value;
}

/// `tpl` with every `$name` string replaced by its value in `vals`.
pub fn fill(tpl: &Value, vals: &[(&str, &str)]) -> Value {
    match tpl {
        Value::String(s) if s.starts_with('$') => vals
            .iter()
            .find(|(k, _)| k == s)
            .map_or_else(|| tpl.clone(), |(_, v)| Value::String((*v).to_owned())),
        Value::Object(m) => {
            Value::Object(m.iter().map(|(k, v)| (k.clone(), fill(v, vals))).collect())
        }
        Value::Array(a) => Value::Array(a.iter().map(|v| fill(v, vals)).collect()),
        _ => tpl.clone(),
    }
}

/// A route's concrete path: each `:name` replaced by its value.
pub fn route_path(route: &RouteLayout, params: &[(&str, &str)]) -> String {
    route
        .path
        .split('/')
        .map(|seg| match seg.strip_prefix(':') {
            Some(name) => params
                .iter()
                .find(|(k, _)| *k == name)
                .map_or(seg, |(_, v)| *v),
            None => seg,
        })
        .collect::<Vec<_>>()
        .join("/")
}

fn parse(text: &str) -> Value {
    // The text comes from a checked spec; if it ever failed to parse, the message built from
    // it would fail validation and be refused like any other bad message.
    serde_json::from_str(text).unwrap_or(Value::Null)
}

/// Parsed templates of one layout.
#[derive(Debug)]
pub struct Engine<B> {
    pub layout: &'static Layout,
    create_reply: Value,
    hello_answer: Value,
    payload: Value,
    callback_reply: Value,
    broadcast: Value,
    refusal: Value,
    error_body: Value,
    _b: PhantomData<fn() -> B>,
}

impl<B: Binding> Engine<B> {
    pub fn new() -> Self {
        let l = B::LAYOUT;
        Self {
            layout: l,
            create_reply: parse(l.create_reply),
            hello_answer: parse(l.hello_answer),
            payload: parse(l.payload),
            callback_reply: parse(l.callback_reply),
            broadcast: parse(l.broadcast),
            refusal: parse(l.refusal),
            error_body: parse(l.error_body),
            _b: PhantomData,
        }
    }

    fn build(&self, tpl: &Value, type_name: &str, vals: &[(&str, &str)]) -> Result<Value, Invalid> {
        B::decode(type_name, &fill(tpl, vals).to_string())
    }

    pub fn ready(&self, session: &str, owner: &str) -> Result<Value, Invalid> {
        let vals = [("$session", session), ("$owner", owner)];
        self.build(&self.hello_answer, self.layout.outbound, &vals)
    }

    pub fn broadcast(
        &self,
        session: &str,
        role: &'static str,
        text: &str,
        at: &str,
    ) -> Result<Value, Invalid> {
        let role = self.layout.word(role);
        let vals = [
            ("$session", session),
            ("$role", role),
            ("$text", text),
            ("$created_at", at),
        ];
        self.build(&self.broadcast, self.layout.outbound, &vals)
    }

    /// The refusal frame; a message that breaks its type's rules (an empty one, say) is
    /// replaced by the code itself.
    pub fn refusal(&self, code: &'static str, message: &str) -> Result<Value, Invalid> {
        let code = self.layout.word(code);
        let message = if message.trim().is_empty() {
            code
        } else {
            message
        };
        self.build(
            &self.refusal,
            self.layout.outbound,
            &[("$code", code), ("$message", message)],
        )
    }

    pub fn error_body(&self, code: &'static str, message: &str) -> Result<Value, Invalid> {
        let code = self.layout.word(code);
        let message = if message.trim().is_empty() {
            code
        } else {
            message
        };
        self.build(
            &self.error_body,
            self.layout.error_type,
            &[("$code", code), ("$message", message)],
        )
    }

    pub fn create_reply(&self, session: &str, owner: &str, at: &str) -> Result<Value, Invalid> {
        let vals = [
            ("$session", session),
            ("$owner", owner),
            ("$created_at", at),
        ];
        self.build(&self.create_reply, self.layout.create.reply, &vals)
    }

    pub fn callback_reply(&self) -> Result<Value, Invalid> {
        self.build(&self.callback_reply, self.layout.callback.reply, &[])
    }

    pub fn payload(
        &self,
        session: &str,
        owner: &str,
        callback_url: &str,
        text: &str,
        at: &str,
    ) -> Result<Value, Invalid> {
        let vals = [
            ("$session", session),
            ("$owner", owner),
            ("$callback_url", callback_url),
            ("$text", text),
            ("$created_at", at),
        ];
        self.build(&self.payload, self.layout.forward.body, &vals)
    }

    /// Trims (when the id's rules say so) and validates a session id.
    pub fn session_id(&self, raw: &str) -> Result<String, Invalid> {
        let id = if self.layout.trim_session {
            raw.trim()
        } else {
            raw
        };
        B::decode(
            self.layout.session_type,
            &Value::String(id.to_owned()).to_string(),
        )?;
        Ok(id.to_owned())
    }

    /// The callback URL handed out for `session`.
    pub fn callback_url(&self, base: &str, session: &str) -> String {
        let path = route_path(
            &self.layout.callback,
            &[(self.layout.callback_session, session)],
        );
        format!("{}{path}", base.trim_end_matches('/'))
    }

    pub fn observe_in(c: &mut B::Checker, frame: &Value) -> Result<(), Violation> {
        B::observe(c, B::LAYOUT.client, &json!({ "message": frame }))
    }

    pub fn observe_out(c: &mut B::Checker, frame: &Value) -> Result<(), Violation> {
        B::observe(c, B::LAYOUT.server, &json!({ "message": frame }))
    }

    fn observe_http(
        c: &mut B::Checker,
        route: &RouteLayout,
        path: &str,
        status: Option<u16>,
        body: Value,
    ) -> Result<(), Violation> {
        let entry =
            json!({"http": {"method": route.method, "path": path, "status": status, "body": body}});
        B::observe(c, route.from, &entry)
    }

    pub fn observe_create(
        c: &mut B::Checker,
        owner: &str,
        session: &str,
        status: u16,
    ) -> Result<(), Violation> {
        let l = B::LAYOUT;
        let mut body = Value::Object(Map::new());
        set_path(&mut body, l.create_owner, owner.into());
        set_path(&mut body, l.create_session, session.into());
        Self::observe_http(c, &l.create, l.create.path, Some(status), body)
    }

    pub fn observe_forward(
        c: &mut B::Checker,
        payload: &Value,
        status: Option<u16>,
    ) -> Result<(), Violation> {
        let l = B::LAYOUT;
        Self::observe_http(c, &l.forward, l.forward.path, status, payload.clone())
    }

    pub fn observe_callback(
        c: &mut B::Checker,
        session: &str,
        text: &str,
        status: u16,
    ) -> Result<(), Violation> {
        let l = B::LAYOUT;
        let path = route_path(&l.callback, &[(l.callback_session, session)]);
        Self::observe_http(c, &l.callback, &path, Some(status), text.into())
    }

    /// The client's hello for `session`, as a frame.
    pub fn hello(session: &str) -> Value {
        let l = B::LAYOUT;
        let mut frame = json!({ l.inbound_tag: l.hello_kind });
        set_path(&mut frame, l.hello_session, session.into());
        frame
    }

    /// Tells a checker the session exists (a create answered 200 reads as a revival).
    pub fn prime(c: &mut B::Checker, session: &str, owner: &str) {
        let _ = Self::observe_create(c, owner, session, 200);
    }

    /// Tells a checker a connection is attached (a hello and its answer it did not see).
    pub fn prime_connection(&self, c: &mut B::Checker, session: &str, owner: &str) {
        let _ = Self::observe_in(c, &Self::hello(session));
        if let Ok(ready) = self.ready(session, owner) {
            let _ = Self::observe_out(c, &ready);
        }
    }

    /// A frame's kind, when it is the hello or the input.
    pub fn frame_kind(frame: &Value) -> Option<&str> {
        frame.get(B::LAYOUT.inbound_tag).and_then(Value::as_str)
    }

    /// The hello frame with its session id trimmed, when the id's rules trim it.
    pub fn trimmed_hello(frame: &Value) -> Option<Value> {
        let l = B::LAYOUT;
        if !l.trim_session || Self::frame_kind(frame) != Some(l.hello_kind) {
            return None;
        }
        let id = get_path(frame, l.hello_session)?.as_str()?;
        if id.trim() == id {
            return None;
        }
        let mut t = frame.clone();
        set_path(&mut t, l.hello_session, id.trim().into());
        Some(t)
    }
}

impl<B: Binding> Default for Engine<B> {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fills_and_sets_paths() {
        let tpl = json!({"a": "$x", "b": {"c": "$y", "d": true}, "e": "$unknown"});
        let v = fill(&tpl, &[("$x", "1"), ("$y", "2")]);
        assert_eq!(
            v,
            json!({"a": "1", "b": {"c": "2", "d": true}, "e": "$unknown"})
        );
        let mut o = json!({});
        set_path(&mut o, "p.q", "v".into());
        assert_eq!(get_path(&o, "p.q"), Some(&json!("v")));
        let r = RouteLayout {
            name: "n",
            method: "POST",
            path: "/s/:id/m",
            from: "x",
            body: "",
            reply: "",
        };
        assert_eq!(route_path(&r, &[("id", "A-1")]), "/s/A-1/m");
    }
}
