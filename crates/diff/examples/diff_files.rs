//! Diffs two files and prints the Markdown report and the time taken:
//! `cargo run --release -p diff --example diff_files -- OLD NEW`.

use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let (Some(old), Some(new)) = (args.next(), args.next()) else {
        return Err("usage: diff_files OLD NEW".into());
    };
    let old = spec::parse(&std::fs::read(old)?)?;
    let new = spec::parse(&std::fs::read(new)?)?;
    let started = Instant::now();
    let report = diff::diff(&old, &new)?;
    let elapsed = started.elapsed();
    print!("{}", report.to_markdown("API changes"));
    eprintln!("diff took {elapsed:?} for {} changes", report.changes.len());
    Ok(())
}
