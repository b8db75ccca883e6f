//! A generated crate's `Cargo.toml`: one feature per protocol, `skeletons` for the client and
//! server skeletons and their transport, `full` for everything, and exactly the dependencies
//! those features need, so a crate using one protocol's types builds no transport at all.

use crate::emit::crate_lib::ModuleEntry;

/// How the manifest names the agentwire crates and the third-party ones the generated code uses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DepStyle {
    /// `dep.workspace = true`: the crate is a member of agentwire's own workspace.
    Workspace,
    /// A crate in the user's repository: third-party crates at registry versions, agentwire's
    /// own from `agentwire`.
    User {
        /// Where agentwire's crates come from.
        agentwire: Source,
    },
}

/// Where a crate outside this repository gets agentwire's own crates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// crates.io, at this version requirement.
    Registry(String),
    /// A checkout of agentwire's repository, as the manifest names it (absolute, or relative
    /// to the crate): each crate from its folder there ([`CHECKOUT_DIRS`]).
    Checkout(String),
    /// agentwire's git repository, at a revision (the default branch without one).
    Git { url: String, rev: Option<String> },
}

/// agentwire's crates and their folders in a checkout of its repository.
pub const CHECKOUT_DIRS: &[(&str, &str)] = &[
    ("agentwire", "agentwire"),
    ("agentwire-build", "build"),
    ("agentwire-codegen", "codegen"),
    ("agentwire-macros", "macros"),
    ("agentwire-runtime", "runtime"),
    ("agentwire-transport", "transport"),
];

impl Source {
    /// The TOML value naming `krate` (one of [`CHECKOUT_DIRS`]) from this source: a version
    /// string or an inline table.
    pub fn spec(&self, krate: &str) -> String {
        match self {
            Source::Registry(version) => toml_str(version),
            Source::Checkout(root) => {
                let dir = CHECKOUT_DIRS
                    .iter()
                    .find(|(k, _)| *k == krate)
                    .map_or(krate, |(_, d)| *d);
                let root = root.trim_end_matches('/');
                format!("{{ path = {} }}", toml_str(&format!("{root}/{dir}")))
            }
            Source::Git { url, rev } => match rev {
                Some(rev) => format!("{{ git = {}, rev = {} }}", toml_str(url), toml_str(rev)),
                None => format!("{{ git = {} }}", toml_str(url)),
            },
        }
    }

    /// The source a manifest written by [`cargo_toml`] names for `agentwire-runtime`, so a
    /// later run keeps it: `None` for any other text.
    pub fn of_manifest(text: &str) -> Option<Source> {
        let line = text
            .lines()
            .find_map(|l| l.strip_prefix("agentwire-runtime = "))?;
        if line.starts_with('"') {
            return toml_value(line).map(Source::Registry);
        }
        if let Some(path) = member(line, "path") {
            let root = path.strip_suffix("/runtime")?;
            return Some(Source::Checkout(root.to_owned()));
        }
        let url = member(line, "git")?;
        Some(Source::Git {
            url,
            rev: member(line, "rev"),
        })
    }
}

/// The string value of `key` in an inline table written by [`Source::spec`].
fn member(table: &str, key: &str) -> Option<String> {
    let at = table.find(&format!(" {key} = \""))?;
    toml_value(&table[at + key.len() + 4..])
}

/// The TOML basic string `text` starts with, unescaped ([`toml_str`]'s inverse).
fn toml_value(text: &str) -> Option<String> {
    let mut chars = text.strip_prefix('"')?.chars();
    let mut out = String::new();
    while let Some(c) = chars.next() {
        match c {
            '"' => return Some(out),
            '\\' => match chars.next()? {
                'n' => out.push('\n'),
                c => out.push(c),
            },
            c => out.push(c),
        }
    }
    None
}

/// Which features a crate built with default features gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Defaults {
    /// Nothing: a dependent names each protocol it uses.
    Nothing,
    /// Every protocol's types, no skeletons.
    Protocols,
    /// Every protocol and the skeletons (`full`).
    Full,
}

/// What the manifest says about the crate itself.
#[derive(Debug, Clone)]
pub struct Manifest<'a> {
    pub name: &'a str,
    pub description: &'a str,
    pub deps: DepStyle,
    pub defaults: Defaults,
    /// Appended verbatim (a `[dev-dependencies]` table, say); empty for none.
    pub extra: &'a str,
}

/// The third-party dependencies generated code names, with their specifications as the
/// workspace's `Cargo.toml` gives them (a test keeps the two in step).
pub const THIRD_PARTY: &[(&str, &str)] = &[
    ("serde", r#"{ version = "1", features = ["derive"] }"#),
    (
        "serde_json",
        r#"{ version = "1", features = ["raw_value"] }"#,
    ),
    ("schemars", r#""1""#),
    ("prost", r#""0.14""#),
    (
        "tonic",
        r#"{ version = "0.14", default-features = false, features = ["codegen", "transport"] }"#,
    ),
    ("tonic-prost", r#""0.14""#),
    ("pbjson", r#""0.9""#),
    ("pbjson-types", r#""0.9""#),
];

/// What a protobuf module's types need (prost's messages, tonic's service traits, pbjson's
/// proto3 JSON).
const PROTO_DEPS: &[&str] = &["prost", "tonic", "tonic-prost", "pbjson"];

/// What a protobuf module using `google.protobuf.*` types also needs (their proto3 JSON form).
const WELL_KNOWN: &str = "pbjson-types";

/// The manifest of a crate holding `modules`.
pub fn cargo_toml(m: &Manifest<'_>, modules: &[ModuleEntry]) -> String {
    let mut out = String::from(
        "# @generated by the agentwire generator from the crate's spec folders; do not edit.\n",
    );
    out.push_str(&package(m));
    // Nothing may be on by default; the API docs show every protocol and the skeletons.
    out.push_str("\n[package.metadata.docs.rs]\nall-features = true\n");
    if m.deps == DepStyle::Workspace {
        // Generated code holds no doc tests, and no unit tests unless a spec folder brings its
        // `talk.rs`: without this, `cargo test --workspace` compiles each generated crate, the
        // workspace's largest, a second time as a test harness that runs nothing.
        let has_tests = modules.iter().any(|e| e.talk.is_some());
        out.push_str(&format!("\n[lib]\ntest = {has_tests}\ndoctest = false\n"));
    }
    out.push_str(&features(m.defaults, modules));
    out.push_str("\n[dependencies]\n");
    let any_proto = modules.iter().any(|e| e.proto);
    let any_skeleton = modules.iter().any(|e| e.skeleton);
    out.push_str(&dep(&m.deps, "agentwire-runtime", false));
    if any_skeleton {
        out.push_str(&dep(&m.deps, "agentwire-transport", true));
    }
    out.push_str(&dep(&m.deps, "serde", false));
    out.push_str(&dep(&m.deps, "serde_json", false));
    out.push_str(&dep(&m.deps, "schemars", true));
    if any_proto {
        for name in PROTO_DEPS {
            out.push_str(&dep(&m.deps, name, true));
        }
    }
    if modules.iter().any(|e| e.well_known_types) {
        out.push_str(&dep(&m.deps, WELL_KNOWN, true));
    }
    if m.deps == DepStyle::Workspace {
        out.push_str("\n[lints]\nworkspace = true\n");
    }
    if !m.extra.is_empty() {
        out.push('\n');
        out.push_str(m.extra);
    }
    out
}

fn package(m: &Manifest<'_>) -> String {
    let head = format!(
        "[package]\nname = {}\ndescription = {}\n",
        toml_str(m.name),
        toml_str(m.description)
    );
    match &m.deps {
        DepStyle::Workspace => format!(
            "{head}version.workspace = true\nedition.workspace = true\nlicense.workspace = true\npublish.workspace = true\n"
        ),
        // The user's crate: their own version and licence, which the generator cannot know.
        DepStyle::User { .. } => {
            format!("{head}version = \"0.1.0\"\nedition = \"2024\"\npublish = false\n")
        }
    }
}

/// The `[features]` table. A protocol's feature builds its types, validators, schema and
/// checker; `skeletons` adds the skeletons of the protocols enabled beside it.
fn features(defaults: Defaults, modules: &[ModuleEntry]) -> String {
    let names: Vec<String> = modules.iter().map(|e| toml_str(&e.module)).collect();
    let default = match defaults {
        Defaults::Nothing => String::new(),
        Defaults::Protocols => "\"all-protocols\"".to_owned(),
        Defaults::Full => "\"full\"".to_owned(),
    };
    let any_skeleton = modules.iter().any(|e| e.skeleton);
    let full = if any_skeleton {
        "\"all-protocols\", \"skeletons\""
    } else {
        "\"all-protocols\""
    };
    let mut out = format!(
        "\n[features]\ndefault = [{default}]\n\
         # Every protocol, and the skeletons.\nfull = [{full}]\n\
         # Every protocol's types, validators, schema and checker; no transport.\n\
         all-protocols = [{}]\n",
        names.join(", ")
    );
    if any_skeleton {
        out.push_str(
            "# The client and server skeletons of the protocols enabled beside it, and their\n\
             # transport (axum, tokio-tungstenite, reqwest, tonic, SQLite).\n\
             skeletons = [\"dep:agentwire-transport\"]\n\
             # PostgreSQL backends for the skeletons' stores (several servers on one database).\n\
             postgres = [\"skeletons\", \"agentwire-transport/postgres\"]\n",
        );
    }
    out.push_str(
        "# `schemars::JsonSchema` for every generated type.\n\
         schemars = [\"dep:schemars\", \"agentwire-runtime/schemars\"]\n",
    );
    for e in modules {
        let mut needs: Vec<String> = if e.proto {
            PROTO_DEPS.iter().map(|d| format!("\"dep:{d}\"")).collect()
        } else {
            Vec::new()
        };
        if e.well_known_types {
            needs.push(format!("\"dep:{WELL_KNOWN}\""));
        }
        out.push_str(&format!("# {}\n", e.title));
        out.push_str(&format!("{} = [{}]\n", e.module, needs.join(", ")));
        if e.unstable {
            out.push_str(&format!(
                "# {}: the unstable forms of its versions, an opt-in (not in `full`).\n{} = [{}]\n",
                e.title,
                toml_str(&crate::naming::unstable_feature(&e.module)),
                toml_str(&e.module)
            ));
        }
    }
    out
}

/// One `[dependencies]` line in `style`.
fn dep(style: &DepStyle, name: &str, optional: bool) -> String {
    let opt = if optional { ", optional = true" } else { "" };
    match style {
        DepStyle::Workspace if optional => format!("{name} = {{ workspace = true{opt} }}\n"),
        DepStyle::Workspace => format!("{name}.workspace = true\n"),
        DepStyle::User { agentwire } => {
            let spec = THIRD_PARTY
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, s)| (*s).to_owned())
                .unwrap_or_else(|| agentwire.spec(name));
            match (spec.strip_prefix("{ "), optional) {
                (Some(rest), true) => format!("{name} = {{ optional = true, {rest}\n"),
                (None, true) => format!("{name} = {{ version = {spec}{opt} }}\n"),
                (_, false) => format!("{name} = {spec}\n"),
            }
        }
    }
}

/// A TOML basic string.
fn toml_str(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(module: &str, proto: bool) -> ModuleEntry {
        ModuleEntry {
            module: module.to_owned(),
            title: format!("{module} title"),
            skeleton: true,
            proto,
            well_known_types: false,
            unstable: false,
            talk: None,
        }
    }

    /// The versions a user's crate gets are the workspace's own.
    #[test]
    fn third_party_specs_match_the_workspace() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../Cargo.toml");
        let text = std::fs::read_to_string(root).unwrap();
        for (name, spec) in THIRD_PARTY {
            let line = format!("\n{name} = {spec}\n");
            assert!(
                text.contains(&line),
                "workspace Cargo.toml lacks `{}`",
                line.trim()
            );
        }
    }

    #[test]
    fn versions_style_names_optional_tables() {
        let m = Manifest {
            name: "my-protocols",
            description: "mine",
            deps: DepStyle::User {
                agentwire: Source::Registry("0.1.0".to_owned()),
            },
            defaults: Defaults::Protocols,
            extra: "",
        };
        let text = cargo_toml(&m, &[entry("chat", false), entry("grid", true)]);
        assert!(text.contains("\ndefault = [\"all-protocols\"]\n"), "{text}");
        assert!(
            text.contains("\nall-protocols = [\"chat\", \"grid\"]\n"),
            "{text}"
        );
        assert!(text.contains("\nagentwire-runtime = \"0.1.0\"\n"), "{text}");
        assert!(
            text.contains("\nagentwire-transport = { version = \"0.1.0\", optional = true }\n"),
            "{text}"
        );
        assert!(
            text.contains(
                "\ntonic = { optional = true, version = \"0.14\", default-features = false, features = [\"codegen\", \"transport\"] }\n"
            ),
            "{text}"
        );
        assert!(
            text.contains(
                "\ngrid = [\"dep:prost\", \"dep:tonic\", \"dep:tonic-prost\", \"dep:pbjson\"]\n"
            ),
            "{text}"
        );
        assert!(text.contains("\nchat = []\n"), "{text}");
        assert!(
            !text.contains("[lib]"),
            "a user's crate keeps cargo's defaults: {text}"
        );
    }

    /// Each source names both agentwire crates, and a later run reads back the one written.
    #[test]
    fn sources_are_written_and_read_back() {
        let sources = [
            Source::Registry("0.1.0".to_owned()),
            Source::Checkout("/home/me/src/agent \"wire\"".to_owned()),
            Source::Checkout("../agentwire".to_owned()),
            Source::Git {
                url: "https://example.org/agentwire.git".to_owned(),
                rev: Some("0123abc".to_owned()),
            },
            Source::Git {
                url: "https://example.org/agentwire.git".to_owned(),
                rev: None,
            },
        ];
        for source in sources {
            let m = Manifest {
                name: "mine",
                description: "mine",
                deps: DepStyle::User {
                    agentwire: source.clone(),
                },
                defaults: Defaults::Protocols,
                extra: "",
            };
            let text = cargo_toml(&m, &[entry("chat", false)]);
            assert_eq!(Source::of_manifest(&text), Some(source.clone()), "{text}");
            let transport = format!(
                "\nagentwire-transport = {}\n",
                source.spec("agentwire-transport")
            );
            let transport = match source.spec("agentwire-transport").strip_prefix("{ ") {
                Some(rest) => format!("\nagentwire-transport = {{ optional = true, {rest}\n"),
                None => transport
                    .replace(" = \"", " = { version = \"")
                    .replace("\"\n", "\", optional = true }\n"),
            };
            assert!(text.contains(&transport), "{transport} in {text}");
        }
        let checkout = Source::Checkout("/src/agentwire/".to_owned());
        assert_eq!(
            checkout.spec("agentwire-runtime"),
            "{ path = \"/src/agentwire/runtime\" }"
        );
        assert_eq!(Source::of_manifest("[package]\nname = \"x\"\n"), None);
    }

    /// The workspace's generated crates are not compiled again as empty test harnesses.
    #[test]
    fn workspace_style_has_no_test_harness() {
        let m = Manifest {
            name: "agentwire-protocols",
            description: "built-ins",
            deps: DepStyle::Workspace,
            defaults: Defaults::Nothing,
            extra: "",
        };
        let text = cargo_toml(&m, &[entry("chat", false)]);
        assert!(
            text.contains("\n[lib]\ntest = false\ndoctest = false\n"),
            "{text}"
        );
    }

    /// A crate whose spec folders bring `talk.rs` tests keeps its test harness, or they
    /// would never run.
    #[test]
    fn talk_tests_keep_the_test_harness() {
        let m = Manifest {
            name: "agentwire-test-protocols",
            description: "tests",
            deps: DepStyle::Workspace,
            defaults: Defaults::Nothing,
            extra: "",
        };
        let mut talking = entry("chat", false);
        talking.talk = Some("../chat/talk.rs".to_owned());
        let text = cargo_toml(&m, &[entry("quiet", false), talking]);
        assert!(
            text.contains("\n[lib]\ntest = true\ndoctest = false\n"),
            "{text}"
        );
    }
}
