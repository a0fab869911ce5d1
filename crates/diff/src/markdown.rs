//! The Markdown rendering for pull-request comments: a summary line with the
//! bump, then one table per kind, breaking first. Long sections are cut so a
//! comment stays under the code hosts' size limits.

use std::fmt::Write as _;

use crate::{ChangeKind, Report};

/// Rows shown per kind before the rest is summarised.
const MAX_ROWS: usize = 200;

pub(crate) fn render(report: &Report, title: &str) -> String {
    let mut out = String::new();
    let summary = &report.summary;
    let _ = writeln!(out, "## {}\n", one_line(title));
    if report.changes.is_empty() {
        let _ = writeln!(out, "**Suggested bump: {}.** No changes.", report.bump.as_str());
        return out;
    }
    let _ = writeln!(
        out,
        "**Suggested bump: {}.** {} breaking, {} additive, {} cosmetic.",
        report.bump.as_str(),
        summary.breaking,
        summary.additive,
        summary.cosmetic
    );
    for (kind, heading) in
        [(ChangeKind::Breaking, "Breaking"), (ChangeKind::Additive, "Additive"), (ChangeKind::Cosmetic, "Cosmetic")]
    {
        let changes: Vec<_> = report.changes.iter().filter(|change| change.kind == kind).collect();
        if changes.is_empty() {
            continue;
        }
        let _ = writeln!(out, "\n### {heading} ({})\n", changes.len());
        out.push_str("| Rule | Operation | Location | Change |\n|---|---|---|---|\n");
        for change in changes.iter().take(MAX_ROWS) {
            let _ = writeln!(
                out,
                "| `{}` | {} | {} | {} |",
                change.rule,
                change.operation.as_deref().map(code).unwrap_or_default(),
                cell(&change.location),
                cell(&change.message)
            );
        }
        if changes.len() > MAX_ROWS {
            let _ = writeln!(out, "\n… and {} more.", changes.len() - MAX_ROWS);
        }
    }
    out
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Table cells: one line, pipes escaped, Markdown-sensitive characters kept
/// literal.
fn cell(text: &str) -> String {
    one_line(text).replace('|', "\\|")
}

fn code(text: &str) -> String {
    format!("`{}`", one_line(text).replace('`', "'").replace('|', "\\|"))
}
