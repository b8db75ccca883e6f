//! The format-neutral intermediate representation every loader produces and every emitter
//! reads: plain data, types keyed by name in a `BTreeMap` so output order never depends on
//! the order of discovery.

use std::collections::BTreeMap;

mod skeleton;
pub use skeleton::*;

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
    /// The `sessions:` section (http+websocket skeletons).
    pub sessions: Option<Sessions>,
    /// The `tracking:` section (a WebSocket client's kept state).
    pub tracking: Option<Tracking>,
    /// Optional capabilities a peer may announce (`features:` in `protocol.yaml`), in spec order.
    pub features: Vec<Feature>,
    /// The cases of a streamed response event (`events:` in `protocol.yaml`), in spec order.
    pub events: Vec<Event>,
}

/// One optional capability from `features:`; plain data that skeleton emitters give meaning.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Feature {
    pub name: String,
    pub description: String,
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
}

impl std::fmt::Display for KindRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.kind {
            Some(k) => write!(f, "{}.{k}", self.role),
            None => write!(f, "{}.*", self.role),
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
    pub origin: Origin,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    Set { memory: String, field: String },
    Add { memory: String, field: String },
    Remove { memory: String, field: String },
    Clear { memory: String },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemoryKind {
    Value,
    Set,
}

#[derive(Debug, Clone, PartialEq)]
pub struct KeyRule {
    pub on: KindRef,
    pub field: String,
    pub guard: Vec<Condition>,
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
    /// Every state, initial first, then in order of first mention.
    pub states: Vec<String>,
    pub memory: Vec<(String, MemoryKind)>,
    pub transitions: Vec<Transition>,
    pub origin: Origin,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Transport {
    pub kind: String,
    pub framing: String,
    /// The rpc a gRPC protocol runs on (the protocol file's `grpc:` section).
    pub grpc: Option<GrpcRpc>,
}

/// One gRPC method: `service` is the proto's full service name (`coven.CovenControl`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GrpcRpc {
    pub service: String,
    pub rpc: String,
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
    pub from: String,
    /// The params type; `None` when the method takes none.
    pub params: Option<String>,
    /// The result type of a request; `None` when the result is JSON `null`.
    pub result: Option<String>,
    pub summary: String,
    pub origin: Origin,
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
}

#[derive(Debug, Clone)]
pub struct Variant {
    /// The discriminator value.
    pub value: String,
    /// The member struct (its discriminator field is dropped from the struct).
    pub type_name: String,
    /// Where the member fixes the discriminator (`type: 'x'`).
    pub origin: Origin,
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
}

impl Ty {
    /// Whether JSON `null` is a value of this type.
    pub fn admits_null(&self) -> bool {
        matches!(self, Ty::Any | Ty::Nullable(_))
    }
}

/// Constraints beyond the type, from JSDoc or proto comment tags.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Constraints {
    pub min_length: Option<u64>,
    pub max_length: Option<u64>,
    pub pattern: Option<String>,
    pub minimum: Option<f64>,
    pub maximum: Option<f64>,
    pub min_items: Option<u64>,
    pub max_items: Option<u64>,
    pub format: Option<String>,
    /// The receiver trims the value before checking it.
    pub trim: bool,
}

impl Constraints {
    pub fn is_empty(&self) -> bool {
        *self == Constraints::default()
    }

    /// How many rules these constraints add (what the gen summary counts).
    pub fn rule_count(&self) -> usize {
        [
            self.min_length.is_some(),
            self.max_length.is_some(),
            self.pattern.is_some(),
            self.minimum.is_some(),
            self.maximum.is_some(),
            self.min_items.is_some(),
            self.max_items.is_some(),
            self.format.is_some(),
        ]
        .iter()
        .filter(|b| **b)
        .count()
    }
}

/// The formats `@format` accepts; anything else is a spec error.
pub const FORMATS: &[&str] = &["uri", "date-time", "uuid"];

impl Protocol {
    /// The channel leaving `role`, if any.
    pub fn channel_from(&self, role: &str) -> Option<&Channel> {
        self.channels.iter().find(|c| c.from == role)
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
                TypeKind::Struct(fields) => fields.iter().map(|f| f.constraints.rule_count()).sum(),
                TypeKind::Alias { constraints, .. } => constraints.rule_count(),
                _ => 0,
            })
            .sum()
    }
}
