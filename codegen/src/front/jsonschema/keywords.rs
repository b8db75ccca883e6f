//! Which JSON Schema keywords the loader reads, which it passes over as annotations, and which
//! it notes as unchecked or unknown (none is refused: the standard ignores what it does not know).

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
    // Resolved statically, to the outermost schema with the anchor (`refs::locate`).
    "$dynamicRef",
    "$recursiveRef",
];

/// Annotations that change no value's validity (and vendor `x-` keys): passed over silently.
const ANNOTATIONS: &[&str] = &[
    "title",
    "examples",
    "$comment",
    "deprecated",
    "readOnly",
    "writeOnly",
    "$schema",
    "$id",
    // draft-04's `$id`.
    "id",
    "$defs",
    "definitions",
    "$vocabulary",
    // A name `$ref: "#name"` reaches (`refs::locate`).
    "$anchor",
    "$dynamicAnchor",
    "$recursiveAnchor",
    "contentEncoding",
    "contentMediaType",
    "contentSchema",
    "markdownDescription",
    "nullable",
];

/// What the loader does with one keyword of a schema object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keyword {
    /// Read into the IR, or an annotation: nothing to say.
    Known,
    /// Changes what the schema admits, but the generated validators do not check it: the
    /// value is read as if the keyword were absent, and a note says so (what it checks instead).
    Unchecked(&'static str),
    /// Not a JSON Schema keyword: ignored, as the standard says, with a note.
    Unknown,
}

/// How the loader treats `keyword`. Nothing is a refusal: JSON Schema ignores keywords it does
/// not know, and a rule the IR cannot say is left to the reader of the note.
pub fn classify(keyword: &str) -> Keyword {
    if keyword == "dependentRequired" {
        // A rule on an object as a whole: read where the schema is a struct's (the loader
        // allows it there), else as absent.
        return Keyword::Unchecked("the schema without this condition");
    }
    if READ.contains(&keyword)
        || crate::rules::by_keyword(keyword).is_some()
        || ANNOTATIONS.contains(&keyword)
        || keyword.starts_with("x-")
    {
        return Keyword::Known;
    }
    Keyword::Unchecked(match keyword {
        "patternProperties" | "propertyNames" | "unevaluatedProperties" => {
            "the members through `properties`/`additionalProperties` only"
        }
        "prefixItems" | "additionalItems" | "contains" | "minContains" | "maxContains"
        | "unevaluatedItems" => "the elements through `items` only",
        "minProperties" | "maxProperties" => "each member, not how many there are",
        "not" | "if" | "then" | "else" | "dependentSchemas" | "dependencies" => {
            "the schema without this condition"
        }
        _ => return Keyword::Unknown,
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

/// `oneOf`/`anyOf` whose members only constrain the members the object already declares
/// (which are present, what values they take), as OpenAPI 3.0 writes `SchemaXORContent`
/// (`oneOf: [{required: [schema]}, {required: [content]}]`, merged through `allOf`) or
/// `HTTPSecurityScheme` (`oneOf` narrowing its `scheme` property): no member names a type, a
/// `$ref`, a list or a property the object lacks. A condition on the object, checked as part
/// of its subschema, not a union of shapes. `merged` for a schema merged into a struct through
/// `allOf` (OpenAPI 3.0's `ParameterLocation`), whose members may narrow properties the struct
/// declares beside it.
pub fn constraint_choice(node: &super::json::Node, merged: bool) -> bool {
    let Some(list) = (node.get("oneOf").or_else(|| node.get("anyOf"))).and_then(|l| l.as_array())
    else {
        return false;
    };
    let declared = |k: &str| node.get("properties").is_some_and(|p| p.get(k).is_some());
    !list.is_empty()
        && list
            .iter()
            .all(|m| constraint_only(m, &|k| merged || declared(k), 0))
}

/// A schema that only says which of an object's members are present and what values they
/// take: `required`, `not`, combinations of such, and `properties` whose names `declared`
/// takes; at least one of them, and no type, `$ref` or list.
fn constraint_only(
    node: &super::json::Node,
    declared: &dyn Fn(&str) -> bool,
    depth: usize,
) -> bool {
    let says = [
        "required",
        "properties",
        "not",
        "allOf",
        "anyOf",
        "oneOf",
        "dependentRequired",
    ];
    depth < 8
        && node.is_object()
        && node
            .members()
            .iter()
            .any(|e| says.contains(&e.key.as_str()))
        && node.members().iter().all(|e| match e.key.as_str() {
            "properties" => e.value.members().iter().all(|p| declared(&p.key)),
            "not" => constraint_only(&e.value, declared, depth + 1),
            "allOf" | "anyOf" | "oneOf" => (e.value.as_array()).is_some_and(|parts| {
                parts
                    .iter()
                    .all(|p| constraint_only(p, declared, depth + 1))
            }),
            "required" | "description" | "title" | "$comment" | "minProperties"
            | "maxProperties" | "dependentRequired" => true,
            _ => false,
        })
}

/// The one schema of `patternProperties` on an object schema with `additionalProperties:
/// false`: every member's value has it (each name must match a pattern, and each pattern gives
/// the same schema). `None` where a member could have another schema.
pub fn pattern_map(node: &super::json::Node) -> Option<&super::json::Node> {
    if node.get("additionalProperties")?.as_bool() != Some(false) {
        return None;
    }
    let patterns = node.get("patternProperties")?.members();
    let (first, rest) = patterns.split_first()?;
    let same = rest
        .iter()
        .all(|m| m.value.to_value() == first.value.to_value());
    same.then_some(&first.value)
}

/// The parts of `allOf` that say something of a value: a part of annotations only (draft-04's
/// `{default: 0}` beside a `$ref`) adds no rule, so `allOf: [{$ref: X}, {default: 0}]` is `X`.
pub fn all_of_parts(node: &super::json::Node) -> Option<Vec<&super::json::Node>> {
    let parts = node.get("allOf")?.as_array()?;
    let annotation = |p: &super::json::Node| {
        p.is_object()
            && (p.members().iter()).all(|m| {
                ANNOTATIONS.contains(&m.key.as_str())
                    || matches!(m.key.as_str(), "description" | "default")
                    || m.key.starts_with("x-")
            })
    };
    Some(parts.iter().filter(|p| !annotation(p)).collect())
}
