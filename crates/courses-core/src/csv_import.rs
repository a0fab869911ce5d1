//! Course CSV import (up to 2,000 data rows). One row per block:
//!
//! `screen,type,text,options,correct`
//!
//! Consecutive rows with the same `screen` title form one screen. `text` is
//! the block's main text (the question of a question, the statement of a
//! true/false, the URL of an image or video, the label of a button);
//! `options` holds `|`-separated options (list items; stack cards as
//! `front::back`); `correct` is the correct option index, `|`-separated
//! indexes, or `true`/`false`. The result is a draft course checked by the
//! same block validation as the API.

use serde_json::{Map, Value, json};

use crate::Courses;
use crate::error::{CoursesError, CoursesResult};
use crate::issues::{Issues, code};
use crate::model::{Access, Course};

pub const MAX_ROWS: usize = 2_000;

/// Parses RFC 4180 CSV: quoted fields, doubled quotes, CRLF or LF.
pub fn parse_csv(text: &str) -> Result<Vec<Vec<String>>, String> {
    let mut rows = Vec::new();
    let mut row = Vec::new();
    let mut field = String::new();
    let mut chars = text.trim_start_matches('\u{feff}').chars().peekable();
    let mut quoted = false;
    let mut line = 1;
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                chars.next();
                field.push('"');
            }
            (true, '"') => quoted = false,
            (true, c) => {
                if c == '\n' {
                    line += 1;
                }
                field.push(c);
            }
            (false, '"') if field.is_empty() => quoted = true,
            (false, ',') => row.push(std::mem::take(&mut field)),
            (false, '\r') if chars.peek() == Some(&'\n') => {}
            (false, '\n') => {
                row.push(std::mem::take(&mut field));
                rows.push(std::mem::take(&mut row));
                line += 1;
            }
            (false, c) => field.push(c),
        }
    }
    if quoted {
        return Err(format!("a quoted field opened before line {line} is never closed"));
    }
    if !field.is_empty() || !row.is_empty() {
        row.push(field);
        rows.push(row);
    }
    rows.retain(|r| !(r.len() == 1 && r.first().is_some_and(|f| f.trim().is_empty())));
    Ok(rows)
}

fn block_from_row(cells: &Map<String, Value>, row: &[String], index: &dyn Fn(&str) -> Option<usize>) -> Value {
    let cell = |name: &str| index(name).and_then(|i| row.get(i)).map(|s| s.trim().to_owned()).unwrap_or_default();
    let kind = cell("type").to_lowercase();
    let text = cell("text");
    let options: Vec<String> =
        cell("options").split('|').map(str::trim).filter(|s| !s.is_empty()).map(str::to_owned).collect();
    let correct = cell("correct");
    let mut block = cells.clone();
    block.insert("type".to_owned(), json!(kind));
    match kind.as_str() {
        "image" | "video" => {
            block.insert("url".to_owned(), json!(text));
        }
        "button" => {
            block.insert("label".to_owned(), json!(text));
        }
        "list" => {
            block.insert("items".to_owned(), json!(options));
        }
        "stack" => {
            let cards: Vec<Value> = options
                .iter()
                .map(|o| match o.split_once("::") {
                    Some((front, back)) => json!({ "front": front.trim(), "back": back.trim() }),
                    None => json!({ "front": o }),
                })
                .collect();
            block.insert("stackCards".to_owned(), json!(cards));
        }
        "multiple_choice" => {
            block.insert("question".to_owned(), json!(text));
            block.insert("options".to_owned(), json!(options));
            block.insert("correctIndex".to_owned(), correct.parse::<u64>().map_or(Value::Null, |n| json!(n)));
        }
        "multiple_response" => {
            block.insert("question".to_owned(), json!(text));
            block.insert("options".to_owned(), json!(options));
            let indexes: Vec<Value> =
                correct.split('|').filter_map(|s| s.trim().parse::<u64>().ok()).map(|n| json!(n)).collect();
            block.insert("correctIndexes".to_owned(), json!(indexes));
        }
        "true_false" => {
            block.insert("statement".to_owned(), json!(text));
            let answer = match correct.to_lowercase().as_str() {
                "true" | "yes" | "1" => json!(true),
                "false" | "no" | "0" => json!(false),
                _ => Value::Null,
            };
            block.insert("answer".to_owned(), answer);
        }
        _ => {
            block.insert("text".to_owned(), json!(text));
        }
    }
    Value::Object(block)
}

/// The course body described by a CSV file.
pub fn course_from_csv(title: &str, text: &str) -> CoursesResult<Map<String, Value>> {
    let rows = parse_csv(text).map_err(|m| CoursesError::field(&["csv"], code::INVALID_VALUE, m))?;
    let Some((header, data)) = rows.split_first() else {
        return Err(CoursesError::field(
            &["csv"],
            code::REQUIRED,
            "the CSV needs a header row and at least one data row",
        ));
    };
    if data.len() > MAX_ROWS {
        return Err(CoursesError::field(
            &["rows"],
            code::TOO_BIG,
            format!("a course CSV holds at most {MAX_ROWS} data rows"),
        ));
    }
    let header: Vec<String> = header.iter().map(|h| h.trim().to_lowercase()).collect();
    let index = |name: &str| header.iter().position(|h| h == name);
    let mut issues = Issues::default();
    for required in ["screen", "type"] {
        if index(required).is_none() {
            issues.push(
                code::REQUIRED,
                &["columns".to_owned()],
                Some(required),
                format!("the header needs a {required} column"),
            );
        }
    }
    issues.finish(())?;
    let mut screens: Vec<Value> = Vec::new();
    let mut current: Option<String> = None;
    for row in data {
        let screen = index("screen").and_then(|i| row.get(i)).map(|s| s.trim().to_owned()).unwrap_or_default();
        let block = block_from_row(&Map::new(), row, &index);
        if current.as_deref() != Some(screen.as_str()) || screens.is_empty() {
            screens.push(json!({ "title": screen, "blocks": [] }));
            current = Some(screen);
        }
        if let Some(Value::Array(blocks)) = screens.last_mut().and_then(|s| s.get_mut("blocks")) {
            blocks.push(block);
        }
    }
    let mut body = Map::new();
    body.insert("title".to_owned(), json!(title));
    body.insert("screens".to_owned(), Value::Array(screens));
    Ok(body)
}

impl Courses {
    /// Imports a course from CSV as a draft (`sourceKind: "csv"`).
    pub async fn import_csv(&self, access: &Access, title: Option<&str>, text: &str) -> CoursesResult<Course> {
        let body = course_from_csv(title.filter(|t| !t.trim().is_empty()).unwrap_or("Imported course"), text)?;
        self.create_course_from(access, &body, "csv").await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_fields_quotes_and_newlines() {
        let rows = parse_csv("a,b\r\n\"x, y\",\"say \"\"hi\"\"\nthere\"\n\n").unwrap();
        assert_eq!(rows, vec![vec!["a", "b"], vec!["x, y", "say \"hi\"\nthere"]]);
        assert!(parse_csv("a\n\"open").is_err());
    }

    #[test]
    fn rows_become_screens_and_blocks() {
        let csv = "screen,type,text,options,correct\n\
            Intro,text,Welcome,,\n\
            Intro,stack,,Front::Back|Only front,\n\
            Quiz,multiple_choice,Pick one,a|b|c,2\n\
            Quiz,true_false,Sky is blue,,true\n";
        let body = course_from_csv("T", csv).unwrap();
        let screens = body["screens"].as_array().unwrap();
        assert_eq!(screens.len(), 2);
        assert_eq!(screens[0]["blocks"][1]["stackCards"][0], json!({ "front": "Front", "back": "Back" }));
        assert_eq!(screens[1]["blocks"][0]["correctIndex"], 2);
        assert_eq!(screens[1]["blocks"][1]["answer"], true);
    }

    #[test]
    fn at_most_2000_rows() {
        let row = "S,text,hello,,\n";
        let ok = format!("screen,type,text,options,correct\n{}", row.repeat(MAX_ROWS));
        assert!(course_from_csv("T", &ok).is_ok());
        let too_many = format!("screen,type,text,options,correct\n{}", row.repeat(MAX_ROWS + 1));
        let Err(CoursesError::Invalid { issues, .. }) = course_from_csv("T", &too_many) else { panic!() };
        assert_eq!(issues[0].path, vec!["rows".to_owned()]);
        let Err(CoursesError::Invalid { issues, .. }) = course_from_csv("T", "type\ntext\n") else { panic!() };
        assert_eq!(issues[0].path, vec!["columns".to_owned(), "screen".to_owned()]);
    }
}
