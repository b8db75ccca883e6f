//! `extends:` in a machine file: the file states only what it adds to the machines of another
//! machine file of its folder, and the loader merges the two into one set of machines.
//!
//! A machine of the extending file whose name the base has is merged into it: key rules,
//! accepting and final states and memory are added; a transition with the `from`, `on` and
//! `if` of one of the base's adds its checks and actions to it; any other transition is tried
//! before the base's. Whatever would change a rule of the base rather than add one (another
//! initial state, a memory of another kind, a transition that would take messages a base
//! transition takes) is an error at its line, naming the base rule.

use std::path::PathBuf;

use serde_saphyr::Spanned;

use super::machine::{
    Ctx, Loaded, RETAIN_NEEDS, RawKey, RawMachine, key, load_chain, memory_kind, named_states,
    transition,
};
use crate::diag::SourceFile;
use crate::ir::{KindRef, Machine, MemoryKind, Origin, Transition};

/// Loads the file `extends:` names (`chain`: the files that led here, this one last), or
/// reports why it cannot: not a file name of this folder, absent, or a cycle.
pub(super) fn base(
    cx: &mut Ctx<'_>,
    name: &Spanned<String>,
    chain: &mut Vec<PathBuf>,
) -> Option<Loaded> {
    let at = &name.referenced;
    let n = name.value.as_str();
    if n.is_empty() || n.contains(['/', '\\']) || n == "." || n == ".." {
        cx.err(
            at,
            format!("`extends: {n}` must name another machine file of this folder (a file name, no path)"),
        );
        return None;
    }
    let dir = cx.file.path.parent().map(PathBuf::from).unwrap_or_default();
    let path = dir.join(n);
    if let Some(first) = chain.iter().position(|p| *p == path) {
        let names: Vec<String> = chain[first..]
            .iter()
            .chain([&path])
            .map(|p| file_name(p))
            .collect();
        cx.err(
            at,
            format!("`extends: {n}` makes a cycle: {}", names.join(" -> ")),
        );
        return None;
    }
    if !path.is_file() {
        let others = yaml_files(&dir);
        let hint = crate::suggest::did_you_mean(n, others.iter().map(String::as_str));
        cx.err(
            at,
            format!("`extends: {n}`: this folder has no such file{hint}"),
        );
        return None;
    }
    let file = match SourceFile::read(&path) {
        Ok(f) => f,
        Err(e) => {
            cx.err(at, e.to_string());
            return None;
        }
    };
    match load_chain(&file, chain) {
        Ok(loaded) => Some(loaded),
        Err(e) => {
            cx.errors.errors.extend(e.errors);
            None
        }
    }
}

fn file_name(p: &std::path::Path) -> String {
    p.file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
}

/// The YAML files of a folder, for a misspelt `extends:`.
fn yaml_files(dir: &std::path::Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .filter_map(|e| e.ok())
        .map(|e| file_name(&e.path()))
        .filter(|n| n.ends_with(".yaml") || n.ends_with(".yml"))
        .collect()
}

/// "machine.yaml:12", where a base rule was written.
fn place(o: &Origin) -> String {
    format!("{}:{}", o.file, o.line)
}

/// Merges an extending file's machine `m` into the base's machine of its name.
pub(super) fn merge(cx: &mut Ctx<'_>, base: &mut Machine, m: &RawMachine) {
    let head = format!(
        "`{}` extends machine `{}` of {}",
        m.name.value,
        base.name,
        place(&base.origin)
    );
    let conflict = |what: String| format!("{head}: {what}");
    if !m.summary.is_empty() {
        base.summary = m.summary.clone();
    }
    if let Some(initial) = m.initial.as_ref().filter(|s| s.value != base.initial) {
        let msg = conflict(format!(
            "its initial state is `{}`, not `{}`",
            base.initial, initial.value
        ));
        cx.err(&initial.referenced, msg);
    }
    if let Some(k) = &m.key {
        merge_key(cx, base, m, k);
    }
    for (name, kind) in &m.memory {
        let k = memory_kind(cx, name, kind);
        match base.memory.iter().find(|(n, _)| n == name) {
            Some((_, had)) if *had != k => {
                let msg = conflict(format!(
                    "its memory `{name}` is a {}, not a {}",
                    kind_word(*had),
                    kind_word(k)
                ));
                cx.err(&kind.referenced, msg);
            }
            Some(_) => {}
            None => base.memory.push((name.clone(), k)),
        }
    }
    // As one file would list them (its `memory:` is read in name order).
    base.memory.sort_by(|a, b| a.0.cmp(&b.0));
    merge_transitions(cx, base, m, &conflict);
    for s in m.accepting.iter().flatten().chain(&m.finals) {
        cx.state_word(&s.referenced, &s.value);
    }
    named_states(cx, m, &base.states);
    let add = |list: &mut Vec<String>, more: &[Spanned<String>]| {
        for s in more {
            if !list.contains(&s.value) {
                list.push(s.value.clone());
            }
        }
    };
    add(
        &mut base.accepting,
        m.accepting.as_deref().unwrap_or_default(),
    );
    add(&mut base.finals, &m.finals);
    if let Some(r) = &m.retain {
        match base.retain {
            Some(had) if had != r.value => {
                let msg = conflict(format!(
                    "it retains the last {had} finished instances, not {}",
                    r.value
                ));
                cx.err(&r.referenced, msg);
            }
            _ if base.finals.is_empty() || r.value == 0 => cx.err(&r.referenced, RETAIN_NEEDS),
            _ => base.retain = Some(r.value),
        }
    }
}

/// Adds the transitions of `m` to `base`: one repeating a base transition's `from`, `on` and
/// `if` adds its checks and actions to it; the others are tried before the base's.
fn merge_transitions(
    cx: &mut Ctx<'_>,
    base: &mut Machine,
    m: &RawMachine,
    conflict: &dyn Fn(String) -> String,
) {
    let mut states = Vec::new();
    let mut added: Vec<Transition> = Vec::new();
    let inherited = base.transitions.len();
    for raw in m.transitions.iter().flatten() {
        let t = transition(cx, raw, &mut states);
        let same = base.transitions[..inherited]
            .iter()
            .position(|b| b.from == t.from && b.on == t.on && texts(&b.guard) == texts(&t.guard));
        if let Some(i) = same {
            let b = &mut base.transitions[i];
            if let Some(to) = t.to.as_ref().filter(|to| b.to.as_ref() != Some(*to)) {
                let was = b.to.as_deref().unwrap_or("(stays)");
                let msg = conflict(format!(
                    "the transition it adds to ({}) goes to `{was}`, not `{to}`",
                    place(&b.origin)
                ));
                cx.err(&raw.on.referenced, msg);
            }
            b.check.extend(t.check);
            b.actions.extend(t.actions);
            continue;
        }
        if let Some(b) = base.transitions[..inherited]
            .iter()
            .find(|b| shadows(&t, b))
        {
            let msg = conflict(format!(
                "this transition takes `{}` where the base's ({}, `{}`) does: to add to that \
                 rule, repeat its `from`, `on` and `if`; a new rule may only be narrower \
                 (a response to a named request, a kind where the base takes `role.*`)",
                t.on,
                place(&b.origin),
                b.on
            ));
            cx.err(&raw.on.referenced, msg);
            continue;
        }
        added.push(t);
    }
    added.append(&mut base.transitions);
    base.transitions = added;
    // As one file would list them: the initial state, then by first mention.
    base.states = vec![base.initial.clone()];
    for t in &base.transitions {
        for s in t.from.iter().flatten().chain(t.to.as_ref()) {
            if !base.states.contains(s) {
                base.states.push(s.clone());
            }
        }
    }
}

/// Adds key rules to a keyed machine: a keyed machine stays keyed, a connection's stays the
/// connection's, and each added rule keys a kind the base does not.
fn merge_key(cx: &mut Ctx<'_>, base: &mut Machine, m: &RawMachine, k: &RawKey) {
    let added = key(cx, m, k);
    let Some(rules) = base.key.as_mut() else {
        if added.is_some() {
            cx.err(
                &m.name.referenced,
                format!(
                    "`{}` extends machine `{}` of {}, which is keyed by the connection: key \
                     rules would change what an instance is",
                    m.name.value,
                    base.name,
                    place(&base.origin)
                ),
            );
        }
        return;
    };
    let Some(added) = added else {
        cx.err(
            &m.name.referenced,
            format!(
                "`{}` extends machine `{}` of {}, which is keyed by its key rules, not by \
                 the connection",
                m.name.value,
                base.name,
                place(&base.origin)
            ),
        );
        return;
    };
    let RawKey::Rules(raw) = k else { return };
    let width = rules.first().map(|r| r.fields.len());
    for (rule, at) in added.into_iter().zip(raw) {
        let clash = rules.iter().find(|r| overlaps(&r.on, &rule.on));
        let problem = match (clash, width) {
            (Some(r), _) => Some(format!(
                "`{}` is already keyed by the rule at {}",
                rule.on,
                place(&r.origin)
            )),
            (None, Some(w)) if w != rule.fields.len() => Some(format!(
                "this key rule names {} field(s), the base's rules {w}",
                rule.fields.len()
            )),
            _ => None,
        };
        match problem {
            Some(p) => cx.err(
                &at.referenced,
                format!("`{}` extends machine `{}`: {p}", m.name.value, base.name),
            ),
            None => rules.push(rule),
        }
    }
    cx.links_recorded(rules, raw);
}

fn kind_word(k: MemoryKind) -> &'static str {
    match k {
        MemoryKind::Value => "value",
        MemoryKind::Set => "set",
    }
}

/// The guards as written, to find the base transition an added one repeats.
fn texts(conditions: &[crate::ir::Condition]) -> Vec<&str> {
    conditions.iter().map(|c| c.text.as_str()).collect()
}

/// Whether `general` takes every message `k` takes (kinds nest: `role.*`, `role.response`,
/// `role.response to role.request`).
fn covers(general: &KindRef, k: &KindRef) -> bool {
    general.role == k.role
        && (general.kind.is_none()
            || (general.kind == k.kind
                && (general.answers.is_none() || general.answers == k.answers)))
}

fn overlaps(a: &KindRef, b: &KindRef) -> bool {
    covers(a, b) || covers(b, a)
}

/// Whether an added transition, tried first, would take messages in a state where the base
/// transition `b` takes them: it shares a state and a kind, and is not strictly narrower.
fn shadows(t: &Transition, b: &Transition) -> bool {
    let states = match (&t.from, &b.from) {
        (Some(x), Some(y)) => x.iter().any(|s| y.contains(s)),
        _ => true,
    };
    let narrower = covers(&b.on, &t.on) && b.on != t.on;
    states && overlaps(&t.on, &b.on) && !narrower
}
