//! Values that read like real data, chosen from a property's name when its
//! schema says nothing more specific (no example, enum, format or bounds):
//! a `title` reads like a title, a `login` like a user name, a `year` like a
//! year. The sampler asks here before falling back to the name itself, and
//! still fits the choice to the schema's lengths and pattern afterwards, so
//! a sample stays valid against its schema.
//!
//! Deterministic: one name always gives the same value, so an id or a login
//! reads the same in a request and in its response, and pages and mock
//! answers are stable.

/// The words of a property name, lowercased: `full_name`, `fullName` and
/// `full-name` all give `["full", "name"]`.
fn words(name: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut current = String::new();
    let mut previous_lower = false;
    for ch in name.chars() {
        if !ch.is_ascii_alphanumeric() {
            if !current.is_empty() {
                out.push(std::mem::take(&mut current));
            }
            previous_lower = false;
            continue;
        }
        if ch.is_ascii_uppercase() && previous_lower && !current.is_empty() {
            out.push(std::mem::take(&mut current));
        }
        previous_lower = ch.is_ascii_lowercase() || ch.is_ascii_digit();
        current.push(ch.to_ascii_lowercase());
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

/// A realistic string for a property called `name`, when its last word (or
/// the whole name) is one we know.
#[must_use]
pub fn string_for(name: &str) -> Option<&'static str> {
    let words = words(name);
    let last = words.last()?.as_str();
    let whole = words.join("_");
    let by_whole = match whole.as_str() {
        "full_name" | "display_name" => Some("Ada Lovelace"),
        "first_name" | "given_name" => Some("Ada"),
        "last_name" | "family_name" | "surname" => Some("Lovelace"),
        "content_type" | "media_type" | "mime_type" => Some("application/json"),
        "postal_code" | "zip_code" => Some("NW1 6XE"),
        "time_zone" => Some("Europe/London"),
        "country_code" => Some("GB"),
        "currency_code" => Some("EUR"),
        "default_branch" => Some("main"),
        "user_agent" => Some("Mozilla/5.0 (X11; Linux x86_64)"),
        _ => None,
    };
    if by_whole.is_some() {
        return by_whole;
    }
    Some(match last {
        "title" | "subject" | "headline" => "Getting started with the API",
        "description" | "summary" | "bio" | "about" => "A short description written by its owner.",
        "body" | "content" | "text" | "comment" | "note" | "notes" => "Looks good to me, thanks for the quick fix!",
        // Neutral: the same property is sampled for 2xx and error answers.
        "message" => "A human-readable explanation of this response.",
        "reason" => "Requested by the account owner",
        "login" | "username" | "user" | "owner" | "author" | "handle" | "nickname" | "assignee" | "creator" => {
            "ada-lovelace"
        }
        "repo" | "repository" | "project" | "slug" => "hello-world",
        "company" | "organization" | "organisation" | "org" | "team" | "publisher" | "vendor" => "Acme Corporation",
        "status" | "state" => "active",
        "type" | "kind" | "category" | "tier" | "plan" => "standard",
        "role" => "admin",
        "label" | "tag" | "topic" | "keyword" => "documentation",
        "language" | "lang" => "en",
        "locale" => "en-GB",
        "currency" => "EUR",
        "timezone" | "tz" => "Europe/London",
        "address" | "street" | "line1" => "221B Baker Street",
        "region" | "province" => "Greater London",
        "zip" | "postcode" => "NW1 6XE",
        "isbn" => "9780262033848",
        "sku" => "SKU-10042",
        "version" => "1.4.2",
        "sha" | "hash" | "checksum" | "digest" | "commit" | "etag" => "6dcb09b5b57875f334f61aebed695e2e4193db5e",
        "ref" | "branch" => "main",
        "token" | "key" | "secret" => "key_8f14e45fceea167a",
        "password" | "passphrase" => "correct-horse-battery-staple",
        "color" | "colour" => "#336699",
        "icon" | "avatar" | "image" | "photo" | "picture" | "logo" | "thumbnail" => {
            "https://example.com/images/avatar.png"
        }
        "path" => "/docs/readme.md",
        "file" | "filename" => "report-2024.pdf",
        "extension" | "ext" => "pdf",
        "host" | "hostname" | "domain" => "api.example.com",
        "ip" => "192.0.2.1",
        "query" | "q" | "search" | "term" => "getting started",
        "cursor" | "after" | "before" => "eyJwYWdlIjoyfQ",
        "country" => "GB",
        "city" => "London",
        "phone" | "mobile" => "+15555550123",
        "website" | "homepage" | "blog" => "https://example.com",
        "sort" | "order" | "direction" => "asc",
        "format" => "json",
        "unit" | "units" => "metric",
        "code" => "ABC123",
        _ => return None,
    })
}

/// A realistic integer for a property called `name` whose schema sets no
/// bounds (callers check), when the name is one we know.
#[must_use]
pub fn integer_for(name: &str) -> Option<i64> {
    let words = words(name);
    let last = words.last()?.as_str();
    let whole = words.join("_");
    if matches!(whole.as_str(), "per_page" | "page_size") {
        return Some(30);
    }
    Some(match last {
        "year" => 2024,
        "month" => 6,
        "day" => 15,
        "age" => 42,
        "port" => 8080,
        "pages" => 320,
        "page" => 1,
        "limit" => 20,
        "offset" | "skip" => 0,
        "price" | "amount" | "cents" | "cost" | "total" => 1999,
        "quantity" | "qty" => 2,
        "count" | "followers" | "following" | "stars" | "watchers" | "forks" | "views" | "downloads" => 42,
        "size" | "bytes" | "length" => 2048,
        "duration" | "seconds" | "timeout" | "ttl" => 90,
        "rating" => 4,
        "score" => 87,
        "width" => 1280,
        "height" => 720,
        "version" => 3,
        "number" => 1347,
        "priority" => 2,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_split_into_words_whatever_their_case() {
        assert_eq!(words("fullName"), ["full", "name"]);
        assert_eq!(words("full_name"), ["full", "name"]);
        assert_eq!(words("HTML-url"), ["html", "url"]);
        assert_eq!(words("line1"), ["line1"]);
    }

    #[test]
    fn known_names_read_like_real_data() {
        assert_eq!(string_for("title"), Some("Getting started with the API"));
        assert_eq!(string_for("bookTitle"), Some("Getting started with the API"));
        assert_eq!(string_for("owner"), Some("ada-lovelace"));
        assert_eq!(string_for("repo"), Some("hello-world"));
        assert_eq!(string_for("content_type"), Some("application/json"));
        assert_eq!(string_for("zzz"), None);
        assert_eq!(integer_for("published_year"), Some(2024));
        assert_eq!(integer_for("per_page"), Some(30));
        assert_eq!(integer_for("id"), None);
    }

    #[test]
    fn samples_read_like_real_data_and_stay_valid() {
        let spec = spec::parse(
            br"
openapi: 3.1.0
info: {title: t, version: '1'}
paths: {}
components:
  schemas:
    Book:
      type: object
      required: [id, title, owner]
      properties:
        id: {type: string, format: uuid}
        title: {type: string, minLength: 1, maxLength: 12}
        owner: {type: string, pattern: '^[a-z-]+$'}
        published_year: {type: integer}
        pages: {type: integer, maximum: 100}
        status: {type: string, enum: [draft, live]}
        sku: {type: string, pattern: '^[0-9]{4}$'}
",
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let schema = serde_json::json!({"$ref": "#/components/schemas/Book"});
        let value = crate::sample::sample(&spec, &schema, crate::sample::Direction::Response);
        // Lengths and patterns still decide: the title is cut to 12
        // characters, the pattern-bound sku is drawn from its pattern, the
        // bounded page count keeps its bound and the enum its first value.
        assert_eq!(value["title"], "Getting star");
        assert_eq!(value["owner"], "ada-lovelace");
        assert_eq!(value["published_year"], 2024);
        assert_eq!(value["status"], "draft");
        assert_ne!(value["sku"], "SKU-10042");
        assert_ne!(value["pages"], 320);
        let set = crate::schema::SchemaSet::new(&spec);
        let validator = set.validator(&spec, &schema).unwrap_or_else(|| panic!("no validator"));
        assert!(validator.is_valid(&value), "{value}");
    }
}
