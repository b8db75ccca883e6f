//! Case conversion: protocol names (JSON keys, literal values, method names) as the words of
//! Rust identifiers, before keywords are escaped.

/// `user_input`, `no-exit`, `chat/prompt`, `$/showMessage`, `reasonStarted` -> `UserInput`,
/// `NoExit`, `ChatPrompt`, `ShowMessage`, `ReasonStarted`.
pub fn pascal_case(s: &str) -> String {
    let mut out = String::new();
    let mut upper = true;
    for c in s.chars() {
        if c.is_ascii_alphanumeric() {
            if upper {
                out.push(c.to_ascii_uppercase());
                upper = false;
            } else {
                out.push(c);
            }
        } else {
            upper = true;
        }
    }
    if out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, 'V');
    }
    out
}

/// `previousResponseId`, `call_id`, `HTTPServer` -> `previous_response_id`, `call_id`,
/// `http_server`.
pub fn snake_case(s: &str) -> String {
    let chars: Vec<char> = s.chars().collect();
    let mut out = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if c.is_ascii_uppercase() {
            let prev = i.checked_sub(1).map(|j| chars[j]);
            let next = chars.get(i + 1);
            let boundary = match prev {
                Some(p) if p.is_ascii_lowercase() || p.is_ascii_digit() => true,
                Some(p) if p.is_ascii_uppercase() => next.is_some_and(|n| n.is_ascii_lowercase()),
                _ => false,
            };
            if boundary && !out.ends_with('_') {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else if c.is_ascii_alphanumeric() {
            out.push(c);
        } else if !out.is_empty() && !out.ends_with('_') {
            out.push('_');
        }
    }
    let out = out.trim_end_matches('_').to_owned();
    if out.starts_with(|c: char| c.is_ascii_digit()) {
        format!("_{out}")
    } else {
        out
    }
}

/// The Rust variant name of an enum or union value: `pascal_case`, except that a value with
/// no letter or digit becomes `Empty`, and a name Rust or the emitted `impl` already takes
/// (`Self`, the `ALL` constant) gets `Value` appended.
pub fn variant_name(value: &str) -> String {
    let name = pascal_case(value);
    match name.as_str() {
        "" => "Empty".to_owned(),
        "Self" | "ALL" => format!("{name}Value"),
        _ => name,
    }
}

/// The Rust variant names of an enum's or union's values, in order: `variant_name` of each,
/// with `2`, `3`, ... appended where two values give the same name (`'self'` and `'Self'`).
pub fn variant_names<'a>(values: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for v in values {
        let base = variant_name(v);
        let mut name = base.clone();
        let mut n = 2;
        while out.contains(&name) {
            name = format!("{base}{n}");
            n += 1;
        }
        out.push(name);
    }
    out
}

/// The Rust field name of a JSON key: `snake_case`, with a trailing `_` for the keywords that
/// cannot be raw identifiers (`self`, `super`, `crate`) and `field` for a key with no letter
/// or digit. Other keywords are written raw (`r#type`) by `spec::field_ident`.
pub fn field_name(json_name: &str) -> String {
    let snake = snake_case(json_name);
    match snake.as_str() {
        "" | "_" => "field".to_owned(),
        "self" | "super" | "crate" => format!("{snake}_"),
        _ => snake,
    }
}

/// The type name of an inline type the spec leaves unnamed (a union member, a field's object):
/// `<Parent><Label>`, the label in PascalCase, or appended as is when it is a position (`2`);
/// numbered `2`, `3`, ... past the names `taken` already. Every front end names inline types
/// here, so one spec written in two formats gets the same names. The label is the first of:
/// the member's title (where the format has titles), the tag value it fixes, its 1-based
/// position; for a field's type, the field's key.
pub fn inline_type_name(parent: &str, label: &str, taken: impl Fn(&str) -> bool) -> String {
    let first = if !label.is_empty() && label.bytes().all(|b| b.is_ascii_digit()) {
        format!("{parent}{label}")
    } else {
        format!("{parent}{}", pascal_case(label))
    };
    let mut name = first.clone();
    let mut n = 2;
    while taken(&name) {
        name = format!("{first}{n}");
        n += 1;
    }
    name
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cases() {
        assert_eq!(pascal_case("no-exit"), "NoExit");
        assert_eq!(pascal_case("$/showMessage"), "ShowMessage");
        assert_eq!(pascal_case("chat/toolCallApprove"), "ChatToolCallApprove");
        assert_eq!(snake_case("previousResponseId"), "previous_response_id");
        assert_eq!(snake_case("MCPServer"), "mcp_server");
        assert_eq!(snake_case("duration_ms"), "duration_ms");
        assert_eq!(snake_case("chat/prompt"), "chat_prompt");
        assert_eq!(variant_name("self"), "SelfValue");
        assert_eq!(variant_name("ALL"), "ALLValue");
        assert_eq!(variant_name("--"), "Empty");
        assert_eq!(
            variant_names(["self", "Self", "a", "A", "A2"]),
            ["SelfValue", "SelfValue2", "A", "A2", "A22"]
        );
        assert_eq!(field_name("Self"), "self_");
        assert_eq!(field_name("crate"), "crate_");
        assert_eq!(field_name("$"), "field");
        assert_eq!(field_name("type"), "type");
        assert_eq!(inline_type_name("Block", "text", |_| false), "BlockText");
        assert_eq!(inline_type_name("Block", "2", |_| false), "Block2");
        assert_eq!(
            inline_type_name("Block", "text", |n| n == "BlockText"),
            "BlockText2"
        );
    }
}
