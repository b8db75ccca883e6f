//! Checking `tracking:` against the protocol and lowering it into the IR.

use std::collections::BTreeMap;

use super::raw::RawTracking;
use super::{Check, field_path, template, words};
use crate::ir::{BindKind, KindField, Tracking, TurnKind, Ty, TypeKind};

/// Lowers and checks `tracking:`.
pub(super) fn tracking(c: &mut Check<'_>, raw: &RawTracking) -> Option<Tracking> {
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
