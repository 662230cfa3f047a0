//! Property tests for the stdio framer and the classifier it runs:
//! * nothing panics, whatever the bytes and however they are chunked;
//! * every line gets exactly one outcome, and the buffer never holds more
//!   than the limit;
//! * splitting a stream at any points gives the same outcomes (messages,
//!   errors, their offsets and line numbers) as pushing it whole;
//! * the framer's sparse parse classifies exactly as `classify(&SerdeView)`
//!   on the full `serde_json::Value`.

use mcp_ordered_dispatch_core::framer::{
    inspect, FrameError, FrameSink, Framer, FramerOptions, Inspect, InvalidUtf8, Line, LineOutcome,
    NotJson,
};
use mcp_ordered_dispatch_core::{classify, BlankLines, Classification, Profile, SerdeView};
use proptest::prelude::*;
use serde_json::{json, Map, Value};

/// Everything the framer reports, comparable across runs.
#[derive(Debug, Clone, PartialEq)]
enum Seen {
    Message(String, Classification, bool),
    Skipped(u64),
    Error(FrameError),
}

#[derive(Default)]
struct Record(Vec<Seen>);

impl FrameSink for Record {
    fn line(&mut self, line: &Line, outcome: LineOutcome<'_>) {
        self.0.push(match outcome {
            LineOutcome::Message(m) => {
                Seen::Message(m.text.to_owned(), m.kind.clone(), m.valid_in_both)
            }
            LineOutcome::Skipped => Seen::Skipped(line.offset),
            LineOutcome::Error(e) => Seen::Error(e),
        });
    }
}

fn run(options: FramerOptions, stream: &[u8], cuts: &[usize]) -> Vec<Seen> {
    let mut framer = Framer::new(options);
    let mut record = Record::default();
    let mut cuts: Vec<usize> = cuts.iter().map(|c| c % (stream.len() + 1)).collect();
    cuts.sort_unstable();
    let mut start = 0;
    for cut in cuts.into_iter().chain([stream.len()]) {
        framer.push(&stream[start..cut], &mut record);
        assert!(framer.buffered() <= options.max_message_size);
        start = cut;
    }
    record.0
}

fn options(profile: Profile, max: usize, blank: BlankLines) -> FramerOptions {
    FramerOptions {
        max_message_size: max,
        blank_lines: blank,
        ..FramerOptions::for_profile(profile)
    }
}

fn any_options() -> impl Strategy<Value = FramerOptions> {
    (
        prop_oneof![Just(Profile::V1), Just(Profile::V2)],
        prop_oneof![Just(16usize), Just(200), Just(10 * 1024 * 1024)],
        prop_oneof![Just(BlankLines::Report), Just(BlankLines::Skip)],
        prop_oneof![Just(NotJson::Report), Just(NotJson::Skip)],
        prop_oneof![Just(InvalidUtf8::Replace), Just(InvalidUtf8::Report)],
    )
        .prop_map(|(p, m, b, j, u)| FramerOptions {
            not_json: j,
            invalid_utf8: u,
            ..options(p, m, b)
        })
}

// --- generated JSON-RPC-ish values -----------------------------------------

fn scalar() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(json!(null)),
        Just(json!(true)),
        Just(json!(false)),
        Just(json!(0)),
        Just(json!(-0.0)),
        Just(json!(1)),
        Just(json!(-7)),
        Just(json!(1.5)),
        Just(json!(1e21)),
        Just(json!(9007199254740991u64)),
        Just(json!(9007199254740992u64)),
        Just(json!(-9007199254740991i64)),
        Just(json!(u64::MAX)),
        Just(json!("")),
        Just(json!("2.0")),
        Just(json!("1.0")),
        Just(json!("x")),
        Just(json!("notifications/progress")),
        "[a-z/é😀]{0,8}".prop_map(Value::String),
        any::<i64>().prop_map(|n| json!(n)),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(|f| json!(f)),
    ]
}

fn value() -> impl Strategy<Value = Value> {
    scalar().prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..3).prop_map(Value::Array),
            prop::collection::btree_map("[a-z_]{1,4}", inner, 0..3)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

fn id() -> impl Strategy<Value = Value> {
    prop_oneof![4 => scalar(), 1 => value()]
}

fn meta() -> impl Strategy<Value = Value> {
    let task = prop_oneof![
        Just(json!({"taskId": "t"})),
        Just(json!({"taskId": 1})),
        Just(json!({})),
        Just(json!("t")),
        id().prop_map(|t| json!({ "taskId": t })),
    ];
    prop_oneof![
        3 => (prop::option::of(id()), prop::option::of(task), prop::option::of(value())).prop_map(
            |(token, task, extra)| {
                let mut m = Map::new();
                if let Some(t) = token {
                    m.insert("progressToken".into(), t);
                }
                if let Some(t) = task {
                    m.insert("io.modelcontextprotocol/related-task".into(), t);
                }
                if let Some(x) = extra {
                    m.insert("other".into(), x);
                }
                Value::Object(m)
            }
        ),
        1 => value(),
    ]
}

fn with_meta() -> impl Strategy<Value = Value> {
    prop_oneof![
        3 => (prop::option::of(meta()), prop::option::of(value())).prop_map(|(meta, extra)| {
            let mut m = Map::new();
            if let Some(x) = extra {
                m.insert("payload".into(), x);
            }
            if let Some(meta) = meta {
                m.insert("_meta".into(), meta);
            }
            Value::Object(m)
        }),
        1 => value(),
    ]
}

fn error_object() -> impl Strategy<Value = Value> {
    prop_oneof![
        3 => (prop::option::of(id()), prop::option::of(scalar()), prop::option::of(value()))
            .prop_map(|(code, message, data)| {
                let mut m = Map::new();
                if let Some(c) = code {
                    m.insert("code".into(), c);
                }
                if let Some(x) = message {
                    m.insert("message".into(), x);
                }
                if let Some(d) = data {
                    m.insert("data".into(), d);
                }
                Value::Object(m)
            }),
        1 => value(),
    ]
}

/// A message-shaped value: each field present or not, good or bad.
fn message() -> impl Strategy<Value = Value> {
    let jsonrpc = prop_oneof![8 => Just(json!("2.0")), 1 => scalar()];
    (
        prop::option::weighted(0.95, jsonrpc),
        prop::option::weighted(0.6, id()),
        prop::option::weighted(0.5, "[a-z/]{1,12}".prop_map(Value::String).boxed()),
        prop::option::weighted(0.5, with_meta()),
        prop::option::weighted(0.25, with_meta()),
        prop::option::weighted(0.2, error_object()),
        prop::option::weighted(0.05, value()),
        prop::option::weighted(0.05, scalar()),
    )
        .prop_map(
            |(jsonrpc, id, method, params, result, error, extra, method_override)| {
                let mut m = Map::new();
                let fields = [
                    ("jsonrpc", jsonrpc),
                    ("id", id),
                    ("method", method_override.or(method)),
                    ("params", params),
                    ("result", result),
                    ("error", error),
                    ("extra", extra),
                ];
                for (k, v) in fields {
                    if let Some(v) = v {
                        m.insert(k.into(), v);
                    }
                }
                Value::Object(m)
            },
        )
}

fn expected(v: &Value, profile: Profile) -> Result<Classification, String> {
    match classify(&SerdeView::new(v), profile) {
        Classification::Invalid(r) => Err(r),
        valid => Ok(valid),
    }
}

/// A line: a message, garbage, or a bad line of some kind.
fn line() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        6 => message().prop_map(|v| v.to_string().into_bytes()),
        1 => message().prop_map(|v| format!("  {}\r", v).into_bytes()),
        1 => Just(Vec::new()),
        1 => Just(b" \t\r".to_vec()),
        1 => "[{}\\[\\]\":,a-z0-9é ]{0,24}".prop_map(String::into_bytes),
        1 => prop::collection::vec(any::<u8>(), 0..24)
            .prop_map(|b| b.into_iter().filter(|&x| x != b'\n').collect()),
        1 => Just(b"{\"jsonrpc\":\"2.0\",\"method\":\"m\xff\"}".to_vec()),
        1 => (200usize..600).prop_map(|n| {
            format!(r#"{{"jsonrpc":"2.0","method":"big","params":{{"x":"{}"}}}}"#, "y".repeat(n))
                .into_bytes()
        }),
    ]
}

fn stream() -> impl Strategy<Value = Vec<u8>> {
    (prop::collection::vec(line(), 0..12), any::<bool>()).prop_map(|(lines, trailing)| {
        let mut out = Vec::new();
        for (i, l) in lines.iter().enumerate() {
            out.extend_from_slice(l);
            if i + 1 < lines.len() || trailing {
                out.push(b'\n');
            }
        }
        out
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    /// Arbitrary bytes, arbitrary chunks: no panic, one outcome per line.
    #[test]
    fn never_panics_and_reports_every_line(
        bytes in prop::collection::vec(any::<u8>(), 0..400),
        cuts in prop::collection::vec(any::<usize>(), 0..6),
        opts in any_options(),
    ) {
        let seen = run(opts, &bytes, &cuts);
        let lines = bytes.iter().filter(|&&b| b == b'\n').count();
        let skipped_large = seen
            .iter()
            .filter(|s| matches!(s, Seen::Error(e) if e.kind.code() == "too-large"))
            .count();
        // A line over the limit is reported once, possibly before its newline.
        prop_assert!(seen.len() == lines || seen.len() == lines + 1 && skipped_large > 0,
            "{} outcomes for {} lines", seen.len(), lines);
    }

    /// Cutting a stream anywhere changes nothing.
    #[test]
    fn split_invariance(
        bytes in stream(),
        cuts in prop::collection::vec(any::<usize>(), 0..8),
        opts in any_options(),
    ) {
        let whole = run(opts, &bytes, &[]);
        let parts = run(opts, &bytes, &cuts);
        prop_assert_eq!(parts, whole);
    }

    /// Every single-byte split of a stream of valid messages (including inside
    /// multi-byte characters) gives the same messages.
    #[test]
    fn byte_by_byte(bytes in stream()) {
        let opts = options(Profile::V1, 10 * 1024 * 1024, BlankLines::Report);
        let whole = run(opts, &bytes, &[]);
        let every: Vec<usize> = (0..bytes.len()).collect();
        prop_assert_eq!(run(opts, &bytes, &every), whole);
    }

    /// Invalid UTF-8 in a key and in a string value: the message's text is
    /// `String::from_utf8_lossy` of the line (what `Buffer#toString('utf8')`
    /// gives; test/stdio/framing-fidelity.test.mjs checks the two agree), however
    /// the line is cut; strict reports it instead.
    #[test]
    fn invalid_utf8_is_replaced(
        key in prop::collection::vec(any::<u8>(), 0..12),
        value in prop::collection::vec(any::<u8>(), 0..12),
        cuts in prop::collection::vec(any::<usize>(), 0..4),
        v2 in any::<bool>(),
    ) {
        // Bytes that are fine inside a JSON string once decoded.
        let clean = |b: Vec<u8>| -> Vec<u8> { b.into_iter().filter(|&x| x >= 0x20 && x != b'"' && x != b'\\').collect() };
        let (key, value) = (clean(key), clean(value));
        let mut line = br#"{"jsonrpc":"2.0","method":"m","params":{"k"#.to_vec();
        line.extend_from_slice(&key);
        line.extend_from_slice(br#"":"v"#);
        line.extend_from_slice(&value);
        line.extend_from_slice(b"\"}}\n");
        let profile = if v2 { Profile::V2 } else { Profile::V1 };
        let lossy = String::from_utf8_lossy(&line[..line.len() - 1]).into_owned();
        let seen = run(FramerOptions::for_profile(profile), &line, &cuts);
        prop_assert_eq!(seen, vec![Seen::Message(lossy, Classification::Notification, true)]);
        let strict = run(FramerOptions::strict(profile), &line, &cuts);
        let valid = std::str::from_utf8(&line).is_ok();
        prop_assert_eq!(matches!(&strict[..], [Seen::Error(e)] if e.kind.code() == "invalid-utf8"), !valid);
    }

    /// The sparse parse classifies as the full serde_json::Value does.
    #[test]
    fn sparse_parse_matches_serde_view(v in message()) {
        let text = v.to_string();
        for profile in [Profile::V1, Profile::V2] {
            let want = expected(&v, profile);
            match (inspect(&text, profile), want) {
                (Ok((kind, _)), Ok(k)) => prop_assert_eq!(kind, k, "{}", text),
                (Err(Inspect::Rpc(reason)), Err(r)) => {
                    // Same verdict; the reason may name another unknown key
                    // (JSON.parse order vs the map's sorted order).
                    if !r.starts_with("unexpected key") {
                        prop_assert_eq!(reason, r, "{}", text);
                    }
                }
                (got, want) => prop_assert!(false, "{}: framer {:?}, SerdeView {:?}", text, got, want),
            }
        }
    }

    /// The classifier never panics on any JSON value.
    #[test]
    fn classify_never_panics(v in value()) {
        let _ = classify(&SerdeView::new(&v), Profile::V1);
        let _ = classify(&SerdeView::new(&v), Profile::V2);
        let _ = inspect(&v.to_string(), Profile::V1);
    }

    /// Valid under both profiles is exactly what the 1.x classifier accepts.
    #[test]
    fn valid_in_both(v in message()) {
        let text = v.to_string();
        if let Ok((kind, both)) = inspect(&text, Profile::V2) {
            prop_assert_eq!(both, expected(&v, Profile::V1) == Ok(kind));
        }
    }
}

// --- the envelope scan (check_bodies: false) ---------------------------------

/// One line's outcome, with what a recheck needs; and for a message,
/// whether it was checked, and the rest of what the framer read of it.
#[derive(Default)]
struct Lines(Vec<(Line, Seen, Option<bool>, String)>);

impl FrameSink for Lines {
    fn line(&mut self, line: &Line, outcome: LineOutcome<'_>) {
        let (checked, more) = match &outcome {
            LineOutcome::Message(m) => (
                Some(m.checked),
                format!(
                    "{} {:?} {:?} {:?}",
                    m.schema_strips,
                    m.id(),
                    m.method(),
                    m.progress_token()
                ),
            ),
            _ => (None, String::new()),
        };
        let seen = match outcome {
            LineOutcome::Message(m) => {
                Seen::Message(m.text.to_owned(), m.kind.clone(), m.valid_in_both)
            }
            LineOutcome::Skipped => Seen::Skipped(line.offset),
            LineOutcome::Error(e) => Seen::Error(e),
        };
        self.0.push((*line, seen, checked, more));
    }
}

/// Frames `stream` with and without checking bodies: every line the scan
/// hands over unchecked is, when it is valid JSON, the message the checking
/// path gives, and otherwise (as when JSON.parse refuses it) its recheck
/// gives exactly the checking path's outcome. Everything else is identical.
fn scan_agrees(options: FramerOptions, stream: &[u8]) -> Result<(), TestCaseError> {
    let mut checked = Framer::new(options);
    let mut want = Lines::default();
    checked.push(stream, &mut want);
    let mut lazy = Framer::new(FramerOptions {
        check_bodies: false,
        ..options
    });
    let mut got = Lines::default();
    lazy.push(stream, &mut got);
    prop_assert_eq!(got.0.len(), want.0.len());
    for ((line, seen, flag, more), (_, expected, _, expected_more)) in got.0.iter().zip(&want.0) {
        if *flag != Some(false) {
            prop_assert_eq!(seen, expected);
            prop_assert_eq!(more, expected_more);
            continue;
        }
        let Seen::Message(text, ..) = seen else {
            unreachable!()
        };
        if serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok() {
            prop_assert_eq!(seen, expected, "{}", text);
            prop_assert_eq!(more, expected_more, "{}", text);
        }
        let mut again = Lines::default();
        let (start, end) = line.span.expect("a line inside the chunk");
        lazy.recheck(&stream[start..end], *line, &mut again);
        prop_assert_eq!(again.0.len(), 1);
        prop_assert_eq!(&again.0[0].1, expected, "{}", text);
    }
    Ok(())
}

/// Bodies that are not JSON, in otherwise valid envelopes.
fn bad_body() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("[1,]".to_owned()),
        Just("{\"a\":tru}".to_owned()),
        Just("{\"a\" 1}".to_owned()),
        Just("\"\\x\"".to_owned()),
        Just("\"a\u{1}b\"".to_owned()),
        Just("01".to_owned()),
        Just("{\"a\":[}]}".to_owned()),
        Just("é".to_owned()),
        Just("\"\\é\"".to_owned()),
        Just("1e400".to_owned()),
        Just("\"\\ud800\"".to_owned()),
        Just("{\"a\":1}}".to_owned()),
        "[\\[\\]{}\",:a-z0-9é\\\\ ]{0,12}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 600, ..ProptestConfig::default() })]

    /// Generated messages and garbage (the `line()` mix), both profiles.
    #[test]
    fn scan_matches_the_checking_path(bytes in stream(), opts in any_options()) {
        scan_agrees(opts, &bytes)?;
    }

    /// Valid envelopes around bodies that are not JSON, in every place the
    /// scan skips or reads, with extra whitespace and repeated keys.
    #[test]
    fn scan_leaves_bad_bodies_to_the_recheck(
        body in bad_body(),
        place in 0usize..7,
        v2 in any::<bool>(),
    ) {
        let line = match place {
            0 => format!(r#"{{"jsonrpc":"2.0","method":"m","params":{{"x":{body}}}}}"#),
            1 => format!(r#"{{"jsonrpc":"2.0","id":1,"result":{{"content":[{body}]}}}}"#),
            2 => format!(r#"{{"jsonrpc":"2.0","id":{body},"method":"m"}}"#),
            3 => format!(r#"{{"jsonrpc":"2.0","id":1,"error":{{"code":1,"message":"m","data":{body}}}}}"#),
            4 => format!(r#" {{ "jsonrpc" : "2.0" , "method":"m","params":{{"_meta":{{"progressToken":1,"x":{body}}}}} }} "#),
            5 => format!(r#"{{"jsonrpc":"2.0","method":"m","x":{body},"method":"n"}}"#),
            _ => format!(r#"{{"jsonrpc":"2.0","method":"m","params":{{"x":"{body}"}}}}"#),
        };
        let profile = if v2 { Profile::V2 } else { Profile::V1 };
        scan_agrees(FramerOptions::for_profile(profile), format!("{line}\n").as_bytes())?;
    }
}

#[test]
fn scan_edge_cases() {
    let options = FramerOptions::for_profile(Profile::V1);
    for line in [
        r#"{"json\u0072pc":"2.0","method":"m"}"#,
        r#"{"jsonrpc":"2.0","method":"m\u0031"}"#,
        r#"{"jsonrpc":"2.0","id":-0,"method":"m"}"#,
        r#"{"jsonrpc":"2.0","id":1E2,"method":"m"}"#,
        r#"{"jsonrpc":"2.0","id":1e-400,"method":"m"}"#,
        r#"{"jsonrpc":"2.0","id":1.00000000000000001,"method":"m"}"#,
        r#"{"jsonrpc":"2.0","id":9007199254740993,"method":"m"}"#,
        r#"{"jsonrpc":"2.0","id":1,"id":"x","method":"m"}"#,
        r#"{"jsonrpc":"2.0","id":1,"result":{"_meta":{"progressToken":1}},"result":{}}"#,
        r#"{"jsonrpc":"2.0","id":1,"result":{"_meta":1,"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"t","x":1}}}}"#,
        r#"{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"m","x":1}}"#,
        r#"{"jsonrpc":"2.0","method":"m","params":{"\ud800":1}}"#,
        r#"{"jsonrpc":"2.0","method":"m","\u00e9":1}"#,
        "{\"jsonrpc\":\"2.0\",\"method\":\"m\",\"params\":{\"a\":\"\\\\\"}}",
        "{\"jsonrpc\":\"2.0\",\"method\":\"m\",\"params\":{\"a\":\"\\\"}\"}}",
        "\t{\"jsonrpc\":\"2.0\",\"method\":\"m\"}\t\r",
        r#"{"jsonrpc":"2.0","method":"m"} {"jsonrpc":"2.0","method":"m"}"#,
        r#"{"jsonrpc":"2.0","method":"m"},{"jsonrpc":"2.0","method":"m"}"#,
        r#"{"jsonrpc":"2.0","method":"m","params":[1,2]"#,
        r#"{"jsonrpc":"2.0","method":"m","params":{"a":1}"#,
        r#"{"jsonrpc":"2.0","method":"m","params":{"a":"}"}"#,
        r#"{"jsonrpc":"2.0","method":"m","params":{"a":1"x"}}"#,
        r#"{"jsonrpc":"2.0","method":"m","params":"\é"}"#,
        r#"[{"jsonrpc":"2.0","method":"m"}]"#,
        r#"{"jsonrpc":"2.0","method":"m","params":{"a":nul}}"#,
    ] {
        scan_agrees(options, format!("{line}\n").as_bytes()).unwrap();
    }
    let deep = format!(
        r#"{{"jsonrpc":"2.0","method":"m","params":{{"x":{}1{}}}}}"#,
        "[".repeat(5000),
        "]".repeat(5000)
    );
    scan_agrees(options, format!("{deep}\n").as_bytes()).unwrap();
}
