//! The `sessions:` and `tracking:` sections of `protocol.yaml`: read with their locations
//! (`raw`), then checked against the roles, catalogue, routes and types (`sessions`,
//! `tracking`, `template`), so that a skeleton emitter never has to guess a name. Every
//! problem is a diagnostic at its `file:line:col`.

use std::collections::BTreeMap;

use serde_saphyr::Location;

use crate::diag::span_of;
use crate::diag::{SourceFile, SpecError, SpecErrors};
use crate::front::protocol::ProtocolFile;
use crate::ir::{Body, Protocol, Route, Ty, TypeKind};

pub mod raw;
mod sessions;
mod template;
mod tracking;

pub use raw::{RawSessions, RawTracking};
pub use template::{HTTP_CODES, LOG_ROLES, WS_CODES};

use raw::S;

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
                "`{}` is not one of the roles ({}){}",
                r.value,
                self.p.roles.join(", "),
                crate::suggest::did_you_mean(&r.value, self.p.roles.iter().map(String::as_str))
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
            // A oneof's case is a key of its own beside the message's fields.
            TypeKind::Oneof { cases, .. } => {
                cases.iter().find(|f| f.name == seg).map(|f| f.ty.clone())
            }
            // Untagged members (`string | number`) carry no keys a template could name.
            TypeKind::Enum(_) | TypeKind::Untagged(_) => None,
        },
        _ => None,
    }
}

fn words(raw: &BTreeMap<String, S>) -> BTreeMap<String, String> {
    raw.iter()
        .map(|(k, v)| (k.clone(), v.value.clone()))
        .collect()
}

/// Lowers both sections into `p`. Which kinds read them, and that an `http+websocket`
/// protocol has `sessions:`, is checked with `protocol.yaml` (`crate::transport`).
pub fn lower(file: &SourceFile, pf: &ProtocolFile, p: &mut Protocol, errors: &mut SpecErrors) {
    let mut c = Check { file, p, errors };
    let sessions = pf
        .sessions
        .as_ref()
        .and_then(|raw| sessions::sessions(&mut c, raw));
    let tracking = pf
        .tracking
        .as_ref()
        .and_then(|raw| tracking::tracking(&mut c, raw));
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

    #[test]
    fn tracking_names_are_checked_too() {
        let errs = errors_of("helix_zed", |y| {
            y.replace(
                "thread: data.acp_thread_id     #",
                "thread: data.message     #",
            )
            .replace("type: InteractionState", "type: ChatMessage")
            .replace(
                "- from: zed\n      message: {event_type: context_created",
                "- from: zed\n      message: {event_type: context_made",
            )
        });
        let all = errs.join("\n");
        assert!(all.contains("`data.message` must be nullable"), "{all}");
        assert!(all.contains("`ChatMessage` must be an enum"), "{all}");
        assert!(all.contains("`event_type` must be one of"), "{all}");
    }
}
