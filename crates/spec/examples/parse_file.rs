//! Parses one spec file and prints its format, operation count and the time
//! parsing took; the team's benchmark script calls it.
//!
//! Usage: `cargo run --release -p spec --example parse_file -- FILE`

use std::process::ExitCode;
use std::time::Instant;

fn main() -> ExitCode {
    let Some(path) = std::env::args_os().nth(1) else {
        eprintln!("usage: parse_file FILE");
        return ExitCode::from(2);
    };
    let bytes = match std::fs::read(&path) {
        Ok(bytes) => bytes,
        Err(err) => {
            eprintln!("cannot read {}: {err}", path.to_string_lossy());
            return ExitCode::from(2);
        }
    };
    let started = Instant::now();
    let result = spec::parse(&bytes);
    let elapsed_ms = started.elapsed().as_secs_f64() * 1000.0;
    match result {
        Ok(parsed) => {
            println!(
                "format={} version={} operations={} schemas={} bytes={} elapsed_ms={elapsed_ms:.1}",
                parsed.format,
                parsed.source_version,
                parsed.operation_count(),
                parsed.schemas.len(),
                bytes.len(),
            );
            ExitCode::SUCCESS
        }
        Err(err) => {
            println!("error kind={} bytes={} elapsed_ms={elapsed_ms:.1} message={err}", err.kind, bytes.len());
            ExitCode::from(1)
        }
    }
}
