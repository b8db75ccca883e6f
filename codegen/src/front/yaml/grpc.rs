//! The skeleton part of `protocol.yaml`'s `grpc:` section (handshake, exchange, shutdown,
//! heartbeat, acknowledged kinds) and the kinds and events each feature gates: read with
//! their locations, checked against the catalogue, `events:` and the roles, and lowered into
//! `ir::GrpcSkeleton`. Each missing piece is a diagnostic that says what to add. Once the
//! proto is compiled, [`check_proto`] checks the named fields and events against it.

#[cfg(feature = "proto")]
use protox::prost_reflect::{FieldDescriptor, Kind, MessageDescriptor};
use serde::Deserialize;
use serde_saphyr::{Location, Spanned};

use crate::diag::span_of;
use crate::diag::{SourceFile, SpecError, SpecErrors};
use crate::front::proto::ProtoSpec;
use crate::ir::{
    Event, GrpcAck, GrpcCancel, GrpcExchange, GrpcHandshake, GrpcHeartbeat, GrpcShutdown,
    GrpcSkeleton, MessageKind, Protocol,
};

type Name = Spanned<String>;

#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields)]
pub struct RawHandshake {
    hello: Name,
    peer_id: Name,
    #[serde(default)]
    features: Option<Name>,
    accept: Name,
    #[serde(default)]
    accept_id: Option<Name>,
    refuse: Name,
    #[serde(default)]
    statuses: Option<RawStatuses>,
}

/// The gRPC statuses that end a stream, by cause; each defaults to gRPC's usual one.
#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields)]
pub struct RawStatuses {
    #[serde(default)]
    invalid: Option<Name>,
    #[serde(default)]
    taken: Option<Name>,
}

#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields)]
pub struct RawExchange {
    request: Name,
    response: Name,
    correlation: Name,
    event: Name,
    failure: Name,
    #[serde(default)]
    cancel: Option<RawCancel>,
}

#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields)]
pub struct RawCancel {
    kind: Name,
    #[serde(default)]
    reason: Option<Name>,
    event: Name,
    #[serde(default)]
    event_reason: Option<Name>,
}

#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields)]
pub struct RawShutdown {
    kind: Name,
    #[serde(default)]
    reason: Option<Name>,
}

#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields)]
pub struct RawHeartbeat {
    kind: Name,
    #[serde(default)]
    clock_ms: Option<Name>,
}

#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields)]
pub struct RawAck {
    kind: Name,
    answer: Name,
    id: Name,
    accepted: Name,
    #[serde(default)]
    reason: Option<Name>,
}

/// The skeleton keys of a `grpc:` section, as read.
pub struct RawSkeleton<'a> {
    /// Where `grpc:` is (its `service` value), for "add ..." diagnostics.
    pub at: Location,
    pub handshake: Option<&'a RawHandshake>,
    pub exchange: Option<&'a RawExchange>,
    pub shutdown: Option<&'a RawShutdown>,
    pub heartbeat: Option<&'a RawHeartbeat>,
    pub acknowledged: &'a [RawAck],
}

/// Checks names against the catalogue, the roles and `events:`.
struct Check<'a> {
    file: &'a SourceFile,
    messages: &'a [(MessageKind, Location, Location)],
    events: &'a [Event],
    errors: &'a mut SpecErrors,
}

fn value(n: &Name) -> String {
    n.value.clone()
}

fn opt(n: Option<&Name>) -> Option<String> {
    n.map(value)
}

impl Check<'_> {
    fn err(&mut self, loc: &Location, msg: String) {
        let e = SpecError::at(self.file, span_of(self.file, loc), msg).with_help(
            crate::suggest::see("\"gRPC protocols\"", crate::suggest::GRPC_DOCS),
        );
        self.errors.push(e);
    }

    /// A status name of `statuses:` (or `default` when absent), or a diagnostic.
    fn status(&mut self, n: Option<&Name>, default: &str) -> String {
        let Some(n) = n else {
            return default.to_owned();
        };
        let failures = agentwire_runtime::grpc_status::failures();
        if !failures.contains(&n.value.as_str()) {
            let hint = crate::suggest::did_you_mean(&n.value, failures.iter().copied());
            let msg = format!(
                "`{}` is not a gRPC status that can end a stream{hint}",
                n.value
            );
            self.err(&n.referenced, msg);
        }
        n.value.clone()
    }

    /// The sender of a catalogue kind, or a diagnostic.
    fn kind(&mut self, n: &Name) -> Option<String> {
        let found = self.messages.iter().find(|(m, _, _)| m.kind == n.value);
        match found {
            Some((m, _, _)) => Some(m.from.clone()),
            None => {
                let kinds = self.messages.iter().map(|(m, _, _)| m.kind.as_str());
                let hint = crate::suggest::did_you_mean(&n.value, kinds);
                let msg = format!(
                    "`{}` is not a kind of the `messages:` catalogue{hint}",
                    n.value
                );
                self.err(&n.referenced, msg);
                None
            }
        }
    }

    /// A kind that `role` must send.
    fn kind_from(&mut self, n: &Name, role: &str, what: &str) {
        if let Some(from) = self.kind(n)
            && from != role
        {
            let msg = format!(
                "{what} `{}` is sent by `{from}`; it must be a kind the `{role}` role sends",
                n.value
            );
            self.err(&n.referenced, msg);
        }
    }

    /// An event of `events:`, which must be terminal when `terminal` is set.
    fn event(&mut self, n: &Name, terminal: bool) {
        match self.events.iter().find(|e| e.name == n.value) {
            None => {
                let msg = format!(
                    "`{}` is not listed in `events:`; add it there (`- name: {}`)",
                    n.value, n.value
                );
                self.err(&n.referenced, msg);
            }
            Some(e) if terminal && !e.terminal => {
                let msg = format!(
                    "event `{}` ends a request: mark it `terminal: true` in `events:`",
                    n.value
                );
                self.err(&n.referenced, msg);
            }
            Some(_) => {}
        }
    }
}

/// Lowers the skeleton keys of `grpc:`; `None` (with a diagnostic) when a required one is
/// missing or wrong.
pub fn lower(
    file: &SourceFile,
    raw: &RawSkeleton<'_>,
    messages: &[(MessageKind, Location, Location)],
    events: &[Event],
    errors: &mut SpecErrors,
) -> Option<GrpcSkeleton> {
    let before = errors.errors.len();
    let mut cx = Check {
        file,
        messages,
        events,
        errors,
    };
    let (Some(h), Some(x)) = (raw.handshake, raw.exchange) else {
        let missing: Vec<&str> = [
            raw.handshake
                .is_none()
                .then_some("`handshake:` (hello, peer_id, accept, refuse)"),
            raw.exchange
                .is_none()
                .then_some("`exchange:` (request, response, correlation, event, failure)"),
        ]
        .into_iter()
        .flatten()
        .collect();
        let msg = format!(
            "the gRPC skeleton needs {} under `grpc:`",
            missing.join(" and ")
        );
        cx.err(&raw.at, msg);
        return None;
    };
    let client = cx.kind(&h.hello).unwrap_or_default();
    let server = cx.kind(&h.accept).unwrap_or_default();
    if client == server && !client.is_empty() {
        let msg = "the accept kind must come from the role that does not send the hello";
        cx.err(&h.accept.referenced, msg.to_owned());
    }
    cx.kind_from(&h.refuse, &server, "the refusal");
    let statuses = h.statuses.as_ref();
    let invalid_status = cx.status(
        statuses.and_then(|s| s.invalid.as_ref()),
        "INVALID_ARGUMENT",
    );
    let taken_status = cx.status(statuses.and_then(|s| s.taken.as_ref()), "ALREADY_EXISTS");
    cx.kind_from(&x.request, &server, "the request");
    cx.kind_from(&x.response, &client, "the response");
    cx.event(&x.failure, true);
    if let Some(c) = &x.cancel {
        cx.kind_from(&c.kind, &server, "the cancel");
        cx.event(&c.event, true);
    }
    if let Some(s) = raw.shutdown {
        cx.kind_from(&s.kind, &server, "the shutdown");
    }
    if let Some(b) = raw.heartbeat {
        cx.kind_from(&b.kind, &client, "the heartbeat");
    }
    for a in raw.acknowledged {
        cx.kind_from(&a.kind, &server, "an acknowledged kind");
        cx.kind_from(&a.answer, &client, "its answer");
    }
    if !events.iter().any(|e| e.terminal) {
        let msg = "the exchange needs `events:` with at least one `terminal: true` event";
        cx.err(&x.event.referenced, msg.to_owned());
    }
    if cx.errors.errors.len() > before {
        return None;
    }
    let mut skeleton = skeleton(h, x, raw, client, server);
    skeleton.handshake.invalid_status = invalid_status;
    skeleton.handshake.taken_status = taken_status;
    Some(skeleton)
}

fn skeleton(
    h: &RawHandshake,
    x: &RawExchange,
    raw: &RawSkeleton<'_>,
    client: String,
    server: String,
) -> GrpcSkeleton {
    GrpcSkeleton {
        client,
        server,
        handshake: GrpcHandshake {
            hello: value(&h.hello),
            peer_id: value(&h.peer_id),
            features: opt(h.features.as_ref()),
            accept: value(&h.accept),
            accept_id: opt(h.accept_id.as_ref()),
            refuse: value(&h.refuse),
            invalid_status: String::new(),
            taken_status: String::new(),
        },
        exchange: GrpcExchange {
            request: value(&x.request),
            response: value(&x.response),
            correlation: value(&x.correlation),
            event: value(&x.event),
            failure: value(&x.failure),
            cancel: x.cancel.as_ref().map(|c| GrpcCancel {
                kind: value(&c.kind),
                reason: opt(c.reason.as_ref()),
                event: value(&c.event),
                event_reason: opt(c.event_reason.as_ref()),
            }),
        },
        shutdown: raw.shutdown.map(|s| GrpcShutdown {
            kind: value(&s.kind),
            reason: opt(s.reason.as_ref()),
        }),
        heartbeat: raw.heartbeat.map(|b| GrpcHeartbeat {
            kind: value(&b.kind),
            clock_ms: opt(b.clock_ms.as_ref()),
        }),
        acknowledged: raw
            .acknowledged
            .iter()
            .map(|a| GrpcAck {
                kind: value(&a.kind),
                answer: value(&a.answer),
                id: value(&a.id),
                accepted: value(&a.accepted),
                reason: opt(a.reason.as_ref()),
            })
            .collect(),
    }
}

/// Checks what one feature gates: catalogue kinds and `events:` names.
pub fn check_gates(
    file: &SourceFile,
    kinds: &[Name],
    gated_events: &[Name],
    messages: &[(MessageKind, Location, Location)],
    events: &[Event],
    errors: &mut SpecErrors,
) {
    let mut cx = Check {
        file,
        messages,
        events,
        errors,
    };
    for k in kinds {
        cx.kind(k);
    }
    for e in gated_events {
        cx.event(e, false);
    }
}

#[cfg(feature = "proto")]
/// `protocol.yaml` read again for the locations of the skeleton's field and event names
/// (the IR keeps the names only); other keys are skipped.
#[derive(Deserialize)]
struct Located {
    #[serde(default)]
    grpc: Option<LocatedGrpc>,
    #[serde(default)]
    events: Vec<LocatedEvent>,
}

#[cfg(feature = "proto")]
#[derive(Deserialize)]
struct LocatedGrpc {
    service: Name,
    #[serde(default)]
    handshake: Option<RawHandshake>,
    #[serde(default)]
    exchange: Option<RawExchange>,
    #[serde(default)]
    shutdown: Option<RawShutdown>,
    #[serde(default)]
    heartbeat: Option<RawHeartbeat>,
    #[serde(default)]
    acknowledged: Vec<RawAck>,
}

#[cfg(feature = "proto")]
#[derive(Deserialize)]
struct LocatedEvent {
    name: Name,
}

#[cfg(feature = "proto")]
/// What a named field must be.
#[derive(Clone, Copy)]
enum Want {
    /// `string` or `optional string`.
    Text,
    /// `string` (not optional: the skeleton reads it as `&str`).
    Str,
    /// `repeated string`.
    Strings,
    Bool,
    Int64,
}

#[cfg(feature = "proto")]
impl Want {
    fn holds(self, f: &FieldDescriptor) -> bool {
        let list = f.is_list();
        let optional = f.supports_presence();
        match (self, f.kind()) {
            (Self::Text, Kind::String) => !list,
            (Self::Str, Kind::String) => !list && !optional,
            (Self::Strings, Kind::String) => list,
            (Self::Bool, Kind::Bool) => !list && !optional,
            (Self::Int64, Kind::Int64 | Kind::Sint64 | Kind::Sfixed64) => !list && !optional,
            _ => false,
        }
    }

    fn text(self) -> &'static str {
        match self {
            Self::Text => "a `string` (or `optional string`) field",
            Self::Str => "a `string` field",
            Self::Strings => "a `repeated string` field",
            Self::Bool => "a `bool` field",
            Self::Int64 => "an `int64` field",
        }
    }
}

#[cfg(feature = "proto")]
struct ProtoCheck<'a> {
    file: &'a SourceFile,
    p: &'a Protocol,
    proto: &'a ProtoSpec,
    errors: &'a mut SpecErrors,
}

#[cfg(feature = "proto")]
impl ProtoCheck<'_> {
    fn err(&mut self, loc: &Location, msg: String) {
        let e = SpecError::at(self.file, span_of(self.file, loc), msg).with_help(
            crate::suggest::see("\"gRPC protocols\"", crate::suggest::GRPC_DOCS),
        );
        self.errors.push(e);
    }

    fn message(&self, name: &str) -> Option<MessageDescriptor> {
        self.proto
            .pool
            .all_messages()
            .find(|m| m.name() == name && m.parent_message().is_none())
    }

    /// The message type of a catalogue kind.
    fn type_of(&self, kind: &str) -> Option<MessageDescriptor> {
        let m = self.p.messages.iter().find(|m| m.kind == kind)?;
        self.message(&m.type_name)
    }

    /// `field` of `kind`'s message must be what `want` says.
    fn field(&mut self, kind: &str, field: &Name, want: Want) {
        let Some(m) = self.type_of(kind) else { return };
        self.field_of(&m, field, want);
    }

    fn field_of(&mut self, m: &MessageDescriptor, field: &Name, want: Want) {
        match m.get_field_by_name(&field.value) {
            Some(f) if want.holds(&f) => {}
            Some(_) => {
                let msg = format!("`{}.{}` must be {}", m.name(), field.value, want.text());
                self.err(&field.referenced, msg);
            }
            None => {
                let msg = format!("`{}` has no field `{}`", m.name(), field.value);
                self.err(&field.referenced, msg);
            }
        }
    }

    /// Every channel union has one oneof holding its kinds.
    fn unions(&mut self, at: &Location) {
        for c in &self.p.channels {
            let ok = self
                .message(&c.union)
                .is_some_and(|m| m.oneofs().any(|o| !o.is_synthetic()));
            if !ok {
                let msg = format!(
                    "the gRPC skeleton needs `{}` to be a message with a oneof of its kinds",
                    c.union
                );
                self.err(at, msg);
            }
        }
    }

    /// The response's event oneof and `events:` list the same cases.
    fn events(&mut self, x: &RawExchange, events: &[LocatedEvent]) {
        let Some(m) = self.type_of(&x.response.value) else {
            return;
        };
        let Some(oneof) = m.oneofs().find(|o| o.name() == x.event.value) else {
            let msg = format!("`{}` has no oneof `{}`", m.name(), x.event.value);
            self.err(&x.event.referenced, msg);
            return;
        };
        let cases: Vec<FieldDescriptor> = oneof.fields().collect();
        for e in events {
            if !cases.iter().any(|c| c.name() == e.name.value) {
                let msg = format!(
                    "event `{}` is not a case of `{}.{}`",
                    e.name.value,
                    m.name(),
                    oneof.name()
                );
                self.err(&e.name.referenced, msg);
            }
        }
        for c in &cases {
            if !events.iter().any(|e| e.name.value == c.name()) {
                let msg = format!(
                    "case `{}` of `{}.{}` is missing from `events:`",
                    c.name(),
                    m.name(),
                    oneof.name()
                );
                self.err(&x.event.referenced, msg);
            }
        }
        let case = |name: &str| cases.iter().find(|c| c.name() == name).cloned();
        if let Some(f) = case(&x.failure.value)
            && !Want::Text.holds(&f)
        {
            let msg = format!(
                "the failure event `{}` must be a `string` case",
                x.failure.value
            );
            self.err(&x.failure.referenced, msg);
        }
        let Some(c) = &x.cancel else { return };
        let Some(f) = case(&c.event.value) else {
            return;
        };
        match (&c.event_reason, f.kind()) {
            (Some(reason), Kind::Message(em)) => self.field_of(&em, reason, Want::Text),
            (Some(reason), _) => {
                let msg = format!(
                    "`event_reason` needs the `{}` case to be a message",
                    c.event.value
                );
                self.err(&reason.referenced, msg);
            }
            (None, _) if !Want::Text.holds(&f) => {
                let msg = format!(
                    "the `{}` case is not a string: name its reason field with `event_reason:`",
                    c.event.value
                );
                self.err(&c.event.referenced, msg);
            }
            (None, _) => {}
        }
    }
}

#[cfg(feature = "proto")]
/// Checks the skeleton's field and event names against the compiled proto.
pub fn check_proto(file: &SourceFile, p: &Protocol, proto: &ProtoSpec, errors: &mut SpecErrors) {
    let Ok(located) = serde_saphyr::from_str::<Located>(&file.text) else {
        return;
    };
    let (Some(g), Some(_)) = (
        &located.grpc,
        p.transport.grpc.as_ref().and_then(|g| g.skeleton.as_ref()),
    ) else {
        return;
    };
    let mut cx = ProtoCheck {
        file,
        p,
        proto,
        errors,
    };
    cx.unions(&g.service.referenced);
    if let Some(h) = &g.handshake {
        cx.field(&h.hello.value, &h.peer_id, Want::Str);
        if let Some(f) = &h.features {
            cx.field(&h.hello.value, f, Want::Strings);
        }
        if let Some(f) = &h.accept_id {
            cx.field(&h.accept.value, f, Want::Str);
        }
    }
    if let Some(x) = &g.exchange {
        cx.field(&x.request.value, &x.correlation, Want::Str);
        cx.field(&x.response.value, &x.correlation, Want::Str);
        if let Some(c) = &x.cancel {
            cx.field(&c.kind.value, &x.correlation, Want::Str);
            if let Some(r) = &c.reason {
                cx.field(&c.kind.value, r, Want::Text);
            }
        }
        cx.events(x, &located.events);
    }
    if let Some(s) = &g.shutdown
        && let Some(r) = &s.reason
    {
        cx.field(&s.kind.value, r, Want::Text);
    }
    if let Some(b) = &g.heartbeat
        && let Some(c) = &b.clock_ms
    {
        cx.field(&b.kind.value, c, Want::Int64);
    }
    for a in &g.acknowledged {
        cx.field(&a.kind.value, &a.id, Want::Str);
        cx.field(&a.answer.value, &a.id, Want::Str);
        cx.field(&a.answer.value, &a.accepted, Want::Bool);
        if let Some(r) = &a.reason {
            cx.field(&a.answer.value, r, Want::Text);
        }
    }
}

/// Without the `proto` feature no `ProtoSpec` exists: a `.proto` spec stops at loading.
#[cfg(not(feature = "proto"))]
pub fn check_proto(_: &SourceFile, _: &Protocol, proto: &ProtoSpec, _: &mut SpecErrors) {
    proto.unreachable()
}
