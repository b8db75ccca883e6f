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
    let labels: Vec<String> = model.kinds.iter().map(|k| k.label()).collect();
    let hint = crate::suggest::did_you_mean(on, labels.iter().map(String::as_str));
    format!("no message kind `{on}`{hint}")
}

/// Lints every machine of a protocol against its message model.
pub fn lint(machines: &[Machine], model: &Model, file: &SourceFile) -> SpecErrors {
    let mut errors = SpecErrors::default();
    let mut used_kinds: BTreeSet<String> = BTreeSet::new();
    for m in machines {
        let memory_kind = |name: &str| m.memory.iter().find(|(n, _)| n == name).map(|(_, k)| *k);
        let check_memory =
            |errors: &mut SpecErrors, origin: &Origin, name: &str, want: MemoryKind| {
                if name == "$key" && want == MemoryKind::Value {
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
                    if let Err(e) = model.field(k, &r.field) {
                        errors.push(at(file, &r.origin, format!("key of `{}`: {e}", k.label())));
                    }
                }
                check_conditions(&mut errors, &r.guard, &kinds);
            }
        }
        for t in &m.transitions {
            let kinds = model.kinds_of(&t.on);
            if kinds.is_empty() {
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
