//! Offset pagination: what `macros.html`'s `pager(page, base)` shows
//! ("1–25 of 1,000", Previous and Next).

use serde_json::{Value, json};

/// An offset page for the pager component.
#[must_use]
pub fn pager(total: u64, offset: u64, limit: u32) -> Value {
    let limit = u64::from(limit);
    let last = (offset + limit).min(total);
    json!({
        "total": total,
        "limit": limit,
        "first": if total == 0 { 0 } else { offset + 1 },
        "last": last,
        "prev": (offset > 0).then(|| offset.saturating_sub(limit)),
        "next": (last < total).then_some(last),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_know_their_neighbours() {
        let first = pager(60, 0, 25);
        assert_eq!(first["first"], 1);
        assert_eq!(first["last"], 25);
        assert!(first["prev"].is_null());
        assert_eq!(first["next"], 25);
        let last = pager(60, 50, 25);
        assert_eq!(last["last"], 60);
        assert_eq!(last["prev"], 25);
        assert!(last["next"].is_null());
        assert_eq!(pager(0, 0, 25)["first"], 0);
    }
}
