//! The format-neutral intermediate representation every loader produces and every emitter
//! reads: plain data, types keyed by name in a `BTreeMap` so output order never depends on
//! the order of discovery.

use std::collections::BTreeMap;

mod carried;
mod skeleton;
mod untagged;
mod uses;
pub use carried::{Carried, CarriedValue};
pub use skeleton::*;
pub use untagged::order_untagged_members;
pub use uses::{tag_pairs, tagged_beside, used_outside_tagged_unions};

/// Where something was declared, for diagnostics and for the drift check's `file:line`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Origin {
    /// Path of the spec file, relative to the spec folder (e.g. `messages.ts`).
    pub file: String,
    /// 1-based line.
    pub line: usize,
}

/// One protocol: everything one `spec/<module>/` folder declares.
#[derive(Debug, Clone, PartialEq)]
pub struct Protocol {
    /// The Rust module name (the folder name).
    pub module: String,
    pub title: String,
    pub summary: String,
    pub transport: Transport,
    pub roles: Vec<String>,
    /// Other names documents use for a role (`role_aliases` in `protocol.yaml`), by role;
    /// only the docs drift check reads them.
    pub role_aliases: BTreeMap<String, Vec<String>>,
    /// Every named type of the message file, by name.
    pub types: BTreeMap<String, TypeDef>,
    pub channels: Vec<Channel>,
    /// The message catalogue, in spec order.
    pub messages: Vec<MessageKind>,
    /// JSON-RPC methods, in spec order (empty for other transports).
    pub methods: Vec<Method>,
    /// HTTP routes, in spec order.
    pub routes: Vec<Route>,
    /// The types file, relative to the spec folder.
    pub types_file: String,
    /// Sequence-state machines from `machine.yaml` (empty when the spec has none).
    pub machines: Vec<Machine>,
    /// The protobuf package when the types come from a `.proto` file: the Rust types are then
    /// prost's (oneofs as `Option<enum>`, enum fields as `i32`, implicit-presence scalars as
    /// bare values) and the JSON form is proto3 JSON.
    pub proto_package: Option<String>,
    /// Custom protobuf options, as plain data: by IR path (`Task.id` for a field, `Task` for a
    /// message, `A2AService.SendMessage` for an rpc; other packages' names in full), each
    /// option by its full name (`google.api.field_behavior`) with its value as JSON (enum
    /// values by name, messages as objects). Empty for JSON protocols; no emitter reads it.
    pub options: BTreeMap<String, BTreeMap<String, serde_json::Value>>,
    /// The `sessions:` section (http+websocket skeletons).
    pub sessions: Option<Sessions>,
    /// The `tracking:` section (a WebSocket client's kept state).
    pub tracking: Option<Tracking>,
    /// Optional capabilities a peer may announce (`features:` in `protocol.yaml`), in spec order.
    pub features: Vec<Feature>,
    /// The cases of a streamed response event (`events:` in `protocol.yaml`), in spec order.
    pub events: Vec<Event>,
    /// `versions:` in `protocol.yaml`, on the folder's IR: every declared version and where a
    /// stream names its own. `None` for a protocol of one version.
    pub versioning: Option<Versioning>,
    /// On the IR of one declared version: which one (its types, methods and machines are that
    /// version's). `None` for a protocol of one version and for the folder's IR.
    pub version: Option<VersionInfo>,
}

/// The versions of a protocol folder, newest first, and where a stream says which it speaks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Versioning {
    pub source: VersionSource,
    /// `version.unsupported_code`: the JSON-RPC error code answering a request in a version
    /// not declared; `None` is JSON-RPC's -32602.
    pub unsupported_code: Option<i64>,
    pub versions: Vec<VersionInfo>,
}

/// One declared version: its string as peers exchange it and its Rust module name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VersionInfo {
    pub name: String,
    pub module: String,
    /// This version's skeleton items are also the folder's (`skeleton: true` on its `versions:` entry).
    pub skeleton: bool,
}

/// `version:` in `protocol.yaml`: where a stream names its version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VersionSource {
    /// The opening request's params member offers it; the same member of its result agrees.
    Handshake { method: String, member: String },
    /// Every request and notification carries it at this path under `params`.
    Meta { path: Vec<String> },
    /// Every HTTP exchange carries it in this header.
    Header { name: String },
    /// Several of the above, read in turn: versions that name themselves in different places.
    Any(Vec<VersionSource>),
}

impl VersionSource {
    /// The handshake among the sources, if one is.
    pub fn handshake(&self) -> Option<(&str, &str)> {
        match self {
            VersionSource::Handshake { method, member } => Some((method, member)),
            VersionSource::Any(sources) => sources.iter().find_map(VersionSource::handshake),
            _ => None,
        }
    }
}

/// One optional capability from `features:`; plain data that skeleton emitters give meaning.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Feature {
    pub name: String,
    pub description: String,
    /// Catalogue kinds that only go to (or come from) a peer that declared the feature.
    pub kinds: Vec<String>,
    /// Events (`events:` names) only a peer that declared the feature sends.
    pub events: Vec<String>,
    pub origin: Origin,
}

/// One case of a streamed response from `events:`; a terminal event ends its request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    pub name: String,
    pub terminal: bool,
    pub origin: Origin,
}

/// A message kind as machines name it: `role.kind`, or every kind of a role.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct KindRef {
    pub role: String,
    /// `None` for `role.*`.
    pub kind: Option<String>,
    /// `role.response to <request>`: only the responses to requests of that kind, whose
    /// `result` reads as that request's result type.
    pub answers: Option<Box<KindRef>>,
}

impl std::fmt::Display for KindRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.kind {
            Some(k) => write!(f, "{}.{k}", self.role)?,
            None => write!(f, "{}.*", self.role)?,
        }
        match &self.answers {
            Some(r) => write!(f, " to {r}"),
            None => Ok(()),
        }
    }
}

/// A constant in a machine condition.
#[derive(Debug, Clone, PartialEq)]
pub enum Literal {
    Str(String),
    Bool(bool),
    Num(f64),
    Null,
}

/// What a condition compares against.
#[derive(Debug, Clone, PartialEq)]
pub enum Operator {
    Is(Literal),
    IsNot(Literal),
    OneOf(Vec<Literal>),
    Present(bool),
    /// A memory value, or `$key`.
    Equals(String),
    Extends(String),
    In(String),
    NotIn(String),
}

/// The left-hand side of a condition.
#[derive(Debug, Clone, PartialEq)]
pub enum Subject {
    Field(String),
    Value(Literal),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Condition {
    pub subject: Subject,
    pub op: Operator,
    /// The condition as written, for violation messages.
    pub text: String,
    /// A check's `code:`: the error code a request this check refuses is answered with
    /// (JSON-RPC's error code); `None`, and always for guards: the transport's default.
    pub code: Option<i64>,
    pub origin: Origin,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    Set {
        memory: String,
        field: String,
    },
    Add {
        memory: String,
        field: String,
    },
    Remove {
        memory: String,
        field: String,
    },
    Clear {
        memory: String,
    },
    /// `{add: <set>, value: <string>, if: [...]}`: adds a constant to a set when every
    /// condition holds (what a message declared, e.g. one capability of several).
    AddValue {
        memory: String,
        value: String,
        when: Vec<Condition>,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemoryKind {
    Value,
    Set,
}

#[derive(Debug, Clone, PartialEq)]
pub struct KeyRule {
    pub on: KindRef,
    /// The paths whose values make the instance key: one for `field: a.b`, several for
    /// `field: [a, b]` (one instance per combination of values).
    pub fields: Vec<String>,
    pub guard: Vec<Condition>,
    /// `link: <path>`: the instance this rule keys can also be reached, once, through the
    /// value of this path (the id of the request that started it).
    pub link: Option<String>,
    /// `linked: true`: the rule's field holds a value a `link:` rule recorded, and the
    /// message belongs to the instance it was recorded for (the link is used up).
    pub linked: bool,
    pub origin: Origin,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Transition {
    /// `None` for `*` (any state).
    pub from: Option<Vec<String>>,
    pub on: KindRef,
    pub guard: Vec<Condition>,
    pub check: Vec<Condition>,
    pub actions: Vec<Action>,
    /// `None`: stay.
    pub to: Option<String>,
    pub origin: Origin,
}

/// One sequence-state machine.
#[derive(Debug, Clone, PartialEq)]
pub struct Machine {
    pub name: String,
    pub summary: String,
    /// `None`: one instance per stream (`key: connection`).
    pub key: Option<Vec<KeyRule>>,
    pub initial: String,
    pub accepting: Vec<String>,
    pub finals: Vec<String>,
    /// `retain: N`: the last N instances that reached a final state are kept in it instead
    /// of dropped, so a message naming their key again is judged by that state.
    pub retain: Option<usize>,
    /// Every state, initial first, then in order of first mention.
    pub states: Vec<String>,
    pub memory: Vec<(String, MemoryKind)>,
    pub transitions: Vec<Transition>,
    pub origin: Origin,
}

/// A protocol's transport kind: one kind registered in `crate::transport` (which the loader
/// looked it up in), or none for a types-only protocol. What a kind means (its framings,
/// sections, skeleton, registry facts) is its plug-in's to say, never a match on its name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TransportKind(&'static str);

impl TransportKind {
    /// The kind of a protocol that declares types only.
    pub const NONE: TransportKind = TransportKind(NO_TRANSPORT);

    /// The kind a registered plug-in named `name` selects (only `crate::transport` makes
    /// one, by looking the name up).
    pub(crate) const fn registered(name: &'static str) -> Self {
        TransportKind(name)
    }

    /// The `transport.kind` value.
    pub fn name(self) -> &'static str {
        self.0
    }
}

impl std::fmt::Display for TransportKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0)
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Transport {
    pub kind: TransportKind,
    pub framing: String,
    /// The rpc a gRPC protocol runs on (the protocol file's `grpc:` section).
    pub grpc: Option<GrpcRpc>,
    /// How a JSON-RPC protocol cancels requests and reports their progress (`jsonrpc.cancel`,
    /// `jsonrpc.progress`); empty for plain JSON-RPC and other transports.
    pub rpc: RpcConventions,
    /// `transport.port`: the port the accepting role listens on unless told otherwise.
    pub port: Option<u16>,
    /// `transport.content_type`: the `Content-Type` a `content-length` frame has when its
    /// header leaves it out; its charset is the one frames are read in (UTF-8).
    pub content_type: Option<String>,
    /// `transport.<key>` of each carrier the spec declares (another way the same messages
    /// travel), as checked by the plug-in registered for the key in `crate::transport`.
    pub carriers: Vec<Carried>,
}

impl Transport {
    /// The declared carrier whose checked value is a `T`, if any.
    pub fn carried<T: 'static>(&self) -> Option<&T> {
        self.carriers.iter().find_map(Carried::get)
    }
}

/// The request-level conventions of a JSON-RPC protocol.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RpcConventions {
    pub cancel: Option<RpcCancel>,
    pub progress: Option<RpcProgress>,
}

/// `jsonrpc.cancel`: the notification that cancels a request, the params member naming its
/// id, and the error code the cancelled request is answered with (`None`: no answer at all).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RpcCancel {
    pub method: String,
    pub id: String,
    pub answer: Option<i64>,
}

/// `jsonrpc.progress`: the notification reporting progress, its params member holding the
/// token, and the path of params members where a request carries its token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RpcProgress {
    pub method: String,
    pub token: String,
    pub request_token: Vec<String>,
}

/// One gRPC method: `service` is the proto's full service name (`pkg.AgentControl`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GrpcRpc {
    pub service: String,
    pub rpc: String,
    /// What the generated gateway and agent are built around; `None` only when the loader
    /// already reported what is missing.
    pub skeleton: Option<GrpcSkeleton>,
}

/// The skeleton keys of `grpc:`: which kinds and fields play each part of the stream.
/// Kinds are catalogue kinds, fields proto field names, events oneof cases from `events:`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GrpcSkeleton {
    /// The role that sends the hello (the gRPC client) and the other one (the server).
    pub client: String,
    pub server: String,
    pub handshake: GrpcHandshake,
    pub exchange: GrpcExchange,
    pub shutdown: Option<GrpcShutdown>,
    pub heartbeat: Option<GrpcHeartbeat>,
    /// Server kinds the client answers with an accepted/refused acknowledgement.
    pub acknowledged: Vec<GrpcAck>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GrpcHandshake {
    pub hello: String,
    /// The hello's string field naming the peer (unique among connected peers).
    pub peer_id: String,
    /// The hello's repeated string field of declared features.
    pub features: Option<String>,
    pub accept: String,
    /// The accept's field filled with the peer id when the handler leaves it empty.
    pub accept_id: Option<String>,
    pub refuse: String,
    /// The gRPC status (`INVALID_ARGUMENT`, ...) that ends a stream whose message fails
    /// validation.
    pub invalid_status: String,
    /// The gRPC status that refuses a hello whose peer id is already connected.
    pub taken_status: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GrpcExchange {
    pub request: String,
    pub response: String,
    /// The string field of request, response (and cancel) that ties them together.
    pub correlation: String,
    /// The response's oneof whose case is the event.
    pub event: String,
    /// The string event the client ends a request with when it cannot answer it.
    pub failure: String,
    pub cancel: Option<GrpcCancel>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GrpcCancel {
    pub kind: String,
    /// The cancel's text field with the reason.
    pub reason: Option<String>,
    /// The terminal event of a cancelled request.
    pub event: String,
    /// The event message's field the reason is echoed into; `None`: the event is a string.
    pub event_reason: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GrpcShutdown {
    pub kind: String,
    pub reason: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GrpcHeartbeat {
    pub kind: String,
    /// The int64 field set to the sender's clock in milliseconds.
    pub clock_ms: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GrpcAck {
    pub kind: String,
    pub answer: String,
    /// The string field both carry.
    pub id: String,
    /// The answer's bool field.
    pub accepted: String,
    /// The answer's text field with the reason of a refusal.
    pub reason: Option<String>,
}

/// One direction of a message stream and the union that carries it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Channel {
    pub from: String,
    pub to: String,
    pub union: String,
}

/// One entry of the message catalogue.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MessageKind {
    /// The discriminator value (or oneof case name).
    pub kind: String,
    pub from: String,
    /// The union member type that carries it.
    pub type_name: String,
    pub summary: String,
    pub origin: Origin,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Call {
    Request,
    Notification,
}

/// One JSON-RPC method.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Method {
    pub name: String,
    pub call: Call,
    /// The roles that send it: one, or several for a method both sides send (`ping`).
    pub from: Vec<String>,
    /// The params type; `None` when the method takes none.
    pub params: Option<String>,
    /// Whether a sender may omit the params entirely (`params_optional: true`).
    pub params_optional: bool,
    /// The result type of a request; `None` when the result is JSON `null`.
    pub result: Option<String>,
    /// What the spec says a receiver answers when its code says nothing (`answer:`): the
    /// generated handler's default for this request.
    pub answer: Option<DefaultAnswer>,
    pub summary: String,
    pub origin: Origin,
}

/// A request's answer the spec states, so a generated handler gives it unless overridden.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DefaultAnswer {
    /// The empty result (`answer: empty`): a result type whose every field is optional.
    Empty,
    /// "Method not found" (`answer: method_not_found`): an optional feature a receiver
    /// offers only by overriding the handler (and declaring it, where the protocol says so).
    MethodNotFound,
}

impl Method {
    /// Whether `role` sends this method.
    pub fn sent_by(&self, role: &str) -> bool {
        self.from.iter().any(|f| f == role)
    }

    /// Whether `role` answers this method: a request some other role sends.
    pub fn answered_by(&self, role: &str) -> bool {
        self.call == Call::Request && self.from.iter().any(|f| f != role)
    }
}

/// One HTTP route.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Route {
    pub name: String,
    pub method: String,
    pub path: String,
    pub from: String,
    pub to: String,
    pub path_params: BTreeMap<String, String>,
    pub body: Body,
    pub responses: Vec<HttpResponse>,
    pub timeout_ms: Option<u64>,
    pub retries: Option<u32>,
    pub summary: String,
    pub origin: Origin,
}

impl Route {
    /// The names of the path's parameters (`:sessionId` -> `sessionId`), in order.
    pub fn param_names(&self) -> Vec<String> {
        self.path
            .split('/')
            .filter_map(|s| s.strip_prefix(':'))
            .map(str::to_owned)
            .collect()
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Body {
    None,
    Json(String),
    /// A raw text body; the string names its media (e.g. `markdown`).
    Text(String),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpResponse {
    pub status: u16,
    pub body: Body,
    pub when: String,
}

/// A named type.
#[derive(Debug, Clone, PartialEq)]
pub struct TypeDef {
    pub name: String,
    /// Named by the generator for an inline object or literal type (`<Parent><Field>`).
    pub inline: bool,
    pub doc: String,
    pub origin: Origin,
    pub kind: TypeKind,
    /// Whether a struct is open: `Some(ty)` keeps members beyond its fields (a TypeScript
    /// index signature beside properties, a JSON Schema `additionalProperties` that is not
    /// `false`) in order and writes them back, each value of type `ty` (`Ty::Any` when any
    /// value goes). `None`, a closed struct, skips unknown members on decode. Only
    /// `TypeKind::Struct` reads it.
    pub open: Option<Ty>,
    /// Rules on the value as a whole (an object's `dependentRequired`, a `subschema`),
    /// checked after its fields' by a struct's validator, after its members' by a union's or
    /// an enum's. An alias keeps its rules among its constraints.
    pub rules: Constraints,
}

impl TypeDef {
    /// Whether a JSON struct keeps the members it does not declare for its rules on the
    /// object as a whole (`agentwire_runtime::subschema::Undeclared`): a closed struct with a
    /// `subschema` rule, whose conditions see the object as sent. Never written back.
    pub fn keeps_undeclared(&self) -> bool {
        matches!(self.kind, TypeKind::Struct(_))
            && self.open.is_none()
            && self.rules.has(&crate::rules::SUBSCHEMA)
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum TypeKind {
    Struct(Vec<Field>),
    /// A set of string literals.
    Enum(Vec<String>),
    /// An internally tagged union: the discriminator field and, per value, the member struct.
    Union {
        tag: String,
        variants: Vec<Variant>,
    },
    /// `type A = B`; a newtype when it carries constraints, a plain alias otherwise.
    Alias {
        target: Ty,
        constraints: Constraints,
    },
    /// A union of primitive types told apart by their JSON type (`string | number`): no tag
    /// on the wire, and `2` and `"2"` stay apart. Each member is `String`, `Number`,
    /// `Integer` or `Bool`, at most one of them numeric; or, for an open enum
    /// (`'a' | 'b' | string`), the `Named` enum of the known values, then `String`.
    Untagged(Vec<Ty>),
    /// A protobuf oneof: a union represented externally, by the case's field name among the
    /// keys of the message that holds it (`{"register": {...}}`), with at most one case set.
    /// The holding struct has one field of this type, named after the oneof, that stands for
    /// those keys.
    Oneof {
        cases: Vec<Field>,
        /// A stream wrapper's oneof (the message carries nothing else): unset is an error.
        required: bool,
    },
}

#[derive(Debug, Clone)]
pub struct Variant {
    /// The discriminator value.
    pub value: String,
    /// The member struct (its discriminator field is dropped from the struct).
    pub type_name: String,
    /// Where the member fixes the discriminator (`type: 'x'`).
    pub origin: Origin,
    /// The member an object without the discriminator is read as: its tag field is optional
    /// and declares its own value as `@default` (`/** @default chat */ type?: 'chat'`).
    pub default: bool,
    /// The union fixes the discriminator beside a reference to the member (JSON Schema's
    /// `allOf: [{$ref}]` with the tag's `const`, TypeScript's `Name & { tag: 'x' }`) and the
    /// member's own schema has no such field: decoded alone, the member has no tag to require
    /// (`own_tag`), as its schema says; the union writes and reads it.
    pub beside: bool,
}

/// Variants are equal when they dispatch the same value to the same type, wherever written.
impl PartialEq for Variant {
    fn eq(&self, other: &Self) -> bool {
        self.value == other.value && self.type_name == other.type_name
    }
}

/// A field of a struct.
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    /// The JSON key.
    pub name: String,
    pub ty: Ty,
    /// `name?:` — the key may be absent.
    pub optional: bool,
    pub doc: String,
    pub constraints: Constraints,
    pub origin: Origin,
    /// proto3 implicit presence: an absent key reads as the type's default, and the Rust
    /// field holds the bare value (`optional` is then also set: the key may be absent).
    pub defaulted: bool,
    /// The declared default (`@default <value>` in a JSDoc or proto comment): what a receiver
    /// reads when the key is absent (for proto3 implicit presence, also when it is zero). The
    /// Rust field keeps its type; the module adds `<field>_or_default()` and the JSON Schema
    /// a `default`.
    pub default: Option<serde_json::Value>,
    /// The field must be present (protobuf `[(google.api.field_behavior) = REQUIRED]` on a
    /// field of explicit presence: a message, a proto3 `optional` scalar). The Rust field keeps
    /// its `Option`; the validator reports `None` under rule `required`.
    pub must_be_set: bool,
}

/// A type expression.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Ty {
    String,
    Bool,
    /// TypeScript `number`: a float that keeps whole values whole on the wire.
    Number,
    /// The built-in `integer`.
    Integer,
    /// `any` / `unknown`.
    Any,
    /// A lone `true` or `false` literal type.
    BoolLiteral(bool),
    Array(Box<Ty>),
    /// `{[key: string]: T}`.
    Map(Box<Ty>),
    /// `T | null`.
    Nullable(Box<Ty>),
    Named(String),
    /// A protobuf numeric or bytes scalar, with its proto3 JSON form.
    Scalar(Scalar),
    /// A `google.protobuf` well-known type, with the JSON form proto3 JSON gives it.
    WellKnown(WellKnown),
}

/// The `google.protobuf` types whose proto3 JSON form is not their message form. The Rust
/// types are `pbjson_types`' (spec/README.md says why); a message field of one of them is an
/// `Option`, as for any message.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum WellKnown {
    /// An RFC 3339 string in UTC (`1972-01-01T10:00:20.021Z`).
    Timestamp,
    /// Seconds with an `s` suffix (`1.000340012s`).
    Duration,
    /// Any JSON object.
    Struct,
    /// Any JSON value.
    Value,
    /// Any JSON array.
    ListValue,
    /// JSON `null`.
    NullValue,
    /// `{}`.
    Empty,
    /// `pbjson_types::Any`: `{"typeUrl": ..., "value": <base64 of the binary message>}`.
    Any,
    /// `pbjson_types::FieldMask`: `{"paths": [...]}`.
    FieldMask,
    /// `BoolValue`, `StringValue` and the numeric and bytes wrappers: the wrapped value itself.
    Wrapper(Box<Ty>),
    /// Any other `google.protobuf` message or enum (`Api`, `Type`, `Syntax`...), written by
    /// pbjson with lowerCamelCase names: the full proto name, and whether it is an enum.
    Other { name: String, is_enum: bool },
}

impl WellKnown {
    /// The well-known type a `google.protobuf` message or enum is, by its full proto name.
    pub fn from_proto(full_name: &str, is_enum: bool) -> Option<WellKnown> {
        let short = full_name.strip_prefix("google.protobuf.")?;
        let wrapped = |ty: Ty| Some(WellKnown::Wrapper(Box::new(ty)));
        match short {
            "Timestamp" => Some(WellKnown::Timestamp),
            "Duration" => Some(WellKnown::Duration),
            "Struct" => Some(WellKnown::Struct),
            "Value" => Some(WellKnown::Value),
            "ListValue" => Some(WellKnown::ListValue),
            "NullValue" => Some(WellKnown::NullValue),
            "Empty" => Some(WellKnown::Empty),
            "Any" => Some(WellKnown::Any),
            "FieldMask" => Some(WellKnown::FieldMask),
            "BoolValue" => wrapped(Ty::Bool),
            "StringValue" => wrapped(Ty::String),
            "BytesValue" => wrapped(Ty::Scalar(Scalar::Bytes)),
            "Int32Value" => wrapped(Ty::Scalar(Scalar::Int32)),
            "UInt32Value" => wrapped(Ty::Scalar(Scalar::Uint32)),
            "Int64Value" => wrapped(Ty::Scalar(Scalar::Int64)),
            "UInt64Value" => wrapped(Ty::Scalar(Scalar::Uint64)),
            "FloatValue" => wrapped(Ty::Scalar(Scalar::Float)),
            "DoubleValue" => wrapped(Ty::Scalar(Scalar::Double)),
            _ => Some(WellKnown::Other {
                name: full_name.to_owned(),
                is_enum,
            }),
        }
    }
}

/// Protobuf scalars beyond `string` and `bool` (which lower to `Ty::String` and `Ty::Bool`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Scalar {
    /// `int32`, `sint32`, `sfixed32`: a JSON number.
    Int32,
    /// `uint32`, `fixed32`: a JSON number.
    Uint32,
    /// `int64`, `sint64`, `sfixed64`: written as a JSON string, read from a string or number.
    Int64,
    /// `uint64`, `fixed64`: as `Int64`, never negative.
    Uint64,
    /// `float`: a JSON number, or `"NaN"`, `"Infinity"`, `"-Infinity"`.
    Float,
    /// `double`: as `Float`.
    Double,
    /// `bytes`: standard base64 in a JSON string.
    Bytes,
}

impl Scalar {
    /// Whether the value is a number (and so takes `@minimum`/`@maximum`).
    pub fn is_number(self) -> bool {
        self != Scalar::Bytes
    }
}

impl Ty {
    /// Whether JSON `null` is a value of this type.
    pub fn admits_null(&self) -> bool {
        matches!(self, Ty::Any | Ty::Nullable(_))
    }

    /// The type name of `Ty::Named`.
    pub fn named(&self) -> Option<&str> {
        match self {
            Ty::Named(n) => Some(n),
            _ => None,
        }
    }
}

/// Constraints beyond the type: the rules of [`crate::rules`] a spec sets on a value.
pub use crate::rules::Constraints;

/// `Transport::kind` (and `framing`) of a types-only protocol, one without `transport`.
pub const NO_TRANSPORT: &str = "none";

/// The formats `@format` accepts; anything else is a spec error.
pub const FORMATS: &[&str] = &["uri", "date-time", "uuid"];

impl Protocol {
    /// The channel leaving `role`, if any.
    pub fn channel_from(&self, role: &str) -> Option<&Channel> {
        self.channels.iter().find(|c| c.from == role)
    }

    /// Whether the protocol declares only types (no `transport` in `protocol.yaml`): its
    /// module has types, validators and a schema, and no machine, skeleton or registry entry.
    pub fn types_only(&self) -> bool {
        self.transport.kind == TransportKind::NONE
    }

    /// The oneof a stream wrapper message carries: the message's only field, of a oneof type.
    pub fn wrapper_oneof(&self, name: &str) -> Option<(&Field, &[Field])> {
        let TypeKind::Struct(fields) = &self.types.get(name)?.kind else {
            return None;
        };
        let [field] = fields.as_slice() else {
            return None;
        };
        match &self.types.get(field.ty.named()?)?.kind {
            TypeKind::Oneof { cases, .. } => Some((field, cases)),
            _ => None,
        }
    }

    /// `(kind, member type)` of a channel union: the variants of a tagged union, or the cases
    /// of a stream wrapper's oneof (a case of a non-message type is named by its type's
    /// description, e.g. `string`).
    pub fn channel_members(&self, name: &str) -> Option<Vec<(String, String)>> {
        if let Some((_, variants)) = self.union_variants(name) {
            return Some(
                variants
                    .iter()
                    .map(|v| (v.value.clone(), v.type_name.clone()))
                    .collect(),
            );
        }
        let (_, cases) = self.wrapper_oneof(name)?;
        Some(
            cases
                .iter()
                .map(|c| {
                    let ty =
                        c.ty.named()
                            .map_or_else(|| format!("{:?}", c.ty), str::to_owned);
                    (c.name.clone(), ty)
                })
                .collect(),
        )
    }

    /// Members of a union, if `name` is one.
    pub fn union_variants(&self, name: &str) -> Option<(&str, &[Variant])> {
        match &self.types.get(name)?.kind {
            TypeKind::Union { tag, variants } => Some((tag, variants)),
            _ => None,
        }
    }

    /// Total number of constraint rules over every type (for the gen summary).
    pub fn rule_count(&self) -> usize {
        self.types
            .values()
            .map(|t| match &t.kind {
                TypeKind::Struct(fields) | TypeKind::Oneof { cases: fields, .. } => {
                    fields
                        .iter()
                        .map(|f| f.constraints.rule_count())
                        .sum::<usize>()
                        + t.rules.rule_count()
                }
                TypeKind::Alias { constraints, .. } => constraints.rule_count(),
                _ => 0,
            })
            .sum()
    }
}
