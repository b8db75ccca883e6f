//! exploring
use std::collections::{BTreeMap, BTreeSet};
use agentwire_codegen::diag::SourceFile;
use agentwire_codegen::ir::{Field, Ty, TypeDef, TypeKind};
use agentwire_tests::peers::{ensure_installed, target_dir};

fn sdk() -> std::path::PathBuf {
    ensure_installed();
    target_dir().join("peers/node/node_modules/@agentclientprotocol/sdk")
}

type Types = BTreeMap<String, TypeDef>;

struct Cmp<'a> {
    ts: &'a Types,
    js: &'a Types,
    seen: BTreeSet<(String, String)>,
}

impl Cmp<'_> {
    fn ty(&mut self, a: &Ty, b: &Ty, at: &str) -> Result<(), String> {
        match (a, b) {
            (Ty::Named(x), Ty::Named(y)) if x == y => Ok(()),
            (Ty::Named(x), Ty::Named(y)) => {
                let (Some(dx), Some(dy)) = (self.ts.get(x), self.js.get(y)) else {
                    return Err(format!("{at}: `{x}` vs `{y}`"));
                };
                if !(dx.inline && dy.inline) {
                    return Err(format!("{at}: `{x}` vs `{y}`"));
                }
                if !self.seen.insert((x.clone(), y.clone())) {
                    return Ok(());
                }
                self.def(dx, dy, &format!("{at}({x}~{y})"))
            }
            (Ty::Array(x), Ty::Array(y)) | (Ty::Map(x), Ty::Map(y)) | (Ty::Nullable(x), Ty::Nullable(y)) => self.ty(x, y, at),
            _ if a == b => Ok(()),
            _ => Err(format!("{at}: {a:?} vs {b:?}")),
        }
    }

    fn fields(&mut self, a: &[Field], b: &[Field], at: &str) -> Result<(), String> {
        let an: Vec<&str> = a.iter().map(|f| f.name.as_str()).collect();
        let bn: Vec<&str> = b.iter().map(|f| f.name.as_str()).collect();
        if an != bn {
            return Err(format!("{at}: fields {an:?} vs {bn:?}"));
        }
        for (x, y) in a.iter().zip(b) {
            let at = format!("{at}.{}", x.name);
            if x.optional != y.optional {
                return Err(format!("{at}: optional {} vs {}", x.optional, y.optional));
            }
            if x.constraints != y.constraints {
                return Err(format!("{at}: {:?} vs {:?}", x.constraints, y.constraints));
            }
            self.ty(&x.ty, &y.ty, &at)?;
        }
        Ok(())
    }

    fn def(&mut self, a: &TypeDef, b: &TypeDef, at: &str) -> Result<(), String> {
        match (&a.open, &b.open) {
            (None, None) => {}
            (Some(x), Some(y)) => self.ty(x, y, &format!("{at}[open]"))?,
            _ => return Err(format!("{at}: open {:?} vs {:?}", a.open, b.open)),
        }
        match (&a.kind, &b.kind) {
            (TypeKind::Struct(x), TypeKind::Struct(y)) => self.fields(x, y, at),
            (TypeKind::Enum(x), TypeKind::Enum(y)) if x == y => Ok(()),
            (TypeKind::Union { tag: t1, variants: v1 }, TypeKind::Union { tag: t2, variants: v2 }) => {
                if t1 != t2 || v1.len() != v2.len() {
                    return Err(format!("{at}: union {t1} {} vs {t2} {}", v1.len(), v2.len()));
                }
                for (x, y) in v1.iter().zip(v2) {
                    if x.value != y.value {
                        return Err(format!("{at}: value {} vs {}", x.value, y.value));
                    }
                    self.ty(&Ty::Named(x.type_name.clone()), &Ty::Named(y.type_name.clone()), &format!("{at}<{}>", x.value))?;
                }
                Ok(())
            }
            (TypeKind::Alias { target: x, constraints: c1 }, TypeKind::Alias { target: y, constraints: c2 }) => {
                if c1 != c2 {
                    return Err(format!("{at}: {c1:?} vs {c2:?}"));
                }
                self.ty(x, y, at)
            }
            (TypeKind::Untagged(x), TypeKind::Untagged(y)) if x.len() == y.len() => {
                for (i, (p, q)) in x.iter().zip(y).enumerate() {
                    self.ty(p, q, &format!("{at}|{i}"))?;
                }
                Ok(())
            }
            (x, y) => Err(format!("{at}: {x:?}\n   vs {y:?}")),
        }
    }
}

#[test]
fn explore() {
    let ts = SourceFile::read(&sdk().join("dist/v1/schema/types.gen.d.ts")).unwrap();
    let (tst, e) = agentwire_codegen::front::ts::load_doc_types(&ts, "types.gen.d.ts");
    for e in &e.errors { println!("TS: {}", e.one_line()); }
    std::process::Command::new("python3").args(["-c", &format!("import json;d=json.load(open('{}'));[d['$defs'].pop(b) for b in ['CreateElicitationRequest','SetSessionConfigOptionRequest','CreateElicitationResponse','ElicitationFormMode','ElicitationUrlMode']];json.dump(d,open('/tmp/acpx/s.json','w'),indent=1)", sdk().join("schema/v1/schema.json").display())]).status().unwrap();
    let js = SourceFile::read(std::path::Path::new("/tmp/acpx/s.json")).unwrap();
    let jst = match agentwire_codegen::front::jsonschema::load_types(&js, "schema.json") {
        Ok(t) => t,
        Err(e) => { for e in &e.errors { println!("JS: {}", e.one_line()); } panic!() }
    };
    let mut cmp = Cmp { ts: &tst, js: &jst, seen: BTreeSet::new() };
    let mut equal = 0;
    for (name, d) in &jst {
        if d.inline { continue; }
        let Some(t) = tst.get(name) else { println!("only JS: {name}"); continue };
        match cmp.def(t, d, name) {
            Ok(()) => equal += 1,
            Err(e) => println!("DIFF {e}"),
        }
    }
    println!("equal {equal}");
}
