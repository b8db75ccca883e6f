//! Structural comparison of a document's type declarations with the spec's: TypeScript
//! interfaces and aliases through the same loader the generator uses, protobuf through protox.

use std::collections::BTreeMap;

use protox::prost_reflect::{
    DescriptorPool, FieldDescriptor, Kind as ProtoKind, MessageDescriptor,
};

use super::Finding;
use crate::diag::SourceFile;
use crate::front::load::LoadedSpec;
use crate::front::proto::ProtoSpec;
use crate::front::ts;
use crate::ir::{Constraints, Field, Ty, TypeDef, TypeKind};

/// A type expression written the TypeScript way, for findings.
fn ty_text(ty: &Ty) -> String {
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
        Ty::Scalar(s) => s.rust().into(),
    }
}

fn field_text(f: &Field) -> String {
    format!(
        "{}{}: {}",
        f.name,
        if f.optional { "?" } else { "" },
        ty_text(&f.ty)
    )
}

fn constraints_text(c: &Constraints) -> String {
    let mut parts = Vec::new();
    let mut put = |k: &str, v: Option<String>| {
        if let Some(v) = v {
            parts.push(format!("@{k} {v}"));
        }
    };
    put("minLength", c.min_length.map(|v| v.to_string()));
    put("maxLength", c.max_length.map(|v| v.to_string()));
    put("pattern", c.pattern.clone());
    put("minimum", c.minimum.map(|v| v.to_string()));
    put("maximum", c.maximum.map(|v| v.to_string()));
    put("minItems", c.min_items.map(|v| v.to_string()));
    put("maxItems", c.max_items.map(|v| v.to_string()));
    put("format", c.format.clone());
    if c.trim {
        parts.push("@trim".into());
    }
    if parts.is_empty() {
        "no constraints".into()
    } else {
        parts.join(" ")
    }
}

fn kind_text(def: &TypeDef) -> String {
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

/// Compares every declaration of the document's TypeScript (`file` holds the blocks at their
/// document lines) with the spec's; returns how many declarations the document holds.
pub fn typescript(spec: &LoadedSpec, file: &SourceFile, findings: &mut Vec<Finding>) -> usize {
    let p = &spec.protocol;
    let rel = &p.types_file;
    let doc_types = match ts::load_types(file, rel) {
        Ok(t) => t,
        Err(errors) => {
            for e in errors.errors {
                let line = e
                    .location()
                    .and_then(|l| l.rsplit(':').nth(1).and_then(|n| n.parse().ok()))
                    .unwrap_or(1);
                findings.push(Finding {
                    line,
                    message: format!("TypeScript block: {}", e.message),
                });
            }
            return 0;
        }
    };
    let spec_at = |def: &TypeDef| format!("{}:{}", def.origin.file, def.origin.line);
    // Declarations (not inline types: those follow their parents) the document never shows.
    for (name, def) in &p.types {
        if !doc_types.contains_key(name) && !def.inline {
            findings.push(Finding {
                line: 1,
                message: format!(
                    "declaration `{name}` differs: doc says nothing, spec ({}) declares {}",
                    spec_at(def),
                    kind_text(def)
                ),
            });
        }
    }
    let mut count = 0;
    for (name, doc_def) in &doc_types {
        count += 1;
        let line = doc_def.origin.line;
        let Some(spec_def) = p.types.get(name) else {
            findings.push(Finding {
                line,
                message: format!("declaration `{name}` differs: doc says {}, spec ({rel}) has no such declaration", kind_text(doc_def)),
            });
            continue;
        };
        let mut differ = |line: usize, what: String, doc: String, spec: String, at: String| {
            findings.push(Finding {
                line,
                message: format!("{what} differs: doc says {doc}, spec ({at}) says {spec}"),
            });
        };
        match (&doc_def.kind, &spec_def.kind) {
            (TypeKind::Struct(doc_fields), TypeKind::Struct(spec_fields)) => {
                for sf in spec_fields {
                    match doc_fields.iter().find(|f| f.name == sf.name) {
                        None => differ(
                            line,
                            format!("field `{name}.{}`", sf.name),
                            "nothing".into(),
                            field_text(sf),
                            format!("{}:{}", sf.origin.file, sf.origin.line),
                        ),
                        Some(df) => {
                            let at = format!("{}:{}", sf.origin.file, sf.origin.line);
                            if df.optional != sf.optional || df.ty != sf.ty {
                                differ(
                                    df.origin.line,
                                    format!("field `{name}.{}`", sf.name),
                                    field_text(df),
                                    field_text(sf),
                                    at.clone(),
                                );
                            }
                            if df.constraints != sf.constraints {
                                differ(
                                    df.origin.line,
                                    format!("constraints of `{name}.{}`", sf.name),
                                    constraints_text(&df.constraints),
                                    constraints_text(&sf.constraints),
                                    at,
                                );
                            }
                        }
                    }
                }
                for df in doc_fields
                    .iter()
                    .filter(|df| !spec_fields.iter().any(|s| s.name == df.name))
                {
                    differ(
                        df.origin.line,
                        format!("field `{name}.{}`", df.name),
                        field_text(df),
                        "nothing".into(),
                        spec_at(spec_def),
                    );
                }
            }
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
                if dt != st {
                    differ(
                        line,
                        format!("type `{name}`"),
                        ty_text(dt),
                        ty_text(st),
                        spec_at(spec_def),
                    );
                } else if dc != sc {
                    differ(
                        line,
                        format!("constraints of `{name}`"),
                        constraints_text(dc),
                        constraints_text(sc),
                        spec_at(spec_def),
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
                // Point at the member whose discriminator value moved, not just the union.
                for d in dv {
                    match sv.iter().find(|s| s.type_name == d.type_name) {
                        Some(s) if s.value != d.value => differ(
                            d.origin.line,
                            format!("discriminator of `{}`", d.type_name),
                            format!("{dt}: '{}'", d.value),
                            format!("{st}: '{}'", s.value),
                            format!("{}:{}", s.origin.file, s.origin.line),
                        ),
                        Some(_) => {}
                        None => differ(
                            line,
                            format!("member `{}` of `{name}`", d.type_name),
                            "a member".into(),
                            "nothing".into(),
                            spec_at(spec_def),
                        ),
                    }
                }
                for s in sv
                    .iter()
                    .filter(|s| !dv.iter().any(|d| d.type_name == s.type_name))
                {
                    differ(
                        line,
                        format!("member `{}` of `{name}`", s.type_name),
                        "nothing".into(),
                        "a member".into(),
                        spec_at(spec_def),
                    );
                }
            }
            (d, s) if d != s => differ(
                line,
                format!("type `{name}`"),
                kind_text(doc_def),
                kind_text(spec_def),
                spec_at(spec_def),
            ),
            _ => {}
        }
    }
    count
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

/// Compares the document's protobuf (`text` holds the blocks at their document lines under a
/// `syntax`/`package` header) with the spec's; returns how many declarations it holds.
pub fn protobuf(spec: &ProtoSpec, text: &str, findings: &mut Vec<Finding>) -> usize {
    let dir = match tempfile::tempdir() {
        Ok(d) => d,
        Err(e) => {
            findings.push(Finding {
                line: 1,
                message: format!("cannot check protobuf blocks: {e}"),
            });
            return 0;
        }
    };
    let name = "doc.proto";
    if let Err(e) = std::fs::write(dir.path().join(name), text) {
        findings.push(Finding {
            line: 1,
            message: format!("cannot check protobuf blocks: {e}"),
        });
        return 0;
    }
    let doc_pool = match protox::Compiler::new([dir.path()]).and_then(|mut c| {
        c.include_imports(true);
        c.open_file(name)?;
        Ok(c.descriptor_pool())
    }) {
        Ok(p) => p,
        Err(e) => {
            let line = e
                .to_string()
                .split(':')
                .nth(1)
                .and_then(|n| n.trim().parse().ok())
                .unwrap_or(1);
            findings.push(Finding {
                line,
                message: format!("protobuf block: {e}"),
            });
            return 0;
        }
    };
    let spec_text: String = spec.sources.values().map(|s| s.text.to_string()).collect();
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
        &doc_pool, &spec.pool, name, text, &spec_text, spec_file, findings, &mut count,
    );
    compare_services(
        &doc_pool, &spec.pool, name, text, spec_file, findings, &mut count,
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
