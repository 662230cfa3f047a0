//! The contract between the binding and its JavaScript side
//! (`lib/native/addon.cjs`, which checks it, `lib/classify/dispatch.cjs`,
//! `lib/stdio/message-reader.cjs`): every bit mask, slot index and code that crosses the
//! N-API boundary, defined here once. The binding exports them to JavaScript
//! as the frozen object `boundary` ([`EXPORTED`], built when the module
//! loads), and the JavaScript reads them from there; neither side writes the
//! numbers again.
//!
//! Constants and the codes' meaning only: `crate::out` writes the layout
//! they describe. The core's framer uses the same key bits.

use crate::Classification;

/// The top-level keys of a JSON-RPC message the classifier looks at; bit `i`
/// of a key set ([`KEY_JSONRPC`] ...) stands for `TOP_KEYS[i]`.
pub const TOP_KEYS: [&str; 6] = ["jsonrpc", "id", "result", "error", "method", "params"];
pub const KEY_JSONRPC: u8 = 1 << 0;
pub const KEY_ID: u8 = 1 << 1;
pub const KEY_RESULT: u8 = 1 << 2;
pub const KEY_ERROR: u8 = 1 << 3;
pub const KEY_METHOD: u8 = 1 << 4;
pub const KEY_PARAMS: u8 = 1 << 5;
/// All the bits of a top-level key set.
pub const KEYS_ALL: u8 = (1 << TOP_KEYS.len()) - 1;

/// The keys of a `notifications/progress`'s params; bit `i` of a progress key
/// set stands for `PROGRESS_KEYS[i]`.
pub const PROGRESS_KEYS: [&str; 4] = ["progressToken", "progress", "total", "message"];
pub const PROGRESS_KEY_TOKEN: u8 = 1 << 0;
pub const PROGRESS_KEY_PROGRESS: u8 = 1 << 1;
pub const PROGRESS_KEY_TOTAL: u8 = 1 << 2;
pub const PROGRESS_KEY_MESSAGE: u8 = 1 << 3;

/// The arguments of `Dispatcher.prototype._dispatchGathered`, by position:
/// the values `lib/classify/dispatch.cjs` reads of a message in JavaScript (a
/// JIT-compiled property read costs ~1 ns, one through N-API ~150 ns), so that Rust only
/// inspects them. Positional arguments are the cheapest way across (one
/// `napi_get_cb_info`).
pub mod slot {
    /// The message.
    pub const MESSAGE: usize = 0;
    /// The SDK's `extra`, passed on to the callbacks.
    pub const EXTRA: usize = 1;
    /// The message's `for...in` keys among [`super::TOP_KEYS`] (bits); < 0:
    /// nothing was gathered, the binding reads the message itself.
    pub const KEYS: usize = 2;
    /// The first other `for...in` key (a string), or undefined.
    pub const UNKNOWN: usize = 3;
    /// `message[TOP_KEYS[i]]` is at `TOP + i`.
    pub const TOP: usize = 4;
    pub const JSONRPC: usize = TOP;
    pub const ID: usize = TOP + 1;
    pub const RESULT: usize = TOP + 2;
    pub const ERROR: usize = TOP + 3;
    pub const METHOD: usize = TOP + 4;
    pub const PARAMS: usize = TOP + 5;
    /// The nested values, gathered only under objects.
    pub const R_META: usize = 10;
    pub const R_TOKEN: usize = 11;
    pub const R_TASK: usize = 12;
    pub const R_TASK_ID: usize = 13;
    pub const E_CODE: usize = 14;
    pub const E_MESSAGE: usize = 15;
    pub const P_META: usize = 16;
    pub const P_TOKEN: usize = 17;
    pub const P_TASK: usize = 18;
    pub const P_TASK_ID: usize = 19;
    /// The `for...in` keys of a `notifications/progress`'s params among
    /// [`super::PROGRESS_KEYS`] (bits); < 0: not gathered (another method).
    pub const PR_KEYS: usize = 20;
    /// The first other `for...in` key of those params, or undefined.
    pub const PR_UNKNOWN: usize = 21;
    /// `params[PROGRESS_KEYS[i]]` is at `PR_TOKEN + i`.
    pub const PR_TOKEN: usize = 22;
    pub const PR_PROGRESS: usize = 23;
    pub const PR_TOTAL: usize = 24;
    pub const PR_MESSAGE: usize = 25;
    /// How many arguments.
    pub const COUNT: usize = 26;
}

/// A framed message's code: its kind ([`kind_code`], masked by [`CODE_KIND`]),
/// plus flags. The framer's entries carry it, and the read buffer hands it to
/// the dispatcher with the message it returned (`_dispatchClassified`).
pub const CODE_RESULT: i32 = 1;
pub const CODE_ERROR: i32 = 2;
pub const CODE_REQUEST: i32 = 3;
pub const CODE_NOTIFICATION: i32 = 4;
/// The bits of a code that hold the kind.
pub const CODE_KIND: i32 = 7;
/// Flag: valid under the configured SDK's schemas but not under 1.x's
/// stricter ones (a result with an odd `_meta`).
pub const CODE_NOT_IN_BOTH: i32 = 8;
/// Flag: the SDK's schema parse would drop some of the message's keys.
pub const CODE_SCHEMA_STRIPS: i32 = 16;
/// The code of a bad line (any code <= 0 is one).
pub const CODE_BAD_LINE: i32 = -1;

/// The kind part of a code, for a valid message; `None` for `Invalid`.
pub fn kind_code(class: &Classification) -> Option<i32> {
    Some(match class {
        Classification::Result => CODE_RESULT,
        Classification::Error => CODE_ERROR,
        Classification::Request => CODE_REQUEST,
        Classification::Notification => CODE_NOTIFICATION,
        Classification::Invalid(_) => return None,
    })
}

/// The classification a kind code stands for (a code without flags), if any.
pub fn class_of_code(code: i32) -> Option<Classification> {
    Some(match code {
        CODE_RESULT => Classification::Result,
        CODE_ERROR => Classification::Error,
        CODE_REQUEST => Classification::Request,
        CODE_NOTIFICATION => Classification::Notification,
        _ => return None,
    })
}

/// `StdioFramer.prototype.push`'s result `out`: where things are.
/// `out[OUT_ENTRIES]` is an `Int32Array` of `out[OUT_COUNT]` entries of
/// [`ENTRY_SIZE`] integers each; `out[OUT_BATCH]` the batch text (the
/// messages as one JSON array); the strings and numbers from `OUT_VALUES` on.
pub const OUT_ENTRIES: usize = 0;
pub const OUT_COUNT: usize = 1;
pub const OUT_BATCH: usize = 2;
pub const OUT_VALUES: usize = 3;

/// An entry: `[code, slot, start, end]`. For a message, `slot` is
/// [`OUT_BATCH`] (the next element of the batch; `start..end` its text in the
/// batch, in UTF-16 units) or the index of a string of its own (the message
/// is its `slice(start, end)`). For a bad line, `slot` is the index `e` of its
/// error fields (`out[e + BAD_*]`) and `start` is 1 when it has
/// `BAD_TEXT`.
pub const ENTRY_SIZE: usize = 4;
pub const ENTRY_CODE: usize = 0;
pub const ENTRY_SLOT: usize = 1;
pub const ENTRY_START: usize = 2;
pub const ENTRY_END: usize = 3;

/// A bad line's fields, from its entry's slot `e` on: `out[e + BAD_MESSAGE]`
/// the error text, then its stream offset, 1-based line number, short reason
/// (`"malformed-json"`, ...) and, when its entry says so, the line's text.
pub const BAD_MESSAGE: usize = 0;
pub const BAD_OFFSET: usize = 1;
pub const BAD_LINE: usize = 2;
pub const BAD_REASON: usize = 3;
pub const BAD_TEXT: usize = 4;

/// The constants JavaScript reads, by the names it reads them by.
pub const EXPORTED: &[(&str, i32)] = &[
    ("KEY_JSONRPC", KEY_JSONRPC as i32),
    ("KEY_ID", KEY_ID as i32),
    ("KEY_RESULT", KEY_RESULT as i32),
    ("KEY_ERROR", KEY_ERROR as i32),
    ("KEY_METHOD", KEY_METHOD as i32),
    ("KEY_PARAMS", KEY_PARAMS as i32),
    ("PROGRESS_KEY_TOKEN", PROGRESS_KEY_TOKEN as i32),
    ("PROGRESS_KEY_PROGRESS", PROGRESS_KEY_PROGRESS as i32),
    ("PROGRESS_KEY_TOTAL", PROGRESS_KEY_TOTAL as i32),
    ("PROGRESS_KEY_MESSAGE", PROGRESS_KEY_MESSAGE as i32),
    ("SLOT_MESSAGE", slot::MESSAGE as i32),
    ("SLOT_EXTRA", slot::EXTRA as i32),
    ("SLOT_KEYS", slot::KEYS as i32),
    ("SLOT_UNKNOWN", slot::UNKNOWN as i32),
    ("SLOT_JSONRPC", slot::JSONRPC as i32),
    ("SLOT_ID", slot::ID as i32),
    ("SLOT_RESULT", slot::RESULT as i32),
    ("SLOT_ERROR", slot::ERROR as i32),
    ("SLOT_METHOD", slot::METHOD as i32),
    ("SLOT_PARAMS", slot::PARAMS as i32),
    ("SLOT_R_META", slot::R_META as i32),
    ("SLOT_R_TOKEN", slot::R_TOKEN as i32),
    ("SLOT_R_TASK", slot::R_TASK as i32),
    ("SLOT_R_TASK_ID", slot::R_TASK_ID as i32),
    ("SLOT_E_CODE", slot::E_CODE as i32),
    ("SLOT_E_MESSAGE", slot::E_MESSAGE as i32),
    ("SLOT_P_META", slot::P_META as i32),
    ("SLOT_P_TOKEN", slot::P_TOKEN as i32),
    ("SLOT_P_TASK", slot::P_TASK as i32),
    ("SLOT_P_TASK_ID", slot::P_TASK_ID as i32),
    ("SLOT_PR_KEYS", slot::PR_KEYS as i32),
    ("SLOT_PR_UNKNOWN", slot::PR_UNKNOWN as i32),
    ("SLOT_PR_TOKEN", slot::PR_TOKEN as i32),
    ("SLOT_PR_PROGRESS", slot::PR_PROGRESS as i32),
    ("SLOT_PR_TOTAL", slot::PR_TOTAL as i32),
    ("SLOT_PR_MESSAGE", slot::PR_MESSAGE as i32),
    ("SLOT_COUNT", slot::COUNT as i32),
    ("CODE_RESULT", CODE_RESULT),
    ("CODE_ERROR", CODE_ERROR),
    ("CODE_REQUEST", CODE_REQUEST),
    ("CODE_NOTIFICATION", CODE_NOTIFICATION),
    ("CODE_KIND", CODE_KIND),
    ("CODE_NOT_IN_BOTH", CODE_NOT_IN_BOTH),
    ("CODE_SCHEMA_STRIPS", CODE_SCHEMA_STRIPS),
    ("CODE_BAD_LINE", CODE_BAD_LINE),
    ("OUT_ENTRIES", OUT_ENTRIES as i32),
    ("OUT_COUNT", OUT_COUNT as i32),
    ("OUT_BATCH", OUT_BATCH as i32),
    ("OUT_VALUES", OUT_VALUES as i32),
    ("ENTRY_SIZE", ENTRY_SIZE as i32),
    ("ENTRY_CODE", ENTRY_CODE as i32),
    ("ENTRY_SLOT", ENTRY_SLOT as i32),
    ("ENTRY_START", ENTRY_START as i32),
    ("ENTRY_END", ENTRY_END as i32),
    ("BAD_MESSAGE", BAD_MESSAGE as i32),
    ("BAD_OFFSET", BAD_OFFSET as i32),
    ("BAD_LINE", BAD_LINE as i32),
    ("BAD_REASON", BAD_REASON as i32),
    ("BAD_TEXT", BAD_TEXT as i32),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_bits_follow_the_key_lists() {
        let top = [
            KEY_JSONRPC,
            KEY_ID,
            KEY_RESULT,
            KEY_ERROR,
            KEY_METHOD,
            KEY_PARAMS,
        ];
        for (i, bit) in top.iter().enumerate() {
            assert_eq!(*bit, 1 << i, "{}", TOP_KEYS[i]);
        }
        let progress = [
            PROGRESS_KEY_TOKEN,
            PROGRESS_KEY_PROGRESS,
            PROGRESS_KEY_TOTAL,
            PROGRESS_KEY_MESSAGE,
        ];
        for (i, bit) in progress.iter().enumerate() {
            assert_eq!(*bit, 1 << i, "{}", PROGRESS_KEYS[i]);
        }
    }

    #[test]
    fn codes_round_trip_and_names_are_unique() {
        for class in [
            Classification::Result,
            Classification::Error,
            Classification::Request,
            Classification::Notification,
        ] {
            let code = kind_code(&class).unwrap();
            let flagged = code | CODE_NOT_IN_BOTH | CODE_SCHEMA_STRIPS;
            assert_eq!(class_of_code(flagged & CODE_KIND), Some(class));
            assert_eq!(class_of_code(flagged), None);
        }
        assert_eq!(kind_code(&Classification::Invalid(String::new())), None);
        let mut names: Vec<_> = EXPORTED.iter().map(|(n, _)| *n).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), EXPORTED.len());
    }
}
