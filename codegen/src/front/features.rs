//! Which types-file front ends this build of the generator has (the cargo features
//! `typescript` and `proto`), and the diagnostic for a spec that needs one it was built without.

use std::path::Path;

use crate::diag::SpecError;

/// A front end a cargo feature can leave out, with the heavy dependencies it brings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Front {
    /// `.ts` types files, parsed by oxc.
    TypeScript,
    /// `.proto` types files: protox, prost-build, tonic-build, pbjson-build.
    Proto,
}

impl Front {
    /// The cargo feature, of `agentwire`, `agentwire-macros` and `agentwire-codegen` alike.
    pub const fn feature(self) -> &'static str {
        match self {
            Self::TypeScript => "typescript",
            Self::Proto => "proto",
        }
    }

    /// Whether this build has the front end.
    pub const fn enabled(self) -> bool {
        match self {
            Self::TypeScript => cfg!(feature = "typescript"),
            Self::Proto => cfg!(feature = "proto"),
        }
    }

    fn what(self) -> &'static str {
        match self {
            Self::TypeScript => "a TypeScript types file",
            Self::Proto => "a protobuf types file",
        }
    }
}

/// `path` is a types file of `front`, which this build leaves out: the error names the
/// feature to turn on and how.
pub fn missing(front: Front, path: &Path) -> SpecError {
    let feature = front.feature();
    SpecError::new(format!(
        "{}: {} needs agentwire's `{feature}` feature, which this build leaves out",
        path.display(),
        front.what()
    ))
    .with_help(format!(
        "enable it in Cargo.toml: `agentwire = {{ version = \"0.1\", features = [\"{feature}\"] }}`"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_diagnostic_names_the_feature_and_how_to_enable_it() {
        let e = missing(Front::Proto, Path::new("spec/coven/coven.proto"));
        assert_eq!(
            e.one_line(),
            "spec/coven/coven.proto: a protobuf types file needs agentwire's `proto` feature, \
             which this build leaves out (hint: enable it in Cargo.toml: \
             `agentwire = { version = \"0.1\", features = [\"proto\"] }`)"
        );
        let e = missing(Front::TypeScript, Path::new("spec/x/messages.ts"));
        assert_eq!(
            e.one_line(),
            "spec/x/messages.ts: a TypeScript types file needs agentwire's `typescript` feature, \
             which this build leaves out (hint: enable it in Cargo.toml: \
             `agentwire = { version = \"0.1\", features = [\"typescript\"] }`)"
        );
    }
}
