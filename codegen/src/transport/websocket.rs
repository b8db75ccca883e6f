//! `transport.kind: websocket`: JSON text frames on one WebSocket; a client may keep the
//! state `tracking:` declares.

use proc_macro2::TokenStream;

use super::{RegistryKind, Section, TransportPlugin};
use crate::front::proto::ProtoSpec;
use crate::ir::Protocol;

pub struct WebSocket;

impl TransportPlugin for WebSocket {
    fn name(&self) -> &'static str {
        "websocket"
    }

    fn framings(&self) -> &'static [&'static str] {
        &["json-text"]
    }

    fn sections(&self) -> &'static [Section] {
        &[Section::Tracking]
    }

    fn skeleton(&self, p: &Protocol, _: Option<&ProtoSpec>) -> Option<TokenStream> {
        crate::emit::skeleton::ws::emit(p)
    }

    fn registry_kind(&self) -> RegistryKind {
        RegistryKind::WebSocket
    }
}
