//! Reading `imsmanifest.xml` of any SCORM 1.2 or 2004 package: the edition,
//! the default organization's items in order, the resource each item
//! launches (its `href` resolved against every `xml:base` and the item's
//! `parameters`), and what the manifest says about scoring (1.2's
//! `adlcp:masteryscore`, 2004's primary objective measured by score, the
//! completion threshold). Pure: no I/O.
//!
//! The XML is parsed by roxmltree with DTDs refused (so no entity
//! expansion, internal or external) and a node limit, after the caller has
//! bounded the manifest's size. Elements and attributes are matched by their
//! local names, because packages in the wild use every revision of the ADL
//! and IMS namespaces (and some none at all).

use std::collections::HashMap;

use roxmltree::{Document, Node, ParsingOptions};

use crate::scorm::ScormVersion;

/// The largest manifest read (real ones are a few kilobytes to a few
/// hundred for packages with thousands of files).
pub const MAX_MANIFEST_BYTES: usize = 5_000_000;
/// Elements, attributes and text nodes of one manifest.
pub const MAX_NODES: u32 = 200_000;
/// Items a course is made of (one screen each: the content limit).
pub const MAX_ITEMS: usize = crate::content::MAX_SCREENS;

/// Why a manifest cannot be used, for the person who uploaded it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ManifestError {
    /// The part of the manifest at fault (`schemaversion`, `organizations`,
    /// an item's identifier...).
    pub at: String,
    pub message: String,
}

impl ManifestError {
    fn new(at: impl Into<String>, message: impl Into<String>) -> Self {
        Self { at: at.into(), message: message.into() }
    }
}

/// Whether a resource is a SCO (talks to the runtime) or an asset (plain
/// content that never calls it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScormType {
    Sco,
    Asset,
}

impl ScormType {
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Sco => "sco",
            Self::Asset => "asset",
        }
    }
}

/// One launchable item of the organization, in document order.
#[derive(Clone, Debug, PartialEq)]
pub struct LaunchItem {
    pub identifier: String,
    pub title: String,
    /// The path to open, relative to the package root, as a URL path
    /// (percent-encoded as in the manifest) with the item's parameters.
    pub launch: String,
    /// The file the launch path names, decoded, as it is named in the zip.
    pub file: String,
    pub scorm_type: ScormType,
    /// 0 to 100: 1.2's `masteryscore`, or 2004's `minNormalizedMeasure` of
    /// a primary objective satisfied by measure, as a percentage.
    pub mastery_score: Option<f64>,
    /// 1.2 `adlcp:datafromlms`, 2004 `adlcp:dataFromLMS`: `cmi.launch_data`.
    pub launch_data: Option<String>,
    /// 2004 `adlcp:completionThreshold` (0 to 1).
    pub completion_threshold: Option<f64>,
}

/// What a manifest describes.
#[derive(Clone, Debug, PartialEq)]
pub struct Manifest {
    pub version: ScormVersion,
    /// The organization's title (the course title).
    pub title: String,
    pub items: Vec<LaunchItem>,
    /// Whether any IMS Simple Sequencing rules were present (they are read
    /// for scoring only; the player presents the items in order).
    pub has_sequencing: bool,
}

fn local<'a>(node: Node<'a, '_>) -> &'a str {
    node.tag_name().name()
}

fn children<'a, 'input>(node: Node<'a, 'input>, name: &'a str) -> impl Iterator<Item = Node<'a, 'input>> + 'a {
    node.children().filter(move |c| c.is_element() && local(*c).eq_ignore_ascii_case(name))
}

fn child<'a, 'input>(node: Node<'a, 'input>, name: &'a str) -> Option<Node<'a, 'input>> {
    children(node, name).next()
}

/// An attribute by local name, whatever its namespace (`scormtype` and
/// `scormType` alike).
fn attr<'a>(node: Node<'a, '_>, name: &str) -> Option<&'a str> {
    node.attributes().find(|a| a.name().eq_ignore_ascii_case(name)).map(|a| a.value())
}

fn xml_base<'a>(node: Node<'a, '_>) -> Option<&'a str> {
    node.attribute(("http://www.w3.org/XML/1998/namespace", "base"))
}

fn text(node: Option<Node<'_, '_>>) -> Option<String> {
    let text: String = node?.descendants().filter(Node::is_text).filter_map(|n| n.text()).collect();
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    (!text.is_empty()).then_some(text)
}

fn edition(root: Node<'_, '_>) -> Result<ScormVersion, ManifestError> {
    let declared = child(root, "metadata").and_then(|m| text(child(m, "schemaversion")));
    match declared.as_deref().map(str::trim) {
        Some("1.2") => return Ok(ScormVersion::Scorm12),
        Some(v) if v.starts_with("2004") || v.starts_with("CAM 1.3") => return Ok(ScormVersion::Scorm2004),
        Some(v) => {
            return Err(ManifestError::new("schemaversion", format!("schemaversion {v:?} is not SCORM 1.2 or 2004")));
        }
        None => {}
    }
    // Without a schemaversion, the ADL namespace the manifest declares tells
    // the edition (many 1.2 tools omitted the metadata).
    let namespaces: Vec<&str> = root.namespaces().map(roxmltree::Namespace::uri).collect();
    if namespaces.iter().any(|ns| ns.contains("adlcp_rootv1p2")) {
        Ok(ScormVersion::Scorm12)
    } else if namespaces.iter().any(|ns| ns.contains("adlcp_v1p3")) {
        Ok(ScormVersion::Scorm2004)
    } else {
        Err(ManifestError::new("schemaversion", "the manifest names no SCORM edition (schemaversion 1.2 or 2004)"))
    }
}

/// `base` joined with `href` (a relative reference); absolute URLs are
/// returned as they are so the caller can refuse them.
fn join(base: &str, href: &str) -> String {
    if href.contains("://") || href.starts_with('/') || base.is_empty() {
        return href.to_owned();
    }
    if base.ends_with('/') { format!("{base}{href}") } else { format!("{base}/{href}") }
}

/// Decodes `%XX` escapes of a URL path (the zip names the file unescaped).
fn percent_decode(path: &str) -> Option<String> {
    let bytes = path.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        if b == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(b);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// The launch path's file inside the package: `./` removed, `..` and
/// absolute or remote references refused.
fn package_file(launch: &str) -> Option<String> {
    let path = launch.split(['?', '#']).next().unwrap_or_default();
    if path.is_empty() || path.contains("://") || path.starts_with('/') || path.contains('\\') {
        return None;
    }
    let decoded = percent_decode(path)?;
    let mut parts = Vec::new();
    for part in decoded.split('/') {
        match part {
            "" | "." => {}
            ".." => return None,
            part => parts.push(part),
        }
    }
    (!parts.is_empty()).then(|| parts.join("/"))
}

/// Appends an item's `parameters` to a launch URL as IMS Content Packaging
/// says: a leading `?` becomes `&` when the URL already has a query.
fn with_parameters(href: &str, parameters: Option<&str>) -> String {
    let Some(parameters) = parameters.map(str::trim).filter(|p| !p.is_empty()) else { return href.to_owned() };
    if parameters.starts_with('#') {
        return format!("{href}{parameters}");
    }
    let parameters = parameters.trim_start_matches(['?', '&']);
    if href.contains('?') { format!("{href}&{parameters}") } else { format!("{href}?{parameters}") }
}

struct Resource {
    href: Option<String>,
    scorm_type: ScormType,
}

fn number(node: Option<Node<'_, '_>>) -> Option<f64> {
    text(node)?.trim().parse::<f64>().ok().filter(|n| n.is_finite())
}

/// 2004: the primary objective's `minNormalizedMeasure` when it is
/// satisfied by measure (the score that passes), as a percentage.
fn sequencing_mastery(item: Node<'_, '_>) -> Option<f64> {
    let objective = child(child(child(item, "sequencing")?, "objectives")?, "primaryObjective")?;
    if attr(objective, "satisfiedByMeasure").is_none_or(|v| v.trim() != "true") {
        return None;
    }
    // The default minimum measure is 1.0 (IMS SS).
    let measure = child(objective, "minNormalizedMeasure").map_or(Some(1.0), |n| number(Some(n)))?;
    Some((measure.clamp(-1.0, 1.0).max(0.0) * 100.0 * 100.0).round() / 100.0)
}

fn collect_items<'a>(
    node: Node<'a, 'a>,
    resources: &HashMap<&str, Resource>,
    out: &mut Vec<LaunchItem>,
) -> Result<(), ManifestError> {
    for item in children(node, "item") {
        let identifier = attr(item, "identifier").unwrap_or_default().to_owned();
        if let Some(reference) = attr(item, "identifierref") {
            let resource = resources.get(reference).ok_or_else(|| {
                ManifestError::new(
                    format!("item {identifier}"),
                    format!("identifierref {reference:?} names no resource of the manifest"),
                )
            })?;
            if let Some(href) = &resource.href {
                if out.len() >= MAX_ITEMS {
                    return Err(ManifestError::new(
                        "organizations",
                        format!("the organization launches more than {MAX_ITEMS} items"),
                    ));
                }
                let launch = with_parameters(href, attr(item, "parameters"));
                let file = package_file(&launch).ok_or_else(|| {
                    ManifestError::new(
                        format!("resource {reference}"),
                        format!("href {href:?} must be a relative path inside the package"),
                    )
                })?;
                let mastery = number(child(item, "masteryscore")).map(|m| m.clamp(0.0, 100.0));
                let title = text(child(item, "title")).unwrap_or_else(|| identifier.clone());
                out.push(LaunchItem {
                    title: title.chars().take(crate::content::MAX_TITLE_CHARS).collect(),
                    launch,
                    file,
                    scorm_type: resource.scorm_type,
                    mastery_score: mastery.or_else(|| sequencing_mastery(item)),
                    launch_data: text(child(item, "datafromlms")),
                    completion_threshold: child(item, "completionThreshold")
                        .and_then(|n| {
                            attr(n, "minProgressMeasure")
                                .and_then(|v| v.trim().parse::<f64>().ok())
                                .or_else(|| number(Some(n)))
                        })
                        .filter(|t| (0.0..=1.0).contains(t)),
                    identifier: identifier.clone(),
                });
            }
        }
        collect_items(item, resources, out)?;
    }
    Ok(())
}

/// Parses a manifest's text.
pub fn parse(xml: &str) -> Result<Manifest, ManifestError> {
    if xml.len() > MAX_MANIFEST_BYTES {
        return Err(ManifestError::new("manifest", format!("the manifest is larger than {MAX_MANIFEST_BYTES} bytes")));
    }
    let options = ParsingOptions { allow_dtd: false, nodes_limit: MAX_NODES };
    let doc = Document::parse_with_options(xml.trim_start_matches('\u{feff}'), options)
        .map_err(|e| ManifestError::new("manifest", format!("the manifest is not well-formed XML ({e})")))?;
    let root = doc.root_element();
    if !local(root).eq_ignore_ascii_case("manifest") {
        return Err(ManifestError::new("manifest", "the root element must be <manifest>"));
    }
    let version = edition(root)?;
    let manifest_base = xml_base(root).unwrap_or_default();
    let resources_node = child(root, "resources")
        .ok_or_else(|| ManifestError::new("resources", "the manifest has no <resources> element"))?;
    let resources_base = join(manifest_base, xml_base(resources_node).unwrap_or_default());
    let mut resources = HashMap::new();
    for node in children(resources_node, "resource") {
        let Some(identifier) = attr(node, "identifier") else { continue };
        let base = join(&resources_base, xml_base(node).unwrap_or_default());
        let href = attr(node, "href").map(str::trim).filter(|h| !h.is_empty()).map(|h| join(&base, h));
        let scorm_type = match attr(node, "scormtype").map(str::trim) {
            Some(t) if t.eq_ignore_ascii_case("asset") => ScormType::Asset,
            _ => ScormType::Sco,
        };
        resources.insert(identifier, Resource { href, scorm_type });
    }
    let organizations = child(root, "organizations")
        .ok_or_else(|| ManifestError::new("organizations", "the manifest has no <organizations> element"))?;
    let wanted = attr(organizations, "default");
    let organization = children(organizations, "organization")
        .find(|o| wanted.is_none_or(|w| attr(*o, "identifier") == Some(w)))
        .or_else(|| child(organizations, "organization"));
    let mut items = Vec::new();
    let title = match organization {
        Some(org) => {
            collect_items(org, &resources, &mut items)?;
            text(child(org, "title"))
        }
        None => None,
    };
    // A package without an organization (allowed for resource-only
    // packages) launches its SCO resources in document order.
    if organization.is_none() {
        for (at, node) in children(resources_node, "resource").enumerate() {
            let Some(resource) = attr(node, "identifier").and_then(|id| resources.get(id)) else { continue };
            let Some(href) = &resource.href else { continue };
            if resource.scorm_type != ScormType::Sco || items.len() >= MAX_ITEMS {
                continue;
            }
            let file = package_file(href)
                .ok_or_else(|| ManifestError::new("resources", format!("href {href:?} must be inside the package")))?;
            items.push(LaunchItem {
                identifier: attr(node, "identifier").unwrap_or_default().to_owned(),
                title: format!("Part {}", at + 1),
                launch: href.clone(),
                file,
                scorm_type: ScormType::Sco,
                mastery_score: None,
                launch_data: None,
                completion_threshold: None,
            });
        }
    }
    if items.is_empty() {
        return Err(ManifestError::new(
            "organizations",
            "the manifest launches no item (no item names a resource with an href)",
        ));
    }
    let has_sequencing = root.descendants().any(|n| n.is_element() && local(n) == "sequencing");
    let title = title
        .or_else(|| items.first().map(|i| i.title.clone()))
        .unwrap_or_else(|| "Imported SCORM course".to_owned())
        .chars()
        .take(crate::content::MAX_TITLE_CHARS)
        .collect();
    Ok(Manifest { version, title, items, has_sequencing })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shape of ADL's SCORM 1.2 content examples: two SCOs and a
    /// shared asset, a mastery score, launch data and parameters.
    const ADL12: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<manifest identifier="com.example.golf" version="1.0"
  xmlns="http://www.imsproject.org/xsd/imscp_rootv1p1p2"
  xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_rootv1p2">
  <organizations default="golf">
    <organization identifier="golf">
      <title>Golf Explained</title>
      <item identifier="i1" identifierref="r1" parameters="?page=1">
        <title>Playing the Game</title>
        <adlcp:masteryscore>80</adlcp:masteryscore>
        <adlcp:datafromlms>start=intro</adlcp:datafromlms>
      </item>
      <item identifier="folder">
        <title>Etiquette</title>
        <item identifier="i2" identifierref="r2"><title>  Caring for
           the Course </title></item>
      </item>
    </organization>
  </organizations>
  <resources xml:base="content/">
    <resource identifier="r1" type="webcontent" adlcp:scormtype="sco" href="Playing/Playing%20It.html">
      <file href="Playing/Playing It.html"/><dependency identifierref="common"/>
    </resource>
    <resource identifier="r2" type="webcontent" adlcp:scormtype="asset" href="./Etiquette/Course.html"/>
    <resource identifier="common" type="webcontent" adlcp:scormtype="asset"><file href="shared/api.js"/></resource>
  </resources>
</manifest>"#;

    const ADL2004: &str = r#"<manifest identifier="m" xmlns="http://www.imsglobal.org/xsd/imscp_v1p1"
  xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_v1p3" xmlns:imsss="http://www.imsglobal.org/xsd/imsss">
  <metadata><schema>ADL SCORM</schema><schemaversion>2004 3rd Edition</schemaversion></metadata>
  <organizations default="o2"><organization identifier="o1"><title>Wrong</title></organization>
    <organization identifier="o2"><title>Photoshop</title>
      <item identifier="a" identifierref="ra">
        <title>Exam</title>
        <adlcp:completionThreshold>0.75</adlcp:completionThreshold>
        <imsss:sequencing><imsss:objectives>
          <imsss:primaryObjective objectiveID="p" satisfiedByMeasure="true">
            <imsss:minNormalizedMeasure>0.6</imsss:minNormalizedMeasure>
          </imsss:primaryObjective>
        </imsss:objectives></imsss:sequencing>
      </item>
    </organization></organizations>
  <resources><resource identifier="ra" type="webcontent" adlcp:scormType="sco" xml:base="exam/" href="index.html?x=1"/></resources>
</manifest>"#;

    #[test]
    fn scorm12_items_resolve_bases_parameters_and_mastery() {
        let m = parse(ADL12).unwrap();
        assert_eq!(m.version, ScormVersion::Scorm12, "edition from the namespace");
        assert_eq!(m.title, "Golf Explained");
        let ids: Vec<&str> = m.items.iter().map(|i| i.identifier.as_str()).collect();
        assert_eq!(ids, ["i1", "i2"], "nested items in order, folders skipped");
        let first = &m.items[0];
        assert_eq!(first.launch, "content/Playing/Playing%20It.html?page=1");
        assert_eq!(first.file, "content/Playing/Playing It.html");
        assert_eq!((first.scorm_type, first.mastery_score), (ScormType::Sco, Some(80.0)));
        assert_eq!(first.launch_data.as_deref(), Some("start=intro"));
        assert_eq!(m.items[1].title, "Caring for the Course");
        assert_eq!(
            (m.items[1].file.as_str(), m.items[1].scorm_type),
            ("content/Etiquette/Course.html", ScormType::Asset)
        );
        assert!(!m.has_sequencing);
    }

    #[test]
    fn scorm2004_reads_the_default_organization_and_its_sequencing() {
        let m = parse(ADL2004).unwrap();
        assert_eq!((m.version, m.title.as_str()), (ScormVersion::Scorm2004, "Photoshop"));
        let item = &m.items[0];
        assert_eq!((item.launch.as_str(), item.file.as_str()), ("exam/index.html?x=1", "exam/index.html"));
        assert_eq!(item.mastery_score, Some(60.0));
        assert_eq!(item.completion_threshold, Some(0.75));
        assert!(m.has_sequencing);
    }

    #[test]
    fn bad_manifests_name_the_part_at_fault() {
        let cases = [
            ("<manifest", "manifest"),
            ("<!DOCTYPE m [<!ENTITY a \"aaaa\">]><manifest/>", "manifest"),
            ("<package/>", "manifest"),
            ("<manifest><metadata><schemaversion>1.1</schemaversion></metadata></manifest>", "schemaversion"),
            ("<manifest><organizations/><resources/></manifest>", "schemaversion"),
            (
                "<manifest><metadata><schemaversion>1.2</schemaversion></metadata><organizations/></manifest>",
                "resources",
            ),
            (
                "<manifest><metadata><schemaversion>1.2</schemaversion></metadata><organizations><organization><item identifier=\"i\" identifierref=\"nope\"/></organization></organizations><resources/></manifest>",
                "item i",
            ),
            (
                "<manifest><metadata><schemaversion>1.2</schemaversion></metadata><organizations><organization><item identifier=\"i\" identifierref=\"r\"/></organization></organizations><resources><resource identifier=\"r\" href=\"../../etc/passwd\"/></resources></manifest>",
                "resource r",
            ),
            (
                "<manifest><metadata><schemaversion>1.2</schemaversion></metadata><organizations><organization><item identifier=\"i\" identifierref=\"r\"/></organization></organizations><resources><resource identifier=\"r\" href=\"https://evil.example/x.html\"/></resources></manifest>",
                "resource r",
            ),
            (
                "<manifest><metadata><schemaversion>1.2</schemaversion></metadata><organizations><organization/></organizations><resources/></manifest>",
                "organizations",
            ),
        ];
        for (xml, at) in cases {
            let err = parse(xml).unwrap_err();
            assert_eq!(err.at, at, "{xml}: {}", err.message);
        }
    }

    #[test]
    fn node_and_item_counts_are_bounded() {
        let many_nodes = format!("<manifest>{}</manifest>", "<x/>".repeat(MAX_NODES as usize + 1));
        assert_eq!(parse(&many_nodes).unwrap_err().at, "manifest");
        let items: String =
            (0..=MAX_ITEMS).map(|i| format!("<item identifier=\"i{i}\" identifierref=\"r\"/>")).collect();
        let xml = format!(
            "<manifest><metadata><schemaversion>1.2</schemaversion></metadata><organizations><organization>{items}</organization></organizations><resources><resource identifier=\"r\" href=\"a.html\"/></resources></manifest>"
        );
        assert!(parse(&xml).unwrap_err().message.contains("more than 200 items"));
    }

    #[test]
    fn parameters_follow_content_packaging() {
        assert_eq!(with_parameters("a.html", Some("?x=1")), "a.html?x=1");
        assert_eq!(with_parameters("a.html?y=2", Some("?x=1")), "a.html?y=2&x=1");
        assert_eq!(with_parameters("a.html", Some("#intro")), "a.html#intro");
        assert_eq!(with_parameters("a.html", Some("  ")), "a.html");
        assert_eq!(package_file("./a/./b%2Fc.html#x"), Some("a/b/c.html".to_owned()));
        assert_eq!(package_file("%2e%2e/secret.html"), None, "an escaped parent is still a parent");
        assert_eq!(package_file("a/b%20c.html?q"), Some("a/b c.html".to_owned()));
    }
}
