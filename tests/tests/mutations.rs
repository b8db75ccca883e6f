//! Property tests for the sequence checkers: an accepted trace with one message dropped,
//! duplicated or swapped with its neighbour is either rejected, or still valid by the machines.
//! Which of the two is decided by an independent reading of the machine definitions (the IR,
//! evaluated over the messages' JSON), and the compiled checker must agree with it both ways.

use std::path::{Path, PathBuf};

use agentwire_codegen::front::load::{LoadedSpec, load_spec};
use agentwire_codegen::ir::{Action, Operator, Protocol};
use proptest::prelude::*;
use serde_json::Value;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// A field of a recorded message, read from its JSON the way the machines' paths name it.
#[derive(Debug, Clone, PartialEq)]
enum F {
    Absent,
    Null,
    Str(String),
    Bool(bool),
    Num(f64),
    Strs(Vec<String>),
    Present,
}

impl F {
    fn of(v: Option<&Value>) -> F {
        match v {
            None => F::Absent,
            Some(Value::Null) => F::Null,
            Some(Value::String(s)) => F::Str(s.clone()),
            Some(Value::Bool(b)) => F::Bool(*b),
            Some(Value::Number(n)) => F::Num(n.as_f64().unwrap_or_default()),
            Some(Value::Array(a)) if a.iter().all(Value::is_string) => {
                F::Strs(a.iter().map(|x| x.as_str().unwrap().to_owned()).collect())
            }
            Some(_) => F::Present,
        }
    }

    fn key(&self) -> Option<String> {
        match self {
            F::Str(s) => Some(s.clone()),
            F::Num(n) if n.fract() == 0.0 => Some((*n as i64).to_string()),
            _ => None,
        }
    }
}

/// Reads `path` from one trace entry of `label`, independently of the generated code: JSON
/// keys as sent, with the few places where the wire form and the machine path differ.
fn read(p: &Protocol, spec: &LoadedSpec, label: &str, entry: &Value, path: &str) -> F {
    let segs: Vec<&str> = path.split('.').collect();
    if let Some(http) = entry.get("http") {
        let kind = label.split_once('.').unwrap().1;
        return match segs.as_slice() {
            ["status"] => F::of(http.get("status")),
            ["path", name] => {
                let route = p.routes.iter().find(|r| r.name == kind).unwrap();
                let path = http["path"].as_str().unwrap_or_default();
                agentwire_runtime::http::match_path(&route.path, path)
                    .and_then(|ps| {
                        ps.into_iter()
                            .find(|(n, _)| n == name)
                            .map(|(_, v)| F::Str(v.to_owned()))
                    })
                    .unwrap_or(F::Absent)
            }
            ["body"] => F::of(http.get("body")),
            ["body", rest @ ..] => walk(spec, http.get("body"), rest),
            _ => F::Absent,
        };
    }
    walk(spec, entry.get("message"), &segs)
}

fn walk(spec: &LoadedSpec, mut v: Option<&Value>, segs: &[&str]) -> F {
    for (i, seg) in segs.iter().enumerate() {
        let Some(obj) = v.and_then(Value::as_object) else {
            return F::Absent;
        };
        // A protobuf oneof named by its own name: the case that is present.
        if let Some(proto) = &spec.proto
            && !obj.contains_key(*seg)
            && i == segs.len() - 1
        {
            for m in proto.pool.all_messages() {
                if let Some(o) = m.oneofs().find(|o| o.name() == *seg)
                    && let Some(case) = o.fields().find(|f| obj.contains_key(f.name()))
                {
                    return F::Str(case.name().to_owned());
                }
            }
        }
        v = obj.get(*seg);
    }
    F::of(v)
}

/// The machines' verdict on a sequence of entries, computed from the IR alone.
fn interpret(p: &Protocol, spec: &LoadedSpec, entries: &[(&'static str, Value)]) -> bool {
    use std::collections::{BTreeMap, BTreeSet};
    #[derive(Clone, Default)]
    struct Inst {
        state: String,
        values: BTreeMap<String, F>,
        sets: BTreeMap<String, BTreeSet<String>>,
    }
    let mut live: Vec<BTreeMap<String, Inst>> = vec![BTreeMap::new(); p.machines.len()];
    let mut ok = true;
    for (label, entry) in entries {
        let (role, kind) = label.split_once('.').unwrap();
        let on = |r: &agentwire_codegen::ir::KindRef| {
            r.role == role && r.kind.as_deref().is_none_or(|k| k == kind)
        };
        for (m, instances) in p.machines.iter().zip(live.iter_mut()) {
            let holds = |c: &agentwire_codegen::ir::Condition, inst: &Inst, key: &str| -> bool {
                let f = match &c.subject {
                    agentwire_codegen::ir::Subject::Field(path) => {
                        read(p, spec, label, entry, path)
                    }
                    agentwire_codegen::ir::Subject::Value(agentwire_codegen::ir::Literal::Str(
                        s,
                    )) => F::Str(s.clone()),
                    agentwire_codegen::ir::Subject::Value(_) => F::Absent,
                };
                let lit = |l: &agentwire_codegen::ir::Literal| match l {
                    agentwire_codegen::ir::Literal::Str(s) => F::Str(s.clone()),
                    agentwire_codegen::ir::Literal::Bool(b) => F::Bool(*b),
                    agentwire_codegen::ir::Literal::Num(n) => F::Num(*n),
                    agentwire_codegen::ir::Literal::Null => F::Null,
                };
                let set_has = |name: &str| match &f {
                    F::Str(s) => inst.sets.get(name).is_some_and(|set| set.contains(s)),
                    _ => false,
                };
                match &c.op {
                    Operator::Is(l) => f == lit(l),
                    Operator::IsNot(l) => f != lit(l),
                    Operator::OneOf(ls) => ls.iter().any(|l| f == lit(l)),
                    Operator::Present(b) => (f != F::Absent) == *b,
                    Operator::Equals(n) if n == "$key" => f.key().as_deref() == Some(key),
                    Operator::Equals(n) => {
                        let stored = inst.values.get(n);
                        !matches!(f, F::Absent | F::Strs(_) | F::Present) && stored == Some(&f)
                    }
                    Operator::Extends(n) => match (inst.values.get(n), &f) {
                        (None, _) => true,
                        (Some(F::Str(prev)), F::Str(now)) => now.starts_with(prev.as_str()),
                        _ => false,
                    },
                    Operator::In(n) => set_has(n),
                    Operator::NotIn(n) => !set_has(n),
                }
            };
            let key = match &m.key {
                None => Some("connection".to_owned()),
                Some(rules) => rules
                    .iter()
                    .filter(|r| on(&r.on))
                    .find(|r| r.guard.iter().all(|c| holds(c, &Inst::default(), "")))
                    .and_then(|r| {
                        // A key of several fields: the list of their keys (only which
                        // messages share an instance matters here, not how it is printed).
                        let parts: Option<Vec<String>> = r
                            .fields
                            .iter()
                            .map(|f| read(p, spec, label, entry, f).key())
                            .collect();
                        match parts?.as_slice() {
                            [one] => Some(one.clone()),
                            several => Some(serde_json::to_string(several).ok()?),
                        }
                    }),
            };
            let Some(key) = key else { continue };
            let existed = instances.contains_key(&key);
            let mut inst = instances.get(&key).cloned().unwrap_or(Inst {
                state: m.initial.clone(),
                ..Inst::default()
            });
            let taken = m.transitions.iter().find(|t| {
                t.from.as_ref().is_none_or(|f| f.contains(&inst.state))
                    && on(&t.on)
                    && t.guard.iter().all(|c| holds(c, &inst, &key))
            });
            let Some(t) = taken.filter(|t| t.check.iter().all(|c| holds(c, &inst, &key))) else {
                ok = false;
                if !existed {
                    instances.remove(&key);
                }
                // The generated checker stops at the first machine that objects.
                break;
            };
            for a in &t.actions {
                match a {
                    Action::Set { memory, field } => {
                        let f = read(p, spec, label, entry, field);
                        if matches!(f, F::Absent | F::Strs(_) | F::Present) {
                            inst.values.remove(memory);
                        } else {
                            inst.values.insert(memory.clone(), f);
                        }
                    }
                    Action::Add { memory, field } | Action::Remove { memory, field } => {
                        let strings = match read(p, spec, label, entry, field) {
                            F::Str(s) => vec![s],
                            F::Strs(v) => v,
                            _ => Vec::new(),
                        };
                        let set = inst.sets.entry(memory.clone()).or_default();
                        for s in strings {
                            if matches!(a, Action::Add { .. }) {
                                set.insert(s);
                            } else {
                                set.remove(&s);
                            }
                        }
                    }
                    Action::AddValue {
                        memory,
                        value,
                        when,
                    } => {
                        if when.iter().all(|c| holds(c, &inst, &key)) {
                            let set = inst.sets.entry(memory.clone()).or_default();
                            set.insert(value.clone());
                        }
                    }
                    Action::Clear { memory } => {
                        inst.values.remove(memory);
                        inst.sets.remove(memory);
                    }
                }
            }
            if let Some(to) = &t.to {
                inst.state = to.clone();
            }
            if m.finals.contains(&inst.state) {
                instances.remove(&key);
            } else {
                instances.insert(key, inst);
            }
        }
    }
    let unfinished = p
        .machines
        .iter()
        .zip(&live)
        .any(|(m, instances)| instances.values().any(|i| !m.accepting.contains(&i.state)));
    ok && !unfinished
}

/// One module's accepted traces, as (role.kind labels, lines).
macro_rules! module_traces {
    ($module:ident) => {{
        use agentwire_protocols::$module::machine::{Recorded, kind_of};
        agentwire_tests::traces::accepted_traces(stringify!($module))
            .into_iter()
            .map(|trace| {
                trace
                    .into_iter()
                    .map(|entry| {
                        let rec = Recorded::decode(entry["from"].as_str().unwrap(), &entry)
                            .unwrap()
                            .unwrap();
                        let label = kind_of(&rec.as_message()).unwrap().label();
                        (label, entry)
                    })
                    .collect::<Vec<(&'static str, Value)>>()
            })
            .collect::<Vec<_>>()
    }};
}

/// Whether the checker accepts a sequence of trace entries.
macro_rules! accepts {
    ($module:ident, $entries:expr) => {{
        use agentwire_protocols::$module::machine::{Checker, Recorded};
        let mut checker = Checker::new();
        let mut ok = true;
        for entry in $entries {
            let rec = Recorded::decode(entry["from"].as_str().unwrap(), entry)
                .unwrap()
                .unwrap();
            if checker.observe(rec.as_message()).is_err() {
                ok = false;
            }
        }
        ok && checker.finish().is_ok()
    }};
}

#[derive(Debug, Clone, Copy)]
enum Mutation {
    Drop,
    Duplicate,
    Swap,
}

fn apply(
    trace: &[(&'static str, Value)],
    mutation: Mutation,
    at: usize,
) -> Vec<(&'static str, Value)> {
    let mut out = trace.to_vec();
    match mutation {
        Mutation::Drop => {
            out.remove(at);
        }
        Mutation::Duplicate => out.insert(at, out[at].clone()),
        Mutation::Swap => out.swap(at, (at + 1).min(trace.len() - 1)),
    }
    out
}

macro_rules! mutation_property {
    ($name:ident, $module:ident) => {
        proptest! {
            #![proptest_config(ProptestConfig { cases: 300, .. ProptestConfig::default() })]
            #[test]
            fn $name(pick in any::<prop::sample::Index>(), at in any::<prop::sample::Index>(), m in 0..3u8) {
                let spec = load_spec(&root().join("spec").join(stringify!($module))).unwrap();
                let traces = module_traces!($module);
                let trace = pick.get(&traces);
                prop_assume!(!trace.is_empty());
                // The reference reading agrees with the checker on the unchanged trace.
                prop_assert!(interpret(&spec.protocol, &spec, trace));
                let mutation = [Mutation::Drop, Mutation::Duplicate, Mutation::Swap][m as usize];
                let at = at.index(trace.len());
                let mutated = apply(trace, mutation, at);
                let entries: Vec<Value> = mutated.iter().map(|(_, e)| e.clone()).collect();
                let accepted = accepts!($module, &entries);
                let valid = interpret(&spec.protocol, &spec, &mutated);
                prop_assert_eq!(
                    accepted, valid,
                    "{:?} of message {} ({}): checker accepted={}, machines say valid={}",
                    mutation, at, trace[at].0, accepted, valid
                );
            }
        }
    };
}

/// Over every accepted trace and every position, a good share of single mutations must be
/// rejected: the machines are not vacuous.
macro_rules! rejects_most_mutations {
    ($name:ident, $module:ident) => {
        rejects_most_mutations!($name, $module, 1 / 2);
    };
    ($name:ident, $module:ident, $num:literal / $den:literal) => {
        #[test]
        fn $name() {
            let traces = module_traces!($module);
            let (mut total, mut rejected) = (0usize, 0usize);
            for trace in &traces {
                for at in 0..trace.len() {
                    for mutation in [Mutation::Drop, Mutation::Duplicate, Mutation::Swap] {
                        let entries: Vec<Value> = apply(trace, mutation, at)
                            .into_iter()
                            .map(|(_, e)| e)
                            .collect();
                        total += 1;
                        if !accepts!($module, &entries) {
                            rejected += 1;
                        }
                    }
                }
            }
            assert!(
                rejected * $den > total * $num,
                "{}: only {rejected} of {total} mutations rejected",
                stringify!($module)
            );
        }
    };
}

mutation_property!(helix_zed_mutations, helix_zed);
mutation_property!(agentloop_mutations, agentloop);
mutation_property!(external_agents_mutations, external_agents);
mutation_property!(eca_mutations, eca);
mutation_property!(coven_mutations, coven);
rejects_most_mutations!(helix_zed_rejects_most_mutations, helix_zed);
rejects_most_mutations!(agentloop_rejects_most_mutations, agentloop);
// By its document an external_agents user message need not be echoed and an attach may answer
// 201 like a create (spec/external_agents/machine.yaml), so dropping, repeating or moving
// those lines is rightly accepted: more than a third must still be rejected.
rejects_most_mutations!(
    external_agents_rejects_most_mutations,
    external_agents,
    1 / 3
);
rejects_most_mutations!(eca_rejects_most_mutations, eca);
rejects_most_mutations!(coven_rejects_most_mutations, coven);
