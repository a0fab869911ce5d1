//! `svc diff OLD NEW [--fail-on breaking|additive] [--markdown]`: compare two
//! spec files locally, no server needed.

use std::io::{self, Write};
use std::path::Path;

use crate::cli::{DiffArgs, FailOn};
use crate::output::Output;
use crate::push::Failure;

/// Parses a file with the hub's own parser, reporting `file:line:column`.
pub fn parse_file(path: &Path) -> Result<spec::Spec, Failure> {
    let bytes = std::fs::read(path).map_err(|e| Failure::User(format!("cannot read {}: {e}", path.display())))?;
    spec::parse(&bytes).map_err(|e| match (e.line, e.column) {
        (Some(line), Some(column)) => Failure::User(format!("{}:{line}:{column}: {}", path.display(), e.message)),
        _ => Failure::User(format!("{}: {}", path.display(), e.message)),
    })
}

/// Parses both files at once, the new one on a second thread: parsing is
/// most of the time a diff of two large descriptions takes.
fn parse_pair(old: &Path, new: &Path) -> Result<(spec::Spec, spec::Spec), Failure> {
    std::thread::scope(|scope| {
        let parsing_new = scope.spawn(|| parse_file(new));
        let old = parse_file(old);
        // A panic on the other thread is a bug, not input: report it as
        // such rather than unwinding through the command.
        let new = parsing_new
            .join()
            .unwrap_or_else(|_| Err(Failure::User(format!("parsing {} failed unexpectedly", new.display()))));
        Ok((old?, new?))
    })
}

/// Whether `report` meets the `--fail-on` threshold.
pub fn meets(report: &diff::Report, threshold: FailOn) -> bool {
    match threshold {
        FailOn::Breaking => report.summary.breaking > 0,
        FailOn::Additive => report.summary.breaking + report.summary.additive > 0,
    }
}

/// Writes the human-readable lines of a report, breaking changes first.
/// The last line carries no trailing whitespace.
pub fn write_text(report: &diff::Report, out: &mut dyn Write) -> io::Result<()> {
    use std::fmt::Write as _;
    let mut line = format!(
        "suggested bump: {} ({} breaking, {} additive, {} cosmetic)",
        report.bump.as_str(),
        report.summary.breaking,
        report.summary.additive,
        report.summary.cosmetic
    );
    for change in &report.changes {
        out.write_all(line.as_bytes())?;
        out.write_all(b"\n")?;
        line.clear();
        let operation = change.operation.as_deref().unwrap_or("");
        // Formatting into a String cannot fail.
        let _ = write!(line, "{:<9} {operation:<30} {}: {}", change.kind.as_str(), change.location, change.message);
    }
    out.write_all(line.trim_end().as_bytes())?;
    out.write_all(b"\n")
}

/// Human-readable lines of a report, breaking changes first.
pub fn render_text(report: &diff::Report) -> String {
    let mut text = Vec::new();
    // Writing into memory cannot fail.
    let _ = write_text(report, &mut text);
    String::from_utf8_lossy(&text).into_owned()
}

pub fn run(args: DiffArgs, out: &Output) -> anyhow::Result<()> {
    let (old, new) = parse_pair(&args.old, &args.new)?;
    let report = diff::diff(&old, &new).map_err(|e| Failure::User(e.to_string()))?;
    // The parsed descriptions and the report are large trees and the
    // process is about to end, so they are handed back to the operating
    // system with it instead of being freed one node at a time.
    std::mem::forget(old);
    std::mem::forget(new);
    if out.is_json() {
        out.write_with(|w| {
            serde_json::to_writer(&mut *w, &report)?;
            w.write_all(b"\n")
        });
    } else if args.markdown {
        let title = format!("{} → {}", args.old.display(), args.new.display());
        out.write_with(|w| writeln!(w, "{}", report.to_markdown(&title)));
    } else {
        out.write_with(|w| write_text(&report, w));
    }
    let result = match args.fail_on {
        Some(threshold) if meets(&report, threshold) => {
            Err(Failure::User(format!("the changes meet the --fail-on {} threshold", threshold.as_str())).into())
        }
        _ => Ok(()),
    };
    std::mem::forget(report);
    result
}
