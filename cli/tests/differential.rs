//! The interpreter against the generated code: for every built-in protocol (spec/*) and every
//! test protocol (tests/protocols/*), protobuf ones included, every fixture message (decoded
//! as sent by each role, as the `decode` fuzz target does), every typed fixture value, every
//! trace and capture is run through both; the verdict, and each error's JSON pointer and rule,
//! must be the same. The cases come from the folders, never from a list here; the count of
//! each kind is printed and every disagreement is listed before the test fails.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use agentwire_cli::interp::Interpreted;
use agentwire_codegen::ir::Field;
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
    // A response, typed by the method of the request it answers.
    if let Some(Value::String(method)) = fixture.get("response_to") {
        let case = format!("{name} as a response to {method}");
        t.compare(
            g.name(),
            &case,
            verdict(g.decode_response(method, &text)),
            verdict(i.decode_response(method, &text)),
        );
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

/// The trace folders of `module`: its fixtures' (and their subfolders, one per version where a
/// protocol has several) and, for a test protocol, its own.
fn trace_dirs(dir: &Path, module: &str) -> Vec<PathBuf> {
    let fixtures = root().join("tests/fixtures").join(module).join("traces");
    let mut versions: Vec<PathBuf> = std::fs::read_dir(&fixtures)
        .into_iter()
        .flatten()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    versions.sort();
    [
        fixtures,
        root().join("tests/fixtures").join(module).join("captures"),
        dir.join("traces"),
    ]
    .into_iter()
    .chain(versions)
    .filter(|d| d.is_dir())
    .collect()
}

/// `agentwire trace check` with `which` (`--protocol NAME` or `--spec DIR`) and `rest`, its
/// JSON output as compared: a schema finding's sentence is left out (the pointer and rule
/// stay), everything else is kept.
fn check(which: [&str; 2], rest: &[String]) -> Vec<Value> {
    let mut registry: Vec<&dyn Protocol> = agentwire_protocols::protocols().to_vec();
    registry.extend_from_slice(agentwire_test_protocols::protocols());
    let mut args: Vec<String> = [
        "agentwire",
        "trace",
        "check",
        which[0],
        which[1],
        "--format",
        "json",
    ]
    .map(str::to_owned)
    .to_vec();
    args.extend_from_slice(rest);
    let mut out = Vec::new();
    let code = match agentwire_cli::run(&registry, &args, &mut out) {
        Ok(code) => code.to_string(),
        Err(e) => format!("usage error: {}", e.kind()),
    };
    let mut lines: Vec<Value> = String::from_utf8(out)
        .unwrap()
        .lines()
        .map(|l| {
            let mut v: Value = serde_json::from_str(l).unwrap();
            if v["kind"] == "field"
                && let Some(o) = v.as_object_mut()
            {
                o.remove("text");
                o.remove("message");
            }
            v
        })
        .collect();
    lines.push(Value::String(format!("exit {code}")));
    lines
}

/// Every trace and capture of `module` through both checkers; each file is one case.
fn compare_traces(t: &mut Tally, g: &dyn Protocol, dir: &Path) {
    let spec = dir.display().to_string();
    for folder in trace_dirs(dir, g.name()) {
        let mut files: Vec<PathBuf> = std::fs::read_dir(&folder)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        for f in files
            .iter()
            .filter(|f| f.extension().is_some_and(|e| e == "jsonl"))
        {
            let rest = [f.display().to_string()];
            let case = f.strip_prefix(root()).unwrap().display().to_string();
            let (a, b) = (
                check(["--protocol", g.name()], &rest),
                check(["--spec", &spec], &rest),
            );
            t.compare(g.name(), &case, format!("{a:?}"), format!("{b:?}"));
        }
        // Captures of one connection: `<name>.<role>.bin` (or `<role>.bin`), one per sender.
        let mut captures: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for f in files
            .iter()
            .filter(|f| f.extension().is_some_and(|e| e == "bin"))
        {
            let stem = f.file_stem().unwrap().to_str().unwrap();
            let (name, role) = stem.rsplit_once('.').unwrap_or(("", stem));
            let entry = captures.entry(name.to_owned()).or_default();
            entry.extend([
                "--from".to_owned(),
                role.to_owned(),
                f.display().to_string(),
            ]);
        }
        for (name, rest) in captures {
            let case = format!(
                "{} capture {name}",
                folder.strip_prefix(root()).unwrap().display()
            );
            let (a, b) = (
                check(["--protocol", g.name()], &rest),
                check(["--spec", &spec], &rest),
            );
            t.compare(g.name(), &case, format!("{a:?}"), format!("{b:?}"));
        }
    }
}

/// The `checkers` fuzz target's seeds: each fixture message as a one-line trace, all of a
/// protocol in one run (each file is a stream of its own), one case per fixture.
fn compare_fixture_traces(t: &mut Tally, g: &dyn Protocol, dir: &Path) {
    let tmp = tempfile::tempdir().unwrap();
    let mut rest = Vec::new();
    for path in fixtures(g.name()) {
        let fixture: Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let (Some(from), Some(message)) = (fixture.get("from"), fixture.get("message")) else {
            continue;
        };
        if fixture.get("response_to").is_some() {
            continue;
        }
        let line = serde_json::json!({"from": from, "message": message}).to_string();
        let file = tmp
            .path()
            .join(path.file_name().unwrap())
            .with_extension("jsonl");
        std::fs::write(&file, line).unwrap();
        rest.push(file.display().to_string());
    }
    if rest.is_empty() {
        return;
    }
    let spec = dir.display().to_string();
    let (a, b) = (
        check(["--protocol", g.name()], &rest),
        check(["--spec", &spec], &rest),
    );
    // Each stream's findings are one case; the summary and exit status another.
    for file in &rest {
        let of = |lines: &[Value]| -> String {
            let mine: Vec<&Value> = lines
                .iter()
                .filter(|l| l["file"] == file.as_str())
                .collect();
            format!("{mine:?}")
        };
        t.compare(g.name(), &format!("{file} as a trace"), of(&a), of(&b));
    }
    let rest_of = |lines: &[Value]| -> String {
        let others: Vec<&Value> = lines.iter().filter(|l| l.get("file").is_none()).collect();
        format!("{others:?}")
    };
    t.compare(
        g.name(),
        "fixtures as traces: summary",
        rest_of(&a),
        rest_of(&b),
    );
}

/// Member values of every JSON type, and the spellings ProtoJSON gives numbers (as strings,
/// out of range, not a number), bytes, timestamps and durations: what the probes set a field to.
const PROBES: &[&str] = &[
    "null",
    "true",
    "0",
    "-1",
    "1.5",
    "4294967296",
    "\"x\"",
    "\"1\"",
    "\"-1\"",
    "\"NaN\"",
    "\"AAAA\"",
    "\"2025-01-01T00:00:00Z\"",
    "\"1.5s\"",
    "[]",
    "[null]",
    "[1]",
    "[\"x\"]",
    "{}",
    "{\"x\": 1}",
];

/// The keys a probe sets on an object of type `def`: each field's, a protobuf oneof's cases
/// instead of the oneof, and a protobuf field's lowerCamelCase spelling as well.
fn probe_keys(
    types: &agentwire_cli::interp::Types,
    fields: &[Field],
) -> Vec<(String, Vec<String>)> {
    use agentwire_codegen::ir::TypeKind;
    let mut out = Vec::new();
    for f in fields {
        let cases =
            f.ty.named()
                .and_then(|n| match &types.protocol.types.get(n)?.kind {
                    TypeKind::Oneof { cases, .. } => Some(cases.clone()),
                    _ => None,
                });
        for f in cases.unwrap_or_else(|| vec![f.clone()]) {
            // An enum field is probed with its first value too.
            let mut extra = Vec::new();
            if let Some(TypeKind::Enum(values)) =
                f.ty.named()
                    .and_then(|n| types.protocol.types.get(n))
                    .map(|d| &d.kind)
                && let Some(v) = values.first()
            {
                extra.push(Value::String(v.clone()).to_string());
            }
            let camel = lower_camel(&f.name);
            if camel != f.name {
                out.push((camel, extra.clone()));
            }
            out.push((f.name.clone(), extra));
        }
    }
    out
}

fn lower_camel(name: &str) -> String {
    let mut out = String::new();
    let mut upper = false;
    for c in name.chars() {
        match c {
            '_' => upper = true,
            c if upper => {
                out.extend(c.to_uppercase());
                upper = false;
            }
            c => out.push(c),
        }
    }
    out
}

/// Probes every object type both sides decode by name: the type's own empty object, then
/// each key set to each of [`PROBES`], then two keys at once (a oneof's two cases).
fn compare_probes(t: &mut Tally, g: &dyn Protocol, i: &Interpreted) {
    use agentwire_codegen::ir::TypeKind;
    let types = i.types();
    for (name, def) in &types.protocol.types {
        let TypeKind::Struct(fields) = &def.kind else {
            continue;
        };
        if g.decode_type(name, "{}").is_none() {
            continue;
        }
        let keys = probe_keys(types, fields);
        let mut texts = vec!["{}".to_owned()];
        for (key, extra) in &keys {
            let key = Value::String(key.clone()).to_string();
            for probe in PROBES
                .iter()
                .copied()
                .chain(extra.iter().map(String::as_str))
            {
                texts.push(format!("{{{key}: {probe}}}"));
            }
        }
        for pair in keys.windows(2) {
            let (a, b) = (&pair[0].0, &pair[1].0);
            texts.push(format!("{{{a:?}: {{}}, {b:?}: {{}}}}"));
        }
        for text in texts {
            let case = format!("probe {name} {text}");
            t.compare(
                g.name(),
                &case,
                verdict(g.decode_type(name, &text)),
                verdict(i.decode_type(name, &text)),
            );
        }
    }
}

#[test]
fn the_interpreter_and_the_generated_code_agree() {
    let mut t = Tally::default();
    let mut skipped = Vec::new();
    let mut interpreted_names = Vec::new();
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
        interpreted_names.push(module.clone());
        let g = generated(&module).unwrap_or_else(|| panic!("{module} is not in a registry"));
        for path in fixtures(&module) {
            compare_fixture(&mut t, g, &interpreted, &path);
        }
        compare_traces(&mut t, g, &dir);
        compare_fixture_traces(&mut t, g, &dir);
        compare_probes(&mut t, g, &interpreted);
    }
    for (p, n) in &t.cases {
        println!("{p}: {n} cases compared");
    }
    for s in &skipped {
        println!("not interpreted: {s}");
    }
    // Only folders without messages (no transport) are left out; every protocol with a
    // transport, JSON, JSON-RPC and protobuf alike, is compared.
    for s in &skipped {
        assert!(
            s.contains("has transport `none`"),
            "the interpreter refused a protocol with messages: {s}"
        );
    }
    // Every folder the interpreter runs was compared on something.
    for name in &interpreted_names {
        assert!(
            t.cases.get(name).is_some_and(|n| *n > 0),
            "{name}: no case compared"
        );
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
