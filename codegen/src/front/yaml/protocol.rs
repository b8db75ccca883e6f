//! `protocol.yaml` loader: reads the transport, roles, channels, catalogue, JSON-RPC methods
//! HTTP routes, features and events, keeping every value's location for diagnostics.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_saphyr::{Location, Spanned};

use crate::diag::{SourceFile, SpecError, SpecErrors, span_of};
use crate::front::{grpc, jsonrpc};
use crate::ir::{
    Body, Call, Channel, Event, Feature, GrpcRpc, HttpResponse, MessageKind, Method, Origin, Route,
    Transport,
};
use crate::yaml_node::Node;

/// What `protocol.yaml` declares, before it is checked against the types file.
#[derive(Debug, Clone)]
pub struct ProtocolFile {
    pub module: Spanned<String>,
    pub title: String,
    pub summary: String,
    pub transport: Transport,
    pub roles: Vec<String>,
    /// Other names documents use for a role (`role_aliases`), by role.
    pub role_aliases: std::collections::BTreeMap<String, Vec<String>>,
    pub types_file: Spanned<String>,
    /// Set when `types:` names a registry package's file instead of a file of the folder;
    /// `types_file` is then the path inside the package (inside its `root` folder).
    pub types_pin: Option<crate::front::sources::Pin>,
    /// `proto.include`: the import folders searched after the spec folder, in order.
    pub proto_includes: Vec<(crate::front::proto_include::Include, Location)>,
    pub channels: Vec<(Channel, Location)>,
    pub messages: Vec<(MessageKind, Location, Location)>,
    pub methods: Vec<(Method, MethodLocations)>,
    pub routes: Vec<Route>,
    /// Where `transport.kind` is written (for "this transport needs ..." diagnostics).
    pub transport_at: Location,
    pub sessions: Option<crate::front::skeleton::raw::RawSessions>,
    pub tracking: Option<crate::front::skeleton::raw::RawTracking>,
    pub features: Vec<Feature>,
    pub events: Vec<Event>,
    /// `version:`: where a stream names its version (set when `versions:` are declared).
    pub version_source: Option<crate::ir::VersionSource>,
    /// `version.unsupported_code`: the error code answering a request in an undeclared version.
    pub version_unsupported_code: Option<i64>,
    /// `versions:`, newest first; empty for a protocol of one version.
    pub versions: Vec<crate::front::versions::VersionDecl>,
    /// The version this file was read as (`load_as`), `None` for the shared sections alone.
    pub version: Option<crate::ir::VersionInfo>,
    /// The machine file of the protocol, or of the version it was read as.
    pub machine_file: String,
}

/// Where a method's type names are written, for "unknown type" diagnostics.
#[derive(Debug, Clone)]
pub struct MethodLocations {
    pub name: Location,
    pub params: Option<Location>,
    pub result: Option<Location>,
    pub answer: Option<Location>,
}

/// Every struct here denies unknown keys, so a misspelt key is an error at its line.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Raw {
    protocol: Spanned<String>,
    title: String,
    #[serde(default)]
    summary: String,
    /// Absent: a types-only protocol.
    #[serde(default)]
    transport: Option<RawTransport>,
    #[serde(default)]
    roles: Vec<Spanned<String>>,
    #[serde(default)]
    role_aliases: std::collections::BTreeMap<String, Vec<String>>,
    types: Spanned<RawTypes>,
    #[serde(default)]
    proto: Option<RawProto>,
    #[serde(default)]
    channels: Vec<RawChannel>,
    #[serde(default)]
    messages: Vec<RawMessage>,
    #[serde(default)]
    jsonrpc: Option<RawJsonRpc>,
    #[serde(default)]
    http: Option<RawHttp>,
    #[serde(default)]
    grpc: Option<RawGrpc>,
    #[serde(default)]
    sessions: Option<crate::front::skeleton::raw::RawSessions>,
    #[serde(default)]
    tracking: Option<crate::front::skeleton::raw::RawTracking>,
    #[serde(default)]
    features: Vec<RawFeature>,
    #[serde(default)]
    events: Vec<RawEvent>,
    #[serde(default)]
    version: Option<Spanned<crate::front::versions::RawSource>>,
    #[serde(default)]
    versions: Vec<crate::front::versions::RawVersion<RawMethod, RawTypes>>,
}

/// `types:` is a file of the spec folder or a pinned file of a registry package.
#[derive(Deserialize)]
#[serde(untagged)]
enum RawTypes {
    File(String),
    Pinned(crate::front::sources::RawPin),
}

/// `proto:`: how a `.proto` types file's imports resolve.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawProto {
    #[serde(default)]
    include: Vec<Spanned<RawTypes>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFeature {
    name: Spanned<String>,
    #[serde(default)]
    description: String,
    #[serde(default)]
    kinds: Vec<Spanned<String>>,
    #[serde(default)]
    events: Vec<Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawEvent {
    name: Spanned<String>,
    #[serde(default)]
    terminal: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawGrpc {
    service: Spanned<String>,
    rpc: String,
    #[serde(default)]
    handshake: Option<grpc::RawHandshake>,
    #[serde(default)]
    exchange: Option<grpc::RawExchange>,
    #[serde(default)]
    shutdown: Option<grpc::RawShutdown>,
    #[serde(default)]
    heartbeat: Option<grpc::RawHeartbeat>,
    #[serde(default)]
    acknowledged: Vec<grpc::RawAck>,
}

/// `transport:`: its own fields, and every other key kept as written for the carrier
/// registered under it, which reads and checks it (`crate::transport::declare`).
struct RawTransport {
    kind: Spanned<String>,
    /// Optional when the kind has a single framing (`grpc`, `websocket`): that one.
    framing: Option<Spanned<String>>,
    /// The port the accepting role listens on by default.
    port: Option<Spanned<u32>>,
    /// `content-length` framing: the Content-Type a frame without one has.
    content_type: Option<Spanned<String>>,
    /// `transport.<key>` of each carrier, by key as written.
    carriers: Vec<(Spanned<String>, Node)>,
}

/// The fields of `transport:` itself; any other key names a carrier.
const TRANSPORT_FIELDS: &[&str] = &["kind", "framing", "port", "content_type"];

impl<'de> Deserialize<'de> for RawTransport {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(TransportVisitor)
    }
}

struct TransportVisitor;

impl<'de> serde::de::Visitor<'de> for TransportVisitor {
    type Value = RawTransport;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "a map of {} and carriers", TRANSPORT_FIELDS.join(", "))
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<RawTransport, A::Error> {
        let (mut kind, mut framing, mut port, mut content_type) = (None, None, None, None);
        let mut carriers = Vec::new();
        while let Some(key) = map.next_key::<Spanned<String>>()? {
            match key.value.as_str() {
                "kind" => kind = Some(map.next_value()?),
                "framing" => framing = Some(map.next_value()?),
                "port" => port = Some(map.next_value()?),
                "content_type" => content_type = Some(map.next_value()?),
                _ => carriers.push((key, map.next_value::<Node>()?)),
            }
        }
        Ok(RawTransport {
            kind: kind.ok_or_else(|| serde::de::Error::missing_field("kind"))?,
            framing,
            port,
            content_type,
            carriers,
        })
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawChannel {
    from: Spanned<String>,
    to: Spanned<String>,
    union: Spanned<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawMessage {
    kind: Spanned<String>,
    from: Spanned<String>,
    #[serde(rename = "type")]
    type_name: Spanned<String>,
    #[serde(default)]
    summary: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawJsonRpc {
    methods: Vec<RawMethod>,
    #[serde(default)]
    cancel: Option<jsonrpc::RawCancel>,
    #[serde(default)]
    progress: Option<jsonrpc::RawProgress>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawMethod {
    method: Spanned<String>,
    call: Spanned<String>,
    from: Spanned<jsonrpc::RawRoles>,
    #[serde(default)]
    params: Option<Spanned<String>>,
    #[serde(default)]
    params_optional: Option<Spanned<bool>>,
    #[serde(default)]
    result: Option<Spanned<String>>,
    /// `empty` or `method_not_found`: the generated handler's default answer.
    #[serde(default)]
    answer: Option<Spanned<String>>,
    #[serde(default)]
    summary: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawHttp {
    routes: Vec<RawRoute>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRoute {
    name: Spanned<String>,
    method: String,
    path: String,
    from: Spanned<String>,
    to: Spanned<String>,
    #[serde(default)]
    path_params: BTreeMap<String, String>,
    #[serde(default)]
    body: Option<RawBody>,
    #[serde(default)]
    responses: Vec<RawResponse>,
    #[serde(default)]
    timeout_ms: Option<u64>,
    #[serde(default)]
    retries: Option<u32>,
    #[serde(default)]
    summary: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawBody {
    #[serde(default)]
    json: Option<String>,
    #[serde(default)]
    text: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawResponse {
    status: u16,
    #[serde(default)]
    json: Option<String>,
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    when: String,
}

/// `transport.kind` names a registered kind and `transport.framing` one of that kind's
/// framings; a misspelt value gets the closest valid one.
fn check_kind(transport: &RawTransport, framing: &Spanned<String>, cx: &mut Checker<'_>) {
    let kinds = crate::transport::names();
    let framings = crate::transport::framings();
    for (value, allowed) in [(&transport.kind, &kinds), (framing, &framings)] {
        // An empty framing was left out and is reported by `framing_of`.
        if !value.value.is_empty() && !allowed.contains(&value.value.as_str()) {
            cx.err(
                &value.referenced,
                format!(
                    "`{}` is not one of {}{}",
                    value.value,
                    allowed.join(", "),
                    crate::suggest::did_you_mean(&value.value, allowed.iter().copied())
                ),
            );
        }
    }
    let plugin = crate::transport::lookup(&transport.kind.value).and_then(crate::transport::plugin);
    if let Some(k) = plugin
        && framings.contains(&framing.value.as_str())
        && !k.framings().contains(&framing.value.as_str())
    {
        cx.err(
            &framing.referenced,
            format!(
                "a {} protocol is framed by one of {}, not `{}`",
                k.name(),
                k.framings().join(", "),
                framing.value
            ),
        );
    }
}

/// `transport.framing`, or the framing of a kind that has only one when it is left out; a
/// kind with several needs it said (an error at `kind`, listing them).
fn framing_of(transport: &RawTransport, cx: &mut Checker<'_>) -> Spanned<String> {
    if let Some(f) = &transport.framing {
        return f.clone();
    }
    let at = transport.kind.referenced;
    let plugin = crate::transport::lookup(&transport.kind.value).and_then(crate::transport::plugin);
    match plugin.map(|k| k.framings()) {
        Some([only]) => Spanned::new((*only).to_owned(), at, at),
        Some(several) => {
            let msg = format!(
                "a {} protocol needs `framing:`, one of {}",
                transport.kind.value,
                several.join(", ")
            );
            cx.err(&at, msg);
            Spanned::new(String::new(), at, at)
        }
        // An unknown kind is reported by `check_kind`.
        None => Spanned::new(String::new(), at, at),
    }
}

/// The sections that belong to some transport kinds: each present one must be read by this
/// protocol's kind, and each its kind needs must be present.
fn check_sections(
    raw: &Raw,
    plugin: &dyn crate::transport::TransportPlugin,
    transport_at: &Location,
    cx: &mut Checker<'_>,
) {
    use crate::transport::Section;
    let present: Vec<(Section, &Location)> = [
        (
            Section::Sessions,
            raw.sessions.as_ref().map(|s| s.server_at()),
        ),
        (
            Section::Tracking,
            raw.tracking.as_ref().map(|t| t.name_at()),
        ),
        (
            Section::Grpc,
            raw.grpc.as_ref().map(|g| &g.service.referenced),
        ),
    ]
    .into_iter()
    .filter_map(|(s, at)| Some((s, at?)))
    .collect();
    for (at, msg, help) in crate::transport::check_sections(plugin, &present, transport_at) {
        let span = span_of(cx.file, at);
        let mut e = SpecError::at(cx.file, span, msg);
        if let Some(help) = help {
            e = e.with_help(help);
        }
        cx.errors.push(e);
    }
}

/// Reads and checks `protocol.yaml` on its own (cross-checks against types come later).
pub fn load(file: &SourceFile) -> Result<ProtocolFile, SpecErrors> {
    load_as(file, None, false)
}

/// Reads `protocol.yaml` as one of its declared `versions:` has it (the shared sections with
/// that entry applied), or as the shared sections alone when `version` is `None`; `unstable`:
/// with the entry's `unstable:` applied on top (its unstable form).
pub fn load_as(
    file: &SourceFile,
    version: Option<&str>,
    unstable: bool,
) -> Result<ProtocolFile, SpecErrors> {
    let mut raw = parse(file)?;
    let mut cx = Checker {
        file,
        roles: raw.roles.iter().map(|r| r.value.clone()).collect(),
        errors: SpecErrors::default(),
    };
    let types_only = raw.transport.is_none();
    if types_only {
        types_only_checks(&raw, &mut cx);
    }
    let ((version_source, version_unsupported_code), versions) = {
        let at = raw
            .version
            .as_ref()
            .map_or(raw.protocol.referenced, |v| v.referenced);
        let mut report = |loc: &Location, msg: String| cx.err(loc, msg);
        let source = raw.version.as_ref().map(|v| &v.value);
        crate::front::versions::lower(source, &raw.versions, &at, &mut report)
    };
    let selected =
        version.and_then(|name| apply_version(&mut raw, name, &versions, unstable, &mut cx));
    let machine_file = selected.as_ref().map_or_else(
        || crate::front::versions::MACHINE_FILE.to_owned(),
        |d| d.machine.clone(),
    );
    let (transport, framing) = transport_section(&mut raw, types_only, &mut cx);
    check_role_aliases(&raw, &mut cx);
    let channels = raw.channels.iter().map(|c| cx.channel(c)).collect();
    let messages = cx.messages(&raw.messages);
    let methods = cx.methods(raw.jsonrpc.iter().flat_map(|j| &j.methods));
    let rpc = rpc_conventions(&raw, &methods, &mut cx);
    let routes = raw
        .http
        .iter()
        .flat_map(|h| &h.routes)
        .map(|r| cx.route(r))
        .collect();
    let features = cx.features(&raw.features);
    let events = cx.events(&raw.events);
    let skeleton = grpc_layer(&raw, &messages, &events, &mut cx);
    check_transport_constants(&transport, &framing, &mut cx);
    let carriers = declare_carriers(
        &transport,
        &methods,
        (
            version_source.as_ref(),
            version_unsupported_code,
            &versions,
            selected.as_ref().map(|d| d.info.name.as_str()),
        ),
        &mut cx,
    );
    let (types_file, types_pin) = types_of(raw.types, &mut cx);
    let proto_includes = raw
        .proto
        .map(|p| p.include)
        .unwrap_or_default()
        .into_iter()
        .filter_map(|i| include_of(i, &mut cx))
        .collect();
    let Checker { roles, errors, .. } = cx;
    errors.finish(ProtocolFile {
        transport_at: transport.kind.referenced,
        sessions: raw.sessions,
        tracking: raw.tracking,
        module: raw.protocol,
        title: raw.title,
        summary: raw.summary,
        transport: Transport {
            kind: crate::transport::lookup(&transport.kind.value)
                .unwrap_or(crate::ir::TransportKind::NONE),
            framing: framing.value,
            grpc: raw.grpc.map(|g| GrpcRpc {
                service: g.service.value,
                rpc: g.rpc,
                skeleton: skeleton.flatten(),
            }),
            rpc,
            port: transport
                .port
                .as_ref()
                .and_then(|p| u16::try_from(p.value).ok()),
            content_type: transport.content_type.as_ref().map(|c| c.value.clone()),
            carriers,
        },
        roles,
        role_aliases: raw.role_aliases,
        types_file,
        types_pin,
        proto_includes,
        channels,
        messages,
        methods,
        routes,
        features,
        events,
        version_source,
        version_unsupported_code,
        versions,
        version: selected.map(|d| d.info),
        machine_file,
    })
}

/// `protocol.yaml` parsed; a file that is no YAML of its shape is one error where it breaks.
fn parse(file: &SourceFile) -> Result<Raw, SpecErrors> {
    Ok(serde_saphyr::from_str(&file.text).map_err(|e| {
        let span = e.location().map_or((0, 0), |l| span_of(file, &l));
        let what = crate::suggest::yaml_message(&e);
        SpecError::at(file, span, format!("malformed protocol.yaml: {what}")).with_help(
            crate::suggest::see("the protocol.yaml format", "protocolyaml"),
        )
    })?)
}

/// `transport:` taken out of `raw` (a types-only protocol's stands in with no kind) and its
/// framing; a declared kind is checked, with the sections it reads.
fn transport_section(
    raw: &mut Raw,
    types_only: bool,
    cx: &mut Checker<'_>,
) -> (RawTransport, Spanned<String>) {
    let transport = raw.transport.take().unwrap_or_else(|| {
        let at = raw.protocol.referenced;
        let none = || Spanned::new(crate::ir::NO_TRANSPORT.to_owned(), at, at);
        RawTransport {
            kind: none(),
            framing: Some(none()),
            port: None,
            content_type: None,
            carriers: Vec::new(),
        }
    });
    let framing = framing_of(&transport, cx);
    if !types_only {
        check_kind(&transport, &framing, cx);
        let kind = crate::transport::lookup(&transport.kind.value);
        if let Some(plugin) = kind.and_then(crate::transport::plugin) {
            check_sections(raw, plugin, &transport.kind.referenced, cx);
        }
    }
    (transport, framing)
}

/// `role_aliases` names declared roles only.
fn check_role_aliases(raw: &Raw, cx: &mut Checker<'_>) {
    if let (Some(bad), Some(first)) = (
        raw.role_aliases.keys().find(|r| !cx.roles.contains(r)),
        raw.roles.first(),
    ) {
        let msg = format!(
            "role_aliases names `{bad}`, which is not one of the roles ({})",
            cx.roles.join(", ")
        );
        cx.err(&first.referenced, msg);
    }
}

/// `jsonrpc.cancel` and `jsonrpc.progress`, checked against the methods and roles.
fn rpc_conventions(
    raw: &Raw,
    methods: &[(Method, MethodLocations)],
    cx: &mut Checker<'_>,
) -> crate::ir::RpcConventions {
    let all: Vec<Method> = methods.iter().map(|(m, _)| m.clone()).collect();
    let roles = cx.roles.clone();
    let mut report = |loc: &Location, msg: String| cx.err(loc, msg);
    jsonrpc::conventions(
        raw.jsonrpc.as_ref().and_then(|j| j.cancel.as_ref()),
        raw.jsonrpc.as_ref().and_then(|j| j.progress.as_ref()),
        &all,
        &roles,
        &mut report,
    )
}

/// The features' gates checked, and the handshake layer `grpc:` declares (`None` without
/// the section; `Some(None)` when it is incomplete, which is reported).
fn grpc_layer(
    raw: &Raw,
    messages: &[(crate::ir::MessageKind, Location, Location)],
    events: &[crate::ir::Event],
    cx: &mut Checker<'_>,
) -> Option<Option<crate::ir::GrpcSkeleton>> {
    let file = cx.file;
    for f in &raw.features {
        grpc::check_gates(file, &f.kinds, &f.events, messages, events, &mut cx.errors);
    }
    raw.grpc.as_ref().map(|g| {
        let parts = grpc::RawSkeleton {
            at: g.service.referenced,
            handshake: g.handshake.as_ref(),
            exchange: g.exchange.as_ref(),
            shutdown: g.shutdown.as_ref(),
            heartbeat: g.heartbeat.as_ref(),
            acknowledged: &g.acknowledged,
        };
        grpc::lower(file, &parts, messages, events, &mut cx.errors)
    })
}

/// Applies the `versions:` entry named `name` to the shared sections of `raw`: its types
/// file, then its dropped, replaced and added methods; with `unstable`, its `unstable:` form
/// on top (types, machine file, methods). `None` (after an error) when the entry is not
/// declared.
fn apply_version(
    raw: &mut Raw,
    name: &str,
    decls: &[crate::front::versions::VersionDecl],
    unstable: bool,
    cx: &mut Checker<'_>,
) -> Option<crate::front::versions::VersionDecl> {
    let index = raw.versions.iter().position(|v| v.version.value == name);
    let (Some(index), Some(decl)) = (index, decls.iter().find(|d| d.info.name == name)) else {
        let msg = format!("version `{name}` is not one of `versions:`");
        cx.err(&raw.protocol.referenced, msg);
        return None;
    };
    let mut entry = raw.versions.swap_remove(index);
    let mut decl = decl.clone();
    let form = if unstable {
        entry.unstable.take()
    } else {
        None
    };
    if let Some(types) = entry.types {
        raw.types = types;
    }
    change_methods(
        raw,
        name,
        &entry.version,
        entry.methods,
        &entry.drop_methods,
        cx,
    );
    if let Some(form) = form {
        let form = form.value;
        raw.types = form.types;
        if let Some(machine) = form.machine {
            decl.machine = machine.value;
        }
        change_methods(raw, name, &entry.version, form.methods, &[], cx);
        decl.info.module = decl.unstable.clone().unwrap_or(decl.info.module);
        decl.info.skeleton = false;
    }
    Some(decl)
}

/// Drops `drop` from `jsonrpc.methods` of `raw`, then puts each of `methods` in (replacing
/// the method of its name, else added), for version `name` written at `at`.
fn change_methods(
    raw: &mut Raw,
    name: &str,
    at: &Spanned<String>,
    methods: Vec<RawMethod>,
    drop: &[Spanned<String>],
    cx: &mut Checker<'_>,
) {
    if methods.is_empty() && drop.is_empty() {
        return;
    }
    let Some(rpc) = raw.jsonrpc.as_mut() else {
        let msg =
            format!("version `{name}` changes methods, but the protocol has no `jsonrpc:` section");
        cx.err(&at.referenced, msg);
        return;
    };
    for gone in drop {
        let before = rpc.methods.len();
        rpc.methods.retain(|m| m.method.value != gone.value);
        if rpc.methods.len() == before {
            let msg = format!(
                "version `{name}` drops `{}`, which `jsonrpc.methods` does not list",
                gone.value
            );
            cx.err(&gone.referenced, msg);
        }
    }
    for m in methods {
        match rpc
            .methods
            .iter_mut()
            .find(|x| x.method.value == m.method.value && x.call.value == m.call.value)
        {
            Some(shared) => *shared = m,
            None => rpc.methods.push(m),
        }
    }
}

/// Each carrier `transport` declares, read and checked by the plug-in registered for its key.
fn declare_carriers(
    transport: &RawTransport,
    methods: &[(Method, MethodLocations)],
    versions: (
        Option<&crate::ir::VersionSource>,
        Option<i64>,
        &[crate::front::versions::VersionDecl],
        Option<&str>,
    ),
    cx: &mut Checker<'_>,
) -> Vec<crate::ir::Carried> {
    let methods: Vec<&Method> = methods.iter().map(|(m, _)| m).collect();
    let declaring = crate::transport::Declaring {
        kind: &transport.kind.value,
        methods: &methods,
        versions: versions.0.map(|source| {
            let names = versions.2.iter().map(|d| d.info.name.as_str()).collect();
            (source, names)
        }),
        unsupported_code: versions.1,
        version: versions.3,
    };
    let mut report = |loc: &Location, msg: String| cx.err(loc, msg);
    transport
        .carriers
        .iter()
        .filter_map(|(key, raw)| {
            crate::transport::declare(key, raw, TRANSPORT_FIELDS, &declaring, &mut report)
        })
        .collect()
}

/// A protocol without `transport` declares types only: every section about messages on a
/// transport is an error at its line.
fn types_only_checks(raw: &Raw, cx: &mut Checker<'_>) {
    let mut refuse = |what: &str, at: Option<&Location>| {
        if let Some(at) = at {
            let msg = format!(
                "`{what}` needs a `transport`: a protocol without one declares only types \
                 (add `transport:` or drop `{what}`)"
            );
            cx.err(at, msg);
        }
    };
    refuse("roles", raw.roles.first().map(|r| &r.referenced));
    refuse("channels", raw.channels.first().map(|c| &c.from.referenced));
    refuse("messages", raw.messages.first().map(|m| &m.kind.referenced));
    refuse(
        "jsonrpc",
        raw.jsonrpc
            .as_ref()
            .and_then(|j| j.methods.first())
            .map(|m| &m.method.referenced),
    );
    refuse(
        "http",
        raw.http
            .as_ref()
            .and_then(|h| h.routes.first())
            .map(|r| &r.name.referenced),
    );
    refuse("grpc", raw.grpc.as_ref().map(|g| &g.service.referenced));
    refuse("features", raw.features.first().map(|f| &f.name.referenced));
    refuse("events", raw.events.first().map(|e| &e.name.referenced));
    let other = raw.sessions.is_some() || raw.tracking.is_some();
    refuse(
        "sessions` or `tracking",
        other.then_some(&raw.protocol.referenced),
    );
}

/// The `types:` value as a path (a folder file, or the file inside a pinned package, relative
/// to the pin's `root` folder when it names one) and the
/// pin, if any; a pin that breaks a rule is an error at `types:`.
fn types_of(
    types: Spanned<RawTypes>,
    cx: &mut Checker<'_>,
) -> (Spanned<String>, Option<crate::front::sources::Pin>) {
    let Spanned {
        value,
        referenced,
        defined,
    } = types;
    match value {
        RawTypes::File(file) => (Spanned::new(file, referenced, defined), None),
        RawTypes::Pinned(raw) => {
            let mut file = raw.file.clone();
            let pin = crate::front::sources::Pin::from_raw(raw)
                .map_err(|msg| cx.err(&referenced, msg))
                .ok();
            // Relative to the pin's `root`, the folder its imports resolve against.
            if let Some(pin) = &pin {
                file = pin.file_in_root().to_owned();
            }
            (Spanned::new(file, referenced, defined), pin)
        }
    }
}

/// One `proto.include` entry: a folder (relative to the spec folder) or a pinned package,
/// whose root is then the folder; a broken pin is an error at the entry.
fn include_of(
    entry: Spanned<RawTypes>,
    cx: &mut Checker<'_>,
) -> Option<(crate::front::proto_include::Include, Location)> {
    use crate::front::proto_include::Include;
    let at = entry.referenced;
    match entry.value {
        RawTypes::File(folder) if folder.is_empty() => {
            cx.err(&at, "an empty `proto.include` folder".to_owned());
            None
        }
        RawTypes::File(folder) => Some((Include::Folder(folder.into()), at)),
        RawTypes::Pinned(raw) => match crate::front::sources::Pin::from_raw(raw) {
            Ok(pin) => Some((Include::Pinned(pin), at)),
            Err(msg) => {
                cx.err(&at, msg);
                None
            }
        },
    }
}

fn origin(loc: &Location) -> Origin {
    Origin {
        file: "protocol.yaml".to_owned(),
        line: loc.line() as usize,
    }
}

/// The checks of one `protocol.yaml`: the declared roles and the errors found so far.
struct Checker<'a> {
    file: &'a SourceFile,
    roles: Vec<String>,
    errors: SpecErrors,
}

impl Checker<'_> {
    fn err(&mut self, loc: &Location, msg: String) {
        self.errors
            .push(SpecError::at(self.file, span_of(self.file, loc), msg));
    }

    /// The roles of a method's `from:`, each checked, at least one, none twice.
    fn method_roles(&mut self, from: &Spanned<jsonrpc::RawRoles>) -> Vec<String> {
        let roles = &from.value.0;
        if roles.is_empty() {
            self.err(&from.referenced, "`from:` names no role".to_owned());
        }
        for (i, role) in roles.iter().enumerate() {
            if !self.roles.contains(role) {
                let msg = format!(
                    "`{role}` is not one of the roles ({}){}",
                    self.roles.join(", "),
                    crate::suggest::did_you_mean(role, self.roles.iter().map(String::as_str))
                );
                self.err(&from.referenced, msg);
            }
            if roles[..i].contains(role) {
                self.err(&from.referenced, format!("`from:` names `{role}` twice"));
            }
        }
        roles.clone()
    }

    fn check_role(&mut self, role: &Spanned<String>) {
        if !self.roles.contains(&role.value) {
            let msg = format!(
                "`{}` is not one of the roles ({}){}",
                role.value,
                self.roles.join(", "),
                crate::suggest::did_you_mean(&role.value, self.roles.iter().map(String::as_str))
            );
            self.err(&role.referenced, msg);
        }
    }

    fn channel(&mut self, c: &RawChannel) -> (Channel, Location) {
        self.check_role(&c.from);
        self.check_role(&c.to);
        let channel = Channel {
            from: c.from.value.clone(),
            to: c.to.value.clone(),
            union: c.union.value.clone(),
        };
        (channel, c.union.referenced)
    }

    fn messages(&mut self, raw: &[RawMessage]) -> Vec<(MessageKind, Location, Location)> {
        let mut messages: Vec<(MessageKind, Location, Location)> = Vec::new();
        for m in raw {
            self.check_role(&m.from);
            if messages
                .iter()
                .any(|(k, _, _)| k.kind == m.kind.value && k.from == m.from.value)
            {
                self.err(
                    &m.kind.referenced,
                    format!("message kind `{}` is listed twice", m.kind.value),
                );
            }
            let kind = MessageKind {
                kind: m.kind.value.clone(),
                from: m.from.value.clone(),
                type_name: m.type_name.value.clone(),
                summary: m.summary.clone(),
                origin: origin(&m.kind.referenced),
            };
            messages.push((kind, m.kind.referenced, m.type_name.referenced));
        }
        messages
    }

    fn methods<'r>(
        &mut self,
        raw: impl Iterator<Item = &'r RawMethod>,
    ) -> Vec<(Method, MethodLocations)> {
        let mut methods: Vec<(Method, MethodLocations)> = Vec::new();
        for m in raw {
            let from = self.method_roles(&m.from);
            let call = match m.call.value.as_str() {
                "request" => Call::Request,
                "notification" => Call::Notification,
                other => {
                    let msg = format!("`call: {other}` must be `request` or `notification`");
                    self.err(&m.call.referenced, msg);
                    Call::Notification
                }
            };
            if call == Call::Notification
                && let Some(r) = &m.result
            {
                self.err(&r.referenced, "a notification has no result".to_owned());
            }
            // A method may be both a request and a notification (a message with an id is the
            // request, one without the notification); each kind is listed once.
            if methods
                .iter()
                .any(|(x, _)| x.name == m.method.value && x.call == call)
            {
                let msg = format!("method `{}` is listed twice", m.method.value);
                self.err(&m.method.referenced, msg);
            }
            let params_optional = m.params_optional.as_ref().is_some_and(|o| o.value);
            if let Some(o) = &m.params_optional
                && o.value
                && m.params.is_none()
            {
                let msg = "`params_optional` needs a `params:` type".to_owned();
                self.err(&o.referenced, msg);
            }
            let answer = self.default_answer(m, call);
            let method = Method {
                name: m.method.value.clone(),
                call,
                from,
                params: m.params.as_ref().map(|p| p.value.clone()),
                params_optional,
                result: m.result.as_ref().map(|p| p.value.clone()),
                answer,
                summary: m.summary.clone(),
                origin: origin(&m.method.referenced),
            };
            let locations = MethodLocations {
                name: m.method.referenced,
                params: m.params.as_ref().map(|p| p.referenced),
                result: m.result.as_ref().map(|p| p.referenced),
                answer: m.answer.as_ref().map(|p| p.referenced),
            };
            methods.push((method, locations));
        }
        methods
    }

    /// A method's `answer:`, for requests only.
    fn default_answer(&mut self, m: &RawMethod, call: Call) -> Option<crate::ir::DefaultAnswer> {
        use crate::ir::DefaultAnswer;
        let a = m.answer.as_ref()?;
        let answer = match a.value.as_str() {
            "empty" => DefaultAnswer::Empty,
            "method_not_found" => DefaultAnswer::MethodNotFound,
            other => {
                let hint = crate::suggest::did_you_mean(other, ["empty", "method_not_found"]);
                let msg = format!("`answer: {other}` must be `empty` or `method_not_found`{hint}");
                self.err(&a.referenced, msg);
                return None;
            }
        };
        if call == Call::Notification {
            self.err(&a.referenced, "a notification is not answered".to_owned());
            return None;
        }
        Some(answer)
    }

    fn route(&mut self, r: &RawRoute) -> Route {
        self.check_role(&r.from);
        self.check_role(&r.to);
        let body = |json: &Option<String>, text: &Option<String>| match (json, text) {
            (Some(j), _) => Body::Json(j.clone()),
            (None, Some(t)) => Body::Text(t.clone()),
            (None, None) => Body::None,
        };
        Route {
            name: r.name.value.clone(),
            method: r.method.clone(),
            path: r.path.clone(),
            from: r.from.value.clone(),
            to: r.to.value.clone(),
            path_params: r.path_params.clone(),
            body: r
                .body
                .as_ref()
                .map_or(Body::None, |b| body(&b.json, &b.text)),
            responses: r
                .responses
                .iter()
                .map(|x| HttpResponse {
                    status: x.status,
                    body: body(&x.json, &x.text),
                    when: x.when.clone(),
                })
                .collect(),
            timeout_ms: r.timeout_ms,
            retries: r.retries,
            summary: r.summary.clone(),
            origin: origin(&r.name.referenced),
        }
    }

    fn features(&mut self, raw: &[RawFeature]) -> Vec<Feature> {
        let mut out: Vec<Feature> = Vec::new();
        for f in raw {
            if out.iter().any(|x| x.name == f.name.value) {
                let msg = format!("feature `{}` is listed twice", f.name.value);
                self.err(&f.name.referenced, msg);
            }
            out.push(Feature {
                name: f.name.value.clone(),
                description: f.description.clone(),
                kinds: f.kinds.iter().map(|k| k.value.clone()).collect(),
                events: f.events.iter().map(|e| e.value.clone()).collect(),
                origin: origin(&f.name.referenced),
            });
        }
        out
    }

    fn events(&mut self, raw: &[RawEvent]) -> Vec<Event> {
        let mut out: Vec<Event> = Vec::new();
        for e in raw {
            if out.iter().any(|x| x.name == e.name.value) {
                let msg = format!("event `{}` is listed twice", e.name.value);
                self.err(&e.name.referenced, msg);
            }
            out.push(Event {
                name: e.name.value.clone(),
                terminal: e.terminal,
                origin: origin(&e.name.referenced),
            });
        }
        out
    }
}

/// `transport.port` and `transport.content_type`: a port is 1 to 65535; a content type belongs
/// to `content-length` framing, and a charset it names is UTF-8, the only one the framer reads.
fn check_transport_constants(t: &RawTransport, framing: &Spanned<String>, cx: &mut Checker<'_>) {
    if let Some(port) = &t.port
        && !(1..=65535).contains(&port.value)
    {
        cx.err(
            &port.referenced,
            format!("`port: {}` is not a TCP port (1 to 65535)", port.value),
        );
    }
    let Some(ct) = &t.content_type else {
        return;
    };
    if framing.value != "content-length" {
        cx.err(
            &ct.referenced,
            format!(
                "`content_type` is the default of a `Content-Type` header, which only \
                 `content-length` framing has (this protocol's framing is `{}`)",
                framing.value
            ),
        );
    }
    let charset = ct.value.split(';').skip(1).find_map(|param| {
        let (key, value) = param.split_once('=')?;
        key.trim()
            .eq_ignore_ascii_case("charset")
            .then(|| value.trim().trim_matches('"').to_owned())
    });
    if let Some(cs) = charset
        && !cs.eq_ignore_ascii_case("utf-8")
        && !cs.eq_ignore_ascii_case("utf8")
    {
        cx.err(
            &ct.referenced,
            format!(
                "charset `{cs}`: frames are read as UTF-8 only (a frame naming another charset \
                 is refused), so the default must be utf-8"
            ),
        );
    }
    if ct.value.split(';').next().is_none_or(|m| !m.contains('/')) {
        cx.err(
            &ct.referenced,
            format!(
                "`{}` is not a media type (`type/subtype; charset=utf-8`)",
                ct.value
            ),
        );
    }
}
