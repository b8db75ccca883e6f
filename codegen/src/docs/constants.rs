//! The constants a spec declares, as the Markdown a protocol doc shows between its constants
//! markers (kept fresh by `cargo xtask gen`, checked like the diagrams): the transport's
//! default port, default `Content-Type`, WebSocket path, the gRPC statuses that end a stream,
//! and every field's `@default`.

use crate::ir::{Protocol, TypeKind};

/// The list between the markers: one line per constant, or a line saying there is none.
pub fn constants_block(p: &Protocol) -> String {
    let mut lines = Vec::new();
    let t = &p.transport;
    lines.push(format!(
        "- transport: `{}`, framing `{}` (`transport.kind`, `transport.framing`)",
        t.kind, t.framing
    ));
    if let Some(port) = t.port {
        lines.push(format!(
            "- default port: `{port}` (`transport.port`; `DEFAULT_PORT` in the module)"
        ));
    }
    if let Some(ct) = &t.content_type {
        lines.push(format!(
            "- `Content-Type` when a frame leaves it out: `{ct}`; frames are read as UTF-8 \
             only (`transport.content_type`; `CONTENT_TYPE` in the module)"
        ));
    }
    let skeleton = t.grpc.as_ref().and_then(|g| g.skeleton.as_ref());
    if let Some(h) = skeleton.map(|s| &s.handshake) {
        lines.push(format!(
            "- gRPC status ending a stream whose message is invalid: `{}`; refusing a `{}` \
             whose `{}` is already connected: `{}` (`grpc.handshake.statuses`)",
            h.invalid_status, h.hello, h.peer_id, h.taken_status
        ));
    }
    if let Some(s) = &p.sessions {
        lines.push(format!(
            "- WebSocket path: `{}` (`sessions.websocket`; `WEBSOCKET_PATH` in the module)",
            s.websocket
        ));
    }
    for def in p.types.values() {
        match &def.kind {
            TypeKind::Struct(fields) => {
                for f in fields {
                    if let Some(v) = &f.default {
                        lines.push(format!(
                            "- `{}.{}` when absent: `{v}` (`@default`)",
                            def.name, f.name
                        ));
                    }
                }
            }
            TypeKind::Union { tag, variants } => {
                for v in variants.iter().filter(|v| v.default) {
                    lines.push(format!(
                        "- `{}` without `{tag}`: a `{}` (`{tag}: '{}'`, `@default`)",
                        def.name, v.type_name, v.value
                    ));
                }
            }
            _ => {}
        }
    }
    format!("\n{}\n\n", lines.join("\n"))
}
