//! Runs the compiled machines over decoded messages: the `registry::Checker` of an
//! interpreted protocol, with the generated checker's order of machines, key arms,
//! transitions, checks and actions.

use std::borrow::Cow;
use std::sync::Arc;

use agentwire_codegen::ir::{Action, Condition, Literal, Operator, Subject, Ty};
use agentwire_runtime::machine::{Field, Instances, Limits, Problem, Violation, composite_key};
use agentwire_runtime::registry::{self, Decoded};
use serde_json::Value;

use agentwire_runtime::answers::Answers;
use agentwire_runtime::kept::{Links, Retained};

use super::field::Read;
use super::machine::{Compiled, Instance, KindRef, fused};
use super::{Message, Root, Spec};

/// One stream's checker.
pub struct Checker {
    spec: Arc<Spec>,
    index: usize,
    limits: Limits,
    live: Vec<Instances<Instance>>,
    /// Each machine's links and finished instances kept (`link:`, `retain:`).
    kept: Vec<Kept>,
    /// Outstanding requests of the kinds some machine narrows responses to.
    answers: Answers<usize>,
}

/// What one machine keeps beside its live instances.
struct Kept {
    links: Links,
    retained: Option<Retained>,
}

/// A message with a kind, as the machines step on it: for a response to a request some
/// machine narrows responses to, that request's kind and its result (when it decodes).
pub struct Seen<'a> {
    pub kind: usize,
    pub value: &'a Value,
    pub answer: Option<(usize, Option<Value>)>,
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
        let limits = Limits::default();
        let kept = spec
            .machines
            .iter()
            .map(|m| Kept {
                links: Links::new(limits.max_instances),
                retained: m.retain.map(Retained::new),
            })
            .collect();
        Checker {
            spec,
            index: 0,
            limits,
            live,
            kept,
            answers: Answers::new(limits.max_instances),
        }
    }

    pub(super) fn spec(&self) -> &Spec {
        &self.spec
    }

    /// The live instances of the machine with index `machine`.
    pub(super) fn live(&self, machine: usize) -> &Instances<Instance> {
        &self.live[machine]
    }

    /// Remembers a request some machine narrows responses to, and types a response by the
    /// remembered request it answers, as the generated checker's `answer`.
    fn answer(&mut self, kind: usize, value: &Value) -> Option<(usize, Option<Value>)> {
        let spec = Arc::clone(&self.spec);
        if spec.asked.is_empty() {
            return None;
        }
        let role = spec.role_of(kind);
        let id = super::rpc::id_field(value.get("id"));
        match spec.roots[kind] {
            Root::RpcCall { request: true, .. } if spec.asked.contains(&kind) => {
                self.answers.ask(role, id, kind);
                None
            }
            Root::RpcResponse => {
                let mut askers: Vec<&'static str> = spec
                    .asked
                    .iter()
                    .map(|k| spec.role_of(*k))
                    .filter(|r| *r != role)
                    .collect();
                askers.dedup();
                if askers.is_empty() || value.get("id").is_none_or(Value::is_null) {
                    return None;
                }
                let asked = self.answers.take(&askers, id)?;
                let method = match spec.roots[asked] {
                    Root::RpcCall { method, .. } => method,
                    _ => return None,
                };
                Some((asked, spec.types.answer_result(method, value)))
            }
            _ => None,
        }
    }
}

impl registry::Checker for Checker {
    fn observe(&mut self, msg: &Decoded) -> Result<(), Violation> {
        let Some(message) = msg
            .get::<Message>()
            .filter(|_| msg.protocol() == self.spec.name)
        else {
            return Err(registry::foreign(self.spec.name, msg));
        };
        let index = self.index;
        self.index += 1;
        let Some(kind) = message.kind else {
            return Ok(());
        };
        let m = Seen {
            kind,
            value: &message.value,
            answer: self.answer(kind, &message.value),
        };
        let spec = Arc::clone(&self.spec);
        for (i, machine) in spec.machines.iter().enumerate() {
            let live = (&mut self.live[i], &mut self.kept[i]);
            step(&spec, machine, live, self.limits, index, &m)?;
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
    /// Reads the dotted `path` of message `m` as a message of kind `k` (a response narrowed
    /// to a request reads `result.*` from the answer to that request only).
    pub fn read<'a>(&self, m: &'a Seen<'_>, k: KindRef, path: &str) -> Read<'a> {
        let segs: Vec<&str> = path.split('.').collect();
        match &self.roots[m.kind] {
            Root::Union { tag, .. } if segs == [tag.as_str()] => {
                Read::Str(Cow::Borrowed(self.kind_names[m.kind]))
            }
            Root::Union { ty, .. } => self.types.read(&Ty::Named(ty.clone()), m.value, &segs),
            Root::Http { route } => self.read_http(*route, m.value, &segs),
            Root::Proto { case, message } => match segs.split_first() {
                Some((first, rest)) if *first == case.as_str() => match m.value.get(case) {
                    Some(v) => self.types.read_proto(message, v, rest),
                    None => Read::Absent,
                },
                _ => Read::Absent,
            },
            Root::RpcCall {
                params, request, ..
            } => match segs.as_slice() {
                ["id"] if *request => Read::of(super::rpc::id_field(m.value.get("id"))),
                ["method"] => Read::Str(Cow::Borrowed(self.kind_names[m.kind])),
                ["params", rest @ ..] => match (params, m.value.get("params")) {
                    (Some(t), Some(p)) => self.types.read(&Ty::Named(t.clone()), p, rest),
                    _ => Read::Absent,
                },
                _ => Read::Absent,
            },
            Root::RpcResponse => self.read_response(m, k.1, &segs),
        }
    }

    fn read_response<'a>(
        &self,
        m: &'a Seen<'_>,
        narrowed: Option<usize>,
        segs: &[&str],
    ) -> Read<'a> {
        let v = m.value;
        match segs {
            ["id"] => Read::of(super::rpc::id_field(Some(
                v.get("id").unwrap_or(&Value::Null),
            ))),
            ["result"] => v.get("result").map_or(Read::Absent, |_| Read::Present),
            ["error"] => v.get("error").map_or(Read::Absent, |_| Read::Present),
            ["error", "code"] => v
                .pointer("/error/code")
                .and_then(Value::as_i64)
                .map_or(Read::Absent, Read::Int),
            ["error", "message"] => v
                .pointer("/error/message")
                .and_then(Value::as_str)
                .map_or(Read::Absent, |s| Read::Str(Cow::Borrowed(s))),
            ["result", rest @ ..] => match (&m.answer, narrowed) {
                (Some((asked, Some(result))), Some(want)) if *asked == want => {
                    let Root::RpcCall { method, .. } = self.roots[*asked] else {
                        return Read::Absent;
                    };
                    match &self.types.protocol.methods[method].result {
                        Some(t) => self.types.read(&Ty::Named(t.clone()), result, rest),
                        None => Read::Absent,
                    }
                }
                _ => Read::Absent,
            },
            _ => Read::Absent,
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
fn key_of(
    spec: &Spec,
    machine: &Compiled,
    m: &Seen<'_>,
    links: &mut Links,
) -> Option<Cow<'static, str>> {
    let Some(arms) = &machine.keys else {
        return Some(Cow::Borrowed("connection"));
    };
    let no_inst = Instance {
        state: 0,
        values: Vec::new(),
        sets: Vec::new(),
    };
    // One arm per (rule, kind) in order, as the generated `match kind`: the first whose
    // guard holds gives the key.
    let arms = arms
        .iter()
        .flat_map(|a| a.kinds.iter().map(move |k| (a, *k)))
        .filter(|(_, k)| k.0 == m.kind);
    for (arm, k) in arms {
        let ctx = Ctx {
            spec,
            machine,
            m,
            k,
            inst: &no_inst,
            key: "",
        };
        if !arm.rule.guard.iter().all(|c| ctx.holds(c)) {
            continue;
        }
        let reads: Vec<Read<'_>> = arm.rule.fields.iter().map(|f| spec.read(m, k, f)).collect();
        return match reads.as_slice() {
            [one] if arm.rule.linked => links.follow(one.field()),
            [one] => one.field().key().map(|k| Cow::Owned(k.into_owned())),
            several => {
                let fields: Vec<Field<'_>> = several.iter().map(Read::field).collect();
                composite_key(&fields)
            }
        };
    }
    None
}

/// What the first `link:` rule taking `m` reads from it, as the generated `link` binding.
fn link_of<'a>(spec: &Spec, machine: &Compiled, m: &'a Seen<'_>) -> Option<Read<'a>> {
    let arms = machine.keys.as_ref()?;
    let no_inst = Instance {
        state: 0,
        values: Vec::new(),
        sets: Vec::new(),
    };
    let arms = arms
        .iter()
        .flat_map(|a| a.kinds.iter().map(move |k| (a, *k)))
        .filter(|(a, k)| k.0 == m.kind && a.rule.link.is_some());
    for (arm, k) in arms {
        let ctx = Ctx {
            spec,
            machine,
            m,
            k,
            inst: &no_inst,
            key: "",
        };
        if arm.rule.guard.iter().all(|c| ctx.holds(c)) {
            return arm.rule.link.as_deref().map(|l| spec.read(m, k, l));
        }
    }
    None
}

/// One machine's step for message `m`, as the generated `step_<machine>`.
fn step(
    spec: &Spec,
    machine: &Compiled,
    (live, kept): (&mut Instances<Instance>, &mut Kept),
    limits: Limits,
    index: usize,
    m: &Seen<'_>,
) -> Result<(), Violation> {
    let Some(key) = key_of(spec, machine, m, &mut kept.links) else {
        return Ok(());
    };
    let link = link_of(spec, machine, m);
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
            match &mut kept.retained {
                Some(retained) => {
                    inst.state = next;
                    if !machine.finals[state]
                        && let Some(old) = retained.keep(&key)
                    {
                        live.remove_if(&old, |i| machine.finals[i.state]);
                    }
                }
                None => live.remove(&key),
            }
            Ok(())
        }
        Ok(next) => {
            inst.state = next;
            if let Some(by) = &link {
                kept.links.link(by.field(), &key);
            }
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
    m: &Seen<'_>,
    inst: &mut Instance,
    key: &str,
) -> Result<usize, Problem> {
    // One branch per (transition, kind), as the generated `'pick` block; a response
    // narrowed to a request takes only the answer to a request of that kind.
    let answered = |want: usize| m.answer.as_ref().is_some_and(|(a, _)| *a == want);
    let branches = machine
        .transitions
        .iter()
        .flat_map(|s| s.kinds.iter().map(move |k| (s, *k)))
        .filter(|(_, k)| k.0 == m.kind && k.1.is_none_or(answered));
    for (s, k) in branches {
        if s.from.as_ref().is_some_and(|f| !f.contains(&inst.state)) {
            continue;
        }
        let ctx = Ctx {
            spec,
            machine,
            m,
            k,
            inst,
            key,
        };
        if !s.t.guard.iter().all(|c| ctx.holds(c)) {
            continue;
        }
        let fusions = fused(&s.t);
        for (ci, c) in s.t.check.iter().enumerate() {
            if !fusions.iter().any(|(x, _)| *x == ci) && !ctx.holds(c) {
                return Err(Problem::Check {
                    check: s.texts[ci],
                    code: c.code,
                });
            }
        }
        for (ci, ai) in &fusions {
            let Action::Set { memory, field } = &s.t.actions[*ai] else {
                continue;
            };
            let slot = machine.memory(memory).unwrap_or(0);
            if !spec
                .read(m, k, field)
                .field()
                .extend_into(&mut inst.values[slot])
            {
                return Err(Problem::Check {
                    check: s.texts[*ci],
                    code: s.t.check[*ci].code,
                });
            }
        }
        for (ai, a) in s.t.actions.iter().enumerate() {
            if !fusions.iter().any(|(_, x)| *x == ai) {
                act(spec, machine, (m, k), inst, key, a);
            }
        }
        return Ok(s.to.unwrap_or(inst.state));
    }
    Err(Problem::Unexpected)
}

fn act(
    spec: &Spec,
    machine: &Compiled,
    (m, k): (&Seen<'_>, KindRef),
    inst: &mut Instance,
    key: &str,
    a: &Action,
) {
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
                k,
                inst,
                key,
            };
            if when.iter().all(|c| ctx.holds(c)) {
                inst.sets[slot(memory)].insert(value.clone());
            }
        }
        Action::Set { memory, field } => spec
            .read(m, k, field)
            .field()
            .store_into(&mut inst.values[slot(memory)]),
        Action::Add { memory, field } => {
            let set = &mut inst.sets[slot(memory)];
            spec.read(m, k, field).field().for_each_str(|s| {
                set.insert(s.to_owned());
            });
        }
        Action::Remove { memory, field } => {
            let set = &mut inst.sets[slot(memory)];
            spec.read(m, k, field).field().for_each_str(|s| {
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
    m: &'a Seen<'a>,
    /// The kind the rule or transition names the message as.
    k: KindRef,
    inst: &'a Instance,
    key: &'a str,
}

impl Ctx<'_> {
    fn holds(&self, c: &Condition) -> bool {
        let read = match &c.subject {
            Subject::Field(path) => self.spec.read(self.m, self.k, path),
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
