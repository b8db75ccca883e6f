//! Transport kinds as plug-ins, the way prost-build takes a `ServiceGenerator`: each
//! `transport.kind` a spec may name is one [`TransportPlugin`] in a module of its own here,
//! saying which framings it takes, which `protocol.yaml` sections it reads and which of them
//! a spec must hold (checked by [`check_sections`] for every kind alike), whether its types
//! must be protobuf, what skeleton it emits and what the registry reports of it.
//!
//! Adding a kind is its module and one line in [`KINDS`]; the loader, the skeleton step
//! and the registry emitter ask the plug-in and never name a kind.
//!
//! A [`Carrier`] is a transport a spec declares beside its kind, under `transport:`
//! (Streamable HTTP carries a JSON-RPC protocol over HTTP): one module here too, registered
//! in [`CARRIERS`], saying which kinds it carries and what it adds to the skeleton.

mod grpc;
mod http_ws;
mod jsonrpc;
pub mod streamable_http;
mod websocket;

use proc_macro2::TokenStream;

use crate::front::proto::ProtoSpec;
pub use agentwire_runtime::registry::TransportKind as RegistryKind;

use crate::ir::{Protocol, TransportKind};

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
    /// What the registry reports as the protocol's transport.
    fn registry_kind(&self) -> RegistryKind;
}

/// A transport a spec declares beside its kind, under `transport.<key>`: another way the same
/// messages travel. Its module reads and checks the declaration (into the IR's typed value);
/// the plug-in says which kinds it carries and emits what the skeleton gains from it.
pub trait Carrier: Sync {
    /// Its key under `transport:`.
    fn key(&self) -> &'static str;
    /// The kinds whose messages it can carry.
    fn carries(&self) -> &'static [&'static str];
    /// The items `p`'s skeleton gains (the profile its transport takes), or `None` when `p`
    /// does not declare it.
    fn skeleton_items(&self, p: &Protocol) -> Option<TokenStream>;
}

/// Every carrier a spec may declare: one registration line each.
static CARRIERS: &[&dyn Carrier] = &[&streamable_http::StreamableHttp];

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
    for c in CARRIERS {
        tokens.extend(c.skeleton_items(p));
    }
    Some(tokens)
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
    use super::*;

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
