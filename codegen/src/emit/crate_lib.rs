//! A generated crate's `src/lib.rs`: one module per protocol behind its feature, the
//! skeletons behind `skeletons`, and the registry.

/// One protocol as `src/lib.rs` declares it.
#[derive(Debug, Clone)]
pub struct ModuleEntry {
    pub module: String,
    pub title: String,
    /// Whether a skeleton file was generated for it.
    pub skeleton: bool,
    /// Whether its types are protobuf (prost, tonic and pbjson are then its dependencies).
    pub proto: bool,
    /// Whether its protobuf types use `google.protobuf.*` (pbjson-types is then a dependency).
    pub well_known_types: bool,
    /// Whether a version of it has an unstable form (`<module>-unstable` then builds it).
    pub unstable: bool,
    /// The spec folder's `talk.rs` (tests of the generated skeletons), as a path relative to
    /// `src/`; compiled into the crate's unit tests.
    pub talk: Option<String>,
}

/// `src/lib.rs` of the generated crate, declaring every module and every skeleton, each
/// behind its feature (`emit::manifest` writes the matching `[features]` table).
pub fn lib_rs(doc: &str, modules: &[ModuleEntry]) -> String {
    let mut out = format!("//! {doc}\n//!\n{}\n", features_doc(modules));
    for ModuleEntry { module, title, .. } in modules {
        // The emitted files are formatted by prettyplease; keep rustfmt from reflowing them.
        out.push_str(&format!(
            "/// {title}\n#[cfg(feature = \"{module}\")]\n#[rustfmt::skip]\npub mod {module};\n"
        ));
    }
    let with_skeletons: Vec<&ModuleEntry> = modules.iter().filter(|m| m.skeleton).collect();
    if !with_skeletons.is_empty() {
        // One `rustfmt::skip` on the block: rustfmt mangles doc comments that follow a
        // skipped `mod x;` inside an inline module, which made `cargo fmt` and the freshness
        // check fight once two skeletons existed.
        out.push_str("/// Client and server skeletons: transport, framing, validation and sequence checking\n/// around the behaviour a user writes.\n#[cfg(feature = \"skeletons\")]\n#[rustfmt::skip]\npub mod skeletons {\n");
        for ModuleEntry { module, title, .. } in with_skeletons {
            out.push_str(&format!(
                "    /// {title}: both roles.\n    #[cfg(feature = \"{module}\")]\n    pub mod {module};\n"
            ));
        }
        out.push_str("}\n");
    }
    for ModuleEntry { module, talk, .. } in modules {
        if let Some(path) = talk {
            out.push_str(&format!(
                "#[cfg(all(test, feature = \"skeletons\", feature = \"{module}\"))]\n#[path = \"{path}\"]\nmod {module}_talk;\n"
            ));
        }
    }
    out.push_str("/// Every protocol of this crate behind one trait object.\n#[rustfmt::skip]\npub mod registry;\npub use registry::protocols;\n");
    out
}

/// The crate doc's list of features.
fn features_doc(modules: &[ModuleEntry]) -> String {
    let mut lines = vec![
        "//! Features: one per protocol, named after its module, builds its types, validators,"
            .to_owned(),
        "//! schema and sequence checker; `schemars` adds `schemars::JsonSchema` impls;".to_owned(),
    ];
    if modules.iter().any(|m| m.skeleton) {
        lines.push(
            "//! `skeletons` adds the client and server skeletons of the enabled protocols and"
                .to_owned(),
        );
        lines.push("//! their transport (axum, tokio-tungstenite, reqwest, tonic, SQLite); `all-protocols`".to_owned());
        lines.push("//! is every protocol, `full` every protocol and the skeletons.".to_owned());
    } else {
        lines.push("//! `all-protocols` (or `full`) is every protocol.".to_owned());
    }
    if modules.iter().any(|m| m.unstable) {
        lines.push(
            "//! `<module>-unstable` adds the unstable forms of a protocol's versions (neither"
                .to_owned(),
        );
        lines.push("//! `all-protocols` nor `full` turns it on).".to_owned());
    }
    lines.join("\n")
}
