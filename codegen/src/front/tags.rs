//! The one constraint-tag pipeline every front end shares: JSDoc tags (`@minLength 1`), tags
//! in proto comments (the same spelling) and `#[validate(min_length = 1)]` keys. Each front
//! end finds the tags its own way; naming, value parsing, the fit to the field's type, the
//! bounds check and the wording of every error are here, once.

use crate::ir::{Constraints, FORMATS, Ty};

/// One constraint rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rule {
    MinLength,
    MaxLength,
    Pattern,
    Minimum,
    Maximum,
    MinItems,
    MaxItems,
    Format,
    Trim,
}

/// Every rule, in the order validators check them.
pub const RULES: &[Rule] = &[
    Rule::Trim,
    Rule::MinLength,
    Rule::MaxLength,
    Rule::Pattern,
    Rule::Format,
    Rule::Minimum,
    Rule::Maximum,
    Rule::MinItems,
    Rule::MaxItems,
];

impl Rule {
    /// The name as a JSDoc or proto comment tag writes it (`minLength`).
    pub fn tag(self) -> &'static str {
        match self {
            Rule::MinLength => "minLength",
            Rule::MaxLength => "maxLength",
            Rule::Pattern => "pattern",
            Rule::Minimum => "minimum",
            Rule::Maximum => "maximum",
            Rule::MinItems => "minItems",
            Rule::MaxItems => "maxItems",
            Rule::Format => "format",
            Rule::Trim => "trim",
        }
    }

    /// The name as a `#[validate(...)]` key writes it (`min_length`).
    pub fn key(self) -> &'static str {
        match self {
            Rule::MinLength => "min_length",
            Rule::MaxLength => "max_length",
            Rule::MinItems => "min_items",
            Rule::MaxItems => "max_items",
            other => other.tag(),
        }
    }

    pub fn from_key(key: &str) -> Option<Rule> {
        RULES.iter().copied().find(|r| r.key() == key)
    }

    /// What kind of value the rule constrains.
    pub fn applies_to(self) -> Shape {
        match self {
            Rule::MinLength | Rule::MaxLength | Rule::Pattern | Rule::Format | Rule::Trim => {
                Shape::Text
            }
            Rule::Minimum | Rule::Maximum => Shape::Number,
            Rule::MinItems | Rule::MaxItems => Shape::List,
        }
    }
}

/// What a tag name found in a comment is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TagName {
    Known(Rule),
    /// A rule's name in the wrong case (`@minlength`): an error, tags are case-sensitive.
    Misspelt(Rule),
    /// Any other `@word` (`@see`, `@deprecated`, an email address): documentation.
    Other,
}

pub fn classify_tag(name: &str) -> TagName {
    for r in RULES {
        if r.tag() == name {
            return TagName::Known(*r);
        }
        if r.tag().eq_ignore_ascii_case(name) {
            return TagName::Misspelt(*r);
        }
    }
    // A near miss of a rule (`@minimun`, `@maxItem`) would silently drop the rule; a tag
    // JSDoc or a schema generator defines is documentation, however close it is.
    if name.len() >= 5 && !DOC_TAGS.iter().any(|t| t.eq_ignore_ascii_case(name)) {
        let near = RULES
            .iter()
            .map(|r| {
                (
                    edit_distance(&r.tag().to_ascii_lowercase(), &name.to_ascii_lowercase()),
                    *r,
                )
            })
            .filter(|(d, _)| *d <= 2)
            .min_by_key(|(d, _)| *d);
        if let Some((_, r)) = near {
            return TagName::Misspelt(r);
        }
    }
    TagName::Other
}

/// Tags that document rather than constrain, read by JSDoc, TypeDoc,
/// typescript-json-schema or ts-json-schema-generator: never taken for a misspelt rule.
const DOC_TAGS: &[&str] = &[
    "param",
    "returns",
    "return",
    "example",
    "deprecated",
    "default",
    "remarks",
    "category",
    "internal",
    "since",
    "throws",
    "typedef",
    "property",
    "description",
    "title",
    "examples",
    "nullable",
    "readonly",
    "private",
    "public",
    "TJS-type",
    "asType",
    "discriminator",
    "additionalProperties",
    "minProperties",
    "maxProperties",
    "multipleOf",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "uniqueItems",
    "contentMediaType",
    "contentEncoding",
    "experimental",
    "beta",
    "alpha",
    "version",
    "author",
    "license",
    "link",
    "inheritDoc",
    "override",
    "template",
    "typeParam",
    "module",
    "packageDocumentation",
];

/// Levenshtein distance between two short ASCII words.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

/// A constraint mistake: what is wrong, and how to fix it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TagError {
    pub message: String,
    pub help: String,
}

impl TagError {
    fn new(message: String, help: impl Into<String>) -> Self {
        Self {
            message,
            help: help.into(),
        }
    }

    /// The error of a misspelt tag.
    pub fn misspelt(written: &str, rule: Rule) -> Self {
        let help = if rule.tag().eq_ignore_ascii_case(written) {
            format!("tags are case-sensitive: write `@{}`", rule.tag())
        } else {
            format!("did you mean `@{}`?", rule.tag())
        };
        Self::new(format!("unknown constraint tag `@{written}`"), help)
    }
}

/// What a constrained value is, as far as the front end can tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    Text,
    Number,
    List,
    /// Neither: a boolean, an object, a union.
    Other,
    /// A type the front end cannot see through (a derive's alias): any rule is taken.
    Unknown,
}

impl Shape {
    fn plural(self) -> &'static str {
        match self {
            Shape::Text => "strings",
            Shape::Number => "numbers",
            Shape::List => "lists",
            Shape::Other | Shape::Unknown => "values",
        }
    }
}

/// A parsed rule value.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Count(u64),
    Number(f64),
    Text(String),
    Flag,
}

/// `written` is the rule as the user wrote it (`@minLength`, `min_length`), for messages.
pub fn count(written: &str, value: &str) -> Result<u64, TagError> {
    value.trim().parse::<u64>().map_err(|_| {
        TagError::new(
            format!("`{written}` needs a whole number, found `{}`", value.trim()),
            "write a count such as 1",
        )
    })
}

pub fn number(written: &str, value: &str) -> Result<f64, TagError> {
    value
        .trim()
        .parse::<f64>()
        .ok()
        .filter(|n| n.is_finite())
        .ok_or_else(|| {
            TagError::new(
                format!(
                    "`{written}` needs a finite number, found `{}`",
                    value.trim()
                ),
                "write a number such as 1 or -0.5",
            )
        })
}

pub fn pattern(written: &str, value: &str) -> Result<(), TagError> {
    if value.is_empty() {
        return Err(TagError::new(
            format!("`{written}` needs a regular expression"),
            "write e.g. ^[a-z]+$",
        ));
    }
    regex::Regex::new(value).map(|_| ()).map_err(|e| {
        let text = e.to_string();
        // regex draws the pattern over several lines; the last one says what is wrong.
        let last = text
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .map_or(text.as_str(), |l| l.trim().trim_start_matches("error: "));
        TagError::new(
            format!("`{written}` is not a valid regular expression: {last}"),
            "the syntax is the Rust `regex` crate's (no look-around, no backreferences)",
        )
    })
}

pub fn format(written: &str, value: &str) -> Result<(), TagError> {
    if FORMATS.contains(&value) {
        return Ok(());
    }
    Err(TagError::new(
        format!("unknown format `{value}` for `{written}`"),
        format!("expected one of {}", FORMATS.join(", ")),
    ))
}

/// Parses the text after a comment tag.
pub fn parse_value(rule: Rule, written: &str, value: &str) -> Result<Value, TagError> {
    let value = value.trim();
    Ok(match rule {
        Rule::MinLength | Rule::MaxLength | Rule::MinItems | Rule::MaxItems => {
            Value::Count(count(written, value)?)
        }
        Rule::Minimum | Rule::Maximum => Value::Number(number(written, value)?),
        Rule::Pattern => {
            pattern(written, value)?;
            Value::Text(value.to_owned())
        }
        Rule::Format => {
            format(written, value)?;
            Value::Text(value.to_owned())
        }
        Rule::Trim => Value::Flag,
    })
}

/// Whether `rule` fits a value of `shape`.
pub fn fits(rule: Rule, written: &str, shape: Shape) -> Result<(), TagError> {
    let want = rule.applies_to();
    if shape == want || shape == Shape::Unknown {
        return Ok(());
    }
    Err(TagError::new(
        format!(
            "`{written}` applies to {}, and this field is not one",
            want.plural()
        ),
        format!("put `{written}` on a field of {}", want.plural()),
    ))
}

/// The shape of the value a rule on a field of type `ty` constrains: on a list, `@minItems`
/// and `@maxItems` count the elements and every other rule applies to each element; on a map
/// every rule applies to each value. A named type is `Unknown` here (an alias may be a string).
pub fn shape_for(rule: Rule, ty: &Ty) -> Shape {
    match ty {
        Ty::Nullable(inner) => shape_for(rule, inner),
        Ty::Array(_) if rule.applies_to() == Shape::List => Shape::List,
        Ty::Array(inner) | Ty::Map(inner) => shape_for(rule, inner),
        Ty::String => Shape::Text,
        Ty::Number | Ty::Integer => Shape::Number,
        Ty::Scalar(s) if s.is_number() => Shape::Number,
        Ty::Named(_) | Ty::Any => Shape::Unknown,
        // Decoding checks a well-known type's form; no tag reaches inside it.
        Ty::Bool | Ty::BoolLiteral(_) | Ty::Scalar(_) | Ty::WellKnown(_) => Shape::Other,
    }
}

/// The rules `c` sets, in check order.
pub fn rules_of(c: &Constraints) -> Vec<Rule> {
    RULES
        .iter()
        .copied()
        .filter(|r| match r {
            Rule::MinLength => c.min_length.is_some(),
            Rule::MaxLength => c.max_length.is_some(),
            Rule::Pattern => c.pattern.is_some(),
            Rule::Minimum => c.minimum.is_some(),
            Rule::Maximum => c.maximum.is_some(),
            Rule::MinItems => c.min_items.is_some(),
            Rule::MaxItems => c.max_items.is_some(),
            Rule::Format => c.format.is_some(),
            Rule::Trim => c.trim,
        })
        .collect()
}

/// Stores a parsed value; `Err` names a rule given twice.
pub fn apply(c: &mut Constraints, rule: Rule, written: &str, value: Value) -> Result<(), TagError> {
    let dup = || {
        TagError::new(
            format!("duplicate `{written}`"),
            "give each rule once per field",
        )
    };
    fn put<T>(slot: &mut Option<T>, v: T, dup: impl FnOnce() -> TagError) -> Result<(), TagError> {
        if slot.is_some() {
            return Err(dup());
        }
        *slot = Some(v);
        Ok(())
    }
    match (rule, value) {
        (Rule::MinLength, Value::Count(n)) => put(&mut c.min_length, n, dup),
        (Rule::MaxLength, Value::Count(n)) => put(&mut c.max_length, n, dup),
        (Rule::MinItems, Value::Count(n)) => put(&mut c.min_items, n, dup),
        (Rule::MaxItems, Value::Count(n)) => put(&mut c.max_items, n, dup),
        (Rule::Minimum, Value::Number(n)) => put(&mut c.minimum, n, dup),
        (Rule::Maximum, Value::Number(n)) => put(&mut c.maximum, n, dup),
        (Rule::Pattern, Value::Text(p)) => put(&mut c.pattern, p, dup),
        (Rule::Format, Value::Text(f)) => put(&mut c.format, f, dup),
        (Rule::Trim, _) if c.trim => Err(dup()),
        (Rule::Trim, _) => {
            c.trim = true;
            Ok(())
        }
        (rule, value) => Err(TagError::new(
            format!("`{written}` cannot take {value:?}"),
            format!("see the `{}` rule", rule.tag()),
        )),
    }
}

/// A lower bound above its upper bound can never be met. `name` spells a rule with its value
/// the way the front end writes it (`@minLength 5`, `min_length = 5`). Returns the upper
/// bound's rule (where the error belongs) with the error.
pub fn check_bounds(c: &Constraints, name: impl Fn(Rule, f64) -> String) -> Vec<(Rule, TagError)> {
    let pairs = [
        (
            Rule::MinLength,
            c.min_length.map(|n| n as f64),
            Rule::MaxLength,
            c.max_length.map(|n| n as f64),
        ),
        (Rule::Minimum, c.minimum, Rule::Maximum, c.maximum),
        (
            Rule::MinItems,
            c.min_items.map(|n| n as f64),
            Rule::MaxItems,
            c.max_items.map(|n| n as f64),
        ),
    ];
    pairs
        .into_iter()
        .filter_map(|(lo, lo_v, hi, hi_v)| match (lo_v, hi_v) {
            (Some(l), Some(h)) if l > h => Some((
                hi,
                TagError::new(
                    format!(
                        "`{}` is above `{}`: no value passes",
                        name(lo, l),
                        name(hi, h)
                    ),
                    "no value can satisfy both; lower the minimum or raise the maximum",
                ),
            )),
            _ => None,
        })
        .collect()
}

/// A comment tag with its value, for `check_bounds`.
pub fn tag_with_value(rule: Rule, value: f64) -> String {
    format!("@{} {value}", rule.tag())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_front_end_gets_the_same_wording() {
        assert_eq!(
            count("@minLength", "x").unwrap_err().message,
            "`@minLength` needs a whole number, found `x`"
        );
        assert_eq!(
            count("min_length", "x").unwrap_err().message,
            "`min_length` needs a whole number, found `x`"
        );
        assert!(
            pattern("@pattern", "[")
                .unwrap_err()
                .message
                .ends_with("unclosed character class")
        );
        assert!(format("format", "email").is_err());
        assert!(fits(Rule::MinItems, "@minItems", Shape::Text).is_err());
        assert!(fits(Rule::MinItems, "min_items", Shape::Unknown).is_ok());
    }

    #[test]
    fn bounds_and_duplicates() {
        let mut c = Constraints::default();
        apply(&mut c, Rule::MinLength, "@minLength", Value::Count(5)).unwrap();
        apply(&mut c, Rule::MaxLength, "@maxLength", Value::Count(2)).unwrap();
        assert!(apply(&mut c, Rule::MaxLength, "@maxLength", Value::Count(3)).is_err());
        let errors = check_bounds(&c, tag_with_value);
        assert_eq!(errors.len(), 1);
        assert_eq!(
            errors[0].1.message,
            "`@minLength 5` is above `@maxLength 2`: no value passes"
        );
        assert_eq!(
            classify_tag("minlength"),
            TagName::Misspelt(Rule::MinLength)
        );
        assert_eq!(classify_tag("see"), TagName::Other);
        assert_eq!(classify_tag("minimun"), TagName::Misspelt(Rule::Minimum));
        assert_eq!(classify_tag("maxItem"), TagName::Misspelt(Rule::MaxItems));
        assert_eq!(classify_tag("deprecated"), TagName::Other);
        assert_eq!(classify_tag("category"), TagName::Other);
        assert_eq!(
            TagError::misspelt("minimun", Rule::Minimum).help,
            "did you mean `@minimum`?"
        );
    }
}
