//! The two sections as written, every name with its location.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::Value;
use serde_saphyr::{Location, Spanned};

pub(super) type S = Spanned<String>;

/// `sessions:` as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawSessions {
    pub(super) server: S,
    pub(super) client: S,
    pub(super) websocket: S,
    pub(super) id: S,
    pub(super) create: RawCreate,
    pub(super) hello: RawHello,
    pub(super) input: RawInput,
    pub(super) callback: RawCallback,
    pub(super) broadcast: Spanned<Value>,
    pub(super) refusal: Spanned<Value>,
    pub(super) error_body: Spanned<Value>,
    pub(super) owners: RawOwners,
    #[serde(default)]
    pub(super) words: BTreeMap<String, S>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawCreate {
    pub(super) route: S,
    pub(super) owner: S,
    pub(super) session: S,
    pub(super) reply: Spanned<Value>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawHello {
    pub(super) kind: S,
    pub(super) session: S,
    pub(super) answer: Spanned<Value>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawInput {
    pub(super) kind: S,
    pub(super) text: S,
    pub(super) forward: S,
    pub(super) payload: Spanned<Value>,
    pub(super) receipt: Spanned<Value>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawCallback {
    pub(super) route: S,
    pub(super) session: S,
    pub(super) reply: Spanned<Value>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawOwners {
    pub(super) config: S,
    pub(super) id: S,
    pub(super) forward_url: S,
    pub(super) callback_base: S,
}

/// `tracking:` as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawTracking {
    pub(super) name: S,
    pub(super) turn: RawTurn,
    pub(super) bind: RawBind,
    pub(super) complete: RawKindField,
    pub(super) states: RawStates,
    #[serde(default)]
    pub(super) resume: Vec<RawEntry>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawTurn {
    pub(super) kind: S,
    pub(super) session: S,
    pub(super) thread: S,
    pub(super) request: S,
    pub(super) text: S,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawBind {
    pub(super) kind: S,
    pub(super) session: S,
    pub(super) thread: S,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawKindField {
    pub(super) kind: S,
    pub(super) field: S,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawStates {
    #[serde(rename = "type")]
    pub(super) type_name: S,
    #[serde(default)]
    pub(super) words: BTreeMap<String, S>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawEntry {
    pub(super) from: S,
    pub(super) message: Spanned<Value>,
}

impl RawSessions {
    /// Where the section starts (its `server:` value), for section-wide diagnostics.
    pub(crate) fn server_at(&self) -> &Location {
        &self.server.referenced
    }
}

impl RawTracking {
    pub(crate) fn name_at(&self) -> &Location {
        &self.name.referenced
    }
}
