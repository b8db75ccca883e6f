//! Machine lint: every finding about a `machine.yaml` (unknown kinds or fields, memory misuse,
//! unreachable or dead-end states, catalogue kinds no machine mentions) as a located
//! diagnostic.

use std::collections::BTreeSet;

use crate::diag::{SourceFile, SpecError, SpecErrors};
use crate::ir::{Action, Condition, Machine, MemoryKind, Operator, Origin, Subject};
use crate::machine::model::Model;

fn at(file: &SourceFile, origin: &Origin, message: String) -> SpecError {
    let start: usize = file
        .text
        .split_inclusive('\n')
        .take(origin.line.saturating_sub(1))
        .map(str::len)
        .sum();
    let line_len = file.text[start..]
        .find('\n')
        .unwrap_or(file.text.len() - start);
    let indent = file.text[start..start + line_len]
        .find(|c: char| !c.is_whitespace() && c != '-')
        .unwrap_or(0);
    SpecError::at(
        file,
        (start + indent, line_len.saturating_sub(indent)),
        message,
    )
}

/// "no message kind `client.user_inptu`; did you mean `client.user_input`?"
fn unknown_kind(model: &Model, on: &str) -> String {
    format!("no message kind `{on}`{}", kind_hint(model, on))
}

/// "; did you mean `...`?" naming the message kind closest to `on`, or nothing.
fn kind_hint(model: &Model, on: &str) -> String {
    let labels: Vec<String> = model.kinds.iter().map(|k| k.label()).collect();
    crate::suggest::did_you_mean(on, labels.iter().map(String::as_str))
}

/// Lints every machine of a protocol against its message model.
pub fn lint(machines: &[Machine], model: &Model, file: &SourceFile) -> SpecErrors {
    let mut errors = SpecErrors::default();
    let mut used_kinds: BTreeSet<String> = BTreeSet::new();
    answer_refs(machines, model, file, &mut errors);
    for m in machines {
        let memory_kind = |name: &str| m.memory.iter().find(|(n, _)| n == name).map(|(_, k)| *k);
        let check_memory =
            |errors: &mut SpecErrors, origin: &Origin, name: &str, want: MemoryKind| {
                if name == "$key" && want == MemoryKind::Value {
                    // One field cannot equal a key made of several.
                    if m.key.iter().flatten().any(|r| r.fields.len() > 1) {
                        errors.push(at(
                            file,
                            origin,
                            format!(
                                "machine `{}` is keyed by several fields, so no one field equals \
                                 `$key`: remember the field with `set` and compare with that",
                                m.name
                            ),
                        ));
                    }
                    return;
                }
                match memory_kind(name) {
                    None => errors.push(at(
                        file,
                        origin,
                        format!(
                            "machine `{}` has no memory `{name}`{}",
                            m.name,
                            crate::suggest::did_you_mean(
                                name,
                                m.memory.iter().map(|(n, _)| n.as_str())
                            )
                        ),
                    )),
                    Some(k) if k != want => errors.push(at(
                        file,
                        origin,
                        format!("memory `{name}` is a {k:?}, but this use needs a {want:?}")
                            .to_lowercase(),
                    )),
                    Some(_) => {}
                }
            };
        let check_conditions =
            |errors: &mut SpecErrors,
             conds: &[Condition],
             kinds: &[&crate::machine::model::KindInfo]| {
                for c in conds {
                    if let Subject::Field(path) = &c.subject {
                        for k in kinds {
                            if let Err(e) = model.field(k, path) {
                                errors.push(at(file, &c.origin, format!("`{}`: {e}", k.label())));
                            }
                        }
                    }
                    match &c.op {
                        Operator::Equals(n) | Operator::Extends(n) => {
                            check_memory(errors, &c.origin, n, MemoryKind::Value)
                        }
                        Operator::In(n) | Operator::NotIn(n) => {
                            check_memory(errors, &c.origin, n, MemoryKind::Set)
                        }
                        _ => {}
                    }
                }
            };
        if let Some(rules) = &m.key {
            for r in rules {
                let kinds = model.kinds_of(&r.on);
                if kinds.is_empty() {
                    errors.push(at(file, &r.origin, unknown_kind(model, &r.on.to_string())));
                }
                for k in &kinds {
                    for f in &r.fields {
                        if let Err(e) = model.field(k, f) {
                            errors.push(at(
                                file,
                                &r.origin,
                                format!("key of `{}`: {e}", k.label()),
                            ));
                        }
                    }
                }
                check_conditions(&mut errors, &r.guard, &kinds);
            }
        }
        for t in &m.transitions {
            let kinds = model.kinds_of(&t.on);
            if kinds.is_empty() && t.on.answers.is_none() {
                errors.push(at(file, &t.origin, unknown_kind(model, &t.on.to_string())));
            }
            used_kinds.extend(kinds.iter().map(|k| k.label()));
            check_conditions(&mut errors, &t.guard, &kinds);
            check_conditions(&mut errors, &t.check, &kinds);
            for a in &t.actions {
                let (memory, field, want) = match a {
                    Action::Set { memory, field } => (memory, Some(field), MemoryKind::Value),
                    Action::Add { memory, field } | Action::Remove { memory, field } => {
                        (memory, Some(field), MemoryKind::Set)
                    }
                    Action::AddValue { memory, when, .. } => {
                        check_conditions(&mut errors, when, &kinds);
                        (memory, None, MemoryKind::Set)
                    }
                    Action::Clear { memory } => (
                        memory,
                        None,
                        memory_kind(memory).unwrap_or(MemoryKind::Value),
                    ),
                };
                check_memory(&mut errors, &t.origin, memory, want);
                if let Some(path) = field {
                    for k in &kinds {
                        if let Err(e) = model.field(k, path) {
                            errors.push(at(file, &t.origin, format!("`{}`: {e}", k.label())));
                        }
                    }
                }
            }
        }
        reachability(m, file, &mut errors);
    }
    // `machines: []` declares that the protocol has no ordering rules: no kind is missing.
    for k in model.kinds.iter().filter(|_| !machines.is_empty()) {
        if !used_kinds.contains(&k.label()) {
            let origin = machines
                .first()
                .map(|m| m.origin.clone())
                .unwrap_or_default();
            errors.push(at(
                file,
                &origin,
                format!("message kind `{}` is used by no machine", k.label()),
            ));
        }
    }
    errors
}

/// States the initial state cannot reach, and states from which no accepting or final state
/// can be reached.
fn reachability(m: &Machine, file: &SourceFile, errors: &mut SpecErrors) {
    // Reachability, forwards from the initial state and backwards from the ends.
    let edges: Vec<(String, String)> = m
        .transitions
        .iter()
        .flat_map(|t| {
            let froms: Vec<String> = t.from.clone().unwrap_or_else(|| m.states.clone());
            froms
                .into_iter()
                .map(|f| {
                    let to = t.to.clone().unwrap_or_else(|| f.clone());
                    (f, to)
                })
                .collect::<Vec<_>>()
        })
        .collect();
    let closure = |start: Vec<String>, forward: bool| {
        let mut seen: BTreeSet<String> = start.into_iter().collect();
        loop {
            let before = seen.len();
            for (a, b) in &edges {
                let (src, dst) = if forward { (a, b) } else { (b, a) };
                if seen.contains(src) {
                    seen.insert(dst.clone());
                }
            }
            if seen.len() == before {
                return seen;
            }
        }
    };
    let reachable = closure(vec![m.initial.clone()], true);
    let ends: Vec<String> = m.accepting.iter().chain(&m.finals).cloned().collect();
    let can_end = closure(ends, false);
    for s in &m.states {
        if !reachable.contains(s) {
            errors.push(at(
                file,
                &m.origin,
                format!("machine `{}`: state `{s}` is unreachable", m.name),
            ));
        } else if !can_end.contains(s) {
            errors.push(at(
                file,
                &m.origin,
                format!(
                    "machine `{}`: no accepting or final state can be reached from `{s}`",
                    m.name
                ),
            ));
        }
    }
}

/// `; did you mean ...?` for a kind reference that names no kind: the closest `role.kind`.
fn unknown_kind_hint(model: &Model, r: &crate::ir::KindRef) -> String {
    let plain = crate::ir::KindRef {
        answers: None,
        ..r.clone()
    };
    kind_hint(model, &plain.to_string())
}

/// `role.response to role.request`: only in transitions, a response kind narrowed to a
/// request kind another role sends.
fn answer_refs(machines: &[Machine], model: &Model, file: &SourceFile, errors: &mut SpecErrors) {
    for m in machines {
        for r in m.key.iter().flatten().filter(|r| r.on.answers.is_some()) {
            errors.push(at(
                file,
                &r.origin,
                format!(
                    "key rule on `{}`: a key rule names a plain kind; narrow the response in the transitions instead",
                    r.on
                ),
            ));
        }
        for t in &m.transitions {
            let Some(asked) = &t.on.answers else { continue };
            let base = crate::ir::KindRef {
                answers: None,
                ..t.on.clone()
            };
            let responses = model.kinds_of(&base);
            let requests: Vec<_> = model
                .kinds_of(asked)
                .into_iter()
                .filter(|k| model.asked().contains(k))
                .collect();
            let problem = if responses.is_empty() {
                Some(format!(
                    "no message kind `{base}`{}",
                    unknown_kind_hint(model, &base)
                ))
            } else if t.on.kind.as_deref() != Some("response") {
                Some(format!(
                    "`{}`: only a `role.response` kind answers a request",
                    t.on
                ))
            } else if model.kinds_of(asked).is_empty() {
                Some(format!(
                    "no message kind `{asked}`{}",
                    unknown_kind_hint(model, asked)
                ))
            } else if requests.is_empty() {
                Some(format!(
                    "`{}`: `{asked}` is not a request of another role, so `{base}` never answers it",
                    t.on
                ))
            } else {
                None
            };
            if let Some(p) = problem {
                errors.push(at(file, &t.origin, p));
            }
        }
    }
}
