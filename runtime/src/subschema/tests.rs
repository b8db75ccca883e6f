use serde_json::json;

use super::*;

fn errors(schema: Value, v: Value) -> Vec<(String, String, String)> {
    let schema = Schema::compile(&schema);
    let mut out = Vec::new();
    schema.check_value(&v, &mut JsonPointer::new(), &mut out);
    assert_eq!(out.is_empty(), schema.is_valid(&v));
    (out.into_iter())
        .map(|e| (e.pointer, e.rule.name().to_owned(), e.message))
        .collect()
}

fn rules(schema: Value, v: Value) -> Vec<(String, String)> {
    (errors(schema, v).into_iter())
        .map(|(p, r, _)| (p, r))
        .collect()
}

fn one(p: &str, r: &str) -> Vec<(String, String)> {
    vec![(p.to_owned(), r.to_owned())]
}

#[test]
fn if_then_else_picks_its_branch_and_says_so() {
    let s = json!({
        "if": {"properties": {"kind": {"const": "card"}}, "required": ["kind"]},
        "then": {"required": ["number"]},
        "else": {"properties": {"number": false}}
    });
    assert!(rules(s.clone(), json!({"kind": "card", "number": "4"})).is_empty());
    let e = errors(s.clone(), json!({"kind": "card"}));
    assert_eq!(e.len(), 1);
    assert_eq!((e[0].0.as_str(), e[0].1.as_str()), ("/number", "required"));
    assert!(e[0].2.ends_with("(`then`: the `if` holds)"), "{e:?}");
    assert_eq!(
        rules(s.clone(), json!({"kind": "cash", "number": "4"})),
        one("/number", "false")
    );
    assert!(rules(s, json!({"kind": "cash"})).is_empty());
}

#[test]
fn not_refuses_what_its_schema_admits() {
    let s = json!({"not": {"required": ["legacy"]}});
    assert_eq!(rules(s.clone(), json!({"legacy": 1})), one("", "not"));
    assert!(rules(s, json!({"modern": 1})).is_empty());
    // `not` of a type, at depth.
    let s = json!({"properties": {"id": {"not": {"type": "null"}}}});
    assert_eq!(rules(s.clone(), json!({"id": null})), one("/id", "not"));
    assert!(rules(s, json!({"id": 3})).is_empty());
}

#[test]
fn pattern_properties_check_matching_members_and_additional_the_rest() {
    let s = json!({
        "properties": {"name": {"type": "string"}},
        "patternProperties": {"^x-": {"type": "integer"}, "^n[0-9]+$": {"minimum": 1}},
        "additionalProperties": false
    });
    assert!(rules(s.clone(), json!({"name": "a", "x-a": 1, "n2": 5})).is_empty());
    assert_eq!(rules(s.clone(), json!({"x-a": "one"})), one("/x-a", "type"));
    assert_eq!(rules(s.clone(), json!({"n2": 0})), one("/n2", "minimum"));
    assert_eq!(
        rules(s, json!({"other": 0})),
        one("/other", "additional_properties")
    );
}

#[test]
fn refs_reach_definitions_and_recursion_ends() {
    let s = json!({
        "$defs": {
            "pos": {"type": "integer", "minimum": 1},
            "tree": {"properties": {"n": {"$ref": "#/$defs/pos"}, "kids": {"items": {"$ref": "#/$defs/tree"}}}}
        },
        "$ref": "#/$defs/tree"
    });
    assert!(rules(s.clone(), json!({"n": 1, "kids": [{"n": 2, "kids": []}]})).is_empty());
    assert_eq!(
        rules(s, json!({"n": 1, "kids": [{"n": 0}]})),
        one("/kids/0/n", "minimum")
    );
    // A reference to itself that never moves into the value stops, it does not overflow.
    assert!(rules(json!({"$ref": "#"}), json!(1)).is_empty());
    // A reference to another document checks nothing here.
    assert!(rules(json!({"$ref": "other.json#/x"}), json!(1)).is_empty());
}

#[test]
fn dependencies_of_both_kinds() {
    let s = json!({"dependencies": {"card": ["billing"], "bank": {"required": ["iban"]}}});
    assert_eq!(
        rules(s.clone(), json!({"card": 1})),
        one("", "dependent_required")
    );
    assert_eq!(
        rules(s.clone(), json!({"bank": 1})),
        one("/iban", "required")
    );
    assert!(rules(s, json!({"bank": 1, "iban": "x"})).is_empty());
    let s = json!({"dependentSchemas": {"a": {"properties": {"b": {"type": "string"}}}}});
    assert_eq!(rules(s.clone(), json!({"a": 1, "b": 2})), one("/b", "type"));
    assert!(rules(s, json!({"b": 2})).is_empty());
}

#[test]
fn combinators_lists_and_counts() {
    let s = json!({"oneOf": [{"type": "integer"}, {"minimum": 0}]});
    assert!(rules(s.clone(), json!(-1)).is_empty());
    assert_eq!(rules(s.clone(), json!(1)), one("", "one_of"));
    assert_eq!(rules(s, json!(-0.5)), one("", "one_of"));
    let s = json!({"anyOf": [{"type": "string"}, {"type": "null"}]});
    assert_eq!(rules(s, json!(1)), one("", "any_of"));
    let s = json!({"items": [{"type": "string"}], "additionalItems": {"type": "integer"}});
    assert_eq!(rules(s.clone(), json!(["a", 1, "b"])), one("/2", "type"));
    assert_eq!(rules(s, json!([1])), one("/0", "type"));
    let s =
        json!({"prefixItems": [true], "items": false, "contains": {"const": 1}, "maxContains": 1});
    // Keywords are checked in key order: `contains` before `items`.
    assert_eq!(
        rules(s.clone(), json!([1, 1])),
        vec![
            ("".to_owned(), "contains".to_owned()),
            ("/1".to_owned(), "false".to_owned())
        ]
    );
    assert_eq!(rules(s, json!([2])), one("", "contains"));
    let s = json!({"minProperties": 1, "propertyNames": {"pattern": "^[a-z]+$"}});
    assert_eq!(rules(s.clone(), json!({})), one("", "min_properties"));
    assert_eq!(rules(s, json!({"A": 1})), one("/A", "property_names"));
}

#[test]
fn scalar_keywords_use_the_rules_of_the_fields() {
    let s = json!({"type": "integer", "exclusiveMinimum": 0, "multipleOf": 2});
    assert!(rules(s.clone(), json!(2.0)).is_empty());
    assert_eq!(rules(s.clone(), json!(0)), one("", "exclusive_minimum"));
    assert_eq!(
        rules(s, json!(2.5)),
        vec![
            ("".to_owned(), "multiple_of".to_owned()),
            ("".to_owned(), "type".to_owned())
        ]
    );
    // Draft-04's boolean exclusive bound.
    let s = json!({"minimum": 1, "exclusiveMinimum": true});
    assert_eq!(rules(s, json!(1)), one("", "exclusive_minimum"));
    let s = json!({"minLength": 2, "pattern": "^a", "format": "uuid", "enum": ["ab", 1]});
    assert_eq!(
        rules(s, json!("b")),
        vec![
            ("".to_owned(), "enum".to_owned()),
            ("".to_owned(), "format".to_owned()),
            ("".to_owned(), "min_length".to_owned()),
            ("".to_owned(), "pattern".to_owned())
        ]
    );
    assert!(rules(json!({"const": 1}), json!(1.0)).is_empty());
}

#[test]
fn any_json_compiles_and_an_unreadable_pattern_is_listed() {
    for v in [
        json!(null),
        json!(3),
        json!("x"),
        json!([1]),
        json!({"type": 3, "items": 2, "properties": []}),
    ] {
        assert!(Schema::compile(&v).is_valid(&json!({"a": 1})));
    }
    let s = Schema::compile(&json!({"pattern": "(?=a)"}));
    assert_eq!(s.unread_patterns(), ["(?=a)"]);
    assert!(s.is_valid(&json!("b")));
    assert!(Schema::parse("{").is_err());
    assert!(Schema::parse(r#"{"not": {}}"#).is_ok_and(|s| !s.is_valid(&json!(1))));
}

#[test]
fn check_reads_a_rust_value_in_its_json_form() {
    let s = Schema::parse(r#"{"if": {"required": ["a"]}, "then": {"required": ["b"]}}"#).unwrap();
    let mut at = JsonPointer::new();
    let mut out = Vec::new();
    let v: std::collections::BTreeMap<&str, u8> = [("a", 1)].into();
    at.with("params", |at| check(&v, &s, at, &mut out));
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].pointer, "/params/b");
}

#[test]
fn unevaluated_properties_sees_what_adjacent_and_applied_keywords_evaluated() {
    let s = json!({
        "properties": {"a": true},
        "allOf": [{"properties": {"b": true}}],
        "anyOf": [{"properties": {"c": {"type": "string"}}, "required": ["c"]}, true],
        "if": {"properties": {"d": true}, "required": ["d"]},
        "then": {"properties": {"e": true}},
        "unevaluatedProperties": false
    });
    assert!(rules(s.clone(), json!({"a": 1, "b": 2})).is_empty());
    // `c` counts only where the `anyOf` member that names it holds.
    assert!(rules(s.clone(), json!({"c": "x"})).is_empty());
    assert_eq!(
        rules(s.clone(), json!({"c": 1})),
        one("/c", "unevaluated_properties")
    );
    // `e` is evaluated only through the `then` taken.
    assert!(rules(s.clone(), json!({"d": 1, "e": 1})).is_empty());
    assert_eq!(
        rules(s.clone(), json!({"e": 1})),
        one("/e", "unevaluated_properties")
    );
    // A schema, not `false`: the unevaluated members are checked against it.
    let s = json!({"properties": {"a": true}, "unevaluatedProperties": {"type": "integer"}});
    assert_eq!(
        rules(s.clone(), json!({"a": "x", "z": "y"})),
        one("/z", "type")
    );
    // Through a `$ref`, and a nested `unevaluatedProperties` evaluates everything.
    let s = json!({
        "$ref": "#/$defs/base",
        "unevaluatedProperties": false,
        "$defs": {"base": {"properties": {"x": true}, "unevaluatedProperties": true}}
    });
    assert!(rules(s, json!({"x": 1, "y": 2})).is_empty());
}

#[test]
fn unevaluated_items_follow_prefix_items_and_contains() {
    let s = json!({
        "prefixItems": [{"type": "string"}],
        "contains": {"type": "integer"},
        "unevaluatedItems": false
    });
    assert!(rules(s.clone(), json!(["a", 1, 2])).is_empty());
    assert_eq!(
        rules(s.clone(), json!(["a", 1, true])),
        one("/2", "unevaluated_items")
    );
    let s = json!({"prefixItems": [true], "items": {"type": "integer"}, "unevaluatedItems": false});
    assert_eq!(rules(s, json!(["a", "b"])), one("/1", "type"));
}

#[test]
fn dynamic_refs_and_anchors_resolve_in_the_document() {
    // A meta-schema's recursion: `$dynamicRef: "#meta"` is the root that declares the anchor.
    let s = json!({
        "$dynamicAnchor": "meta",
        "type": ["object", "boolean"],
        "properties": {"not": {"$dynamicRef": "#meta"}, "items": {"$ref": "#node"}},
        "$defs": {"node": {"$anchor": "node", "type": "array", "items": {"$dynamicRef": "#meta"}}}
    });
    assert!(
        rules(
            s.clone(),
            json!({"not": {"not": true}, "items": [{}, false]})
        )
        .is_empty()
    );
    assert_eq!(
        rules(s.clone(), json!({"not": {"not": 3}})),
        one("/not/not", "type")
    );
    assert_eq!(
        rules(s.clone(), json!({"items": [1]})),
        one("/items/0", "type")
    );
    // 2019-09's `$recursiveRef: "#"` is the root.
    let s = json!({"type": "object", "properties": {"child": {"$recursiveRef": "#"}}});
    assert_eq!(
        rules(s, json!({"child": {"child": 1}})),
        one("/child/child", "type")
    );
}
