//! Finding rule tags in comments, for the front ends that read them (JSDoc in TypeScript,
//! proto comments): which `@word` names a rule of [`crate::rules`], which is a misspelt one,
//! and which is documentation. Parsing, fit, bounds and wording are the rules' own.

use crate::rules::{RULES, Rule, TagError};

/// What a tag name found in a comment is.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum TagName {
    Known(Rule),
    /// A rule's name in the wrong case (`@minlength`): an error, tags are case-sensitive.
    Misspelt(Rule),
    /// Any other `@word` (`@see`, `@deprecated`, an email address): documentation.
    Other,
}

pub fn classify_tag(name: &str) -> TagName {
    for r in RULES {
        if r.tag == name {
            return TagName::Known(r);
        }
        if r.tag.eq_ignore_ascii_case(name) {
            return TagName::Misspelt(r);
        }
    }
    // A near miss of a rule (`@minimun`, `@maxItem`) would silently drop the rule; a tag
    // JSDoc or a schema generator defines is documentation, however close it is.
    if name.len() >= 5 && !DOC_TAGS.iter().any(|t| t.eq_ignore_ascii_case(name)) {
        let near = RULES
            .iter()
            .map(|r| {
                (
                    edit_distance(&r.tag.to_ascii_lowercase(), &name.to_ascii_lowercase()),
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

/// The error of a misspelt tag.
pub fn misspelt(written: &str, rule: Rule) -> TagError {
    let help = if rule.tag.eq_ignore_ascii_case(written) {
        format!("tags are case-sensitive: write `@{}`", rule.tag)
    } else {
        format!("did you mean `@{}`?", rule.tag)
    };
    TagError::new(format!("unknown constraint tag `@{written}`"), help)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{MAX_ITEMS, MIN_LENGTH, MINIMUM};

    #[test]
    fn tags_are_classified() {
        assert_eq!(classify_tag("minLength"), TagName::Known(&MIN_LENGTH));
        assert_eq!(classify_tag("minlength"), TagName::Misspelt(&MIN_LENGTH));
        assert_eq!(classify_tag("see"), TagName::Other);
        assert_eq!(classify_tag("minimun"), TagName::Misspelt(&MINIMUM));
        assert_eq!(classify_tag("maxItem"), TagName::Misspelt(&MAX_ITEMS));
        assert_eq!(classify_tag("deprecated"), TagName::Other);
        assert_eq!(classify_tag("category"), TagName::Other);
        assert_eq!(
            misspelt("minimun", &MINIMUM).help,
            "did you mean `@minimum`?"
        );
    }
}
