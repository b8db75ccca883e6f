//! Which JSON Schema keywords the loader reads, which it passes over as annotations, and what
//! to write instead of the ones it refuses.

/// Keywords with a meaning in the IR besides the rules' (`crate::rules`, each rule's keyword).
const READ: &[&str] = &[
    "type",
    "$ref",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "enum",
    "const",
    "oneOf",
    "anyOf",
    "allOf",
    "description",
    "default",
    "discriminator",
];

/// Annotations that change no value's validity (and vendor `x-` keys).
const ANNOTATIONS: &[&str] = &[
    "title",
    "examples",
    "$comment",
    "deprecated",
    "readOnly",
    "writeOnly",
    "$schema",
    "$id",
    "$defs",
    "definitions",
    "contentEncoding",
    "contentMediaType",
    "markdownDescription",
    "nullable",
];

/// What to write instead of a keyword the loader refuses; `None` when the keyword is read or
/// is an annotation.
pub fn refusal(keyword: &str) -> Option<&'static str> {
    if READ.contains(&keyword)
        || crate::rules::by_keyword(keyword).is_some()
        || ANNOTATIONS.contains(&keyword)
        || keyword.starts_with("x-")
    {
        return None;
    }
    Some(match keyword {
        "exclusiveMinimum" | "exclusiveMaximum" => "use `minimum`/`maximum` (inclusive bounds)",
        "patternProperties" | "propertyNames" | "unevaluatedProperties" => {
            "use `additionalProperties` with the members' schema"
        }
        "prefixItems" | "additionalItems" | "contains" | "minContains" | "maxContains" => {
            "use `items` with one schema for every element"
        }
        "not" | "if" | "then" | "else" | "dependentSchemas" | "dependentRequired"
        | "dependencies" => "express the rule with `oneOf`/`anyOf` of object schemas",
        "$dynamicRef" | "$recursiveRef" | "$anchor" | "$dynamicAnchor" | "$recursiveAnchor" => {
            "refer to a definition with `$ref: \"#/$defs/Name\"`"
        }
        _ => "remove the keyword or move it under an `x-` name",
    })
}

/// `not: {anyOf: [{properties: {tag: {const: "a"}}, required: [tag]}, ...]}`: "none of these
/// tag values", as a union's catch-all member for future or extension values says it. The
/// loader reads the member as tried after the others (members that fix a value ask more of
/// a value) and checks the exclusion: the excluded values are the tag field's `not_one_of`.
pub fn is_tag_exclusion(not: &super::json::Node) -> bool {
    exclusion_list(not).is_some()
}

/// The `(key, value)` pairs a catch-all member's `not` excludes (see `is_tag_exclusion`), each
/// string constant of each alternative; empty for any other `not`.
pub fn exclusions(node: &super::json::Node) -> Vec<(String, String)> {
    let Some(list) = node.get("not").and_then(exclusion_list) else {
        return Vec::new();
    };
    list.iter()
        .flat_map(|item| {
            item.get("properties")
                .map(|p| p.members())
                .unwrap_or_default()
        })
        .filter_map(|m| {
            let value = m.value.get("const")?.as_str()?;
            Some((m.key.clone(), value.to_owned()))
        })
        .collect()
}

fn exclusion_list(not: &super::json::Node) -> Option<&[super::json::Node]> {
    let list = not
        .get("anyOf")
        .or_else(|| not.get("oneOf"))
        .and_then(super::json::Node::as_array)?;
    let tags = !list.is_empty()
        && list.iter().all(|item| {
            item.members()
                .iter()
                .all(|m| matches!(m.key.as_str(), "type" | "properties" | "required"))
                && item.get("properties").is_some_and(|p| {
                    !p.members().is_empty()
                        && p.members().iter().all(|m| m.value.get("const").is_some())
                })
        });
    tags.then_some(list)
}
