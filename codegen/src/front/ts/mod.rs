//! TypeScript loader: parses `messages.ts` with oxc and turns its interfaces and type aliases
//! into IR types, collecting every unsupported construct as a located diagnostic.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use oxc_allocator::Allocator;
use oxc_ast::ast::{
    Comment, TSEnumDeclaration, TSInterfaceDeclaration, TSLiteral, TSSignature, TSTupleElement,
    TSType, TSTypeAliasDeclaration, TSTypeLiteral, TSTypeName, TSTypeReference, TSUnionType,
};
use oxc_parser::Parser;
use oxc_span::{GetSpan, SourceType, Span};

use crate::diag::{SourceFile, SpecErrors};
use crate::front::jsdoc::{self, DocComment};
use crate::front::tags;
use crate::ir::{Field, Origin, Ty, TypeDef, TypeKind, Variant};
use crate::naming::pascal_case;

/// The type of a document's field that [`load_doc_types`] could not read (the error says why).
pub const UNREADABLE: &str = "?";
mod consts;
mod enums;
mod extends;
mod files;
mod literals;
mod open;
mod refusals;
mod scope;
mod tagged_refs;
mod type_tags;
mod unions;
mod untagged;

/// Names the loader understands without a declaration.
const BUILTIN_INTEGER: &str = "integer";
/// JavaScript's byte array and Node's, read as their base64 text.
const BYTES_UINT8: &str = "Uint8Array";
const BYTES_NODE: &str = "Buffer";

/// Parses `file` (relative name `rel`), and the files it imports, into named IR types.
pub fn load_types(file: &SourceFile, rel: &str) -> Result<BTreeMap<String, TypeDef>, SpecErrors> {
    load_files(file, rel).map(|(types, ..)| types)
}

/// [`load_types`], and every file read (`file` and those it imports, transitively).
/// And the notes for the `cargo xtask gen` summary (declarations left out).
pub fn load_files(file: &SourceFile, rel: &str) -> Result<Loaded, SpecErrors> {
    let sources = files::gather(file, rel)?;
    let (types, notes, errors) = load(&sources, false);
    errors.finish((types, sources.paths(), notes))
}

/// What [`load_files`] reads: the types, every file read, the notes.
pub type Loaded = (
    BTreeMap<String, TypeDef>,
    Vec<std::path::PathBuf>,
    Vec<String>,
);

/// Reads a document's TypeScript as people write it: every declaration that loads is kept
/// beside the errors, and a one-element tuple `[T]` reads as `T[]` (the spec's reading, see
/// spec/README.md). For the docs drift check.
pub fn load_doc_types(file: &SourceFile, rel: &str) -> (BTreeMap<String, TypeDef>, SpecErrors) {
    let (types, _, errors) = load(&files::Sources::single(file, rel), true);
    (types, errors)
}

fn load(
    sources: &files::Sources,
    lenient: bool,
) -> (BTreeMap<String, TypeDef>, Vec<String>, SpecErrors) {
    let allocator = Allocator::default();
    let parsed = Parser::new(&allocator, &sources.text, SourceType::ts()).parse();
    let mut errors = SpecErrors::default();
    for d in &parsed.diagnostics {
        let span = d
            .labels
            .first()
            .map_or((0, 0), |l| (l.offset() as usize, l.len() as usize));
        let mut e = sources.error(span, format!("TypeScript syntax error: {}", d.message));
        if let Some(help) = &d.help {
            e = e.with_help(help.to_string());
        }
        errors.push(e);
    }
    if !errors.is_empty() {
        return (BTreeMap::new(), Vec::new(), errors);
    }
    let mut loader = Loader {
        lenient,
        sources,
        docs: jsdoc_by_target(&parsed.program.comments, &sources.text),
        declared: BTreeSet::new(),
        types: BTreeMap::new(),
        literal_fields: HashMap::new(),
        unions: Vec::new(),
        extends: Vec::new(),
        consts: HashMap::new(),
        inherited: BTreeSet::new(),
        open: HashMap::new(),
        numeric_consts: HashMap::new(),
        enum_members: HashMap::new(),
        scope: Vec::new(),
        qualified: HashMap::new(),
        notes: Vec::new(),
        errors,
    };
    let mut decls = Vec::new();
    loader.declarations(&parsed.program.body, &[], &mut decls);
    for (scope, d) in &decls {
        let (name, span) = match d {
            Decl::Interface(i) => (i.id.name.as_str(), i.id.span),
            Decl::Alias(a) => (a.id.name.as_str(), a.id.span),
            Decl::Enum(e) => (e.id.name.as_str(), e.id.span),
        };
        if name == BUILTIN_INTEGER && scope.is_empty() {
            continue;
        }
        let ir = loader.declare(scope, name);
        if !loader.declared.insert(ir.clone()) {
            loader.error(span, format!("`{ir}` is declared twice"));
        }
    }
    // Enums first: a member written as a type (`Kind.Text`) is a literal wherever it is used.
    let (enums, rest): (Vec<_>, Vec<_>) =
        decls.iter().partition(|(_, d)| matches!(d, Decl::Enum(_)));
    for (scope, d) in enums.into_iter().chain(rest) {
        loader.scope = scope.clone();
        match d {
            Decl::Interface(i) => loader.interface(i),
            Decl::Alias(a) if a.id.name.as_str() == BUILTIN_INTEGER && scope.is_empty() => {}
            Decl::Alias(a) => loader.alias(a),
            Decl::Enum(e) => loader.enum_decl(&loader.ir_name(e.id.name.as_str()), e),
        }
    }
    loader.scope.clear();
    loader.resolve_extends();
    loader.resolve_unions();
    let Loader {
        types,
        notes,
        errors,
        ..
    } = loader;
    (types, notes, errors)
}

enum Decl<'r, 'a> {
    Interface(&'r TSInterfaceDeclaration<'a>),
    Alias(&'r TSTypeAliasDeclaration<'a>),
    Enum(&'r TSEnumDeclaration<'a>),
}

/// A union of interfaces waiting for every member to be loaded before its tag is chosen.
struct PendingUnion {
    name: String,
    members: Vec<(String, Span)>,
    /// Tags on the alias, kept in case it turns out to be a plain alias.
    constraints: crate::ir::Constraints,
    /// Members written `Name & { tag: "value" }`, by index: the tag and value they fix
    /// beside the named type (see `tagged_refs`).
    fixed: HashMap<usize, (String, String)>,
}

struct Loader<'f> {
    /// Reading a document: a one-element tuple is a list.
    lenient: bool,
    /// The types file and those it imports, joined (see `files`).
    sources: &'f files::Sources,
    /// JSDoc text and its span, by the start offset of the node it documents.
    docs: HashMap<u32, (String, Span)>,
    declared: BTreeSet<String>,
    types: BTreeMap<String, TypeDef>,
    /// (interface, field) -> the string literal the field is fixed to.
    literal_fields: HashMap<(String, String), String>,
    unions: Vec<PendingUnion>,
    /// Interfaces with an `extends` clause, flattened once every type is loaded.
    extends: Vec<extends::Extends>,
    /// `const X = "..."` declarations, by name, for `typeof X`.
    consts: HashMap<String, String>,
    /// (interface, field) literal members an interface inherits from a base.
    inherited: BTreeSet<(String, String)>,
    /// The value type of an index signature beside properties, by the owner `members` read it
    /// for; moved into the owner's `TypeDef::open` when it is added.
    open: HashMap<String, Ty>,
    /// Numeric constants (`export declare const PARSE_ERROR = -32700;`), by name, for `typeof X`:
    /// whether each is a whole number.
    numeric_consts: HashMap<String, bool>,
    /// The members of every enum, by (enum, member), for `Enum.Member` as a literal type.
    enum_members: HashMap<(String, String), enums::Member>,
    /// The namespace path of the declaration being read (`scope`).
    scope: Vec<String>,
    /// Every declaration's type name, by its dotted path (`Ns.Type`).
    qualified: HashMap<String, String>,
    /// Declarations left out, one note each (`scope::skip`).
    notes: Vec<String>,
    errors: SpecErrors,
}

impl<'f> Loader<'f> {
    fn error(&mut self, span: Span, message: impl Into<String>) {
        let e = self
            .sources
            .error((span.start as usize, span.size() as usize), message);
        self.errors.push(e);
    }

    /// "unknown type `Strng`; did you mean `string`?": the closest declared or built-in name.
    fn unknown_type(&mut self, span: Span, name: &str) {
        const BUILT_IN: [&str; 12] = [
            "string",
            "number",
            "boolean",
            "integer",
            "unknown",
            "any",
            "object",
            "null",
            "Array",
            "Record",
            BYTES_UINT8,
            BYTES_NODE,
        ];
        let names = self.declared.iter().map(String::as_str).chain(BUILT_IN);
        let hint = crate::suggest::did_you_mean(name, names);
        self.error(span, format!("unknown type `{name}`{hint}"));
    }

    fn origin(&self, span: Span) -> Origin {
        let (segment, offset) = self.sources.locate(span.start as usize);
        Origin {
            file: segment.rel.clone(),
            line: segment.file.line_of(offset),
        }
    }

    fn doc(&mut self, node_start: u32) -> DocComment {
        let Some((text, span)) = self.docs.get(&node_start).cloned() else {
            return DocComment::default();
        };
        // A format the validators do not know is carried into the schema, not refused
        // (`cargo xtask gen` notes it): ts-json-schema-generator passes any `@format` on.
        let (text, carried) = carried_format(&text);
        match jsdoc::parse(&text) {
            Ok(mut doc) => {
                if let Some(format) = carried {
                    doc.constraints
                        .set(&crate::rules::FORMAT, crate::rules::Value::Text(format));
                }
                doc
            }
            Err(e) => {
                // Point at the tag itself when the error is about one (`@minimun`).
                let (text, _) = self.docs.get(&node_start).cloned().unwrap_or_default();
                let at = misspelt_tag(&text)
                    .map(|(i, len)| (span.start as usize + i, len))
                    .unwrap_or((span.start as usize, span.size() as usize));
                self.errors
                    .push(self.sources.error(at, e.message).with_help(e.help));
                DocComment::default()
            }
        }
    }

    /// Reports a constraint tag that does not fit the type it is on (`@minItems` on a string).
    fn check_fit(&mut self, c: &crate::ir::Constraints, ty: &Ty, span: Span) {
        for (rule, _) in c.iter() {
            let shape = crate::rules::shape_for(rule, ty);
            if let Err(e) = crate::rules::fits(rule, &format!("@{}", rule.tag), shape) {
                self.errors.push(
                    self.sources
                        .error((span.start as usize, span.size() as usize), e.message)
                        .with_help(e.help),
                );
            }
        }
    }

    fn add(&mut self, name: &str, doc: String, span: Span, kind: TypeKind) {
        self.add_def(name, doc, span, kind, false);
    }

    /// A type the generator names for an inline object or literal.
    fn add_inline(&mut self, name: &str, span: Span, kind: TypeKind) {
        self.add_def(name, String::new(), span, kind, true);
    }

    fn add_def(&mut self, name: &str, doc: String, span: Span, kind: TypeKind, inline: bool) {
        let def = TypeDef {
            name: name.to_owned(),
            inline,
            doc,
            origin: self.origin(span),
            kind,
            // An index signature beside properties, read by `members` for this owner.
            open: self.open.remove(name),
            rules: Default::default(),
        };
        if self.types.insert(name.to_owned(), def).is_some() {
            self.error(
                span,
                format!("the generated type name `{name}` clashes with another type"),
            );
        }
    }

    fn interface(&mut self, i: &TSInterfaceDeclaration<'_>) {
        let name = self.ir_name(i.id.name.as_str());
        if i.type_parameters.is_some() {
            self.error(
                i.span,
                "generic interfaces are not supported; declare one interface per instantiation",
            );
        }
        self.record_extends(i);
        let doc = self.doc(i.span.start);
        let fields = self.members(&name, &i.body.body);
        self.add(&name, doc.text, i.id.span, TypeKind::Struct(fields));
    }

    /// Fields of an interface or inline object type named `owner`.
    fn members(&mut self, owner: &str, members: &[TSSignature<'_>]) -> Vec<Field> {
        let mut fields: Vec<Field> = Vec::new();
        for m in members {
            if let TSSignature::TSIndexSignature(ix) = m {
                self.open_members(owner, ix);
                continue;
            }
            let TSSignature::TSPropertySignature(p) = m else {
                self.error(m.span(), refusals::member(m));
                continue;
            };
            let Some(key) = p.key.static_name() else {
                self.error(
                    p.span,
                    "computed property names are not supported; write the key as a name or a string literal",
                );
                continue;
            };
            let key = key.to_string();
            if fields.iter().any(|f| f.name == key) {
                self.error(p.span, format!("field `{key}` appears twice"));
                continue;
            }
            let Some(ann) = &p.type_annotation else {
                self.error(
                    p.span,
                    format!("field `{key}` has no type; write `{key}: T`"),
                );
                continue;
            };
            if self.never_member(&key, &ann.type_annotation, p.optional) {
                continue;
            }
            // `key: T | undefined`: JSON has no `undefined`; the member may be left out.
            let optional = p.optional || literals::admits_undefined(&ann.type_annotation);
            let doc = self.doc(p.span.start);
            let context = format!("{owner}{}", pascal_case(&key));
            if let Some(lit) = self.fixed_string(&ann.type_annotation) {
                self.literal_fields
                    .insert((owner.to_owned(), key.clone()), lit);
            }
            let ty = match self.ty(&ann.type_annotation, &context) {
                Some(ty) => ty,
                // A document's field of a type the loader cannot read compares as anything.
                None if self.lenient => Ty::Named(UNREADABLE.to_owned()),
                None => continue,
            };
            let ty = self.apply_type_tags(p.span.start, ty, p.span);
            self.check_fit(&doc.constraints, &ty, p.span);
            let read = doc
                .default
                .as_deref()
                .map(|raw| crate::front::defaults::value(raw, &ty, &self.types));
            let default = match read {
                Some(Ok(_)) if !optional => {
                    self.error(
                        p.span,
                        format!("field `{key}` is required, so it is never absent and its `@default` never applies: write `{key}?:`"),
                    );
                    None
                }
                Some(Ok(v)) => Some(v),
                Some(Err(e)) => {
                    self.error(p.span, e);
                    None
                }
                None => None,
            };
            fields.push(Field {
                name: key,
                ty,
                optional,
                doc: doc.text,
                constraints: doc.constraints,
                origin: self.origin(p.span),
                defaulted: false,
                default,
                must_be_set: false,
            });
        }
        fields
    }

    fn alias(&mut self, a: &TSTypeAliasDeclaration<'_>) {
        let name = self.ir_name(a.id.name.as_str());
        if a.type_parameters.is_some() {
            self.error(
                a.span,
                "generic type aliases are not supported; declare one alias per instantiation",
            );
        }
        let doc = self.doc(a.span.start);
        let ty = strip_parens(&a.type_annotation);
        // A union of interface references becomes a tagged union once all types are known;
        // `type A = B` joins it as a one-member union if B has a literal field to dispatch on.
        if self.alias_of_references(&name, &doc, a, ty) {
            return;
        }
        if let Some(values) = string_literals(ty) {
            self.add(&name, doc.text, a.id.span, TypeKind::Enum(values));
            return;
        }
        if let TSType::TSUnionType(u) = ty
            && self.alias_of_union(&name, &doc, a.id.span, u)
        {
            return;
        }
        if let TSType::TSIntersectionType(i) = ty {
            self.intersection(&name, &i.types, doc.text, a.id.span, false);
            return;
        }
        if let TSType::TSTypeQuery(q) = ty
            && self.typeof_number(q).is_none()
        {
            if let Some(value) = self.typeof_value(q) {
                self.add(&name, doc.text, a.id.span, TypeKind::Enum(vec![value]));
            }
            return;
        }
        if let TSType::TSTypeLiteral(lit) = ty
            && !is_index_signature(&lit.members)
        {
            let fields = self.members(&name, &lit.members);
            self.add(&name, doc.text, a.id.span, TypeKind::Struct(fields));
            return;
        }
        if let Some(n) = literals::number_literal(ty) {
            self.add(&name, doc.text, a.id.span, literals::number_set(&[n]));
            return;
        }
        if let Some(value) = single_string_literal(ty) {
            self.add(
                &name,
                doc.text,
                a.id.span,
                TypeKind::Enum(vec![value.to_owned()]),
            );
            return;
        }
        // `type Id = string | number | null`: the non-null part is a type of its own.
        let context = if matches!(ty, TSType::TSUnionType(_)) {
            format!("{name}Value")
        } else {
            name.clone()
        };
        let Some(target) = self.ty(ty, &context) else {
            return;
        };
        let target = self.apply_type_tags(a.span.start, target, a.span);
        self.check_fit(&doc.constraints, &target, a.span);
        self.add(
            &name,
            doc.text,
            a.id.span,
            TypeKind::Alias {
                target,
                constraints: doc.constraints,
            },
        );
    }

    /// `type A = B | C` (or `type A = B`) over interface references: a tagged union, resolved
    /// once every type is known. Whether `ty` was one.
    fn alias_of_references(
        &mut self,
        name: &str,
        doc: &DocComment,
        a: &TSTypeAliasDeclaration<'_>,
        ty: &TSType<'_>,
    ) -> bool {
        let members: Option<Vec<&TSType<'_>>> = match ty {
            TSType::TSUnionType(u) => Some(u.types.iter().collect()),
            TSType::TSTypeReference(_) => Some(vec![ty]),
            _ => None,
        };
        if let Some(members) = members {
            let refs: Option<Vec<(String, Span)>> = members
                .iter()
                .map(|t| self.ref_name(t).map(|n| (n, t.span())))
                .collect();
            if let Some(members) = refs
                && members
                    .iter()
                    .all(|(n, _)| self.declared.contains(n) || members.len() > 1)
                && members.iter().all(|(n, _)| n != BUILTIN_INTEGER)
            {
                for (member, span) in &members {
                    if !self.declared.contains(member) {
                        self.unknown_type(*span, member);
                    }
                }
                self.unions.push(PendingUnion {
                    name: name.to_owned(),
                    members,
                    constraints: doc.constraints.clone(),
                    fixed: HashMap::new(),
                });
                self.types.insert(
                    name.to_owned(),
                    TypeDef {
                        name: name.to_owned(),
                        inline: false,
                        doc: doc.text.clone(),
                        origin: self.origin(a.id.span),
                        kind: TypeKind::Union {
                            tag: String::new(),
                            variants: Vec::new(),
                        },
                        open: None,
                        rules: Default::default(),
                    },
                );
                return true;
            }
        }
        false
    }

    /// A union alias of primitives, of strings open to more, of numbers, or of other types;
    /// `false` for `T | null` and its kin (a nullable alias) and what is none of these.
    fn alias_of_union(
        &mut self,
        name: &str,
        doc: &DocComment,
        span: Span,
        u: &TSUnionType<'_>,
    ) -> bool {
        let members: Vec<&TSType<'_>> = u
            .types
            .iter()
            .filter(|t| !literals::is_undefined(t))
            .collect();
        if members.len() < 2 {
            // `T | undefined` is `T`, read below as any other type.
            return false;
        }
        if let Some(values) = literal_values(&members) {
            self.add(name, doc.text.clone(), span, TypeKind::Enum(values));
            return true;
        }
        if let Some(values) = literals::number_literals(&members) {
            self.add(name, doc.text.clone(), span, literals::number_set(&values));
            return true;
        }
        if let Some(members) = untagged::primitive_members(&members) {
            self.add(name, doc.text.clone(), span, TypeKind::Untagged(members));
            return true;
        }
        if let Some(values) = untagged::open_enum(&members) {
            self.open_enum(name, values, span, Some(doc.text.clone()));
            return true;
        }
        if let Some(number) = untagged::open_number(&members) {
            let kind = TypeKind::Alias {
                target: number,
                constraints: doc.constraints.clone(),
            };
            self.add(name, doc.text.clone(), span, kind);
            return true;
        }
        // `T | null` and its kin are a nullable alias, below.
        if !members
            .iter()
            .any(|t| matches!(strip_parens(t), TSType::TSNullKeyword(_)))
        {
            self.union_type(name, &members, span, doc.text.clone(), false);
            return true;
        }
        false
    }

    /// Converts a type expression; inline object and literal types become named types called
    /// `context`.
    fn ty(&mut self, t: &TSType<'_>, context: &str) -> Option<Ty> {
        let t = strip_parens(t);
        Some(match t {
            TSType::TSStringKeyword(_) => Ty::String,
            TSType::TSBooleanKeyword(_) => Ty::Bool,
            TSType::TSNumberKeyword(_) => Ty::Number,
            TSType::TSAnyKeyword(_) | TSType::TSUnknownKeyword(_) => Ty::Any,
            // Any JSON object; its members are kept as they come.
            TSType::TSObjectKeyword(_) => Ty::Map(Box::new(Ty::Any)),
            TSType::TSTypeQuery(q) => {
                if let Some(number) = self.typeof_number(q) {
                    return Some(number);
                }
                let value = self.typeof_value(q)?;
                self.inline_enum(context, vec![value], q.span)
            }
            TSType::TSIntersectionType(i) => {
                self.intersection(context, &i.types, String::new(), i.span, true)?;
                Ty::Named(context.to_owned())
            }
            TSType::TSArrayType(a) => Ty::Array(Box::new(
                self.ty(&a.element_type, &format!("{context}Item"))?,
            )),
            TSType::TSTypeReference(r) => self.type_reference(r, context)?,
            TSType::TSUnionType(u) => self.union(u, context)?,
            TSType::TSLiteralType(l) => match &l.literal {
                TSLiteral::StringLiteral(s) => {
                    self.inline_enum(context, vec![s.value.as_str().to_owned()], l.span)
                }
                TSLiteral::BooleanLiteral(b) => Ty::BoolLiteral(b.value),
                _ => match literals::number_literal(t) {
                    Some(n) => self.number_literal_type(context, &[n], l.span),
                    None => {
                        self.error(
                            l.span,
                            "only string, number and boolean literal types are supported; write a string literal, or `number` (or `integer`) with `@minimum`/`@maximum`",
                        );
                        return None;
                    }
                },
            },
            TSType::TSTypeLiteral(lit) => self.type_literal(lit, context)?,
            TSType::TSTupleType(tuple) if self.lenient && tuple.element_types.len() == 1 => {
                let element = tuple.element_types[0].as_ts_type()?;
                Ty::Array(Box::new(self.ty(element, context)?))
            }
            TSType::TSTupleType(tuple) => {
                // A one-element tuple is read as "a list of this element"; see spec/README.md.
                if let [TSTupleElement::TSTypeLiteral(_) | TSTupleElement::TSTypeReference(_)] =
                    tuple.element_types.as_slice()
                {
                    self.error(
                        tuple.span,
                        "tuple types are not supported; write `T[]` (with a `Spec note:` if the source document writes a tuple)",
                    );
                } else {
                    self.error(
                        tuple.span,
                        "tuple types are not supported; write an interface with named fields, or `T[]`",
                    );
                }
                return None;
            }
            // Only `null` fits; read as JSON Schema's `type: "null"` is (spec/README.md).
            TSType::TSNullKeyword(_) => Ty::Nullable(Box::new(Ty::Any)),
            other => {
                self.error(
                    other.span(),
                    "unsupported TypeScript type; write it with interfaces, type aliases, primitives, string literals, `T[]` or `{ [key: string]: T }`",
                );
                return None;
            }
        })
    }

    /// A reference by name: a declared type, `Array<T>`, `Record<string, T>` or the integer
    /// brand.
    fn type_reference(&mut self, r: &TSTypeReference<'_>, context: &str) -> Option<Ty> {
        let TSTypeName::IdentifierReference(id) = &r.type_name else {
            if r.type_arguments.is_some() {
                self.error(r.span, refusals::QUALIFIED);
                return None;
            }
            return self.qualified(&r.type_name, context, r.span);
        };
        let name = id.name.as_str();
        let args: Vec<&TSType<'_>> = r
            .type_arguments
            .as_ref()
            .map(|a| a.params.iter().collect())
            .unwrap_or_default();
        Some(match (name, args.as_slice()) {
            ("Array", [elem]) => Ty::Array(Box::new(self.ty(elem, &format!("{context}Item"))?)),
            ("Record", [TSType::TSStringKeyword(_), value]) => {
                Ty::Map(Box::new(self.ty(value, &format!("{context}Value"))?))
            }
            (_, []) if let Some(ir) = self.resolve(name) => Ty::Named(ir),
            (BUILTIN_INTEGER, []) => Ty::Integer,
            // JavaScript's byte arrays (ts-proto's `bytes`), which JSON carries as base64 text
            // (ts-proto's `toJSON`, proto3 JSON); newer typings write `Uint8Array<ArrayBuffer>`.
            (BYTES_UINT8 | BYTES_NODE, _) if self.resolve(name).is_none() => Ty::String,
            (_, []) => {
                self.unknown_type(r.span, name);
                // A document may use a name it never declares: keep the reference so
                // the field still compares, the error says what is missing.
                return self.lenient.then(|| Ty::Named(name.to_owned()));
            }
            _ => {
                self.error(r.span, refusals::generic(name));
                return None;
            }
        })
    }

    /// `A | B | null`: string literals as an enum, primitives as an untagged union, a single
    /// member as itself, `null` as nullability, anything else as a union type named `context`.
    fn union(&mut self, u: &TSUnionType<'_>, context: &str) -> Option<Ty> {
        // `undefined` never reaches JSON: the member holding it may be absent (see `members`).
        let defined: Vec<&TSType<'_>> = u
            .types
            .iter()
            .filter(|t| !literals::is_undefined(t))
            .collect();
        let non_null: Vec<&TSType<'_>> = defined
            .iter()
            .copied()
            .filter(|t| !matches!(strip_parens(t), TSType::TSNullKeyword(_)))
            .collect();
        let nullable = non_null.len() < defined.len();
        if non_null.is_empty() {
            // `null | undefined`, or `undefined` alone: only `null` fits.
            return Some(Ty::Nullable(Box::new(Ty::Any)));
        }
        let inner = if let Some(values) = literal_values(&non_null) {
            self.inline_enum(context, values, u.span)
        } else if let [single] = non_null.as_slice() {
            self.ty(single, context)?
        } else if let Some(values) = literals::number_literals(&non_null) {
            self.number_literal_type(context, &values, u.span)
        } else if let Some(members) = untagged::primitive_members(&non_null) {
            self.add_inline(context, u.span, TypeKind::Untagged(members));
            Ty::Named(context.to_owned())
        } else if let Some(values) = untagged::open_enum(&non_null) {
            self.open_enum(context, values, u.span, None);
            Ty::Named(context.to_owned())
        } else if let Some(number) = untagged::open_number(&non_null) {
            number
        } else {
            self.union_type(context, &non_null, u.span, String::new(), true)?;
            Ty::Named(context.to_owned())
        };
        Some(if nullable {
            Ty::Nullable(Box::new(inner))
        } else {
            inner
        })
    }

    /// `{ [key: string]: T }` as a map, any other object literal as an inline struct.
    fn type_literal(&mut self, lit: &TSTypeLiteral<'_>, context: &str) -> Option<Ty> {
        Some(if is_index_signature(&lit.members) {
            let TSSignature::TSIndexSignature(ix) = &lit.members[0] else {
                unreachable!("checked by is_index_signature")
            };
            let key_is_string = matches!(
                ix.parameter.type_annotation.type_annotation,
                TSType::TSStringKeyword(_)
            );
            if !key_is_string {
                self.error(ix.span, refusals::INDEX_KEY);
                return None;
            }
            let value = self.ty(
                &ix.type_annotation.type_annotation,
                &format!("{context}Value"),
            )?;
            Ty::Map(Box::new(value))
        } else {
            let fields = self.members(context, &lit.members);
            self.add_inline(context, lit.span, TypeKind::Struct(fields));
            Ty::Named(context.to_owned())
        })
    }

    /// An intersection `A & B & { ... }` as the struct `name`: the interfaces' members, then
    /// the literals' (see `extends`).
    fn intersection(
        &mut self,
        name: &str,
        types: &[TSType<'_>],
        doc: String,
        span: Span,
        inline: bool,
    ) -> Option<()> {
        self.intersect(name, types.iter().collect(), doc, span, inline)
    }

    /// The intersection of `parts`; one holding a union (`(A | B) & { c: T }`) is the union
    /// of the intersections, `<name>1`, `<name>2`, ..., as TypeScript distributes it.
    fn intersect(
        &mut self,
        name: &str,
        parts: Vec<&TSType<'_>>,
        doc: String,
        span: Span,
        inline: bool,
    ) -> Option<()> {
        let mut flat: Vec<&TSType<'_>> = Vec::new();
        for p in parts {
            match strip_parens(p) {
                TSType::TSIntersectionType(i) => flat.extend(i.types.iter()),
                other => flat.push(other),
            }
        }
        if let Some(k) = flat
            .iter()
            .position(|t| matches!(strip_parens(t), TSType::TSUnionType(_)))
        {
            let TSType::TSUnionType(u) = strip_parens(flat[k]) else {
                return None;
            };
            let mut members = Vec::new();
            for (j, alt) in u.types.iter().enumerate() {
                let member = format!("{name}{}", j + 1);
                let mut parts = flat.clone();
                parts[k] = alt;
                self.intersect(&member, parts, String::new(), alt.span(), true)?;
                members.push((member, alt.span()));
            }
            self.pending_union(name, members, span, doc, inline, Default::default());
            return Some(());
        }
        let owned: Vec<&TSType<'_>> = flat;
        let (bases, literals) = self.intersection_bases(&owned)?;
        let mut fields: Vec<Field> = Vec::new();
        for lit in literals {
            for f in self.members(name, &lit.members) {
                match fields.iter_mut().find(|x| x.name == f.name) {
                    Some(slot) => *slot = f,
                    None => fields.push(f),
                }
            }
        }
        self.add_def(name, doc, span, TypeKind::Struct(fields), inline);
        self.push_extends(name, bases);
        Some(())
    }

    /// `name` as an open enum: `<name>Known` holds the known values, `name` is that or any
    /// other string. `doc` is `None` for a field's inline union.
    fn open_enum(&mut self, name: &str, values: Vec<String>, span: Span, doc: Option<String>) {
        let known = format!("{name}Known");
        self.add_inline(&known, span, TypeKind::Enum(values));
        let kind = TypeKind::Untagged(vec![Ty::Named(known), Ty::String]);
        match doc {
            Some(doc) => self.add(name, doc, span, kind),
            None => self.add_inline(name, span, kind),
        }
    }

    fn inline_enum(&mut self, context: &str, values: Vec<String>, span: Span) -> Ty {
        self.add_inline(context, span, TypeKind::Enum(values));
        Ty::Named(context.to_owned())
    }

    /// Whether `f`, an optional literal field of `member`, declares its own value as its
    /// default: then it can be the discriminator, and `member` is what an object without it is.
    fn tag_default(&self, member: &str, f: &Field) -> bool {
        let literal = self
            .literal_fields
            .get(&(member.to_owned(), f.name.clone()));
        f.optional
            && literal.is_some()
            && f.default.as_ref().and_then(|v| v.as_str()) == literal.map(String::as_str)
    }

    fn has_literal_field(&self, name: &str) -> bool {
        match self.types.get(name) {
            Some(TypeDef {
                kind: TypeKind::Struct(fields),
                ..
            }) => fields.iter().any(|f| {
                !f.optional
                    && self
                        .literal_fields
                        .contains_key(&(name.to_owned(), f.name.clone()))
            }),
            _ => false,
        }
    }

    /// The value member `i` of the union `u` fixes `tag` to, if it fixes one.
    fn member_value(&self, u: &PendingUnion, i: usize, tag: &str) -> Option<String> {
        if let Some((fixed, value)) = u.fixed.get(&i) {
            return (fixed == tag).then(|| value.clone());
        }
        let (member, _) = u.members.get(i)?;
        self.literal_fields
            .get(&(member.clone(), tag.to_owned()))
            .cloned()
    }

    /// The discriminator candidates of a union, best first: members' values all different
    /// before a shared constant (`jsonrpc: '2.0'`), then declared by the members themselves
    /// before inherited from a base; otherwise in field order.
    fn rank_candidates(&self, u: &PendingUnion, mut candidates: Vec<String>) -> Vec<String> {
        let own = |c: &String| {
            u.members
                .iter()
                .all(|(m, _)| !self.inherited.contains(&(m.clone(), c.clone())))
        };
        candidates.sort_by_key(|c| (!self.distinct_values(u, c), !own(c)));
        candidates
    }

    /// Whether every member of a union fixes `tag` to a value of its own.
    fn distinct_values(&self, u: &PendingUnion, tag: &str) -> bool {
        let values: Option<BTreeSet<String>> = (0..u.members.len())
            .map(|i| self.member_value(u, i, tag))
            .collect();
        values.is_some_and(|v| v.len() == u.members.len())
    }

    /// The fields every member of `u` fixes to a literal (its tag candidates): a member's own
    /// required literal members, the tag an earlier union took from it, or the tag it fixes
    /// beside its type.
    fn tag_candidates(&self, u: &PendingUnion, stripped: &HashMap<String, String>) -> Vec<String> {
        let mut candidates: Option<Vec<String>> = None;
        for (i, (member, _)) in u.members.iter().enumerate() {
            // `Name & { tag: "v" }` fixes its tag beside the type, whatever the type.
            if let Some((tag, _)) = u.fixed.get(&i) {
                candidates = Some(match candidates {
                    None => vec![tag.clone()],
                    Some(prev) => prev.into_iter().filter(|c| c == tag).collect(),
                });
                continue;
            }
            let Some(TypeDef {
                kind: TypeKind::Struct(fields),
                ..
            }) = self.types.get(member)
            else {
                // A member that is not an interface: no tag to dispatch on.
                candidates = Some(Vec::new());
                continue;
            };
            let mut fixed: Vec<String> = fields
                .iter()
                .filter(|f| !f.optional || self.tag_default(member, f))
                .filter(|f| {
                    self.literal_fields
                        .contains_key(&(member.clone(), f.name.clone()))
                })
                .map(|f| f.name.clone())
                .collect();
            // A member of an earlier union lost its tag field to that union; the tag
            // still fixes its value for this one.
            if let Some(tag) = stripped.get(member) {
                fixed.insert(0, tag.clone());
            }
            candidates = Some(match candidates {
                None => fixed,
                Some(prev) => prev.into_iter().filter(|c| fixed.contains(c)).collect(),
            });
        }
        candidates.unwrap_or_default()
    }

    /// Picks each union's discriminator and strips it from the member structs.
    fn resolve_unions(&mut self) {
        let mut stripped: HashMap<String, String> = HashMap::new();
        for u in std::mem::take(&mut self.unions) {
            if let [(member, _)] = u.members.as_slice()
                && !self.has_literal_field(member)
            {
                // `type A = B` with nothing to dispatch on is a plain alias.
                if let Some(def) = self.types.get_mut(&u.name) {
                    def.kind = TypeKind::Alias {
                        target: Ty::Named(member.clone()),
                        constraints: u.constraints.clone(),
                    };
                }
                continue;
            }
            let candidates = self.tag_candidates(&u, &stripped);
            let candidates = self.rank_candidates(&u, candidates);
            // Without a shared literal field whose values tell every member apart, the union
            // is untagged: its members are tried in turn.
            let Some(tag) = candidates
                .first()
                .filter(|c| self.distinct_values(&u, c))
                .cloned()
            else {
                self.untagged_union(&u);
                continue;
            };
            let mut variants = Vec::new();
            for (i, (member, span)) in u.members.iter().enumerate() {
                let value = self.member_value(&u, i, &tag).unwrap_or_default();
                let tag_field = match self.types.get(member).map(|t| &t.kind) {
                    Some(TypeKind::Struct(fields)) => fields.iter().find(|f| f.name == tag),
                    _ => None,
                };
                let origin = tag_field.map_or_else(|| self.origin(*span), |f| f.origin.clone());
                let default = tag_field.is_some_and(|f| f.optional);
                if default && variants.iter().any(|v: &Variant| v.default) {
                    self.error(
                        *span,
                        format!(
                            "two members of `{}` declare a default `{tag}`: an object without it can be read as only one",
                            u.name
                        ),
                    );
                }
                if variants.iter().any(|v: &Variant| v.value == value) {
                    self.error(
                        *span,
                        format!(
                            "two members of `{}` use `{tag}: '{value}'`; give each member a value of its own",
                            u.name
                        ),
                    );
                }
                // A member tagged beside its type (`Name & { tag }`) has no tag field to lose.
                let tagged_beside = u.fixed.contains_key(&i);
                match stripped.get(member) {
                    _ if tagged_beside => {}
                    Some(prev) if *prev != tag => self.error(
                        *span,
                        format!(
                            "`{member}` is in unions with different discriminators (`{prev}`, `{tag}`); declare a second interface extending it for the second union"
                        ),
                    ),
                    Some(_) => {}
                    None => {
                        stripped.insert(member.clone(), tag.clone());
                        if let Some(TypeDef {
                            kind: TypeKind::Struct(fields),
                            ..
                        }) = self.types.get_mut(member)
                        {
                            fields.retain(|f| f.name != tag);
                        }
                        self.types.remove(&format!("{member}{}", pascal_case(&tag)));
                    }
                }
                variants.push(Variant {
                    value,
                    type_name: member.clone(),
                    origin,
                    default,
                    beside: tagged_beside,
                });
            }
            if let Some(def) = self.types.get_mut(&u.name) {
                def.kind = TypeKind::Union { tag, variants };
            }
        }
        crate::ir::order_untagged_members(&mut self.types);
    }
}

/// The comment without its `@format` line when that line names a format the validators do
/// not know, and that format.
fn carried_format(raw: &str) -> (String, Option<String>) {
    let mut carried = None;
    let mut kept = Vec::new();
    for line in raw.lines() {
        let body = line
            .trim()
            .trim_start_matches("/**")
            .trim_start_matches('*');
        let body = body.trim_end_matches("*/").trim();
        if let Some(value) = body.strip_prefix("@format ").map(str::trim)
            && !value.is_empty()
            && !crate::ir::FORMATS.contains(&value)
            && carried.is_none()
        {
            carried = Some(value.to_owned());
            // Keep the comment's delimiters if they shared the line.
            kept.push(format!(
                "{}{}",
                if line.trim_start().starts_with("/**") {
                    "/**"
                } else {
                    ""
                },
                if line.trim_end().ends_with("*/") {
                    "*/"
                } else {
                    ""
                }
            ));
            continue;
        }
        kept.push(line.to_owned());
    }
    (kept.join("\n"), carried)
}

/// The offset and length of the first misspelt constraint tag (`@minimun`) in a comment.
fn misspelt_tag(comment: &str) -> Option<(usize, usize)> {
    let mut from = 0;
    while let Some(i) = comment[from..].find('@') {
        let start = from + i;
        let word: String = comment[start + 1..]
            .chars()
            .take_while(|c| !c.is_whitespace() && *c != '*')
            .collect();
        if matches!(tags::classify_tag(&word), tags::TagName::Misspelt(_)) {
            return Some((start, word.len() + 1));
        }
        from = start + 1;
    }
    None
}

fn strip_parens<'r, 'a>(t: &'r TSType<'a>) -> &'r TSType<'a> {
    match t {
        TSType::TSParenthesizedType(p) => strip_parens(&p.type_annotation),
        other => other,
    }
}

fn type_ref_name<'r>(t: &'r TSType<'_>) -> Option<&'r str> {
    match t {
        TSType::TSTypeReference(r) if r.type_arguments.is_none() => match &r.type_name {
            TSTypeName::IdentifierReference(id) => Some(id.name.as_str()),
            _ => None,
        },
        _ => None,
    }
}

fn single_string_literal<'r>(t: &'r TSType<'_>) -> Option<&'r str> {
    match strip_parens(t) {
        TSType::TSLiteralType(l) => match &l.literal {
            TSLiteral::StringLiteral(s) => Some(s.value.as_str()),
            _ => None,
        },
        _ => None,
    }
}

/// The values of a union made only of string literals.
fn string_literals(t: &TSType<'_>) -> Option<Vec<String>> {
    match t {
        TSType::TSUnionType(u) => literal_values(&u.types.iter().collect::<Vec<_>>()),
        _ => None,
    }
}

fn literal_values(types: &[&TSType<'_>]) -> Option<Vec<String>> {
    if types.len() < 2 {
        return None;
    }
    types
        .iter()
        .map(|t| single_string_literal(t).map(str::to_owned))
        .collect()
}

fn is_index_signature(members: &[TSSignature<'_>]) -> bool {
    matches!(members, [TSSignature::TSIndexSignature(_)])
}

/// Maps each JSDoc comment to the start offset of the node it is attached to.
fn jsdoc_by_target(comments: &[Comment], text: &str) -> HashMap<u32, (String, Span)> {
    comments
        .iter()
        .filter(|c| c.is_jsdoc())
        .map(|c| {
            let raw = &text[c.span.start as usize..c.span.end as usize];
            (c.attached_to, (raw.to_owned(), c.span))
        })
        .collect()
}

/// Loads TypeScript held in memory as if read from `messages.ts`; for the tests of this
/// loader and of the emitters that read its output.
#[cfg(test)]
pub(crate) fn load_text(ts: &str) -> BTreeMap<String, TypeDef> {
    let file = SourceFile {
        path: std::path::PathBuf::from("messages.ts"),
        text: ts.into(),
    };
    load_types(&file, "messages.ts").expect("test spec loads")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn export_keeps_the_jsdoc_of_what_it_exports() {
        for prefix in ["", "export "] {
            let types = load_text(&format!(
                "/**\n * An id.\n * @minLength 2\n */\n{prefix}type Id = string;\n\
                 /** A ping. */\n{prefix}interface Ping {{ id: Id }}\n"
            ));
            let TypeKind::Alias { constraints, .. } = &types["Id"].kind else {
                panic!("{prefix}Id is not an alias");
            };
            assert_eq!(
                constraints.count(&crate::rules::MIN_LENGTH),
                Some(2),
                "{prefix}type"
            );
            assert_eq!(types["Ping"].doc, "A ping.", "{prefix}interface");
        }
    }
}
