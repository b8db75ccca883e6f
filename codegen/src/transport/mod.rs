//! Transport kinds as plug-ins, the way prost-build takes a `ServiceGenerator`: each
//! `transport.kind` a spec may name is one [`TransportPlugin`] in a module of its own here,
//! saying which framings it takes, which `protocol.yaml` sections it reads and which of them
//! a spec must hold (checked by [`check_sections`] for every kind alike), whether its types
//! must be protobuf, what skeleton it emits and what the registry reports of it.
//!
//! Adding a kind is its module and one line in [`KINDS`]; the loader, the skeleton step
//! and the registry emitter ask the plug-in and never name a kind.
//!
//! A [`Carrier`] is a transport a spec declares beside its kind, under `transport.<key>`
//! (Streamable HTTP carries a JSON-RPC protocol over HTTP): one module here too, registered
//! in [`CARRIERS`]. The YAML reader keeps every `transport` key it does not know as written;
//! the carrier registered for the key reads and checks it into its own type, which the IR
//! holds as a [`Carried`], and says which kinds it carries and what the skeleton gains.
//! Adding a carrier is its module and one line in [`CARRIERS`]; nothing else names it.

mod grpc;
pub mod http_json;
mod http_ws;
mod jsonrpc;
pub mod jsonrpc_http;
pub mod streamable_http;
mod websocket;

use proc_macro2::TokenStream;
use serde_saphyr::{Location, Spanned};

use crate::diag::{SourceFile, SpecErrors};
use crate::front::proto::ProtoSpec;
use crate::yaml_node::{Node, Parse};
pub use agentwire_runtime::registry::TransportKind as RegistryKind;

use crate::ir::{Carried, Method, Protocol, TransportKind};

/// The `protocol.yaml` sections (beyond `transport:`) that belong to some transport kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Section {
    /// `sessions:`, the HTTP + WebSocket session engine.
    Sessions,
    /// `tracking:`, the state a WebSocket client keeps.
    Tracking,
    /// `grpc:`, the handshake layer on one bidi rpc (optional).
    Grpc,
}

impl Section {
    pub const ALL: [Section; 3] = [Section::Sessions, Section::Tracking, Section::Grpc];

    /// The section's key in `protocol.yaml`.
    pub fn key(self) -> &'static str {
        match self {
            Section::Sessions => "sessions",
            Section::Tracking => "tracking",
            Section::Grpc => "grpc",
        }
    }
}

/// One transport kind.
pub trait TransportPlugin: Sync {
    /// The `transport.kind` value that selects it.
    fn name(&self) -> &'static str;
    /// The `transport.framing` values it takes.
    fn framings(&self) -> &'static [&'static str];
    /// The sections it reads; a spec of this kind holding another kind's section is an error.
    fn sections(&self) -> &'static [Section] {
        &[]
    }
    /// For a section it cannot do without, the error a spec lacking it gets (what to add,
    /// and where the format is described); `None` when the section is optional.
    fn missing(&self, section: Section) -> Option<(String, Option<String>)> {
        let _ = section;
        None
    }
    /// Whether its messages are protobuf: the types must come from a `.proto` file.
    fn protobuf(&self) -> bool {
        false
    }
    /// The skeleton module of `p` (`proto`: the compiled `.proto` of a protobuf spec), or
    /// `None` when `p` has none.
    fn skeleton(&self, p: &Protocol, proto: Option<&ProtoSpec>) -> Option<TokenStream>;
    /// The skeleton module of a folder of several versions (`folder`, and each version's
    /// IR with its own skeleton, newest first) that serves and connects every version, or
    /// `None` when this kind cannot choose a version per stream (the folder's skeleton is
    /// then the one of the version marked `skeleton: true`).
    fn versioned_skeleton(
        &self,
        folder: &Protocol,
        versions: &[(&Protocol, TokenStream)],
    ) -> Option<TokenStream> {
        let _ = (folder, versions);
        None
    }
    /// What the registry reports as the protocol's transport.
    fn registry_kind(&self) -> RegistryKind;
}

/// A transport a spec declares beside its kind, under `transport.<key>`: another way the same
/// messages travel. The YAML reader keeps the value as written ([`Node`]); the carrier's
/// module reads and checks it into a type of its own, which the IR holds as a [`Carried`],
/// and emits what the skeleton gains from it.
pub trait Carrier: Sync {
    /// Its key under `transport:`.
    fn key(&self) -> &'static str;
    /// The kinds whose messages it can carry.
    fn carries(&self) -> &'static [&'static str];
    /// Reads and checks its declaration `raw` in the protocol `cx` describes: every finding
    /// goes to `report`, at the value it is about; the checked value comes back when there
    /// was none.
    fn declare(&self, raw: &Node, cx: &Declaring<'_>, report: &mut Report<'_>) -> Option<Carried>;
    /// The items a skeleton gains from `carried`, its declaration in `p` (`proto`: the
    /// compiled `.proto` of a protobuf spec).
    fn skeleton_items(
        &self,
        p: &Protocol,
        proto: Option<&ProtoSpec>,
        carried: &Carried,
    ) -> Option<TokenStream>;
    /// Statements that add its binding to the skeleton's routes of a gRPC service serving
    /// several bindings on one port: they find `routes` (`tonic::service::Routes`) and
    /// `grpc` (the service, `Clone`) in scope, rebind `routes`, and may return a
    /// `ProfileError` with `?`. `None` for a carrier that serves nothing there.
    fn mount(
        &self,
        p: &Protocol,
        proto: Option<&ProtoSpec>,
        carried: &Carried,
    ) -> Option<TokenStream> {
        let _ = (p, proto, carried);
        None
    }
    /// Checks `carried` against the compiled `.proto` of a protobuf spec whose
    /// `protocol.yaml` is `yaml` (what the declaration alone cannot tell, such as the
    /// annotations of the rpcs it serves): every finding goes to `errors`, at the line it is
    /// about, so that a spec the transport could not serve fails at generation.
    fn check_proto(
        &self,
        yaml: &SourceFile,
        p: &Protocol,
        proto: &ProtoSpec,
        carried: &Carried,
        errors: &mut SpecErrors,
    ) {
        let _ = (yaml, p, proto, carried, errors);
    }
}

/// Every carrier of `p` checked against its compiled `.proto` (see [`Carrier::check_proto`]).
pub fn check_proto(yaml: &SourceFile, p: &Protocol, proto: &ProtoSpec, errors: &mut SpecErrors) {
    for c in &p.transport.carriers {
        if let Some(k) = carrier(c.key) {
            k.check_proto(yaml, p, proto, c, errors);
        }
    }
}

/// What a carrier's declaration is checked against.
pub struct Declaring<'a> {
    /// The protocol's `transport.kind`.
    pub kind: &'a str,
    /// Its JSON-RPC methods.
    pub methods: &'a [&'a Method],
    /// `version:` and the names of `versions:` (newest first), when the folder declares
    /// several versions: a carrier may take its version facts from them.
    pub versions: Option<(&'a crate::ir::VersionSource, Vec<&'a str>)>,
    /// `version.unsupported_code`, when declared.
    pub unsupported_code: Option<i64>,
    /// The version being read, when the folder declares several (each is read on its own).
    pub version: Option<&'a str>,
}

/// Where a finding goes: the location it is about, and the message.
pub type Report<'a> = dyn FnMut(&Location, String) + 'a;

/// Every carrier a spec may declare: one registration line each.
static CARRIERS: &[&dyn Carrier] = &[
    &streamable_http::StreamableHttp,
    &jsonrpc_http::JsonRpcHttp,
    &http_json::HttpJson,
];

/// The registered carriers (and, in this crate's tests, a toy one).
fn carriers() -> impl Iterator<Item = &'static dyn Carrier> {
    let registered = CARRIERS.iter().copied();
    #[cfg(test)]
    let registered = registered.chain(tests::TEST_CARRIERS.iter().copied());
    registered
}

/// The carrier registered under `key`.
pub fn carrier(key: &str) -> Option<&'static dyn Carrier> {
    carriers().find(|c| c.key() == key)
}

/// `transport.<key>` (`key` as written, `raw` its value), read by the carrier registered
/// under `key`. A key that is neither one of the reader's `fields` nor a carrier's, or a
/// carrier of other kinds, is a finding at the key.
pub fn declare(
    key: &Spanned<String>,
    raw: &Node,
    fields: &[&str],
    cx: &Declaring<'_>,
    report: &mut Report<'_>,
) -> Option<Carried> {
    let Some(c) = carrier(&key.value) else {
        let known: Vec<&str> = carriers().map(|c| c.key()).collect();
        let msg = format!(
            "`transport.{}` is neither a field ({}) nor a carrier ({}){}",
            key.value,
            fields.join(", "),
            known.join(", "),
            crate::suggest::did_you_mean(&key.value, fields.iter().chain(&known).copied())
        );
        report(&key.referenced, msg);
        return None;
    };
    if !c.carries().contains(&cx.kind) {
        let msg = format!(
            "`transport.{}` carries {} protocols, not `{}`",
            c.key(),
            c.carries().join(", "),
            cx.kind
        );
        report(&key.referenced, msg);
        return None;
    }
    c.declare(raw, cx, report)
}

/// `raw` read as a carrier's `T`, or `None` after reporting where it does not fit.
pub fn read<T: serde::de::DeserializeOwned>(raw: &Node, report: &mut Report<'_>) -> Option<T> {
    raw.parse()
        .map_err(|e| report(&e.at.unwrap_or(raw.referenced), e.message))
        .ok()
}

/// Every transport kind a spec may name: one registration line each.
static KINDS: &[&dyn TransportPlugin] = &[
    &websocket::WebSocket,
    &http_ws::HttpWebSocket,
    &jsonrpc::JsonRpc,
    &grpc::Grpc,
];

/// The kind named `name`, if one is registered.
pub fn lookup(name: &str) -> Option<TransportKind> {
    KINDS
        .iter()
        .find(|k| k.name() == name)
        .map(|k| TransportKind::registered(k.name()))
}

/// The registered kind names, in registration order.
pub fn names() -> Vec<&'static str> {
    KINDS.iter().map(|k| k.name()).collect()
}

/// Every framing some kind takes, each once, in registration order.
pub fn framings() -> Vec<&'static str> {
    let mut all: Vec<&'static str> = Vec::new();
    for f in KINDS.iter().flat_map(|k| k.framings()) {
        if !all.contains(f) {
            all.push(f);
        }
    }
    all
}

/// The plug-in of a registered kind; `None` for a types-only protocol.
pub fn plugin(kind: TransportKind) -> Option<&'static dyn TransportPlugin> {
    KINDS.iter().copied().find(|k| k.name() == kind.name())
}

/// The skeleton of `p` from its kind's plug-in; `None` for a types-only protocol or one whose
/// kind emits none for it.
pub fn skeleton(p: &Protocol, proto: Option<&ProtoSpec>) -> Option<TokenStream> {
    let mut tokens = plugin(p.transport.kind)?.skeleton(p, proto)?;
    for c in &p.transport.carriers {
        tokens.extend(carrier(c.key).and_then(|k| k.skeleton_items(p, proto, c)));
    }
    Some(tokens)
}

/// The mount statements of every carrier `p` declares but `except` (the carrier writing the
/// routes function), in declaration order.
pub fn mounts(p: &Protocol, proto: Option<&ProtoSpec>, except: &str) -> Vec<TokenStream> {
    p.transport
        .carriers
        .iter()
        .filter(|c| c.key != except)
        .filter_map(|c| carrier(c.key)?.mount(p, proto, c))
        .collect()
}

/// Whether `key` is the first carrier `p` declares: the one that emits what every carrier
/// of a gRPC service shares (its descriptors), so that it is emitted once.
pub fn first_carrier(p: &Protocol, key: &str) -> bool {
    p.transport.carriers.first().is_some_and(|c| c.key == key)
}

/// The skeleton of a folder of several versions that serves and connects each of them (from
/// each version's own skeleton), or `None` when its kind cannot, or a version has none.
pub fn versioned_skeleton(
    folder: &Protocol,
    versions: &[(&Protocol, Option<&ProtoSpec>)],
) -> Option<TokenStream> {
    let kind = plugin(folder.transport.kind)?;
    let mut each = Vec::with_capacity(versions.len());
    for (p, proto) in versions {
        each.push((*p, skeleton(p, *proto)?));
    }
    kind.versioned_skeleton(folder, &each)
}

/// What the registry reports as `p`'s transport; `None` for a types-only protocol, which
/// the registry leaves out.
pub fn registry_kind(p: &Protocol) -> Option<RegistryKind> {
    plugin(p.transport.kind).map(|k| k.registry_kind())
}

/// What is wrong with the sections a spec of `kind` holds (`present`, each with where it is
/// written): a section the kind does not read (naming the kinds that do), or one it needs
/// that is missing (reported at `transport`). Each finding is `(at, message, help)`.
pub fn check_sections<L: Copy>(
    kind: &dyn TransportPlugin,
    present: &[(Section, L)],
    transport: L,
) -> Vec<(L, String, Option<String>)> {
    let mut out = Vec::new();
    for &(section, at) in present {
        if !kind.sections().contains(&section) {
            let readers: Vec<String> = KINDS
                .iter()
                .filter(|k| k.sections().contains(&section))
                .map(|k| format!("`{}`", k.name()))
                .collect();
            let msg = format!(
                "`{}:` applies to {} protocols, not `{}`",
                section.key(),
                readers.join(" or "),
                kind.name()
            );
            out.push((at, msg, None));
        }
    }
    for &section in kind.sections() {
        if present.iter().any(|(s, _)| *s == section) {
            continue;
        }
        if let Some((msg, help)) = kind.missing(section) {
            out.push((transport, msg, help));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use quote::quote;
    use serde::Deserialize;

    use super::*;
    use crate::diag::SourceFile;

    /// A carrier that exists only here: its module is this one, its registration the line
    /// below. Nothing else in the crate names it, and a spec may declare it.
    struct Toy;

    pub(super) static TEST_CARRIERS: &[&dyn Carrier] = &[&Toy];

    /// `transport.toy` as written.
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct RawToy {
        greeting: Spanned<String>,
    }

    /// `transport.toy` checked.
    #[derive(Debug, PartialEq)]
    struct Greeting(String);

    impl Carrier for Toy {
        fn key(&self) -> &'static str {
            "toy"
        }
        fn carries(&self) -> &'static [&'static str] {
            &["websocket"]
        }
        fn declare(
            &self,
            raw: &Node,
            _: &Declaring<'_>,
            report: &mut Report<'_>,
        ) -> Option<Carried> {
            let raw: RawToy = read(raw, report)?;
            if raw.greeting.value.is_empty() {
                report(&raw.greeting.referenced, "an empty greeting".to_owned());
                return None;
            }
            Some(Carried::new(self.key(), Greeting(raw.greeting.value)))
        }
        fn skeleton_items(
            &self,
            _: &Protocol,
            _: Option<&ProtoSpec>,
            carried: &Carried,
        ) -> Option<TokenStream> {
            let Greeting(g) = carried.get()?;
            Some(quote!(pub const GREETING: &str = #g;))
        }
    }

    /// `protocol.yaml` of a websocket protocol whose `transport:` also holds `extra` (YAML
    /// lines at the transport's indentation): the checked transport, or each error on a line.
    fn load(extra: &str) -> Result<crate::ir::Transport, Vec<String>> {
        let extra: String = extra.lines().map(|l| format!("  {l}\n")).collect();
        let text = format!(
            "protocol: demo\ntitle: Demo\ntransport:\n  kind: websocket\n{extra}\
             roles: [client, server]\ntypes: messages.ts\n"
        );
        let file = SourceFile {
            path: "demo/protocol.yaml".into(),
            text: text.into(),
        };
        crate::front::protocol::load(&file)
            .map(|pf| pf.transport)
            .map_err(|e| e.errors.iter().map(|e| e.one_line()).collect())
    }

    #[test]
    fn a_carrier_registered_in_one_line_is_read_checked_and_held_by_its_own_type() {
        let transport = load("toy:\n  greeting: hello").unwrap();
        assert_eq!(
            transport.carried::<Greeting>(),
            Some(&Greeting("hello".into()))
        );
        assert_eq!(transport.carriers[0].key, "toy");
        let errs = load("toy:\n  greeting: \"\"").unwrap_err();
        assert!(
            errs.len() == 1
                && errs[0].contains("protocol.yaml:6:15")
                && errs[0].contains("an empty greeting"),
            "{errs:?}"
        );
        let errs = load("toy:\n  greting: hello").unwrap_err();
        assert!(
            errs.len() == 1
                && errs[0].contains("protocol.yaml:6:5")
                && errs[0].contains("unknown field `greting`"),
            "{errs:?}"
        );
    }

    #[test]
    fn an_unknown_key_names_the_fields_and_carriers_and_a_carrier_of_other_kinds_is_refused() {
        let errs = load("tyo:\n  greeting: hello").unwrap_err();
        let want = "`transport.tyo` is neither a field (kind, framing, port, content_type) nor \
                    a carrier (streamable_http, jsonrpc_http, http_json, toy); did you mean `toy`?";
        assert!(
            errs.len() == 1 && errs[0].contains("protocol.yaml:5:3") && errs[0].contains(want),
            "{errs:?}"
        );
        let errs = load("streamable_http: {}").unwrap_err();
        assert!(
            errs.len() == 1 && errs[0].contains("carries jsonrpc protocols, not `websocket`"),
            "{errs:?}"
        );
    }

    fn kind(name: &str) -> &'static dyn TransportPlugin {
        lookup(name).and_then(plugin).expect("registered")
    }

    #[test]
    fn a_section_of_another_kind_names_its_readers_and_a_needed_one_is_asked_for() {
        let found = check_sections(kind("websocket"), &[(Section::Sessions, 7)], 1);
        let msg = "`sessions:` applies to `http+websocket` protocols, not `websocket`";
        assert_eq!(found, [(7, msg.to_owned(), None)]);
        // `grpc:` is an optional layer: a grpc spec without it only has the foreign section.
        let found = check_sections(kind("grpc"), &[(Section::Tracking, 3)], 1);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].0, 3);
        assert!(check_sections(kind("jsonrpc"), &[], 1).is_empty());
    }

    #[test]
    fn each_kind_is_registered_once_and_unknown_names_are_none() {
        let mut names = names();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), KINDS.len());
        assert!(lookup("websockets").is_none());
        assert!(lookup(crate::ir::NO_TRANSPORT).is_none());
        assert!(plugin(TransportKind::NONE).is_none());
        assert_eq!(
            framings(),
            ["json-text", "content-length", "newline", "grpc"]
        );
        assert!(kind("grpc").protobuf() && !kind("jsonrpc").protobuf());
    }
}
