//! The rules a spec sets on one value (a field, an alias, a list's elements), each with its
//! argument, kept in the table's check order.

use super::{Check, Rule, Shape, Value};

/// Constraints beyond the type, from comment tags, JSON Schema keywords or derive keys.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Constraints {
    /// In table order; each rule at most once.
    rules: Vec<(Rule, Value)>,
    /// Strings the value must not be: a union's catch-all member takes no tag value a named
    /// member has (JSON Schema `not: {anyOf: [{properties: {tag: {const: ...}}}]}`). Not a
    /// rule a spec writes: the loaders derive it from the union.
    pub not_one_of: Vec<String>,
}

impl Constraints {
    pub fn is_empty(&self) -> bool {
        self.rules.is_empty() && self.not_one_of.is_empty()
    }

    /// Sets `rule` to `value`; false (and nothing changed) when it is already set.
    pub fn set(&mut self, rule: Rule, value: Value) -> bool {
        if self.get(rule).is_some() {
            return false;
        }
        let at = self
            .rules
            .iter()
            .position(|(r, _)| r.index() > rule.index())
            .unwrap_or(self.rules.len());
        self.rules.insert(at, (rule, value));
        true
    }

    /// Builder form of [`Constraints::set`].
    pub fn with(mut self, rule: Rule, value: Value) -> Self {
        self.set(rule, value);
        self
    }

    pub fn get(&self, rule: Rule) -> Option<&Value> {
        self.rules.iter().find(|(r, _)| *r == rule).map(|(_, v)| v)
    }

    pub fn has(&self, rule: Rule) -> bool {
        self.get(rule).is_some()
    }

    /// A count rule's argument (`@minLength 1` is `Some(1)`).
    pub fn count(&self, rule: Rule) -> Option<u64> {
        match self.get(rule)? {
            Value::Count(n) => Some(*n),
            _ => None,
        }
    }

    /// A number rule's argument.
    pub fn number(&self, rule: Rule) -> Option<f64> {
        match self.get(rule)? {
            Value::Number(n) => Some(*n),
            _ => None,
        }
    }

    /// A text rule's argument (a pattern, a format).
    pub fn text(&self, rule: Rule) -> Option<&str> {
        match self.get(rule)? {
            Value::Text(t) => Some(t),
            _ => None,
        }
    }

    /// Every rule set, in check order.
    pub fn iter(&self) -> impl Iterator<Item = (Rule, &Value)> {
        self.rules.iter().map(|(r, v)| (*r, v))
    }

    /// The rules on values of `shape` only.
    pub fn only(&self, shape: Shape) -> Constraints {
        Constraints {
            rules: self.of(|r| r.shape == shape),
            not_one_of: Vec::new(),
        }
    }

    /// Everything but the rules on values of `shape` (a list's rules for its elements).
    pub fn without(&self, shape: Shape) -> Constraints {
        Constraints {
            rules: self.of(|r| r.shape != shape),
            not_one_of: self.not_one_of.clone(),
        }
    }

    fn of(&self, keep: impl Fn(Rule) -> bool) -> Vec<(Rule, Value)> {
        self.rules
            .iter()
            .filter(|(r, _)| keep(r))
            .cloned()
            .collect()
    }

    /// How many rules these constraints add (what the gen summary counts): a flag that only
    /// changes what the rules see (`@trim`) is not one.
    pub fn rule_count(&self) -> usize {
        self.rules
            .iter()
            .filter(|(r, _)| !matches!(r.check, Check::Trim))
            .count()
            + usize::from(!self.not_one_of.is_empty())
    }
}
