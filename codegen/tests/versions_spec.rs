//! `version:` and `versions:` in `protocol.yaml`: a folder of several versions generates a
//! module per version and a dispatching module, a folder without them exactly what it did,
//! and each misuse is a located diagnostic.

use std::path::{Path, PathBuf};

use agentwire_codegen::generate;

const TS: &str = "interface Open { version: string; }
interface Opened { version: string; }
interface Work { n: integer; }
interface Done { n: integer; }
";

fn spec(root: &Path, versions: &str) -> PathBuf {
    let dir = root.join("demo_rpc");
    std::fs::create_dir_all(&dir).unwrap();
    let yaml = format!(
        "protocol: demo_rpc
title: Demo
transport: {{kind: jsonrpc, framing: newline}}
roles: [client, server]
types: messages.ts
jsonrpc:
  methods:
    - {{method: open, call: request, from: client, params: Open, result: Opened}}
    - {{method: work, call: request, from: client, params: Work, result: Done}}
{versions}"
    );
    std::fs::write(dir.join("protocol.yaml"), yaml).unwrap();
    std::fs::write(dir.join("messages.ts"), TS).unwrap();
    dir
}

fn errors_of(dir: &Path) -> Vec<String> {
    match generate(dir) {
        Ok(_) => Vec::new(),
        Err(e) => e.errors.iter().map(|e| e.one_line()).collect(),
    }
}

fn paths(dir: &Path) -> Vec<String> {
    let g = generate(dir).unwrap_or_else(|e| panic!("{:?}", e.errors));
    let mut paths: Vec<String> = g.files.iter().map(|f| f.path.clone()).collect();
    paths.sort();
    paths
}

#[test]
fn a_folder_of_two_versions_gets_a_module_each_and_one_dispatching() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = spec(
        tmp.path(),
        "version: {handshake: open, member: version}
versions:
  - version: \"2026-01-01\"
    drop_methods: [work]
  - version: \"2025-01-01\"
",
    );
    assert_eq!(
        paths(&dir),
        [
            "schemas/demo_rpc/v2025_01_01.schema.json",
            "schemas/demo_rpc/v2026_01_01.schema.json",
            "src/demo_rpc.rs",
            "src/demo_rpc/shared.rs",
            "src/demo_rpc/v2025_01_01.rs",
            "src/demo_rpc/v2025_01_01/machine.rs",
            "src/demo_rpc/v2026_01_01.rs",
            "src/demo_rpc/v2026_01_01/machine.rs",
            "src/skeletons/demo_rpc.rs",
        ]
    );
    let g = generate(&dir).unwrap();
    let top = g
        .files
        .iter()
        .find(|f| f.path == "src/demo_rpc.rs")
        .unwrap()
        .render("test");
    assert!(
        top.contains("pub const VERSIONS: &[&str] = &[\"2026-01-01\", \"2025-01-01\"];"),
        "{top}"
    );
    assert!(top.contains("pub mod v2026_01_01;"));
    // The newest version dropped `work`: its module has no such method, the older one has.
    let file = |p: &str| g.files.iter().find(|f| f.path == p).unwrap().render("test");
    assert!(!file("src/demo_rpc/v2026_01_01.rs").contains("\"work\""));
    assert!(file("src/demo_rpc/v2025_01_01.rs").contains("\"work\""));
}

/// A versioned JSON-RPC folder's skeleton serves every version: a module per version, the
/// handlers of each role over them, and the client only when the versions open with a
/// handshake.
#[test]
fn the_skeleton_serves_every_version() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = spec(
        tmp.path(),
        "version: {handshake: open, member: version}
versions:
  - version: \"2\"
    drop_methods: [work]
  - version: \"1\"
",
    );
    let g = generate(&dir).unwrap_or_else(|e| panic!("{:?}", e.errors));
    let file = |p: &str| g.files.iter().find(|f| f.path == p).unwrap().render("test");
    let skeleton = file("src/skeletons/demo_rpc.rs");
    for item in [
        "pub mod v2 {",
        "pub mod v1 {",
        "pub struct ServerHandlers<V2, V1>",
        "pub enum NegotiatedServer",
        "pub struct ClientHandlers<V2, V1>",
        "pub enum NegotiatedClient",
        "type Offer = crate::demo_rpc::v2::Open;",
    ] {
        assert!(skeleton.contains(item), "{item} missing:\n{skeleton}");
    }
    // No version says `skeleton: true`: the folder re-exports none of them.
    assert!(!skeleton.contains("pub use self::"), "{skeleton}");

    // Versions named on every message: served, but no handshake to offer one in.
    let meta = tempfile::tempdir().unwrap();
    let dir = spec(
        meta.path(),
        "version: {meta: _meta.version}
versions:
  - version: \"2\"
  - version: \"1\"
",
    );
    let g = generate(&dir).unwrap_or_else(|e| panic!("{:?}", e.errors));
    let file = |p: &str| g.files.iter().find(|f| f.path == p).unwrap().render("test");
    let skeleton = file("src/skeletons/demo_rpc.rs");
    assert!(skeleton.contains("pub struct ServerHandlers"), "{skeleton}");
    assert!(!skeleton.contains("ClientHandlers"), "{skeleton}");
}

/// `skeleton: true` on one version: that version's items are also the folder's skeleton's,
/// over its module's paths; on two, a diagnostic.
#[test]
fn the_skeleton_is_the_version_that_says_so() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = spec(
        tmp.path(),
        "version: {handshake: open, member: version}
versions:
  - version: \"2\"
    drop_methods: [work]
  - version: \"1\"
    skeleton: true
",
    );
    let g = generate(&dir).unwrap_or_else(|e| panic!("{:?}", e.errors));
    let skeleton = g
        .files
        .iter()
        .find(|f| f.path == "src/skeletons/demo_rpc.rs")
        .expect("the skeleton of version 1")
        .render("test");
    assert!(
        skeleton.contains("crate::demo_rpc::v1::machine::Checker"),
        "{skeleton}"
    );
    // Version 1 has `work`, version 2 dropped it: the skeleton is version 1's.
    assert!(skeleton.contains("crate::demo_rpc::v1::Work"), "{skeleton}");
    assert!(skeleton.contains("pub use self::v1::*;"), "{skeleton}");

    let twice = tempfile::tempdir().unwrap();
    let dir = spec(
        twice.path(),
        "version: {handshake: open, member: version}
versions:
  - version: \"2\"
    skeleton: true
  - version: \"1\"
    skeleton: true
",
    );
    let errors = errors_of(&dir);
    assert!(
        errors
            .iter()
            .any(|e| e.contains("both say `skeleton: true`")),
        "{errors:?}"
    );
}

#[test]
fn a_folder_without_versions_keeps_its_layout() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = spec(tmp.path(), "");
    let paths = paths(&dir);
    assert!(paths.contains(&"src/demo_rpc.rs".to_owned()));
    assert!(paths.contains(&"src/skeletons/demo_rpc.rs".to_owned()));
    assert!(!paths.iter().any(|p| p.starts_with("src/demo_rpc/v")));
}

#[test]
fn misuses_are_located_diagnostics() {
    let cases = [
        (
            "versions:\n  - version: \"1\"\n",
            "`versions:` needs `version:`",
        ),
        (
            "version: {header: X-Version}\n",
            "but no `versions:` are declared",
        ),
        (
            "version: {handshake: open}\nversions:\n  - version: \"1\"\n",
            "`handshake:` needs `member:`",
        ),
        (
            "version: {meta: _meta.v, header: X-V}\nversions:\n  - version: \"1\"\n",
            "exactly one of `handshake` (with `member`), `meta`, `header` or `any`",
        ),
        (
            "version: {any: [{meta: _meta.v}]}\nversions:\n  - version: \"1\"\n",
            "`any:` lists two or more sources",
        ),
        (
            "version: {any: [{handshake: open, member: version}, {handshake: work, member: version}]}\nversions:\n  - version: \"1\"\n",
            "`any:` lists at most one handshake",
        ),
        (
            "version: {any: [{meta: _meta.v}, {any: [{header: X-V}, {meta: v}]}]}\nversions:\n  - version: \"1\"\n",
            "an `any:` entry cannot be an `any:` itself",
        ),
        (
            "version: {meta: []}\nversions:\n  - version: \"1\"\n",
            "`meta: []` must be a dotted path of member names under params, or a list of them",
        ),
        (
            "version: {meta: [_meta, \"\"]}\nversions:\n  - version: \"1\"\n",
            "`meta: [_meta, ]` must be a dotted path",
        ),
        (
            "version: {meta: _meta.v}\nversions:\n  - version: \"1\"\n  - version: \"1\"\n",
            "version `1` is declared twice",
        ),
        (
            "version: {meta: _meta.v}\nversions:\n  - version: \"1.0\"\n  - version: \"1-0\"\n",
            "have the same module name `v1_0`",
        ),
        (
            "version: {meta: _meta.v}\nversions:\n  - version: \"1\"\n    drop_methods: [gone]\n",
            "drops `gone`, which `jsonrpc.methods` does not list",
        ),
        (
            "version: {handshake: work, member: version}\nversions:\n  - version: \"2\"\n    drop_methods: [work]\n  - version: \"1\"\n",
            "`version.handshake: work` is no request method of version `2`",
        ),
    ];
    for (versions, needle) in cases {
        let tmp = tempfile::tempdir().unwrap();
        let dir = spec(tmp.path(), versions);
        let errors = errors_of(&dir);
        assert!(
            errors.iter().any(|e| e.contains(needle)),
            "{versions}: expected `{needle}` in {errors:#?}"
        );
    }
}

#[test]
fn a_meta_path_is_dotted_or_a_list_whose_names_may_hold_dots() {
    use agentwire_codegen::front::load::load_spec;
    use agentwire_codegen::ir::VersionSource;
    let cases = [
        ("_meta.v", vec!["_meta", "v"]),
        (
            "[_meta, io.example/version]",
            vec!["_meta", "io.example/version"],
        ),
    ];
    for (written, path) in cases {
        let tmp = tempfile::tempdir().unwrap();
        let versions = format!("version: {{meta: {written}}}\nversions:\n  - version: \"1\"\n");
        let dir = spec(tmp.path(), &versions);
        let loaded = load_spec(&dir).unwrap_or_else(|e| panic!("{written}: {:?}", e.errors));
        let source = loaded.protocol.versioning.map(|v| v.source);
        let path = path.into_iter().map(str::to_owned).collect();
        assert_eq!(source, Some(VersionSource::Meta { path }), "{written}");
    }
}

#[test]
fn versions_that_name_themselves_in_different_places_read_any_of_their_sources() {
    use agentwire_codegen::front::load::load_spec;
    use agentwire_codegen::ir::VersionSource;
    let tmp = tempfile::tempdir().unwrap();
    let versions = "version:
  any:
    - {handshake: open, member: version}
    - {meta: [_meta, io.example/version]}
versions:
  - version: \"2\"
  - version: \"1\"
";
    let dir = spec(tmp.path(), versions);
    let loaded = load_spec(&dir).unwrap_or_else(|e| panic!("{:?}", e.errors));
    let source = loaded.protocol.versioning.expect("versioned").source;
    let handshake = VersionSource::Handshake {
        method: "open".into(),
        member: "version".into(),
    };
    let meta = VersionSource::Meta {
        path: vec!["_meta".into(), "io.example/version".into()],
    };
    assert_eq!(source, VersionSource::Any(vec![handshake, meta]));
    assert_eq!(source.handshake(), Some(("open", "version")));
    let module = generate(&dir).unwrap_or_else(|e| panic!("{:?}", e.errors));
    let top = module
        .files
        .iter()
        .find(|f| f.path == "src/demo_rpc.rs")
        .unwrap();
    let text: String = top
        .render("spec/demo_rpc")
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    assert!(text.contains("version::Source::Any(&["), "{text}");
}

/// `spec` with a Streamable HTTP carrier declaring only its path and headers.
fn over_http(root: &Path, versions: &str) -> PathBuf {
    let dir = spec(root, versions);
    let yaml = std::fs::read_to_string(dir.join("protocol.yaml")).unwrap().replace(
        "transport: {kind: jsonrpc, framing: newline}",
        "transport:\n  kind: jsonrpc\n  framing: newline\n  streamable_http: {path: /rpc, session_header: X-Session, version_header: X-Version}",
    );
    std::fs::write(dir.join("protocol.yaml"), yaml).unwrap();
    dir
}

#[test]
fn streamable_http_takes_its_version_facts_from_the_folders_handshake() {
    use agentwire_codegen::transport::streamable_http::Profile;
    let tmp = tempfile::tempdir().unwrap();
    let versions = "version: {handshake: open, member: version}
versions:
  - version: \"2026-01-01\"
  - version: \"2025-01-01\"
";
    let dir = over_http(tmp.path(), versions);
    let g = generate(&dir).unwrap_or_else(|e| panic!("{:?}", e.errors));
    for p in std::iter::once(&g.spec.protocol).chain(g.spec.versions.iter().map(|v| &v.protocol)) {
        let profile: &Profile = p.transport.carried().expect("a Streamable HTTP profile");
        assert_eq!(profile.versions, ["2026-01-01", "2025-01-01"]);
        assert_eq!(profile.opens_with, "open");
        assert_eq!(profile.version_member, "version");
    }
    // Without a folder-wide handshake, the carrier must say them itself.
    let tmp = tempfile::tempdir().unwrap();
    let dir = over_http(tmp.path(), "");
    let errors = errors_of(&dir);
    assert!(
        errors.iter().any(|e| e.contains(
            "`streamable_http` needs `versions`, `opens_with`, `version_member`, or a folder-wide `version:` handshake with `versions:`"
        )),
        "{errors:#?}"
    );
}
