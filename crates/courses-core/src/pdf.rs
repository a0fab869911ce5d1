//! Certificates rendered as a one-page PDF (landscape A4) with the standard
//! Helvetica fonts, written by hand: the format needs a few objects and a
//! cross-reference table, not a layout engine. Text outside Latin-1 is
//! replaced by `?` because the standard fonts use WinAnsi encoding.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde_json::{Map, Value};

use crate::model::IssuedCertificate;

const WIDTH: f64 = 842.0;
const HEIGHT: f64 = 595.0;

/// Bytes of a PDF string literal: Latin-1, with `\`, `(` and `)` escaped.
fn pdf_text(text: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len() + 2);
    out.push(b'(');
    for ch in text.chars().filter(|c| !c.is_control()) {
        let byte = u8::try_from(u32::from(ch)).unwrap_or(b'?');
        if matches!(byte, b'\\' | b'(' | b')') {
            out.push(b'\\');
        }
        out.push(byte);
    }
    out.push(b')');
    out
}

/// Advance widths (thousandths of the font size) of Helvetica's printable
/// ASCII characters, space to `~`, from the font's Adobe metrics.
const HELVETICA: [u16; 95] = [
    278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278, // space to /
    556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 278, 278, 584, 584, 584, 556, // 0 to ?
    1015, 667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, 722, 778, // @ to O
    667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 278, 278, 278, 469, 556, // P to _
    333, 556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, 556, 556, // ` to o
    556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500, 334, 260, 334, 584, // p to ~
];
/// The same for Helvetica-Bold.
const HELVETICA_BOLD: [u16; 95] = [
    278, 333, 474, 556, 556, 889, 722, 238, 333, 333, 389, 584, 278, 333, 278, 278, // space to /
    556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 333, 333, 584, 584, 584, 611, // 0 to ?
    975, 722, 722, 722, 722, 667, 611, 778, 722, 278, 556, 722, 611, 833, 722, 778, // @ to O
    667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 333, 278, 333, 584, 556, // P to _
    333, 556, 611, 556, 611, 556, 333, 611, 611, 278, 278, 556, 278, 889, 611, 611, // ` to o
    611, 611, 389, 556, 333, 611, 556, 778, 556, 556, 500, 389, 280, 389, 584, // p to ~
];
/// Width used for Latin-1 letters beyond ASCII (most accented letters are
/// their base letter's width; this is the common one).
const OTHER_WIDTH: u16 = 556;

/// The standard fonts of the page: `F1` Helvetica, `F2` Helvetica-Bold.
#[derive(Clone, Copy)]
enum Font {
    Regular,
    Bold,
}

impl Font {
    const fn name(self) -> &'static str {
        match self {
            Self::Regular => "F1",
            Self::Bold => "F2",
        }
    }

    const fn widths(self) -> &'static [u16; 95] {
        match self {
            Self::Regular => &HELVETICA,
            Self::Bold => &HELVETICA_BOLD,
        }
    }
}

/// What a course's theme brings to its certificates: the uploaded font
/// (TrueType, OpenType or WOFF; anything else keeps Helvetica), the logo
/// (PNG or JPEG; anything else is left out) and the accent colour of the
/// frame. The caller passes nothing when the plan has no themes.
#[derive(Clone, Copy, Debug, Default)]
pub struct Look<'a> {
    pub font: Option<&'a [u8]>,
    pub logo: Option<&'a [u8]>,
    pub accent: Option<&'a str>,
}

/// A font the certificate embeds whole (a font file is at most 5 MB), as a
/// Type 0 font with identity encoding: the text is written as glyph ids,
/// and a `ToUnicode` map lets readers (and `pdftotext`) read it back.
struct Embedded<'a> {
    face: ttf_parser::Face<'a>,
    sfnt: &'a [u8],
}

impl Embedded<'_> {
    /// Thousandths of the size per font unit.
    fn scale(&self) -> f64 {
        1000.0 / f64::from(self.face.units_per_em().max(1))
    }

    fn glyph(&self, c: char) -> u16 {
        self.face.glyph_index(c).map_or(0, |g| g.0)
    }

    fn advance(&self, glyph: u16) -> f64 {
        f64::from(self.face.glyph_hor_advance(ttf_parser::GlyphId(glyph)).unwrap_or(0)) * self.scale()
    }

    /// Outlines in CFF (an `OTTO` font) are embedded as OpenType in a
    /// CID-keyed font of type 0; TrueType outlines as a type 2.
    fn is_cff(&self) -> bool {
        self.sfnt.starts_with(b"OTTO")
    }

    /// The font's PostScript name, kept to letters, digits and `-`.
    fn base_name(&self) -> String {
        let name = self
            .face
            .names()
            .into_iter()
            .filter(|n| n.name_id == ttf_parser::name_id::POST_SCRIPT_NAME)
            .find_map(|n| n.to_string())
            .unwrap_or_default();
        let name: String = name.chars().filter(|c| c.is_ascii_alphanumeric() || *c == '-').take(60).collect();
        if name.is_empty() { "CourseFont".to_owned() } else { name }
    }
}

/// The face a line is written in.
#[derive(Clone, Copy)]
enum Face<'f, 'a> {
    Standard(Font),
    Embedded(&'f Embedded<'a>),
}

/// The printed width of `text` at `size` points: the sum of the face's
/// advance widths of the characters written.
fn text_width(text: &str, face: Face<'_, '_>, size: f64) -> f64 {
    let printed = text.chars().filter(|c| !c.is_control());
    let units = match face {
        Face::Standard(font) => {
            let widths = font.widths();
            let units: u64 = printed
                .map(|c| {
                    let code = u32::from(c);
                    let index = usize::try_from(code.wrapping_sub(32)).unwrap_or(usize::MAX);
                    match widths.get(index) {
                        Some(w) => u64::from(*w),
                        // Latin-1 beyond ASCII keeps its letter; anything else is `?`.
                        None if code <= 0xFF => u64::from(OTHER_WIDTH),
                        // `?` (code 63) is at index 31.
                        None => u64::from(widths.get(31).copied().unwrap_or(OTHER_WIDTH)),
                    }
                })
                .sum();
            #[expect(clippy::cast_precision_loss, reason = "a line's units are far below 2^52")]
            let units = units as f64;
            units
        }
        Face::Embedded(font) => printed.map(|c| font.advance(font.glyph(c))).sum(),
    };
    units * size / 1000.0
}

/// Left and right margin inside the page's frame.
const MARGIN: f64 = 60.0;

/// Where a line starts and at what size it prints: centred on the page,
/// its size reduced (down to 40 % of `size`) so a long name or title fits
/// between the margins.
fn placement(text: &str, face: Face<'_, '_>, size: f64) -> (f64, f64) {
    let room = WIDTH - 2.0 * MARGIN;
    let natural = text_width(text, face, size);
    let size = if natural > room { (size * room / natural).max(size * 0.4) } else { size };
    let x = ((WIDTH - text_width(text, face, size)) / 2.0).max(MARGIN / 2.0);
    (x, size)
}

/// The page's content stream, and the glyphs an embedded font printed
/// (with the character each stands for, for the `ToUnicode` map).
struct Page<'f, 'a> {
    content: Vec<u8>,
    font: Option<&'f Embedded<'a>>,
    used: BTreeMap<u16, char>,
}

impl Page<'_, '_> {
    fn centred(&mut self, font: Font, size: f64, y: f64, text: &str) {
        let face = self.font.map_or(Face::Standard(font), Face::Embedded);
        let (x, size) = placement(text, face, size);
        let name = if self.font.is_some() { "F3" } else { font.name() };
        let mut line = format!("BT /{name} {size:.2} Tf {x:.2} {y:.1} Td ").into_bytes();
        match self.font {
            None => line.extend(pdf_text(text)),
            Some(embedded) => {
                line.push(b'<');
                for c in text.chars().filter(|c| !c.is_control()) {
                    let glyph = embedded.glyph(c);
                    if glyph != 0 {
                        self.used.entry(glyph).or_insert(c);
                    }
                    line.extend(format!("{glyph:04X}").into_bytes());
                }
                line.push(b'>');
            }
        }
        line.extend(b" Tj ET\n");
        self.content.extend(line);
    }
}

/// `#rgb` or `#rrggbb` as the three fractions of a PDF colour.
fn colour(hex: &str) -> Option<(f64, f64, f64)> {
    let digits = hex.strip_prefix('#')?;
    let channel = |s: &str| u8::from_str_radix(s, 16).ok().map(|v| f64::from(v) / 255.0);
    match digits.len() {
        6 => Some((channel(digits.get(0..2)?)?, channel(digits.get(2..4)?)?, channel(digits.get(4..6)?)?)),
        3 => {
            let twice = |i: usize| digits.get(i..=i).map(|d| d.repeat(2));
            Some((channel(&twice(0)?)?, channel(&twice(1)?)?, channel(&twice(2)?)?))
        }
        _ => None,
    }
}

/// The sfnt (TrueType or OpenType) inside a font file: the file itself,
/// or a WOFF file's tables unpacked. WOFF2 and anything else: none.
fn sfnt(bytes: &[u8]) -> Option<Cow<'_, [u8]>> {
    if bytes.starts_with(b"wOFF") { crate::woff::unpack(bytes).map(Cow::Owned) } else { Some(Cow::Borrowed(bytes)) }
}

/// A logo ready to place: the image's dictionary entries and (compressed)
/// samples, and a PNG's transparency as a soft mask of the same size.
struct Image {
    width: u32,
    height: u32,
    dict: String,
    data: Vec<u8>,
    mask: Option<Vec<u8>>,
}

impl Image {
    /// The image object, and its soft mask numbered `number + 1`.
    fn objects(&self, number: usize) -> Vec<Vec<u8>> {
        match &self.mask {
            None => vec![stream(&self.dict, &self.data)],
            Some(mask) => vec![
                stream(&format!("{} /SMask {} 0 R", self.dict, number + 1), &self.data),
                stream(&image_dict(self.width, self.height, "/DeviceGray", "/FlateDecode"), mask),
            ],
        }
    }
}

fn image_dict(width: u32, height: u32, space: &str, filter: &str) -> String {
    format!(
        "/Type /XObject /Subtype /Image /Width {width} /Height {height} /ColorSpace {space} /BitsPerComponent 8 /Filter {filter}"
    )
}

/// A stream object with its dictionary entries.
fn stream(dict: &str, data: &[u8]) -> Vec<u8> {
    let mut out = format!("<< {dict} /Length {} >>\nstream\n", data.len()).into_bytes();
    out.extend(data);
    out.extend(b"\nendstream");
    out
}

fn deflate(data: &[u8]) -> Vec<u8> {
    use std::io::Write as _;
    let mut encoder = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    // Writing into memory cannot fail.
    let _ = encoder.write_all(data);
    encoder.finish().unwrap_or_default()
}

/// The largest image a logo decodes to (pixels times channels).
const LOGO_DECODED_LIMIT: usize = 64 * 1024 * 1024;

fn logo_image(bytes: &[u8]) -> Option<Image> {
    if bytes.starts_with(b"\xFF\xD8\xFF") {
        let (width, height, components) = jpeg_size(bytes)?;
        let space = match components {
            1 => "/DeviceGray",
            3 => "/DeviceRGB",
            4 => "/DeviceCMYK /Decode [1 0 1 0 1 0 1 0]",
            _ => return None,
        };
        let dict = image_dict(width, height, space, "/DCTDecode");
        return Some(Image { width, height, dict, data: bytes.to_vec(), mask: None });
    }
    if !bytes.starts_with(b"\x89PNG") {
        return None;
    }
    let mut decoder =
        png::Decoder::new_with_limits(std::io::Cursor::new(bytes), png::Limits { bytes: LOGO_DECODED_LIMIT });
    decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let mut reader = decoder.read_info().ok()?;
    let mut pixels = vec![0; reader.output_buffer_size()?];
    let frame = reader.next_frame(&mut pixels).ok()?;
    pixels.truncate(frame.buffer_size());
    let (colours, alpha) = match frame.color_type {
        png::ColorType::Grayscale => (1, false),
        png::ColorType::GrayscaleAlpha => (1, true),
        png::ColorType::Rgb => (3, false),
        png::ColorType::Rgba => (3, true),
        png::ColorType::Indexed => return None,
    };
    let (width, height) = (frame.width, frame.height);
    let (colour_bytes, mask) = if alpha {
        let mut colour_bytes = Vec::with_capacity(pixels.len());
        let mut mask_bytes = Vec::with_capacity(pixels.len() / (colours + 1));
        for pixel in pixels.chunks_exact(colours + 1) {
            let (c, a) = pixel.split_at(colours);
            colour_bytes.extend_from_slice(c);
            mask_bytes.extend_from_slice(a);
        }
        (colour_bytes, Some(deflate(&mask_bytes)))
    } else {
        (pixels, None)
    };
    let space = if colours == 1 { "/DeviceGray" } else { "/DeviceRGB" };
    Some(Image {
        width,
        height,
        dict: image_dict(width, height, space, "/FlateDecode"),
        data: deflate(&colour_bytes),
        mask,
    })
}

/// Width, height and colour components of a JPEG, from its frame header.
fn jpeg_size(bytes: &[u8]) -> Option<(u32, u32, u8)> {
    let mut at = 2;
    loop {
        // Markers may be padded with extra 0xFF bytes.
        while *bytes.get(at)? == 0xFF && *bytes.get(at + 1)? == 0xFF {
            at += 1;
        }
        if *bytes.get(at)? != 0xFF {
            return None;
        }
        let marker = *bytes.get(at + 1)?;
        let length = usize::from(u16::from_be_bytes([*bytes.get(at + 2)?, *bytes.get(at + 3)?]));
        let is_frame = matches!(marker, 0xC0..=0xCF) && !matches!(marker, 0xC4 | 0xC8 | 0xCC);
        if is_frame {
            let height = u16::from_be_bytes([*bytes.get(at + 5)?, *bytes.get(at + 6)?]);
            let width = u16::from_be_bytes([*bytes.get(at + 7)?, *bytes.get(at + 8)?]);
            let components = *bytes.get(at + 9)?;
            return (width > 0 && height > 0).then_some((u32::from(width), u32::from(height), components));
        }
        if marker == 0xD9 || marker == 0xDA {
            return None;
        }
        at += 2 + length;
    }
}

/// The objects of an embedded font, numbered from `first`: the type 0
/// font (which the page names `F3`), its descendant, its descriptor, the
/// font file and the `ToUnicode` map.
fn font_objects(font: &Embedded<'_>, used: &BTreeMap<u16, char>, first: usize) -> Vec<Vec<u8>> {
    let name = font.base_name();
    let (descendant, descriptor, file, to_unicode) = (first + 1, first + 2, first + 3, first + 4);
    let mut widths = String::new();
    for glyph in used.keys() {
        let _ = write!(widths, "{glyph} [{:.0}] ", font.advance(*glyph));
    }
    let scale = font.scale();
    let bbox = font.face.global_bounding_box();
    let (subtype, file_key, file_dict) = if font.is_cff() {
        ("CIDFontType0", "FontFile3", "/Subtype /OpenType /Filter /FlateDecode".to_owned())
    } else {
        ("CIDFontType2", "FontFile2", format!("/Length1 {} /Filter /FlateDecode", font.sfnt.len()))
    };
    let gid_map = if font.is_cff() { "" } else { " /CIDToGIDMap /Identity" };
    let mut cmap = String::from(
        "/CIDInit /ProcSet findresource begin\n12 dict begin\nbegincmap\n/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def\n/CMapName /Adobe-Identity-UCS def\n/CMapType 2 def\n1 begincodespacerange\n<0000> <FFFF>\nendcodespacerange\n",
    );
    let pairs: Vec<(&u16, &char)> = used.iter().collect();
    for chunk in pairs.chunks(100) {
        let _ = writeln!(cmap, "{} beginbfchar", chunk.len());
        for (glyph, c) in chunk {
            let mut units = [0_u16; 2];
            let hex: String = c.encode_utf16(&mut units).iter().map(|u| format!("{u:04X}")).collect();
            let _ = writeln!(cmap, "<{glyph:04X}> <{hex}>");
        }
        cmap.push_str("endbfchar\n");
    }
    cmap.push_str("endcmap\nCMapName currentdict /CMap defineresource pop\nend\nend\n");
    vec![
        format!(
            "<< /Type /Font /Subtype /Type0 /BaseFont /{name} /Encoding /Identity-H /DescendantFonts [{descendant} 0 R] /ToUnicode {to_unicode} 0 R >>"
        )
        .into_bytes(),
        format!(
            "<< /Type /Font /Subtype /{subtype} /BaseFont /{name} /CIDSystemInfo << /Registry (Adobe) /Ordering (Identity) /Supplement 0 >> /FontDescriptor {descriptor} 0 R /DW 1000 /W [{widths}]{gid_map} >>"
        )
        .into_bytes(),
        format!(
            "<< /Type /FontDescriptor /FontName /{name} /Flags 32 /FontBBox [{:.0} {:.0} {:.0} {:.0}] /ItalicAngle 0 /Ascent {:.0} /Descent {:.0} /CapHeight {:.0} /StemV 80 /{file_key} {file} 0 R >>",
            f64::from(bbox.x_min) * scale,
            f64::from(bbox.y_min) * scale,
            f64::from(bbox.x_max) * scale,
            f64::from(bbox.y_max) * scale,
            f64::from(font.face.ascender()) * scale,
            f64::from(font.face.descender()) * scale,
            f64::from(font.face.capital_height().unwrap_or_else(|| font.face.ascender())) * scale,
        )
        .into_bytes(),
        stream(&file_dict, &deflate(font.sfnt)),
        stream("", cmap.as_bytes()),
    ]
}

/// Replaces `{{learner}}`, `{{course}}`, `{{score}}` and `{{date}}`.
fn fill(template: &str, cert: &IssuedCertificate, score: &str, date: &str) -> String {
    template
        .replace("{{learner}}", &cert.learner_name)
        .replace("{{course}}", &cert.course_title)
        .replace("{{score}}", score)
        .replace("{{date}}", date)
}

/// The logo's box above the title: at most this wide and high, centred.
const LOGO_BOX: (f64, f64) = (180.0, 64.0);
const LOGO_BOTTOM: f64 = 478.0;

pub fn render_certificate(cert: &IssuedCertificate, template: Option<&Map<String, Value>>, look: Look<'_>) -> Vec<u8> {
    let field = |name: &str| template.and_then(|t| t.get(name)).and_then(Value::as_str);
    let date = cert.issued_at.to_rfc3339().chars().take(10).collect::<String>();
    let score = cert.score.map_or_else(|| "not scored".to_owned(), |s| format!("{s}%"));
    let title = fill(field("title").unwrap_or("Certificate of Completion"), cert, &score, &date);
    let body = fill(field("body").unwrap_or("has successfully completed"), cert, &score, &date);

    let unpacked = look.font.and_then(sfnt);
    let embedded =
        unpacked.as_deref().and_then(|sfnt| ttf_parser::Face::parse(sfnt, 0).ok().map(|face| Embedded { face, sfnt }));
    let logo = look.logo.and_then(logo_image);
    let (r, g, b) = look.accent.and_then(colour).unwrap_or((0.2, 0.3, 0.5));

    let mut page = Page { content: Vec::new(), font: embedded.as_ref(), used: BTreeMap::new() };
    page.content.extend(
        format!("{r:.3} {g:.3} {b:.3} RG 4 w 24 24 {:.0} {:.0} re S\n", WIDTH - 48.0, HEIGHT - 48.0).into_bytes(),
    );
    page.content.extend(b"0 g\n");
    if let Some(logo) = &logo {
        let (w, h) = (f64::from(logo.width), f64::from(logo.height));
        let fit = (LOGO_BOX.0 / w).min(LOGO_BOX.1 / h);
        let (w, h) = (w * fit, h * fit);
        page.content.extend(
            format!("q {w:.2} 0 0 {h:.2} {:.2} {LOGO_BOTTOM:.2} cm /Im1 Do Q\n", (WIDTH - w) / 2.0).into_bytes(),
        );
    }
    page.centred(Font::Bold, 34.0, 440.0, &title);
    page.centred(Font::Regular, 16.0, 380.0, "This certifies that");
    page.centred(Font::Bold, 28.0, 330.0, &cert.learner_name);
    page.centred(Font::Regular, 16.0, 280.0, &body);
    page.centred(Font::Bold, 22.0, 235.0, &cert.course_title);
    let mut footer = format!("Issued {date}");
    if cert.score.is_some() {
        let _ = write!(footer, "  -  Score {score}");
    }
    page.centred(Font::Regular, 12.0, 150.0, &footer);
    page.centred(Font::Regular, 9.0, 60.0, &format!("Certificate {}", cert.id));

    // Objects 1 to 6 are always there; the font's and the logo's follow.
    let mut extra: Vec<Vec<u8>> = Vec::new();
    let mut fonts = String::from("/F1 4 0 R /F2 5 0 R");
    if let Some(font) = &embedded {
        let first = 7 + extra.len();
        let _ = write!(fonts, " /F3 {first} 0 R");
        extra.extend(font_objects(font, &page.used, first));
    }
    let mut xobjects = String::new();
    if let Some(logo) = &logo {
        let number = 7 + extra.len();
        let _ = write!(xobjects, " /XObject << /Im1 {number} 0 R >>");
        extra.extend(logo.objects(number));
    }
    let content = page.content;
    let mut objects: Vec<Vec<u8>> = vec![
        b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_vec(),
        format!(
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {WIDTH:.0} {HEIGHT:.0}] /Resources << /Font << {fonts} >>{xobjects} >> /Contents 6 0 R >>"
        )
        .into_bytes(),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>".to_vec(),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>".to_vec(),
        stream("", &content),
    ];
    objects.extend(extra);
    // OpenType (CFF) font files in a PDF are version 1.6.
    let version = if embedded.as_ref().is_some_and(Embedded::is_cff) { "1.6" } else { "1.4" };
    let mut pdf = format!("%PDF-{version}\n").into_bytes();
    pdf.extend(b"%\xe2\xe3\xcf\xd3\n");
    let mut offsets = Vec::with_capacity(objects.len());
    for (i, object) in objects.iter().enumerate() {
        offsets.push(pdf.len());
        pdf.extend(format!("{} 0 obj\n", i + 1).into_bytes());
        pdf.extend(object);
        pdf.extend(b"\nendobj\n");
    }
    let xref = pdf.len();
    pdf.extend(format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1).into_bytes());
    for offset in offsets {
        pdf.extend(format!("{offset:010} 00000 n \n").into_bytes());
    }
    pdf.extend(
        format!("trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n", objects.len() + 1).into_bytes(),
    );
    pdf
}

/// A tiny TrueType font for tests: the given characters (glyphs 1, 2, ...
/// in their order) each drawn as a box, 600 units wide of 1000, with the
/// tables a browser's font sanitiser asks for.
#[cfg(any(test, feature = "testing"))]
pub mod testing {
    fn table(tag: &[u8; 4], data: Vec<u8>) -> ([u8; 4], Vec<u8>) {
        (*tag, data)
    }

    fn be16(v: i32) -> [u8; 2] {
        #[expect(clippy::cast_possible_truncation, clippy::cast_sign_loss, reason = "test font values fit 16 bits")]
        let v = v as u16;
        v.to_be_bytes()
    }

    /// The font's bytes.
    ///
    /// # Panics
    ///
    /// With more than 1,000 characters.
    #[must_use]
    pub fn tiny_font(chars: &str) -> Vec<u8> {
        let mut chars: Vec<char> = chars.chars().collect();
        let mut seen = std::collections::HashSet::new();
        chars.retain(|c| seen.insert(*c));
        assert!(chars.len() < 1000);
        let glyphs = i32::try_from(chars.len()).unwrap_or(0) + 1;
        // Glyph 0 is empty; every other glyph is one square contour.
        let mut glyf = Vec::new();
        let mut loca = vec![0_u8, 0];
        for _ in &chars {
            for v in [1, 50, 0, 550, 700, 3, 0] {
                glyf.extend(be16(v));
            }
            glyf.extend([1, 1, 1, 1]);
            for x in [50, 500, 0, -500] {
                glyf.extend(be16(x));
            }
            for y in [0, 0, 700, 0] {
                glyf.extend(be16(y));
            }
            loca.extend(be16(i32::try_from(glyf.len() / 2).unwrap_or(0)));
        }
        let mut cmap = Vec::new();
        for v in [0, 1, 3, 10] {
            cmap.extend(be16(v));
        }
        cmap.extend(12_u32.to_be_bytes());
        cmap.extend(be16(12));
        cmap.extend(be16(0));
        cmap.extend(u32::try_from(16 + 12 * chars.len()).unwrap_or(0).to_be_bytes());
        cmap.extend(0_u32.to_be_bytes());
        cmap.extend(u32::try_from(chars.len()).unwrap_or(0).to_be_bytes());
        let mut sorted: Vec<(char, u32)> = chars.iter().copied().zip(1..).collect();
        sorted.sort_unstable();
        for (c, glyph) in sorted {
            cmap.extend(u32::from(c).to_be_bytes());
            cmap.extend(u32::from(c).to_be_bytes());
            cmap.extend(glyph.to_be_bytes());
        }
        let mut head = Vec::new();
        head.extend(0x0001_0000_u32.to_be_bytes());
        head.extend(0x0001_0000_u32.to_be_bytes());
        head.extend(0_u32.to_be_bytes());
        head.extend(0x5F0F_3CF5_u32.to_be_bytes());
        head.extend(be16(0b1011));
        head.extend(be16(1000));
        head.extend([0; 16]);
        for v in [0, 0, 600, 700, 0, 8, 2, 0, 0] {
            head.extend(be16(v));
        }
        let mut hhea = Vec::new();
        hhea.extend(0x0001_0000_u32.to_be_bytes());
        for v in [800, -200, 0, 600, 0, 50, 550, 1, 0, 0, 0, 0, 0, 0, 0, glyphs] {
            hhea.extend(be16(v));
        }
        let mut maxp = Vec::new();
        maxp.extend(0x0001_0000_u32.to_be_bytes());
        for v in [glyphs, 4, 1, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0] {
            maxp.extend(be16(v));
        }
        let mut hmtx = Vec::new();
        for _ in 0..glyphs {
            hmtx.extend(be16(600));
            hmtx.extend(be16(50));
        }
        let name_text: Vec<u8> = "TinyTest".encode_utf16().flat_map(u16::to_be_bytes).collect();
        let mut name = Vec::new();
        for v in [0, 2, 30] {
            name.extend(be16(v));
        }
        for id in [1, 6] {
            for v in [3, 1, 0x409, id, i32::try_from(name_text.len()).unwrap_or(0), 0] {
                name.extend(be16(v));
            }
        }
        name.extend(&name_text);
        let mut os2 = Vec::new();
        for v in [0, 600, 400, 5, 0, 650, 600, 0, 75, 650, 600, 0, 75, 50, 250] {
            os2.extend(be16(v));
        }
        os2.extend([0; 12]);
        os2.extend([0; 16]);
        os2.extend(b"NONE");
        for v in [0x40, 0x20, 0x7E, 800, -200, 0, 800, 200] {
            os2.extend(be16(v));
        }
        let mut post = Vec::new();
        post.extend(0x0003_0000_u32.to_be_bytes());
        post.extend([0; 28]);
        let tables = [
            table(b"OS/2", os2),
            table(b"cmap", cmap),
            table(b"glyf", glyf),
            table(b"head", head),
            table(b"hhea", hhea),
            table(b"hmtx", hmtx),
            table(b"loca", loca),
            table(b"maxp", maxp),
            table(b"name", name),
            table(b"post", post),
        ];
        let mut out = Vec::new();
        out.extend(0x0001_0000_u32.to_be_bytes());
        for v in [10, 128, 3, 32] {
            out.extend(be16(v));
        }
        let mut offset = 12 + 16 * tables.len();
        let mut body = Vec::new();
        for (tag, data) in &tables {
            let mut padded = data.clone();
            padded.resize(data.len().div_ceil(4) * 4, 0);
            let sum = padded
                .chunks_exact(4)
                .fold(0_u32, |sum, w| sum.wrapping_add(u32::from_be_bytes(w.try_into().unwrap_or([0; 4]))));
            out.extend(tag);
            out.extend(sum.to_be_bytes());
            out.extend(u32::try_from(offset).unwrap_or(0).to_be_bytes());
            out.extend(u32::try_from(data.len()).unwrap_or(0).to_be_bytes());
            body.extend(padded);
            offset = 12 + 16 * tables.len() + body.len();
        }
        out.extend(body);
        out
    }
}

#[cfg(test)]
mod tests {
    use kernel::Timestamp;

    use super::*;

    fn cert() -> IssuedCertificate {
        IssuedCertificate {
            id: "cert_1".into(),
            workspace_id: "ws".into(),
            course_id: "crs".into(),
            identity_id: "idn".into(),
            completion_id: "cmp".into(),
            template_id: None,
            learner_name: "Ada (Lovelace)".into(),
            course_title: "Safety 101".into(),
            score: Some(87.5),
            issued_at: Timestamp::from_millis(1_795_305_600_000),
        }
    }

    #[test]
    fn renders_a_pdf_with_escaped_text_and_a_valid_xref() {
        let pdf = render_certificate(&cert(), None, Look::default());
        let text = String::from_utf8_lossy(&pdf);
        assert!(text.starts_with("%PDF-1.4"));
        assert!(text.contains("(Ada \\(Lovelace\\))"));
        assert!(text.contains("Score 87.5%"));
        let startxref: usize = text.rsplit("startxref\n").next().unwrap().lines().next().unwrap().parse().unwrap();
        assert!(pdf[startxref..].starts_with(b"xref"), "startxref points at the table");
    }

    #[test]
    fn lines_are_centred_by_the_fonts_own_widths() {
        // "Ada" in Helvetica-Bold: 722 + 611 + 556 thousandths of the size.
        let width = text_width("Ada", Face::Standard(Font::Bold), 28.0);
        assert!((width - 1889.0 * 28.0 / 1000.0).abs() < 1e-9);
        let (x, size) = placement("Ada", Face::Standard(Font::Bold), 28.0);
        assert!((size - 28.0).abs() < f64::EPSILON);
        assert!((x + width / 2.0 - WIDTH / 2.0).abs() < 1e-9, "the line's middle is the page's");
        // Narrow and wide letters of the same count centre differently.
        let (narrow, _) = placement("iiii", Face::Standard(Font::Regular), 16.0);
        let (wide, _) = placement("WWWW", Face::Standard(Font::Regular), 16.0);
        assert!(narrow > wide + 20.0, "half the 46-point difference in width");
        // A name too long for the page prints smaller, still centred and
        // inside the margins.
        let long = "Maximiliana Wolfeschlegelsteinhausenbergerdorff of Lower Saxony";
        let (x, size) = placement(long, Face::Standard(Font::Bold), 28.0);
        assert!(size < 28.0 && x >= MARGIN - 1e-6);
        let right = x + text_width(long, Face::Standard(Font::Bold), size);
        assert!((x - (WIDTH - right)).abs() < 1e-6, "equal room on both sides");
    }

    #[test]
    fn the_learners_name_is_written_centred() {
        let pdf = render_certificate(&cert(), None, Look::default());
        let text = String::from_utf8_lossy(&pdf);
        let (x, size) = placement("Ada (Lovelace)", Face::Standard(Font::Bold), 28.0);
        assert!(text.contains(&format!("BT /F2 {size:.2} Tf {x:.2} 330.0 Td (Ada \\(Lovelace\\)) Tj ET")), "{text}");
    }

    #[test]
    fn templates_fill_placeholders() {
        let template = serde_json::json!({ "title": "Award for {{course}}", "body": "scored {{score}}" });
        let pdf = render_certificate(&cert(), template.as_object(), Look::default());
        let text = String::from_utf8_lossy(&pdf);
        assert!(text.contains("(Award for Safety 101)") && text.contains("(scored 87.5%)"));
    }

    /// A PNG of `width` by `height` red pixels at half opacity.
    fn png(width: u32, height: u32) -> Vec<u8> {
        let mut out = Vec::new();
        let mut encoder = png::Encoder::new(&mut out, width, height);
        encoder.set_color(png::ColorType::Rgba);
        encoder.set_depth(png::BitDepth::Eight);
        let mut writer = encoder.write_header().unwrap();
        writer.write_image_data(&[255, 0, 0, 128].repeat(usize::try_from(width * height).unwrap())).unwrap();
        writer.finish().unwrap();
        out
    }

    #[test]
    fn a_themes_font_is_embedded_with_a_map_back_to_the_text() {
        let font = testing::tiny_font("Ada (Lovelace)Sfty1CrticofmpnTsshuessflyIdScr0-9.%_");
        let look = Look { font: Some(&font), ..Look::default() };
        let pdf = render_certificate(&cert(), None, look);
        let text = String::from_utf8_lossy(&pdf);
        assert!(text.contains("/Subtype /Type0 /BaseFont /TinyTest /Encoding /Identity-H"), "{text}");
        assert!(text.contains("/FontFile2 10 0 R") && text.contains("/CIDToGIDMap /Identity"));
        // The learner's name is written as glyph ids in the embedded font:
        // A, d, a are glyphs 1, 2, 3, centred by the font's 600-unit advances.
        let (x, size) = placement("Ada (Lovelace)", Face::Standard(Font::Bold), 28.0);
        assert!(!text.contains(&format!("{x:.2} 330.0 Td")), "the width is the font's, not Helvetica's");
        let width = 14.0 * 600.0 * size / 1000.0;
        assert!(text.contains(&format!("BT /F3 28.00 Tf {:.2} 330.0 Td <0001000200030004", (WIDTH - width) / 2.0)));
        // The ToUnicode map names each printed glyph's character.
        assert!(text.contains("<0001> <0041>") && text.contains("<0002> <0064>"), "{text}");
        // Characters the font lacks print as glyph 0 and are left out of the map.
        assert_eq!(text.matches("<0000> <").count(), 1, "only in the code space range");
        let startxref: usize = text.rsplit("startxref\n").next().unwrap().lines().next().unwrap().parse().unwrap();
        assert!(pdf[startxref..].starts_with(b"xref"));
        assert_eq!(text.matches(" 0 obj\n").count(), 11, "six objects and the font's five");
    }

    #[test]
    fn a_woff_font_is_unpacked_and_anything_unreadable_keeps_helvetica() {
        for bad in [&b"wOF2\0\0\0\0"[..], b"not a font", b"\x00\x01\x00\x00truncated"] {
            let pdf = render_certificate(&cert(), None, Look { font: Some(bad), ..Look::default() });
            let text = String::from_utf8_lossy(&pdf);
            assert!(!text.contains("/F3") && text.contains("/F2 28.00 Tf"), "{bad:?}");
        }
    }

    #[test]
    fn the_logo_sits_above_the_title_and_the_accent_colours_the_frame() {
        let logo = png(300, 100);
        let look = Look { logo: Some(&logo), accent: Some("#aa0000"), ..Look::default() };
        let pdf = render_certificate(&cert(), None, look);
        let text = String::from_utf8_lossy(&pdf);
        assert!(text.contains("0.667 0.000 0.000 RG 4 w"), "the accent frames the page");
        // 300x100 fits the 180x64 box at 0.6: 180 by 60, centred.
        assert!(text.contains(&format!("q 180.00 0 0 60.00 {:.2} 478.00 cm /Im1 Do Q", (WIDTH - 180.0) / 2.0)));
        assert!(text.contains("/XObject << /Im1 7 0 R >>"));
        assert!(text.contains(
            "/Width 300 /Height 100 /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /FlateDecode /SMask 8 0 R"
        ));
        // A JPEG goes in as it is; another image type is left out.
        let jpeg = [
            &[0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x04, 0x00, 0x00][..],
            &[0xFF, 0xC0, 0x00, 0x0B, 0x08, 0x00, 0x20, 0x00, 0x40, 0x03, 0, 0, 0, 0][..],
        ]
        .concat();
        let text =
            String::from_utf8_lossy(&render_certificate(&cert(), None, Look { logo: Some(&jpeg), ..Look::default() }))
                .into_owned();
        assert!(text.contains("/Width 64 /Height 32 /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /DCTDecode"));
        let gif =
            render_certificate(&cert(), None, Look { logo: Some(b"GIF89a...."), accent: Some("red"), font: None });
        let gif = String::from_utf8_lossy(&gif);
        assert!(!gif.contains("/Im1") && gif.contains("0.200 0.300 0.500 RG"), "no logo; the built-in frame");
    }
}
