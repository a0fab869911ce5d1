//! WOFF 1.0 (a TrueType or OpenType font whose tables are zlib-compressed
//! one by one) unpacked back into the font it wraps, so a certificate can
//! embed a theme's WOFF font. Pure: bytes in, bytes out; anything malformed
//! answers `None` and the certificate keeps its standard font.

use std::io::Read as _;

/// An unpacked font is at most this large (a font upload is at most 5 MB;
/// this bounds what its compressed tables may claim to expand to).
const UNPACKED_LIMIT: u64 = 32_000_000;

fn u16_at(bytes: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_be_bytes([*bytes.get(at)?, *bytes.get(at + 1)?]))
}

fn u32_at(bytes: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_be_bytes([*bytes.get(at)?, *bytes.get(at + 1)?, *bytes.get(at + 2)?, *bytes.get(at + 3)?]))
}

fn usize_at(bytes: &[u8], at: usize) -> Option<usize> {
    usize::try_from(u32_at(bytes, at)?).ok()
}

/// The sfnt inside a WOFF file.
pub fn unpack(woff: &[u8]) -> Option<Vec<u8>> {
    if !woff.starts_with(b"wOFF") {
        return None;
    }
    let flavor = u32_at(woff, 4)?;
    let count = usize::from(u16_at(woff, 12)?);
    let mut tables = Vec::with_capacity(count);
    let mut total: u64 = 0;
    for i in 0..count {
        let entry = 44 + i * 20;
        let tag = woff.get(entry..entry + 4)?;
        let (offset, compressed, original) =
            (usize_at(woff, entry + 4)?, usize_at(woff, entry + 8)?, u32_at(woff, entry + 12)?);
        let checksum = u32_at(woff, entry + 16)?;
        total += u64::from(original);
        if total > UNPACKED_LIMIT {
            return None;
        }
        let stored = woff.get(offset..offset.checked_add(compressed)?)?;
        let data = if compressed < usize::try_from(original).ok()? {
            let mut data = Vec::new();
            flate2::read::ZlibDecoder::new(stored).take(u64::from(original)).read_to_end(&mut data).ok()?;
            data
        } else {
            stored.to_vec()
        };
        if data.len() != usize::try_from(original).ok()? {
            return None;
        }
        tables.push((tag, checksum, data));
    }
    // The sfnt's offset table, then one record per table, then the tables
    // each padded to four bytes.
    let count_u16 = u16::try_from(count).ok()?;
    let entry_selector = if count == 0 { 0 } else { u16::try_from(count.ilog2()).ok()? };
    let search_range = (1_u16 << entry_selector) * 16;
    let mut out = Vec::new();
    out.extend(flavor.to_be_bytes());
    out.extend(count_u16.to_be_bytes());
    out.extend(search_range.to_be_bytes());
    out.extend(entry_selector.to_be_bytes());
    out.extend((count_u16 * 16).saturating_sub(search_range).to_be_bytes());
    let mut offset = 12 + 16 * count;
    let mut body = Vec::new();
    for (tag, checksum, data) in &tables {
        out.extend(*tag);
        out.extend(checksum.to_be_bytes());
        out.extend(u32::try_from(offset).ok()?.to_be_bytes());
        out.extend(u32::try_from(data.len()).ok()?.to_be_bytes());
        body.extend(data);
        while body.len() % 4 != 0 {
            body.push(0);
        }
        offset = 12 + 16 * count + body.len();
    }
    out.extend(body);
    Some(out)
}

#[cfg(test)]
mod tests {
    use std::io::Write as _;

    use super::*;

    /// A WOFF file of the given sfnt's tables, each compressed.
    fn wrap(sfnt: &[u8]) -> Vec<u8> {
        let count = usize::from(u16_at(sfnt, 4).unwrap());
        let mut directory = Vec::new();
        let mut data = Vec::new();
        let start = 44 + 20 * count;
        for i in 0..count {
            let record = 12 + 16 * i;
            let (offset, length) = (usize_at(sfnt, record + 8).unwrap(), usize_at(sfnt, record + 12).unwrap());
            let table = &sfnt[offset..offset + length];
            let mut encoder = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
            encoder.write_all(table).unwrap();
            let packed = encoder.finish().unwrap();
            let stored = if packed.len() < table.len() { packed } else { table.to_vec() };
            directory.extend(&sfnt[record..record + 4]);
            directory.extend(u32::try_from(start + data.len()).unwrap().to_be_bytes());
            directory.extend(u32::try_from(stored.len()).unwrap().to_be_bytes());
            directory.extend(u32::try_from(length).unwrap().to_be_bytes());
            directory.extend(&sfnt[record + 4..record + 8]);
            data.extend(stored);
            while data.len() % 4 != 0 {
                data.push(0);
            }
        }
        let mut woff = b"wOFF".to_vec();
        woff.extend(&sfnt[0..4]);
        woff.extend(u32::try_from(start + data.len()).unwrap().to_be_bytes());
        woff.extend(u16::try_from(count).unwrap().to_be_bytes());
        woff.extend([0; 2]);
        woff.extend(u32::try_from(sfnt.len()).unwrap().to_be_bytes());
        woff.extend([0; 24]);
        woff.extend(directory);
        woff.extend(data);
        woff
    }

    #[test]
    fn a_woff_font_unpacks_to_the_font_it_wraps() {
        let font = crate::pdf::testing::tiny_font("Ada");
        let unpacked = unpack(&wrap(&font)).unwrap();
        let face = ttf_parser::Face::parse(&unpacked, 0).unwrap();
        assert_eq!(face.glyph_index('A').map(|g| g.0), Some(1));
        assert_eq!(face.units_per_em(), 1000);
    }

    #[test]
    fn malformed_files_answer_none() {
        assert_eq!(unpack(b"wOFF"), None);
        assert_eq!(unpack(b"OTTO\0\0\0\0"), None);
        let mut claims_too_much = wrap(&crate::pdf::testing::tiny_font("A"));
        // The first table claims 4 GB once unpacked.
        claims_too_much[44 + 12..44 + 16].copy_from_slice(&u32::MAX.to_be_bytes());
        assert_eq!(unpack(&claims_too_much), None);
    }
}
