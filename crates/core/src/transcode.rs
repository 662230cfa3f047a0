//! Valid UTF-8 text transcoded for the strings V8 makes of it (no N-API):
//! one byte a character (Latin-1) when every character is below U+0100,
//! UTF-16 otherwise, or ASCII with `\uXXXX` escapes (`escape_non_ascii`)
//! for JSON text with few characters beyond ASCII. Both stdio readers use
//! it: the main-thread `StdioFramer` as it builds a result, the off-thread
//! reader's worker before the hand-over (the binding's `js_out` makes the strings).

use std::borrow::Cow;

/// Text in the form a JavaScript string is made of.
#[derive(Debug, Clone, PartialEq)]
pub enum JsText<'a> {
    /// Every character below U+0100 (ASCII included): one byte each.
    Latin1(Cow<'a, [u8]>),
    Utf16(Vec<u16>),
}

/// Valid UTF-8 `bytes` as Latin-1 when every character fits (ASCII as is,
/// no copy), else as UTF-16. One pass decides: ASCII if every byte is below
/// 0x80; Latin-1 if no lead byte is 0xC4 or above (U+0100 and up).
pub fn transcode(bytes: Cow<'_, [u8]>) -> JsText<'_> {
    let max = bytes.iter().copied().max().unwrap_or(0);
    if max < 0x80 {
        JsText::Latin1(bytes)
    } else if max < 0xC4 {
        JsText::Latin1(Cow::Owned(to_latin1(&bytes)))
    } else {
        JsText::Utf16(to_utf16(&bytes))
    }
}

/// The UTF-16 length of UTF-8 made of whole characters (the one counter:
/// the framer's entry ranges, the search by shape's offsets): one unit a
/// character, two for those beyond U+FFFF (4-byte sequences). ASCII at once,
/// else per chunk of 255 bytes in 8-bit counters, which the compiler
/// vectorizes (4x the word-at-a-time popcount it replaced, measured here).
pub fn utf16_len(utf8: &[u8]) -> usize {
    if utf8.is_ascii() {
        return utf8.len();
    }
    let mut units = 0usize;
    for chunk in utf8.chunks(255) {
        // Every byte but a continuation byte (0b10xxxxxx) starts a character;
        // a 4-byte leader (0b11110xxx) adds its second unit.
        let (mut chars, mut astral) = (0u8, 0u8);
        for &b in chunk {
            chars += u8::from((b as i8) >= -0x40);
            astral += u8::from(b >= 0xF0);
        }
        units += usize::from(chars) + usize::from(astral);
    }
    units
}

/// Latin-1 of valid UTF-8 whose characters are all below U+0100 (lead bytes
/// 0xC2 and 0xC3 only).
pub fn to_latin1(b: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let x = b[i];
        if x < 0x80 {
            out.push(x);
            i += 1;
        } else {
            let next = b.get(i + 1).copied().unwrap_or(0x80);
            out.push(((x & 0x1F) << 6) | (next & 0x3F));
            i += 2;
        }
    }
    out
}

/// The character of the multi-byte sequence at `b[i]` (valid UTF-8), and
/// the sequence's length in bytes.
#[inline(always)]
fn decode_at(b: &[u8], i: usize) -> (u32, usize) {
    let lead = b[i];
    let (len, init) = match lead {
        0xC0..=0xDF => (2, (lead & 0x1F) as u32),
        0xE0..=0xEF => (3, (lead & 0x0F) as u32),
        _ => (4, (lead & 0x07) as u32),
    };
    let mut cp = init;
    for &cont in &b[i + 1..(i + len).min(b.len())] {
        cp = (cp << 6) | (cont & 0x3F) as u32;
    }
    (cp, len)
}

/// The UTF-16 of character `cp`: one unit, or a surrogate pair.
#[inline(always)]
fn utf16_of(cp: u32) -> (u16, Option<u16>) {
    if cp >= 0x1_0000 {
        let c = cp - 0x1_0000;
        (0xD800 | (c >> 10) as u16, Some(0xDC00 | (c & 0x3FF) as u16))
    } else {
        (cp as u16, None)
    }
}

/// UTF-16 of valid UTF-8, with a fast path for ASCII runs (8 bytes at a time).
// The crate's one `unsafe`: the SSE2 widening copy below (its SAFETY
// comment says why it stays in bounds).
#[allow(unsafe_code)]
pub fn to_utf16(b: &[u8]) -> Vec<u16> {
    // At most one unit per byte; written by index into a sized buffer (the
    // 8-byte ASCII copy then compiles to a widening vector move).
    let mut out = vec![0u16; b.len()];
    let (mut i, mut o) = (0, 0);
    while i < b.len() {
        #[cfg(target_arch = "x86_64")]
        while i + 16 <= b.len() {
            use std::arch::x86_64::{
                __m128i, _mm_loadu_si128, _mm_movemask_epi8, _mm_setzero_si128, _mm_storeu_si128,
                _mm_unpackhi_epi8, _mm_unpacklo_epi8,
            };
            // SAFETY: SSE2 is part of x86_64. `i + 16 <= b.len()`, and `o <=
            // i` (never more units than bytes) with `out.len() == b.len()`,
            // so both 16-unit stores land inside `out`.
            unsafe {
                let v = _mm_loadu_si128(b.as_ptr().add(i).cast::<__m128i>());
                if _mm_movemask_epi8(v) != 0 {
                    break;
                }
                let zero = _mm_setzero_si128();
                let dst = out.as_mut_ptr().add(o).cast::<__m128i>();
                _mm_storeu_si128(dst, _mm_unpacklo_epi8(v, zero));
                _mm_storeu_si128(dst.add(1), _mm_unpackhi_epi8(v, zero));
            }
            i += 16;
            o += 16;
        }
        #[cfg(not(target_arch = "x86_64"))]
        while i + 16 <= b.len() {
            let lo = u64::from_le_bytes(b[i..i + 8].try_into().expect("8 bytes"));
            let hi = u64::from_le_bytes(b[i + 8..i + 16].try_into().expect("8 bytes"));
            if (lo | hi) & 0x8080_8080_8080_8080 != 0 {
                break;
            }
            for (dst, &src) in out[o..o + 16].iter_mut().zip(&b[i..i + 16]) {
                *dst = src as u16;
            }
            i += 16;
            o += 16;
        }
        while i + 8 <= b.len() {
            let word = u64::from_le_bytes(b[i..i + 8].try_into().expect("8 bytes"));
            if word & 0x8080_8080_8080_8080 != 0 {
                break;
            }
            for (dst, &src) in out[o..o + 8].iter_mut().zip(&b[i..i + 8]) {
                *dst = src as u16;
            }
            i += 8;
            o += 8;
        }
        if i >= b.len() {
            break;
        }
        let lead = b[i];
        if lead < 0x80 {
            out[o] = lead as u16;
            i += 1;
            o += 1;
            continue;
        }
        // A multi-byte sequence (the caller guarantees valid UTF-8).
        let (cp, len) = decode_at(b, i);
        match utf16_of(cp) {
            (unit, None) => {
                out[o] = unit;
                o += 1;
            }
            (high, Some(low)) => {
                out[o] = high;
                out[o + 1] = low;
                o += 2;
            }
        }
        i += len;
    }
    out.truncate(o);
    out
}

/// The length of the ASCII run `b` starts with (eight bytes at a time).
fn ascii_run(b: &[u8]) -> usize {
    let mut i = 0;
    while i + 8 <= b.len() {
        let w = u64::from_le_bytes(b[i..i + 8].try_into().expect("8 bytes"));
        let high = w & 0x8080_8080_8080_8080;
        if high != 0 {
            return i + (high.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    i + b[i..]
        .iter()
        .position(|&x| x >= 0x80)
        .unwrap_or(b.len() - i)
}

/// Appends valid UTF-8 `text` with every character beyond ASCII written as
/// JSON `\uXXXX` escapes (two for one outside the BMP).
pub fn escape_non_ascii(text: &[u8], out: &mut Vec<u8>) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let unit = |u: u16, out: &mut Vec<u8>| {
        out.extend_from_slice(&[
            b'\\',
            b'u',
            HEX[(u >> 12) as usize],
            HEX[((u >> 8) & 15) as usize],
            HEX[((u >> 4) & 15) as usize],
            HEX[(u & 15) as usize],
        ]);
    };
    let mut i = 0;
    while i < text.len() {
        let run = ascii_run(&text[i..]);
        out.extend_from_slice(&text[i..i + run]);
        i += run;
        if i >= text.len() {
            break;
        }
        let (cp, len) = decode_at(text, i);
        let (first, second) = utf16_of(cp);
        unit(first, out);
        if let Some(second) = second {
            unit(second, out);
        }
        i += len;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf16_lengths() {
        let len = |s: &str| utf16_len(s.as_bytes());
        assert_eq!(len("abc"), 3);
        assert_eq!(len("\u{e9}"), 1);
        assert_eq!(len("\u{20ac}"), 1);
        assert_eq!(len("\u{1F600}"), 2);
        assert_eq!(len("a\u{1F600}\u{e9}"), 4);
        // Across the 255-byte chunks, at every alignment.
        let mixed = "d\u{e9}j\u{e0} vu \u{2014} \u{2713} \u{1F600} \u{10FFFF}\u{7FF}\u{800} ascii run of some length ";
        for start in 0..mixed.len() {
            if let Some(s) = mixed.get(start..) {
                let t = s.repeat(9);
                assert_eq!(len(&t), t.encode_utf16().count(), "{t}");
            }
        }
    }

    #[test]
    fn escaping_non_ascii() {
        for s in [
            "",
            "abc",
            "déjà vu — ✓",
            "😀x\u{10FFFF}",
            "\u{7FF}\u{800}\u{FFFF}",
            "a long run of ascii before é and after it, more than eight bytes ✓ and 😀",
        ] {
            let mut out = Vec::new();
            escape_non_ascii(s.as_bytes(), &mut out);
            assert!(out.is_ascii());
            let quoted = format!("\"{}\"", String::from_utf8(out).unwrap());
            assert_eq!(serde_json::from_str::<String>(&quoted).unwrap(), s);
        }
    }

    #[test]
    fn utf16_transcoding() {
        for s in [
            "",
            "abc",
            "héllo wörld, long enough ascii run",
            "\u{80}\u{ff}ÿ ß",
            "€uro",
            "😀x",
            "a😀é€\u{10FFFF}\u{7FF}\u{800} and more ascii after it",
            "a run of ascii longer than sixteen bytes, then é, then another long run ✓ end",
        ] {
            let want: Vec<u16> = s.encode_utf16().collect();
            assert_eq!(to_utf16(s.as_bytes()), want, "{s}");
            if s.chars().all(|c| (c as u32) < 0x100) {
                let latin: Vec<u8> = s.chars().map(|c| c as u32 as u8).collect();
                assert_eq!(to_latin1(s.as_bytes()), latin, "{s}");
            }
        }
    }

    #[test]
    fn transcode_picks_one_byte_text_when_every_character_fits() {
        for s in [
            "",
            "plain ascii",
            "caf\u{e9} \u{ff}",
            "\u{100}",
            "\u{20ac} \u{1F600}",
        ] {
            let got = transcode(Cow::Borrowed(s.as_bytes()));
            if s.chars().all(|c| (c as u32) < 0x100) {
                let want: Vec<u8> = s.chars().map(|c| c as u32 as u8).collect();
                assert_eq!(got, JsText::Latin1(want.into()), "{s}");
            } else {
                assert_eq!(got, JsText::Utf16(s.encode_utf16().collect()), "{s}");
            }
        }
        // ASCII is passed through, not copied.
        assert!(matches!(
            transcode(Cow::Borrowed(b"abc")),
            JsText::Latin1(Cow::Borrowed(_))
        ));
    }
}
