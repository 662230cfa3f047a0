//! What serde_json refuses and `JSON.parse` accepts (numbers that overflow
//! f64, unpaired surrogate escapes), neutralised so that such a line can be
//! classified: neither can change whether a message is valid.

pub(super) fn needs_sanitizing(e: &serde_json::Error) -> bool {
    let text = e.to_string();
    text.contains("surrogate") || text.contains("escape") || text.contains("number out of range")
}

/// Whether `t` is a JSON number: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`.
pub(super) fn is_json_number(t: &[u8]) -> bool {
    let digits = |i: &mut usize| {
        let start = *i;
        while *i < t.len() && t[*i].is_ascii_digit() {
            *i += 1;
        }
        *i > start
    };
    let mut i = 0;
    if t.first() == Some(&b'-') {
        i += 1;
    }
    match t.get(i) {
        Some(b'0') => i += 1,
        Some(b'1'..=b'9') => {
            digits(&mut i);
        }
        _ => return false,
    }
    if t.get(i) == Some(&b'.') {
        i += 1;
        if !digits(&mut i) {
            return false;
        }
    }
    if matches!(t.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(t.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if !digits(&mut i) {
            return false;
        }
    }
    i == t.len()
}

/// Rewrites, without moving any byte, the two things serde_json rejects and
/// `JSON.parse` accepts:
/// * a number that overflows f64 becomes `±1e308` (padded with spaces). In
///   JS it is ±Infinity; every place the classifier reads a number needs a
///   safe integer, and neither value is one;
/// * a surrogate escape (`\uD800`-`\uDFFF`) becomes `\uFFFD`. The classifier
///   only compares strings with ASCII names and `"2.0"`, which a string with
///   a surrogate can never equal, before or after.
///
/// Returns `None` if nothing needed rewriting.
pub(super) fn sanitize(text: &str) -> Option<String> {
    let b = text.as_bytes();
    let mut out = b.to_vec();
    let mut changed = false;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'"' => {
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    if b[i] == b'\\' {
                        if b.get(i + 1) == Some(&b'u') && i + 6 <= b.len() {
                            let hex = &text.get(i + 2..i + 6).unwrap_or("");
                            if let Ok(cp) = u16::from_str_radix(hex, 16) {
                                if (0xD800..=0xDFFF).contains(&cp) {
                                    out[i + 2..i + 6].copy_from_slice(b"FFFD");
                                    changed = true;
                                }
                            }
                            i += 6;
                            continue;
                        }
                        i += 2;
                        continue;
                    }
                    i += 1;
                }
                i += 1;
            }
            b'-' | b'0'..=b'9' => {
                let start = i;
                while i < b.len() && matches!(b[i], b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E')
                {
                    i += 1;
                }
                let token = &text[start..i];
                if !is_json_number(token.as_bytes()) {
                    continue;
                }
                if let Ok(n) = token.parse::<f64>() {
                    if n.is_infinite() {
                        let repl: &[u8] = if n < 0.0 { b"-1e308" } else { b"1e308" };
                        if repl.len() <= token.len() {
                            out[start..start + repl.len()].copy_from_slice(repl);
                            out[start + repl.len()..i].fill(b' ');
                            changed = true;
                        }
                    }
                }
            }
            _ => i += 1,
        }
    }
    if changed {
        String::from_utf8(out).ok()
    } else {
        None
    }
}
