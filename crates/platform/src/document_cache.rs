//! What a node builds from a stored description (the docs' prepared
//! document, the mock's engine), kept per node and bounded by the bytes of
//! the descriptions it was built from as well as by a count.
//!
//! Keyed by the description's SHA-256, so a version pushed twice shares one
//! entry and a new push never finds a stale one. Concurrent first requests
//! wait for a single build. The least recently used finished entries leave
//! first; builds in flight are never evicted.
//!
//! Written here rather than taken from a cache crate: the weight of an entry
//! is known only once its build finishes, and concurrent requests for one key
//! must share that build, which is what `tokio::sync::OnceCell` per key gives.

use std::future::Future;
use std::sync::{Arc, Mutex};

use indexmap::IndexMap;
use tokio::sync::OnceCell;

/// See the module documentation.
pub struct DocumentCache<T> {
    inner: Mutex<Inner<T>>,
    max_entries: usize,
    max_source_bytes: usize,
}

struct Inner<T> {
    /// Oldest use first.
    slots: IndexMap<String, Slot<T>>,
    /// Sum of the finished slots' source bytes.
    source_bytes: usize,
}

struct Slot<T> {
    cell: Arc<OnceCell<Arc<T>>>,
    /// The description's size, once its build has finished.
    source_bytes: usize,
}

/// The cache's lock was poisoned by a panic while it was held.
#[derive(Debug)]
pub struct Poisoned;

impl<T> std::fmt::Debug for DocumentCache<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (entries, source_bytes) = self.usage();
        f.debug_struct("DocumentCache")
            .field("entries", &entries)
            .field("source_bytes", &source_bytes)
            .field("max_entries", &self.max_entries)
            .field("max_source_bytes", &self.max_source_bytes)
            .finish()
    }
}

impl<T> DocumentCache<T> {
    #[must_use]
    pub fn new(max_entries: usize, max_source_bytes: usize) -> Self {
        Self {
            inner: Mutex::new(Inner { slots: IndexMap::new(), source_bytes: 0 }),
            max_entries: max_entries.max(1),
            max_source_bytes,
        }
    }

    /// The entry of `key`, built by `build` when absent. `build` answers the
    /// value and the size of the description it was built from.
    ///
    /// # Errors
    /// What `build` answers, or [`Poisoned`] (through `E: From<Poisoned>`).
    pub async fn get_or_build<E, F, Fut>(&self, key: &str, build: F) -> Result<Arc<T>, E>
    where
        E: From<Poisoned>,
        F: FnOnce() -> Fut,
        Fut: Future<Output = Result<(T, usize), E>>,
    {
        let cell = {
            let mut inner = self.inner.lock().map_err(|_| Poisoned)?;
            match inner.slots.get_index_of(key) {
                Some(at) => {
                    let last = inner.slots.len() - 1;
                    inner.slots.move_index(at, last);
                    if let Some(value) = inner.slots.get_index(last).and_then(|(_, slot)| slot.cell.get()) {
                        return Ok(value.clone());
                    }
                    inner.slots.get_index(last).map(|(_, slot)| slot.cell.clone()).unwrap_or_default()
                }
                None => {
                    self.evict(&mut inner, 1, 0);
                    let cell = Arc::new(OnceCell::new());
                    inner.slots.insert(key.to_owned(), Slot { cell: cell.clone(), source_bytes: 0 });
                    cell
                }
            }
        };
        let value = cell
            .get_or_try_init(|| async {
                let (value, source_bytes) = build().await?;
                let mut inner = self.inner.lock().map_err(|_| Poisoned)?;
                // Count the bytes only if this build's slot is still the key's
                // (an eviction may have replaced it meanwhile).
                if inner.slots.get(key).is_some_and(|slot| Arc::ptr_eq(&slot.cell, &cell)) {
                    self.evict(&mut inner, 0, source_bytes);
                    inner.source_bytes += source_bytes;
                    if let Some(slot) = inner.slots.get_mut(key) {
                        slot.source_bytes = source_bytes;
                    }
                }
                Ok::<_, E>(Arc::new(value))
            })
            .await?;
        Ok(value.clone())
    }

    /// The entry of `key` if its build has finished, without waiting for
    /// one in flight or starting one (for callers that build off the
    /// request path and answer without the entry meanwhile).
    #[must_use]
    pub fn ready(&self, key: &str) -> Option<Arc<T>> {
        let mut inner = self.inner.lock().ok()?;
        let at = inner.slots.get_index_of(key)?;
        let value = inner.slots.get_index(at).and_then(|(_, slot)| slot.cell.get().cloned())?;
        let last = inner.slots.len() - 1;
        inner.slots.move_index(at, last);
        Some(value)
    }

    /// Drops the least recently used finished entries until `more_entries`
    /// and `more_bytes` fit.
    fn evict(&self, inner: &mut Inner<T>, more_entries: usize, more_bytes: usize) {
        let mut at = 0;
        while at < inner.slots.len()
            && (inner.slots.len() + more_entries > self.max_entries
                || inner.source_bytes + more_bytes > self.max_source_bytes)
        {
            let finished = inner.slots.get_index(at).is_some_and(|(_, slot)| slot.cell.initialized());
            if finished {
                if let Some((_, slot)) = inner.slots.shift_remove_index(at) {
                    inner.source_bytes -= slot.source_bytes;
                }
            } else {
                at += 1;
            }
        }
    }

    /// Entries held and the bytes of their descriptions.
    #[must_use]
    pub fn usage(&self) -> (usize, usize) {
        self.inner.lock().map(|inner| (inner.slots.len(), inner.source_bytes)).unwrap_or((0, 0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq)]
    struct Failed;

    impl From<Poisoned> for Failed {
        fn from(_: Poisoned) -> Self {
            Self
        }
    }

    async fn get(cache: &DocumentCache<String>, key: &str, bytes: usize) -> Arc<String> {
        cache.get_or_build(key, || async { Ok::<_, Failed>((format!("built {key}"), bytes)) }).await.unwrap_or_default()
    }

    #[tokio::test]
    async fn a_hit_is_not_built_again() {
        let cache = DocumentCache::new(4, 100);
        assert_eq!(*get(&cache, "a", 10).await, "built a");
        let again = cache.get_or_build("a", || async { Ok::<_, Failed>(("rebuilt".to_owned(), 10)) }).await;
        assert_eq!(again.as_deref().map(String::as_str), Ok("built a"));
        assert_eq!(cache.usage(), (1, 10));
    }

    #[tokio::test]
    async fn the_byte_bound_evicts_the_least_recently_used() {
        let cache = DocumentCache::new(10, 100);
        get(&cache, "a", 40).await;
        get(&cache, "b", 40).await;
        get(&cache, "a", 40).await; // a is now the most recent
        get(&cache, "c", 40).await; // 120 > 100: b leaves
        assert_eq!(cache.usage(), (2, 80));
        let rebuilt = cache.get_or_build("a", || async { Ok::<_, Failed>(("again".to_owned(), 40)) }).await;
        assert_eq!(rebuilt.as_deref().map(String::as_str), Ok("built a"), "a stayed");
        let b = cache.get_or_build("b", || async { Ok::<_, Failed>(("b again".to_owned(), 40)) }).await;
        assert_eq!(b.as_deref().map(String::as_str), Ok("b again"), "b was evicted and built again");
    }

    #[tokio::test]
    async fn the_count_bound_holds() {
        let cache = DocumentCache::new(2, usize::MAX);
        for key in ["a", "b", "c", "d"] {
            get(&cache, key, 1).await;
        }
        assert_eq!(cache.usage(), (2, 2));
    }

    #[tokio::test]
    async fn a_document_larger_than_the_bound_is_served_and_then_dropped() {
        let cache = DocumentCache::new(10, 100);
        get(&cache, "a", 30).await;
        assert_eq!(*get(&cache, "huge", 500).await, "built huge");
        // Everything else left to make room; the huge one stays until the next.
        assert_eq!(cache.usage(), (1, 500));
        get(&cache, "b", 10).await;
        assert_eq!(cache.usage(), (1, 10));
    }

    #[tokio::test]
    async fn a_failed_build_is_tried_again() {
        let cache: DocumentCache<String> = DocumentCache::new(4, 100);
        let failed = cache.get_or_build("a", || async { Err::<(String, usize), _>(Failed) }).await;
        assert_eq!(failed, Err(Failed));
        assert_eq!(*get(&cache, "a", 5).await, "built a");
    }

    #[tokio::test]
    async fn ready_answers_only_finished_entries_and_keeps_them_recent() {
        let cache: Arc<DocumentCache<String>> = Arc::new(DocumentCache::new(2, usize::MAX));
        assert!(cache.ready("a").is_none(), "never built");
        let (release, wait) = tokio::sync::oneshot::channel::<()>();
        let building = {
            let cache = cache.clone();
            tokio::spawn(async move {
                cache
                    .get_or_build("a", || async {
                        let _ = wait.await;
                        Ok::<_, Failed>(("slow".to_owned(), 1))
                    })
                    .await
            })
        };
        tokio::task::yield_now().await;
        assert!(cache.ready("a").is_none(), "a build in flight is not waited for");
        let _ = release.send(());
        assert!(building.await.is_ok());
        assert_eq!(cache.ready("a").as_deref().map(String::as_str), Some("slow"));
        get(&cache, "b", 1).await;
        assert!(cache.ready("a").is_some(), "a is the most recent again");
        get(&cache, "c", 1).await; // the count bound: b leaves, not a
        assert!(cache.ready("a").is_some() && cache.ready("b").is_none());
    }

    #[tokio::test]
    async fn concurrent_first_requests_share_one_build() {
        let cache = Arc::new(DocumentCache::new(4, 100));
        let builds = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let mut tasks = Vec::new();
        for _ in 0..8 {
            let (cache, builds) = (cache.clone(), builds.clone());
            tasks.push(tokio::spawn(async move {
                cache
                    .get_or_build("a", || async {
                        builds.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
                        Ok::<_, Failed>(("one".to_owned(), 1))
                    })
                    .await
            }));
        }
        for task in tasks {
            assert_eq!(task.await.ok().and_then(Result::ok).as_deref().map(String::as_str), Some("one"));
        }
        assert_eq!(builds.load(std::sync::atomic::Ordering::SeqCst), 1);
    }
}
