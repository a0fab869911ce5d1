//! How fast the encoder is on this machine: a short question (the median
//! and p99 of 200) and a batch of section-like texts (tokens a second).
//!
//!     cargo run --release -p sentence --example speed
//!
//! With `questions` as argument, it asks only questions (2,000 of them),
//! for a profiler.

use std::time::Instant;

use sentence::Encoder;

fn main() {
    let started = Instant::now();
    let Ok(model) = Encoder::builtin() else {
        eprintln!("the packed model does not read");
        std::process::exit(1);
    };
    println!("unpacked in {:.0} ms", started.elapsed().as_secs_f64() * 1e3);
    let questions = [
        "how many API calls do I have left this hour?",
        "restart my pods",
        "make a new repository for myself",
        "report a CI check result on a commit",
    ];
    let only_questions = std::env::args().nth(1).as_deref() == Some("questions");
    let rounds = if only_questions { 2_000 } else { 200 };
    let mut times = Vec::new();
    for round in 0..rounds {
        let q = questions.get(round % questions.len()).copied().unwrap_or_default();
        let at = Instant::now();
        let _ = model.embed(&[q]);
        times.push(at.elapsed().as_secs_f64() * 1e3);
    }
    times.sort_by(f64::total_cmp);
    let at = |share: usize| times.get(times.len() * share / 100).copied().unwrap_or_default();
    println!("a question: p50 {:.1} ms, p99 {:.1} ms", at(50), at(99));
    if only_questions {
        return;
    }
    let section = "GET /repos/{owner}/{repo}/issues: List repository issues. List issues in a repository. \
                   Only open issues will be listed. Note: GitHub's REST API considers every pull request an issue, \
                   but not every issue is a pull request. For this reason, \"Issues\" endpoints may return both.";
    let texts: Vec<String> = (0..256).map(|i| format!("{section} {i}")).collect();
    let tokens: usize = texts.iter().map(|t| model.tokenize(t).len()).sum();
    let at = Instant::now();
    let _ = model.embed(&texts);
    let seconds = at.elapsed().as_secs_f64();
    println!("256 sections ({tokens} tokens): {seconds:.2} s, {:.0} tokens/s", tokens as f64 / seconds);
}
