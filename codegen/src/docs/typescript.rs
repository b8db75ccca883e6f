//! A document's TypeScript blocks compared with the spec's declarations. Each block is parsed on
//! its own first: one that declares nothing (a usage snippet) is skipped with a note, one that
//! does not parse is one finding, and the rest are loaded together (so a union may name members
//! declared in another block) by the lenient document loader, which keeps whatever it can read.

use std::collections::BTreeMap;

use oxc_allocator::Allocator;
use oxc_parser::Parser;
use oxc_span::SourceType;

use super::compare::{constraints_text, field_text, kind_text, ty_text};
use super::markdown::Block;
use super::{Finding, Report};
use crate::diag::SourceFile;
use crate::front::load::LoadedSpec;
use crate::front::ts::{self, UNREADABLE};
use crate::ir::{Field, Ty, TypeDef, TypeKind, Variant};

pub type Types = BTreeMap<String, TypeDef>;

/// Compares the TypeScript `blocks` of `doc` with the spec, adding to `report`.
/// Returns the document's declarations, for checking its examples against them.
pub fn check(
    spec: &LoadedSpec,
    doc_path: &std::path::Path,
    doc: &str,
    blocks: &[&Block],
    report: &mut Report,
) -> Types {
    let mut kept = Vec::new();
    for b in blocks {
        match parse_alone(b) {
            Ok(()) => kept.push(*b),
            Err(None) => report.notes.push(Finding {
                line: b.line,
                message: "TypeScript block declares no interface or type: not compared".into(),
            }),
            Err(Some(f)) => report.findings.push(f),
        }
    }
    if kept.is_empty() {
        return Types::new();
    }
    let file = SourceFile {
        path: doc_path.to_path_buf(),
        text: super::overlay(doc, &kept, "").into(),
    };
    let (doc_types, errors) = ts::load_doc_types(&file, &spec.protocol.types_file);
    let dangling = undeclared(errors, report);
    let spec_text = spec
        .files
        .iter()
        .find(|f| f.ends_with(&spec.protocol.types_file))
        .and_then(|f| std::fs::read_to_string(f).ok())
        .unwrap_or_default();
    let cmp = Compare {
        doc: &doc_types,
        spec: &spec.protocol.types,
        rel: &spec.protocol.types_file,
        notes: SpecNotes::new(&spec_text),
    };
    for (name, line) in dangling {
        cmp.dangling(&name, line, report);
    }
    for (name, def) in &doc_types {
        // Inline shapes the spec does not name compare through the field that holds them.
        if def.inline && !cmp.spec.contains_key(name) {
            continue;
        }
        report.declarations += usize::from(!def.inline);
        cmp.declaration(name, def, report);
    }
    doc_types
}

/// The names the document uses but never declares, each with the line of its first use; the
/// loader's other errors become notes (that part of the document is not compared).
fn undeclared(errors: crate::diag::SpecErrors, report: &mut Report) -> BTreeMap<String, usize> {
    let mut dangling: BTreeMap<String, usize> = BTreeMap::new();
    for e in errors.errors {
        let line = e
            .location()
            .and_then(|l| l.rsplit(':').nth(1).and_then(|n| n.parse().ok()))
            .unwrap_or(1);
        match e
            .message
            .strip_prefix("unknown type `")
            .and_then(|r| r.strip_suffix('`'))
        {
            Some(name) => {
                dangling.entry(name.to_owned()).or_insert(line);
            }
            None => report.notes.push(Finding {
                line,
                message: format!(
                    "TypeScript block: {} (that part is not compared)",
                    e.message
                ),
            }),
        }
    }
    dangling
}

/// `Ok` when the block parses and declares something; `Err(None)` when it declares nothing;
/// `Err(Some(finding))` when it declares something but does not parse.
fn parse_alone(b: &Block) -> Result<(), Option<Finding>> {
    if super::declared_names(&b.text).is_empty() {
        return Err(None);
    }
    let allocator = Allocator::default();
    let parsed = Parser::new(&allocator, &b.text, SourceType::ts()).parse();
    let Some(d) = parsed.diagnostics.first() else {
        return Ok(());
    };
    let offset = d.labels.first().map_or(0, |l| l.offset() as usize);
    let line = b.line + b.text[..offset.min(b.text.len())].matches('\n').count();
    Err(Some(Finding {
        line,
        message: format!(
            "TypeScript block differs: doc says text that does not parse ({}), spec says declarations",
            d.message
        ),
    }))
}

struct Compare<'a> {
    doc: &'a Types,
    spec: &'a Types,
    rel: &'a str,
    notes: SpecNotes,
}

/// The comment blocks of the spec's types file that hold a `Spec note:`, by the line after
/// each (the line the note is about), for telling the spec's documented readings from drift.
struct SpecNotes {
    blocks: Vec<(usize, String)>,
}

impl SpecNotes {
    fn new(text: &str) -> Self {
        let mut blocks = Vec::new();
        let mut current = String::new();
        for (i, line) in text.lines().enumerate() {
            let t = line.trim_start();
            if t.starts_with("//") || t.starts_with("/*") || t.starts_with('*') {
                current.push_str(t);
                current.push('\n');
            } else {
                if current.contains("Spec note:") {
                    blocks.push((i + 1, std::mem::take(&mut current)));
                }
                current.clear();
            }
        }
        Self { blocks }
    }

    /// Whether a note sits right above 1-based `line`.
    fn above(&self, line: usize) -> bool {
        self.blocks.iter().any(|(l, _)| *l == line)
    }

    /// Whether any note names `name` in backticks.
    fn names(&self, name: &str) -> bool {
        let quoted = format!("`{name}`");
        self.blocks.iter().any(|(_, b)| b.contains(&quoted))
    }
}

impl Compare<'_> {
    /// Whether a document type means the spec type: the same, up to the names of inline shapes
    /// (the spec may name a shape the document writes inline) and fields it could not read.
    fn same_ty(&self, d: &Ty, s: &Ty, depth: usize) -> bool {
        match (d, s) {
            (Ty::Named(n), _) if n == UNREADABLE => true,
            (Ty::Named(a), Ty::Named(b)) if a == b => true,
            (Ty::Named(a), Ty::Named(b)) => match (self.doc.get(a), self.spec.get(b)) {
                // Different names for one shape: how the doc names it is its own business.
                (Some(da), Some(sb)) if depth < 8 => self.same_kind(&da.kind, &sb.kind, depth + 1),
                _ => false,
            },
            (Ty::Array(x), Ty::Array(y))
            | (Ty::Map(x), Ty::Map(y))
            | (Ty::Nullable(x), Ty::Nullable(y)) => self.same_ty(x, y, depth),
            _ => d == s,
        }
    }

    fn same_kind(&self, d: &TypeKind, s: &TypeKind, depth: usize) -> bool {
        match (d, s) {
            (TypeKind::Struct(df), TypeKind::Struct(sf)) => {
                df.len() == sf.len()
                    && sf.iter().all(|s| {
                        df.iter().any(|d| {
                            d.name == s.name
                                && d.optional == s.optional
                                && self.same_ty(&d.ty, &s.ty, depth)
                        })
                    })
            }
            (TypeKind::Alias { target: a, .. }, TypeKind::Alias { target: b, .. }) => {
                self.same_ty(a, b, depth)
            }
            // `type ShowMessageParams = Error` against the spec's struct of that shape.
            (
                TypeKind::Alias {
                    target: Ty::Named(n),
                    ..
                },
                s,
            ) if depth < 8 => self
                .doc
                .get(n)
                .is_some_and(|d| self.same_kind(&d.kind, s, depth + 1)),
            _ => d == s,
        }
    }

    fn declaration(&self, name: &str, doc_def: &TypeDef, report: &mut Report) {
        let line = doc_def.origin.line;
        // A union member the doc names differently is compared with the spec's member.
        let spec_def = self
            .spec
            .get(name)
            .or_else(|| self.renamed(name).and_then(|s| self.spec.get(s)));
        let Some(spec_def) = spec_def else {
            let message = format!(
                "declaration `{name}` differs: doc says {}, spec ({}) has no such declaration",
                kind_text(doc_def),
                self.rel
            );
            if self.notes.names(name) {
                let message = format!("{message}, as a `Spec note:` explains");
                report.notes.push(Finding { line, message });
            } else {
                report.findings.push(Finding { line, message });
            }
            return;
        };
        let spec_at = format!("{}:{}", spec_def.origin.file, spec_def.origin.line);
        match (&doc_def.kind, &spec_def.kind) {
            (TypeKind::Struct(d), TypeKind::Struct(s)) => self.fields(name, spec_def, d, s, report),
            (
                TypeKind::Alias {
                    target: dt,
                    constraints: dc,
                },
                TypeKind::Alias {
                    target: st,
                    constraints: sc,
                },
            ) => {
                if !self.same_ty(dt, st, 0) {
                    differ(
                        report,
                        line,
                        format!("type `{name}`"),
                        ty_text(dt),
                        ty_text(st),
                        &spec_at,
                    );
                } else if dc != sc && *dc != Default::default() {
                    let (d, s) = (constraints_text(dc), constraints_text(sc));
                    differ(
                        report,
                        line,
                        format!("constraints of `{name}`"),
                        d,
                        s,
                        &spec_at,
                    );
                }
            }
            (
                TypeKind::Union {
                    tag: dt,
                    variants: dv,
                },
                TypeKind::Union {
                    tag: st,
                    variants: sv,
                },
            ) if dt == st => {
                union_members(name, line, (dt, dv), (st, sv), &spec_at, report);
            }
            (d, s) if !self.same_kind(d, s, 0) => {
                let (d, s) = (kind_text(doc_def), kind_text(spec_def));
                differ(report, line, format!("type `{name}`"), d, s, &spec_at);
            }
            _ => {}
        }
    }

    /// Field by field; a difference the spec explains in a `Spec note:` (on the field or its
    /// type) is the spec's documented reading, shown as a note rather than a finding.
    fn fields(
        &self,
        name: &str,
        spec_def: &TypeDef,
        doc: &[Field],
        spec: &[Field],
        report: &mut Report,
    ) {
        let explained = |f: &Field| {
            let notes = &self.notes;
            f.doc.contains("Spec note:")
                || notes.above(f.origin.line)
                || notes.above(spec_def.origin.line)
        };
        let tag = self.variant_tag(name);
        for sf in spec {
            let at = format!("{}:{}", sf.origin.file, sf.origin.line);
            let what = format!("field `{name}.{}`", sf.name);
            let Some(df) = doc.iter().find(|f| f.name == sf.name) else {
                let line = self.doc.get(name).map_or(1, |d| d.origin.line);
                differ(report, line, what, "nothing".into(), field_text(sf), &at);
                continue;
            };
            let mut found = Vec::new();
            if df.optional != sf.optional || !self.same_ty(&df.ty, &sf.ty, 0) {
                found.push((what, field_text(df), field_text(sf)));
            }
            if df.default.is_some() && df.default != sf.default {
                let text = |f: &Field| {
                    f.default
                        .as_ref()
                        .map_or_else(|| "no default".to_owned(), |v| format!("@default {v}"))
                };
                found.push((
                    format!("default of `{name}.{}`", sf.name),
                    text(df),
                    text(sf),
                ));
            }
            if df.constraints != sf.constraints && df.constraints != Default::default() {
                let (d, s) = (
                    constraints_text(&df.constraints),
                    constraints_text(&sf.constraints),
                );
                found.push((format!("constraints of `{name}.{}`", sf.name), d, s));
            }
            for (what, d, s) in found {
                let message = format!("{what} differs: doc says {d}, spec ({at}) says {s}");
                if explained(sf) {
                    report.notes.push(Finding {
                        line: df.origin.line,
                        message: format!("{message}, as its `Spec note:` explains"),
                    });
                } else {
                    report.findings.push(Finding {
                        line: df.origin.line,
                        message,
                    });
                }
            }
        }
        let spec_at = format!("{}:{}", spec_def.origin.file, spec_def.origin.line);
        for df in doc
            .iter()
            .filter(|d| !spec.iter().any(|s| s.name == d.name))
        {
            // A union member's discriminator lives on the union in the spec's IR.
            if tag
                .as_ref()
                .is_some_and(|(t, v)| *t == df.name && self.literal(&df.ty) == Some(v.as_str()))
            {
                continue;
            }
            differ(
                report,
                df.origin.line,
                format!("field `{name}.{}`", df.name),
                field_text(df),
                "nothing".into(),
                &spec_at,
            );
        }
    }
}

impl Compare<'_> {
    /// A name the document uses but never declares.
    fn dangling(&self, name: &str, line: usize, report: &mut Report) {
        let spec_says = self.spec.get(name).map_or_else(
            || format!("spec ({}) has no such declaration either", self.rel),
            |d| {
                format!(
                    "spec ({}:{}) declares {}",
                    d.origin.file,
                    d.origin.line,
                    kind_text(d)
                )
            },
        );
        report.findings.push(Finding {
            line,
            message: format!(
                "declaration `{name}` differs: doc uses it but never declares it, {spec_says}"
            ),
        });
    }

    /// The spec's name for a doc union member the spec names otherwise: the member of the
    /// same union (by name) with the same discriminator value.
    fn renamed(&self, name: &str) -> Option<&str> {
        self.doc.iter().find_map(|(union, def)| {
            let TypeKind::Union { variants: dv, .. } = &def.kind else {
                return None;
            };
            let d = dv.iter().find(|d| d.type_name == name)?;
            match &self.spec.get(union)?.kind {
                TypeKind::Union { variants: sv, .. } => sv
                    .iter()
                    .find(|s| s.value == d.value)
                    .map(|s| s.type_name.as_str()),
                _ => None,
            }
        })
    }

    /// The discriminator field and value of `name` when the spec has it as a union member.
    fn variant_tag(&self, name: &str) -> Option<(String, String)> {
        self.spec.values().find_map(|d| match &d.kind {
            TypeKind::Union { tag, variants } => variants
                .iter()
                .find(|v| v.type_name == name)
                .map(|v| (tag.clone(), v.value.clone())),
            _ => None,
        })
    }

    /// The one string a document field's type allows, if it is a lone literal.
    fn literal(&self, ty: &Ty) -> Option<&str> {
        let Ty::Named(n) = ty else { return None };
        match &self.doc.get(n)?.kind {
            TypeKind::Enum(v) if v.len() == 1 => Some(v[0].as_str()),
            _ => None,
        }
    }
}

/// Members of a tagged union: a discriminator value that moved, a member only one side has.
fn union_members(
    name: &str,
    line: usize,
    (dt, dv): (&str, &[Variant]),
    (st, sv): (&str, &[Variant]),
    spec_at: &str,
    report: &mut Report,
) {
    for d in dv {
        match sv.iter().find(|s| s.type_name == d.type_name) {
            Some(s) if s.value != d.value => differ(
                report,
                d.origin.line,
                format!("discriminator of `{}`", d.type_name),
                format!("{dt}: '{}'", d.value),
                format!("{st}: '{}'", s.value),
                &format!("{}:{}", s.origin.file, s.origin.line),
            ),
            // One side reads an object without the tag as this member, the other refuses it.
            Some(s) if s.default != d.default => {
                let text = |tag: &str, v: &Variant| match v.default {
                    true => format!("{tag}?: '{}' (@default)", v.value),
                    false => format!("{tag}: '{}'", v.value),
                };
                differ(
                    report,
                    d.origin.line,
                    format!("discriminator of `{}`", d.type_name),
                    text(dt, d),
                    text(st, s),
                    &format!("{}:{}", s.origin.file, s.origin.line),
                )
            }
            Some(_) => {}
            // The same discriminator value under another name: a rename, whose declaration
            // is compared with the spec's member on its own.
            None if sv.iter().any(|s| s.value == d.value) => {}
            None => differ(
                report,
                line,
                format!("member `{}` of `{name}`", d.type_name),
                "a member".into(),
                "nothing".into(),
                spec_at,
            ),
        }
    }
    for s in sv.iter().filter(|s| {
        !dv.iter()
            .any(|d| d.type_name == s.type_name || d.value == s.value)
    }) {
        differ(
            report,
            line,
            format!("member `{}` of `{name}`", s.type_name),
            "nothing".into(),
            "a member".into(),
            spec_at,
        );
    }
}

fn differ(report: &mut Report, line: usize, what: String, doc: String, spec: String, at: &str) {
    report.findings.push(Finding {
        line,
        message: format!("{what} differs: doc says {doc}, spec ({at}) says {spec}"),
    });
}
