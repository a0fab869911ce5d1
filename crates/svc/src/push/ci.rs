//! Preview fields (pull request, commit, branch) from the usual CI
//! environment variables, so `svc push --preview` needs no other flags in CI.

/// What the environment says about the change being built.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct CiContext {
    pub pr: Option<i64>,
    pub commit: Option<String>,
    pub branch: Option<String>,
}

/// Reads GitHub Actions, GitLab CI, Bitbucket Pipelines, CircleCI, Azure
/// Pipelines and Buildkite variables, in that order.
pub fn detect(env: &dyn Fn(&str) -> Option<String>) -> CiContext {
    let get = |name: &str| env(name).filter(|v| !v.trim().is_empty() && v != "false");
    let first = |names: &[&str]| names.iter().find_map(|n| get(n));
    // GitHub: refs/pull/123/merge for pull_request events.
    let github_pr = get("GITHUB_REF")
        .and_then(|r| r.strip_prefix("refs/pull/").and_then(|rest| rest.split('/').next()).map(str::to_owned));
    // CircleCI gives the pull request URL.
    let circle_pr = get("CIRCLE_PULL_REQUEST").and_then(|url| url.rsplit('/').next().map(str::to_owned));
    let pr = github_pr
        .or_else(|| first(&["CI_MERGE_REQUEST_IID", "BITBUCKET_PR_ID"]))
        .or(circle_pr)
        .or_else(|| first(&["SYSTEM_PULLREQUEST_PULLREQUESTNUMBER", "BUILDKITE_PULL_REQUEST"]))
        .and_then(|n| n.trim().parse::<i64>().ok())
        .filter(|n| *n > 0);
    let commit = first(&[
        "GITHUB_SHA",
        "CI_COMMIT_SHA",
        "BITBUCKET_COMMIT",
        "CIRCLE_SHA1",
        "BUILD_SOURCEVERSION",
        "BUILDKITE_COMMIT",
    ]);
    let branch = first(&[
        "GITHUB_HEAD_REF",
        "GITHUB_REF_NAME",
        "CI_MERGE_REQUEST_SOURCE_BRANCH_NAME",
        "CI_COMMIT_REF_NAME",
        "BITBUCKET_BRANCH",
        "CIRCLE_BRANCH",
        "SYSTEM_PULLREQUEST_SOURCEBRANCH",
        "BUILD_SOURCEBRANCHNAME",
        "BUILDKITE_BRANCH",
    ]);
    CiContext { pr, commit, branch }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env_of(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let pairs: Vec<(String, String)> = pairs.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect();
        move |name| pairs.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone())
    }

    #[test]
    fn reads_each_ci_provider() {
        let cases: [(&[(&str, &str)], CiContext); 5] = [
            (
                &[
                    ("GITHUB_REF", "refs/pull/42/merge"),
                    ("GITHUB_SHA", "abc123"),
                    ("GITHUB_HEAD_REF", "feature/x"),
                    ("GITHUB_REF_NAME", "42/merge"),
                ],
                CiContext { pr: Some(42), commit: Some("abc123".into()), branch: Some("feature/x".into()) },
            ),
            (
                &[
                    ("CI_MERGE_REQUEST_IID", "7"),
                    ("CI_COMMIT_SHA", "def456"),
                    ("CI_MERGE_REQUEST_SOURCE_BRANCH_NAME", "fix"),
                ],
                CiContext { pr: Some(7), commit: Some("def456".into()), branch: Some("fix".into()) },
            ),
            (
                &[
                    ("CIRCLE_PULL_REQUEST", "https://github.com/o/r/pull/9"),
                    ("CIRCLE_SHA1", "f00"),
                    ("CIRCLE_BRANCH", "b"),
                ],
                CiContext { pr: Some(9), commit: Some("f00".into()), branch: Some("b".into()) },
            ),
            (
                &[("BUILDKITE_PULL_REQUEST", "false"), ("BUILDKITE_COMMIT", "aa"), ("BUILDKITE_BRANCH", "main")],
                CiContext { pr: None, commit: Some("aa".into()), branch: Some("main".into()) },
            ),
            (&[], CiContext::default()),
        ];
        for (pairs, expected) in cases {
            assert_eq!(detect(&env_of(pairs)), expected, "{pairs:?}");
        }
    }
}
