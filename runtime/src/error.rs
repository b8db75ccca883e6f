//! The error vocabulary shared by decoding and validation: which rule failed, and where.

use std::fmt;

/// The rule a value broke. `name()` is the stable machine-readable form used in fixtures,
/// traces and docs.
#[derive(Debug, Clone, PartialEq)]
pub enum Rule {
    /// The input is not JSON at all.
    Syntax,
    /// A value has the wrong JSON type (or does not fit the Rust type, e.g. out of range).
    Type,
    /// A required field is absent.
    Required,
    /// A field appears twice in one object.
    Duplicate,
    /// The discriminator (or JSON-RPC method) names no kind this protocol has.
    UnknownKind,
    /// An object of a tagged union lacks its discriminator field.
    MissingKind,
    /// The message is one another role sends ("`x` is sent by the server, not the client").
    WrongSide,
    /// A string is none of the allowed literal values.
    Enum,
    Pattern(&'static str),
    MinLength(u64),
    MaxLength(u64),
    MinItems(u64),
    MaxItems(u64),
    Minimum(f64),
    Maximum(f64),
    MultipleOf(f64),
    /// A number at or below the bound it must be above.
    ExclusiveMinimum(f64),
    /// A number at or above the bound it must be below.
    ExclusiveMaximum(f64),
    /// A list with two equal elements (equal as JSON values: `1` and `1.0` are one value).
    UniqueItems,
    /// An object that has a member without the members that member requires
    /// (`dependentRequired`): the member, and the one missing.
    DependentRequired,
    Format(&'static str),
    /// A value a union's catch-all member must not have: a tag value that a named member of
    /// the union owns (its body did not fit that member).
    Not,
    /// A rule checked by a hand-written function (`#[validate(custom = ...)]`).
    Custom(&'static str),
    /// A JSON Schema keyword of a nested subschema with no rule above of its own (`any_of`,
    /// `one_of`, `additional_properties`, `property_names`, `min_properties`, `contains`,
    /// `pattern` inside a subschema, `false`): its snake_case name (`crate::subschema`).
    Keyword(&'static str),
}

impl Rule {
    /// The rule's stable name, e.g. `min_length`.
    pub fn name(&self) -> &'static str {
        match self {
            Rule::Syntax => "syntax",
            Rule::Type => "type",
            Rule::Required => "required",
            Rule::Duplicate => "duplicate",
            Rule::UnknownKind => "unknown_kind",
            Rule::MissingKind => "missing_kind",
            Rule::WrongSide => "wrong_side",
            Rule::Enum => "enum",
            Rule::Pattern(_) => "pattern",
            Rule::MinLength(_) => "min_length",
            Rule::MaxLength(_) => "max_length",
            Rule::MinItems(_) => "min_items",
            Rule::MaxItems(_) => "max_items",
            Rule::Minimum(_) => "minimum",
            Rule::Maximum(_) => "maximum",
            Rule::MultipleOf(_) => "multiple_of",
            Rule::ExclusiveMinimum(_) => "exclusive_minimum",
            Rule::ExclusiveMaximum(_) => "exclusive_maximum",
            Rule::UniqueItems => "unique_items",
            Rule::DependentRequired => "dependent_required",
            Rule::Format(_) => "format",
            Rule::Not => "not",
            Rule::Custom(name) | Rule::Keyword(name) => name,
        }
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Rule::Pattern(p) => write!(f, "pattern {p}"),
            Rule::MinLength(n) => write!(f, "min_length {n}"),
            Rule::MaxLength(n) => write!(f, "max_length {n}"),
            Rule::MinItems(n) => write!(f, "min_items {n}"),
            Rule::MaxItems(n) => write!(f, "max_items {n}"),
            Rule::Minimum(n) => write!(f, "minimum {n}"),
            Rule::Maximum(n) => write!(f, "maximum {n}"),
            Rule::MultipleOf(n) => write!(f, "multiple_of {n}"),
            Rule::ExclusiveMinimum(n) => write!(f, "exclusive_minimum {n}"),
            Rule::ExclusiveMaximum(n) => write!(f, "exclusive_maximum {n}"),
            Rule::Format(name) => write!(f, "format {name}"),
            other => f.write_str(other.name()),
        }
    }
}

/// One failure: the JSON pointer (RFC 6901) of the offending value, the rule, and a sentence.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldError {
    pub pointer: String,
    pub rule: Rule,
    pub message: String,
    /// For `unknown_kind`: the kind the message named (a discriminator value, a JSON-RPC
    /// method, a protobuf oneof member), so whoever names the side that sends it reads it
    /// here, never back out of `message`.
    pub kind: Option<String>,
}

impl FieldError {
    pub fn new(pointer: impl Into<String>, rule: Rule, message: impl Into<String>) -> Self {
        Self {
            pointer: pointer.into(),
            rule,
            message: message.into(),
            kind: None,
        }
    }

    /// An `unknown_kind` error about the kind `kind`.
    pub fn unknown_kind(
        pointer: impl Into<String>,
        kind: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        Self {
            kind: Some(kind.into()),
            ..Self::new(pointer, Rule::UnknownKind, message)
        }
    }
}

impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = if self.pointer.is_empty() {
            "(root)"
        } else {
            &self.pointer
        };
        write!(f, "{at}: {} [{}]", self.message, self.rule)
    }
}

/// A message that could not be decoded or broke its spec's constraints: every failure found,
/// in the order found (decoding's, then the constraints' of what decoded).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub struct Invalid {
    pub errors: Vec<FieldError>,
}

impl Invalid {
    pub fn one(error: FieldError) -> Self {
        Self {
            errors: vec![error],
        }
    }

    /// Moves every pointer under `prefix` (a JSON pointer such as `/params`).
    pub fn under(mut self, prefix: &str) -> Self {
        for e in &mut self.errors {
            e.pointer.insert_str(0, prefix);
        }
        self
    }
}

impl fmt::Display for Invalid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, e) in self.errors.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            write!(f, "{e}")?;
        }
        Ok(())
    }
}
