//! `protocol.yaml` loader: reads the transport, roles, channels, catalogue, JSON-RPC methods
//! and HTTP routes, keeping every value's location for diagnostics.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_saphyr::{Location, Spanned};

use crate::diag::{SourceFile, SpecError, SpecErrors};
use crate::ir::{
    Body, Call, Channel, GrpcRpc, HttpResponse, MessageKind, Method, Origin, Route, Transport,
};

/// What `protocol.yaml` declares, before it is checked against the types file.
#[derive(Debug, Clone)]
pub struct ProtocolFile {
    pub module: Spanned<String>,
    pub title: String,
    pub summary: String,
    pub transport: Transport,
    pub roles: Vec<String>,
    pub types_file: Spanned<String>,
    pub channels: Vec<(Channel, Location)>,
    pub messages: Vec<(MessageKind, Location, Location)>,
    pub methods: Vec<(Method, MethodLocations)>,
    pub routes: Vec<Route>,
    /// Where `transport.kind` is written (for "this transport needs ..." diagnostics).
    pub transport_at: Location,
    pub sessions: Option<crate::front::skeleton::RawSessions>,
    pub tracking: Option<crate::front::skeleton::RawTracking>,
}

/// Where a method's type names are written, for "unknown type" diagnostics.
#[derive(Debug, Clone)]
pub struct MethodLocations {
    pub name: Location,
    pub params: Option<Location>,
    pub result: Option<Location>,
}

#[derive(Deserialize)]
struct Raw {
    protocol: Spanned<String>,
    title: String,
    #[serde(default)]
    summary: String,
    transport: RawTransport,
    roles: Vec<Spanned<String>>,
    types: Spanned<String>,
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
    sessions: Option<crate::front::skeleton::RawSessions>,
    #[serde(default)]
    tracking: Option<crate::front::skeleton::RawTracking>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawGrpc {
    service: String,
    rpc: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTransport {
    kind: Spanned<String>,
    framing: Spanned<String>,
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
struct RawJsonRpc {
    methods: Vec<RawMethod>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawMethod {
    method: Spanned<String>,
    call: Spanned<String>,
    from: Spanned<String>,
    #[serde(default)]
    params: Option<Spanned<String>>,
    #[serde(default)]
    result: Option<Spanned<String>>,
    #[serde(default)]
    summary: String,
}

#[derive(Deserialize)]
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

const TRANSPORTS: &[&str] = &["websocket", "http+websocket", "jsonrpc", "grpc"];
const FRAMINGS: &[&str] = &["json-text", "content-length", "grpc"];

/// Byte span of a YAML location, for `SpecError::at`.
pub fn span_of(file: &SourceFile, loc: &Location) -> (usize, usize) {
    let span = loc.span();
    match (span.byte_offset(), span.byte_len()) {
        (Some(off), Some(len)) => (off as usize, len as usize),
        _ => {
            let line_start: usize = file
                .text
                .split_inclusive('\n')
                .take((loc.line() as usize).saturating_sub(1))
                .map(str::len)
                .sum();
            (line_start + (loc.column() as usize).saturating_sub(1), 1)
        }
    }
}

/// Reads and checks `protocol.yaml` on its own (cross-checks against types come later).
pub fn load(file: &SourceFile) -> Result<ProtocolFile, SpecErrors> {
    let raw: Raw = serde_saphyr::from_str(&file.text).map_err(|e| {
        let span = e.location().map_or((0, 0), |l| span_of(file, &l));
        SpecError::at(file, span, format!("malformed protocol.yaml: {e}"))
            .with_help("see spec/README.md for the protocol.yaml format")
    })?;
    let mut errors = SpecErrors::default();
    let err = |errors: &mut SpecErrors, loc: &Location, msg: String| {
        errors.push(SpecError::at(file, span_of(file, loc), msg));
    };
    let origin = |loc: &Location| Origin {
        file: "protocol.yaml".to_owned(),
        line: loc.line() as usize,
    };
    for (value, allowed) in [
        (&raw.transport.kind, TRANSPORTS),
        (&raw.transport.framing, FRAMINGS),
    ] {
        if !allowed.contains(&value.value.as_str()) {
            err(
                &mut errors,
                &value.referenced,
                format!("`{}` is not one of {}", value.value, allowed.join(", ")),
            );
        }
    }
    let roles: Vec<String> = raw.roles.iter().map(|r| r.value.clone()).collect();
    let check_role = |errors: &mut SpecErrors, role: &Spanned<String>| {
        if !roles.contains(&role.value) {
            err(
                errors,
                &role.referenced,
                format!(
                    "`{}` is not one of the roles ({})",
                    role.value,
                    roles.join(", ")
                ),
            );
        }
    };
    let mut channels = Vec::new();
    for c in &raw.channels {
        check_role(&mut errors, &c.from);
        check_role(&mut errors, &c.to);
        channels.push((
            Channel {
                from: c.from.value.clone(),
                to: c.to.value.clone(),
                union: c.union.value.clone(),
            },
            c.union.referenced,
        ));
    }
    let mut messages: Vec<(MessageKind, Location, Location)> = Vec::new();
    for m in &raw.messages {
        check_role(&mut errors, &m.from);
        if messages
            .iter()
            .any(|(k, _, _)| k.kind == m.kind.value && k.from == m.from.value)
        {
            err(
                &mut errors,
                &m.kind.referenced,
                format!("message kind `{}` is listed twice", m.kind.value),
            );
        }
        messages.push((
            MessageKind {
                kind: m.kind.value.clone(),
                from: m.from.value.clone(),
                type_name: m.type_name.value.clone(),
                summary: m.summary.clone(),
                origin: origin(&m.kind.referenced),
            },
            m.kind.referenced,
            m.type_name.referenced,
        ));
    }
    let mut methods: Vec<(Method, MethodLocations)> = Vec::new();
    for m in raw.jsonrpc.iter().flat_map(|j| &j.methods) {
        check_role(&mut errors, &m.from);
        let call = match m.call.value.as_str() {
            "request" => Call::Request,
            "notification" => Call::Notification,
            other => {
                err(
                    &mut errors,
                    &m.call.referenced,
                    format!("`call: {other}` must be `request` or `notification`"),
                );
                Call::Notification
            }
        };
        if call == Call::Notification
            && let Some(r) = &m.result
        {
            err(
                &mut errors,
                &r.referenced,
                "a notification has no result".to_owned(),
            );
        }
        if methods.iter().any(|(x, _)| x.name == m.method.value) {
            err(
                &mut errors,
                &m.method.referenced,
                format!("method `{}` is listed twice", m.method.value),
            );
        }
        methods.push((
            Method {
                name: m.method.value.clone(),
                call,
                from: m.from.value.clone(),
                params: m.params.as_ref().map(|p| p.value.clone()),
                result: m.result.as_ref().map(|p| p.value.clone()),
                summary: m.summary.clone(),
                origin: origin(&m.method.referenced),
            },
            MethodLocations {
                name: m.method.referenced,
                params: m.params.as_ref().map(|p| p.referenced),
                result: m.result.as_ref().map(|p| p.referenced),
            },
        ));
    }
    let mut routes = Vec::new();
    for r in raw.http.iter().flat_map(|h| &h.routes) {
        check_role(&mut errors, &r.from);
        check_role(&mut errors, &r.to);
        let body = |json: &Option<String>, text: &Option<String>| match (json, text) {
            (Some(j), _) => Body::Json(j.clone()),
            (None, Some(t)) => Body::Text(t.clone()),
            (None, None) => Body::None,
        };
        routes.push(Route {
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
        });
    }
    errors.finish(ProtocolFile {
        transport_at: raw.transport.kind.referenced,
        sessions: raw.sessions,
        tracking: raw.tracking,
        module: raw.protocol,
        title: raw.title,
        summary: raw.summary,
        transport: Transport {
            kind: raw.transport.kind.value,
            framing: raw.transport.framing.value,
            grpc: raw.grpc.map(|g| GrpcRpc {
                service: g.service,
                rpc: g.rpc,
            }),
        },
        roles,
        types_file: raw.types,
        channels,
        messages,
        methods,
        routes,
    })
}
