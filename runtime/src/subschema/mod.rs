//! Nested JSON Schema subschemas checked at run time: the conditions a type cannot say
//! (`if`/`then`/`else`, `not`, `patternProperties`, `dependentSchemas`, `propertyNames`, ...)
//! and every subschema they reach, `$ref` included. A spec's loader bundles each such
//! condition into one self-contained draft 2020-12 document (its `$ref`s point into its own
//! `$defs`); generated validators hold that document as data, compiled once into a
//! [`Schema`], and call [`check`]; the interpreter compiles the same text and calls
//! [`Schema::check_value`], so both report the same errors.
//!
//! Errors are typed as every other rule's: the pointer of the failing value and the failing
//! keyword's rule (`required`, `type`, `minimum`, `not`, `one_of`, ...), with the condition it
//! was reached through in the message (`` (`then`: the `if` holds) ``).

mod compile;
mod eval;

use serde_json::Value;

use crate::{FieldError, JsonPointer};

/// A compiled subschema document: its nodes, the root first.
#[derive(Debug)]
pub struct Schema {
    nodes: Vec<Node>,
    /// Patterns the `regex` crate does not read (ECMA-262 look-around, back references):
    /// their keywords are read as absent.
    unread: Vec<String>,
}

/// One schema object (or boolean) of the document: its checks, in keyword order.
#[derive(Debug, Default)]
struct Node {
    checks: Vec<compile::Check>,
}

/// The reason a document is not compiled: it is not JSON.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("a subschema is not JSON: {0}")]
pub struct ParseError(String);

impl Schema {
    /// Compiles the JSON text of a subschema document. Any JSON value compiles: a keyword
    /// whose value is not of the form the standard gives it is read as absent, as a
    /// validator ignores what it does not understand.
    pub fn parse(text: &str) -> Result<Schema, ParseError> {
        let root: Value = serde_json::from_str(text).map_err(|e| ParseError(e.to_string()))?;
        Ok(Schema::compile(&root))
    }

    /// Compiles a document held as a JSON value.
    pub fn compile(root: &Value) -> Schema {
        compile::Compiler::run(root)
    }

    /// The patterns read as absent (see [`Schema`]), for a loader's notes.
    pub fn unread_patterns(&self) -> &[String] {
        &self.unread
    }

    /// Appends every error of `value` (at `at`) against the document.
    pub fn check_value(&self, value: &Value, at: &mut JsonPointer, errors: &mut Vec<FieldError>) {
        eval::Eval::new(self).node(0, value, at, errors);
    }

    /// Whether `value` satisfies the document.
    pub fn is_valid(&self, value: &Value) -> bool {
        eval::Eval::new(self).valid(0, value)
    }
}

/// The members a closed struct does not declare, as they were sent: its decoder skips them
/// (they are not written back), but keeps them here so the struct's conditions see the
/// message as sent (a `not: {required: [legacy]}` about an undeclared `legacy`). Never
/// written, and no part of the struct's equality: two values that write the same JSON are
/// equal.
#[derive(Debug, Clone, Default)]
pub struct Undeclared(crate::Members<Value>);

impl PartialEq for Undeclared {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Undeclared {
    /// Keeps a member a generated decoder skipped.
    #[doc(hidden)]
    pub fn push_read(&mut self, key: String, value: Value) {
        self.0.push_read(key, value);
    }

    /// The members, in arrival order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &Value)> {
        self.0.iter()
    }
}

/// A struct's JSON form with the members it did not declare put back, as sent: what its rules
/// on the object as a whole read ([`check`], `validate::dependent_required`).
pub struct AsSent<'a, T: ?Sized>(pub &'a T, pub &'a Undeclared);

impl<T: serde::Serialize + ?Sized> serde::Serialize for AsSent<'_, T> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut value = serde_json::to_value(self.0).map_err(serde::ser::Error::custom)?;
        if let Value::Object(members) = &mut value {
            for (k, v) in self.1.iter() {
                members.entry(k.to_owned()).or_insert_with(|| v.clone());
            }
        }
        value.serialize(s)
    }
}

/// The check a generated validator runs: `v` in its JSON form against `schema`. A value that
/// does not serialize to JSON has nothing to check here (its decoding already refused it).
pub fn check<T: serde::Serialize + ?Sized>(
    v: &T,
    schema: &Schema,
    at: &mut JsonPointer,
    errors: &mut Vec<FieldError>,
) {
    if let Ok(value) = serde_json::to_value(v) {
        schema.check_value(&value, at, errors);
    }
}

#[cfg(test)]
mod tests;
