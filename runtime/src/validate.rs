//! The `Validate` trait and the rule checks generated impls call, so every generated and
//! derived validator reports the same rule names and messages.

use std::collections::BTreeMap;

use regex::Regex;

use crate::error::{FieldError, Invalid, Rule};
use crate::formats;

/// A JSON pointer under construction while a validator walks a value. Pushing and popping a
/// segment is a string append and a truncate, so walking costs no allocation per field.
#[derive(Debug, Default, Clone)]
pub struct JsonPointer(String);

impl JsonPointer {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Runs `f` with `segment` appended (escaped per RFC 6901), then removes it again.
    pub fn with<R>(&mut self, segment: &str, f: impl FnOnce(&mut Self) -> R) -> R {
        let len = self.0.len();
        self.0.push('/');
        push_escaped(&mut self.0, segment);
        let out = f(self);
        self.0.truncate(len);
        out
    }

    /// Like `with`, for an array index.
    pub fn with_index<R>(&mut self, index: usize, f: impl FnOnce(&mut Self) -> R) -> R {
        let len = self.0.len();
        self.0.push('/');
        push_decimal(&mut self.0, index);
        let out = f(self);
        self.0.truncate(len);
        out
    }
}

/// Appends `n` in decimal without the formatting machinery, which costs more than the rest of
/// walking an array element.
fn push_decimal(out: &mut String, mut n: usize) {
    let mut digits = [0u8; 20];
    let mut start = digits.len();
    loop {
        start -= 1;
        digits[start] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend(digits[start..].iter().map(|&d| char::from(d)));
}

fn push_escaped(out: &mut String, segment: &str) {
    if !segment.contains(['~', '/']) {
        out.push_str(segment);
        return;
    }
    for c in segment.chars() {
        match c {
            '~' => out.push_str("~0"),
            '/' => out.push_str("~1"),
            c => out.push(c),
        }
    }
}

/// A value that can check the constraints its spec puts on it beyond what its type enforces.
pub trait Validate {
    /// Appends every failure found in `self` to `errors`, with pointers under `at`.
    fn validate_at(&self, at: &mut JsonPointer, errors: &mut Vec<FieldError>);

    /// Every failure, or `Ok(())`.
    fn validate(&self) -> Result<(), Invalid> {
        let mut errors = Vec::new();
        self.validate_at(&mut JsonPointer::new(), &mut errors);
        if errors.is_empty() {
            Ok(())
        } else {
            Err(Invalid { errors })
        }
    }
}

macro_rules! leaf_validate {
    ($($t:ty),*) => {$(
        impl Validate for $t {
            #[inline]
            fn validate_at(&self, _: &mut JsonPointer, _: &mut Vec<FieldError>) {}
        }
    )*};
}
leaf_validate!(
    String,
    str,
    bool,
    f64,
    f32,
    i64,
    i32,
    u64,
    u32,
    u8,
    (),
    serde_json::Value
);

impl<T: Validate> Validate for Option<T> {
    #[inline]
    fn validate_at(&self, at: &mut JsonPointer, errors: &mut Vec<FieldError>) {
        if let Some(v) = self {
            v.validate_at(at, errors);
        }
    }
}

impl<T: Validate + ?Sized> Validate for Box<T> {
    #[inline]
    fn validate_at(&self, at: &mut JsonPointer, errors: &mut Vec<FieldError>) {
        (**self).validate_at(at, errors);
    }
}

impl<T: Validate> Validate for Vec<T> {
    fn validate_at(&self, at: &mut JsonPointer, errors: &mut Vec<FieldError>) {
        for (i, v) in self.iter().enumerate() {
            at.with_index(i, |at| v.validate_at(at, errors));
        }
    }
}

impl<T: Validate> Validate for BTreeMap<String, T> {
    fn validate_at(&self, at: &mut JsonPointer, errors: &mut Vec<FieldError>) {
        for (k, v) in self {
            at.with(k, |at| v.validate_at(at, errors));
        }
    }
}

impl<T: Validate> Validate for crate::Members<T> {
    fn validate_at(&self, at: &mut JsonPointer, errors: &mut Vec<FieldError>) {
        for (k, v) in self.iter() {
            at.with(k, |at| v.validate_at(at, errors));
        }
    }
}

fn fail(at: &JsonPointer, errors: &mut Vec<FieldError>, rule: Rule, message: String) {
    errors.push(FieldError::new(at.as_str(), rule, message));
}

/// Length in characters (Unicode scalar values), as JSON Schema counts string length.
fn char_len(s: &str) -> u64 {
    if s.is_ascii() {
        s.len() as u64
    } else {
        s.chars().count() as u64
    }
}

pub fn min_length(s: &str, min: u64, at: &JsonPointer, errors: &mut Vec<FieldError>) {
    // A character is 1 to 4 bytes, so the byte length settles most checks without a scan.
    let bytes = s.len() as u64;
    if bytes >= min.saturating_mul(4) {
        return;
    }
    let len = char_len(s);
    if len < min {
        fail(
            at,
            errors,
            Rule::MinLength(min),
            format!("length {len} is below the minimum {min}"),
        );
    }
}

pub fn max_length(s: &str, max: u64, at: &JsonPointer, errors: &mut Vec<FieldError>) {
    if s.len() as u64 <= max {
        return;
    }
    let len = char_len(s);
    if len > max {
        fail(
            at,
            errors,
            Rule::MaxLength(max),
            format!("length {len} is above the maximum {max}"),
        );
    }
}

pub fn min_items<T>(v: &[T], min: u64, at: &JsonPointer, errors: &mut Vec<FieldError>) {
    let len = v.len() as u64;
    if len < min {
        fail(
            at,
            errors,
            Rule::MinItems(min),
            format!("{len} items, at least {min} required"),
        );
    }
}

pub fn max_items<T>(v: &[T], max: u64, at: &JsonPointer, errors: &mut Vec<FieldError>) {
    let len = v.len() as u64;
    if len > max {
        fail(
            at,
            errors,
            Rule::MaxItems(max),
            format!("{len} items, at most {max} allowed"),
        );
    }
}

pub fn pattern(
    s: &str,
    re: &Regex,
    source: &'static str,
    at: &JsonPointer,
    errors: &mut Vec<FieldError>,
) {
    if !re.is_match(s) {
        fail(
            at,
            errors,
            Rule::Pattern(source),
            format!("{s:?} does not match {source}"),
        );
    }
}

pub fn minimum(v: f64, min: f64, at: &JsonPointer, errors: &mut Vec<FieldError>) {
    if v < min {
        fail(
            at,
            errors,
            Rule::Minimum(min),
            format!("{v} is below the minimum {min}"),
        );
    }
}

pub fn maximum(v: f64, max: f64, at: &JsonPointer, errors: &mut Vec<FieldError>) {
    if v > max {
        fail(
            at,
            errors,
            Rule::Maximum(max),
            format!("{v} is above the maximum {max}"),
        );
    }
}

/// JSON Schema's `exclusiveMinimum` (draft-06 on; draft-04's `minimum` with
/// `exclusiveMinimum: true` is read as this too): `v` is above `min`.
pub fn exclusive_minimum(v: f64, min: f64, at: &JsonPointer, errors: &mut Vec<FieldError>) {
    if v <= min {
        fail(
            at,
            errors,
            Rule::ExclusiveMinimum(min),
            format!("{v} is not above {min}"),
        );
    }
}

/// `exclusiveMaximum`: `v` is below `max`.
pub fn exclusive_maximum(v: f64, max: f64, at: &JsonPointer, errors: &mut Vec<FieldError>) {
    if v >= max {
        fail(
            at,
            errors,
            Rule::ExclusiveMaximum(max),
            format!("{v} is not below {max}"),
        );
    }
}

/// `uniqueItems`: no two elements are the same JSON value. Elements are compared by their
/// JSON form (`crate::json_eq::canonical`: `1` and `1.0` are one number, member order does not
/// count), each written once into a set, so a long list costs one pass.
pub fn unique_items<T: serde::Serialize>(v: &[T], at: &JsonPointer, errors: &mut Vec<FieldError>) {
    let mut seen = std::collections::HashMap::with_capacity(v.len());
    for (i, item) in v.iter().enumerate() {
        let Ok(json) = serde_json::to_value(item) else {
            continue;
        };
        if let Some(first) = seen.insert(crate::json_eq::canonical(&json), i) {
            fail(
                at,
                errors,
                Rule::UniqueItems,
                format!("items {first} and {i} are equal; the list's items must differ"),
            );
            return;
        }
    }
}

/// `dependentRequired` (draft-04 to 07: `dependencies` with lists): where the object `v` has
/// the member `key`, it has each member `needs` names too. `v` is checked in its JSON form, so
/// a field and an open object's extra member count alike; a value that is no object passes.
pub fn dependent_required<T: serde::Serialize + ?Sized>(
    v: &T,
    deps: &[(&str, &[&str])],
    at: &JsonPointer,
    errors: &mut Vec<FieldError>,
) {
    let Ok(serde_json::Value::Object(members)) = serde_json::to_value(v) else {
        return;
    };
    for (key, needs) in deps {
        if !members.contains_key(*key) {
            continue;
        }
        for need in needs.iter().filter(|n| !members.contains_key(**n)) {
            fail(
                at,
                errors,
                Rule::DependentRequired,
                format!("`{need}` is required where `{key}` is present"),
            );
        }
    }
}

/// A field that must be set (protobuf `field_behavior = REQUIRED` on a field of explicit
/// presence) holds a value other than its type's default: an `Option` is not `None`. `name`
/// is the field's JSON key.
pub fn required<T: Default + PartialEq>(
    v: &T,
    name: &str,
    at: &JsonPointer,
    errors: &mut Vec<FieldError>,
) {
    if *v == T::default() {
        fail(
            at,
            errors,
            Rule::Required,
            format!("`{name}` must be set (field_behavior REQUIRED)"),
        );
    }
}

/// `v` is a whole multiple of `by` (a positive number; any other checks nothing). The quotient
/// may miss a whole number by a rounding error (0.3 / 0.1 is 2.9999999999999996), so a
/// relative tolerance of 1e-9 decides.
pub fn multiple_of(v: f64, by: f64, at: &JsonPointer, errors: &mut Vec<FieldError>) {
    if !(by > 0.0 && by.is_finite()) {
        return;
    }
    let q = v / by;
    if !q.is_finite() || (q - q.round()).abs() > 1e-9 * q.abs().max(1.0) {
        fail(
            at,
            errors,
            Rule::MultipleOf(by),
            format!("{v} is not a multiple of {by}"),
        );
    }
}

/// A catch-all member's tag: any string but the values the union's named members own. Such a
/// value reached the catch-all because its body did not fit the named member.
pub fn not_one_of(s: &str, owned: &[&str], at: &JsonPointer, errors: &mut Vec<FieldError>) {
    if owned.contains(&s) {
        fail(
            at,
            errors,
            Rule::Not,
            format!(
                "`{s}` belongs to a member of the union whose rules the value breaks; a catch-all takes only other values"
            ),
        );
    }
}

pub fn format(s: &str, name: &'static str, at: &JsonPointer, errors: &mut Vec<FieldError>) {
    if !formats::check(name, s) {
        fail(
            at,
            errors,
            Rule::Format(name),
            format!("{s:?} is not a valid {name}"),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pointer_segments_are_escaped_and_popped() {
        let mut p = JsonPointer::new();
        p.with("a/b", |p| {
            p.with_index(3, |p| assert_eq!(p.as_str(), "/a~1b/3"));
            p.with("~x", |p| assert_eq!(p.as_str(), "/a~1b/~0x"));
        });
        assert_eq!(p.as_str(), "");
        for i in [0, 9, 10, 1_234_567, usize::MAX] {
            p.with_index(i, |p| assert_eq!(p.as_str(), format!("/{i}")));
        }
    }

    #[test]
    fn length_counts_characters() {
        let mut errors = Vec::new();
        let at = JsonPointer::new();
        max_length("ééé", 3, &at, &mut errors);
        assert!(errors.is_empty());
        max_length("éééé", 3, &at, &mut errors);
        assert_eq!(errors[0].rule, Rule::MaxLength(3));
        // Two characters in eight bytes: the byte-length shortcut must not pass it.
        min_length("😀😀", 3, &at, &mut errors);
        assert_eq!(errors.len(), 2);
        min_length("😀😀😀", 3, &at, &mut errors);
        assert_eq!(errors.len(), 2);
    }

    #[test]
    fn multiples_allow_rounding_error_only() {
        let mut errors = Vec::new();
        let at = JsonPointer::new();
        for ok in [0.3, 0.0, -0.2, 1e12, 7.0] {
            multiple_of(ok, 0.1, &at, &mut errors);
        }
        // A divisor that is not positive checks nothing (the loaders refuse it).
        multiple_of(0.35, 0.0, &at, &mut errors);
        assert!(errors.is_empty(), "{errors:?}");
        multiple_of(0.35, 0.1, &at, &mut errors);
        multiple_of(f64::MAX, 1e-300, &at, &mut errors);
        assert_eq!(errors.len(), 2);
        assert_eq!(errors[0].rule, Rule::MultipleOf(0.1));
        assert_eq!(errors[0].message, "0.35 is not a multiple of 0.1");
    }

    #[test]
    fn exclusive_bounds_refuse_the_bound_itself() {
        let mut errors = Vec::new();
        let mut at = JsonPointer::new();
        exclusive_minimum(0.5, 0.0, &at, &mut errors);
        exclusive_maximum(9.5, 10.0, &at, &mut errors);
        assert!(errors.is_empty(), "{errors:?}");
        at.with("size", |at| {
            exclusive_minimum(0.0, 0.0, at, &mut errors);
            exclusive_maximum(10.0, 10.0, at, &mut errors);
        });
        assert_eq!(errors.len(), 2);
        assert_eq!(errors[0].pointer, "/size");
        assert_eq!(errors[0].rule.name(), "exclusive_minimum");
        assert_eq!(errors[0].message, "0 is not above 0");
        assert_eq!(errors[1].rule, Rule::ExclusiveMaximum(10.0));
    }

    #[test]
    fn unique_items_compares_json_values() {
        let mut errors = Vec::new();
        let mut at = JsonPointer::new();
        unique_items(&["a", "b"], &at, &mut errors);
        unique_items(
            &[serde_json::json!({"a": 1}), serde_json::json!({"a": 2})],
            &at,
            &mut errors,
        );
        assert!(errors.is_empty(), "{errors:?}");
        at.with("tags", |at| {
            unique_items(
                &[
                    serde_json::json!(1),
                    serde_json::json!(2),
                    serde_json::json!(1.0),
                ],
                at,
                &mut errors,
            );
        });
        assert_eq!(errors.len(), 1);
        assert_eq!(errors[0].pointer, "/tags");
        assert_eq!(errors[0].rule.name(), "unique_items");
        assert_eq!(
            errors[0].message,
            "items 0 and 2 are equal; the list's items must differ"
        );
    }

    #[test]
    fn dependent_required_asks_for_the_members_a_present_member_needs() {
        let mut errors = Vec::new();
        let mut at = JsonPointer::new();
        let deps: &[(&str, &[&str])] = &[("card", &["billing", "cvc"])];
        dependent_required(&serde_json::json!({"name": "x"}), deps, &at, &mut errors);
        dependent_required(
            &serde_json::json!({"card": 1, "billing": 2, "cvc": 3}),
            deps,
            &at,
            &mut errors,
        );
        dependent_required(&serde_json::json!([1]), deps, &at, &mut errors);
        assert!(errors.is_empty(), "{errors:?}");
        at.with("pay", |at| {
            dependent_required(
                &serde_json::json!({"card": 1, "cvc": 3}),
                deps,
                at,
                &mut errors,
            );
        });
        assert_eq!(errors.len(), 1);
        assert_eq!(errors[0].pointer, "/pay");
        assert_eq!(errors[0].rule.name(), "dependent_required");
        assert_eq!(
            errors[0].message,
            "`billing` is required where `card` is present"
        );
    }
}
