//! Content-addressed blob storage.
//!
//! Uploaded documents are stored once per distinct content under their
//! SHA-256. A single node keeps them in a directory of the data dir; nodes
//! sharing PostgreSQL keep them in the database's `blobs` table so that every
//! node reads what any node wrote without extra infrastructure; large
//! deployments keep them in an S3-compatible bucket ([`ObjectBlobStore`],
//! `SVC_BLOB_URL=s3://bucket/prefix`) through the `object_store` crate.
//!
//! Besides whole reads and writes, a store streams a blob out ([`BlobStore::open`])
//! and in under a known hash, verified as it arrives ([`BlobStore::put_verified`]),
//! so [`migrate`] moves blobs between stores without holding one whole
//! (the database store is the exception: a `bytea` row is read whole).

use std::path::PathBuf;
use std::sync::Arc;

use async_trait::async_trait;
use bytes::Bytes;
use futures_util::stream::BoxStream;
use futures_util::{StreamExt as _, TryStreamExt as _};
use kernel::StoreError;
use sha2::Digest as _;

use crate::crypto::sha256_hex;
use crate::db::{Db, store_error};
use crate::with_db;

#[derive(Debug, thiserror::Error)]
pub enum BlobError {
    #[error("blob storage i/o failed: {0}")]
    Io(#[from] std::io::Error),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("object storage failed: {0}")]
    Object(String),
    #[error("blob {expected} arrived with the content of {actual}")]
    Corrupt { expected: String, actual: String },
    #[error("invalid blob location {0:?}: use s3://bucket/prefix, file:///a/directory or database")]
    InvalidUrl(String),
}

impl From<object_store::Error> for BlobError {
    fn from(err: object_store::Error) -> Self {
        Self::Object(err.to_string())
    }
}

/// A blob's bytes, chunk by chunk.
pub type BlobStream = BoxStream<'static, Result<Bytes, BlobError>>;

/// Stores and fetches immutable blobs by the hex SHA-256 of their content.
#[async_trait]
pub trait BlobStore: Send + Sync + std::fmt::Debug {
    /// Stores `data` (a no-op when the same content exists) and returns its hash.
    async fn put(&self, data: Bytes) -> Result<String, BlobError>;
    async fn get(&self, sha256: &str) -> Result<Option<Bytes>, BlobError>;

    /// The blob as a stream of chunks, or `None` when absent.
    async fn open(&self, sha256: &str) -> Result<Option<BlobStream>, BlobError> {
        Ok(self.get(sha256).await?.map(|data| futures_util::stream::once(async move { Ok(data) }).boxed()))
    }

    /// Stores `stream` as the blob `sha256`, refusing it (and keeping
    /// nothing) when the content does not hash to that name. Returns its size.
    async fn put_verified(&self, sha256: &str, stream: BlobStream) -> Result<u64, BlobError> {
        let data: Vec<Bytes> = stream.try_collect().await?;
        let data = Bytes::from(data.concat());
        let actual = sha256_hex(&data);
        if actual != sha256 {
            return Err(BlobError::Corrupt { expected: sha256.to_owned(), actual });
        }
        self.put(data.clone()).await?;
        Ok(data.len() as u64)
    }

    /// Whether the blob exists.
    async fn contains(&self, sha256: &str) -> Result<bool, BlobError> {
        Ok(self.get(sha256).await?.is_some())
    }

    /// The hash of every stored blob.
    async fn list(&self) -> Result<Vec<String>, BlobError>;

    /// Removes the blob (a no-op when absent).
    async fn delete(&self, sha256: &str) -> Result<(), BlobError>;

    /// Where the blobs are, for messages.
    fn describe(&self) -> String;
}

/// Whether `text` is a blob name: 64 lowercase hex digits.
#[must_use]
pub fn is_blob_name(text: &str) -> bool {
    text.len() == 64 && text.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// The hex SHA-256 of a stream, read to its end.
pub async fn hash_stream(mut stream: BlobStream) -> Result<(String, u64), BlobError> {
    let mut hasher = sha2::Sha256::new();
    let mut size = 0_u64;
    while let Some(chunk) = stream.next().await {
        let chunk = chunk?;
        size += chunk.len() as u64;
        hasher.update(&chunk);
    }
    Ok((hex::encode(hasher.finalize()), size))
}

/// Blobs as files `<root>/<first two hex>/<rest>`.
#[derive(Debug, Clone)]
pub struct FsBlobStore {
    root: PathBuf,
}

impl FsBlobStore {
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Self { root: root.into() }
    }

    fn path_of(&self, sha256: &str) -> Option<PathBuf> {
        // Hashes come from our own database, but a path is only ever built from
        // exactly 64 lowercase hex digits.
        let valid = is_blob_name(sha256);
        let (dir, file) = (sha256.get(..2)?, sha256.get(2..)?);
        valid.then(|| self.root.join(dir).join(file))
    }
}

#[async_trait]
impl BlobStore for FsBlobStore {
    async fn put(&self, data: Bytes) -> Result<String, BlobError> {
        let root = self.root.clone();
        let this = self.clone();
        tokio::task::spawn_blocking(move || {
            let sha = sha256_hex(&data);
            let path = this.path_of(&sha).ok_or_else(|| std::io::Error::other("invalid blob hash"))?;
            if path.exists() {
                return Ok(sha);
            }
            let dir = path.parent().map_or_else(|| root.clone(), PathBuf::from);
            std::fs::create_dir_all(&dir)?;
            // Write to a temporary name and rename, so a reader never sees a
            // partly written blob and a crash leaves no corrupt one behind.
            let tmp = dir.join(format!(".{}.tmp-{}", sha, uuid::Uuid::new_v4()));
            std::fs::write(&tmp, &data)?;
            std::fs::rename(&tmp, &path)?;
            Ok(sha)
        })
        .await
        .map_err(|e| BlobError::Io(std::io::Error::other(e)))?
    }

    async fn get(&self, sha256: &str) -> Result<Option<Bytes>, BlobError> {
        let Some(path) = self.path_of(sha256) else { return Ok(None) };
        match tokio::fs::read(&path).await {
            Ok(data) => Ok(Some(Bytes::from(data))),
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(err) => Err(err.into()),
        }
    }

    async fn open(&self, sha256: &str) -> Result<Option<BlobStream>, BlobError> {
        let Some(path) = self.path_of(sha256) else { return Ok(None) };
        match tokio::fs::File::open(&path).await {
            Ok(file) => Ok(Some(tokio_util::io::ReaderStream::new(file).map_err(BlobError::Io).boxed())),
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(err) => Err(err.into()),
        }
    }

    async fn put_verified(&self, sha256: &str, mut stream: BlobStream) -> Result<u64, BlobError> {
        use tokio::io::AsyncWriteExt as _;
        let path = self.path_of(sha256).ok_or_else(|| BlobError::InvalidUrl(sha256.to_owned()))?;
        let dir = path.parent().map_or_else(|| self.root.clone(), PathBuf::from);
        tokio::fs::create_dir_all(&dir).await?;
        let tmp = dir.join(format!(".{sha256}.tmp-{}", uuid::Uuid::new_v4()));
        let mut file = tokio::fs::File::create(&tmp).await?;
        let written = async {
            let mut hashed = Hashed::default();
            while let Some(chunk) = stream.next().await {
                let chunk = hashed.read(chunk?);
                file.write_all(&chunk).await?;
            }
            file.sync_all().await?;
            hashed.verify(sha256)
        }
        .await;
        let size = match written {
            Ok(size) => size,
            Err(err) => {
                tokio::fs::remove_file(&tmp).await.ok();
                return Err(err);
            }
        };
        tokio::fs::rename(&tmp, &path).await?;
        Ok(size)
    }

    async fn contains(&self, sha256: &str) -> Result<bool, BlobError> {
        let Some(path) = self.path_of(sha256) else { return Ok(false) };
        Ok(tokio::fs::try_exists(&path).await?)
    }

    async fn list(&self) -> Result<Vec<String>, BlobError> {
        let root = self.root.clone();
        tokio::task::spawn_blocking(move || {
            let mut names = Vec::new();
            let dirs = match std::fs::read_dir(&root) {
                Ok(dirs) => dirs,
                Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(names),
                Err(err) => return Err(BlobError::Io(err)),
            };
            for dir in dirs {
                let dir = dir?;
                let prefix = dir.file_name().to_string_lossy().into_owned();
                if prefix.len() != 2 || !dir.file_type()?.is_dir() {
                    continue;
                }
                for file in std::fs::read_dir(dir.path())? {
                    let name = format!("{prefix}{}", file?.file_name().to_string_lossy());
                    if is_blob_name(&name) {
                        names.push(name);
                    }
                }
            }
            names.sort();
            Ok(names)
        })
        .await
        .map_err(|e| BlobError::Io(std::io::Error::other(e)))?
    }

    async fn delete(&self, sha256: &str) -> Result<(), BlobError> {
        let Some(path) = self.path_of(sha256) else { return Ok(()) };
        match tokio::fs::remove_file(&path).await {
            Ok(()) => Ok(()),
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(err) => Err(err.into()),
        }
    }

    fn describe(&self) -> String {
        format!("the directory {}", self.root.display())
    }
}

/// Blobs in the `blobs (sha256, size, data)` table of a service's database.
#[derive(Debug, Clone)]
pub struct DbBlobStore {
    db: Db,
}

impl DbBlobStore {
    pub const fn new(db: Db) -> Self {
        Self { db }
    }
}

#[async_trait]
impl BlobStore for DbBlobStore {
    async fn put(&self, data: Bytes) -> Result<String, BlobError> {
        let sha = sha256_hex(&data);
        let size = i64::try_from(data.len()).unwrap_or(i64::MAX);
        with_db!(&self.db, |pool| {
            sqlx::query("INSERT INTO blobs (sha256, size, data) VALUES ($1, $2, $3) ON CONFLICT (sha256) DO NOTHING")
                .bind(&sha)
                .bind(size)
                .bind(data.as_ref())
                .execute(pool)
                .await
                .map(|r| r.rows_affected())
                .map_err(store_error)
        })?;
        Ok(sha)
    }

    async fn get(&self, sha256: &str) -> Result<Option<Bytes>, BlobError> {
        let row: Option<(Vec<u8>,)> = with_db!(&self.db, |pool| {
            sqlx::query_as("SELECT data FROM blobs WHERE sha256 = $1")
                .bind(sha256)
                .fetch_optional(pool)
                .await
                .map_err(store_error)
        })?;
        Ok(row.map(|(data,)| Bytes::from(data)))
    }

    async fn contains(&self, sha256: &str) -> Result<bool, BlobError> {
        let row: Option<(i64,)> = with_db!(&self.db, |pool| {
            sqlx::query_as("SELECT size FROM blobs WHERE sha256 = $1")
                .bind(sha256)
                .fetch_optional(pool)
                .await
                .map_err(store_error)
        })?;
        Ok(row.is_some())
    }

    async fn list(&self) -> Result<Vec<String>, BlobError> {
        let rows: Vec<(String,)> = with_db!(&self.db, |pool| {
            sqlx::query_as("SELECT sha256 FROM blobs ORDER BY sha256").fetch_all(pool).await.map_err(store_error)
        })?;
        Ok(rows.into_iter().map(|(sha,)| sha).collect())
    }

    async fn delete(&self, sha256: &str) -> Result<(), BlobError> {
        with_db!(&self.db, |pool| {
            sqlx::query("DELETE FROM blobs WHERE sha256 = $1")
                .bind(sha256)
                .execute(pool)
                .await
                .map(|_| ())
                .map_err(store_error)
        })?;
        Ok(())
    }

    fn describe(&self) -> String {
        "the database's blobs table".to_owned()
    }
}

/// Blobs in an S3-compatible bucket under `<prefix>/<first two hex>/<rest>`.
/// Credentials, region and endpoint come from the usual `AWS_*` variables
/// (`AWS_ENDPOINT_URL` for a store other than Amazon's).
#[derive(Debug, Clone)]
pub struct ObjectBlobStore {
    store: Arc<dyn object_store::ObjectStore>,
    prefix: String,
    url: String,
}

/// Multipart parts are this large when a blob is streamed in.
const PART_BYTES: usize = 8 * 1024 * 1024;

impl ObjectBlobStore {
    /// The bucket and prefix of `url` (`s3://bucket/prefix`), under `service`.
    pub fn s3(url: &str, service: &str) -> Result<Self, BlobError> {
        let parsed = url::Url::parse(url).map_err(|_| BlobError::InvalidUrl(url.to_owned()))?;
        let bucket =
            parsed.host_str().filter(|b| !b.is_empty()).ok_or_else(|| BlobError::InvalidUrl(url.to_owned()))?;
        let mut builder = object_store::aws::AmazonS3Builder::from_env().with_bucket_name(bucket);
        let endpoint = std::env::var("AWS_ENDPOINT_URL").or_else(|_| std::env::var("AWS_ENDPOINT")).unwrap_or_default();
        if !endpoint.is_empty() {
            builder = builder.with_endpoint(&endpoint).with_allow_http(endpoint.starts_with("http://"));
        }
        let store = builder.build()?;
        let base = parsed.path().trim_matches('/');
        let prefix = if base.is_empty() { service.to_owned() } else { format!("{base}/{service}") };
        Ok(Self { store: Arc::new(store), prefix, url: format!("{}/{service}", url.trim_end_matches('/')) })
    }

    /// Over any `object_store` store (tests use the in-memory one).
    #[must_use]
    pub fn over(store: Arc<dyn object_store::ObjectStore>, prefix: &str) -> Self {
        Self { store, prefix: prefix.trim_matches('/').to_owned(), url: format!("object store, prefix {prefix}") }
    }

    fn path_of(&self, sha256: &str) -> Option<object_store::path::Path> {
        let (dir, file) = (sha256.get(..2)?, sha256.get(2..)?);
        is_blob_name(sha256).then(|| object_store::path::Path::from(format!("{}/{dir}/{file}", self.prefix)))
    }
}

fn not_found(err: &object_store::Error) -> bool {
    matches!(err, object_store::Error::NotFound { .. })
}

#[async_trait]
impl BlobStore for ObjectBlobStore {
    async fn put(&self, data: Bytes) -> Result<String, BlobError> {
        use object_store::ObjectStoreExt as _;
        let sha = sha256_hex(&data);
        let path = self.path_of(&sha).ok_or_else(|| BlobError::InvalidUrl(sha.clone()))?;
        if self.contains(&sha).await? {
            return Ok(sha);
        }
        // One PUT: S3 makes an object visible only once it is whole.
        self.store.put(&path, object_store::PutPayload::from(data)).await?;
        Ok(sha)
    }

    async fn get(&self, sha256: &str) -> Result<Option<Bytes>, BlobError> {
        use object_store::ObjectStoreExt as _;
        let Some(path) = self.path_of(sha256) else { return Ok(None) };
        match self.store.get(&path).await {
            Ok(found) => Ok(Some(found.bytes().await?)),
            Err(err) if not_found(&err) => Ok(None),
            Err(err) => Err(err.into()),
        }
    }

    async fn open(&self, sha256: &str) -> Result<Option<BlobStream>, BlobError> {
        use object_store::ObjectStoreExt as _;
        let Some(path) = self.path_of(sha256) else { return Ok(None) };
        match self.store.get(&path).await {
            Ok(found) => Ok(Some(found.into_stream().map_err(BlobError::from).boxed())),
            Err(err) if not_found(&err) => Ok(None),
            Err(err) => Err(err.into()),
        }
    }

    async fn put_verified(&self, sha256: &str, mut stream: BlobStream) -> Result<u64, BlobError> {
        use tokio::io::AsyncWriteExt as _;
        let path = self.path_of(sha256).ok_or_else(|| BlobError::InvalidUrl(sha256.to_owned()))?;
        // A multipart upload in parts of PART_BYTES: the object appears only
        // when the upload completes, and an abort leaves nothing behind.
        let mut writer = object_store::buffered::BufWriter::with_capacity(self.store.clone(), path, PART_BYTES);
        let written = async {
            let mut hashed = Hashed::default();
            while let Some(chunk) = stream.next().await {
                writer.put(hashed.read(chunk?)).await?;
            }
            hashed.verify(sha256)
        }
        .await;
        match written {
            Ok(size) => {
                writer.shutdown().await?;
                Ok(size)
            }
            Err(err) => {
                writer.abort().await.ok();
                Err(err)
            }
        }
    }

    async fn contains(&self, sha256: &str) -> Result<bool, BlobError> {
        use object_store::ObjectStoreExt as _;
        let Some(path) = self.path_of(sha256) else { return Ok(false) };
        match self.store.head(&path).await {
            Ok(_) => Ok(true),
            Err(err) if not_found(&err) => Ok(false),
            Err(err) => Err(err.into()),
        }
    }

    async fn list(&self) -> Result<Vec<String>, BlobError> {
        let prefix = object_store::path::Path::from(self.prefix.as_str());
        let metas: Vec<object_store::ObjectMeta> = self.store.list(Some(&prefix)).try_collect().await?;
        let mut names: Vec<String> = metas
            .into_iter()
            .filter_map(|meta| {
                let mut parts = meta.location.parts().collect::<Vec<_>>().into_iter().rev();
                let file = parts.next()?;
                let dir = parts.next()?;
                let name = format!("{}{}", dir.as_ref(), file.as_ref());
                is_blob_name(&name).then_some(name)
            })
            .collect();
        names.sort();
        Ok(names)
    }

    async fn delete(&self, sha256: &str) -> Result<(), BlobError> {
        use object_store::ObjectStoreExt as _;
        let Some(path) = self.path_of(sha256) else { return Ok(()) };
        match self.store.delete(&path).await {
            Ok(()) => Ok(()),
            Err(err) if not_found(&err) => Ok(()),
            Err(err) => Err(err.into()),
        }
    }

    fn describe(&self) -> String {
        self.url.clone()
    }
}

/// The blob store `url` names for `service`: `s3://bucket/prefix` (the
/// service's blobs under `prefix/<service>/`), `file:///dir` or a path
/// (a directory), or `database` (the service's `blobs` table).
pub fn store_for_url(url: &str, service: &str, db: &Db) -> Result<Arc<dyn BlobStore>, BlobError> {
    let url = url.trim();
    if url.starts_with("s3://") {
        return Ok(Arc::new(ObjectBlobStore::s3(url, service)?));
    }
    if url == "database" || url == "db" {
        return Ok(Arc::new(DbBlobStore::new(db.clone())));
    }
    if let Some(path) = url.strip_prefix("file://") {
        return Ok(Arc::new(FsBlobStore::new(path)));
    }
    if url.contains("://") || url.is_empty() {
        return Err(BlobError::InvalidUrl(url.to_owned()));
    }
    Ok(Arc::new(FsBlobStore::new(url)))
}

/// What [`migrate`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MigrationReport {
    /// Blobs copied and read back with the right hash.
    pub copied: u64,
    /// Blobs the destination already held (an earlier, interrupted run).
    pub present: u64,
    /// Bytes copied.
    pub bytes: u64,
    /// Blobs in the source.
    pub total: u64,
}

/// Copies every blob of `from` that `to` lacks, streaming each one through
/// and verifying it twice: the upload is refused unless its content hashes
/// to its name, and the stored copy is read back and hashed again. A blob
/// becomes visible in `to` only once whole, so an interrupted run leaves
/// only complete blobs, and running again resumes where it stopped (blobs
/// already present are skipped). `stop_after` copies at most that many
/// (an interruption on purpose, for tests and small batches).
pub async fn migrate(
    from: &dyn BlobStore,
    to: &dyn BlobStore,
    stop_after: Option<u64>,
    mut progress: impl FnMut(&MigrationReport, u64) + Send,
) -> Result<MigrationReport, BlobError> {
    let names = from.list().await?;
    let total = names.len() as u64;
    let mut report = MigrationReport { total, ..MigrationReport::default() };
    for name in names {
        if stop_after.is_some_and(|most| report.copied >= most) {
            break;
        }
        if to.contains(&name).await? {
            report.present += 1;
            progress(&report, total);
            continue;
        }
        let Some(stream) = from.open(&name).await? else { continue };
        let size = to.put_verified(&name, stream).await?;
        let copy = to
            .open(&name)
            .await?
            .ok_or_else(|| BlobError::Corrupt { expected: name.clone(), actual: "nothing".to_owned() })?;
        let (actual, _) = hash_stream(copy).await?;
        if actual != name {
            return Err(BlobError::Corrupt { expected: name, actual });
        }
        report.copied += 1;
        report.bytes += size;
        progress(&report, total);
    }
    Ok(report)
}

/// The SHA-256 and size of a blob's bytes as they pass on their way in,
/// so both backends verify what they wrote the same way.
#[derive(Default)]
struct Hashed {
    hasher: sha2::Sha256,
    size: u64,
}

impl Hashed {
    /// Counts `chunk` and hands it on.
    fn read(&mut self, chunk: Bytes) -> Bytes {
        self.hasher.update(&chunk);
        self.size += chunk.len() as u64;
        chunk
    }

    /// The size read when the bytes' SHA-256 is `sha256`, else
    /// [`BlobError::Corrupt`] (the caller discards what it wrote).
    fn verify(self, sha256: &str) -> Result<u64, BlobError> {
        let actual = hex::encode(self.hasher.finalize());
        if actual != sha256 {
            return Err(BlobError::Corrupt { expected: sha256.to_owned(), actual });
        }
        Ok(self.size)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn fs_store_round_trips_and_dedupes() {
        let dir = std::env::temp_dir().join(format!("blobs-{}", uuid::Uuid::new_v4()));
        let store = FsBlobStore::new(&dir);
        let a = store.put(Bytes::from_static(b"hello")).await.unwrap();
        let b = store.put(Bytes::from_static(b"hello")).await.unwrap();
        assert_eq!(a, b);
        assert_eq!(a, sha256_hex(b"hello"));
        assert_eq!(store.get(&a).await.unwrap().unwrap(), Bytes::from_static(b"hello"));
        assert!(store.get(&"0".repeat(64)).await.unwrap().is_none());
        assert!(store.get("../../etc/passwd").await.unwrap().is_none());
        std::fs::remove_dir_all(dir).unwrap();
    }

    /// Blobs of several sizes, one over a multipart part.
    fn corpus() -> Vec<Bytes> {
        let mut blobs: Vec<Bytes> = (0..20).map(|i| Bytes::from(format!("openapi: 3.1.0 # document {i}\n"))).collect();
        blobs.push(Bytes::from((0..PART_BYTES + 12_345).map(|i| (i % 251) as u8).collect::<Vec<_>>()));
        blobs.push(Bytes::new());
        blobs
    }

    #[tokio::test]
    async fn migration_to_object_storage_and_back_is_byte_identical_and_resumes() {
        let dir = tempfile::tempdir().unwrap();
        let disk = FsBlobStore::new(dir.path().join("blobs"));
        let mut names = Vec::new();
        for blob in corpus() {
            names.push(disk.put(blob).await.unwrap());
        }
        let bucket = ObjectBlobStore::over(Arc::new(object_store::memory::InMemory::new()), "svc/hub");
        // Interrupted after 5 blobs: only whole, verified blobs arrived.
        let first = migrate(&disk, &bucket, Some(5), |_, _| {}).await.unwrap();
        assert_eq!((first.copied, first.present, first.total), (5, 0, 22));
        assert_eq!(bucket.list().await.unwrap().len(), 5);
        // The second run skips those five and copies the rest.
        let second = migrate(&disk, &bucket, None, |_, _| {}).await.unwrap();
        assert_eq!((second.copied, second.present), (17, 5));
        assert_eq!(bucket.list().await.unwrap(), disk.list().await.unwrap());
        // And back to another directory: every blob byte-identical.
        let back = FsBlobStore::new(dir.path().join("back"));
        let third = migrate(&bucket, &back, None, |_, _| {}).await.unwrap();
        assert_eq!(third.copied, 22);
        for (name, blob) in names.iter().zip(corpus()) {
            assert_eq!(back.get(name).await.unwrap().unwrap(), blob);
            assert_eq!(bucket.get(name).await.unwrap().unwrap(), blob);
        }
        // Nothing left to do.
        let again = migrate(&disk, &bucket, None, |_, _| {}).await.unwrap();
        assert_eq!((again.copied, again.present), (0, 22));
    }

    #[tokio::test]
    async fn a_blob_whose_content_does_not_match_its_name_is_refused_and_not_kept() {
        let dir = tempfile::tempdir().unwrap();
        let disk = FsBlobStore::new(dir.path());
        let bucket = ObjectBlobStore::over(Arc::new(object_store::memory::InMemory::new()), "p");
        let name = sha256_hex(b"the real content");
        for store in [&disk as &dyn BlobStore, &bucket as &dyn BlobStore] {
            let lying = futures_util::stream::once(async { Ok(Bytes::from_static(b"something else")) }).boxed();
            let refused = store.put_verified(&name, lying).await;
            assert!(matches!(refused, Err(BlobError::Corrupt { .. })), "{refused:?}");
            assert!(!store.contains(&name).await.unwrap());
            assert!(store.list().await.unwrap().is_empty());
        }
    }

    #[tokio::test]
    async fn object_store_round_trips_deletes_and_names_its_urls() {
        let bucket = ObjectBlobStore::over(Arc::new(object_store::memory::InMemory::new()), "x");
        let sha = bucket.put(Bytes::from_static(b"hello")).await.unwrap();
        assert_eq!(sha, sha256_hex(b"hello"));
        assert_eq!(bucket.put(Bytes::from_static(b"hello")).await.unwrap(), sha);
        assert!(bucket.contains(&sha).await.unwrap());
        let (streamed, size) = hash_stream(bucket.open(&sha).await.unwrap().unwrap()).await.unwrap();
        assert_eq!((streamed.as_str(), size), (sha.as_str(), 5));
        bucket.delete(&sha).await.unwrap();
        bucket.delete(&sha).await.unwrap();
        assert!(bucket.get(&sha).await.unwrap().is_none());
        assert!(bucket.get("../etc").await.unwrap().is_none());
        let db = Db::open_sqlite(&tempfile::tempdir().unwrap().path().join("t.db")).await.unwrap();
        assert!(matches!(store_for_url("ftp://x", "hub", &db), Err(BlobError::InvalidUrl(_))));
        assert!(store_for_url("database", "hub", &db).unwrap().describe().contains("table"));
        assert!(store_for_url("relative/blobs", "hub", &db).unwrap().describe().contains("relative/blobs"));
    }
}
