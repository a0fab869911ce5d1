//! Podcasts and audiobooks: which scanned files are spoken word rather than
//! music, and reading shows, episodes, audiobooks and chapters.
//!
//! The convention (documented in docs/catalog.md):
//! - a file below a folder named `Podcasts` is an episode of the show named
//!   by the folder right below it (`Podcasts/<Show>/<episode files>`);
//! - a file below a folder named `Audiobooks` is a chapter of the audiobook
//!   named by the folder right below it, `<Author> - <Book>`
//!   (`Audiobooks/<Author> - <Book>/<chapter files>`);
//! - elsewhere, a genre tag `Podcast` or `Audiobook` does the same, with the
//!   album tag naming the show or book.
//!
//! Tags win over folder names where both exist: the album tag names the show
//! or the book, the album artist (or artist) tag its publisher or author.
//! Folder names compare without regard to case.

use crate::Catalog;
use crate::error::{CatalogError, CatalogResult};
use crate::ids::ItemKind;
use crate::model::{Episode, Saved, Show, Slice, Window};
use crate::scan::FileTags;
use crate::search::SearchQuery;

/// What the convention says about a spoken-word file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpokenFile {
    /// [`ItemKind::Show`] or [`ItemKind::Audiobook`].
    pub kind: ItemKind,
    /// The show's or the book's name.
    pub collection: String,
    /// The publisher or the author.
    pub publisher: String,
}

fn kind_of_folder(name: &str) -> Option<ItemKind> {
    match name.to_lowercase().as_str() {
        "podcasts" | "podcast" => Some(ItemKind::Show),
        "audiobooks" | "audiobook" => Some(ItemKind::Audiobook),
        _ => None,
    }
}

fn kind_of_genre(genre: &str) -> Option<ItemKind> {
    match genre.trim().to_lowercase().as_str() {
        "podcast" | "podcasts" => Some(ItemKind::Show),
        "audiobook" | "audiobooks" | "audio book" => Some(ItemKind::Audiobook),
        _ => None,
    }
}

/// Classifies a file from the folders above it (outermost first, without the
/// file name) and its tags; `None` for music.
pub fn classify(folders: &[&str], tags: &FileTags) -> Option<SpokenFile> {
    // The innermost `Podcasts`/`Audiobooks` folder, and the folder below it.
    let from_folder =
        folders.iter().enumerate().rev().find_map(|(i, f)| kind_of_folder(f).map(|k| (k, folders.get(i + 1).copied())));
    let (kind, folder) = match from_folder {
        Some((kind, folder)) => (kind, folder),
        None => (tags.genre.as_deref().and_then(kind_of_genre)?, folders.last().copied()),
    };
    // `<Author> - <Book>` for audiobooks; a show folder is the show's name.
    let (folder_publisher, folder_name) = match (kind, folder) {
        (ItemKind::Audiobook, Some(f)) => match f.split_once(" - ") {
            Some((author, book)) => (Some(author.trim().to_owned()), Some(book.trim().to_owned())),
            None => (None, Some(f.to_owned())),
        },
        (_, f) => (None, f.map(str::to_owned)),
    };
    let collection = tags.album.clone().or(folder_name).filter(|n| !n.is_empty()).unwrap_or_else(|| {
        if kind == ItemKind::Audiobook { "Unknown audiobook".to_owned() } else { "Unknown show".to_owned() }
    });
    let publisher = tags
        .album_artist
        .clone()
        .or_else(|| tags.artist.clone())
        .or(folder_publisher)
        .filter(|p| !p.is_empty())
        .unwrap_or_default();
    Some(SpokenFile { kind, collection, publisher })
}

/// The episode kind of a collection kind: a show has episodes, an
/// audiobook chapters.
pub const fn item_kind_of(collection: ItemKind) -> ItemKind {
    if matches!(collection, ItemKind::Audiobook) { ItemKind::Chapter } else { ItemKind::Episode }
}

/// The collection kind of an item kind (`Episode` → `Show`, `Chapter` → `Audiobook`).
pub const fn collection_of(item: ItemKind) -> ItemKind {
    if matches!(item, ItemKind::Chapter | ItemKind::Audiobook) { ItemKind::Audiobook } else { ItemKind::Show }
}

const fn not_found(kind: ItemKind) -> CatalogError {
    CatalogError::NotFound(kind.as_str())
}

impl Catalog {
    /// Shows (or audiobooks) by id, in the order asked; unknown ids, and ids
    /// of the other kind, are `None`.
    pub async fn shows(&self, kind: ItemKind, ids: &[String]) -> CatalogResult<Vec<Option<Show>>> {
        let kind = collection_of(kind);
        Ok(self.store.shows(ids).await?.into_iter().map(|s| s.filter(|s| s.kind == kind)).collect())
    }

    pub async fn show(&self, kind: ItemKind, id: &str) -> CatalogResult<Show> {
        self.shows(kind, &[id.to_owned()]).await?.into_iter().flatten().next().ok_or(not_found(kind))
    }

    /// Episodes (or chapters) by id, in the order asked; unknown ids, and ids
    /// of the other kind, are `None`.
    pub async fn episodes(&self, kind: ItemKind, ids: &[String]) -> CatalogResult<Vec<Option<Episode>>> {
        Ok(self.store.episodes(ids).await?.into_iter().map(|e| e.filter(|e| e.kind() == kind)).collect())
    }

    pub async fn episode(&self, kind: ItemKind, id: &str) -> CatalogResult<Episode> {
        self.episodes(kind, &[id.to_owned()]).await?.into_iter().flatten().next().ok_or(not_found(kind))
    }

    /// A page of a show's episodes (or an audiobook's chapters), in order.
    pub async fn show_episodes(&self, kind: ItemKind, id: &str, window: Window) -> CatalogResult<Slice<Episode>> {
        self.show(kind, id).await?;
        let ids = self.store.show_episode_ids(id, window).await?;
        let items = self.store.episodes(&ids.items).await?.into_iter().flatten().collect();
        Ok(Slice { items, total: ids.total })
    }

    /// Search over shows or audiobooks (`kind`), by name and publisher.
    pub async fn search_shows(&self, kind: ItemKind, q: &SearchQuery, window: Window) -> CatalogResult<Slice<Show>> {
        let ids = self.store.search_spoken_ids(kind, q, window).await?;
        let items = self.store.shows(&ids.items).await?.into_iter().flatten().collect();
        Ok(Slice { items, total: ids.total })
    }

    /// Search over episodes, by their name and their show's.
    pub async fn search_episodes(&self, q: &SearchQuery, window: Window) -> CatalogResult<Slice<Episode>> {
        let ids = self.store.search_spoken_ids(ItemKind::Episode, q, window).await?;
        let items = self.store.episodes(&ids.items).await?.into_iter().flatten().collect();
        Ok(Slice { items, total: ids.total })
    }

    /// Whether every id names an item of `kind` (show, audiobook, episode or chapter).
    pub(crate) async fn spoken_exist(&self, kind: ItemKind, ids: &[String]) -> CatalogResult<bool> {
        Ok(match kind {
            ItemKind::Show | ItemKind::Audiobook => self.shows(kind, ids).await?.iter().all(Option::is_some),
            _ => self.episodes(kind, ids).await?.iter().all(Option::is_some),
        })
    }

    /// The user's saved shows or audiobooks, most recently saved first.
    pub async fn saved_shows(
        &self,
        user_id: &str,
        kind: ItemKind,
        window: Window,
    ) -> CatalogResult<Slice<Saved<Show>>> {
        let page = self.store.saved_ids(user_id, kind.as_str(), window).await?;
        let ids: Vec<String> = page.items.iter().map(|(id, _)| id.clone()).collect();
        let shows = self.shows(kind, &ids).await?;
        let items = page
            .items
            .iter()
            .zip(shows)
            .filter_map(|((_, at), s)| s.map(|item| Saved { added_at: *at, item }))
            .collect();
        Ok(Slice { items, total: page.total })
    }

    /// Fills each episode's `resume_point` with the user's position in it.
    pub async fn with_resume_points(
        &self,
        user_id: &str,
        episodes: impl IntoIterator<Item = &mut Episode> + Send,
    ) -> CatalogResult<()> {
        let episodes: Vec<&mut Episode> = episodes.into_iter().collect();
        let ids: Vec<String> = episodes.iter().map(|e| e.id.clone()).collect();
        let points = self.store.resume_points(user_id, &ids).await?;
        for episode in episodes {
            if let Some((position, done)) = points.get(&episode.id) {
                episode.resume_position_ms = *position;
                episode.fully_played = *done;
            }
        }
        Ok(())
    }

    /// Records where the user is in an episode or chapter (the player does,
    /// from its device's reports); other ids are ignored.
    pub async fn record_position(&self, user_id: &str, id: &str, position_ms: u64, ended: bool) -> CatalogResult<()> {
        if self.store.episodes(&[id.to_owned()]).await?.iter().flatten().next().is_none() {
            return Ok(());
        }
        Ok(self.store.set_resume_point(user_id, id, position_ms, ended, self.clock.now()).await?)
    }

    /// The user's saved episodes, most recently saved first.
    pub async fn saved_episodes(&self, user_id: &str, window: Window) -> CatalogResult<Slice<Saved<Episode>>> {
        let page = self.store.saved_ids(user_id, "episode", window).await?;
        let ids: Vec<String> = page.items.iter().map(|(id, _)| id.clone()).collect();
        let episodes = self.episodes(ItemKind::Episode, &ids).await?;
        let items = page
            .items
            .iter()
            .zip(episodes)
            .filter_map(|((_, at), e)| e.map(|item| Saved { added_at: *at, item }))
            .collect();
        Ok(Slice { items, total: page.total })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tags(genre: Option<&str>, album: Option<&str>, artist: Option<&str>) -> FileTags {
        FileTags {
            genre: genre.map(str::to_owned),
            album: album.map(str::to_owned),
            artist: artist.map(str::to_owned),
            ..FileTags::default()
        }
    }

    #[test]
    fn folders_name_shows_and_audiobooks() {
        let none = FileTags::default();
        let show = classify(&["home", "Podcasts", "Signal Hour"], &none).unwrap();
        assert_eq!(
            show,
            SpokenFile { kind: ItemKind::Show, collection: "Signal Hour".into(), publisher: String::new() }
        );
        let book = classify(&["lib", "audiobooks", "Ada Byron - Notes on the Engine", "disc 1"], &none).unwrap();
        assert_eq!(book.kind, ItemKind::Audiobook);
        assert_eq!(book.collection, "Notes on the Engine");
        assert_eq!(book.publisher, "Ada Byron");
        let untitled = classify(&["Audiobooks", "Just A Title"], &none).unwrap();
        assert_eq!((untitled.collection.as_str(), untitled.publisher.as_str()), ("Just A Title", ""));
        assert_eq!(classify(&["Podcasts"], &none).unwrap().collection, "Unknown show");
    }

    #[test]
    fn tags_win_over_folders_and_genres_classify_elsewhere() {
        let tagged = tags(None, Some("The Real Name"), Some("Studio"));
        let show = classify(&["Podcasts", "folder name"], &tagged).unwrap();
        assert_eq!((show.collection.as_str(), show.publisher.as_str()), ("The Real Name", "Studio"));
        let by_genre = classify(&["Music", "Somebody"], &tags(Some("Audiobook"), Some("A Book"), Some("Writer")));
        assert_eq!(by_genre.unwrap().kind, ItemKind::Audiobook);
        let podcast = classify(&["x", "Talk"], &tags(Some(" podcast "), None, None)).unwrap();
        assert_eq!((podcast.kind, podcast.collection.as_str()), (ItemKind::Show, "Talk"));
        assert!(classify(&["Artist", "Album"], &tags(Some("rock"), Some("Album"), Some("Artist"))).is_none());
        assert!(classify(&["Podcasters", "Album"], &FileTags::default()).is_none());
    }

    #[test]
    fn kinds_pair_up() {
        assert_eq!(item_kind_of(ItemKind::Audiobook), ItemKind::Chapter);
        assert_eq!(item_kind_of(ItemKind::Show), ItemKind::Episode);
        assert_eq!(collection_of(ItemKind::Chapter), ItemKind::Audiobook);
        assert_eq!(collection_of(ItemKind::Episode), ItemKind::Show);
    }
}
