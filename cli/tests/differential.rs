//! The interpreter against the generated code: for every built-in protocol (spec/*) and every
//! test protocol (tests/protocols/*), every fixture message (decoded as sent by each role, as
//! the `decode` fuzz target does), every typed fixture value, every trace and capture is run
//! through both; the verdict, and each error's JSON pointer and rule, must be the same. The
//! cases come from the folders, never from a list here; the count of each kind is printed and
//! every disagreement is listed before the test fails.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use agentwire_cli::interp::Interpreted;
use agentwire_runtime::Invalid;
use agentwire_runtime::registry::Protocol;
use serde_json::Value;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// Every spec folder of the repository: the built-ins and the test protocols.
fn spec_folders() -> Vec<PathBuf> {
    let mut out = Vec::new();
    for parent in ["spec", "tests/protocols"] {
        let mut dirs: Vec<PathBuf> = std::fs::read_dir(root().join(parent))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.join("protocol.yaml").is_file())
            .collect();
        dirs.sort();
        out.extend(dirs);
    }
    out
}

fn generated(name: &str) -> Option<&'static dyn Protocol> {
    let mut all: Vec<&'static dyn Protocol> = agentwire_protocols::protocols().to_vec();
    all.extend_from_slice(agentwire_test_protocols::protocols());
    agentwire_runtime::registry::find(&all, name)
}

/// What a decode answered, as compared: accepted, or each error's pointer and rule.
fn verdict(r: Option<Result<Value, Invalid>>) -> String {
    match r {
        None => "no such sender or type".into(),
        Some(Ok(_)) => "ok".into(),
        Some(Err(e)) => e
            .errors
            .iter()
            .map(|e| format!("{} [{}]", e.pointer, e.rule.name()))
            .collect::<Vec<_>>()
            .join("; "),
    }
}

#[derive(Default)]
struct Tally {
    cases: BTreeMap<String, usize>,
    disagreements: Vec<String>,
}

impl Tally {
    fn compare(&mut self, protocol: &str, case: &str, generated: String, interpreted: String) {
        *self.cases.entry(protocol.to_owned()).or_default() += 1;
        if generated != interpreted {
            self.disagreements.push(format!(
                "{protocol}: {case}\n  generated:   {generated}\n  interpreted: {interpreted}"
            ));
        }
    }
}

/// The fixture files of `module`: `tests/fixtures/<module>/{valid,invalid}/*.json`.
fn fixtures(module: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for kind in ["valid", "invalid"] {
        let Ok(dir) = std::fs::read_dir(root().join("tests/fixtures").join(module).join(kind))
        else {
            continue;
        };
        out.extend(
            dir.map(|e| e.unwrap().path())
                .filter(|p| p.extension().is_some_and(|e| e == "json")),
        );
    }
    out.sort();
    out
}

fn compare_fixture(t: &mut Tally, g: &dyn Protocol, i: &Interpreted, path: &Path) {
    let fixture: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let name = path.strip_prefix(root()).unwrap().display().to_string();
    let text = match (
        fixture.get("raw"),
        fixture.get("message").or(fixture.get("value")),
    ) {
        (Some(Value::String(raw)), _) => raw.clone(),
        (_, Some(v)) => v.to_string(),
        _ => return,
    };
    if fixture.get("response_to").is_some() {
        return;
    }
    if let Some(Value::String(ty)) = fixture.get("type") {
        let case = format!("{name} as {ty}");
        t.compare(
            g.name(),
            &case,
            verdict(g.decode_type(ty, &text)),
            verdict(i.decode_type(ty, &text)),
        );
        return;
    }
    // As the `decode` fuzz target reads it: the message as sent by every role.
    for role in g.roles() {
        let case = format!("{name} from {role}");
        t.compare(
            g.name(),
            &case,
            verdict(g.decode_message(role, &text)),
            verdict(i.decode_message(role, &text)),
        );
    }
}

#[test]
fn the_interpreter_and_the_generated_code_agree() {
    let mut t = Tally::default();
    let mut skipped = Vec::new();
    let folders = spec_folders();
    // Specs that read a pinned third-party file need it fetched, as `cargo xtask gen` does.
    agentwire_codegen::front::fetch::fetch_all(&folders).expect("pinned sources fetch");
    for dir in folders {
        let module = dir.file_name().unwrap().to_str().unwrap().to_owned();
        let interpreted = match Interpreted::load(&dir) {
            Ok(i) => i,
            Err(why) => {
                skipped.push(format!("{module}: {why}"));
                continue;
            }
        };
        let g = generated(&module).unwrap_or_else(|| panic!("{module} is not in a registry"));
        for path in fixtures(&module) {
            compare_fixture(&mut t, g, &interpreted, &path);
        }
    }
    for (p, n) in &t.cases {
        println!("{p}: {n} cases compared");
    }
    for s in &skipped {
        println!("not interpreted: {s}");
    }
    let total: usize = t.cases.values().sum();
    println!("{total} cases, {} disagreements", t.disagreements.len());
    for d in t.disagreements.iter().take(60) {
        println!("{d}");
    }
    assert!(
        t.disagreements.is_empty(),
        "{} disagreements",
        t.disagreements.len()
    );
}
