//! Human-readable or JSON-lines output, and the mapping of errors to exit codes.

use hub_core::HubError;
use kernel::StoreError;
use platform::DbError;
use serde_json::Value;

pub struct Output {
    json: bool,
}

impl Output {
    pub const fn new(json: bool) -> Self {
        Self { json }
    }

    pub const fn is_json(&self) -> bool {
        self.json
    }

    /// Prints `text` for people, or `value` as one JSON line.
    pub fn emit(&self, text: &str, value: &Value) {
        if self.json {
            println!("{value}");
        } else {
            println!("{text}");
        }
    }

    pub fn error(&self, message: &str) {
        if self.json {
            eprintln!("{}", serde_json::json!({ "error": message }));
        } else {
            eprintln!("error: {message}");
        }
    }
}

/// 1 user error, 2 transient, 3 internal.
pub fn exit_code(err: &anyhow::Error) -> u8 {
    for cause in err.chain() {
        if let Some(courses) = cause.downcast_ref::<courses_core::CoursesError>() {
            return crate::courses::exit_code(courses);
        }
        if let Some(catalog) = cause.downcast_ref::<catalog_core::CatalogError>() {
            return crate::catalog::exit_code(catalog);
        }
        if let Some(failure) = cause.downcast_ref::<crate::push::Failure>() {
            return match failure {
                crate::push::Failure::User(_) => 1,
                crate::push::Failure::Transient(_) => 2,
            };
        }
        if let Some(hub) = cause.downcast_ref::<HubError>() {
            return match hub {
                HubError::Store(StoreError::Busy(_)) => 2,
                HubError::Store(_) | HubError::Blob(_) | HubError::Internal(_) => 3,
                _ => 1,
            };
        }
        if let Some(db) = cause.downcast_ref::<DbError>() {
            return match db {
                DbError::Connect { .. } => 2,
                DbError::DataDir { .. } => 1,
                DbError::Migrate(_) => 3,
            };
        }
        if cause.downcast_ref::<std::io::Error>().is_some() {
            return 1;
        }
    }
    3
}
