//! JSON Schema loader (`types: schema.json`, draft-04 to 2020-12): every definition under
//! `$defs` or `definitions` becomes a named IR type, as the TypeScript loader would make it
//! from the interface the schema was written for. Errors point at the JSON file's line and
//! column.

use std::collections::BTreeMap;

use crate::diag::{SourceFile, SpecError, SpecErrors};
use crate::ir::TypeDef;

mod conditions;
mod cycles;
mod json;
mod keywords;
mod lower;
mod nested;
mod object;
mod refs;
mod union;

pub use json::{Json, Node};

/// Parses `file` (relative name `rel`, for origins) into named IR types.
pub fn load_types(file: &SourceFile, rel: &str) -> Result<BTreeMap<String, TypeDef>, SpecErrors> {
    load_types_noted(file, rel).map(|(types, _)| types)
}

/// [`load_types`], with a note for each keyword read as absent (unknown, or a rule the
/// generated validators do not check).
pub fn load_types_noted(
    file: &SourceFile,
    rel: &str,
) -> Result<(BTreeMap<String, TypeDef>, Vec<String>), SpecErrors> {
    let root = match json::parse(&file.text) {
        Ok(root) => root,
        Err(e) => {
            return Err(SpecError::at(
                file,
                (e.offset, 1),
                format!("JSON syntax error: {}", e.message),
            )
            .into());
        }
    };
    let mut lowerer = lower::Lowerer::new(file, rel, &root);
    lowerer.lower_all();
    lowerer.finish()
}
