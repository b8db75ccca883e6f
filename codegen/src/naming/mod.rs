//! The naming authority: every Rust name generated code gives a spec's types, fields,
//! variants, modules and paths is handed out here, the same whatever front end the type came
//! from. Emitters and the machine model ask; none spells a name itself.
//!
//! A protocol's types are written either by agentwire (`spec`: serde structs named as the
//! spec names them) or by prost (`prost`: a protobuf spec); [`Names`] picks the scheme once
//! per protocol, so a caller never asks "is this protobuf?" to name a thing.

mod case;
mod keywords;
mod name;
mod prost;
mod spec;
mod version;

pub use case::{
    field_name, inline_type_name, pascal_case, snake_case, variant_name, variant_names,
};
pub use keywords::{can_be_raw, is_keyword};
pub use name::{Name, RustPath};
pub use prost::{prost_field, prost_path, prost_variant, scalar_rust, scalar_ty, well_known_path};
pub use spec::{
    RoleSet, exchange, extra_ident, field, field_ident, role_set, rust_ty, type_ident, type_name,
};

pub use version::{
    FilePaths, module_path, unstable_feature, unstable_module, version_module, version_variant,
};

use crate::ir::Protocol;

/// Who writes a protocol's Rust types, and so how they are named.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Names {
    /// agentwire's own serde types: spec names kept, JSON keys in snake_case.
    Spec,
    /// prost's message types: nested types in a module per message, prost's escaping.
    Prost,
}

impl Names {
    /// The scheme of `p`'s types.
    pub fn of(p: &Protocol) -> Self {
        if p.proto_package.is_some() {
            Self::Prost
        } else {
            Self::Spec
        }
    }

    /// The path of a spec type, relative to the protocol module.
    pub fn type_path(self, name: &str) -> RustPath {
        match self {
            Self::Spec => type_name(name).into(),
            Self::Prost => prost_path(name),
        }
    }

    /// The Rust field of a member (a JSON key or a protobuf field).
    pub fn field(self, name: &str) -> Name {
        match self {
            Self::Spec => field(name),
            Self::Prost => prost_field(name),
        }
    }

    /// The path from the module's Rust file up to the crate's `src/`: a prost module is a
    /// folder (`<module>/mod.rs`, beside prost's own files), a spec module one file.
    pub fn up_to_src(self) -> &'static str {
        match self {
            Self::Spec => "..",
            Self::Prost => "../..",
        }
    }

    /// Whether an absent field reads as its zero value: prost's proto3 fields without
    /// presence cannot tell the two apart.
    pub fn absent_is_zero(self) -> bool {
        self == Self::Prost
    }

    /// Whether decoding refuses members a message does not declare (pbjson does; serde's
    /// structs skip them).
    pub fn refuses_unknown_members(self) -> bool {
        self == Self::Prost
    }

    /// Whether spec type names that cannot be Rust type names are renamed (agentwire's
    /// types); prost's names are prost's own and stay as the `.proto` spells them.
    pub fn renames_types(self) -> bool {
        self == Self::Spec
    }

    /// What a channel's union is in this scheme's types, for "`X` is not ..." diagnostics.
    pub fn channel_union_form(self) -> &'static str {
        match self {
            Self::Spec => "a union of interfaces",
            Self::Prost => "a message holding only a oneof",
        }
    }

    /// Whether the types derive `schemars::JsonSchema` (agentwire's serde types; prost's do
    /// not).
    pub fn serde_types(self) -> bool {
        self == Self::Spec
    }
}
