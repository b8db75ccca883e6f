fn main() {
    let dir = std::env::args().nth(1).unwrap();
    match agentwire_codegen::generate(std::path::Path::new(&dir)) {
        Ok(g) => {
            println!("OK\n{}", g.summary);
            if let Some(out) = std::env::args().nth(2) {
                for f in &g.files {
                    let p = std::path::Path::new(&out).join(&f.path);
                    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
                    std::fs::write(p, f.render("try")).unwrap();
                }
            }
        }
        Err(e) => {
            for e in &e.errors {
                println!("{}", e.one_line());
            }
            println!("ERRORS {}", e.errors.len());
        }
    }
}
