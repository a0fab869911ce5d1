//! "Copy as curl": a saved request as one POSIX shell command, with the
//! environment's variables filled in and its secrets written as shell
//! variables (`"${API_TOKEN}"`), so the command runs once they are
//! exported and never carries a secret's value.

use crate::template::{self, Piece};
use crate::{Invalid, RequestDraft};

/// How a placeholder is written in the command.
pub enum Fill<'a> {
    Value(&'a str),
    /// A secret: written as this shell variable.
    ShellVariable(String),
}

/// The shell variable a secret named `name` becomes: letters and digits in
/// capitals, other characters as `_`, never starting with a digit.
#[must_use]
pub fn shell_variable(name: &str) -> String {
    let mut out: String =
        name.chars().map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_uppercase() } else { '_' }).collect();
    if out.chars().next().is_none_or(|c| c.is_ascii_digit()) {
        out.insert(0, '_');
    }
    out
}

/// One shell word for `text`: literal pieces single-quoted, secrets as
/// `"${NAME}"`, placeholders nobody knows left as written.
fn word<'a>(text: &str, fill: &impl Fn(&str) -> Option<Fill<'a>>) -> String {
    let mut out = String::new();
    let mut literal = String::new();
    let flush = |literal: &mut String, out: &mut String| {
        if !literal.is_empty() {
            out.push_str(&quote(literal));
            literal.clear();
        }
    };
    for piece in template::pieces(text) {
        match piece {
            Piece::Text(t) => literal.push_str(t),
            Piece::Name(name, written) => match fill(name) {
                Some(Fill::Value(v)) => literal.push_str(v),
                Some(Fill::ShellVariable(var)) => {
                    flush(&mut literal, &mut out);
                    out.push_str(&format!("\"${{{var}}}\""));
                }
                None => literal.push_str(written),
            },
        }
    }
    flush(&mut literal, &mut out);
    if out.is_empty() { "''".to_owned() } else { out }
}

fn quote(text: &str) -> String {
    // shlex refuses only NUL bytes, which a saved request cannot hold (its
    // limits refuse control characters in URLs and headers; a body's NULs
    // are written escaped by the `$'..'` fallback below).
    shlex::try_quote(text).map_or_else(
        |_| format!("$'{}'", text.replace('\\', "\\\\").replace('\'', "\\'").replace('\0', "\\0")),
        |q| q.into_owned(),
    )
}

/// The command for `draft`. `base_url` completes a path URL; `fill` says
/// what each placeholder becomes.
///
/// # Errors
/// None today; kept for URLs that cannot be written.
pub fn command<'a>(
    draft: &RequestDraft,
    base_url: Option<&str>,
    fill: impl Fn(&str) -> Option<Fill<'a>>,
) -> Result<String, Invalid> {
    let mut url = match (draft.url.starts_with('/'), base_url) {
        (true, Some(base)) => format!("{}{}", base.trim_end_matches('/'), draft.url),
        _ => draft.url.clone(),
    };
    if !draft.query.is_empty() {
        let query: Vec<String> =
            draft.query.iter().map(|(name, value)| format!("{}={}", encode_query(name), encode_query(value))).collect();
        url.push(if url.contains('?') { '&' } else { '?' });
        url.push_str(&query.join("&"));
    }
    let mut parts = vec!["curl".to_owned()];
    // `--data-raw` alone would make a GET a POST.
    if draft.method != "GET" || draft.body.is_some() {
        parts.push("-X".to_owned());
        parts.push(draft.method.clone());
    }
    parts.push(word(&url, &fill));
    for (name, value) in &draft.headers {
        parts.push("-H".to_owned());
        parts.push(word(&format!("{name}: {value}"), &fill));
    }
    if let Some(body) = &draft.body {
        parts.push("--data-raw".to_owned());
        parts.push(word(body, &fill));
    }
    Ok(parts.join(" "))
}

/// Query text as a URL carries it, placeholders kept whole.
pub(crate) fn encode_query(text: &str) -> String {
    template::pieces(text)
        .into_iter()
        .map(|piece| match piece {
            Piece::Text(t) => url::form_urlencoded::byte_serialize(t.as_bytes()).collect(),
            Piece::Name(_, written) => written.to_owned(),
        })
        .collect()
}

#[cfg(test)]
#[allow(clippy::unwrap_used, reason = "tests")]
mod tests {
    use super::*;

    #[test]
    fn secrets_become_shell_variables_and_values_are_quoted() {
        let draft = RequestDraft {
            name: "Create".into(),
            folder: None,
            method: "POST".into(),
            url: "/pets".into(),
            headers: vec![("Authorization".into(), "Bearer {{api token}}".into())],
            query: vec![("note".into(), "it's {{who}}".into())],
            body: Some(r#"{"name": "{{pet}}"}"#.into()),
        };
        let fill = |name: &str| match name {
            "api token" => Some(Fill::ShellVariable(shell_variable(name))),
            "pet" => Some(Fill::Value("Rex")),
            _ => None,
        };
        let command = command(&draft, Some("https://api.example.com/v1/"), fill).unwrap();
        assert_eq!(
            command,
            r#"curl -X POST 'https://api.example.com/v1/pets?note=it%27s+{{who}}' -H 'Authorization: Bearer '"${API_TOKEN}" --data-raw '{"name": "Rex"}'"#
        );
        assert_eq!(shell_variable("2fa-code"), "_2FA_CODE");
    }

    #[test]
    fn a_plain_get_is_a_plain_curl() {
        let draft = RequestDraft {
            name: "x".into(),
            method: "GET".into(),
            url: "https://a.example/b".into(),
            ..Default::default()
        };
        assert_eq!(command(&draft, None, |_| None).unwrap(), "curl https://a.example/b");
    }
}
