//! The run-time interpreter of a spec folder: validation and sequence checking read from the
//! IR as the command runs, with nothing compiled, giving the findings the generated code gives
//! (the same JSON pointer, rule and wording, through the runtime's shared rule functions). It
//! is a `registry::Protocol`, so `agentwire trace check --spec DIR` runs the same checker as
//! `--protocol NAME`.

mod checker;
mod decode;
mod field;
mod http;
mod machine;
mod message;
mod node;
mod owed;
mod proto;
mod proto_types;
mod rpc;
mod types;
mod validate;

use std::path::Path;
use std::sync::Arc;

use agentwire_codegen::machine::model::Model;

use agentwire_codegen::ir::Protocol as Ir;
use agentwire_runtime::Invalid;
use agentwire_runtime::registry::{Checker, Decoded, Framing, Protocol, TransportKind};
use serde_json::Value;

pub use checker::Checker as Driver;
pub use owed::Owed;
pub use types::Types;

/// One spec folder, interpreted.
pub struct Interpreted {
    title: &'static str,
    roles: &'static [&'static str],
    transport: TransportKind,
    framing: Framing,
    spec: Arc<Spec>,
    /// A folder with `versions:`: where a stream names its version, and each version's
    /// interpreter (newest first); this one is then the newest's.
    versions: Option<Versions>,
}

/// The versions of an interpreted folder.
struct Versions {
    source: agentwire_runtime::version::Source,
    names: &'static [&'static str],
    each: Vec<&'static Interpreted>,
    /// The version whose entry says `skeleton: true` (its module name and index), if one does.
    skeleton: Option<(&'static str, usize)>,
}

/// What the checker shares across streams: the types, the kinds, the compiled machines.
pub struct Spec {
    name: &'static str,
    types: Types,
    /// `role.kind` of every kind, in the machine analysis's order.
    labels: Vec<&'static str>,
    /// The kind's own name (a discriminator value or a route name), by kind.
    kind_names: Vec<&'static str>,
    /// Where each kind's field paths start.
    roots: Vec<Root>,
    /// The kind of each HTTP route, by route.
    route_kinds: Vec<usize>,
    machines: Vec<machine::Compiled>,
    /// The request kinds some machine narrows responses to (`role.response to role.x`).
    asked: Vec<usize>,
}

/// Where a kind's field paths start.
enum Root {
    /// A member of a tagged channel union (`tag` reads as the kind itself).
    Union { ty: String, tag: String },
    /// An HTTP exchange of the route with this index.
    Http { route: usize },
    /// A JSON-RPC call of the method with this index (its params type, unless optional).
    RpcCall {
        method: usize,
        params: Option<String>,
        request: bool,
    },
    /// A JSON-RPC response.
    RpcResponse,
    /// A case of a protobuf stream wrapper's oneof, a message of type `message`; its paths
    /// start with the case's name.
    Proto { case: String, message: String },
}

/// A message the interpreter decoded, as its checker takes it: its kind (`None` for a
/// JSON-RPC message no kind describes, such as a response of a role that answers nothing)
/// and its JSON (for an HTTP exchange, `{"status", "path": {params}, "body"}`; for JSON-RPC,
/// the envelope).
pub struct Message {
    pub kind: Option<usize>,
    pub value: Value,
}

/// The runtime's form of a spec's `version:`, its names kept for the life of the program.
fn version_source(s: &agentwire_codegen::ir::VersionSource) -> agentwire_runtime::version::Source {
    use agentwire_codegen::ir::VersionSource as Ir;
    use agentwire_runtime::version::Source;
    match s {
        Ir::Handshake { method, member } => Source::Handshake {
            method: keep(method),
            member: keep(member),
        },
        Ir::Meta { path } => {
            let path: Vec<&'static str> = path.iter().map(|p| keep(p)).collect();
            Source::Meta {
                path: Box::leak(path.into_boxed_slice()),
            }
        }
        Ir::Header { name } => Source::Header { name: keep(name) },
        Ir::Any(sources) => {
            let each: Vec<Source> = sources.iter().map(version_source).collect();
            Source::Any(Box::leak(each.into_boxed_slice()))
        }
    }
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
        let pool = loaded.proto.map(|p| p.pool);
        let Some(versioning) = loaded.protocol.versioning.clone() else {
            return Interpreted::with_descriptors(loaded.protocol, pool);
        };
        // Each version is interpreted on its own and kept, as the registry's are `'static`;
        // the folder answers as the newest.
        let mut each = Vec::new();
        for v in loaded.versions {
            let one = Interpreted::with_descriptors(v.protocol, v.proto.map(|p| p.pool))?;
            let one: &'static Interpreted = Box::leak(Box::new(one));
            each.push(one);
        }
        let names: Vec<&'static str> = versioning.versions.iter().map(|v| keep(&v.name)).collect();
        let skeleton = (versioning.versions.iter().enumerate())
            .find(|(_, v)| v.skeleton)
            .map(|(i, v)| (keep(&v.module), i));
        let mut top = Interpreted::with_descriptors(loaded.protocol, pool)?;
        top.versions = Some(Versions {
            source: version_source(&versioning.source),
            names: Box::leak(names.into_boxed_slice()),
            each,
            skeleton,
        });
        Ok(top)
    }

    /// The version a role of this folder is played as (`agentwire mock`): the one whose entry
    /// says `skeleton: true`, as the generated skeleton's own items are, with its module name;
    /// else this folder itself (one version, or the newest).
    pub fn played(&'static self) -> (&'static Interpreted, Option<&'static str>) {
        let Some(v) = &self.versions else {
            return (self, None);
        };
        match v.skeleton.and_then(|(m, i)| Some((*v.each.get(i)?, m))) {
            Some((one, module)) => (one, Some(module)),
            None => (self, None),
        }
    }

    /// Interprets a loaded IR of a JSON spec.
    pub fn new(ir: Ir) -> Result<Interpreted, String> {
        Interpreted::with_descriptors(ir, None)
    }

    /// Interprets a loaded IR; a protobuf spec's messages are read from `pool`, its compiled
    /// files.
    pub fn with_descriptors(
        ir: Ir,
        pool: Option<prost_reflect::DescriptorPool>,
    ) -> Result<Interpreted, String> {
        let Some(transport) = agentwire_codegen::transport::registry_kind(&ir) else {
            return Err(format!(
                "protocol {} has transport `{}`: only protocols with a transport have messages to check",
                ir.module, ir.transport.kind
            ));
        };
        let proto =
            agentwire_codegen::naming::Names::of(&ir) == agentwire_codegen::naming::Names::Prost;
        let pool = match (proto, pool) {
            (true, None) => {
                return Err(format!(
                    "protocol {} is protobuf: load it from its spec folder, whose compiled files the interpreter reads",
                    ir.module
                ));
            }
            (true, pool) => pool,
            (false, _) => None,
        };
        let framing = match ir.transport.framing.as_str() {
            "content-length" => Framing::ContentLength,
            "newline" => Framing::Newline,
            "grpc" => Framing::Grpc,
            _ => Framing::JsonText,
        };
        let roles: Vec<&'static str> = ir.roles.iter().map(|r| keep(r)).collect();
        Ok(Interpreted {
            title: keep(&ir.title),
            roles: Box::leak(roles.into_boxed_slice()),
            transport,
            framing,
            spec: Arc::new(Spec::new(ir, pool)?),
            versions: None,
        })
    }

    pub fn types(&self) -> &Types {
        &self.spec.types
    }

    /// A checker of its own for a player of a role: it follows the session as the checker
    /// does, and says what the role owes (`Driver::owed`).
    pub fn driver(&self) -> Driver {
        checker::Checker::new(Arc::clone(&self.spec))
    }

    /// Decodes one channel message `from` sends, with its kind.
    fn decode_entry(&self, from: &str, entry: &Value) -> Option<Result<Message, Invalid>> {
        let spec = &self.spec;
        if !spec.types.protocol.routes.is_empty()
            && let Some(exchange) = entry.get("http")
        {
            return Some(
                spec.decode_http(from, exchange)
                    .map_err(|e| e.under("/http")),
            );
        }
        let rpc = !spec.types.protocol.methods.is_empty();
        let ty = match spec.types.channel_of(from) {
            Some(ty) => Some(ty),
            None if rpc && spec.types.rpc_sender(from) => None,
            None => return None,
        };
        let Some(message) = entry.get("message") else {
            return Some(Err(Invalid::one(agentwire_runtime::FieldError::new(
                "/message",
                agentwire_runtime::Rule::Required,
                "missing field `message`",
            ))));
        };
        let json = message.to_string();
        let decoded = match &ty {
            Some(ty) => spec.types.decode_text(ty, &json),
            None => spec.types.decode_rpc(from, &json),
        };
        let decoded = decoded.map_err(|e| e.under("/message"));
        Some(decoded.map(|value| Message {
            kind: match ty {
                Some(_) => Some(spec.kind_of(from, &value)),
                None => spec.rpc_kind_of(from, &value),
            },
            value,
        }))
    }
}

impl Spec {
    fn new(ir: Ir, pool: Option<prost_reflect::DescriptorPool>) -> Result<Spec, String> {
        let model = Model::new(&ir)?;
        let labels: Vec<&'static str> = model.kinds.iter().map(|k| keep(&k.full_label())).collect();
        let kind_names = model.kinds.iter().map(|k| keep(&k.name)).collect();
        let roots = model
            .kinds
            .iter()
            .map(|k| root_of(&ir, &k.role, &k.name, k.is_request()))
            .collect::<Result<Vec<_>, _>>()?;
        let route_kinds = (0..ir.routes.len())
            .map(|i| {
                roots
                    .iter()
                    .position(|r| matches!(r, Root::Http { route } if *route == i))
                    .unwrap_or(0)
            })
            .collect();
        let machines = ir
            .machines
            .iter()
            .map(|m| machine::Compiled::new(m, &model))
            .collect();
        let asked = model
            .asked()
            .iter()
            .filter_map(|k| model.kinds.iter().position(|x| x == *k))
            .collect();
        Ok(Spec {
            name: keep(&ir.module),
            types: Types::new(ir)?.with_descriptors(pool),
            labels,
            kind_names,
            roots,
            route_kinds,
            machines,
            asked,
        })
    }

    /// The kind of a decoded channel message: its discriminator (or the default member's), or
    /// for a protobuf stream wrapper the oneof case that is set.
    fn kind_of(&self, from: &str, value: &Value) -> usize {
        if self.types.is_proto() {
            return (0..self.labels.len())
                .find(|&i| {
                    matches!(&self.roots[i], Root::Proto { case, .. } if value.get(case).is_some())
                        && self.role_of(i) == from
                })
                .unwrap_or(0);
        }
        let name = self.types.channel_of(from).and_then(|ty| {
            let union = ty.named()?.to_owned();
            let (tag, variants) = self.types.protocol.union_variants(&union)?;
            match value.get(tag) {
                Some(Value::String(s)) => Some(s.clone()),
                _ => variants.iter().find(|v| v.default).map(|v| v.value.clone()),
            }
        });
        self.labels
            .iter()
            .enumerate()
            .position(|(i, _)| {
                matches!(self.roots[i], Root::Union { .. })
                    && name.as_deref() == Some(self.kind_names[i])
                    && self.labels[i]
                        .strip_suffix(self.kind_names[i])
                        .and_then(|r| r.strip_suffix('.'))
                        == Some(from)
            })
            .unwrap_or(0)
    }
}

impl Spec {
    /// The role that sends messages of kind `kind`.
    fn role_of(&self, kind: usize) -> &'static str {
        let label = self.labels[kind];
        label
            .strip_suffix(self.kind_names[kind])
            .and_then(|r| r.strip_suffix('.'))
            .unwrap_or(label)
    }

    /// The kind of a decoded JSON-RPC message `from` sent: its method's, or `from.response`.
    /// A method sent both as a request and as a notification is two kinds: the id says which.
    fn rpc_kind_of(&self, from: &str, value: &Value) -> Option<usize> {
        let name = value
            .get("method")
            .and_then(Value::as_str)
            .unwrap_or("response");
        let has_id = value.get("id").is_some();
        (0..self.labels.len()).find(|&i| {
            let call = match self.roots[i] {
                Root::RpcCall { request, .. } => request == has_id,
                Root::RpcResponse => true,
                _ => false,
            };
            call && self.kind_names[i] == name
                && self.labels[i]
                    .strip_suffix(name)
                    .and_then(|r| r.strip_suffix('.'))
                    == Some(from)
        })
    }
}

/// Where the paths of kind `role.name` start; `request` tells the request of a method from
/// its notification when the role sends it both ways.
fn root_of(ir: &Ir, role: &str, name: &str, request: Option<bool>) -> Result<Root, String> {
    if !ir.methods.is_empty() {
        let call = |m: &agentwire_codegen::ir::Method| {
            request.is_none_or(|r| r == (m.call == agentwire_codegen::ir::Call::Request))
        };
        if let Some((method, m)) = ir
            .methods
            .iter()
            .enumerate()
            .find(|(_, m)| m.name == name && m.sent_by(role) && call(m))
        {
            return Ok(Root::RpcCall {
                method,
                // Params a sender may omit have no members a key could read.
                params: m.params.clone().filter(|_| !m.params_optional),
                request: m.call == agentwire_codegen::ir::Call::Request,
            });
        }
        if name == "response" {
            return Ok(Root::RpcResponse);
        }
    }
    if let Some(c) = ir.channel_from(role)
        && let Some((_, cases)) = ir.wrapper_oneof(&c.union)
        && let Some(case) = cases.iter().find(|f| f.name == name)
    {
        return Ok(Root::Proto {
            case: case.name.clone(),
            message: case.ty.named().unwrap_or_default().to_owned(),
        });
    }
    if let Some(c) = ir.channel_from(role)
        && let Some((tag, variants)) = ir.union_variants(&c.union)
        && let Some(v) = variants.iter().find(|v| v.value == name)
    {
        return Ok(Root::Union {
            ty: v.type_name.clone(),
            tag: tag.to_owned(),
        });
    }
    ir.routes
        .iter()
        .position(|r| r.from == role && r.name == name)
        .map(|route| Root::Http { route })
        .ok_or_else(|| format!("kind {role}.{name} is neither a channel message nor a route"))
}

impl Protocol for Interpreted {
    fn versions(&self) -> &'static [&'static str] {
        self.versions.as_ref().map_or(&[], |v| v.names)
    }
    fn version_source(&self) -> Option<agentwire_runtime::version::Source> {
        self.versions.as_ref().map(|v| v.source)
    }
    fn version(&self, version: &str) -> Option<&'static dyn Protocol> {
        let v = self.versions.as_ref()?;
        let i = v.names.iter().position(|n| *n == version)?;
        v.each.get(i).map(|p| *p as &'static dyn Protocol)
    }
    fn name(&self) -> &'static str {
        self.spec.name
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
        let name = self.spec.name;
        self.decode_entry(from, entry)
            .map(|r| r.map(|m| Decoded::new(name, m)))
    }
    fn checker(&self) -> Option<Box<dyn Checker>> {
        if self.spec.machines.is_empty() {
            return None;
        }
        Some(Box::new(checker::Checker::new(Arc::clone(&self.spec))))
    }
    fn decode_message(&self, from: &str, json: &str) -> Option<Result<Value, Invalid>> {
        let types = &self.spec.types;
        agentwire_runtime::side::decode_by_role(self.roles, from, json, |role, json| {
            if types.protocol.methods.is_empty() {
                types.decode_from(role, json)
            } else {
                types.rpc_sender(role).then(|| types.decode_rpc(role, json))
            }
        })
    }
    fn decode_response(&self, method: &str, json: &str) -> Option<Result<Value, Invalid>> {
        self.spec.types.decode_rpc_response(method, json)
    }
    fn decode_type(&self, type_name: &str, json: &str) -> Option<Result<Value, Invalid>> {
        let def = self.spec.types.def(type_name)?;
        // A protobuf spec's generated `decode_type` knows its messages only.
        if self.spec.types.is_proto()
            && !matches!(def.kind, agentwire_codegen::ir::TypeKind::Struct(_))
        {
            return None;
        }
        let ty = agentwire_codegen::ir::Ty::Named(type_name.to_owned());
        Some(self.spec.types.decode_text(&ty, json))
    }
}
