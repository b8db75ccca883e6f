//! Structural comparison of a document's protobuf declarations with the spec's, through protox,
//! and the TypeScript-style rendering of IR types every finding uses.

use std::collections::BTreeMap;

use protox::prost_reflect::{
    DescriptorPool, FieldDescriptor, Kind as ProtoKind, MessageDescriptor,
};

use super::Finding;
use super::markdown::Block;
use crate::front::proto::ProtoSpec;
use crate::ir::{Constraints, Field, Ty, TypeDef, TypeKind};

/// A type expression written the TypeScript way, for findings.
pub(super) fn ty_text(ty: &Ty) -> String {
    match ty {
        Ty::String => "string".into(),
        Ty::Bool => "boolean".into(),
        Ty::Number => "number".into(),
        Ty::Integer => "integer".into(),
        Ty::Any => "any".into(),
        Ty::BoolLiteral(b) => b.to_string(),
        Ty::Array(t) => format!("{}[]", ty_text(t)),
        Ty::Map(t) => format!("{{[key: string]: {}}}", ty_text(t)),
        Ty::Nullable(t) => format!("{} | null", ty_text(t)),
        Ty::Named(n) => n.clone(),
        Ty::Scalar(s) => crate::naming::scalar_rust(*s).into(),
        Ty::WellKnown(w) => crate::naming::well_known_path(w).to_string(),
    }
}

pub(super) fn field_text(f: &Field) -> String {
    format!(
        "{}{}: {}",
        f.name,
        if f.optional { "?" } else { "" },
        ty_text(&f.ty)
    )
}

pub(super) fn constraints_text(c: &Constraints) -> String {
    let parts: Vec<String> = c
        .iter()
        .map(|(rule, v)| match v.to_text() {
            text if text.is_empty() => format!("@{}", rule.tag),
            text => format!("@{} {text}", rule.tag),
        })
        .collect();
    if parts.is_empty() {
        "no constraints".into()
    } else {
        parts.join(" ")
    }
}

pub(super) fn kind_text(def: &TypeDef) -> String {
    match &def.kind {
        TypeKind::Struct(fields) => format!(
            "{{ {} }}",
            fields.iter().map(field_text).collect::<Vec<_>>().join("; ")
        ),
        TypeKind::Enum(values) => values
            .iter()
            .map(|v| format!("'{v}'"))
            .collect::<Vec<_>>()
            .join(" | "),
        TypeKind::Union { tag, variants } => format!(
            "union on `{tag}` of {}",
            variants
                .iter()
                .map(|v| format!("{} ('{}')", v.type_name, v.value))
                .collect::<Vec<_>>()
                .join(" | ")
        ),
        TypeKind::Alias { target, .. } => ty_text(target),
        TypeKind::Untagged(members) => members.iter().map(ty_text).collect::<Vec<_>>().join(" | "),
        TypeKind::Oneof { cases, .. } => format!(
            "oneof of {}",
            cases
                .iter()
                .map(|c| c.name.as_str())
                .collect::<Vec<_>>()
                .join(" | ")
        ),
    }
}

fn proto_type(f: &FieldDescriptor) -> String {
    let base = match f.kind() {
        ProtoKind::Message(m) => m.name().to_owned(),
        ProtoKind::Enum(e) => e.name().to_owned(),
        k => format!("{k:?}").to_lowercase(),
    };
    let label = if f.is_map() {
        "map ".to_owned()
    } else if f.is_list() {
        "repeated ".to_owned()
    } else if f.containing_oneof().is_some_and(|o| o.is_synthetic()) {
        "optional ".to_owned()
    } else if let Some(o) = f.containing_oneof() {
        format!("oneof {} ", o.name())
    } else {
        String::new()
    };
    format!("{label}{base} {} = {}", f.name(), f.number())
}

/// Line of `needle` in `text` after the line holding `after` (1-based), for spec locations.
fn line_of(text: &str, after: &str, needle: &str) -> usize {
    let start = text.find(after).unwrap_or(0);
    let at = text[start..].find(needle).map_or(start, |i| start + i);
    text[..at].matches('\n').count() + 1
}

/// A protobuf text that does not compile: the line the error points at, the message, and
/// whether it is a syntax error (found without looking at any other block).
type CompileError = (usize, String, bool);

/// Compiles `text` (one file, `doc.proto`).
fn compile(text: &str) -> Result<DescriptorPool, CompileError> {
    let io = |e: std::io::Error| (1, format!("cannot check protobuf blocks: {e}"), false);
    let dir = tempfile::tempdir().map_err(io)?;
    std::fs::write(dir.path().join(DOC_PROTO), text).map_err(io)?;
    protox::Compiler::new([dir.path()])
        .and_then(|mut c| {
            c.include_imports(true);
            c.open_file(DOC_PROTO)?;
            Ok(c.descriptor_pool())
        })
        .map_err(|e| {
            // The error's own label locates it in `text`, whose lines are the document's.
            let line = miette::Diagnostic::labels(&e)
                .and_then(|mut l| l.next())
                .map_or(1, |l| {
                    text[..l.offset().min(text.len())].matches('\n').count() + 1
                });
            (line, format!("protobuf block: {e}"), e.is_parse())
        })
}

const DOC_PROTO: &str = "doc.proto";

/// Compares the document's protobuf blocks with the spec's: they are compiled together (a
/// message may use one declared in another block); a block that does not compile is one
/// finding and the others are compared without it. Returns how many declarations they hold.
pub fn protobuf(
    spec: &ProtoSpec,
    doc: &str,
    blocks: &[&Block],
    header: &str,
    findings: &mut Vec<Finding>,
) -> usize {
    let mut kept: Vec<&Block> = Vec::new();
    // Names declared in blocks dropped for their syntax: a reference to one is no new finding.
    let mut lost: Vec<String> = Vec::new();
    // Syntax first, block by block: an unclosed brace would otherwise swallow later blocks.
    for b in blocks {
        match compile(&super::overlay(doc, &[b], header)) {
            Err((line, message, true)) => {
                lost.extend(declared_in(&b.text));
                let last = b.line + b.text.lines().count().saturating_sub(1);
                findings.push(Finding {
                    line: line.clamp(b.line, last.max(b.line)),
                    message,
                });
            }
            _ => kept.push(b),
        }
    }
    while !kept.is_empty() {
        let text = super::overlay(doc, &kept, header);
        match compile(&text) {
            Ok(pool) => return compare_pool(spec, &pool, &text, findings),
            Err((line, message, _)) => {
                if !lost.iter().any(|n| message.contains(&format!("'{n}'"))) {
                    findings.push(Finding { line, message });
                }
                let failing = kept
                    .iter()
                    .position(|b| (b.line..b.line + b.text.lines().count()).contains(&line));
                match failing {
                    Some(i) => {
                        kept.remove(i);
                    }
                    None => return 0,
                }
            }
        }
    }
    0
}

/// Message and enum names a protobuf text declares.
fn declared_in(text: &str) -> Vec<String> {
    text.split_whitespace()
        .zip(text.split_whitespace().skip(1))
        .filter(|(k, _)| matches!(*k, "message" | "enum"))
        .map(|(_, n)| n.trim_end_matches('{').to_owned())
        .collect()
}

/// Compares a compiled document (`text` holds its blocks at their document lines) with the
/// spec; returns how many declarations it holds.
fn compare_pool(
    spec: &ProtoSpec,
    doc_pool: &DescriptorPool,
    text: &str,
    findings: &mut Vec<Finding>,
) -> usize {
    let name = DOC_PROTO;
    let spec_text: String = spec
        .sources
        .iter()
        .filter(|(name, _)| spec.own.contains(*name))
        .map(|(_, s)| s.text.to_string())
        .collect();
    let spec_file = &spec.file;
    let doc_line = |needle: &str, after: &str| line_of(text, after, needle);
    let mut count = 0;
    let spec_messages: BTreeMap<String, MessageDescriptor> = spec
        .pool
        .all_messages()
        .map(|m| (m.name().to_owned(), m))
        .collect();
    for m in doc_pool
        .all_messages()
        .filter(|m| m.parent_file().name() == name)
    {
        count += 1;
        let header = format!("message {} ", m.name());
        let line = doc_line(&header, "");
        let Some(sm) = spec_messages.get(m.name()) else {
            findings.push(Finding {
                line,
                message: format!(
                    "message `{}` differs: doc declares it, spec ({spec_file}) has no such message",
                    m.name()
                ),
            });
            continue;
        };
        for sf in sm.fields() {
            let spec_line = line_of(&spec_text, &header, &format!(" {} = ", sf.name()));
            match m.get_field_by_name(sf.name()) {
                None => findings.push(Finding {
                    line,
                    message: format!(
                        "field `{}.{}` differs: doc says nothing, spec ({spec_file}:{spec_line}) says {}",
                        m.name(), sf.name(), proto_type(&sf)
                    ),
                }),
                Some(df) if proto_type(&df) != proto_type(&sf) => findings.push(Finding {
                    line: doc_line(&format!(" {} = ", df.name()), &header),
                    message: format!(
                        "field `{}.{}` differs: doc says {}, spec ({spec_file}:{spec_line}) says {}",
                        m.name(), sf.name(), proto_type(&df), proto_type(&sf)
                    ),
                }),
                Some(_) => {}
            }
        }
        for df in m
            .fields()
            .filter(|f| sm.get_field_by_name(f.name()).is_none())
        {
            findings.push(Finding {
                line: doc_line(&format!(" {} = ", df.name()), &header),
                message: format!(
                    "field `{}.{}` differs: doc says {}, spec ({spec_file}) says nothing",
                    m.name(),
                    df.name(),
                    proto_type(&df)
                ),
            });
        }
    }
    compare_enums(
        doc_pool, &spec.pool, name, text, &spec_text, spec_file, findings, &mut count,
    );
    compare_services(
        doc_pool, &spec.pool, name, text, spec_file, findings, &mut count,
    );
    count
}

#[allow(clippy::too_many_arguments)]
fn compare_enums(
    doc_pool: &DescriptorPool,
    spec_pool: &DescriptorPool,
    name: &str,
    text: &str,
    spec_text: &str,
    spec_file: &str,
    findings: &mut Vec<Finding>,
    count: &mut usize,
) {
    for e in doc_pool
        .all_enums()
        .filter(|e| e.parent_file().name() == name)
    {
        *count += 1;
        let header = format!("enum {} ", e.name());
        let line = line_of(text, "", &header);
        let Some(se) = spec_pool.all_enums().find(|s| s.name() == e.name()) else {
            findings.push(Finding {
                line,
                message: format!(
                    "enum `{}` differs: doc declares it, spec ({spec_file}) has no such enum",
                    e.name()
                ),
            });
            continue;
        };
        let values = |x: &protox::prost_reflect::EnumDescriptor| {
            x.values()
                .map(|v| format!("{} = {}", v.name(), v.number()))
                .collect::<Vec<_>>()
        };
        let (dv, sv) = (values(&e), values(&se));
        if dv != sv {
            findings.push(Finding {
                line,
                message: format!(
                    "enum `{}` differs: doc says {}, spec ({spec_file}:{}) says {}",
                    e.name(),
                    dv.join(", "),
                    line_of(spec_text, "", &header),
                    sv.join(", ")
                ),
            });
        }
    }
}

fn compare_services(
    doc_pool: &DescriptorPool,
    spec_pool: &DescriptorPool,
    name: &str,
    text: &str,
    spec_file: &str,
    findings: &mut Vec<Finding>,
    count: &mut usize,
) {
    let rpcs = |s: &protox::prost_reflect::ServiceDescriptor| {
        s.methods()
            .map(|m| {
                format!(
                    "{}({}{}) returns ({}{})",
                    m.name(),
                    if m.is_client_streaming() {
                        "stream "
                    } else {
                        ""
                    },
                    m.input().name(),
                    if m.is_server_streaming() {
                        "stream "
                    } else {
                        ""
                    },
                    m.output().name()
                )
            })
            .collect::<Vec<_>>()
    };
    for s in doc_pool
        .services()
        .filter(|s| s.parent_file().name() == name)
    {
        *count += 1;
        let line = line_of(text, "", &format!("service {}", s.name()));
        match spec_pool.services().find(|x| x.name() == s.name()) {
            None => findings.push(Finding {
                line,
                message: format!(
                    "service `{}` differs: doc declares it, spec ({spec_file}) has no such service",
                    s.name()
                ),
            }),
            Some(ss) if rpcs(&s) != rpcs(&ss) => findings.push(Finding {
                line,
                message: format!(
                    "service `{}` differs: doc says {}, spec ({spec_file}) says {}",
                    s.name(),
                    rpcs(&s).join("; "),
                    rpcs(&ss).join("; ")
                ),
            }),
            Some(_) => {}
        }
    }
}
