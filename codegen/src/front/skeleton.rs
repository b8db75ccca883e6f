//! The `sessions:` and `tracking:` sections of `protocol.yaml`: read with their locations,
//! then checked against the roles, catalogue, routes and types, so that a skeleton emitter
//! never has to guess a name. Every problem is a diagnostic at its `file:line:col`.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::Value;
use serde_saphyr::{Location, Spanned};

use crate::diag::{SourceFile, SpecError, SpecErrors};
use crate::front::protocol::{ProtocolFile, span_of};
use crate::ir::{
    BindKind, Body, Callback, CreateRoute, Hello, Input, KindField, Owners, Protocol, Route,
    Sessions, Tracking, TurnKind, Ty, TypeKind,
};

mod template;

pub use template::{HTTP_CODES, LOG_ROLES, WS_CODES};

type S = Spanned<String>;

/// `sessions:` as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawSessions {
    server: S,
    client: S,
    websocket: S,
    id: S,
    create: RawCreate,
    hello: RawHello,
    input: RawInput,
    callback: RawCallback,
    broadcast: Spanned<Value>,
    refusal: Spanned<Value>,
    error_body: Spanned<Value>,
    owners: RawOwners,
    #[serde(default)]
    words: BTreeMap<String, S>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCreate {
    route: S,
    owner: S,
    session: S,
    reply: Spanned<Value>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawHello {
    kind: S,
    session: S,
    answer: Spanned<Value>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawInput {
    kind: S,
    text: S,
    forward: S,
    payload: Spanned<Value>,
    receipt: Spanned<Value>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCallback {
    route: S,
    session: S,
    reply: Spanned<Value>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawOwners {
    config: S,
    id: S,
    forward_url: S,
    callback_base: S,
}

/// `tracking:` as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawTracking {
    name: S,
    turn: RawTurn,
    bind: RawBind,
    complete: RawKindField,
    states: RawStates,
    #[serde(default)]
    resume: Vec<RawEntry>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTurn {
    kind: S,
    session: S,
    thread: S,
    request: S,
    text: S,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawBind {
    kind: S,
    session: S,
    thread: S,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawKindField {
    kind: S,
    field: S,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawStates {
    #[serde(rename = "type")]
    type_name: S,
    #[serde(default)]
    words: BTreeMap<String, S>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawEntry {
    from: S,
    message: Spanned<Value>,
}

/// Collects diagnostics against one file.
pub(crate) struct Check<'a> {
    pub file: &'a SourceFile,
    pub p: &'a Protocol,
    pub errors: &'a mut SpecErrors,
}

impl Check<'_> {
    pub fn at(&mut self, loc: &Location, msg: String) {
        self.errors
            .push(SpecError::at(self.file, span_of(self.file, loc), msg));
    }

    fn role(&mut self, r: &S) -> String {
        if !self.p.roles.contains(&r.value) {
            let msg = format!(
                "`{}` is not one of the roles ({})",
                r.value,
                self.p.roles.join(", ")
            );
            self.at(&r.referenced, msg);
        }
        r.value.clone()
    }

    fn route(&mut self, r: &S) -> Option<Route> {
        let found = self.p.routes.iter().find(|x| x.name == r.value).cloned();
        if found.is_none() {
            let msg = format!(
                "no route is named `{}`: add it under `http.routes`",
                r.value
            );
            self.at(&r.referenced, msg);
        }
        found
    }

    /// The member type of catalogue kind `kind` sent by `from`.
    fn kind(&mut self, from: &str, k: &S) -> Option<String> {
        let found = self
            .p
            .messages
            .iter()
            .find(|m| m.from == from && m.kind == k.value);
        if found.is_none() {
            let msg = format!("`{from}` sends no kind `{}`: add it to `messages`", k.value);
            self.at(&k.referenced, msg);
        }
        found.map(|m| m.type_name.clone())
    }

    /// Checks that `path` (dotted JSON keys) leads somewhere in `ty`.
    fn field(&mut self, ty: &str, path: &S) -> Option<Ty> {
        let found = field_path(self.p, ty, &path.value);
        if found.is_none() {
            let msg = format!("`{ty}` has no field `{}`", path.value);
            self.at(&path.referenced, msg);
        }
        found
    }

    fn status(&mut self, route: &Route, loc: &Location, statuses: &[(u16, &str)]) -> bool {
        let mut ok = true;
        for (status, when) in statuses {
            if !route.responses.iter().any(|r| r.status == *status) {
                let msg = format!(
                    "route `{}` must list a response with status {status} (the engine answers it {when})",
                    route.name
                );
                self.at(loc, msg);
                ok = false;
            }
        }
        ok
    }

    fn json_response(&mut self, route: &Route, status: u16, loc: &Location) -> Option<String> {
        let found = route
            .responses
            .iter()
            .find(|r| r.status == status)
            .and_then(|r| match &r.body {
                Body::Json(t) => Some(t.clone()),
                _ => None,
            });
        if found.is_none() {
            let msg = format!(
                "route `{}` needs a JSON body for status {status}",
                route.name
            );
            self.at(loc, msg);
        }
        found
    }
}

/// The type `path` (dotted JSON keys) reaches from `ty`, through structs, aliases and, for
/// unions, any member that has it.
pub fn field_path(p: &Protocol, ty: &str, path: &str) -> Option<Ty> {
    let mut cur = Ty::Named(ty.to_owned());
    for seg in path.split('.') {
        cur = step(p, &cur, seg)?;
    }
    Some(cur)
}

fn step(p: &Protocol, ty: &Ty, seg: &str) -> Option<Ty> {
    match ty {
        Ty::Nullable(inner) => step(p, inner, seg),
        Ty::Named(n) => match &p.types.get(n)?.kind {
            TypeKind::Struct(fields) => fields.iter().find(|f| f.name == seg).map(|f| f.ty.clone()),
            TypeKind::Alias { target, .. } => step(p, target, seg),
            TypeKind::Union { tag, variants } => {
                if seg == tag {
                    return Some(Ty::String);
                }
                variants
                    .iter()
                    .find_map(|v| step(p, &Ty::Named(v.type_name.clone()), seg))
            }
            TypeKind::Enum(_) => None,
        },
        _ => None,
    }
}

fn words(raw: &BTreeMap<String, S>) -> BTreeMap<String, String> {
    raw.iter()
        .map(|(k, v)| (k.clone(), v.value.clone()))
        .collect()
}

/// Lowers and checks `sessions:`; `None` (with diagnostics) when anything is missing.
pub(crate) fn sessions(c: &mut Check<'_>, raw: &RawSessions) -> Option<Sessions> {
    let server = c.role(&raw.server);
    let client = c.role(&raw.client);
    if !raw.websocket.value.starts_with('/') {
        let msg = format!(
            "`websocket: {}` must be a path starting with `/`",
            raw.websocket.value
        );
        c.at(&raw.websocket.referenced, msg);
    }
    if !c.p.types.contains_key(&raw.id.value) {
        let msg = format!("unknown type `{}` (the session id's type)", raw.id.value);
        c.at(&raw.id.referenced, msg);
    }
    let words = words(&raw.words);
    for (k, v) in &raw.words {
        if !WS_CODES.contains(&k.as_str())
            && !HTTP_CODES.contains(&k.as_str())
            && !LOG_ROLES.contains(&k.as_str())
        {
            let msg = format!(
                "`{k}` is not an engine word (error codes: {}; {}; log roles: {})",
                WS_CODES.join(", "),
                HTTP_CODES.join(", "),
                LOG_ROLES.join(", ")
            );
            c.at(&v.referenced, msg);
        }
    }
    let t = template::Templates { words: &words };
    let create = create(c, &t, raw, &client, &server);
    let (hello, input) = (
        hello(c, &t, raw, &client, &server),
        input(c, &t, raw, &client, &server),
    );
    let callback = callback(c, &t, raw, &server);
    let outbound = c.p.channel_from(&server).map(|ch| ch.union.clone());
    let Some(outbound) = outbound else {
        let msg = format!("`{server}` needs a channel (its WebSocket union) under `channels`");
        c.at(&raw.server.referenced, msg);
        return None;
    };
    t.check(
        c,
        &raw.broadcast,
        &outbound,
        &["$session", "$role", "$text", "$created_at"],
    );
    t.check(c, &raw.refusal, &outbound, &["$code:ws", "$message"]);
    let error_type = create.as_ref().map(|(_, e)| e.clone());
    if let Some(e) = &error_type {
        t.check(c, &raw.error_body, e, &["$code:http", "$message"]);
    }
    let owners = owners(c, &raw.owners);
    Some(Sessions {
        server,
        client,
        websocket: raw.websocket.value.clone(),
        id_type: raw.id.value.clone(),
        create: create?.0,
        hello: hello?,
        input: input?,
        callback: callback?,
        broadcast: raw.broadcast.value.clone(),
        refusal: raw.refusal.value.clone(),
        error_body: raw.error_body.value.clone(),
        owners: owners?,
        words,
    })
}

/// The create route and the HTTP error body type (its 400 answer).
fn create(
    c: &mut Check<'_>,
    t: &template::Templates<'_>,
    raw: &RawSessions,
    client: &str,
    server: &str,
) -> Option<(CreateRoute, String)> {
    let r = &raw.create;
    let route = c.route(&r.route)?;
    if route.from != client || route.to != server {
        let msg = format!(
            "route `{}` must go from `{client}` to `{server}`",
            route.name
        );
        c.at(&r.route.referenced, msg);
    }
    let statuses = [
        (201, "when it creates the session"),
        (200, "on attach and revival"),
        (400, "for a bad body or id"),
        (404, "for an unknown owner"),
        (409, "when the session belongs to another owner"),
    ];
    c.status(&route, &r.route.referenced, &statuses);
    let Body::Json(body) = &route.body else {
        c.at(
            &r.route.referenced,
            format!("route `{}` needs a JSON body", route.name),
        );
        return None;
    };
    c.field(body, &r.owner);
    c.field(body, &r.session);
    let reply = c.json_response(&route, 201, &r.route.referenced)?;
    t.check(c, &r.reply, &reply, &["$session", "$owner", "$created_at"]);
    let error = c.json_response(&route, 400, &r.route.referenced)?;
    Some((
        CreateRoute {
            route: route.name,
            owner: r.owner.value.clone(),
            session: r.session.value.clone(),
            reply: r.reply.value.clone(),
        },
        error,
    ))
}

fn hello(
    c: &mut Check<'_>,
    t: &template::Templates<'_>,
    raw: &RawSessions,
    client: &str,
    server: &str,
) -> Option<Hello> {
    let h = &raw.hello;
    let ty = c.kind(client, &h.kind)?;
    c.field(&ty, &h.session)?;
    let outbound = c.p.channel_from(server)?.union.clone();
    t.check(c, &h.answer, &outbound, &["$session", "$owner"]);
    Some(Hello {
        kind: h.kind.value.clone(),
        session: h.session.value.clone(),
        answer: h.answer.value.clone(),
    })
}

fn input(
    c: &mut Check<'_>,
    t: &template::Templates<'_>,
    raw: &RawSessions,
    client: &str,
    server: &str,
) -> Option<Input> {
    let i = &raw.input;
    let ty = c.kind(client, &i.kind)?;
    c.field(&ty, &i.text)?;
    let route = c.route(&i.forward)?;
    if route.from != server || route.to == server {
        let msg = format!(
            "route `{}` must go from `{server}` to another role",
            route.name
        );
        c.at(&i.forward.referenced, msg);
    }
    let Body::Json(payload) = &route.body else {
        c.at(
            &i.forward.referenced,
            format!("route `{}` needs a JSON body", route.name),
        );
        return None;
    };
    let allowed = [
        "$session",
        "$owner",
        "$callback_url",
        "$text",
        "$created_at",
    ];
    t.check(c, &i.payload, payload, &allowed);
    if let Some(ok) = route
        .responses
        .iter()
        .find(|r| (200..300).contains(&r.status))
    {
        match &ok.body {
            Body::Json(ok) => t.check(c, &i.receipt, ok, &[]),
            _ => c.at(
                &i.forward.referenced,
                format!(
                    "route `{}` needs a JSON body for its 2xx answer",
                    route.name
                ),
            ),
        }
    } else {
        c.at(
            &i.forward.referenced,
            format!("route `{}` must list a 2xx response", route.name),
        );
    }
    Some(Input {
        kind: i.kind.value.clone(),
        text: i.text.value.clone(),
        forward: route.name,
        payload: i.payload.value.clone(),
        receipt: i.receipt.value.clone(),
    })
}

fn callback(
    c: &mut Check<'_>,
    t: &template::Templates<'_>,
    raw: &RawSessions,
    server: &str,
) -> Option<Callback> {
    let cb = &raw.callback;
    let route = c.route(&cb.route)?;
    if route.to != server {
        let msg = format!("route `{}` must go to `{server}`", route.name);
        c.at(&cb.route.referenced, msg);
    }
    if !route
        .path
        .split('/')
        .any(|s| s.strip_prefix(':') == Some(cb.session.value.as_str()))
    {
        let msg = format!(
            "route `{}` has no path parameter `:{}`",
            route.name, cb.session.value
        );
        c.at(&cb.session.referenced, msg);
    }
    let statuses = [
        (200, "when the reply is appended"),
        (400, "for a bad id or a blank body"),
        (404, "for an unknown or deleted session"),
        (413, "for a body over the size limit"),
    ];
    c.status(&route, &cb.route.referenced, &statuses);
    let reply = c.json_response(&route, 200, &cb.route.referenced)?;
    t.check(c, &cb.reply, &reply, &[]);
    Some(Callback {
        route: route.name,
        session: cb.session.value.clone(),
        reply: cb.reply.value.clone(),
    })
}

fn owners(c: &mut Check<'_>, raw: &RawOwners) -> Option<Owners> {
    if !c.p.types.contains_key(&raw.config.value) {
        let msg = format!(
            "unknown type `{}` (the owner definitions)",
            raw.config.value
        );
        c.at(&raw.config.referenced, msg);
        return None;
    }
    let config = &raw.config.value;
    c.field(config, &raw.id)?;
    c.field(config, &raw.forward_url)?;
    c.field(config, &raw.callback_base)?;
    Some(Owners {
        config: config.clone(),
        id: raw.id.value.clone(),
        forward_url: raw.forward_url.value.clone(),
        callback_base: raw.callback_base.value.clone(),
    })
}

/// Lowers and checks `tracking:`.
pub(crate) fn tracking(c: &mut Check<'_>, raw: &RawTracking) -> Option<Tracking> {
    let (Some(up), Some(down)) = (c.p.roles.first().cloned(), c.p.roles.get(1).cloned()) else {
        c.at(
            &raw.name.referenced,
            "`tracking` needs two roles, the client first".to_owned(),
        );
        return None;
    };
    let t = &raw.turn;
    let turn_ty = c.kind(&up, &t.kind)?;
    for f in [&t.session, &t.thread, &t.request, &t.text] {
        c.field(&turn_ty, f)?;
    }
    if !matches!(
        field_path(c.p, &turn_ty, &t.thread.value),
        Some(Ty::Nullable(_))
    ) {
        let msg = format!(
            "`{}` must be nullable: it is null until the session has a thread",
            t.thread.value
        );
        c.at(&t.thread.referenced, msg);
    }
    let b = &raw.bind;
    let bind_ty = c.kind(&down, &b.kind)?;
    c.field(&bind_ty, &b.session)?;
    c.field(&bind_ty, &b.thread)?;
    let done = &raw.complete;
    let done_ty = c.kind(&down, &done.kind)?;
    c.field(&done_ty, &done.field)?;
    let states = words(&raw.states.words);
    let st = &raw.states.type_name;
    match c.p.types.get(&st.value).map(|d| &d.kind) {
        Some(TypeKind::Enum(values)) => {
            for w in ["waiting", "complete", "error"] {
                let v = states.get(w).map_or(w, String::as_str);
                if !values.iter().any(|x| x == v) {
                    let msg = format!(
                        "`{}` has no value `{v}` (the engine's `{w}` state)",
                        st.value
                    );
                    c.at(&st.referenced, msg);
                }
            }
        }
        _ => {
            let msg = format!("`{}` must be an enum of string literals", st.value);
            c.at(&st.referenced, msg);
        }
    }
    let mut resume = Vec::new();
    for e in &raw.resume {
        let from = c.role(&e.from);
        if let Some(ch) = c.p.channel_from(&from).map(|ch| ch.union.clone()) {
            template::Templates {
                words: &BTreeMap::new(),
            }
            .check(c, &e.message, &ch, &["$session", "$thread"]);
        }
        resume.push((from, e.message.value.clone()));
    }
    Some(Tracking {
        name: raw.name.value.clone(),
        turn: TurnKind {
            kind: t.kind.value.clone(),
            session: t.session.value.clone(),
            thread: t.thread.value.clone(),
            request: t.request.value.clone(),
            text: t.text.value.clone(),
        },
        bind: BindKind {
            kind: b.kind.value.clone(),
            session: b.session.value.clone(),
            thread: b.thread.value.clone(),
        },
        complete: KindField {
            kind: done.kind.value.clone(),
            field: done.field.value.clone(),
        },
        states_type: st.value.clone(),
        states,
        resume,
    })
}

/// Checks and lowers both sections into `p`. An `http+websocket` protocol must have
/// `sessions:`; `tracking:` belongs to `websocket` protocols.
pub fn lower(file: &SourceFile, pf: &ProtocolFile, p: &mut Protocol, errors: &mut SpecErrors) {
    let mut c = Check { file, p, errors };
    let kind = c.p.transport.kind.clone();
    let sessions = match (&pf.sessions, kind.as_str()) {
        (Some(raw), "http+websocket") => sessions(&mut c, raw),
        (None, "http+websocket") => {
            let msg = "an `http+websocket` protocol needs a `sessions:` section: the roles, \
                       routes, kinds and message templates its session engine uses \
                       (spec/README.md, \"Session skeletons\")";
            c.at(&pf.transport_at, msg.to_owned());
            None
        }
        (Some(raw), _) => {
            let msg = format!("`sessions:` applies to `http+websocket` protocols, not `{kind}`");
            c.at(&raw.server.referenced, msg);
            None
        }
        (None, _) => None,
    };
    let tracking = match &pf.tracking {
        Some(raw) if kind == "websocket" => tracking(&mut c, raw),
        Some(raw) => {
            let msg = format!("`tracking:` applies to `websocket` protocols, not `{kind}`");
            c.at(&raw.name.referenced, msg);
            None
        }
        None => None,
    };
    p.sessions = sessions;
    p.tracking = tracking;
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use crate::front::load::load_spec;

    fn spec_dir(module: &str) -> std::path::PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../spec")
            .join(module)
    }

    /// A copy of a built-in spec with `edit` applied to its protocol.yaml.
    fn errors_of(module: &str, edit: impl Fn(String) -> String) -> Vec<String> {
        static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let root = std::env::temp_dir().join(format!("aw-skel-{}-{n}", std::process::id()));
        let to = root.join(module);
        std::fs::create_dir_all(&to).unwrap();
        for e in std::fs::read_dir(spec_dir(module)).unwrap() {
            let e = e.unwrap();
            std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
        let yaml = std::fs::read_to_string(to.join("protocol.yaml")).unwrap();
        std::fs::write(to.join("protocol.yaml"), edit(yaml)).unwrap();
        let out = match load_spec(&to) {
            Ok(_) => Vec::new(),
            Err(e) => e.errors.iter().map(|e| e.one_line()).collect(),
        };
        let _ = std::fs::remove_dir_all(&root);
        out
    }

    #[test]
    fn the_built_in_sections_load() {
        let p = load_spec(&spec_dir("external_agents")).unwrap().protocol;
        let s = p.sessions.expect("sessions");
        assert_eq!(
            (s.server.as_str(), s.websocket.as_str()),
            ("agent_server", "/ws")
        );
        let p = load_spec(&spec_dir("helix_zed")).unwrap().protocol;
        assert!(p.tracking.is_some());
    }

    #[test]
    fn a_missing_section_says_what_to_add() {
        let errs = errors_of("external_agents", |y| {
            y.split("\nsessions:").next().unwrap().to_owned()
        });
        assert!(
            errs.iter()
                .any(|e| e.contains("needs a `sessions:` section")),
            "{errs:?}"
        );
    }

    #[test]
    fn wrong_names_are_reported_where_written() {
        let errs = errors_of("external_agents", |y| {
            y.replace(
                "kind: user_message\n    text: text",
                "kind: user_msg\n    text: text",
            )
            .replace("role: $role", "role: $rol")
            .replace(
                "session_owner_mismatch: session_agent_mismatch",
                "session_owner_mismatch: mismatch",
            )
        });
        let all = errs.join("\n");
        assert!(all.contains("`web_ui` sends no kind `user_msg`"), "{all}");
        assert!(all.contains("`$rol` is not available here"), "{all}");
        assert!(
            all.contains("the engine's `session_owner_mismatch` is `mismatch`"),
            "{all}"
        );
        assert!(errs.iter().all(|e| e.contains("protocol.yaml:")), "{all}");
    }
}
