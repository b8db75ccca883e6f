//! The machine analysis: every `role.kind` of a protocol, how the checker recognises it, and
//! every field path its machines read, resolved to a typed read. Plain data (Rust names and
//! paths as the naming authority hands them out), computed once per spec from the IR by the
//! loader, which keeps it for the lint and the emitter; `emit::machine` turns it into code.

use std::collections::BTreeMap;

use crate::ir::{
    Action, Body, Call, Field, KindRef, Machine, Protocol, Scalar, Subject, Ty, TypeKind,
};
use crate::naming::{
    Name, Names, RoleSet, RustPath, pascal_case, prost_field, prost_path, prost_variant, role_set,
    type_name, variant_name, variant_names,
};

/// How the protocol's messages are encoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SourceKind {
    Json,
    JsonRpc,
    Proto,
}

/// One variant of the checker's `Message` enum: the message type one sender writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Source {
    /// The variant name (`Client`, `Http`).
    pub variant: Name,
    /// The Rust type it holds, a path in the protocol module.
    pub ty: RustPath,
    /// The role that sends it (`None` for HTTP, whose sender is in the exchange).
    pub role: Option<String>,
}

/// How the checker recognises a message of one kind, binding its payload as `m` (and the
/// request id as `m_id` for a JSON-RPC request).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Pattern {
    /// `Message::<source>(<union>::<case>(m))`: a member of a tagged union.
    Union {
        source: Name,
        union: RustPath,
        case: Name,
    },
    /// A JSON-RPC request or notification of `set::<method>`, with or without params.
    Call {
        source: Name,
        request: bool,
        set: Name,
        method: Name,
        params: bool,
    },
    /// A JSON-RPC response.
    Response { source: Name },
    /// `Message::<source>(<union> { <member>: Some(<oneof>::<case>(m)) })`: a oneof case of
    /// a protobuf stream wrapper.
    Oneof {
        source: Name,
        union: RustPath,
        member: Name,
        oneof: RustPath,
        case: Name,
    },
    /// `Message::Http(HttpExchange::<route>(m))`.
    Http { route: Name },
}

/// One `role.kind`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KindInfo {
    pub role: String,
    pub name: String,
    /// The variant of the generated `Kind` enum.
    pub variant: Name,
    pub pattern: Pattern,
    /// For `role.response to <request>`: the request kind it answers.
    pub answers: Option<Answered>,
    root: Root,
}

/// The request a response kind is narrowed to (`server.response to client.initialize`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answered {
    /// `role.kind` of the request.
    pub label: String,
    /// The request's variant of the generated `Kind` enum (and of `Answer`).
    pub variant: Name,
    /// The Rust type of its result (a path in the protocol module); `None` for a `null`
    /// result.
    pub result: Option<RustPath>,
}

impl KindInfo {
    /// `role.kind`, as the checker names the kind of a message.
    pub fn label(&self) -> String {
        format!("{}.{}", self.role, self.name)
    }

    /// The label, with ` to <request>` for a response narrowed to a request.
    pub fn full_label(&self) -> String {
        match &self.answers {
            Some(a) => format!("{}.{} to {}", self.role, self.name, a.label),
            None => self.label(),
        }
    }

    /// What tells this kind's reads apart from every other kind's: its label, and its
    /// variant (a method sent both as a request and as a notification is two kinds under
    /// one label).
    pub fn read_key(&self) -> String {
        format!("{} {}", self.full_label(), self.variant)
    }

    /// For a JSON-RPC call kind, whether it is the request (`Some(true)`) or the
    /// notification (`Some(false)`); `None` for any other kind.
    pub fn is_request(&self) -> Option<bool> {
        match self.root {
            Root::RpcCall { request, .. } => Some(request),
            _ => None,
        }
    }

    pub fn matches(&self, r: &KindRef) -> bool {
        self.role == r.role
            && r.kind.as_ref().is_none_or(|k| *k == self.name)
            && self.answers.as_ref().map(|a| &a.label)
                == r.answers.as_ref().map(|a| a.to_string()).as_ref()
    }
}

/// Where a kind's field paths start.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Root {
    /// A member struct of a tagged channel union; its discriminator is `tag`.
    Union {
        ty: String,
        tag: String,
    },
    /// A JSON-RPC request or notification, with its params type. `twin`: the sender also
    /// sends the method the other way, so one `role.method` names both.
    RpcCall {
        params: Option<String>,
        request: bool,
        twin: bool,
    },
    /// A JSON-RPC response; `result` is the answered request's result type, when the kind
    /// is narrowed to one.
    RpcResponse {
        result: Option<String>,
    },
    Http {
        route: usize,
    },
    /// A protobuf oneof case holding the message type `message`.
    Proto {
        case: String,
        message: String,
    },
}

/// What a value missing at some step reads as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Missing {
    /// JSON `null` (a nullable value that is null, a JSON-RPC response without an id).
    Null,
    /// The key is not there.
    Absent,
}

/// A typed read of one field path, step by step from the message `m`. Each step either
/// moves to a place inside the value or matches on it, binding the inner value.
#[derive(Debug, Clone, PartialEq)]
pub enum Read {
    /// `value.<member>`, then the rest.
    Member(Name, Box<Read>),
    /// `value.0` of a newtype, then the rest.
    Inner(Box<Read>),
    /// `match value { Some(v) => then, None => missing }`.
    Option {
        then: Box<Read>,
        missing: Missing,
    },
    /// `match value { <path>(v) => read, ... }`, each pattern inside `Some(..)` when `in_some`
    /// (a oneof); unless `exhaustive`, any other value reads as absent. An arm whose read is
    /// a constant binds nothing.
    Cases {
        arms: Vec<(RustPath, Read)>,
        in_some: bool,
        exhaustive: bool,
    },
    /// The id of the JSON-RPC request being matched (`m_id`).
    RequestId,
    /// The rest is read from the response's result, decoded as the result type of the
    /// request it answers (the checker's `Answer`).
    Answer(Box<Read>),
    Leaf(Leaf),
}

/// The last step: how the value becomes a `machine::Field`.
#[derive(Debug, Clone, PartialEq)]
pub enum Leaf {
    /// A `String` (or a string enum, through its `as_str`).
    Str,
    Bool,
    /// An `i64`.
    Int,
    /// An integer that widens to `i64` (`i32`, `u32`, `u16`).
    IntFrom,
    Num,
    /// A list of strings.
    Strs,
    /// A `serde_json::Value`: null or present.
    AnyValue,
    /// A tagged union: its discriminator value, through `kind()`.
    UnionKind,
    /// Anything else: present.
    Present,
    /// A fixed string (a discriminator or method name).
    ConstStr(String),
    ConstBool(bool),
    /// A prost enum field (`i32`): the value's name, or its number when unknown. The path
    /// names the enum.
    ProtoEnum(RustPath),
    /// A JSON-RPC id (a response's).
    RpcId,
    /// Never there: the id of a notification that shares its `role.method` with a request.
    Absent,
    /// A union of primitive types (`string | integer`, a request id): the member that is set,
    /// so `2` and `"2"` read apart. `ty` names the union, `members` its variants in order
    /// (`String`, `Integer`, `Number`, `Bool`).
    Scalars {
        ty: RustPath,
        members: Vec<Name>,
    },
}

/// Every kind of one protocol, the `Message` enum the checker observes, and every field read
/// its machines make.
#[derive(Debug, Clone)]
pub struct Model {
    pub kinds: Vec<KindInfo>,
    pub sources: Vec<Source>,
    /// How each source is decoded from a trace line.
    pub source_kind: SourceKind,
    /// Response kinds narrowed to the request they answer, as the machines name them.
    pub answered: Vec<KindInfo>,
    /// `(kind label, path)` -> the read, or why the kind has no such path.
    reads: BTreeMap<(String, String), Result<Read, String>>,
}

impl Model {
    /// The analysis of `p` and its machines.
    pub fn new(p: &Protocol) -> Result<Self, String> {
        // Methods first: protobuf types may travel in JSON-RPC messages too.
        let source_kind = if !p.methods.is_empty() {
            SourceKind::JsonRpc
        } else if Names::of(p) == Names::Prost {
            SourceKind::Proto
        } else {
            SourceKind::Json
        };
        let mut model = Self {
            kinds: Vec::new(),
            sources: Vec::new(),
            source_kind,
            answered: Vec::new(),
            reads: BTreeMap::new(),
        };
        match source_kind {
            SourceKind::Proto => model.proto_kinds(p)?,
            SourceKind::JsonRpc => model.rpc_kinds(p),
            SourceKind::Json => model.union_kinds(p)?,
        }
        model.http_kinds(p);
        model.answered_kinds(p);
        let resolver = Resolver { p };
        for (kind, path) in machine_paths(&p.machines, &model) {
            let read = resolver.field(&kind.root, &kind.name, &path);
            model.reads.insert((kind.read_key(), path), read);
        }
        Ok(model)
    }

    /// The kinds a `role.kind` / `role.*` reference names.
    pub fn kinds_of(&self, r: &KindRef) -> Vec<&KindInfo> {
        let all = if r.answers.is_some() {
            &self.answered
        } else {
            &self.kinds
        };
        all.iter().filter(|k| k.matches(r)).collect()
    }

    /// The request kinds some machine narrows a response to (`Answer`'s variants).
    pub fn asked(&self) -> Vec<&KindInfo> {
        let mut out: Vec<&KindInfo> = Vec::new();
        for a in self.answered.iter().filter_map(|k| k.answers.as_ref()) {
            if let Some(k) =
                (self.kinds.iter()).find(|k| k.label() == a.label && k.variant == a.variant)
                && !out.contains(&k)
            {
                out.push(k);
            }
        }
        out
    }

    /// The read of `path` on messages of `kind`; `Err` says why there is none.
    pub fn field(&self, kind: &KindInfo, path: &str) -> Result<&Read, String> {
        match self.reads.get(&(kind.read_key(), path.to_owned())) {
            Some(Ok(read)) => Ok(read),
            Some(Err(e)) => Err(e.clone()),
            None => Err(format!(
                "`{path}` of `{}` is not used by any machine (an analysis bug)",
                kind.label()
            )),
        }
    }

    fn push_source(&mut self, variant: Name, ty: RustPath, role: Option<String>) {
        self.sources.push(Source { variant, ty, role });
    }

    fn push_kind(&mut self, role: &str, name: &str, pattern: Pattern, root: Root) {
        self.push_kind_named(role, name, name, pattern, root);
    }

    /// `push_kind` with the variant named after `variant` rather than the kind's name.
    fn push_kind_named(
        &mut self,
        role: &str,
        name: &str,
        variant: &str,
        pattern: Pattern,
        root: Root,
    ) {
        self.kinds.push(KindInfo {
            role: role.to_owned(),
            name: name.to_owned(),
            variant: Name::plain(format!("{}{}", pascal_case(role), pascal_case(variant))),
            pattern,
            answers: None,
            root,
        });
    }

    /// Every `role.response to role.request` the machines name, as a narrowed response
    /// kind: the responses of that role to requests of that kind from another role.
    fn answered_kinds(&mut self, p: &Protocol) {
        let refs = p.machines.iter().flat_map(|m| {
            let keys = m.key.iter().flatten().map(|r| &r.on);
            keys.chain(m.transitions.iter().map(|t| &t.on))
        });
        for r in refs {
            let Some(asked) = &r.answers else { continue };
            let base = KindRef {
                answers: None,
                ..r.clone()
            };
            for response in self.kinds.iter().filter(|k| k.matches(&base)) {
                if !matches!(response.root, Root::RpcResponse { .. }) {
                    continue;
                }
                for request in self.kinds.iter().filter(|k| k.matches(asked)) {
                    let Root::RpcCall { request: true, .. } = request.root else {
                        continue;
                    };
                    if request.role == response.role {
                        continue;
                    }
                    let result = p
                        .methods
                        .iter()
                        .find(|m| m.name == request.name && m.call == Call::Request)
                        .and_then(|m| m.result.clone());
                    let kind = KindInfo {
                        answers: Some(Answered {
                            label: request.label(),
                            variant: request.variant.clone(),
                            result: result.as_deref().map(|t| Names::Spec.type_path(t)),
                        }),
                        root: Root::RpcResponse { result },
                        ..response.clone()
                    };
                    if !self.answered.contains(&kind) {
                        self.answered.push(kind);
                    }
                }
            }
        }
    }

    fn union_kinds(&mut self, p: &Protocol) -> Result<(), String> {
        for c in &p.channels {
            let source = Name::plain(pascal_case(&c.from));
            let union = Names::Spec.type_path(&c.union);
            self.push_source(source.clone(), union.clone(), Some(c.from.clone()));
            let (tag, variants) = p
                .union_variants(&c.union)
                .ok_or_else(|| format!("`{}` is not a union", c.union))?;
            let cases = variant_names(variants.iter().map(|v| v.value.as_str()));
            for (v, case) in variants.iter().zip(cases) {
                let pattern = Pattern::Union {
                    source: source.clone(),
                    union: union.clone(),
                    case: Name::plain(case),
                };
                let root = Root::Union {
                    ty: v.type_name.clone(),
                    tag: tag.to_owned(),
                };
                self.push_kind(&c.from, &v.value, pattern, root);
            }
        }
        Ok(())
    }

    fn proto_kinds(&mut self, p: &Protocol) -> Result<(), String> {
        for c in &p.channels {
            let source = Name::plain(pascal_case(&c.from));
            let union = prost_path(&c.union);
            self.push_source(source.clone(), union.clone(), Some(c.from.clone()));
            let (field, cases) = p
                .wrapper_oneof(&c.union)
                .ok_or_else(|| format!("`{}` is not a message holding only a oneof", c.union))?;
            let oneof = prost_path(field.ty.named().unwrap_or_default());
            for f in cases {
                let message = match f.ty.named().and_then(|n| p.types.get(n)) {
                    Some(d) if matches!(d.kind, TypeKind::Struct(_)) => d.name.clone(),
                    _ => return Err(format!("oneof case `{}` is not a message", f.name)),
                };
                let pattern = Pattern::Oneof {
                    source: source.clone(),
                    union: union.clone(),
                    member: prost_field(&field.name),
                    oneof: oneof.clone(),
                    case: prost_variant(&f.name),
                };
                let root = Root::Proto {
                    case: f.name.clone(),
                    message,
                };
                self.push_kind(&c.from, &f.name, pattern, root);
            }
        }
        Ok(())
    }

    fn rpc_kinds(&mut self, p: &Protocol) {
        for role in &p.roles {
            let sends = p.methods.iter().any(|m| m.sent_by(role));
            let answers = p.methods.iter().any(|m| m.answered_by(role));
            if !sends && !answers {
                continue;
            }
            let source = Name::plain(pascal_case(role));
            let message = role_set(role, RoleSet::Message);
            self.push_source(source.clone(), message.into(), Some(role.clone()));
            for m in p.methods.iter().filter(|m| m.sent_by(role)) {
                let request = m.call == Call::Request;
                let set = match m.call {
                    Call::Request => role_set(role, RoleSet::Request),
                    Call::Notification => role_set(role, RoleSet::Notification),
                };
                let pattern = Pattern::Call {
                    source: source.clone(),
                    request,
                    set,
                    method: Name::plain(variant_name(&m.name)),
                    params: m.params.is_some(),
                };
                // A method the role sends both ways: one `role.method` stands for both kinds,
                // and the notification's variant says which it is.
                let twin = p
                    .methods
                    .iter()
                    .any(|r| r.name == m.name && r.call != m.call && r.sent_by(role));
                // Params a sender may omit have no members a key could read.
                let root = Root::RpcCall {
                    params: m.params.clone().filter(|_| !m.params_optional),
                    request,
                    twin,
                };
                let name = if twin && !request {
                    format!("{} notification", m.name)
                } else {
                    m.name.clone()
                };
                self.push_kind_named(role, &m.name, &name, pattern, root);
            }
            if answers {
                let pattern = Pattern::Response {
                    source: source.clone(),
                };
                self.push_kind(
                    role,
                    "response",
                    pattern,
                    Root::RpcResponse { result: None },
                );
            }
        }
    }

    fn http_kinds(&mut self, p: &Protocol) {
        if p.routes.is_empty() {
            return;
        }
        let exchange = type_name("HttpExchange").into();
        self.push_source(Name::plain("Http"), exchange, None);
        for (i, r) in p.routes.iter().enumerate() {
            let pattern = Pattern::Http {
                route: Name::plain(pascal_case(&r.name)),
            };
            self.push_kind(&r.from, &r.name, pattern, Root::Http { route: i });
        }
    }
}

/// Every `(kind, path)` the machines read: key fields, guard and check fields, action fields.
fn machine_paths(machines: &[Machine], model: &Model) -> Vec<(KindInfo, String)> {
    let mut out = Vec::new();
    let mut add = |on: &KindRef, path: &str| {
        for k in model.kinds_of(on) {
            out.push((k.clone(), path.to_owned()));
        }
    };
    for m in machines {
        for r in m.key.iter().flatten() {
            for f in r.fields.iter().chain(&r.link) {
                add(&r.on, f);
            }
            for c in &r.guard {
                if let Subject::Field(f) = &c.subject {
                    add(&r.on, f);
                }
            }
        }
        for t in &m.transitions {
            for c in t.guard.iter().chain(&t.check) {
                if let Subject::Field(f) = &c.subject {
                    add(&t.on, f);
                }
            }
            for a in &t.actions {
                match a {
                    Action::Set { field, .. }
                    | Action::Add { field, .. }
                    | Action::Remove { field, .. } => add(&t.on, field),
                    Action::AddValue { when, .. } => {
                        for c in when {
                            if let Subject::Field(f) = &c.subject {
                                add(&t.on, f);
                            }
                        }
                    }
                    Action::Clear { .. } => {}
                }
            }
        }
    }
    out
}

/// Resolves field paths against the IR.
struct Resolver<'p> {
    p: &'p Protocol,
}

fn leaf(l: Leaf) -> Read {
    Read::Leaf(l)
}

fn member(name: Name, then: Read) -> Read {
    Read::Member(name, Box::new(then))
}

fn option(then: Read, missing: Missing) -> Read {
    Read::Option {
        then: Box::new(then),
        missing,
    }
}

impl Resolver<'_> {
    fn kind_of(&self, name: &str) -> Option<&TypeKind> {
        self.p.types.get(name).map(|t| &t.kind)
    }

    fn field(&self, root: &Root, kind: &str, path: &str) -> Result<Read, String> {
        let segments: Vec<&str> = path.split('.').collect();
        match root {
            Root::Union { ty, tag } => {
                if segments == [tag.as_str()] {
                    return Ok(leaf(Leaf::ConstStr(kind.to_owned())));
                }
                self.ts(&Ty::Named(ty.clone()), &segments)
            }
            Root::RpcCall {
                params,
                request,
                twin,
            } => match segments.as_slice() {
                ["id"] if *request => Ok(Read::RequestId),
                // `role.method` names the request and the notification alike: the
                // notification has no id, so a machine keyed on it skips it.
                ["id"] if *twin => Ok(leaf(Leaf::Absent)),
                ["method"] => Ok(leaf(Leaf::ConstStr(kind.to_owned()))),
                ["params", rest @ ..] if !rest.is_empty() => match params {
                    Some(t) => self.ts(&Ty::Named(t.clone()), rest),
                    None => Err(format!("`{kind}` has no params")),
                },
                _ => Err(format!(
                    "`{path}` is not a field of a JSON-RPC call (id, method, params.*)"
                )),
            },
            Root::RpcResponse { result } => self.response(result.as_deref(), path, &segments),
            Root::Http { route } => self.http(*route, path, &segments),
            Root::Proto { case, message } => match segments.as_slice() {
                [first, rest @ ..] if first == case => self.proto(message, rest),
                _ => Err(format!("paths of `{case}` start with `{case}.`")),
            },
        }
    }

    /// A JSON-RPC response's `id`, whether it holds a `result` or an `error`, the error's
    /// `code` and `message`, and, narrowed to a request, `result.*` of its result type.
    fn response(
        &self,
        result: Option<&str>,
        path: &str,
        segments: &[&str],
    ) -> Result<Read, String> {
        let outcome = |case: &str, then: Read| {
            let outcome = ["agentwire_runtime", "jsonrpc", "Outcome", case];
            let arms = vec![(RustPath::of_plain(&outcome), then)];
            member(
                Name::plain("outcome"),
                Read::Cases {
                    arms,
                    in_some: false,
                    exhaustive: false,
                },
            )
        };
        match (segments, result) {
            (["id"], _) => Ok(member(
                Name::plain("id"),
                option(leaf(Leaf::RpcId), Missing::Null),
            )),
            (["result"], _) => Ok(outcome("Result", leaf(Leaf::Present))),
            (["error"], _) => Ok(outcome("Error", leaf(Leaf::Present))),
            (["error", "code"], _) => Ok(outcome(
                "Error",
                member(Name::plain("code"), leaf(Leaf::Int)),
            )),
            (["error", "message"], _) => Ok(outcome(
                "Error",
                member(Name::plain("message"), leaf(Leaf::Str)),
            )),
            (["result", rest @ ..], Some(t)) => Ok(Read::Answer(Box::new(
                self.ts(&Ty::Named(t.to_owned()), rest)?,
            ))),
            (["result", ..], None) => Err(format!(
                "`{path}`: the result is typed only for a response narrowed to its request \
                 (`role.response to role.request`)"
            )),
            _ => Err(format!(
                "`{path}` is not a field of a JSON-RPC response (id, result, result.*, error, \
                 error.code, error.message)"
            )),
        }
    }

    fn http(&self, route: usize, path: &str, segments: &[&str]) -> Result<Read, String> {
        let r = &self.p.routes[route];
        match segments {
            ["status"] => Ok(member(
                Name::plain("status"),
                option(leaf(Leaf::IntFrom), Missing::Absent),
            )),
            ["path", name] if r.param_names().iter().any(|p| p == name) => {
                let ty = match r.path_params.get(*name).map(String::as_str) {
                    None | Some("string") => Ty::String,
                    Some(t) => Ty::Named(t.to_owned()),
                };
                Ok(member(Names::Spec.field(name), self.ts(&ty, &[])?))
            }
            ["body"] if matches!(r.body, Body::Text(_)) => {
                Ok(member(Name::plain("body"), leaf(Leaf::Str)))
            }
            ["body", rest @ ..] => match &r.body {
                Body::Json(t) => Ok(member(
                    Name::plain("body"),
                    self.ts(&Ty::Named(t.clone()), rest)?,
                )),
                _ => Err(format!("route `{}` has no JSON body", r.name)),
            },
            _ => Err(format!(
                "`{path}` is not a field of an HTTP exchange (status, path.*, body.*)"
            )),
        }
    }

    /// The leaf read of a whole value of type `ty`.
    fn ts_leaf(&self, ty: &Ty) -> Result<Read, String> {
        Ok(match ty {
            Ty::String => leaf(Leaf::Str),
            Ty::Bool => leaf(Leaf::Bool),
            Ty::Integer => leaf(Leaf::Int),
            Ty::Number => leaf(Leaf::Num),
            Ty::BoolLiteral(b) => leaf(Leaf::ConstBool(*b)),
            Ty::Nullable(inner) => option(self.ts_leaf(inner)?, Missing::Null),
            Ty::Array(inner) if **inner == Ty::String => leaf(Leaf::Strs),
            Ty::Any => leaf(Leaf::AnyValue),
            Ty::Named(n) => match self.kind_of(n) {
                Some(TypeKind::Enum(_)) => leaf(Leaf::Str),
                Some(TypeKind::Union { .. }) => leaf(Leaf::UnionKind),
                Some(TypeKind::Untagged(members))
                    if members.iter().all(|t| t.named().is_none()) =>
                {
                    let members = members
                        .iter()
                        .map(|t| match t {
                            Ty::String => "String",
                            Ty::Integer => "Integer",
                            Ty::Number => "Number",
                            _ => "Bool",
                        })
                        .map(Name::plain)
                        .collect();
                    leaf(Leaf::Scalars {
                        ty: Names::Spec.type_path(n),
                        members,
                    })
                }
                Some(TypeKind::Alias {
                    target,
                    constraints,
                }) if !constraints.is_empty() => Read::Inner(Box::new(self.ts_leaf(target)?)),
                Some(TypeKind::Alias { target, .. }) => self.ts_leaf(target)?,
                _ => leaf(Leaf::Present),
            },
            _ => leaf(Leaf::Present),
        })
    }

    /// Reads `rest` from a value of type `ty` of a JSON protocol.
    fn ts(&self, ty: &Ty, rest: &[&str]) -> Result<Read, String> {
        let Some((seg, tail)) = rest.split_first() else {
            return self.ts_leaf(ty);
        };
        let Ty::Named(n) = ty else {
            return match ty {
                Ty::Nullable(inner) => Ok(option(self.ts(inner, rest)?, Missing::Absent)),
                _ => Err(format!("cannot read `{seg}` from a non-object value")),
            };
        };
        match self.kind_of(n) {
            Some(TypeKind::Struct(fields)) => {
                let field = fields.iter().find(|x| x.name == *seg).ok_or_else(|| {
                    let names = fields.iter().map(|x| x.name.as_str());
                    let hint = crate::suggest::did_you_mean(seg, names);
                    format!("`{n}` has no field `{seg}`{hint}")
                })?;
                let inner = self.ts(&field.ty, tail)?;
                let inner = if field.optional {
                    option(inner, Missing::Absent)
                } else {
                    inner
                };
                Ok(member(Names::Spec.field(&field.name), inner))
            }
            Some(TypeKind::Union { tag, variants }) => {
                if seg == tag && tail.is_empty() {
                    return Ok(leaf(Leaf::UnionKind));
                }
                let mut arms = Vec::new();
                let cases = variant_names(variants.iter().map(|v| v.value.as_str()));
                for (var, case) in variants.iter().zip(cases) {
                    let has = matches!(
                        self.kind_of(&var.type_name),
                        Some(TypeKind::Struct(fs)) if fs.iter().any(|x| x.name == *seg)
                    );
                    if has {
                        let path = Names::Spec.type_path(n).join(Name::plain(case));
                        arms.push((path, self.ts(&Ty::Named(var.type_name.clone()), rest)?));
                    }
                }
                if arms.is_empty() {
                    return Err(format!("no variant of `{n}` has a field `{seg}`"));
                }
                let exhaustive = arms.len() == variants.len();
                Ok(Read::Cases {
                    arms,
                    in_some: false,
                    exhaustive,
                })
            }
            Some(TypeKind::Alias {
                target,
                constraints,
            }) if !constraints.is_empty() => Ok(Read::Inner(Box::new(self.ts(target, rest)?))),
            Some(TypeKind::Alias { target, .. }) => self.ts(target, rest),
            _ => Err(format!("`{n}` has no field `{seg}`")),
        }
    }

    fn oneof_cases(&self, ty: &Ty) -> Option<&[Field]> {
        match self.kind_of(ty.named()?)? {
            TypeKind::Oneof { cases, .. } => Some(cases),
            _ => None,
        }
    }

    /// Reads `rest` from the prost struct of the message type `message`. A oneof by its own
    /// name yields the case that is set.
    fn proto(&self, message: &str, rest: &[&str]) -> Result<Read, String> {
        let Some((seg, tail)) = rest.split_first() else {
            return Ok(leaf(Leaf::Present));
        };
        let Some(TypeKind::Struct(fields)) = self.kind_of(message) else {
            return Err(format!("`{message}` is not a message"));
        };
        for field in fields {
            let Some(cases) = self.oneof_cases(&field.ty) else {
                continue;
            };
            let oneof = prost_path(field.ty.named().unwrap_or_default());
            let case_path = |c: &Field| oneof.join(prost_variant(&c.name));
            let read = if field.name == *seg {
                if !tail.is_empty() {
                    return Err(format!("`{seg}` is a oneof: read one of its cases instead"));
                }
                let arms = cases
                    .iter()
                    .map(|c| (case_path(c), leaf(Leaf::ConstStr(c.name.clone()))))
                    .collect();
                Read::Cases {
                    arms,
                    in_some: true,
                    exhaustive: true,
                }
            } else if let Some(c) = cases.iter().find(|c| c.name == *seg) {
                Read::Cases {
                    arms: vec![(case_path(c), self.proto_leaf(seg, &c.ty, tail)?)],
                    in_some: true,
                    exhaustive: false,
                }
            } else {
                continue;
            };
            return Ok(member(prost_field(&field.name), read));
        }
        let field = fields
            .iter()
            .find(|x| x.name == *seg)
            .ok_or_else(|| format!("`{message}` has no field `{seg}`"))?;
        let inner = self.proto_leaf(seg, &field.ty, tail)?;
        let inner = if field.optional && !field.defaulted {
            option(inner, Missing::Absent)
        } else {
            inner
        };
        Ok(member(prost_field(&field.name), inner))
    }

    /// Reads `tail` from the value of field `seg`, of type `ty`.
    fn proto_leaf(&self, seg: &str, ty: &Ty, tail: &[&str]) -> Result<Read, String> {
        if let Ty::Array(inner) = ty {
            return match (&**inner, tail.is_empty()) {
                (Ty::String, true) => Ok(leaf(Leaf::Strs)),
                _ => Err(format!(
                    "`{seg}` is a repeated field; only lists of strings can be read"
                )),
            };
        }
        let kind = ty.named().and_then(|n| self.kind_of(n));
        Ok(match (ty, kind) {
            (Ty::Named(n), Some(TypeKind::Struct(_))) => return self.proto(n, tail),
            _ if !tail.is_empty() => return Err(format!("`{seg}` is not a message")),
            (Ty::String, _) => leaf(Leaf::Str),
            (Ty::Bool, _) => leaf(Leaf::Bool),
            (Ty::Scalar(Scalar::Int32 | Scalar::Uint32), _) => leaf(Leaf::IntFrom),
            (Ty::Scalar(Scalar::Int64), _) => leaf(Leaf::Int),
            (Ty::Named(n), Some(TypeKind::Enum(_))) => leaf(Leaf::ProtoEnum(prost_path(n))),
            _ => leaf(Leaf::Present),
        })
    }
}
