//! Route handlers, one module per route group.

pub mod catalog;
pub mod me;
pub mod oauth;
pub mod playlists;
