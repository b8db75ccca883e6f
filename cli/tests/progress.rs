//! Progress on long work goes to standard error only: `gen --progress` names each spec folder
//! as it is generated, `trace check --progress` writes a `progress:` line a second on a long
//! input when standard error is not a terminal; standard output is the same with or without
//! it, and without the flag (standard error not a terminal, as here) nothing is shown.

use std::path::{Path, PathBuf};
use std::process::Command;

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

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .into()
}

/// A temporary folder with `spec/<name>/` copies of two test protocols' spec files.
fn two_specs() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    for name in ["room_chat", "kv_rpc"] {
        let from = repo().join("tests/protocols").join(name);
        let to = tmp.path().join("spec").join(name);
        std::fs::create_dir_all(&to).unwrap();
        for file in ["protocol.yaml", "messages.ts", "machine.yaml"] {
            std::fs::copy(from.join(file), to.join(file)).unwrap();
        }
    }
    tmp
}

#[test]
fn gen_names_each_spec_folder_on_stderr_only_when_asked() {
    let tmp = two_specs();
    let dir = tmp.path();
    let command = [
        "gen",
        "--spec",
        "spec/kv_rpc",
        "spec/room_chat",
        "--out",
        "crates/p",
    ];
    let (code, quiet_out, quiet_err) = agentwire(dir, &command);
    assert_eq!(code, 0, "{quiet_out}{quiet_err}");
    assert!(!quiet_err.contains("generating"), "{quiet_err}");
    let mut with = command.to_vec();
    with.push("--progress");
    let (code, out, err) = agentwire(dir, &with);
    assert_eq!(code, 0, "{out}{err}");
    assert!(err.contains("[1/2] generating spec/kv_rpc\n"), "{err}");
    assert!(err.contains("[2/2] generating spec/room_chat\n"), "{err}");
    assert!(!out.contains("generating"), "{out}");
    // The second run found everything written by the first.
    assert!(out.starts_with("wrote 0 file(s) in crates/p"), "{out}");
}

#[test]
fn trace_check_writes_progress_lines_to_stderr_and_leaves_stdout_alone() {
    let tmp = tempfile::tempdir().unwrap();
    let trace = tmp.path().join("long.jsonl");
    let ask = r#"{"from":"client","message":{"jsonrpc":"2.0","id":1,"method":"store/open","params":{"name":"s"}}}"#;
    let answer = r#"{"from":"server","message":{"jsonrpc":"2.0","id":1,"result":{"handle":"h1"}}}"#;
    let spec = repo().join("tests/protocols/kv_rpc");
    let spec = spec.to_str().unwrap();
    // Long enough to take over a second: a faster machine gets a longer trace.
    for pairs in [25_000, 100_000, 400_000] {
        std::fs::write(&trace, format!("{ask}\n{answer}\n").repeat(pairs)).unwrap();
        let args = ["trace", "check", "--spec", spec, "long.jsonl"];
        let (code, quiet_out, quiet_err) = agentwire(tmp.path(), &args);
        assert_eq!(code, 0, "{quiet_out}{quiet_err}");
        assert!(quiet_err.is_empty(), "{quiet_err}");
        let mut with = args.to_vec();
        with.push("--progress");
        let (code, out, err) = agentwire(tmp.path(), &with);
        assert_eq!(code, 0, "{out}{err}");
        assert_eq!(out, quiet_out);
        assert!(
            out.starts_with(&format!("ok: {} message(s)", 2 * pairs)),
            "{out}"
        );
        if err.is_empty() {
            continue;
        }
        for line in err.lines() {
            assert!(line.starts_with("progress: long.jsonl: "), "{err}");
            assert!(line.ends_with("MB read, 0 finding(s)"), "{err}");
        }
        return;
    }
    panic!("no progress line on a trace of 800000 messages");
}
