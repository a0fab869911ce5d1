//! `svc diff OLD NEW [--fail-on breaking|additive] [--markdown]`: compare two
//! spec files locally, no server needed.

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

/// Whether `report` meets the `--fail-on` threshold.
pub fn meets(report: &diff::Report, threshold: FailOn) -> bool {
    match threshold {
        FailOn::Breaking => report.summary.breaking > 0,
        FailOn::Additive => report.summary.breaking + report.summary.additive > 0,
    }
}

/// Human-readable lines of a report, breaking changes first.
pub fn render_text(report: &diff::Report) -> String {
    let mut text = format!(
        "suggested bump: {} ({} breaking, {} additive, {} cosmetic)\n",
        report.bump.as_str(),
        report.summary.breaking,
        report.summary.additive,
        report.summary.cosmetic
    );
    for change in &report.changes {
        let operation = change.operation.as_deref().unwrap_or("");
        text.push_str(&format!(
            "{:<9} {operation:<30} {}: {}\n",
            change.kind.as_str(),
            change.location,
            change.message
        ));
    }
    text
}

pub fn run(args: DiffArgs, out: &Output) -> anyhow::Result<()> {
    let old = parse_file(&args.old)?;
    let new = parse_file(&args.new)?;
    let report = diff::diff(&old, &new).map_err(|e| Failure::User(e.to_string()))?;
    if args.markdown && !out.is_json() {
        println!("{}", report.to_markdown(&format!("{} → {}", args.old.display(), args.new.display())));
    } else {
        out.emit(render_text(&report).trim_end(), &serde_json::to_value(&report)?);
    }
    match args.fail_on {
        Some(threshold) if meets(&report, threshold) => {
            Err(Failure::User(format!("the changes meet the --fail-on {} threshold", threshold.as_str())).into())
        }
        _ => Ok(()),
    }
}
