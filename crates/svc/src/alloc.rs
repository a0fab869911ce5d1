//! Allocator options set at start-up.
//!
//! mimalloc reads its options from `MIMALLOC_*` environment variables when
//! the process starts, before `main`; an option set there wins over what is
//! set here, so an operator can still tune it without a rebuild.
//!
//! One of two modules of the workspace allowed `unsafe` (the other is the
//! sentence encoder's run-time choice of CPU features): mimalloc's options
//! are C functions, and no safe wrapper of them exists.
#![allow(unsafe_code)]

use std::os::raw::{c_int, c_long};

/// `mi_option_purge_delay` in mimalloc's `mi_option_e` (v3, the version the
/// locked `libmimalloc-sys` builds); the crate names only the older
/// options. The test below checks that this index is the purge delay.
const PURGE_DELAY: c_int = 15;

/// Milliseconds before freed pages go back to the system. mimalloc 3's
/// default of 1,000 ms keeps a large parse's memory resident for a second,
/// and, on a thread that then goes idle (the blocking pool's), until it
/// next allocates: measured with `bench/memory.sh`, 30 MB more at the end.
/// 10 ms is mimalloc 2's default.
const PURGE_DELAY_MS: c_long = 10;

/// Applies the options above unless the environment set them.
pub fn configure() {
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
        // SAFETY: mi_option_set only stores the value in mimalloc's option
        // table; any value is valid for this option.
        unsafe { libmimalloc_sys::mi_option_set(PURGE_DELAY, PURGE_DELAY_MS) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_purge_delay_is_the_option_we_set() {
        if std::env::var_os("MIMALLOC_PURGE_DELAY").is_some() {
            return;
        }
        // SAFETY: reading an option has no preconditions.
        let before = unsafe { libmimalloc_sys::mi_option_get(PURGE_DELAY) };
        // mimalloc 3's documented default for the purge delay: a different
        // number here means the index names another option.
        assert_eq!(before, 1000);
        configure();
        // SAFETY: as above.
        assert_eq!(unsafe { libmimalloc_sys::mi_option_get(PURGE_DELAY) }, PURGE_DELAY_MS);
    }
}
