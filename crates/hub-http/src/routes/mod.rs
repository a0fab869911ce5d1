//! Route handlers: extract, call one use case, map the result to a wire type.

pub mod audit;
pub mod cron;
pub mod diffs;
pub mod docs_admin;
pub mod inboxes;
pub mod mock;
pub mod monitors;
pub mod projects;
pub mod sdks;
pub mod team;
pub mod uploads;
pub mod versions;
pub mod workbench;
