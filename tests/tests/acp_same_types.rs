//! ACP's TypeScript types and its JSON Schema, of one version, give the same Rust types: npm
//! `@agentclientprotocol/sdk` 2.4.0 ships both (`dist/v1/schema/types.gen.d.ts`, which hey-api
//! generates from `schema/v1/schema.json`; pinned in `peers/node`, installed by
//! `scripts/install-peers`, never copied into the repository). Each file goes through its own
//! front end unchanged, and the IR of every definition is compared after the normalisation
//! docs/typescript-json-schema.md describes. The differences left are listed below with their
//! reason; a new one fails the test.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use agentwire_codegen::diag::SourceFile;
use agentwire_codegen::front::{jsonschema, ts};
use agentwire_codegen::ir::{Field, Ty, TypeDef, TypeKind};
use agentwire_tests::peers::{ensure_installed, target_dir};

type Types = BTreeMap<String, TypeDef>;

/// Why the two forms of a definition differ, when they do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Reason {
    /// The JSON Schema writes `integer` where hey-api's TypeScript can only say `number`.
    Integer,
    /// The JSON Schema has a validation keyword (`format`, `minimum`, `maximum`,
    /// `minLength`, a catch-all member's `not` of the named members' tags) hey-api does not
    /// write into the TypeScript (no JSDoc tag; a catch-all's tag is a plain `string`).
    Unsaid,
}

/// Every definition that differs, and why (the test fails on any other difference).
const EXPECTED: &[(&str, &[Reason])] = &[
    ("Annotations", &[Reason::Unsaid]),
    ("Cost", &[Reason::Unsaid]),
    ("CreateElicitationRequest", &[Reason::Unsaid]),
    ("CreateElicitationResponse", &[Reason::Unsaid]),
    ("CreateTerminalRequest", &[Reason::Integer, Reason::Unsaid]),
    ("ElicitationContentValue", &[Reason::Integer]),
    (
        "ElicitationPropertySchema",
        &[Reason::Integer, Reason::Unsaid],
    ),
    ("ElicitationUrlMode", &[Reason::Unsaid]),
    ("ErrorCode", &[Reason::Integer]),
    ("IntegerPropertySchema", &[Reason::Integer, Reason::Unsaid]),
    ("MultiSelectItems", &[Reason::Unsaid]),
    (
        "MultiSelectPropertySchema",
        &[Reason::Integer, Reason::Unsaid],
    ),
    ("Notice", &[Reason::Unsaid]),
    ("NumberPropertySchema", &[Reason::Unsaid]),
    ("ProtocolVersion", &[Reason::Integer, Reason::Unsaid]),
    ("ReadTextFileRequest", &[Reason::Integer, Reason::Unsaid]),
    ("ResourceLink", &[Reason::Integer, Reason::Unsaid]),
    ("StringPropertySchema", &[Reason::Integer, Reason::Unsaid]),
    ("TerminalExitStatus", &[Reason::Integer, Reason::Unsaid]),
    ("ToolCallLocation", &[Reason::Integer, Reason::Unsaid]),
    ("UsageUpdate", &[Reason::Integer, Reason::Unsaid]),
    (
        "WaitForTerminalExitResponse",
        &[Reason::Integer, Reason::Unsaid],
    ),
];

fn sdk_file(path: &str) -> PathBuf {
    ensure_installed();
    target_dir()
        .join("peers/node/node_modules/@agentclientprotocol/sdk")
        .join(path)
}

fn load(
    path: &str,
    front: fn(&SourceFile, &str) -> Result<Types, agentwire_codegen::diag::SpecErrors>,
) -> Types {
    let file = SourceFile::read(&sdk_file(path)).unwrap();
    front(&file, path).unwrap_or_else(|e| {
        panic!(
            "{path}: {} refusals:\n{}",
            e.errors.len(),
            e.errors
                .iter()
                .map(|e| e.one_line())
                .collect::<Vec<_>>()
                .join("\n")
        )
    })
}

/// Compares the TypeScript side's IR (`ts`) with the JSON Schema side's (`js`).
struct Compare<'a> {
    ts: &'a Types,
    js: &'a Types,
    /// Pairs of inline types already compared (or being compared: recursive types).
    seen: BTreeSet<(String, String)>,
    /// The reasons found for the definition being compared.
    reasons: BTreeSet<Reason>,
}

impl Compare<'_> {
    /// The definition `name` of both sides: `Err` with the first difference no reason
    /// explains.
    fn definition(&mut self, name: &str) -> Result<BTreeSet<Reason>, String> {
        self.reasons.clear();
        let (Some(a), Some(b)) = (self.ts.get(name), self.js.get(name)) else {
            return Err(format!("`{name}` is missing on one side"));
        };
        self.def(a, b, name)?;
        Ok(std::mem::take(&mut self.reasons))
    }

    /// Two type expressions: named types by name, inline ones (which each front end names
    /// its own way) by what they hold; `number` for `integer` is a reason, not a difference.
    fn ty(&mut self, a: &Ty, b: &Ty, at: &str) -> Result<(), String> {
        match (a, b) {
            (Ty::Named(x), Ty::Named(y)) if x == y => Ok(()),
            (Ty::Named(x), Ty::Named(y)) => {
                let (Some(dx), Some(dy)) = (self.ts.get(x), self.js.get(y)) else {
                    return Err(format!("{at}: `{x}` vs `{y}`"));
                };
                if !(dx.inline && dy.inline) {
                    return Err(format!("{at}: `{x}` vs `{y}`"));
                }
                if !self.seen.insert((x.clone(), y.clone())) {
                    return Ok(());
                }
                self.def(dx, dy, &format!("{at}/{x}~{y}"))
            }
            (Ty::Array(x), Ty::Array(y))
            | (Ty::Map(x), Ty::Map(y))
            | (Ty::Nullable(x), Ty::Nullable(y)) => self.ty(x, y, at),
            (Ty::Number, Ty::Integer) => {
                self.reasons.insert(Reason::Integer);
                Ok(())
            }
            _ if a == b => Ok(()),
            _ => Err(format!("{at}: {a:?} vs {b:?}")),
        }
    }

    fn fields(&mut self, a: &[Field], b: &[Field], at: &str) -> Result<(), String> {
        let names = |f: &[Field]| f.iter().map(|f| f.name.clone()).collect::<Vec<_>>();
        if names(a) != names(b) {
            return Err(format!("{at}: fields {:?} vs {:?}", names(a), names(b)));
        }
        for (x, y) in a.iter().zip(b) {
            let at = format!("{at}.{}", x.name);
            if x.optional != y.optional {
                return Err(format!("{at}: optional {} vs {}", x.optional, y.optional));
            }
            if x.constraints != y.constraints {
                if !x.constraints.is_empty() {
                    return Err(format!("{at}: {:?} vs {:?}", x.constraints, y.constraints));
                }
                self.reasons.insert(Reason::Unsaid);
            }
            self.ty(&x.ty, &y.ty, &at)?;
        }
        Ok(())
    }

    /// Untagged members: the JSON Schema's `integer` and `number` members are one `number`
    /// member in the TypeScript.
    fn members(&mut self, a: &[Ty], b: &[Ty], at: &str) -> Result<(), String> {
        let mut b: Vec<Ty> = b.to_vec();
        if b.contains(&Ty::Integer) && b.contains(&Ty::Number) && !a.contains(&Ty::Integer) {
            b.retain(|t| *t != Ty::Integer);
            self.reasons.insert(Reason::Integer);
        }
        if a.len() != b.len() {
            return Err(format!("{at}: members {a:?} vs {b:?}"));
        }
        for (i, (x, y)) in a.iter().zip(&b).enumerate() {
            self.ty(x, y, &format!("{at}|{i}"))?;
        }
        Ok(())
    }

    fn def(&mut self, a: &TypeDef, b: &TypeDef, at: &str) -> Result<(), String> {
        match (&a.open, &b.open) {
            (None, None) => {}
            (Some(x), Some(y)) => self.ty(x, y, &format!("{at}[open]"))?,
            _ => return Err(format!("{at}: open {:?} vs {:?}", a.open, b.open)),
        }
        match (&a.kind, &b.kind) {
            (TypeKind::Struct(x), TypeKind::Struct(y)) => self.fields(x, y, at),
            (TypeKind::Enum(x), TypeKind::Enum(y)) if x == y => Ok(()),
            (
                TypeKind::Union { tag, variants },
                TypeKind::Union {
                    tag: tag2,
                    variants: variants2,
                },
            ) if tag == tag2 && variants.len() == variants2.len() => {
                for (x, y) in variants.iter().zip(variants2) {
                    if x.value != y.value {
                        return Err(format!("{at}: tag value {} vs {}", x.value, y.value));
                    }
                    let (x_ty, y_ty) = (
                        Ty::Named(x.type_name.clone()),
                        Ty::Named(y.type_name.clone()),
                    );
                    self.ty(&x_ty, &y_ty, &format!("{at}<{}>", x.value))?;
                }
                Ok(())
            }
            (
                TypeKind::Alias {
                    target: x,
                    constraints: c1,
                },
                TypeKind::Alias {
                    target: y,
                    constraints: c2,
                },
            ) => {
                if c1 != c2 {
                    if !c1.is_empty() {
                        return Err(format!("{at}: {c1:?} vs {c2:?}"));
                    }
                    self.reasons.insert(Reason::Unsaid);
                }
                self.ty(x, y, at)
            }
            (TypeKind::Untagged(x), TypeKind::Untagged(y)) => self.members(x, y, at),
            (x, y) => Err(format!("{at}: {x:?}\n    vs {y:?}")),
        }
    }
}

#[test]
fn acp_typescript_and_json_schema_give_the_same_rust_types() {
    let ts_types = load("dist/v1/schema/types.gen.d.ts", ts::load_types);
    let mut js_types = load("schema/v1/schema.json", jsonschema::load_types);
    // The document's root (an `anyOf` of the three message unions) is a type of its own,
    // named after the file (spec/README.md, JSON Schema); the TypeScript has no counterpart.
    let root = js_types
        .remove("Schema")
        .expect("the root schema is a type");
    assert!(
        matches!(root.kind, TypeKind::Untagged(_) | TypeKind::Union { .. }),
        "the root is the union of the message unions: {:?}",
        root.kind
    );
    let named = |t: &Types| -> BTreeSet<String> {
        t.values()
            .filter(|d| !d.inline)
            .map(|d| d.name.clone())
            .collect()
    };
    let (a, b) = (named(&ts_types), named(&js_types));
    assert_eq!(
        (
            a.difference(&b).collect::<Vec<_>>(),
            b.difference(&a).collect::<Vec<_>>()
        ),
        (Vec::new(), Vec::new()),
        "definitions only the TypeScript has, only the JSON Schema has"
    );
    assert_eq!(named(&js_types).len(), 178, "ACP v1 has 178 definitions");
    let mut compare = Compare {
        ts: &ts_types,
        js: &js_types,
        seen: BTreeSet::new(),
        reasons: BTreeSet::new(),
    };
    let mut found: Vec<(String, Vec<Reason>)> = Vec::new();
    let mut unexplained = Vec::new();
    for name in named(&js_types) {
        match compare.definition(&name) {
            Ok(reasons) if reasons.is_empty() => {}
            Ok(reasons) => found.push((name, reasons.into_iter().collect())),
            Err(e) => unexplained.push(e),
        }
    }
    assert!(
        unexplained.is_empty(),
        "{} definitions differ without a reason:\n{}",
        unexplained.len(),
        unexplained.join("\n")
    );
    let expected: Vec<(String, Vec<Reason>)> = EXPECTED
        .iter()
        .map(|(n, r)| ((*n).to_owned(), r.to_vec()))
        .collect();
    assert_eq!(found, expected, "the explained differences changed");
    println!(
        "ACP v1: {} of 178 definitions equal, {} differ only by `integer` or validation keywords",
        178 - found.len(),
        found.len()
    );
}

/// The constructs the two files write differently read the same: hey-api's `A & { tag }`
/// members are the named type with its tag moved to the union (as the schema's `allOf: [$ref]`
/// beside a tag `const`), an intersection with an alias of a union distributes over it (as the
/// schema's member that merges in a union), and `'a' | string` is the schema's `anyOf` of
/// constants and `string`.
#[test]
fn the_shapes_that_needed_both_front_ends_agree() {
    let ts_types = load("dist/v1/schema/types.gen.d.ts", ts::load_types);
    let js_types = load("schema/v1/schema.json", jsonschema::load_types);
    for types in [&ts_types, &js_types] {
        let TypeKind::Union { tag, variants } = &types["ContentBlock"].kind else {
            panic!("ContentBlock: {:?}", types["ContentBlock"].kind);
        };
        assert_eq!(tag, "type");
        assert_eq!(variants[0].type_name, "TextContent");
        let TypeKind::Union { variants, .. } = &types["SessionUpdate"].kind else {
            panic!("SessionUpdate");
        };
        // Three tag values share one member type.
        assert_eq!(
            variants
                .iter()
                .filter(|v| v.type_name == "ContentChunk")
                .count(),
            3
        );
        assert!(matches!(
            &types["NoticeSeverity"].kind,
            TypeKind::Untagged(m) if m == &[Ty::Named("NoticeSeverityKnown".into()), Ty::String]
        ));
        let TypeKind::Untagged(members) = &types["CreateElicitationRequest"].kind else {
            panic!("CreateElicitationRequest");
        };
        // form, url and the catch-all for other modes, each over the session and request
        // scopes; the most demanding (url) first.
        assert_eq!(members.len(), 3);
        for m in members {
            assert!(
                matches!(&types[m.named().unwrap()].kind, TypeKind::Untagged(scopes) if scopes.len() == 2)
            );
        }
    }
}
