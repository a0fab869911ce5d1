//! Generates an SDK from a spec file: `cargo run -p sdkgen --example sdkgen
//! -- SPEC typescript|python [OUT]`. Prints the generation time on stderr.

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(path), Some(language)) = (args.first(), args.get(1).and_then(|l| sdkgen::Language::parse(l))) else {
        eprintln!("usage: sdkgen SPEC typescript|python [OUT]");
        return ExitCode::from(2);
    };
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(err) => {
            eprintln!("{path}: {err}");
            return ExitCode::from(2);
        }
    };
    let started = std::time::Instant::now();
    let spec = match spec::parse(&bytes) {
        Ok(spec) => spec,
        Err(err) => {
            eprintln!("{path}: {err}");
            return ExitCode::from(1);
        }
    };
    let parsed = started.elapsed();
    let source = match sdkgen::generate(&spec, language) {
        Ok(source) => source,
        Err(err) => {
            eprintln!("{path}: {err}");
            return ExitCode::from(1);
        }
    };
    eprintln!("parse {:?}, generate {:?}, {} bytes", parsed, started.elapsed() - parsed, source.len());
    let written = match args.get(2) {
        Some(out) => std::fs::write(out, source),
        None => {
            use std::io::Write as _;
            std::io::stdout().write_all(source.as_bytes())
        }
    };
    if let Err(err) = written {
        eprintln!("write: {err}");
        return ExitCode::from(2);
    }
    ExitCode::SUCCESS
}
