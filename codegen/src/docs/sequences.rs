//! Sequence listings (`client → server: user_input (note)`) replayed through the protocol's
//! machines at the level of message kinds: guards and checks need field values a listing does
//! not carry, so every transition whose kind matches is taken as possible. A step no machine
//! can take from any state it may be in is a finding.

use std::collections::BTreeSet;

use super::Finding;
use super::markdown::Block;
use crate::ir::{Machine, Protocol};

/// One parsed step: sender, receiver, kind.
fn step(line: &str) -> Option<(&str, &str, &str)> {
    let (from, rest) = line
        .trim()
        .split_once('→')
        .or_else(|| line.trim().split_once("->"))?;
    let (to, rest) = rest.split_once(':')?;
    let kind = rest.split_whitespace().next()?;
    let ok = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_alphanumeric() || c == '_');
    let (from, to) = (from.trim(), to.trim());
    (ok(from) && ok(to)).then_some((from, to, kind))
}

/// Whether a text block is a sequence listing: its first non-empty line is a step.
pub fn is_listing(text: &str) -> bool {
    text.lines()
        .find(|l| !l.trim().is_empty())
        .is_some_and(|l| step(l).is_some())
}

/// Whether `m` sees messages of `role.kind`: `Some(true)` always, `Some(false)` only when the
/// message carries the machine's key (a listing cannot tell), `None` never.
fn tracks(p: &Protocol, m: &Machine, role: &str, kind: &str) -> Option<bool> {
    let matches =
        |r: &crate::ir::KindRef| r.role == role && r.kind.as_deref().is_none_or(|k| k == kind);
    match &m.key {
        None => Some(true),
        Some(rules) => {
            let rules: Vec<_> = rules.iter().filter(|r| matches(&r.on)).collect();
            if rules.is_empty() {
                None
            } else {
                Some(
                    rules
                        .iter()
                        .any(|r| r.guard.is_empty() && always_present(p, role, kind, &r.field)),
                )
            }
        }
    }
}

/// Whether every message of `role.kind` has `path` (through required fields only).
fn always_present(p: &Protocol, role: &str, kind: &str, path: &str) -> bool {
    use crate::ir::{Ty, TypeKind};
    let segments: Vec<&str> = path.split('.').collect();
    // Where the path starts: the union member of a channel, a JSON-RPC method's params, or an
    // HTTP route's path parameters and body.
    let (mut ty, rest): (Ty, &[&str]) =
        if let Some(m) = p.methods.iter().find(|m| m.name == kind && m.from == role) {
            match (segments.as_slice(), &m.params) {
                (["id"], _) => return m.call == crate::ir::Call::Request,
                (["params", rest @ ..], Some(t)) => (Ty::Named(t.clone()), rest),
                _ => return false,
            }
        } else if kind == "response" && !p.methods.is_empty() {
            return segments == ["id"];
        } else if let Some(r) = p.routes.iter().find(|r| r.name == kind && r.from == role) {
            match (segments.as_slice(), &r.body) {
                (["path", _], _) | (["status"], _) => return segments[0] == "path",
                (["body", rest @ ..], crate::ir::Body::Json(t)) => (Ty::Named(t.clone()), rest),
                _ => return false,
            }
        } else if let Some(m) = p.messages.iter().find(|m| m.kind == kind && m.from == role) {
            (Ty::Named(m.type_name.clone()), segments.as_slice())
        } else {
            return false;
        };
    for seg in rest {
        let Ty::Named(name) = &ty else { return false };
        match p.types.get(name).map(|t| &t.kind) {
            Some(TypeKind::Struct(fields)) => match fields.iter().find(|f| f.name == *seg) {
                Some(f) if !f.optional => ty = f.ty.clone(),
                _ => return false,
            },
            Some(TypeKind::Alias { target, .. }) => {
                ty = target.clone();
                if let Ty::Named(_) = ty {
                    continue;
                }
                return false;
            }
            _ => return false,
        }
    }
    !matches!(ty, Ty::Nullable(_))
}

/// Replays one listing; returns a finding per step no machine allows.
pub fn replay(p: &Protocol, block: &Block) -> Vec<Finding> {
    let mut findings = Vec::new();
    let mut possible: Vec<BTreeSet<String>> = p
        .machines
        .iter()
        .map(|m| BTreeSet::from([m.initial.clone()]))
        .collect();
    for (i, line) in block.text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let line_no = block.line + i;
        let Some((from, to, kind)) = step(line) else {
            findings.push(Finding {
                line: line_no,
                message: format!(
                    "sequence step differs: doc says `{}`, spec expects `sender → receiver: kind`",
                    line.trim()
                ),
            });
            continue;
        };
        for (role, what) in [(from, "sender"), (to, "receiver")] {
            if !p.roles.iter().any(|r| r == role) {
                findings.push(Finding {
                    line: line_no,
                    message: format!(
                        "sequence {what} differs: doc says `{role}`, spec roles are {}",
                        p.roles.join(", ")
                    ),
                });
            }
        }
        for (m, states) in p.machines.iter().zip(possible.iter_mut()) {
            let Some(certain) = tracks(p, m, from, kind) else {
                continue;
            };
            let mut next = BTreeSet::new();
            for s in states.iter() {
                for t in &m.transitions {
                    let from_ok = t.from.as_ref().is_none_or(|f| f.contains(s));
                    let kind_ok =
                        t.on.role == from && t.on.kind.as_deref().is_none_or(|k| k == kind);
                    if from_ok && kind_ok {
                        let target = t.to.clone().unwrap_or_else(|| s.clone());
                        // A final state drops the instance: the next message starts a new one.
                        let target = if m.finals.contains(&target) {
                            m.initial.clone()
                        } else {
                            target
                        };
                        next.insert(target);
                    }
                }
            }
            if next.is_empty() && !certain {
                // The message may not carry this machine's key at all.
                continue;
            }
            if next.is_empty() {
                let allowed: BTreeSet<String> = m
                    .transitions
                    .iter()
                    .filter(|t| {
                        t.from
                            .as_ref()
                            .is_none_or(|f| f.iter().any(|x| states.contains(x)))
                    })
                    .map(|t| t.on.to_string())
                    .collect();
                findings.push(Finding {
                    line: line_no,
                    message: format!(
                        "sequence step differs: doc says `{from}.{kind}`, spec (machine.yaml:{}, machine `{}` in state {}) allows {}",
                        m.origin.line,
                        m.name,
                        states.iter().cloned().collect::<Vec<_>>().join(" or "),
                        allowed.into_iter().collect::<Vec<_>>().join(", ")
                    ),
                });
            } else {
                *states = next;
            }
        }
    }
    findings
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_parse() {
        assert_eq!(
            step("client → server: user_input"),
            Some(("client", "server", "user_input"))
        );
        assert_eq!(
            step("server → client: loading_state (loading: true)"),
            Some(("server", "client", "loading_state"))
        );
        assert_eq!(
            step("client -> server: chat/prompt"),
            Some(("client", "server", "chat/prompt"))
        );
        assert_eq!(step("just text"), None);
    }
}
