//! The one writer of the stdio readers' result `out` (its layout:
//! `crate::boundary`), for both readers: the main-thread `StdioFramer` and
//! the off-thread reader's pieces (`crate::stdio_thread`).

use crate::boundary::{
    kind_code, BAD_LINE, BAD_MESSAGE, BAD_OFFSET, BAD_REASON, BAD_TEXT, CODE_NOT_IN_BOTH,
    CODE_SCHEMA_STRIPS, ENTRY_CODE, ENTRY_END, ENTRY_SIZE, ENTRY_SLOT, ENTRY_START,
};
use crate::framer::{FrameError, Message};

/// A framed message's code: its kind and flags.
pub fn message_code(m: &Message<'_>) -> i32 {
    kind_code(&m.kind).expect("a framed message is valid")
        | if m.valid_in_both { 0 } else { CODE_NOT_IN_BOTH }
        | if m.schema_strips {
            CODE_SCHEMA_STRIPS
        } else {
            0
        }
}

/// Appends an entry `[code, slot, start, end]` to `entries`.
pub fn push_entry(entries: &mut Vec<i32>, [code, slot, start, end]: [i32; ENTRY_SIZE]) {
    let mut fields = [0; ENTRY_SIZE];
    fields[ENTRY_CODE] = code;
    fields[ENTRY_SLOT] = slot;
    fields[ENTRY_START] = start;
    fields[ENTRY_END] = end;
    entries.extend_from_slice(&fields);
}

/// Appends a message's `text` (`units` UTF-16 units long) to a batch: the
/// text of one JSON array, without its `]`, `batch_units` UTF-16 units so
/// far. Returns the message's range in the batch, in units (its entry's
/// `start..end`).
pub fn push_to_batch(
    batch: &mut Vec<u8>,
    batch_units: &mut usize,
    text: &str,
    units: usize,
) -> (usize, usize) {
    batch.push(if batch.is_empty() { b'[' } else { b',' });
    batch.extend_from_slice(text.as_bytes());
    let start = *batch_units + 1;
    *batch_units = start + units;
    (start, *batch_units)
}

/// A value of `out[OUT_VALUES..]` (a bad line's fields) before it is a
/// JavaScript value.
#[derive(Debug, Clone, PartialEq)]
pub enum OutValue {
    Text(String),
    Number(f64),
}

/// A bad line's fields, in `BAD_*` order (its text last, when it has one),
/// and its entry's `start` (1 when the text is there).
pub fn bad_line_fields(error: &FrameError) -> (Vec<OutValue>, i32) {
    let mut fields = vec![OutValue::Number(0.0); BAD_TEXT];
    fields[BAD_MESSAGE] = OutValue::Text(error.to_string());
    fields[BAD_OFFSET] = OutValue::Number(error.offset as f64);
    fields[BAD_LINE] = OutValue::Number(error.line as f64);
    fields[BAD_REASON] = OutValue::Text(error.kind.code().to_owned());
    match &error.text {
        Some(text) => {
            fields.push(OutValue::Text(text.clone()));
            (fields, 1)
        }
        None => (fields, 0),
    }
}
