//! The pages' shared kit: what every service's server-rendered pages share
//! so they look and behave as one product (docs/dashboard.md, "The
//! conventions every page follows").
//!
//! It owns the base layout (`base.html`) and the components (`macros.html`),
//! the stylesheet with its tokens and the script of progressive enhancements,
//! their fingerprinted serving, the strict security headers of a page, posted
//! forms with their errors, uploads, the one-shot flash message and offset
//! pagination. CSRF tokens and cookie attributes are `platform::web`'s; this
//! crate puts them on pages.
//!
//! It knows nothing about any one service: no sessions, accounts, use cases
//! or routes of its own. A service's pages add their own layout (extending
//! `base.html`), templates and handlers on top.

pub mod assets;
pub mod flash;
pub mod forms;
pub mod pager;
pub mod pages;
pub mod text;

pub use assets::Assets;
pub use flash::Flash;
pub use forms::{Form, Upload, read_form, read_upload};
pub use pager::pager;
pub use pages::{PAGE_CSP, PageState, Pages, page_headers};
pub use text::{encode, safe_next, when};
