//! Offset pagination as every list route of the services speaks it.

/// A validated request for one page: `limit` already clamped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PageRequest {
    limit: u32,
    offset: u64,
}

impl PageRequest {
    pub const DEFAULT_LIMIT: u32 = 50;
    pub const MAX_LIMIT: u32 = 100;

    /// Builds a page request, clamping `limit` into `1..=100` (default 50) and
    /// defaulting `offset` to 0. Out-of-range limits are clamped, not refused,
    /// as the hub's API contract says.
    pub fn clamped(limit: Option<i64>, offset: Option<u64>) -> Self {
        let limit = limit.map_or(Self::DEFAULT_LIMIT, |l| {
            u32::try_from(l.clamp(1, i64::from(Self::MAX_LIMIT))).unwrap_or(Self::MAX_LIMIT)
        });
        Self { limit, offset: offset.unwrap_or(0) }
    }

    pub const fn limit(self) -> u32 {
        self.limit
    }

    pub const fn offset(self) -> u64 {
        self.offset
    }
}

impl Default for PageRequest {
    fn default() -> Self {
        Self::clamped(None, None)
    }
}

/// One page of results plus the total count of the whole filtered list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Page<T> {
    pub items: Vec<T>,
    pub total: u64,
    pub request: PageRequest,
}

impl<T> Page<T> {
    pub fn map<U>(self, f: impl FnMut(T) -> U) -> Page<U> {
        Page { items: self.items.into_iter().map(f).collect(), total: self.total, request: self.request }
    }
}

#[cfg(test)]
mod tests {
    use super::PageRequest;

    #[test]
    fn clamps_limit_and_defaults_offset() {
        let cases = [
            (None, 50),
            (Some(0), 1),
            (Some(-5), 1),
            (Some(1), 1),
            (Some(100), 100),
            (Some(101), 100),
            (Some(i64::MAX), 100),
        ];
        for (input, expected) in cases {
            assert_eq!(PageRequest::clamped(input, None).limit(), expected, "limit {input:?}");
        }
        assert_eq!(PageRequest::clamped(None, None).offset(), 0);
        assert_eq!(PageRequest::clamped(None, Some(7)).offset(), 7);
    }
}
