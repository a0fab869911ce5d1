//! Property tests of every parser that reads untrusted input (headers,
//! query strings, bodies): arbitrary input never panics, and what parses
//! keeps its promises. `SVC_TEST_LONG=1` runs many more cases.

use proptest::prelude::*;

use crate::ids::{ItemKind, ItemUri, parse_id, parse_id_list};
use crate::limits::parse_market;
use crate::playlists::{Removal, Reorder, check_snapshot, remove_items, reorder, snapshot_version};
use crate::scopes::Scopes;
use crate::search::{SearchQuery, fts_phrases};
use crate::stream::{ByteRange, byte_range};

fn config() -> ProptestConfig {
    let long = std::env::var_os("SVC_TEST_LONG").is_some_and(|v| v != "0");
    ProptestConfig { cases: if long { 50_000 } else { 512 }, ..ProptestConfig::default() }
}

/// Text near what each parser expects, and plain noise.
fn hostile_text() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        "[a-zA-Z0-9:,=\\- ]{0,64}",
        "bytes=[0-9 ,-]{0,40}",
        "spotify:[a-z]{0,10}:[A-Za-z0-9]{0,30}",
        "[a-z-]{0,30}( [a-z-]{0,30}){0,5}",
        "(artist|album|track|genre|isrc|year|tag):[\\PC]{0,20}( [\\PC]{0,10}){0,4}",
    ]
}

const KINDS: [ItemKind; 4] = [ItemKind::Track, ItemKind::Album, ItemKind::Artist, ItemKind::Playlist];

proptest! {
    #![proptest_config(config())]

    #[test]
    fn ranges_never_panic_and_stay_inside_the_body(header in hostile_text(), len in prop_oneof![Just(0_u64), 1..10_000_u64, Just(u64::MAX)]) {
        match byte_range(Some(&header), len) {
            ByteRange::Partial { start, end } => prop_assert!(start <= end && end < len, "{header:?} over {len}"),
            ByteRange::Full | ByteRange::Unsatisfiable => {}
        }
    }

    #[test]
    fn ids_and_uris_never_panic(text in hostile_text(), max in 0_usize..60) {
        for kind in KINDS {
            if let Ok(id) = parse_id(&text, kind) {
                prop_assert!(crate::ids::is_valid_id(&id), "{id:?}");
            }
            if let Ok(ids) = parse_id_list(&text, kind, max) {
                prop_assert!(ids.len() <= max);
            }
        }
        if let Ok(uri) = ItemUri::parse(&text) {
            prop_assert!(crate::ids::is_valid_id(&uri.id));
        }
        let _ = ItemKind::parse(&text);
    }

    #[test]
    fn scopes_markets_and_snapshots_never_panic(text in hostile_text(), current in any::<i64>()) {
        if let Ok(scopes) = Scopes::parse(&text) {
            // What parsed is only known scopes, and reads back the same.
            prop_assert_eq!(Scopes::parse(&scopes.to_header()).ok(), Some(scopes));
        }
        let _ = parse_market(&text);
        if let Some(v) = snapshot_version(&text) {
            prop_assert!(v >= 1);
        }
        let _ = check_snapshot(Some(&text), current);
    }

    #[test]
    fn search_queries_never_panic(text in hostile_text()) {
        let query = SearchQuery::parse(&text);
        let _ = fts_phrases("search_text", &query.terms);
    }

    #[test]
    fn reorders_and_removals_never_panic_and_keep_the_items(
        len in 0_usize..40,
        range_start in prop_oneof![0_usize..50, Just(usize::MAX)],
        insert_before in prop_oneof![0_usize..50, Just(usize::MAX)],
        range_length in prop_oneof![0_usize..50, Just(usize::MAX), Just(usize::MAX - 1)],
        positions in proptest::collection::vec(prop_oneof![0_usize..50, Just(usize::MAX)], 0..5),
    ) {
        let items: Vec<usize> = (0..len).collect();
        if let Ok(moved) = reorder(items.clone(), Reorder { range_start, insert_before, range_length }) {
            let mut sorted = moved.clone();
            sorted.sort_unstable();
            prop_assert_eq!(sorted, items.clone(), "a reorder neither loses nor adds items");
        }
        let names: Vec<String> = items.iter().map(|i| (i % 3).to_string()).collect();
        let removal = Removal { item_id: "1".to_owned(), positions: Some(positions) };
        if let Ok(left) = remove_items(names.clone(), std::slice::from_ref(&removal), String::as_str) {
            prop_assert!(left.len() <= names.len());
        }
    }
}
