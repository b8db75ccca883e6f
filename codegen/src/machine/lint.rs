//! Machine lint: every finding about a `machine.yaml` (unknown kinds or fields, memory misuse,
//! unreachable or dead-end states, catalogue kinds no machine mentions) as a located
//! diagnostic.

use std::collections::BTreeSet;

use crate::diag::{SourceFile, SpecError, SpecErrors};
use crate::ir::{Action, Condition, Machine, MemoryKind, Operator, Origin, Subject};
use crate::machine::model::Model;

fn at(files: &[SourceFile], origin: &Origin, message: String) -> SpecError {
    // The file the rule was written in: a machine file and the files it extends.
    let named = |f: &&SourceFile| f.path.file_name().is_some_and(|n| *n == *origin.file);
    let Some(file) = files.iter().find(named).or(files.first()) else {
        return SpecError::new(message);
    };
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
pub fn lint(machines: &[Machine], model: &Model, files: &[SourceFile]) -> SpecErrors {
    let mut errors = SpecErrors::default();
    let mut used_kinds: BTreeSet<String> = BTreeSet::new();
    answer_refs(machines, model, files, &mut errors);
    for m in machines {
        let one = One {
            m,
            model,
            files,
            errors: &mut errors,
        };
        one.lint(&mut used_kinds);
        reachability(m, files, &mut errors);
    }
    // `machines: []` declares that the protocol has no ordering rules: no kind is missing.
    for k in model.kinds.iter().filter(|_| !machines.is_empty()) {
        if !used_kinds.contains(&k.label()) {
            let origin = machines
                .first()
                .map(|m| m.origin.clone())
                .unwrap_or_default();
            errors.push(at(
                files,
                &origin,
                format!("message kind `{}` is used by no machine", k.label()),
            ));
        }
    }
    errors
}

/// The lint of one machine: its keys, guards, checks and actions against the model.
struct One<'a> {
    m: &'a Machine,
    model: &'a Model,
    files: &'a [SourceFile],
    errors: &'a mut SpecErrors,
}

type Kinds<'a> = [&'a crate::machine::model::KindInfo];

impl One<'_> {
    /// Lints the machine, adding the labels of the kinds it mentions to `used_kinds`.
    fn lint(mut self, used_kinds: &mut BTreeSet<String>) {
        let m = self.m;
        for r in m.key.iter().flatten() {
            let kinds = self.model.kinds_of(&r.on);
            if kinds.is_empty() {
                let msg = unknown_kind(self.model, &r.on.to_string());
                self.err(&r.origin, msg);
            }
            for k in &kinds {
                for f in &r.fields {
                    if let Err(e) = self.model.field(k, f) {
                        self.err(&r.origin, format!("key of `{}`: {e}", k.label()));
                    }
                }
                if let Some(Err(e)) = r.link.as_ref().map(|l| self.model.field(k, l)) {
                    self.err(&r.origin, format!("link of `{}`: {e}", k.label()));
                }
            }
            self.conditions(&r.guard, &kinds);
        }
        for t in &m.transitions {
            let kinds = self.model.kinds_of(&t.on);
            if kinds.is_empty() && t.on.answers.is_none() {
                let msg = unknown_kind(self.model, &t.on.to_string());
                self.err(&t.origin, msg);
            }
            used_kinds.extend(kinds.iter().map(|k| k.label()));
            self.conditions(&t.guard, &kinds);
            self.conditions(&t.check, &kinds);
            for a in &t.actions {
                self.action(a, &t.origin, &kinds);
            }
        }
    }

    fn err(&mut self, origin: &Origin, msg: String) {
        self.errors.push(at(self.files, origin, msg));
    }

    fn memory_kind(&self, name: &str) -> Option<MemoryKind> {
        let memory = &self.m.memory;
        memory.iter().find(|(n, _)| n == name).map(|(_, k)| *k)
    }

    /// One action of a transition on `kinds`: its memory and its field.
    fn action(&mut self, a: &Action, origin: &Origin, kinds: &Kinds<'_>) {
        let (memory, field, want) = match a {
            Action::Set { memory, field } => (memory, Some(field), MemoryKind::Value),
            Action::Add { memory, field } | Action::Remove { memory, field } => {
                (memory, Some(field), MemoryKind::Set)
            }
            Action::AddValue { memory, when, .. } => {
                self.conditions(when, kinds);
                (memory, None, MemoryKind::Set)
            }
            Action::Clear { memory } => (
                memory,
                None,
                self.memory_kind(memory).unwrap_or(MemoryKind::Value),
            ),
        };
        self.memory(origin, memory, want);
        if let Some(path) = field {
            for k in kinds {
                if let Err(e) = self.model.field(k, path) {
                    self.err(origin, format!("`{}`: {e}", k.label()));
                }
            }
        }
    }

    /// A use of memory `name` that needs a `want`.
    fn memory(&mut self, origin: &Origin, name: &str, want: MemoryKind) {
        let m = self.m;
        if name == "$key" && want == MemoryKind::Value {
            // One field cannot equal a key made of several.
            if m.key.iter().flatten().any(|r| r.fields.len() > 1) {
                let msg = format!(
                    "machine `{}` is keyed by several fields, so no one field equals \
                     `$key`: remember the field with `set` and compare with that",
                    m.name
                );
                self.err(origin, msg);
            }
            return;
        }
        match self.memory_kind(name) {
            None => {
                let msg = format!(
                    "machine `{}` has no memory `{name}`{}",
                    m.name,
                    crate::suggest::did_you_mean(name, m.memory.iter().map(|(n, _)| n.as_str()))
                );
                self.err(origin, msg);
            }
            Some(k) if k != want => {
                let msg = format!("memory `{name}` is a {k:?}, but this use needs a {want:?}");
                self.err(origin, msg.to_lowercase());
            }
            Some(_) => {}
        }
    }

    /// Conditions on `kinds`: their fields and the memory they compare with.
    fn conditions(&mut self, conds: &[Condition], kinds: &Kinds<'_>) {
        for c in conds {
            if let Subject::Field(path) = &c.subject {
                for k in kinds {
                    if let Err(e) = self.model.field(k, path) {
                        self.err(&c.origin, format!("`{}`: {e}", k.label()));
                    }
                }
            }
            match &c.op {
                Operator::Equals(n) | Operator::Extends(n) => {
                    self.memory(&c.origin, n, MemoryKind::Value)
                }
                Operator::In(n) | Operator::NotIn(n) => self.memory(&c.origin, n, MemoryKind::Set),
                _ => {}
            }
        }
    }
}

/// States the initial state cannot reach, and states from which no accepting or final state
/// can be reached.
fn reachability(m: &Machine, files: &[SourceFile], errors: &mut SpecErrors) {
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
                files,
                &m.origin,
                format!("machine `{}`: state `{s}` is unreachable", m.name),
            ));
        } else if !can_end.contains(s) {
            errors.push(at(
                files,
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
fn answer_refs(machines: &[Machine], model: &Model, files: &[SourceFile], errors: &mut SpecErrors) {
    for m in machines {
        for r in m.key.iter().flatten().filter(|r| r.on.answers.is_some()) {
            errors.push(at(
                files,
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
                errors.push(at(files, &t.origin, p));
            }
        }
    }
}
