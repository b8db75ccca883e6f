//! `agentwire trace check --spec DIR`: a spec folder anywhere on disk, read when the command
//! runs, checks a trace as the compiled-in protocol does; folders the interpreter cannot run
//! are usage errors that say why. (`differential.rs` compares the two on every corpus.)

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn run(args: &[&str]) -> (Result<u8, clap::Error>, String) {
    let mut out = Vec::new();
    let mut all = vec!["agentwire", "trace", "check"];
    all.extend_from_slice(args);
    let code = agentwire_cli::run(agentwire_protocols::protocols(), all, &mut out);
    (code, String::from_utf8(out).unwrap())
}

/// Copies a spec folder's files (not its subfolders) into `to`.
fn copy_folder(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let p = e.unwrap().path();
        if p.is_file() {
            std::fs::copy(&p, to.join(p.file_name().unwrap())).unwrap();
        }
    }
}

#[test]
fn a_spec_folder_outside_the_repository_checks_like_the_compiled_protocol() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = tmp.path().join("helix_zed");
    copy_folder(&root().join("spec/helix_zed"), &spec);
    let traces = root().join("tests/fixtures/helix_zed/traces");
    let mut files: Vec<String> = std::fs::read_dir(&traces)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .map(|p| p.display().to_string())
        .collect();
    files.sort();
    assert!(files.len() > 5, "{files:?}");
    let mut by_spec = vec!["--spec", spec.to_str().unwrap()];
    let mut by_name = vec!["--protocol", "helix_zed"];
    by_spec.extend(files.iter().map(String::as_str));
    by_name.extend(files.iter().map(String::as_str));
    let (a, out_a) = run(&by_spec);
    let (b, out_b) = run(&by_name);
    assert_eq!(a.unwrap(), b.unwrap());
    assert_eq!(out_a, out_b);
    assert!(
        out_a.contains("in state"),
        "some trace has a sequence finding: {out_a}"
    );
}

#[test]
fn a_protobuf_folder_is_read_as_its_generated_pbjson_code_reads_it() {
    // The traces hold ProtoJSON; a message with a field of the wrong type, an unknown enum
    // name and an empty stream response are findings with the generated code's pointers.
    let tmp = tempfile::tempdir().unwrap();
    let trace = tmp.path().join("t.jsonl");
    let lines = [
        r#"{"from": "server", "message": {"task": {"id": "t", "status": {"state": "TASK_STATE_WORKING"}}}}"#,
        r#"{"from": "server", "message": {"statusUpdate": {"taskId": "t", "status": {"state": "TASK_STATE_COMPLETED"}}}}"#,
        r#"{"from": "server", "message": {"task": {"id": 5}}}"#,
        r#"{"from": "server", "message": {"task": {"id": "u", "status": {"state": "NOPE"}}}}"#,
        r#"{"from": "server", "message": {}}"#,
    ];
    std::fs::write(&trace, lines.join("\n")).unwrap();
    let spec = root().join("spec/a2a");
    let file = trace.to_str().unwrap();
    let (a, out_a) = run(&["--spec", spec.to_str().unwrap(), file]);
    let (b, out_b) = run(&["--protocol", "a2a", file]);
    assert_eq!(a.unwrap(), b.unwrap());
    assert_eq!(out_a, out_b);
    for finding in [
        "/message/task/id",
        "/message/task/status/state",
        "missing_kind",
    ] {
        assert!(out_a.contains(finding), "{finding}: {out_a}");
    }
}

#[test]
fn folders_the_interpreter_cannot_run_are_usage_errors_that_say_why() {
    // A types-only folder has no messages to check.
    let types_only = root().join("tests/protocols/ledger");
    let (r, out) = run(&["--spec", types_only.to_str().unwrap(), "x.jsonl"]);
    let e = r.unwrap_err().to_string();
    assert!(e.contains("transport `none`"), "{e}");
    assert!(out.is_empty());
    let proto = root().join("spec/coven");
    let (r, _) = run(&["--spec", "/nonexistent/spec/folder", "x.jsonl"]);
    assert!(r.unwrap_err().to_string().contains("does not exist"));
    let (r, _) = run(&[
        "--spec",
        proto.to_str().unwrap(),
        "--protocol",
        "coven",
        "x.jsonl",
    ]);
    assert_eq!(
        r.unwrap_err().kind(),
        clap::error::ErrorKind::ArgumentConflict
    );
}
