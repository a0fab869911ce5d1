//! Route handlers, one module per route group.

pub mod admin;
pub mod catalog;
pub mod developer;
pub mod device;
pub mod me;
pub mod oauth;
pub mod player;
pub mod playlists;
pub mod spoken;
