//! `agentwire diagram --spec DIR` on a copy of a test spec outside the repository: the page
//! `gen` writes to diagrams/<module>.md, one Mermaid block per machine, and a located refusal
//! when there is nothing to draw.

use std::path::{Path, PathBuf};
use std::process::Command;

fn agentwire(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_agentwire"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("the agentwire binary runs");
    let text = |b: Vec<u8>| String::from_utf8(b).expect("utf-8 output");
    (
        out.status.code().unwrap_or(-1),
        text(out.stdout),
        text(out.stderr),
    )
}

fn test_spec(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/protocols")
        .join(name)
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

#[test]
fn the_diagrams_are_the_page_gen_writes() {
    let tmp = tempfile::tempdir().unwrap();
    copy_dir(&test_spec("room_chat"), &tmp.path().join("spec/room_chat"));
    let (code, out, err) = agentwire(tmp.path(), &["diagram", "--spec", "spec/room_chat"]);
    assert_eq!(code, 0, "stderr: {err}");
    // One Mermaid block under each machine's heading.
    assert_eq!(out.matches("\n## `").count(), 2, "{out}");
    assert_eq!(
        out.matches("```mermaid\nstateDiagram-v2").count(),
        2,
        "{out}"
    );
    for machine in ["membership", "refusals"] {
        assert!(out.contains(machine), "{machine} missing from:\n{out}");
    }
    let (code, _, err) = agentwire(tmp.path(), &["gen", "--spec", "spec", "--out", "crate"]);
    assert_eq!(code, 0, "stderr: {err}");
    let written = std::fs::read_to_string(tmp.path().join("crate/diagrams/room_chat.md")).unwrap();
    assert_eq!(out, written);
}

#[test]
fn a_spec_without_a_machine_has_nothing_to_draw() {
    let tmp = tempfile::tempdir().unwrap();
    copy_dir(&test_spec("glossary"), &tmp.path().join("glossary"));
    let (code, out, err) = agentwire(tmp.path(), &["diagram", "--spec", "glossary"]);
    assert_eq!(code, 2);
    assert!(out.is_empty(), "{out}");
    assert!(err.contains("declares no state machine"), "{err}");
    let (code, _, err) = agentwire(tmp.path(), &["diagram", "--spec", "missing"]);
    assert_eq!(code, 2);
    assert!(err.contains("missing"), "{err}");
}
