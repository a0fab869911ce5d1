//! The figures of the search evaluation for one API and half, shared by its
//! two runners (`crates/hub-http/tests/it/search_eval.rs` through the hub,
//! `crates/hub-core/examples/search-eval.rs` on the ranking alone).

/// Recall@1, recall@3, reciprocal ranks and, when judged, citations.
#[derive(Default, Clone, Copy)]
pub struct Tally {
    questions: usize,
    at1: usize,
    at3: usize,
    reciprocal: f64,
    judged: usize,
    cited: usize,
}

impl Tally {
    /// One question: the rank of the first expected operation among the
    /// hits (1-based), and whether an answer cited one (when answers are
    /// judged).
    pub fn add(&mut self, rank: Option<usize>, cited: Option<bool>) {
        self.questions += 1;
        self.at1 += usize::from(rank == Some(1));
        self.at3 += usize::from(rank.is_some_and(|r| r <= 3));
        self.reciprocal += rank.map_or(0.0, |r| 1.0 / r as f64);
        if let Some(cited) = cited {
            self.judged += 1;
            self.cited += usize::from(cited);
        }
    }

    pub fn merge(&mut self, other: &Self) {
        self.questions += other.questions;
        self.at1 += other.at1;
        self.at3 += other.at3;
        self.reciprocal += other.reciprocal;
        self.judged += other.judged;
        self.cited += other.cited;
    }

    /// The header of [`Tally::row`]'s table.
    pub fn header() -> String {
        format!("{:<12} {:<5} {:>4} {:>7} {:>7} {:>6} {:>7}", "api", "half", "n", "R@1", "R@3", "MRR", "cited")
    }

    /// One line of the table: questions, recall@1, recall@3, MRR and the
    /// share of answers citing an expected operation (`-` when none was
    /// judged).
    pub fn row(&self, name: &str, half: &str) -> String {
        let n = self.questions.max(1) as f64;
        let cited = if self.judged == 0 {
            "-".to_owned()
        } else {
            format!("{:.1}%", 100.0 * self.cited as f64 / self.judged as f64)
        };
        format!(
            "{name:<12} {half:<5} {:>4} {:>6.1}% {:>6.1}% {:>6.3} {cited:>7}",
            self.questions,
            100.0 * self.at1 as f64 / n,
            100.0 * self.at3 as f64 / n,
            self.reciprocal / n,
        )
    }
}
