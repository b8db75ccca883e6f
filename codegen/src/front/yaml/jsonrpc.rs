//! The JSON-RPC parts of `protocol.yaml`: the framings a JSON-RPC protocol may declare, the
//! `from:` of a method (one role or a list), and the `cancel:` and `progress:` conventions.

use serde::Deserialize;
use serde_saphyr::{Location, Spanned};

use crate::ir::{Method, RpcCancel, RpcConventions, RpcProgress};

/// `from:` of a method: one role, or a list of roles (a method both sides send).
pub struct RawRoles(pub Vec<String>);

/// Read without serde's untagged buffering, which loses the YAML reader's spans.
impl<'de> Deserialize<'de> for RawRoles {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = RawRoles;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a role or a list of roles")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<RawRoles, E> {
                Ok(RawRoles(vec![v.to_owned()]))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<RawRoles, A::Error> {
                let mut roles = Vec::new();
                while let Some(r) = seq.next_element::<String>()? {
                    roles.push(r);
                }
                Ok(RawRoles(roles))
            }
        }
        d.deserialize_any(V)
    }
}

/// `jsonrpc.cancel`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawCancel {
    pub method: Spanned<String>,
    /// The params member holding the cancelled request's id.
    pub id: String,
    /// `none` (no response) or `error` (an error response with `code`).
    pub answer: Spanned<String>,
    #[serde(default)]
    pub code: Option<i64>,
}

/// `jsonrpc.progress`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawProgress {
    pub method: Spanned<String>,
    /// The progress notification's params member holding the token.
    pub token: String,
    /// Where a request's params carry the token, as dotted members (`_meta.progressToken`).
    pub request_token: String,
}

/// A diagnostic at a location of `protocol.yaml`.
pub type Report<'a> = dyn FnMut(&Location, String) + 'a;

/// Lowers `cancel:` and `progress:`, checking each names a notification of the spec that
/// every role needing it sends: every role that sends requests may cancel them, and every
/// role that is sent requests may report progress on them. Where either side sends requests
/// (a server that also asks its client), that is both; where only one does (a protocol whose server sends none),
/// the other role neither cancels nor reports, and need not send the notification.
pub fn conventions(
    cancel: Option<&RawCancel>,
    progress: Option<&RawProgress>,
    methods: &[Method],
    roles: &[String],
    report: &mut Report<'_>,
) -> RpcConventions {
    let requests = || {
        methods
            .iter()
            .filter(|m| m.call == crate::ir::Call::Request)
    };
    // The roles that send a request, and those a request is sent to (any other role).
    let senders: Vec<&String> = (roles.iter())
        .filter(|r| requests().any(|m| m.sent_by(r)))
        .collect();
    let receivers: Vec<&String> = (roles.iter())
        .filter(|r| requests().any(|m| roles.iter().any(|o| o != *r && m.sent_by(o))))
        .collect();
    let check = |method: &Spanned<String>,
                 what: &str,
                 needing: &[&String],
                 report: &mut Report<'_>| {
        let named = |m: &&Method| m.name == method.value;
        let notification =
            (methods.iter()).find(|m| named(m) && m.call == crate::ir::Call::Notification);
        let Some(m) = notification.or_else(|| methods.iter().find(named)) else {
            report(
                &method.referenced,
                format!(
                    "{what} names `{}`, which is not a method of the spec{}",
                    method.value,
                    crate::suggest::did_you_mean(
                        &method.value,
                        methods.iter().map(|m| m.name.as_str())
                    )
                ),
            );
            return;
        };
        if m.call != crate::ir::Call::Notification {
            report(
                &method.referenced,
                format!("{what} `{}` must be a notification", m.name),
            );
        }
        if let Some(missing) = needing.iter().find(|r| !m.sent_by(r)) {
            report(
                &method.referenced,
                format!(
                    "{what} `{}` must be sent by every role that {} requests (`from: [...]`); `{missing}` does not send it",
                    m.name,
                    if what.starts_with("cancel") {
                        "sends"
                    } else {
                        "is sent"
                    },
                ),
            );
        }
    };
    let cancel = cancel.map(|c| {
        check(&c.method, "cancel.method", &senders, report);
        let answer = match (c.answer.value.as_str(), c.code) {
            ("none", None) => None,
            ("error", Some(code)) => Some(code),
            ("error", None) => {
                report(
                    &c.answer.referenced,
                    "`answer: error` needs a `code:`".to_owned(),
                );
                None
            }
            ("none", Some(_)) => {
                report(
                    &c.answer.referenced,
                    "`answer: none` takes no `code:`".to_owned(),
                );
                None
            }
            (other, _) => {
                report(
                    &c.answer.referenced,
                    format!("`answer: {other}` must be `none` or `error`"),
                );
                None
            }
        };
        RpcCancel {
            method: c.method.value.clone(),
            id: c.id.clone(),
            answer,
        }
    });
    let progress = progress.map(|p| {
        check(&p.method, "progress.method", &receivers, report);
        RpcProgress {
            method: p.method.value.clone(),
            token: p.token.clone(),
            request_token: p.request_token.split('.').map(str::to_owned).collect(),
        }
    });
    RpcConventions { cancel, progress }
}
