//! Protobuf schemas their authors publish, loaded unchanged: A2A's normative `a2a.proto`, as
//! the crates.io package `a2a-pb` 0.3.2 ships it beside the `google/api` protos it imports
//! (installed by `scripts/install-peers`, never copied into the repository), goes through the
//! protobuf front end and emitter, and its generated module compiles warning-free.

use std::path::PathBuf;

use agentwire_codegen::emit::proto::emit_proto;
use agentwire_codegen::front::proto::{ProtoSpec, load_proto_in};
use agentwire_codegen::front::proto_include::ImportRoots;
use agentwire_codegen::front::proto_lower::{lower, options};
use agentwire_codegen::ir::{Protocol, Transport, TypeKind};
use agentwire_tests::peers::{ensure_installed, target_dir};
use agentwire_tests::published::{Module, PROTO_DEPS, build_crate_with};

fn a2a_dir() -> PathBuf {
    ensure_installed();
    target_dir().join("peers/crates/a2a-pb/a2a-pb-0.3.2/proto")
}

fn report(e: agentwire_codegen::diag::SpecErrors) -> String {
    e.errors
        .iter()
        .map(|e| e.one_line())
        .collect::<Vec<_>>()
        .join("\n")
}

/// The IR of a lone `.proto` file, as the loader builds it (no catalogue, no transport).
fn protocol_of(spec: &ProtoSpec, module: &str) -> Protocol {
    let package = spec.package().map_err(report).unwrap();
    Protocol {
        module: module.to_owned(),
        title: module.to_owned(),
        summary: String::new(),
        transport: Transport {
            kind: agentwire_codegen::transport::lookup("grpc").expect("grpc is registered"),
            framing: "grpc".to_owned(),
            grpc: None,
            rpc: Default::default(),
            port: None,
            content_type: None,
            carriers: Vec::new(),
        },
        roles: Vec::new(),
        types: lower(spec, &package),
        channels: Vec::new(),
        messages: Vec::new(),
        methods: Vec::new(),
        routes: Vec::new(),
        types_file: spec.file.clone(),
        machines: Vec::new(),
        options: options(spec, &package),
        proto_package: Some(package),
        role_aliases: Default::default(),
        features: Vec::new(),
        events: Vec::new(),
        versioning: None,
        version: None,
        sessions: None,
        tracking: None,
    }
}

/// The generated types of the module (prost, pbjson and validators), under a `mod.rs` of
/// their own: a module without a transport has no catalogue for the rest to describe.
fn module(p: &Protocol, spec: &ProtoSpec) -> Module {
    let name = &p.module;
    let mut files: Vec<(String, String)> = emit_proto(p, spec)
        .map_err(report)
        .unwrap()
        .into_iter()
        .filter(|(rel, _)| rel != "mod.rs")
        .map(|(rel, text)| (format!("src/{name}/{rel}"), text))
        .collect();
    files.push((
        format!("src/{name}/mod.rs"),
        "//! The generated types.\nmod json;\nmod types;\nmod validate;\npub use types::*;\n"
            .to_owned(),
    ));
    files.push((
        format!("src/skeletons/{name}.rs"),
        "//! No transport: no skeleton.\n".to_owned(),
    ));
    Module {
        name: name.clone(),
        files,
    }
}

#[test]
fn a2a_proto_loads_unchanged_and_its_types_compile() {
    let roots = ImportRoots::folder(&a2a_dir());
    let spec = load_proto_in(&roots, "a2a.proto").map_err(report).unwrap();
    let p = protocol_of(&spec, "a2a");
    assert_eq!(p.proto_package.as_deref(), Some("lf.a2a.v1"));
    // The google/api imports carry options only: no Rust types of theirs.
    assert!(
        p.types.keys().all(|k| !k.starts_with("google.")),
        "{:?}",
        p.types.keys()
    );
    let TypeKind::Struct(fields) = &p.types["Task"].kind else {
        panic!("Task is a message")
    };
    assert!(fields.iter().any(|f| f.name == "status"));
    // Field behaviour and HTTP bindings reach the IR as data.
    assert_eq!(
        p.options["Task.id"]["google.api.field_behavior"],
        serde_json::json!(["REQUIRED"])
    );
    assert_eq!(
        p.options["A2AService.GetTask"]["google.api.http"]["get"],
        "/tasks/{id=*}"
    );
    let tmp = tempfile::tempdir().unwrap();
    build_crate_with(&tmp.path().join("crate"), &[module(&p, &spec)], PROTO_DEPS);
}

/// Copies the package's `proto/` folder into `dir` (the test's own spec folder, beside a
/// `protocol.yaml` of its own); the repository holds no copy.
fn copy_tree(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            copy_tree(&path, &to.join(entry.file_name()));
        } else {
            std::fs::copy(&path, to.join(entry.file_name())).unwrap();
        }
    }
}

/// The whole generator on a types-only spec folder holding A2A's protos unchanged: the
/// module (types, validators, schema, `decode_type`) compiles warning-free.
#[test]
fn a2a_proto_generates_a_types_only_module_that_compiles() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("a2a");
    copy_tree(&a2a_dir(), &dir);
    std::fs::write(
        dir.join("protocol.yaml"),
        "protocol: a2a\ntitle: A2A\nsummary: A2A's types, from its normative a2a.proto.\ntypes: a2a.proto\n",
    )
    .unwrap();
    let g = agentwire_codegen::generate(&dir).map_err(report).unwrap();
    assert!(g.summary.starts_with("a2a: types only"), "{}", g.summary);
    assert_eq!(
        g.spec.protocol.options["Task.id"]["google.api.field_behavior"],
        serde_json::json!(["REQUIRED"])
    );
    let mut files: Vec<(String, String)> = g
        .files
        .iter()
        .map(|f| (f.path.clone(), f.render("a2a-pb 0.3.2")))
        .collect();
    files.push((
        "src/skeletons/a2a.rs".to_owned(),
        "//! No transport: no skeleton.\n".to_owned(),
    ));
    let module = Module {
        name: "a2a".to_owned(),
        files,
    };
    build_crate_with(&tmp.path().join("crate"), &[module], PROTO_DEPS);
}
