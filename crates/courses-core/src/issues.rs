//! Validation issues: `{code, path, message}` where `path` names the wrong
//! field from the root of the request body (array indexes as strings).

/// One thing wrong with a request body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Issue {
    pub code: &'static str,
    pub path: Vec<String>,
    pub message: String,
}

impl Issue {
    pub fn new(code: &'static str, path: Vec<String>, message: impl Into<String>) -> Self {
        Self { code, path, message: message.into() }
    }

    /// `screens.0.blocks.2.stackCards`, for messages.
    pub fn path_text(&self) -> String {
        if self.path.is_empty() { "body".to_owned() } else { self.path.join(".") }
    }
}

/// Stable issue codes.
pub mod code {
    pub const REQUIRED: &str = "required";
    pub const INVALID_TYPE: &str = "invalid_type";
    pub const INVALID_VALUE: &str = "invalid_value";
    pub const TOO_BIG: &str = "too_big";
    pub const TOO_SMALL: &str = "too_small";
    pub const UNKNOWN_REFERENCE: &str = "unknown_reference";
    pub const DUPLICATE: &str = "duplicate";
}

/// Collects issues under a path prefix while walking a JSON document.
#[derive(Debug, Default)]
pub struct Issues {
    list: Vec<Issue>,
}

impl Issues {
    pub fn push(&mut self, code: &'static str, path: &[String], leaf: Option<&str>, message: impl Into<String>) {
        let mut full = path.to_vec();
        if let Some(leaf) = leaf {
            full.push(leaf.to_owned());
        }
        self.list.push(Issue::new(code, full, message));
    }

    pub const fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    pub fn into_vec(self) -> Vec<Issue> {
        self.list
    }

    /// `Ok(value)` when nothing was collected, else the issues as an error.
    pub fn finish<T>(self, value: T) -> Result<T, crate::CoursesError> {
        if self.list.is_empty() { Ok(value) } else { Err(crate::CoursesError::invalid(self.list)) }
    }
}

/// `path` extended by one segment.
pub fn child(path: &[String], segment: impl ToString) -> Vec<String> {
    let mut next = path.to_vec();
    next.push(segment.to_string());
    next
}
