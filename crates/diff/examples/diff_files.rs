//! Diffs two files and prints the Markdown report (or the JSON one with
//! `--json`) and the time each phase took:
//! `cargo run --release -p diff --example diff_files -- [--json] OLD NEW`.

use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let json = args.first().is_some_and(|arg| arg == "--json");
    if json {
        args.remove(0);
    }
    let [old, new] = args.as_slice() else {
        return Err("usage: diff_files [--json] OLD NEW".into());
    };
    let (old_bytes, new_bytes) = (std::fs::read(old)?, std::fs::read(new)?);
    let started = Instant::now();
    let old = spec::parse(&old_bytes)?;
    let new = spec::parse(&new_bytes)?;
    let parsed = started.elapsed();
    let started = Instant::now();
    let report = diff::diff(&old, &new)?;
    let elapsed = started.elapsed();
    if json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", report.to_markdown("API changes"));
    }
    eprintln!("parse took {parsed:?}; diff took {elapsed:?} for {} changes", report.changes.len());
    Ok(())
}
