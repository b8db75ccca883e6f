//! `agentwire new` and the downstream CI recipe, on scaffolds outside the repository: the
//! WebSocket scaffold's `cargo test` passes (the one nested build: it reuses the suite's
//! target directory, lock file and profile, offline), every `agentwire` command of the CI
//! workflow (`docs/downstream-ci.md`, the file the scaffold gets) passes on both scaffolds, and
//! the same commands fail when the spec drifts from the generated crate and the document.

use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .into()
}

/// Runs the binary in `dir`; returns (exit status, stdout, stderr).
fn agentwire(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_agentwire"))
        .current_dir(dir)
        .args(args)
        .output()
        .expect("the binary runs");
    (
        out.status.code().expect("exited normally"),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// `agentwire new NAME --transport KIND` in a fresh temporary folder, using this checkout.
fn scaffold(name: &str, kind: &str) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let repo = repo();
    let (code, out, err) = agentwire(
        tmp.path(),
        &[
            "new",
            name,
            "--transport",
            kind,
            "--agentwire",
            repo.to_str().unwrap(),
        ],
    );
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.starts_with(&format!("created {name} ({kind} protocol `{name}`")),
        "{out}"
    );
    assert!(
        out.ends_with(&format!("next: cd {name} && cargo test\n")),
        "{out}"
    );
    let dir = tmp.path().join(name);
    (tmp, dir)
}

/// The `run:` lines of the scaffold's workflow.
fn workflow_commands(dir: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(dir.join(".github/workflows/agentwire.yml")).unwrap();
    text.lines()
        .filter_map(|l| l.trim().strip_prefix("run: "))
        .map(str::to_owned)
        .collect()
}

/// Runs every `agentwire` command of the workflow in `dir`, each expected to exit `code`;
/// returns how many ran.
fn run_recipe(dir: &Path, code: i32) -> usize {
    let mut ran = 0;
    for line in workflow_commands(dir) {
        let Some(args) = line.strip_prefix("agentwire ") else {
            continue;
        };
        let args: Vec<&str> = args.split_whitespace().collect();
        let (got, out, err) = agentwire(dir, &args);
        assert_eq!(got, code, "`{line}`:\n{out}{err}");
        ran += 1;
    }
    ran
}

#[test]
fn the_docs_recipe_is_the_workflow_the_scaffold_gets() {
    let doc = std::fs::read_to_string(repo().join("docs/downstream-ci.md")).unwrap();
    let template = std::fs::read_to_string(repo().join("cli/src/new/workflow.yml")).unwrap();
    let block = doc
        .split("```yaml\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .expect("docs/downstream-ci.md has a yaml block");
    assert_eq!(block, template.replace("@NAME@", "chat"));
}

#[test]
fn the_websocket_scaffold_passes_its_test_and_its_ci_recipe() {
    let (_tmp, dir) = scaffold("chat", "websocket");
    let commands = workflow_commands(&dir);
    assert!(commands.iter().any(|c| c == "cargo test"), "{commands:?}");
    assert_eq!(run_recipe(&dir, 0), 4, "{commands:?}");

    // `cargo test`, offline with the suite's lock file, target directory and profile, so only
    // the scaffold and what differs from the workspace's build is compiled.
    std::fs::copy(repo().join("Cargo.lock"), dir.join("Cargo.lock")).unwrap();
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo().join("target"));
    let out = Command::new(env!("CARGO"))
        .current_dir(&dir)
        .env("CARGO_TARGET_DIR", &target)
        .args(["test", "--offline", "--config"])
        .arg(r#"profile.dev.debug="line-tables-only""#)
        .arg("--config")
        .arg(r#"profile.dev.package."*".debug=false"#)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}{stderr}");
    assert!(
        stdout.contains("test a_question_is_answered_over_the_generated_skeletons ... ok"),
        "{stdout}"
    );
    assert!(
        stdout.contains("test a_bad_message_is_refused_with_its_pointer_and_rule ... ok"),
        "{stdout}"
    );
    assert!(!stderr.contains("warning"), "{stderr}");

    // The checked-in crate `agentwire gen` wrote builds on its own: a crate outside the
    // scaffold's workspace whose manifest names agentwire's crates in this checkout.
    let protocols = dir.join("protocols");
    let manifest = std::fs::read_to_string(protocols.join("Cargo.toml")).unwrap();
    let runtime = format!(
        "\nagentwire-runtime = {{ path = \"{}/runtime\" }}\n",
        repo().canonicalize().unwrap().display()
    );
    assert!(manifest.contains(&runtime), "{manifest}");
    std::fs::copy(repo().join("Cargo.lock"), protocols.join("Cargo.lock")).unwrap();
    let out = Command::new(env!("CARGO"))
        .current_dir(&protocols)
        .env("CARGO_TARGET_DIR", &target)
        .args(["build", "--offline", "--features", "full", "--config"])
        .arg(r#"profile.dev.debug="line-tables-only""#)
        .arg("--config")
        .arg(r#"profile.dev.package."*".debug=false"#)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("Compiling protocols v0.1.0"), "{stderr}");
    assert!(!stderr.contains("warning"), "{stderr}");
}

#[test]
fn the_jsonrpc_scaffold_passes_its_ci_recipe_and_the_recipe_catches_drift() {
    let (_tmp, dir) = scaffold("rpc", "jsonrpc");
    // lint, gen --check, check-docs and trace check --spec (the interpreter reads JSON-RPC).
    assert_eq!(run_recipe(&dir, 0), 4);

    // The spec changes and nothing else does: the generated crate is stale and the
    // document's types differ, and the recipe says so.
    let types = dir.join("spec/rpc/messages.ts");
    let text = std::fs::read_to_string(&types).unwrap();
    let edited = text.replace(
        "interface AskResult {\n  text: string;\n}",
        "interface AskResult {\n  text: string;\n  confidence?: number;\n}",
    );
    assert_ne!(edited, text);
    std::fs::write(&types, edited).unwrap();
    let (code, out, _) = agentwire(
        &dir,
        &["gen", "--spec", "spec", "--out", "protocols", "--check"],
    );
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("stale: protocols/src/rpc.rs"), "{out}");
    let (code, out, _) = agentwire(&dir, &["check-docs", "--spec", "spec/rpc", "docs/rpc.md"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("docs/rpc.md:"), "{out}");
    assert!(out.contains("confidence"), "{out}");
}

#[test]
fn new_refuses_bad_names_and_a_folder_in_use() {
    let tmp = tempfile::tempdir().unwrap();
    let (code, _, err) = agentwire(tmp.path(), &["new", "Chat", "--transport", "websocket"]);
    assert_eq!(code, 2);
    assert!(err.contains("NAME `Chat` must be lowercase"), "{err}");
    std::fs::create_dir_all(tmp.path().join("chat")).unwrap();
    std::fs::write(tmp.path().join("chat/keep.txt"), "mine").unwrap();
    let (code, _, err) = agentwire(tmp.path(), &["new", "chat", "--transport", "websocket"]);
    assert_eq!(code, 2);
    assert!(err.contains("chat exists and is not empty"), "{err}");
    assert_eq!(
        std::fs::read_to_string(tmp.path().join("chat/keep.txt")).unwrap(),
        "mine"
    );
}
