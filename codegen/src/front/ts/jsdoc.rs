//! JSDoc comment parsing: free text becomes documentation, `@tag value` lines become
//! constraints in the ts-json-schema-generator convention.

use crate::front::tags::{self, TagName};
use crate::ir::Constraints;
use crate::rules::{self, TagError};

/// A parsed doc comment.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct DocComment {
    pub text: String,
    pub constraints: Constraints,
    /// The `@default` tag's value as written; the field's type decides how it reads
    /// (`front::defaults`).
    pub default: Option<String>,
}

/// Parses the raw comment (with or without its `/**` `*/` delimiters). An error names the tag
/// whose value is malformed, misspelt or given twice, or the bounds that contradict.
pub fn parse(raw: &str) -> Result<DocComment, TagError> {
    let body = raw
        .trim()
        .trim_start_matches("/**")
        .trim_start_matches("/*")
        .trim_start_matches("//")
        .trim_end_matches("*/");
    let mut doc = DocComment::default();
    let mut text_lines: Vec<String> = Vec::new();
    for line in body.lines() {
        let line = line.trim().trim_start_matches('*').trim();
        if let Some(tag_line) = line.strip_prefix('@') {
            let (tag, value) = tag_line
                .split_once(char::is_whitespace)
                .map_or((tag_line, ""), |(t, v)| (t, v.trim()));
            if tag == "default" {
                if doc.default.replace(value.to_owned()).is_some() {
                    return Err(TagError {
                        message: "duplicate `@default`".to_owned(),
                        help: "give each tag once per field".to_owned(),
                    });
                }
                continue;
            }
            match tags::classify_tag(tag) {
                TagName::Known(rule) => {
                    let written = format!("@{tag}");
                    let value = rules::parse_value(rule, &written, value)?;
                    rules::apply(&mut doc.constraints, rule, &written, value)?;
                }
                TagName::Misspelt(rule) => return Err(tags::misspelt(tag, rule)),
                // Deprecation stays visible in the Rust docs and the schema's `description`
                // (an attribute would make every use of the type a warning).
                TagName::Other if tag == "deprecated" => text_lines.push(if value.is_empty() {
                    "Deprecated.".to_owned()
                } else {
                    format!("Deprecated: {value}")
                }),
                // Other tags (`@see`, `@category`, ...) are documentation only.
                TagName::Other => {}
            }
        } else {
            text_lines.push(line.to_owned());
        }
    }
    if let Some((_, e)) = rules::check_bounds(&doc.constraints, rules::tag_with_value)
        .into_iter()
        .next()
    {
        return Err(e);
    }
    doc.text = text_lines.join("\n").trim().to_owned();
    Ok(doc)
}

/// Applies every `@tag value` found anywhere in a one-line comment.
pub fn parse_inline(raw: &str) -> Result<DocComment, TagError> {
    let mut lines = String::new();
    let mut rest = raw;
    let mut text = String::new();
    while let Some(i) = rest
        .find(" @")
        .or_else(|| rest.starts_with('@').then_some(0))
    {
        text.push_str(&rest[..i]);
        let tail = rest[i..].trim_start();
        let end = tail[1..].find(" @").map_or(tail.len(), |j| j + 1);
        lines.push_str(&tail[..end]);
        lines.push('\n');
        rest = &tail[end..];
    }
    text.push_str(rest);
    let mut doc = parse(&lines)?;
    doc.text = text.trim().to_owned();
    Ok(doc)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{MAX_LENGTH, MIN_LENGTH, PATTERN};

    #[test]
    fn text_and_tags_are_separated() {
        let doc = parse("/**\n * The id.\n * @minLength 1\n * @pattern ^[a-z]+$\n */").unwrap();
        assert_eq!(doc.text, "The id.");
        assert_eq!(doc.constraints.count(&MIN_LENGTH), Some(1));
        assert_eq!(doc.constraints.text(&PATTERN), Some("^[a-z]+$"));
    }

    #[test]
    fn bad_values_are_reported() {
        assert!(
            parse("/** @minLength one */")
                .unwrap_err()
                .message
                .contains("minLength")
        );
        assert!(
            parse("/** @pattern [ */")
                .unwrap_err()
                .message
                .contains("pattern")
        );
        assert!(
            parse("/** @format email */")
                .unwrap_err()
                .message
                .contains("email")
        );
        assert!(parse("/** @minlength 1 */").is_err());
        assert!(parse("/** @minLength 3\n @maxLength 2 */").is_err());
    }

    #[test]
    fn inline_tags_in_trailing_comments() {
        let doc = parse_inline("Unique agent id. @minLength 1 @maxLength 64").unwrap();
        assert_eq!(doc.text, "Unique agent id.");
        assert_eq!(doc.constraints.count(&MIN_LENGTH), Some(1));
        assert_eq!(doc.constraints.count(&MAX_LENGTH), Some(64));
    }
}
