//! Lowers a compiled `.proto` spec into the IR: messages become structs (proto field names,
//! as pbjson writes them with `preserve_proto_field_names`), enums become enums of their value
//! names, a oneof becomes a `TypeKind::Oneof` (a union keyed by the case's field name), and
//! scalars keep their proto3 JSON form (`Ty::Scalar`). Everything after the loader (schema,
//! validators, the machine model, `decode_type`) reads this; only the prost/tonic/pbjson pass
//! reads the descriptors.

use std::collections::{BTreeMap, BTreeSet};

use prost_types::source_code_info::Location;
use protox::prost_reflect::{
    Cardinality, EnumDescriptor, FieldDescriptor, Kind, MessageDescriptor,
};

use crate::front::proto::ProtoSpec;
use crate::front::proto_ty::{field_ty_in, local_name};
use crate::front::tags::{self, TagName};
use crate::ir::{Field, Origin, Ty, TypeDef, TypeKind};

/// The IR types of `spec`: the main package's (`package`) by local name (`Outer.Inner` for
/// nested ones), every other package of [`ProtoSpec::packages`] by full name
/// (`google.rpc.Status`).
pub fn lower(spec: &ProtoSpec, package: &str) -> BTreeMap<String, TypeDef> {
    let packages = spec.packages();
    let wrappers = wrappers(spec, package);
    let mut types = BTreeMap::new();
    for message in spec.pool.all_messages() {
        if !packages.contains(message.package_name()) || message.is_map_entry() {
            continue;
        }
        let wrapper = wrappers.contains(message.full_name());
        lower_message(spec, package, &message, wrapper, &mut types);
    }
    for e in spec.pool.all_enums() {
        if packages.contains(e.package_name()) {
            let name = local_name(e.full_name(), package);
            types.insert(name.clone(), enum_def(spec, &e, name));
        }
    }
    types
}

/// Custom options by IR path (`Task.id`, `A2AService.SendMessage`), from the spec's options
/// by full proto name.
pub fn options(
    spec: &ProtoSpec,
    package: &str,
) -> BTreeMap<String, BTreeMap<String, serde_json::Value>> {
    spec.options
        .iter()
        .map(|(name, o)| (local_name(name, package), o.clone()))
        .collect()
}

/// Messages that carry one direction of a stream: an rpc's input or output type made of a
/// single oneof and nothing else. An unset oneof is an error for them.
fn wrappers(spec: &ProtoSpec, package: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for service in spec.pool.services() {
        if service.package_name() != package {
            continue;
        }
        for method in service.methods() {
            for message in [method.input(), method.output()] {
                let oneofs: Vec<_> = message.oneofs().filter(|o| !o.is_synthetic()).collect();
                let all_in_oneof = message.fields().all(|f| f.containing_oneof().is_some());
                if oneofs.len() == 1 && all_in_oneof {
                    out.insert(message.full_name().to_owned());
                }
            }
        }
    }
    out
}

fn location<'a>(spec: &'a ProtoSpec, file: &str, path: &[i32]) -> Option<&'a Location> {
    spec.fds
        .file
        .iter()
        .find(|f| f.name() == file)?
        .source_code_info
        .as_ref()?
        .location
        .iter()
        .find(|l| l.path == path)
}

/// The leading comment at `path`, without its constraint tags, and where it is.
fn doc_and_origin(spec: &ProtoSpec, file: &str, path: &[i32]) -> (String, Origin) {
    let loc = location(spec, file, path);
    let line = loc
        .and_then(|l| l.span.first())
        .map_or(0, |l| (*l).max(0) as usize + 1);
    let text = loc
        .and_then(|l| l.leading_comments.as_deref())
        .unwrap_or_default();
    let doc = text
        .lines()
        .map(|l| without_tags(l.trim()))
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join("\n");
    let origin = Origin {
        file: file.to_owned(),
        line,
    };
    (doc, origin)
}

/// A comment line up to its first constraint tag.
fn without_tags(line: &str) -> &str {
    let mut search = 0;
    while let Some(i) = line[search..].find('@') {
        let at = search + i;
        let name: String = line[at + 1..]
            .chars()
            .take_while(char::is_ascii_alphabetic)
            .collect();
        let starts_word = at == 0 || line[..at].ends_with(char::is_whitespace);
        if starts_word && tags::classify_tag(&name) != TagName::Other {
            return line[..at].trim_end();
        }
        search = at + 1;
    }
    line
}

fn lower_message(
    spec: &ProtoSpec,
    package: &str,
    message: &MessageDescriptor,
    wrapper: bool,
    types: &mut BTreeMap<String, TypeDef>,
) {
    let name = local_name(message.full_name(), package);
    let file = message.parent_file().name().to_owned();
    let mut fields = Vec::new();
    let mut seen_oneofs = BTreeSet::new();
    for field in message.fields() {
        match field.containing_oneof().filter(|o| !o.is_synthetic()) {
            Some(oneof) => {
                if seen_oneofs.insert(oneof.name().to_owned()) {
                    let oneof_name = format!("{name}.{}", oneof.name());
                    let (doc, origin) = doc_and_origin(spec, &file, oneof.path());
                    fields.push(Field {
                        name: oneof.name().to_owned(),
                        ty: Ty::Named(oneof_name.clone()),
                        optional: !wrapper,
                        doc: doc.clone(),
                        constraints: Default::default(),
                        origin: origin.clone(),
                        defaulted: false,
                        default: None,
                        must_be_set: false,
                    });
                    let kind = TypeKind::Oneof {
                        cases: oneof
                            .fields()
                            .map(|f| case(spec, package, &file, &f))
                            .collect(),
                        required: wrapper,
                    };
                    types.insert(
                        oneof_name.clone(),
                        TypeDef {
                            name: oneof_name,
                            inline: true,
                            doc,
                            origin,
                            kind,
                            open: None,
                            rules: Default::default(),
                        },
                    );
                }
            }
            None => fields.push(plain_field(spec, package, &file, &field)),
        }
    }
    let (doc, origin) = doc_and_origin(spec, &file, message.path());
    types.insert(
        name.clone(),
        TypeDef {
            name,
            inline: false,
            doc,
            origin,
            kind: TypeKind::Struct(fields),
            open: None,
            rules: Default::default(),
        },
    );
}

fn plain_field(spec: &ProtoSpec, package: &str, file: &str, field: &FieldDescriptor) -> Field {
    let (doc, origin) = doc_and_origin(spec, file, field.path());
    // Singular messages and proto3 `optional` scalars have explicit presence (an `Option`
    // in prost); everything else reads as its default when absent.
    let explicit = !field.is_list()
        && !field.is_map()
        && (matches!(field.kind(), Kind::Message(_))
            || (field.supports_presence() && field.cardinality() != Cardinality::Required));
    Field {
        name: field.name().to_owned(),
        ty: field_ty_in(field, package),
        // A proto2 `required` field must be in the message: pbjson refuses it absent.
        optional: field.cardinality() != Cardinality::Required,
        doc,
        constraints: spec
            .constraints
            .get(field.full_name())
            .cloned()
            .unwrap_or_default(),
        origin,
        defaulted: !explicit,
        default: spec.defaults.get(field.full_name()).cloned(),
        // Only presence can be required: a field of implicit presence reads an absent key as
        // its default, which real specs give a meaning (a REQUIRED paging token that is empty
        // on the last page), so for it the behaviour stays data.
        must_be_set: explicit && behaviors(spec, field).any(|b| b == "REQUIRED"),
    }
}

/// The `google.api.field_behavior` values of `field` (`REQUIRED`, `OUTPUT_ONLY`, ...), as
/// its options hold them (a repeated option: a list of names). Only `REQUIRED` is a check
/// (of presence); the others depend on the message's direction or history (an output-only field in a
/// request is to be ignored, not refused; an immutable one needs its earlier value), so
/// they stay data on `Protocol::options`.
fn behaviors<'a>(spec: &'a ProtoSpec, field: &FieldDescriptor) -> impl Iterator<Item = &'a str> {
    let value = (spec.options.get(field.full_name())).and_then(|o| o.get(FIELD_BEHAVIOR));
    let list = match value {
        Some(serde_json::Value::Array(items)) => items.as_slice(),
        Some(one) => std::slice::from_ref(one),
        None => &[],
    };
    list.iter().filter_map(serde_json::Value::as_str)
}

/// The option google's API protos declare for field behavior.
const FIELD_BEHAVIOR: &str = "google.api.field_behavior";

/// One case of a oneof: its field name is the JSON key, its type the value.
fn case(spec: &ProtoSpec, package: &str, file: &str, field: &FieldDescriptor) -> Field {
    Field {
        optional: false,
        defaulted: false,
        default: None,
        // A oneof case is set when it is the case: nothing more to require.
        must_be_set: false,
        ..plain_field(spec, package, file, field)
    }
}

fn enum_def(spec: &ProtoSpec, e: &EnumDescriptor, name: String) -> TypeDef {
    let (doc, origin) = doc_and_origin(spec, e.parent_file().name(), e.path());
    TypeDef {
        name,
        inline: false,
        doc,
        origin,
        kind: TypeKind::Enum(e.values().map(|v| v.name().to_owned()).collect()),
        open: None,
        rules: Default::default(),
    }
}
