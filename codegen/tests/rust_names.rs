//! Spec names that Rust or the generated module already takes are renamed the same way every
//! time, each rename is a note in the `cargo xtask gen` summary, and the JSON keeps the spec's
//! names. (agentwire's `tests/ui/pass/names.rs` compiles the module this spec generates.)

use std::path::Path;

use agentwire_codegen::generate;

fn names_spec() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../agentwire/tests/ui/spec/names")
}

#[test]
fn colliding_types_are_renamed_with_a_note() {
    let g = generate(&names_spec()).unwrap_or_else(|e| {
        panic!(
            "{:?}",
            e.errors.iter().map(|e| e.one_line()).collect::<Vec<_>>()
        )
    });
    for (from, to) in [
        ("Result", "ResultType"),
        ("Option", "OptionType"),
        ("Box", "BoxType"),
        ("Vec", "VecType"),
        ("String", "StringType"),
        ("Some", "SomeType"),
        ("None", "NoneType"),
        ("Ok", "OkType"),
        ("Err", "ErrType"),
        ("ClientRequest", "ClientRequestType"),
        ("ClientNotification", "ClientNotificationType"),
        ("ServerRequest", "ServerRequestType"),
        ("MODULE", "MODULEType"),
        ("SCHEMA", "SCHEMAType"),
        ("ROLES", "ROLESType"),
        ("Message", "MessageType"),
        ("Kind", "KindType"),
        ("Checker", "CheckerType"),
        ("Recorded", "RecordedType"),
        ("decode_type", "DecodeType"),
        ("match", "Match"),
        ("async", "Async"),
        ("str", "Str"),
    ] {
        let note = format!("type `{from}` is ");
        let line = g
            .summary
            .lines()
            .find(|l| l.contains(&note))
            .unwrap_or_else(|| panic!("no note for {from}: {}", g.summary));
        assert!(line.contains(&format!("its Rust type is `{to}`")), "{line}");
    }
    let module = g
        .files
        .iter()
        .find(|f| f.path == "src/names.rs")
        .unwrap()
        .render("a test spec");
    assert!(module.contains("pub struct ResultType {"), "{module}");
    assert!(module.contains("pub self_: String"), "{module}");
    assert!(module.contains("#[serde(rename = \"self\")]"), "{module}");
    assert!(module.contains("pub r#type: String"), "{module}");
    assert!(module.contains("SelfValue"), "{module}");
    // The same spec gives the same names every time.
    let again = generate(&names_spec()).unwrap();
    assert_eq!(again.summary, g.summary);
}
