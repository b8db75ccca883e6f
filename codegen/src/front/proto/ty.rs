//! The IR type of a protobuf field and the IR name of a message or enum, read off the
//! compiled descriptors; the loader (`proto.rs`) and the lowering (`proto_lower.rs`) share them.

use protox::prost_reflect::{FieldDescriptor, Kind};

use crate::ir::{Scalar, Ty, WellKnown};

/// The IR name of a message or enum: below the main package its local name, `Outer.Inner`;
/// elsewhere its full proto name.
pub fn local_name(full_name: &str, package: &str) -> String {
    full_name
        .strip_prefix(package)
        .and_then(|s| s.strip_prefix('.'))
        .filter(|_| !package.is_empty())
        .unwrap_or(full_name)
        .to_owned()
}

/// The IR type of a field (a list or map of its element for repeated and map fields), names
/// relative to the field's own package.
pub fn field_ty(field: &FieldDescriptor) -> Ty {
    field_ty_in(field, field.parent_message().package_name())
}

/// The IR type of a field, names relative to the main package `package`.
pub fn field_ty_in(field: &FieldDescriptor, package: &str) -> Ty {
    if field.is_map() {
        let value = match field.kind() {
            Kind::Message(entry) => kind_ty(&entry.map_entry_value_field(), package),
            _ => Ty::Any,
        };
        return Ty::Map(Box::new(value));
    }
    let ty = kind_ty(field, package);
    if field.is_list() {
        Ty::Array(Box::new(ty))
    } else {
        ty
    }
}

fn kind_ty(field: &FieldDescriptor, package: &str) -> Ty {
    match field.kind() {
        Kind::Double => Ty::Scalar(Scalar::Double),
        Kind::Float => Ty::Scalar(Scalar::Float),
        Kind::Int32 | Kind::Sint32 | Kind::Sfixed32 => Ty::Scalar(Scalar::Int32),
        Kind::Uint32 | Kind::Fixed32 => Ty::Scalar(Scalar::Uint32),
        Kind::Int64 | Kind::Sint64 | Kind::Sfixed64 => Ty::Scalar(Scalar::Int64),
        Kind::Uint64 | Kind::Fixed64 => Ty::Scalar(Scalar::Uint64),
        Kind::Bool => Ty::Bool,
        Kind::String => Ty::String,
        Kind::Bytes => Ty::Scalar(Scalar::Bytes),
        Kind::Message(m) => WellKnown::from_proto(m.full_name(), false).map_or_else(
            || Ty::Named(local_name(m.full_name(), package)),
            Ty::WellKnown,
        ),
        Kind::Enum(e) => WellKnown::from_proto(e.full_name(), true).map_or_else(
            || Ty::Named(local_name(e.full_name(), package)),
            Ty::WellKnown,
        ),
    }
}
