//! JSON-RPC 2.0 envelopes around generated method sets: requests, notifications and responses,
//! decoded by reading the envelope first and the `params` only once the method is known.

use std::fmt;

use serde::de::{self, IgnoredAny, MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::value::RawValue;

use crate::decode::decode_json;
use crate::error::{FieldError, Invalid, Rule};
use crate::tagged::{Text, quoted_list};
use crate::validate::{JsonPointer, Validate};

/// The standard JSON-RPC error codes.
pub mod codes {
    pub const PARSE_ERROR: i64 = -32700;
    pub const INVALID_REQUEST: i64 = -32600;
    pub const METHOD_NOT_FOUND: i64 = -32601;
    pub const INVALID_PARAMS: i64 = -32602;
    pub const INTERNAL_ERROR: i64 = -32603;
}

/// A request id: JSON-RPC allows a number or a string.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(untagged)]
pub enum RequestId {
    Number(i64),
    String(String),
}

impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RequestId::Number(n) => write!(f, "{n}"),
            RequestId::String(s) => write!(f, "{s:?}"),
        }
    }
}

/// The `error` member of a failed response.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RpcError {
    pub code: i64,
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<serde_json::Value>,
}

impl RpcError {
    /// The error a peer should answer an undecodable message with: -32700 for bad JSON,
    /// -32601 for an unknown method (or one only the receiver sends), -32602 for bad params,
    /// -32600 for anything else.
    pub fn for_invalid(invalid: &Invalid) -> Self {
        let first = invalid.errors.first();
        let code = match first {
            Some(e) if e.rule == Rule::Syntax => codes::PARSE_ERROR,
            Some(e)
                if matches!(e.rule, Rule::UnknownKind | Rule::WrongSide)
                    && e.pointer == "/method" =>
            {
                codes::METHOD_NOT_FOUND
            }
            Some(e) if e.pointer.starts_with("/params") => codes::INVALID_PARAMS,
            _ => codes::INVALID_REQUEST,
        };
        RpcError {
            code,
            message: invalid.to_string(),
            data: None,
        }
    }
}

/// A set of methods one side sends with one call kind (requests or notifications). Generated
/// as an enum with one variant per method, holding its params.
pub trait MethodSet: Sized + Serialize + Validate {
    /// Every method name of the set, in spec order.
    const METHODS: &'static [&'static str];

    /// The method name of this value.
    fn method(&self) -> &'static str;

    /// Whether the envelope carries a `params` member (methods without params omit it).
    fn has_params(&self) -> bool;

    /// Decodes the params of `method`; `None` when the method is not in this set. Error
    /// pointers are relative to the params.
    fn decode_params(method: &str, params: Option<&RawValue>) -> Option<Result<Self, Invalid>>;
}

/// A request set whose responses have typed results.
pub trait RequestSet: MethodSet {
    type Result: Serialize + Validate;

    /// Decodes the `result` of a response to `method`. Pointers are relative to the result.
    fn decode_result(method: &str, result: &RawValue) -> Option<Result<Self::Result, Invalid>>;
}

/// A method set with no methods, for a direction that sends no requests (or no notifications).
#[derive(Debug, Clone, PartialEq)]
pub enum NoMethods {}

impl Serialize for NoMethods {
    fn serialize<S: Serializer>(&self, _: S) -> Result<S::Ok, S::Error> {
        match *self {}
    }
}

impl Validate for NoMethods {
    fn validate_at(&self, _: &mut JsonPointer, _: &mut Vec<FieldError>) {
        match *self {}
    }
}

impl MethodSet for NoMethods {
    const METHODS: &'static [&'static str] = &[];
    fn method(&self) -> &'static str {
        match *self {}
    }
    fn has_params(&self) -> bool {
        match *self {}
    }
    fn decode_params(_: &str, _: Option<&RawValue>) -> Option<Result<Self, Invalid>> {
        None
    }
}

/// Decodes required params of type `T`; used by generated `decode_params`. A failure lists
/// every error of the params ([`crate::decode_all`]); an accepted value is validated later,
/// with the whole message.
pub fn params<T: serde::de::DeserializeOwned + Validate>(
    params: Option<&RawValue>,
) -> Result<T, Invalid> {
    match params {
        // The spec's params are objects; by-position (array) params are not part of it.
        Some(raw) if !raw.get().starts_with('{') => Err(Invalid::one(FieldError::new(
            "",
            Rule::Type,
            "params must be an object",
        ))),
        Some(raw) => crate::decode::decode_all(raw.get()),
        None => Err(Invalid::one(FieldError::new(
            "",
            Rule::Required,
            "missing field `params`",
        ))),
    }
}

/// Decodes params that the spec lets a sender omit: absent (or `null`) params are `None`.
pub fn optional_params<T: serde::de::DeserializeOwned + Validate>(
    raw: Option<&RawValue>,
) -> Result<Option<T>, Invalid> {
    match raw {
        None => Ok(None),
        Some(_) => params(raw).map(Some),
    }
}

/// How a protocol cancels a request (`jsonrpc.cancel` in `protocol.yaml`): a notification
/// whose params name the request's id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CancelRule {
    /// The notification's method.
    pub method: &'static str,
    /// The params member holding the cancelled request's id.
    pub id: &'static str,
    /// What the cancelled request is answered with.
    pub answer: CancelAnswer,
}

/// What a cancelled request gets back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CancelAnswer {
    /// No response at all.
    Nothing,
    /// An error response with this code.
    Error(i64),
}

/// How a protocol ties progress notifications to a request (`jsonrpc.progress`): the request
/// carries a token at `request_token` (a path of params members) and each progress
/// notification repeats it in its `token` member.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProgressRule {
    pub method: &'static str,
    /// The progress notification's params member holding the token.
    pub token: &'static str,
    /// The path of params members of a request holding its token (`["_meta", "progressToken"]`).
    pub request_token: &'static [&'static str],
}

/// The request-level conventions a protocol declares; both `None` for plain JSON-RPC.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Conventions {
    pub cancel: Option<CancelRule>,
    pub progress: Option<ProgressRule>,
}

impl Conventions {
    /// Plain JSON-RPC: no cancellation, no progress.
    pub const NONE: Conventions = Conventions {
        cancel: None,
        progress: None,
    };
}

/// The value at `path` (params members, outermost first) inside the `params` of the JSON-RPC
/// message `json`; `None` when absent or when `json` is not a message with object params.
pub fn params_member(json: &str, path: &[&str]) -> Option<serde_json::Value> {
    let last = path.last()?;
    // Cheap refusal before a full parse: most messages carry no such member.
    if !json.contains(&format!("\"{last}\"")) {
        return None;
    }
    let value: serde_json::Value = serde_json::from_str(json).ok()?;
    let mut at = value.get("params")?;
    for member in path {
        at = at.get(member)?;
    }
    Some(at.clone())
}

/// The outcome of a response.
#[derive(Debug, Clone)]
pub enum Outcome {
    /// The raw `result`, decoded to a typed value once the request's method is known.
    Result(Box<RawValue>),
    Error(RpcError),
}

/// A response; `id` is `None` only for errors about a message whose id could not be read.
#[derive(Debug, Clone)]
pub struct Response {
    pub id: Option<RequestId>,
    pub outcome: Outcome,
}

/// One JSON-RPC message sent by one side: `R` its requests, `N` its notifications.
#[derive(Debug, Clone)]
pub enum Message<R, N> {
    Request { id: RequestId, request: R },
    Notification(N),
    Response(Response),
}

/// How one side's calls are typed: its method names and the decoders of their params.
/// Generated code has them as [`MethodSet`]s; the run-time interpreter of spec folders
/// (`agentwire trace check --spec`) reads them from the spec, and both decode envelopes with
/// [`decode_with`], so they report the same errors.
pub trait Calls {
    type Request;
    type Notification;

    /// Whether `method` is one of the side's requests.
    fn is_request(&self, method: &str) -> bool;

    /// Whether `method` is one of the side's notifications.
    fn is_notification(&self, method: &str) -> bool;

    /// Every method of the side, requests first, each in spec order.
    fn methods(&self) -> Vec<&str>;

    /// Decodes the params of request `method`; `None` when it is not a request here.
    fn request(
        &self,
        method: &str,
        params: Option<&RawValue>,
    ) -> Option<Result<Self::Request, Invalid>>;

    /// Decodes the params of notification `method`; `None` when it is not one here.
    fn notification(
        &self,
        method: &str,
        params: Option<&RawValue>,
    ) -> Option<Result<Self::Notification, Invalid>>;
}

/// The generated method sets `R` and `N` as [`Calls`].
struct Sets<R, N>(std::marker::PhantomData<(R, N)>);

impl<R: MethodSet, N: MethodSet> Calls for Sets<R, N> {
    type Request = R;
    type Notification = N;
    fn is_request(&self, method: &str) -> bool {
        R::METHODS.contains(&method)
    }
    fn is_notification(&self, method: &str) -> bool {
        N::METHODS.contains(&method)
    }
    fn methods(&self) -> Vec<&str> {
        R::METHODS.iter().chain(N::METHODS).copied().collect()
    }
    fn request(&self, method: &str, params: Option<&RawValue>) -> Option<Result<R, Invalid>> {
        R::decode_params(method, params)
    }
    fn notification(&self, method: &str, params: Option<&RawValue>) -> Option<Result<N, Invalid>> {
        N::decode_params(method, params)
    }
}

/// Decodes one message of a side whose calls `calls` types. Errors carry pointers into the
/// whole message (`/params/...`).
pub fn decode_with<C: Calls>(
    json: &str,
    calls: &C,
) -> Result<Message<C::Request, C::Notification>, Invalid> {
    let env: Envelope<'_> = decode_json_borrowed(json)?;
    match env.jsonrpc.as_ref().map(Text::as_str) {
        None => return Err(err("/jsonrpc", Rule::Required, "missing field `jsonrpc`")),
        Some(v) if v != "2.0" => {
            return Err(err("/jsonrpc", Rule::Enum, format!("`{v}` is not `2.0`")));
        }
        Some(_) => {}
    }
    if let Some(method) = &env.method {
        return from_call(calls, method.as_str(), env.id, env.params);
    }
    let id = match env.id {
        Some(id) => id,
        None if env.result.is_none() && env.error.is_none() => {
            return Err(err("/method", Rule::Required, "missing field `method`"));
        }
        None => return Err(err("/id", Rule::Required, "missing field `id`")),
    };
    let outcome = match (env.result, env.error) {
        (Some(_), Some(_)) => {
            return Err(err(
                "",
                Rule::Type,
                "a response carries `result` or `error`, not both",
            ));
        }
        (Some(result), None) => Outcome::Result(result.to_owned()),
        (None, Some(error)) => {
            Outcome::Error(decode_json(error.get()).map_err(|e: Invalid| e.under("/error"))?)
        }
        (None, None) => {
            return Err(err(
                "/result",
                Rule::Required,
                "a response needs `result` or `error`",
            ));
        }
    };
    if id.is_none() && matches!(outcome, Outcome::Result(_)) {
        return Err(err(
            "/id",
            Rule::Type,
            "only an error response may have a null id",
        ));
    }
    Ok(Message::Response(Response { id, outcome }))
}

fn from_call<C: Calls>(
    calls: &C,
    method: &str,
    id: Option<Option<RequestId>>,
    params: Option<&RawValue>,
) -> Result<Message<C::Request, C::Notification>, Invalid> {
    match id {
        Some(id) => {
            let Some(id) = id else {
                return Err(err("/id", Rule::Type, "a request id must not be null"));
            };
            match calls.request(method, params) {
                Some(r) => Ok(Message::Request {
                    id,
                    request: r.map_err(|e| e.under("/params"))?,
                }),
                None if calls.is_notification(method) => Err(err(
                    "/id",
                    Rule::Type,
                    format!("`{method}` is a notification and must not carry an id"),
                )),
                None => Err(unknown_method(calls, method)),
            }
        }
        None => match calls.notification(method, params) {
            Some(r) => Ok(Message::Notification(r.map_err(|e| e.under("/params"))?)),
            None if calls.is_request(method) => Err(err(
                "/id",
                Rule::Required,
                format!("`{method}` is a request and needs an id"),
            )),
            None => Err(unknown_method(calls, method)),
        },
    }
}

impl<R: MethodSet, N: MethodSet> Message<R, N> {
    /// Decodes one message. Errors carry pointers into the whole message (`/params/...`).
    pub fn from_json(json: &str) -> Result<Self, Invalid> {
        decode_with(json, &Sets::<R, N>(std::marker::PhantomData))
    }

    /// Validates the params of a request or notification (pointers under `/params`).
    pub fn validate(&self) -> Result<(), Invalid> {
        match self {
            Message::Request { request, .. } => request.validate().map_err(|e| e.under("/params")),
            Message::Notification(n) => n.validate().map_err(|e| e.under("/params")),
            Message::Response(_) => Ok(()),
        }
    }

    /// Encodes the message as one JSON text.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("JSON-RPC messages always serialize")
    }
}

fn unknown_method<C: Calls>(calls: &C, method: &str) -> Invalid {
    let known = calls.methods();
    Invalid::one(FieldError::unknown_kind(
        "/method",
        method,
        format!(
            "unknown method `{method}`, expected one of {}",
            quoted_list(&known)
        ),
    ))
}

fn err(pointer: &str, rule: Rule, message: impl Into<String>) -> Invalid {
    Invalid::one(FieldError::new(pointer, rule, message))
}

impl Response {
    /// Decodes the result of a response to a request of method `method` sent with `R`.
    pub fn typed_result<R: RequestSet>(
        &self,
        method: &str,
    ) -> Result<Result<R::Result, RpcError>, Invalid> {
        match &self.outcome {
            Outcome::Error(e) => Ok(Err(e.clone())),
            Outcome::Result(raw) => match R::decode_result(method, raw) {
                Some(r) => r.map(Ok).map_err(|e| e.under("/result")),
                None => Err(Invalid::one(FieldError::unknown_kind(
                    "/method",
                    method,
                    format!("unknown method `{method}`"),
                ))),
            },
        }
    }
}

impl<R: MethodSet, N: MethodSet> Serialize for Message<R, N> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(None)?;
        map.serialize_entry("jsonrpc", "2.0")?;
        match self {
            Message::Request { id, request } => {
                map.serialize_entry("id", id)?;
                map.serialize_entry("method", request.method())?;
                if request.has_params() {
                    map.serialize_entry("params", request)?;
                }
            }
            Message::Notification(n) => {
                map.serialize_entry("method", n.method())?;
                if n.has_params() {
                    map.serialize_entry("params", n)?;
                }
            }
            Message::Response(r) => {
                map.serialize_entry("id", &r.id)?;
                match &r.outcome {
                    Outcome::Result(raw) => map.serialize_entry("result", raw)?,
                    Outcome::Error(e) => map.serialize_entry("error", e)?,
                }
            }
        }
        map.end()
    }
}

/// The envelope's members, with `params` and `result` left as unparsed JSON text.
struct Envelope<'a> {
    jsonrpc: Option<Text<'a>>,
    /// `None`: absent; `Some(None)`: `null`.
    id: Option<Option<RequestId>>,
    method: Option<Text<'a>>,
    params: Option<&'a RawValue>,
    result: Option<&'a RawValue>,
    error: Option<&'a RawValue>,
}

fn decode_json_borrowed(json: &str) -> Result<Envelope<'_>, Invalid> {
    let mut de = serde_json::Deserializer::from_str(json);
    let parsed = de
        .deserialize_map(EnvelopeVisitor)
        .and_then(|env| de.end().map(|()| env));
    parsed.map_err(|e| {
        if let Err(syntax) = serde_json::from_str::<IgnoredAny>(json) {
            return err("", Rule::Syntax, syntax.to_string());
        }
        let message = e.to_string();
        if let Some(rest) = message.strip_prefix(DUPLICATE) {
            let pointer = rest.split_once(": ").map_or(rest, |(p, _)| p);
            return err(pointer, Rule::Duplicate, message.clone());
        }
        if let Some(rest) = message.strip_prefix(TOO_DEEP) {
            let (pointer, what) = rest.split_once(": ").unwrap_or((rest, ""));
            return err(pointer, Rule::Syntax, what.to_owned());
        }
        let rule = if e.is_syntax() || e.is_eof() {
            Rule::Syntax
        } else {
            Rule::Type
        };
        let pointer = match rule {
            Rule::Type => ENVELOPE_KEYS
                .iter()
                .find(|k| message.starts_with(&format!("{k}: ")))
                .map(|k| format!("/{k}"))
                .unwrap_or_default(),
            _ => String::new(),
        };
        err(&pointer, rule, message)
    })
}

const ENVELOPE_KEYS: [&str; 6] = ["jsonrpc", "id", "method", "params", "result", "error"];

/// How the envelope visitor words a key given twice: "duplicate key at `/pointer`: ...".
const DUPLICATE: &str = "duplicate key at ";

/// How it words a member nobody reads that is nested deeper than any consumer reads.
const TOO_DEEP: &str = "nested too deep at ";

struct EnvelopeVisitor;

impl<'de> Visitor<'de> for EnvelopeVisitor {
    type Value = Envelope<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON-RPC 2.0 object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Envelope<'de>, A::Error> {
        let mut env = Envelope {
            jsonrpc: None,
            id: None,
            method: None,
            params: None,
            result: None,
            error: None,
        };
        // Member errors are prefixed with the member name so the caller can point at it.
        let at = |key: &str, e: A::Error| de::Error::custom(format_args!("{key}: {e}"));
        // A key twice is refused, as `decode_json` does, so no reader sees another message.
        let mut known = [false; ENVELOPE_KEYS.len()];
        let mut others: Vec<Text<'de>> = Vec::new();
        while let Some(key) = map.next_key::<Text<'de>>()? {
            let position = ENVELOPE_KEYS.iter().position(|k| *k == key.as_str());
            let twice = match position {
                Some(i) => std::mem::replace(&mut known[i], true),
                None => others.iter().any(|k| k.as_str() == key.as_str()),
            };
            let pointer = |key: &str| format!("/{}", key.replace('~', "~0").replace('/', "~1"));
            if twice {
                return Err(de::Error::custom(format_args!(
                    "{DUPLICATE}{}: duplicate key `{}`",
                    pointer(key.as_str()),
                    key.as_str()
                )));
            }
            let Some(i) = position else {
                // A member nobody reads: still no key twice inside it.
                let raw: &'de RawValue = map.next_value()?;
                if let Err(e) = crate::json::unique::check(raw.get().as_bytes()) {
                    let inner = &e.errors[0];
                    let prefix = match inner.rule {
                        Rule::Duplicate => DUPLICATE,
                        _ => TOO_DEEP,
                    };
                    return Err(de::Error::custom(format_args!(
                        "{prefix}{}{}: {}",
                        pointer(key.as_str()),
                        inner.pointer,
                        inner.message
                    )));
                }
                others.push(key);
                continue;
            };
            let key = ENVELOPE_KEYS[i];
            match key {
                "jsonrpc" => env.jsonrpc = Some(map.next_value().map_err(|e| at(key, e))?),
                "id" => env.id = Some(map.next_value().map_err(|e| at(key, e))?),
                "method" => env.method = Some(map.next_value().map_err(|e| at(key, e))?),
                "params" => {
                    let raw: &'de RawValue = map.next_value().map_err(|e| at(key, e))?;
                    env.params = (raw.get() != "null").then_some(raw);
                }
                "result" => env.result = Some(map.next_value().map_err(|e| at(key, e))?),
                "error" => {
                    let raw: &'de RawValue = map.next_value().map_err(|e| at(key, e))?;
                    env.error = Some(raw);
                }
                _ => {}
            }
        }
        Ok(env)
    }
}

/// Decodes a response to a `method` request sent with `R`, validates its typed result and
/// re-encodes the whole response (for trace files, docs checks and fixtures).
pub fn reencode_response<R: RequestSet>(
    method: &str,
    json: &str,
) -> Result<serde_json::Value, Invalid> {
    let response = match Message::<NoMethods, NoMethods>::from_json(json)? {
        Message::Response(r) => r,
        Message::Request { request, .. } => match request {},
        Message::Notification(n) => match n {},
    };
    let id = serde_json::to_value(&response.id).expect("ids always serialize");
    Ok(match response.typed_result::<R>(method)? {
        Ok(result) => {
            result.validate().map_err(|e| e.under("/result"))?;
            let result = serde_json::to_value(&result).expect("results always serialize");
            serde_json::json!({"jsonrpc": "2.0", "id": id, "result": result})
        }
        Err(error) => serde_json::json!({"jsonrpc": "2.0", "id": id, "error": error}),
    })
}
