//! The sequence checker read from `machine.yaml` at run time: each machine's states, key rules
//! and transitions resolved once against the protocol's kinds, then run over decoded messages
//! exactly as the generated `Checker` runs them (the first transition that matches picks the
//! next state, checks before actions, a violation leaves the instance as it was).

use std::collections::BTreeSet;

use agentwire_codegen::ir::{Action, KeyRule, Machine, MemoryKind, Transition};
use agentwire_codegen::machine::model::{KindInfo, Model};
use agentwire_runtime::machine::{Problem, Stored, Violation};

use super::keep;

/// A machine with every name resolved to an index and every text kept for violations.
pub struct Compiled {
    pub name: &'static str,
    pub keys: Option<Vec<KeyArm>>,
    pub initial: usize,
    pub states: Vec<&'static str>,
    pub accepting: Vec<bool>,
    pub finals: Vec<bool>,
    /// What each state allows (`role.kind` labels).
    pub expected: Vec<&'static [&'static str]>,
    pub memory: Vec<(String, MemoryKind)>,
    pub transitions: Vec<Step>,
    /// `retain: N`: how many finished instances are kept in their final state.
    pub retain: Option<usize>,
}

/// A kind a rule or transition names: the kind's index, and for a response narrowed to a
/// request (`server.response to client.initialize`) the request kind's index.
pub type KindRef = (usize, Option<usize>);

/// A key rule for the kinds it covers.
pub struct KeyArm {
    pub kinds: Vec<KindRef>,
    pub rule: KeyRule,
}

/// A transition for the kinds it covers.
pub struct Step {
    pub from: Option<Vec<usize>>,
    pub kinds: Vec<KindRef>,
    pub to: Option<usize>,
    pub t: Transition,
    /// The check texts, kept for `Problem::Check` (its code is the check's own).
    pub texts: Vec<&'static str>,
}

/// One live instance: its state and memory (values and sets by memory index).
#[derive(Debug, Clone)]
pub struct Instance {
    pub state: usize,
    pub values: Vec<Option<Stored>>,
    pub sets: Vec<BTreeSet<String>>,
}

fn state_index(m: &Machine, s: &str) -> usize {
    m.states.iter().position(|x| x == s).unwrap_or(0)
}

/// The model's kinds a reference names, as indexes into `model.kinds` (a narrowed response
/// as its response kind's index and its request kind's), with their labels.
fn kinds_of(model: &Model, r: &agentwire_codegen::ir::KindRef) -> Vec<(KindRef, String)> {
    // A narrowed response stands on its response kind; a method sent both as a request and
    // as a notification is two kinds of one label, told apart by their variants.
    let index = |k: &KindInfo| {
        (model.kinds.iter()).position(|x| match k.answers {
            Some(_) => x.role == k.role && x.name == k.name,
            None => x == k,
        })
    };
    model
        .kinds_of(r)
        .into_iter()
        .filter_map(|k| {
            let base = index(k)?;
            let asked = match &k.answers {
                Some(a) => Some(
                    (model.kinds.iter())
                        .position(|x| x.label() == a.label && x.variant == a.variant)?,
                ),
                None => None,
            };
            Some(((base, asked), k.full_label()))
        })
        .collect()
}

fn refs(model: &Model, r: &agentwire_codegen::ir::KindRef) -> Vec<KindRef> {
    kinds_of(model, r).into_iter().map(|(k, _)| k).collect()
}

impl Compiled {
    pub fn new(m: &Machine, model: &Model) -> Compiled {
        let expected = m
            .states
            .iter()
            .map(|s| {
                let mut out: Vec<&'static str> = Vec::new();
                for t in m
                    .transitions
                    .iter()
                    .filter(|t| t.from.as_ref().is_none_or(|f| f.contains(s)))
                {
                    for (_, label) in kinds_of(model, &t.on) {
                        if !out.iter().any(|l| *l == label) {
                            out.push(keep(&label));
                        }
                    }
                }
                &*Box::leak(out.into_boxed_slice())
            })
            .collect();
        let keys = m.key.as_ref().map(|rules| {
            rules
                .iter()
                .map(|r| KeyArm {
                    kinds: refs(model, &r.on),
                    rule: r.clone(),
                })
                .collect()
        });
        let transitions = m
            .transitions
            .iter()
            .map(|t| Step {
                from: t
                    .from
                    .as_ref()
                    .map(|f| f.iter().map(|s| state_index(m, s)).collect()),
                kinds: refs(model, &t.on),
                to: t.to.as_ref().map(|s| state_index(m, s)),
                texts: t.check.iter().map(|c| keep(&c.text)).collect(),
                t: t.clone(),
            })
            .collect();
        Compiled {
            name: keep(&m.name),
            keys,
            initial: state_index(m, &m.initial),
            states: m.states.iter().map(|s| keep(s)).collect(),
            accepting: m.states.iter().map(|s| m.accepting.contains(s)).collect(),
            finals: m.states.iter().map(|s| m.finals.contains(s)).collect(),
            expected,
            memory: m.memory.clone(),
            transitions,
            retain: m.retain,
        }
    }

    pub fn fresh(&self) -> Instance {
        Instance {
            state: self.initial,
            values: vec![None; self.memory.len()],
            sets: vec![BTreeSet::new(); self.memory.len()],
        }
    }

    pub fn memory(&self, name: &str) -> Option<usize> {
        self.memory.iter().position(|(n, _)| n == name)
    }

    /// The violation of a stream that ended with an instance in `state`, if any.
    pub fn unfinished(&self, key: &str, state: usize) -> Option<Violation> {
        (!self.accepting[state]).then(|| Violation {
            index: None,
            machine: self.name,
            key: key.to_owned(),
            state: self.states[state],
            got: None,
            expected: self.expected[state],
            problem: Problem::Unfinished,
        })
    }
}

/// Whether the transition's action is a `set` fused with an `extends` check of the same field
/// and memory (the generated checker compares and appends in one pass, after the other checks).
pub fn fused(t: &Transition) -> Vec<(usize, usize)> {
    use agentwire_codegen::ir::{Operator, Subject};
    t.check
        .iter()
        .enumerate()
        .filter_map(|(ci, c)| match (&c.subject, &c.op) {
            (Subject::Field(f), Operator::Extends(mem)) => t
                .actions
                .iter()
                .position(
                    |a| matches!(a, Action::Set { memory, field } if memory == mem && field == f),
                )
                .map(|ai| (ci, ai)),
            _ => None,
        })
        .collect()
}
