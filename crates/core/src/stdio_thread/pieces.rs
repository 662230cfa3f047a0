//! Pieces: what the off-thread reader's worker frames, in the layout of the
//! main-thread reader's result `out` (`crate::boundary`), without N-API.
//! Each piece is bounded by bytes of message text and by count (a single
//! larger message makes a piece of its own), and its text is transcoded
//! (`crate::transcode`) by the worker, so that the main thread only copies it
//! into a string (the binding's `StdioThreadReader`).

use std::convert::Infallible;

use crate::framer::{FrameSink, Line, LineOutcome};
use crate::out::{OutValue, OutWriter};
use crate::transcode::JsText;

/// Lines framed and not yet handed over, written by the one writer of `out`
/// (their batch never escaped: transcoded whole by [`Ready::from`]).
pub type Piece = OutWriter<OutValue>;

/// A piece ready for JavaScript.
#[derive(Debug)]
pub struct Ready {
    /// Bytes of message text it carries (for the backlog count).
    pub bytes: usize,
    pub meta: Vec<i32>,
    /// The batch (`out[OUT_BATCH]`), transcoded; `None` when no message went
    /// into it.
    pub text: Option<JsText<'static>>,
    pub values: Vec<OutValue>,
}

impl From<Piece> for Ready {
    /// Closes the batch and transcodes it (ASCII and Latin-1 text to one
    /// byte a character, anything else to UTF-16), so that the main thread
    /// only copies it into a string.
    fn from(piece: Piece) -> Ready {
        let bytes = piece.batch().len();
        let (meta, text, values) = piece.into_transcoded();
        Ready {
            bytes,
            meta,
            text,
            values,
        }
    }
}

/// How much one hand-over may carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bounds {
    /// Bytes of message text; a message larger than this is a piece of its own.
    pub max_bytes: usize,
    /// Lines (messages and bad lines).
    pub max_lines: usize,
}

impl Bounds {
    /// No bound: one piece.
    pub const NONE: Bounds = Bounds {
        max_bytes: usize::MAX,
        max_lines: usize::MAX,
    };
}

/// Collects lines into pieces of at most [`Bounds`].
pub struct PieceSink {
    bounds: Bounds,
    /// The piece being filled.
    pub current: Piece,
    /// Full pieces, in order.
    pub done: Vec<Piece>,
}

impl PieceSink {
    pub fn new(bounds: Bounds, current: Piece) -> Self {
        PieceSink {
            bounds,
            current,
            done: Vec::new(),
        }
    }

    fn room_for(&mut self, bytes: usize) {
        let c = &self.current;
        if c.lines() > 0
            && (c.lines() >= self.bounds.max_lines
                || c.batch().len() + bytes > self.bounds.max_bytes)
        {
            self.done.push(std::mem::take(&mut self.current));
        }
    }

    /// Everything collected, in order.
    pub fn into_pieces(mut self) -> Vec<Piece> {
        if !self.current.is_empty() {
            self.done.push(self.current);
        }
        self.done
    }
}

impl FrameSink for PieceSink {
    fn line(&mut self, line: &Line, outcome: LineOutcome<'_>) {
        match outcome {
            LineOutcome::Message(m) => {
                self.room_for(m.text.len() + 1);
                self.current.batch_message(line, &m);
            }
            LineOutcome::Error(e) => {
                self.room_for(0);
                // Only a chunk of some 500 million bad lines framed in one
                // piece (`Bounds::NONE`) could overflow the entries' slots:
                // a panic, which the worker and the binding both catch.
                self.current
                    .bad_line(&e, Ok::<_, Infallible>)
                    .expect("a piece's values fit its entries");
            }
            LineOutcome::Skipped => {}
        }
    }
}

/// A piece's batch as Rust text (for tests).
#[cfg(test)]
pub fn text_of(r: &Ready) -> String {
    match &r.text {
        None => String::new(),
        Some(JsText::Latin1(b)) => b.iter().map(|&x| x as char).collect(),
        Some(JsText::Utf16(u)) => String::from_utf16(u).unwrap(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::boundary;
    use crate::{Framer, FramerOptions, Profile};

    fn frame(bounds: Bounds, chunks: &[&[u8]]) -> Vec<Ready> {
        let mut framer = Framer::new(FramerOptions::for_profile(Profile::V1));
        let mut sink = PieceSink::new(bounds, Piece::default());
        for c in chunks {
            framer.push(c, &mut sink);
        }
        sink.into_pieces().into_iter().map(Ready::from).collect()
    }

    use super::text_of as text;

    const NOTE: &str =
        r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"x"}}"#;

    #[test]
    fn pieces_are_bounded_by_count_and_bytes_in_order() {
        let stream: String = (0..10)
            .map(|i| NOTE.replace('x', &i.to_string()) + "\n")
            .collect();
        let by_count = frame(
            Bounds {
                max_bytes: usize::MAX,
                max_lines: 3,
            },
            &[stream.as_bytes()],
        );
        assert_eq!(
            by_count
                .iter()
                .map(|r| r.meta.len() / 4)
                .collect::<Vec<_>>(),
            [3, 3, 3, 1]
        );
        let by_bytes = frame(
            Bounds {
                max_bytes: 2 * NOTE.len() + 2,
                max_lines: 100,
            },
            &[stream.as_bytes()],
        );
        assert_eq!(
            by_bytes
                .iter()
                .map(|r| r.meta.len() / 4)
                .collect::<Vec<_>>(),
            [2, 2, 2, 2, 2]
        );
        // Every piece's batch is a JSON array of its messages, in order, and
        // the entries' offsets slice each message out of it.
        let mut seen = Vec::new();
        for r in &by_bytes {
            let t = text(r);
            let all: Vec<serde_json::Value> = serde_json::from_str(&t).unwrap();
            let units: Vec<u16> = t.encode_utf16().collect();
            for (k, m) in all.iter().enumerate() {
                let e = &r.meta[4 * k..4 * k + 4];
                assert_eq!(e[1], boundary::OUT_BATCH as i32);
                let own = String::from_utf16(&units[e[2] as usize..e[3] as usize]).unwrap();
                assert_eq!(&serde_json::from_str::<serde_json::Value>(&own).unwrap(), m);
                seen.push(m["params"]["data"].as_str().unwrap().to_owned());
            }
        }
        assert_eq!(seen, (0..10).map(|i| i.to_string()).collect::<Vec<_>>());
        // A message larger than the bound is a piece of its own.
        let big = frame(
            Bounds {
                max_bytes: 10,
                max_lines: 100,
            },
            &[stream.as_bytes()],
        );
        assert_eq!(big.len(), 10);
    }

    #[test]
    fn text_is_transcoded_and_bad_lines_keep_their_place() {
        let chunks: [&[u8]; 4] = [
            b"{\"jsonrpc\":\"2.0\",\"method\":\"a\",\"params\":{\"t\":\"caf\xc3\xa9\"}}\n{oops}\n",
            b"{\"jsonrpc\":\"2.0\",\"method\":\"b\",\"params\":{\"t\":\"\xe2\x82",
            b"\xac \xf0\x9f\x98\x80\"}}\n",
            b"\n",
        ];
        let all = frame(
            Bounds {
                max_bytes: usize::MAX,
                max_lines: usize::MAX,
            },
            &chunks,
        );
        assert_eq!(all.len(), 1);
        let r = &all[0];
        assert!(matches!(r.text, Some(JsText::Utf16(_))));
        let codes: Vec<i32> = r.meta.chunks(4).map(|e| e[0]).collect();
        assert_eq!(
            codes,
            [
                boundary::CODE_NOTIFICATION,
                -1,
                boundary::CODE_NOTIFICATION,
                -1
            ]
        );
        let v: serde_json::Value = serde_json::from_str(&text(r)).unwrap();
        assert_eq!(v[0]["params"]["t"], "café");
        assert_eq!(v[1]["params"]["t"], "€ 😀");
        let e = r.meta[5] as usize - boundary::OUT_VALUES;
        assert_eq!(
            r.values[e + boundary::BAD_REASON],
            OutValue::Text("malformed-json".into())
        );
        assert_eq!(r.values[e + boundary::BAD_LINE], OutValue::Number(2.0));
        assert_eq!(
            r.values[e + boundary::BAD_TEXT],
            OutValue::Text("{oops}".into())
        );
        let first = chunks[0].iter().position(|&b| b == b'\n').unwrap() + 1;
        let latin = frame(
            Bounds {
                max_bytes: usize::MAX,
                max_lines: usize::MAX,
            },
            &[&chunks[0][..first]],
        );
        assert!(
            matches!(latin[0].text, Some(JsText::Latin1(_))),
            "{:?}",
            latin[0].text
        );
        assert_eq!(
            text(&latin[0]),
            "[{\"jsonrpc\":\"2.0\",\"method\":\"a\",\"params\":{\"t\":\"café\"}}]"
        );
    }
}
