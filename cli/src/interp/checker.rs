//! Runs the compiled machines over decoded messages: the `registry::Checker` of an
//! interpreted protocol, with the generated checker's order of machines, key arms,
//! transitions, checks and actions.

use std::borrow::Cow;
use std::sync::Arc;

use agentwire_codegen::ir::{Action, Condition, Literal, Operator, Subject, Ty};
use agentwire_runtime::machine::{Field, Instances, Limits, Problem, Violation, composite_key};
use agentwire_runtime::registry::{self, Decoded};
use serde_json::Value;

use super::field::Read;
use super::machine::{Compiled, Instance, fused};
use super::{Message, Root, Spec};

/// One stream's checker.
pub struct Checker {
    spec: Arc<Spec>,
    index: usize,
    limits: Limits,
    live: Vec<Instances<Instance>>,
}

impl Checker {
    pub fn new(spec: Arc<Spec>) -> Checker {
        let live = spec
            .machines
            .iter()
            .map(|m| match m.keys {
                None => Instances::per_stream(),
                Some(_) => Instances::keyed(),
            })
            .collect();
        Checker {
            spec,
            index: 0,
            limits: Limits::default(),
            live,
        }
    }
}

impl registry::Checker for Checker {
    fn observe(&mut self, msg: &Decoded) -> Result<(), Violation> {
        let Some(m) = msg
            .get::<Message>()
            .filter(|_| msg.protocol() == self.spec.name)
        else {
            return Err(registry::foreign(self.spec.name, msg));
        };
        let index = self.index;
        self.index += 1;
        let spec = Arc::clone(&self.spec);
        for (i, machine) in spec.machines.iter().enumerate() {
            step(&spec, machine, &mut self.live[i], self.limits, index, m)?;
        }
        Ok(())
    }

    fn finish(self: Box<Self>) -> Result<(), Vec<Violation>> {
        let mut violations = Vec::new();
        for (machine, live) in self.spec.machines.iter().zip(&self.live) {
            for (key, inst) in live.sorted() {
                violations.extend(machine.unfinished(key, inst.state));
            }
        }
        if violations.is_empty() {
            Ok(())
        } else {
            Err(violations)
        }
    }

    fn live_instances(&self) -> usize {
        self.live.iter().map(Instances::len).sum()
    }
}

impl Spec {
    /// Reads the dotted `path` of message `m`.
    pub fn read<'a>(&self, m: &'a Message, path: &str) -> Read<'a> {
        let segs: Vec<&str> = path.split('.').collect();
        match &self.roots[m.kind] {
            Root::Union { tag, .. } if segs == [tag.as_str()] => {
                Read::Str(Cow::Borrowed(self.kind_names[m.kind]))
            }
            Root::Union { ty, .. } => self.types.read(&Ty::Named(ty.clone()), &m.value, &segs),
            Root::Http { route } => self.read_http(*route, &m.value, &segs),
        }
    }

    fn read_http<'a>(&self, route: usize, value: &'a Value, segs: &[&str]) -> Read<'a> {
        let r = &self.types.protocol.routes[route];
        match segs {
            ["status"] => value
                .get("status")
                .and_then(Value::as_i64)
                .map_or(Read::Absent, Read::Int),
            ["path", name] => {
                let ty = match r.path_params.get(*name).map(String::as_str) {
                    None | Some("string") => Ty::String,
                    Some(t) => Ty::Named(t.to_owned()),
                };
                match value.get("path").and_then(|p| p.get(*name)) {
                    Some(v) => self.types.read(&ty, v, &[]),
                    None => Read::Absent,
                }
            }
            ["body"] => value
                .get("body")
                .and_then(Value::as_str)
                .map_or(Read::Present, |s| Read::Str(Cow::Borrowed(s))),
            ["body", rest @ ..] => match (&r.body, value.get("body")) {
                (agentwire_codegen::ir::Body::Json(t), Some(body)) => {
                    self.types.read(&Ty::Named(t.clone()), body, rest)
                }
                _ => Read::Absent,
            },
            _ => Read::Absent,
        }
    }
}

/// The instance key of `m` for `machine`, or `None` when no key rule takes the message.
fn key_of(spec: &Spec, machine: &Compiled, m: &Message) -> Option<Cow<'static, str>> {
    let Some(arms) = &machine.keys else {
        return Some(Cow::Borrowed("connection"));
    };
    let no_inst = Instance {
        state: 0,
        values: Vec::new(),
        sets: Vec::new(),
    };
    for arm in arms.iter().filter(|a| a.kinds.contains(&m.kind)) {
        let ctx = Ctx {
            spec,
            machine,
            m,
            inst: &no_inst,
            key: "",
        };
        if !arm.rule.guard.iter().all(|c| ctx.holds(c)) {
            continue;
        }
        let reads: Vec<Read<'_>> = arm.rule.fields.iter().map(|f| spec.read(m, f)).collect();
        return match reads.as_slice() {
            [one] => one.field().key().map(|k| Cow::Owned(k.into_owned())),
            several => {
                let fields: Vec<Field<'_>> = several.iter().map(Read::field).collect();
                composite_key(&fields)
            }
        };
    }
    None
}

/// One machine's step for message `m`, as the generated `step_<machine>`.
fn step(
    spec: &Spec,
    machine: &Compiled,
    live: &mut Instances<Instance>,
    limits: Limits,
    index: usize,
    m: &Message,
) -> Result<(), Violation> {
    let Some(key) = key_of(spec, machine, m) else {
        return Ok(());
    };
    let violation = |state: usize, problem: Problem| Violation {
        index: Some(index),
        machine: machine.name,
        key: key.to_string(),
        state: machine.states[state],
        got: Some(spec.labels[m.kind]),
        expected: machine.expected[state],
        problem,
    };
    let existed = live.contains(&key);
    if !existed {
        if live.len() >= limits.max_instances {
            return Err(violation(
                machine.initial,
                Problem::TooManyInstances(limits.max_instances),
            ));
        }
        live.insert(&key, machine.fresh());
    }
    let Some(inst) = live.get_mut(&key) else {
        return Ok(());
    };
    let state = inst.state;
    match pick(spec, machine, m, inst, &key) {
        Ok(next) if machine.finals[next] => {
            live.remove(&key);
            Ok(())
        }
        Ok(next) => {
            inst.state = next;
            Ok(())
        }
        Err(problem) => {
            // A message that could not start an instance leaves none behind.
            if !existed {
                live.remove(&key);
            }
            Err(violation(state, problem))
        }
    }
}

/// The next state: the first transition from the instance's state on the message's kind
/// whose guard holds, after its checks and actions.
fn pick(
    spec: &Spec,
    machine: &Compiled,
    m: &Message,
    inst: &mut Instance,
    key: &str,
) -> Result<usize, Problem> {
    for s in &machine.transitions {
        if s.from.as_ref().is_some_and(|f| !f.contains(&inst.state)) || !s.kinds.contains(&m.kind) {
            continue;
        }
        let ctx = Ctx {
            spec,
            machine,
            m,
            inst,
            key,
        };
        if !s.t.guard.iter().all(|c| ctx.holds(c)) {
            continue;
        }
        let fusions = fused(&s.t);
        for (ci, c) in s.t.check.iter().enumerate() {
            if !fusions.iter().any(|(x, _)| *x == ci) && !ctx.holds(c) {
                return Err(Problem::Check(s.texts[ci]));
            }
        }
        for (ci, ai) in &fusions {
            let Action::Set { memory, field } = &s.t.actions[*ai] else {
                continue;
            };
            let slot = machine.memory(memory).unwrap_or(0);
            if !spec
                .read(m, field)
                .field()
                .extend_into(&mut inst.values[slot])
            {
                return Err(Problem::Check(s.texts[*ci]));
            }
        }
        for (ai, a) in s.t.actions.iter().enumerate() {
            if !fusions.iter().any(|(_, x)| *x == ai) {
                act(spec, machine, m, inst, key, a);
            }
        }
        return Ok(s.to.unwrap_or(inst.state));
    }
    Err(Problem::Unexpected)
}

fn act(spec: &Spec, machine: &Compiled, m: &Message, inst: &mut Instance, key: &str, a: &Action) {
    let slot = |name: &str| machine.memory(name).unwrap_or(0);
    match a {
        Action::AddValue {
            memory,
            value,
            when,
        } => {
            let ctx = Ctx {
                spec,
                machine,
                m,
                inst,
                key,
            };
            if when.iter().all(|c| ctx.holds(c)) {
                inst.sets[slot(memory)].insert(value.clone());
            }
        }
        Action::Set { memory, field } => spec
            .read(m, field)
            .field()
            .store_into(&mut inst.values[slot(memory)]),
        Action::Add { memory, field } => {
            let set = &mut inst.sets[slot(memory)];
            spec.read(m, field).field().for_each_str(|s| {
                set.insert(s.to_owned());
            });
        }
        Action::Remove { memory, field } => {
            let set = &mut inst.sets[slot(memory)];
            spec.read(m, field).field().for_each_str(|s| {
                set.remove(s);
            });
        }
        Action::Clear { memory } => {
            let i = slot(memory);
            inst.values[i] = None;
            inst.sets[i].clear();
        }
    }
}

/// What a condition is evaluated against.
struct Ctx<'a> {
    spec: &'a Spec,
    machine: &'a Compiled,
    m: &'a Message,
    inst: &'a Instance,
    key: &'a str,
}

impl Ctx<'_> {
    fn holds(&self, c: &Condition) -> bool {
        let read = match &c.subject {
            Subject::Field(path) => self.spec.read(self.m, path),
            Subject::Value(Literal::Str(s)) => Read::Str(Cow::Borrowed(s)),
            Subject::Value(_) => return false,
        };
        let f = read.field();
        let slot = |name: &str| self.machine.memory(name).unwrap_or(0);
        match &c.op {
            Operator::Is(l) => literal(&f, l),
            Operator::IsNot(l) => !literal(&f, l),
            Operator::OneOf(ls) => ls.iter().any(|l| literal(&f, l)),
            Operator::Present(p) => f.is_present() == *p,
            Operator::Equals(name) if name == "$key" => f.is_key(self.key),
            Operator::Equals(name) => f.equals(self.inst.values[slot(name)].as_ref()),
            Operator::Extends(name) => f.extends(self.inst.values[slot(name)].as_ref()),
            Operator::In(name) => f
                .as_str()
                .is_some_and(|s| self.inst.sets[slot(name)].contains(s)),
            Operator::NotIn(name) => !f
                .as_str()
                .is_some_and(|s| self.inst.sets[slot(name)].contains(s)),
        }
    }
}

fn literal(f: &Field<'_>, l: &Literal) -> bool {
    match l {
        Literal::Str(s) => f.is_str(s),
        Literal::Bool(b) => f.is_bool(*b),
        Literal::Num(n) => f.is_num(*n),
        Literal::Null => f.is_null(),
    }
}
