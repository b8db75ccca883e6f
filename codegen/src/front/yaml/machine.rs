//! `machine.yaml` loader: reads the state machines of a protocol into IR, checking names that
//! need no message model (states, memory, operators); the lint checks the rest.

use serde::Deserialize;
use serde_json::Value;
use serde_saphyr::{Location, Spanned};

use crate::diag::span_of;
use crate::diag::{SourceFile, SpecError, SpecErrors};
use crate::ir::{
    Action, Condition, KeyRule, KindRef, Literal, Machine, MemoryKind, Operator, Origin, Subject,
    Transition,
};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawFile {
    /// Another machine file of the folder whose machines this one adds to (`extends.rs`).
    #[serde(default)]
    pub(super) extends: Option<Spanned<String>>,
    pub(super) machines: Vec<RawMachine>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawMachine {
    pub(super) name: Spanned<String>,
    #[serde(default)]
    pub(super) summary: String,
    /// `key`, `initial`, `accepting` and `transitions` are required of a new machine; a
    /// machine of the file this one extends may leave them out.
    #[serde(default)]
    pub(super) key: Option<RawKey>,
    #[serde(default)]
    pub(super) initial: Option<Spanned<String>>,
    #[serde(default)]
    pub(super) accepting: Option<Vec<Spanned<String>>>,
    #[serde(default, rename = "final")]
    pub(super) finals: Vec<Spanned<String>>,
    #[serde(default)]
    pub(super) retain: Option<Spanned<usize>>,
    #[serde(default)]
    pub(super) memory: std::collections::BTreeMap<String, Spanned<String>>,
    #[serde(default)]
    pub(super) transitions: Option<Vec<RawTransition>>,
}

pub(super) enum RawKey {
    Connection(String),
    Rules(Vec<Spanned<RawKeyRule>>),
}

/// `key:` is a word or a list; read without serde's untagged buffering, which loses the YAML
/// reader's support for nested structures.
impl<'de> Deserialize<'de> for RawKey {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = RawKey;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("`connection` or a list of key rules")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<RawKey, E> {
                Ok(RawKey::Connection(v.to_owned()))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<RawKey, A::Error> {
                let mut rules = Vec::new();
                while let Some(r) = seq.next_element()? {
                    rules.push(r);
                }
                Ok(RawKey::Rules(rules))
            }
        }
        d.deserialize_any(V)
    }
}

/// One key rule; read by the real YAML reader (see `RawKey`), so its parts keep their lines.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawKeyRule {
    on: Spanned<String>,
    field: Spanned<RawPaths>,
    #[serde(default, rename = "if")]
    guard: Vec<Spanned<RawCondition>>,
    #[serde(default)]
    link: Option<String>,
    #[serde(default)]
    linked: bool,
}

/// A key rule's `field:`, one path or a list of them (a key of several fields).
enum RawPaths {
    One(String),
    Many(Vec<String>),
}

impl<'de> Deserialize<'de> for RawPaths {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = RawPaths;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a field path or a list of field paths")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<RawPaths, E> {
                Ok(RawPaths::One(v.to_owned()))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<RawPaths, A::Error> {
                let mut paths = Vec::new();
                while let Some(p) = seq.next_element()? {
                    paths.push(p);
                }
                Ok(RawPaths::Many(paths))
            }
        }
        d.deserialize_any(V)
    }
}

enum RawFrom {
    One(String),
    Many(Vec<String>),
}

impl<'de> Deserialize<'de> for RawFrom {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = RawFrom;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a state, a list of states, or `*`")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<RawFrom, E> {
                Ok(RawFrom::One(v.to_owned()))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<RawFrom, A::Error> {
                let mut states = Vec::new();
                while let Some(s) = seq.next_element()? {
                    states.push(s);
                }
                Ok(RawFrom::Many(states))
            }
        }
        d.deserialize_any(V)
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawTransition {
    from: Spanned<RawFrom>,
    pub(super) on: Spanned<String>,
    #[serde(default, rename = "if")]
    guard: Vec<Spanned<RawCondition>>,
    #[serde(default)]
    check: Vec<Spanned<RawCondition>>,
    #[serde(default, rename = "do")]
    actions: Vec<Spanned<RawAction>>,
    #[serde(default)]
    to: Option<Spanned<String>>,
}

/// A present key becomes `Some`, even when its value is `null` (`is: null` is a real test).
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawCondition {
    field: Option<String>,
    #[serde(default, deserialize_with = "present")]
    value: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    is: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    is_not: Option<Value>,
    one_of: Option<Vec<Value>>,
    present: Option<bool>,
    equals: Option<String>,
    extends: Option<String>,
    #[serde(rename = "in")]
    in_set: Option<String>,
    not_in: Option<String>,
    /// In `check:` only: the error code a request the check refuses is answered with.
    code: Option<Spanned<i64>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawAction {
    set: Option<String>,
    add: Option<String>,
    remove: Option<String>,
    clear: Option<String>,
    field: Option<String>,
    /// With `add`: the constant to add instead of a field's value.
    value: Option<String>,
    /// With `add` and `value`: add only when every condition holds.
    #[serde(default, rename = "if")]
    when: Vec<Spanned<RawCondition>>,
}

/// Parses `role.kind` / `role.*`, or `role.response to role.request` (a response matched to
/// the request it answers).
pub fn parse_kind_ref(s: &str) -> Option<KindRef> {
    if let Some((response, request)) = s.split_once(" to ") {
        let response = parse_kind_ref(response.trim())?;
        let request = parse_kind_ref(request.trim())?;
        if response.kind.is_none() || request.kind.is_none() || request.answers.is_some() {
            return None;
        }
        return Some(KindRef {
            answers: Some(Box::new(request)),
            ..response
        });
    }
    let (role, kind) = s.split_once('.')?;
    if role.is_empty() || kind.is_empty() || kind.contains(char::is_whitespace) {
        return None;
    }
    Some(KindRef {
        role: role.to_owned(),
        kind: (kind != "*").then(|| kind.to_owned()),
        answers: None,
    })
}

pub(super) struct Ctx<'f> {
    pub(super) file: &'f SourceFile,
    pub(super) errors: SpecErrors,
}

impl Ctx<'_> {
    pub(super) fn err(&mut self, loc: &Location, message: impl Into<String>) {
        self.errors
            .push(SpecError::at(self.file, span_of(self.file, loc), message));
    }

    /// A machine or memory name becomes a Rust field (and `step_<name>`): a snake_case word
    /// that is no keyword.
    fn rust_word(&mut self, loc: &Location, what: &str, name: &str) {
        let word = name.starts_with(|c: char| c.is_ascii_lowercase() || c == '_')
            && name
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
        if !word || crate::naming::is_keyword(name) {
            self.err(
                loc,
                format!("{what} `{name}` must be a snake_case word (a-z, 0-9, _) that is no Rust keyword"),
            );
        }
    }

    /// A state becomes an enum variant, its words in PascalCase: it needs a letter or digit.
    pub(super) fn state_word(&mut self, loc: &Location, state: &str) {
        if state != "*" && crate::naming::pascal_case(state).is_empty() {
            self.err(loc, format!("state `{state}` needs a letter or digit"));
        }
    }

    /// Where a rule was written: the file's name in the spec folder (an extended file's rules
    /// keep their own file) and the line.
    pub(super) fn origin(&self, loc: &Location) -> Origin {
        Origin {
            file: self.file.path.file_name().map_or_else(
                || "machine.yaml".to_owned(),
                |n| n.to_string_lossy().into_owned(),
            ),
            line: loc.line() as usize,
        }
    }

    fn kind_ref(&mut self, s: &Spanned<String>) -> KindRef {
        self.kind_ref_at(&s.referenced, &s.value)
    }

    fn kind_ref_at(&mut self, loc: &Location, s: &str) -> KindRef {
        parse_kind_ref(s).unwrap_or_else(|| {
            self.err(
                loc,
                format!(
                    "`{s}` must be written `role.kind`, `role.*` or `role.response to role.request`"
                ),
            );
            KindRef {
                role: String::new(),
                kind: None,
                answers: None,
            }
        })
    }

    fn literal(&mut self, loc: &Location, v: &Value) -> Literal {
        match v {
            Value::String(s) => Literal::Str(s.clone()),
            Value::Bool(b) => Literal::Bool(*b),
            Value::Number(n) => Literal::Num(n.as_f64().unwrap_or_default()),
            Value::Null => Literal::Null,
            _ => {
                self.err(
                    loc,
                    "a condition compares against a string, bool, number or null",
                );
                Literal::Null
            }
        }
    }

    /// A guard (`if:`): it refuses nothing, so it names no error code.
    fn condition(&mut self, c: &Spanned<RawCondition>) -> Option<Condition> {
        if let Some(code) = &c.value.code {
            self.err(
                &code.referenced,
                "`code:` names the error a failed check is answered with: it belongs in `check:`, \
                 not in a condition that only selects (`if:`)",
            );
        }
        self.condition_at(&c.referenced, &c.value)
    }

    /// A check, with the error code it declares for the requests it refuses.
    fn check(&mut self, c: &Spanned<RawCondition>) -> Option<Condition> {
        let code = c.value.code.as_ref().map(|code| {
            if !is_refusal_code(code.value) {
                self.err(
                    &code.referenced,
                    format!(
                        "`code: {}` is reserved by JSON-RPC 2.0 for its own errors (-32768 to \
                         -32100, other than -32600 to -32603)",
                        code.value
                    ),
                );
            }
            code.value
        });
        let mut out = self.condition_at(&c.referenced, &c.value)?;
        out.code = code;
        Some(out)
    }

    fn condition_at(&mut self, loc: &Location, r: &RawCondition) -> Option<Condition> {
        let subject = match (&r.field, &r.value) {
            (Some(f), None) => Subject::Field(f.clone()),
            (None, Some(v)) => Subject::Value(self.literal(loc, v)),
            _ => {
                self.err(loc, "a condition names exactly one of `field` or `value`");
                return None;
            }
        };
        let mut ops = Vec::new();
        if let Some(v) = &r.is {
            ops.push(Operator::Is(self.literal(loc, v)));
        }
        if let Some(v) = &r.is_not {
            ops.push(Operator::IsNot(self.literal(loc, v)));
        }
        if let Some(vs) = &r.one_of {
            let lits = vs.iter().map(|v| self.literal(loc, v)).collect();
            ops.push(Operator::OneOf(lits));
        }
        if let Some(b) = r.present {
            ops.push(Operator::Present(b));
        }
        if let Some(m) = &r.equals {
            ops.push(Operator::Equals(m.clone()));
        }
        if let Some(m) = &r.extends {
            ops.push(Operator::Extends(m.clone()));
        }
        if let Some(m) = &r.in_set {
            ops.push(Operator::In(m.clone()));
        }
        if let Some(m) = &r.not_in {
            ops.push(Operator::NotIn(m.clone()));
        }
        if ops.len() != 1 {
            self.err(
                loc,
                "a condition has exactly one operator (is, is_not, one_of, present, equals, extends, in, not_in)",
            );
            return None;
        }
        let op = ops.remove(0);
        if matches!(subject, Subject::Value(_))
            && !matches!(op, Operator::In(_) | Operator::NotIn(_))
        {
            self.err(
                loc,
                "a `value` condition tests membership: use `in` or `not_in`",
            );
            return None;
        }
        Some(Condition {
            text: describe(&subject, &op),
            subject,
            op,
            code: None,
            origin: self.origin(loc),
        })
    }

    /// A machine's key rules. Every rule names the same number of fields: a message keyed by
    /// a chat alone could never meet one keyed by chat and tool call.
    pub(super) fn key_rules(&mut self, rules: &[Spanned<RawKeyRule>]) -> Vec<KeyRule> {
        let mut out: Vec<KeyRule> = Vec::new();
        for r in rules {
            let fields = match &r.value.field.value {
                RawPaths::One(p) => vec![p.clone()],
                RawPaths::Many(ps) => ps.clone(),
            };
            let at = &r.value.field.referenced;
            if fields.is_empty() {
                self.err(
                    at,
                    "`field: []` names no field: write a path or a list of paths",
                );
            }
            for (i, f) in fields.iter().enumerate() {
                if f.is_empty() {
                    self.err(at, "a key field path is empty");
                } else if fields[..i].contains(f) {
                    self.err(at, format!("key field `{f}` is listed twice"));
                }
            }
            if let Some(first) = out.first().filter(|k| k.fields.len() != fields.len()) {
                self.err(
                    at,
                    format!(
                        "this key rule names {} field(s), the machine's first rule (line {}) {}: \
                         every rule of a machine gives a key of the same fields",
                        fields.len(),
                        first.origin.line,
                        first.fields.len()
                    ),
                );
            }
            if r.value.link.is_some() && r.value.linked {
                self.err(
                    at,
                    "a key rule either records a link (`link:`) or follows one (`linked: true`), \
                     not both",
                );
            }
            if (r.value.link.is_some() || r.value.linked) && fields.len() != 1 {
                self.err(at, "a machine with links is keyed by one field");
            }
            out.push(KeyRule {
                on: self.kind_ref(&r.value.on),
                link: r.value.link.clone(),
                linked: r.value.linked,
                fields,
                guard: r
                    .value
                    .guard
                    .iter()
                    .filter_map(|c| self.condition(c))
                    .collect(),
                origin: self.origin(&r.referenced),
            });
        }
        out
    }

    /// A `linked: true` rule among `raw` needs a rule of the machine (`all`, inherited ones
    /// included) that records links.
    pub(super) fn links_recorded(&mut self, all: &[KeyRule], raw: &[Spanned<RawKeyRule>]) {
        let records = all.iter().any(|r| r.link.is_some());
        if let Some(r) = raw.iter().find(|r| r.value.linked && !records) {
            self.err(
                &r.referenced,
                "`linked: true` follows links, but no key rule of this machine records one \
                 (`link: <path>`)",
            );
        }
    }

    fn action(&mut self, a: &Spanned<RawAction>) -> Option<Action> {
        let r = &a.value;
        let field = || r.field.clone();
        if let (Some(m), Some(v), None) = (&r.add, &r.value, &r.field) {
            let when = r.when.iter().filter_map(|c| self.condition(c)).collect();
            return Some(Action::AddValue {
                memory: m.clone(),
                value: v.clone(),
                when,
            });
        }
        let plain = r.value.is_none() && r.when.is_empty();
        let act = match (&r.set, &r.add, &r.remove, &r.clear) {
            _ if !plain => None,
            (Some(m), None, None, None) => field().map(|f| Action::Set {
                memory: m.clone(),
                field: f,
            }),
            (None, Some(m), None, None) => field().map(|f| Action::Add {
                memory: m.clone(),
                field: f,
            }),
            (None, None, Some(m), None) => field().map(|f| Action::Remove {
                memory: m.clone(),
                field: f,
            }),
            (None, None, None, Some(m)) if r.field.is_none() => {
                Some(Action::Clear { memory: m.clone() })
            }
            _ => None,
        };
        if act.is_none() {
            self.err(
                &a.referenced,
                "an action is one of {set|add|remove: <memory>, field: <path>}, {add: <set>, value: <string>, if: [<conditions>]} or {clear: <memory>}",
            );
        }
        act
    }
}

/// Whether a check may refuse with `code`: JSON-RPC 2.0 keeps -32768 to -32000 for
/// predefined errors, of which -32099 to -32000 are left to servers. Of the predefined ones,
/// "Invalid Request" (the default), "Method not found", "Invalid params" and "Internal error"
/// can describe a refused request; "Parse error" and the unassigned rest cannot.
fn is_refusal_code(code: i64) -> bool {
    (-32603..=-32600).contains(&code) || !(-32768..=-32100).contains(&code)
}

/// A condition rendered as in the YAML, for violation messages.
fn describe(subject: &Subject, op: &Operator) -> String {
    let lit = |l: &Literal| match l {
        Literal::Str(s) => format!("{s:?}"),
        Literal::Bool(b) => b.to_string(),
        Literal::Num(n) => n.to_string(),
        Literal::Null => "null".to_owned(),
    };
    let left = match subject {
        Subject::Field(f) => f.clone(),
        Subject::Value(v) => lit(v),
    };
    let right = match op {
        Operator::Is(l) => format!("is {}", lit(l)),
        Operator::IsNot(l) => format!("is not {}", lit(l)),
        Operator::OneOf(ls) => format!(
            "is one of {}",
            ls.iter().map(lit).collect::<Vec<_>>().join(", ")
        ),
        Operator::Present(true) => "is present".to_owned(),
        Operator::Present(false) => "is absent".to_owned(),
        Operator::Equals(m) => format!("equals {m}"),
        Operator::Extends(m) => format!("extends {m}"),
        Operator::In(m) => format!("in {m}"),
        Operator::NotIn(m) => format!("not in {m}"),
    };
    format!("{left} {right}")
}

/// A machine file read with every file it extends.
pub struct Loaded {
    pub machines: Vec<Machine>,
    /// The file itself first, then the files it extends, nearest first: every rule's
    /// `Origin::file` names one of them.
    pub files: Vec<SourceFile>,
}

/// Loads `machine.yaml`. Each machine's state list is the initial state first, then every
/// other state in order of first mention. A file with `extends:` adds to the machines of the
/// file it names (`extends.rs`).
pub fn load(file: &SourceFile) -> Result<Loaded, SpecErrors> {
    load_chain(file, &mut Vec::new())
}

/// `load`, with the files whose `extends:` led here (`chain`, for a cycle).
pub(super) fn load_chain(
    file: &SourceFile,
    chain: &mut Vec<std::path::PathBuf>,
) -> Result<Loaded, SpecErrors> {
    let raw: RawFile = serde_saphyr::from_str(&file.text).map_err(|e| {
        let span = e.location().map_or((0, 0), |l| span_of(file, &l));
        let what = crate::suggest::yaml_message(&e);
        SpecError::at(file, span, format!("malformed machine.yaml: {what}")).with_help(
            crate::suggest::see("the machine.yaml format", "machineyaml"),
        )
    })?;
    let mut cx = Ctx {
        file,
        errors: SpecErrors::default(),
    };
    let mut loaded = Loaded {
        machines: Vec::new(),
        files: vec![file.clone()],
    };
    if let Some(name) = &raw.extends {
        chain.push(file.path.clone());
        if let Some(base) = super::extends::base(&mut cx, name, chain) {
            loaded.machines = base.machines;
            loaded.files.extend(base.files);
        }
        chain.pop();
    }
    let inherited = loaded.machines.len();
    let mut names: Vec<&str> = Vec::new();
    for m in &raw.machines {
        if names.contains(&m.name.value.as_str()) {
            cx.err(
                &m.name.referenced,
                format!("machine `{}` is defined twice", m.name.value),
            );
            continue;
        }
        names.push(&m.name.value);
        let extended = loaded.machines[..inherited]
            .iter()
            .position(|b| b.name == m.name.value);
        match extended {
            Some(i) => super::extends::merge(&mut cx, &mut loaded.machines[i], m),
            None => {
                let machine = machine(&mut cx, m);
                loaded.machines.push(machine);
            }
        }
    }
    cx.errors.finish(loaded)
}

/// A memory declaration's kind (`value` or `set`), its name checked.
pub(super) fn memory_kind(cx: &mut Ctx<'_>, name: &str, kind: &Spanned<String>) -> MemoryKind {
    cx.rust_word(&kind.referenced, "memory name", name);
    match kind.value.as_str() {
        "value" => MemoryKind::Value,
        "set" => MemoryKind::Set,
        other => {
            cx.err(
                &kind.referenced,
                format!("memory kind `{other}` must be `value` or `set`"),
            );
            MemoryKind::Value
        }
    }
}

/// A machine's `key:`: `None` for `connection`.
pub(super) fn key(cx: &mut Ctx<'_>, m: &RawMachine, key: &RawKey) -> Option<Vec<KeyRule>> {
    match key {
        RawKey::Connection(s) if s == "connection" => None,
        RawKey::Connection(s) => {
            let hint = crate::suggest::did_you_mean(s, ["connection"]);
            cx.err(
                &m.name.referenced,
                format!("`key: {s}`: write `connection` or a list of key rules{hint}"),
            );
            None
        }
        RawKey::Rules(rules) => Some(cx.key_rules(rules)),
    }
}

/// One transition; the states it names are added to `states` in order of first mention.
pub(super) fn transition(
    cx: &mut Ctx<'_>,
    t: &RawTransition,
    states: &mut Vec<String>,
) -> Transition {
    let mut mention = |s: &str| {
        if !states.iter().any(|x| x == s) {
            states.push(s.to_owned());
        }
    };
    let from = match &t.from.value {
        RawFrom::One(s) if s == "*" => None,
        RawFrom::One(s) => Some(vec![s.clone()]),
        RawFrom::Many(v) => Some(v.clone()),
    };
    for s in from.iter().flatten() {
        cx.state_word(&t.from.referenced, s);
        mention(s);
    }
    if let Some(to) = &t.to {
        cx.state_word(&to.referenced, &to.value);
        mention(&to.value);
    }
    Transition {
        from,
        on: cx.kind_ref(&t.on),
        guard: t.guard.iter().filter_map(|c| cx.condition(c)).collect(),
        check: t.check.iter().filter_map(|c| cx.check(c)).collect(),
        actions: t.actions.iter().filter_map(|a| cx.action(a)).collect(),
        to: t.to.as_ref().map(|s| s.value.clone()),
        origin: cx.origin(&t.on.referenced),
    }
}

/// Every `accepting` and `final` state must be one a transition names.
pub(super) fn named_states(cx: &mut Ctx<'_>, m: &RawMachine, states: &[String]) {
    for s in m.accepting.iter().flatten().chain(&m.finals) {
        if !states.contains(&s.value) {
            cx.err(
                &s.referenced,
                format!("state `{}` appears in no transition", s.value),
            );
        }
    }
}

/// `retain: N`, which keeps finished instances: it needs final states to keep, and a count.
fn retain(cx: &mut Ctx<'_>, m: &RawMachine) -> Option<usize> {
    let r = m.retain.as_ref()?;
    if m.finals.is_empty() || r.value == 0 {
        cx.err(&r.referenced, RETAIN_NEEDS);
    }
    Some(r.value)
}

/// Why a `retain:` cannot be.
pub(super) const RETAIN_NEEDS: &str = "`retain: N` keeps the last N instances that reached a \
     `final` state: the machine needs final states and N of at least 1";

/// One new machine, checked.
fn machine(cx: &mut Ctx<'_>, m: &RawMachine) -> Machine {
    cx.rust_word(&m.name.referenced, "machine name", &m.name.value);
    let missing: Vec<&str> = [
        ("key", m.key.is_none()),
        ("initial", m.initial.is_none()),
        ("accepting", m.accepting.is_none()),
        ("transitions", m.transitions.is_none()),
    ]
    .into_iter()
    .filter_map(|(name, absent)| absent.then_some(name))
    .collect();
    if !missing.is_empty() {
        cx.err(
            &m.name.referenced,
            format!(
                "machine `{}` needs `{}`: only a machine of the file named by `extends:` may \
                 leave out `key`, `initial`, `accepting` and `transitions`",
                m.name.value,
                missing.join("`, `")
            ),
        );
    }
    let initial = m
        .initial
        .as_ref()
        .map(|s| s.value.clone())
        .unwrap_or_default();
    for s in m
        .initial
        .iter()
        .chain(m.accepting.iter().flatten())
        .chain(&m.finals)
    {
        cx.state_word(&s.referenced, &s.value);
    }
    let key = m.key.as_ref().and_then(|k| key(cx, m, k));
    if let (Some(all), Some(RawKey::Rules(raw))) = (&key, &m.key) {
        cx.links_recorded(all, raw);
    }
    let memory = m
        .memory
        .iter()
        .map(|(name, kind)| (name.clone(), memory_kind(cx, name, kind)))
        .collect();
    let mut states = vec![initial.clone()];
    let transitions = m
        .transitions
        .iter()
        .flatten()
        .map(|t| transition(cx, t, &mut states))
        .collect();
    named_states(cx, m, &states);
    Machine {
        name: m.name.value.clone(),
        summary: m.summary.clone(),
        key,
        initial,
        accepting: m
            .accepting
            .iter()
            .flatten()
            .map(|s| s.value.clone())
            .collect(),
        finals: m.finals.iter().map(|s| s.value.clone()).collect(),
        retain: retain(cx, m),
        states,
        memory,
        transitions,
        origin: cx.origin(&m.name.referenced),
    }
}
