//! Checking `sessions:` against the protocol and lowering it into the IR.

use super::raw::{RawOwners, RawSessions};
use super::template::{self, HTTP_CODES, LOG_ROLES, WS_CODES};
use super::{Check, words};
use crate::ir::{Body, Callback, CreateRoute, Hello, Input, Owners, Sessions};

/// Lowers and checks `sessions:`; `None` (with diagnostics) when anything is missing.
pub(super) fn sessions(c: &mut Check<'_>, raw: &RawSessions) -> Option<Sessions> {
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
