//! `transport.kind: http+websocket`: HTTP routes and a WebSocket session server, whose engine
//! the `sessions:` section configures (it is required).

use proc_macro2::TokenStream;

use super::{RegistryKind, Section, TransportPlugin};
use crate::front::proto::ProtoSpec;
use crate::ir::Protocol;

pub struct HttpWebSocket;

impl TransportPlugin for HttpWebSocket {
    fn name(&self) -> &'static str {
        "http+websocket"
    }

    fn framings(&self) -> &'static [&'static str] {
        &["json-text"]
    }

    fn sections(&self) -> &'static [Section] {
        &[Section::Sessions]
    }

    fn missing(&self, section: Section) -> Option<(String, Option<String>)> {
        (section == Section::Sessions).then(|| {
            let msg = format!(
                "an `http+websocket` protocol needs a `sessions:` section: the roles, routes, \
                 kinds and message templates its session engine uses ({})",
                crate::suggest::see("\"Session skeletons\"", crate::suggest::SESSIONS_DOCS)
            );
            (msg, None)
        })
    }

    fn skeleton(&self, p: &Protocol, _: Option<&ProtoSpec>) -> Option<TokenStream> {
        crate::emit::skeleton::http_ws::emit(p)
    }

    fn registry_kind(&self) -> RegistryKind {
        RegistryKind::HttpWebSocket
    }
}
