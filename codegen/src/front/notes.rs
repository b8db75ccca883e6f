//! Notes on a loaded spec for the `cargo xtask gen` summary: things generated as asked but
//! worth a look, such as formats the validators do not check.

use crate::ir::{FORMATS, Protocol, TypeKind};
use crate::rules::FORMAT;

/// One note per field or type alias whose `@format` is carried into the schema unchecked.
pub fn unchecked_formats(p: &Protocol) -> Vec<String> {
    let mut out = Vec::new();
    let mut note = |place: String, format: &str| {
        out.push(format!(
            "note: {place}: format `{format}` is carried into the JSON Schema but not checked (checked: {})",
            FORMATS.join(", ")
        ));
    };
    for def in p.types.values() {
        match &def.kind {
            TypeKind::Struct(fields) | TypeKind::Oneof { cases: fields, .. } => {
                for f in fields {
                    if let Some(format) = f.constraints.text(&FORMAT)
                        && !FORMATS.contains(&format)
                    {
                        note(format!("{}.{}", def.name, f.name), format);
                    }
                }
            }
            TypeKind::Alias { constraints, .. } => {
                if let Some(format) = constraints.text(&FORMAT)
                    && !FORMATS.contains(&format)
                {
                    note(def.name.clone(), format);
                }
            }
            TypeKind::Enum(_) | TypeKind::Union { .. } | TypeKind::Untagged(_) => {}
        }
    }
    out
}
