//! The TypeScript front when the `typescript` feature is off: a `.ts` types file is the
//! diagnostic naming the feature.

use std::collections::BTreeMap;

use crate::diag::{SourceFile, SpecErrors};
use crate::front::features::{Front, missing};
use crate::ir::TypeDef;

/// Refuses `file`: this build has no TypeScript front.
pub fn load_types(file: &SourceFile, _rel: &str) -> Result<BTreeMap<String, TypeDef>, SpecErrors> {
    Err(missing(Front::TypeScript, &file.path).into())
}

/// Refuses `file`: this build has no TypeScript front.
pub fn load_files(
    file: &SourceFile,
    _rel: &str,
) -> Result<
    (
        BTreeMap<String, TypeDef>,
        Vec<std::path::PathBuf>,
        Vec<String>,
    ),
    SpecErrors,
> {
    Err(missing(Front::TypeScript, &file.path).into())
}
