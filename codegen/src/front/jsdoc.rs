//! JSDoc comment parsing: free text becomes documentation, `@tag value` lines become
//! constraints in the ts-json-schema-generator convention.

use crate::ir::{Constraints, FORMATS};

/// A parsed doc comment.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct DocComment {
    pub text: String,
    pub constraints: Constraints,
}

/// Parses the raw comment (with or without its `/**` `*/` delimiters). An error names the tag
/// whose value is malformed.
pub fn parse(raw: &str) -> Result<DocComment, String> {
    let body = raw
        .trim()
        .trim_start_matches("/**")
        .trim_start_matches("/*")
        .trim_start_matches("//")
        .trim_end_matches("*/");
    let mut doc = DocComment::default();
    let mut text_lines = Vec::new();
    for line in body.lines() {
        let line = line.trim().trim_start_matches('*').trim();
        if let Some(tag_line) = line.strip_prefix('@') {
            let (tag, value) = tag_line
                .split_once(char::is_whitespace)
                .map_or((tag_line, ""), |(t, v)| (t, v.trim()));
            apply_tag(&mut doc.constraints, tag, value)?;
        } else {
            text_lines.push(line);
        }
    }
    doc.text = text_lines.join("\n").trim().to_owned();
    Ok(doc)
}

/// Applies every `@tag value` found anywhere in a one-line comment (proto trailing comments).
pub fn parse_inline(raw: &str) -> Result<DocComment, String> {
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

fn apply_tag(c: &mut Constraints, tag: &str, value: &str) -> Result<(), String> {
    let count = |v: &str| {
        v.parse::<u64>()
            .map_err(|_| format!("`@{tag}` needs a non-negative integer, got `{v}`"))
    };
    let number = |v: &str| {
        v.parse::<f64>()
            .ok()
            .filter(|n| n.is_finite())
            .ok_or_else(|| format!("`@{tag}` needs a number, got `{v}`"))
    };
    match tag {
        "minLength" => c.min_length = Some(count(value)?),
        "maxLength" => c.max_length = Some(count(value)?),
        "minItems" => c.min_items = Some(count(value)?),
        "maxItems" => c.max_items = Some(count(value)?),
        "minimum" => c.minimum = Some(number(value)?),
        "maximum" => c.maximum = Some(number(value)?),
        "pattern" => {
            regex::Regex::new(value)
                .map_err(|e| format!("`@pattern` is not a valid regular expression: {e}"))?;
            c.pattern = Some(value.to_owned());
        }
        "format" => {
            if !FORMATS.contains(&value) {
                return Err(format!(
                    "`@format {value}` is not supported; use one of {}",
                    FORMATS.join(", ")
                ));
            }
            c.format = Some(value.to_owned());
        }
        "trim" => c.trim = true,
        // Other tags (`@see`, `@deprecated`, ...) are documentation only.
        _ => {}
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_and_tags_are_separated() {
        let doc = parse("/**\n * The id.\n * @minLength 1\n * @pattern ^[a-z]+$\n */").unwrap();
        assert_eq!(doc.text, "The id.");
        assert_eq!(doc.constraints.min_length, Some(1));
        assert_eq!(doc.constraints.pattern.as_deref(), Some("^[a-z]+$"));
    }

    #[test]
    fn bad_values_are_reported() {
        assert!(
            parse("/** @minLength one */")
                .unwrap_err()
                .contains("minLength")
        );
        assert!(parse("/** @pattern [ */").unwrap_err().contains("pattern"));
        assert!(parse("/** @format email */").unwrap_err().contains("email"));
    }

    #[test]
    fn inline_tags_in_trailing_comments() {
        let doc = parse_inline("Unique agent id. @minLength 1 @maxLength 64").unwrap();
        assert_eq!(doc.text, "Unique agent id.");
        assert_eq!(doc.constraints.min_length, Some(1));
        assert_eq!(doc.constraints.max_length, Some(64));
    }
}
