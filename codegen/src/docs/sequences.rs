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
    // Role names as people write them: `client`, `Client`, `External System`, `web-ui`.
    let ok = |s: &str| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_alphanumeric() || matches!(c, '_' | ' ' | '-'))
    };
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
/// message carries the machine's key or a link to an instance (a listing cannot tell), `None`
/// never.
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
                // A `linked: true` rule reaches an instance only through a link a listing
                // cannot show.
                Some(rules.iter().any(|r| {
                    r.guard.is_empty()
                        && !r.linked
                        && r.fields.iter().all(|f| always_present(p, role, kind, f))
                }))
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
        if let Some(m) = p.methods.iter().find(|m| m.name == kind && m.sent_by(role)) {
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

/// The spec role a listing names: the same name in any case, with spaces or dashes for
/// underscores (`Client`, `Agent Server`), or one of the names the spec declares for it.
pub fn role_of<'p>(p: &'p Protocol, written: &str) -> Option<&'p str> {
    let norm = |s: &str| s.trim().to_lowercase().replace([' ', '-'], "_");
    let w = norm(written);
    p.roles.iter().map(String::as_str).find(|r| {
        norm(r) == w
            || p.role_aliases
                .get(*r)
                .is_some_and(|a| a.iter().any(|a| norm(a) == w))
    })
}

/// One machine's possible states while a listing is replayed.
struct Replay<'m> {
    machine: &'m Machine,
    states: BTreeSet<String>,
}

impl Replay<'_> {
    /// The states `from.kind` leads to from `states` (a final state restarts the instance).
    fn step(&self, states: &BTreeSet<String>, from: &str, kind: &str) -> BTreeSet<String> {
        let m = self.machine;
        let mut next = BTreeSet::new();
        for s in states {
            for t in &m.transitions {
                let from_ok = t.from.as_ref().is_none_or(|f| f.contains(s));
                let kind_ok = t.on.role == from && t.on.kind.as_deref().is_none_or(|k| k == kind);
                if from_ok && kind_ok {
                    let target = t.to.clone().unwrap_or_else(|| s.clone());
                    next.insert(if m.finals.contains(&target) {
                        m.initial.clone()
                    } else {
                        target
                    });
                }
            }
        }
        next
    }

    fn allowed(&self) -> Vec<String> {
        let set: BTreeSet<String> = self
            .machine
            .transitions
            .iter()
            .filter(|t| {
                t.from
                    .as_ref()
                    .is_none_or(|f| f.iter().any(|x| self.states.contains(x)))
            })
            .map(|t| t.on.to_string())
            .collect();
        set.into_iter().collect()
    }
}

/// Replays one listing; returns a finding per step no machine allows. After a mismatch the
/// replay goes on as if the step had happened (from every state that allows it), so one
/// difference is one finding, not one per later step.
pub fn replay(p: &Protocol, block: &Block) -> Vec<Finding> {
    let mut findings = Vec::new();
    let mut replays: Vec<Replay> = p
        .machines
        .iter()
        .map(|m| Replay {
            machine: m,
            states: BTreeSet::from([m.initial.clone()]),
        })
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
        let mut roles = Vec::new();
        for (written, what) in [(from, "sender"), (to, "receiver")] {
            match role_of(p, written) {
                Some(r) => roles.push(r),
                None => findings.push(Finding {
                    line: line_no,
                    message: format!(
                        "sequence {what} differs: doc says `{written}`, spec roles are {}",
                        p.roles.join(", ")
                    ),
                }),
            }
        }
        let [from, _to] = roles[..] else { continue };
        advance(p, &mut replays, from, kind, line_no, &mut findings);
    }
    findings
}

/// Moves every machine over one step, reporting the machines that cannot take it.
fn advance(
    p: &Protocol,
    replays: &mut [Replay],
    from: &str,
    kind: &str,
    line: usize,
    findings: &mut Vec<Finding>,
) {
    for r in replays.iter_mut() {
        let m = r.machine;
        let Some(certain) = tracks(p, m, from, kind) else {
            continue;
        };
        let next = r.step(&r.states, from, kind);
        if !next.is_empty() {
            r.states = next;
            continue;
        }
        if !certain {
            // The message may not carry this machine's key at all.
            continue;
        }
        findings.push(Finding {
            line,
            message: format!(
                "sequence step differs: doc says `{from}.{kind}`, spec ({}:{}, machine `{}` in state {}) allows {}",
                m.origin.file,
                m.origin.line,
                m.name,
                r.states.iter().cloned().collect::<Vec<_>>().join(" or "),
                r.allowed().join(", ")
            ),
        });
        // Resynchronise: the step happened, so the machine is wherever it may lead.
        let every: BTreeSet<String> = m.states.iter().cloned().collect();
        let resumed = r.step(&every, from, kind);
        if !resumed.is_empty() {
            r.states = resumed;
        }
    }
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
