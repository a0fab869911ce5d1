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
    // `DIFF_REPEAT=n` runs the diff n times and reports the fastest, for
    // profiling and for timing on a noisy machine.
    let repeat: usize = std::env::var("DIFF_REPEAT").ok().and_then(|n| n.parse().ok()).unwrap_or(1).max(1);
    let mut elapsed = std::time::Duration::MAX;
    let mut report = None;
    for _ in 0..repeat {
        let started = Instant::now();
        let found = diff::diff(&old, &new)?;
        elapsed = elapsed.min(started.elapsed());
        report = Some(found);
    }
    let report = report.ok_or("no run")?;
    if json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", report.to_markdown("API changes"));
    }
    eprintln!(
        "parse took {parsed:?}; diff took {elapsed:?} (fastest of {repeat}) for {} changes",
        report.changes.len()
    );
    Ok(())
}
