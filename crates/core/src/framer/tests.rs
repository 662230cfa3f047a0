//! The framer's unit tests.

use super::sanitize::is_json_number;
use super::*;

type Out = Vec<Result<(String, Classification), FrameError>>;

fn frame(options: FramerOptions, chunks: &[&[u8]]) -> Out {
    let mut framer = Framer::new(options);
    let mut out = Out::new();
    for chunk in chunks {
        framer.push(chunk, &mut out);
    }
    out
}

fn v1() -> FramerOptions {
    FramerOptions::for_profile(Profile::V1)
}

fn ok(text: &str, kind: Classification) -> Result<(String, Classification), FrameError> {
    Ok((text.to_owned(), kind))
}

const REQ: &str = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","_meta":{"progressToken":"p"}}}"#;
const NOTE: &str = r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p","progress":1}}"#;
const RES: &str = r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"é😀"}]}}"#;

#[test]
fn frames_and_classifies() {
    let stream = format!("{REQ}\n{NOTE}\r\n{RES}\n");
    let out = frame(v1(), &[stream.as_bytes()]);
    assert_eq!(
        out,
        vec![
            ok(REQ, Classification::Request),
            ok(NOTE, Classification::Notification),
            ok(RES, Classification::Result),
        ]
    );
}

#[test]
fn incomplete_last_line_waits() {
    let mut framer = Framer::new(v1());
    let mut out = Out::new();
    framer.push(REQ.as_bytes(), &mut out);
    assert!(out.is_empty());
    assert_eq!(framer.buffered(), REQ.len());
    framer.push(b"\n", &mut out);
    assert_eq!(out, vec![ok(REQ, Classification::Request)]);
    assert_eq!(framer.buffered(), 0);
}

#[test]
fn every_split_gives_the_same_messages() {
    let stream = format!("{REQ}\n{NOTE}\r\n\n{RES}\nnot json\n{RES}\n");
    let bytes = stream.as_bytes();
    let whole = frame(v1(), &[bytes]);
    for i in 0..=bytes.len() {
        for j in i..=bytes.len() {
            let parts = frame(v1(), &[&bytes[..i], &bytes[i..j], &bytes[j..]]);
            assert_eq!(parts, whole, "split at {i}, {j}");
        }
    }
}

#[test]
fn accessors() {
    let mut framer = Framer::new(v1());
    struct Grab(Vec<(Option<String>, Option<String>, Option<String>)>);
    impl FrameSink for Grab {
        fn line(&mut self, _line: &Line, outcome: LineOutcome<'_>) {
            if let LineOutcome::Message(m) = outcome {
                let show = |id: Option<Id<'_>>| {
                    id.map(|i| match i {
                        Id::Str(s) => format!("s:{s}"),
                        Id::Num(n) => format!("n:{n}"),
                    })
                };
                self.0.push((
                    show(m.id()),
                    m.method().map(str::to_owned),
                    show(m.progress_token()),
                ));
            }
        }
    }
    let mut grab = Grab(Vec::new());
    framer.push(format!("{REQ}\n{NOTE}\n{RES}\n").as_bytes(), &mut grab);
    assert_eq!(
        grab.0,
        vec![
            (
                Some("n:1".into()),
                Some("tools/call".into()),
                Some("s:p".into())
            ),
            (None, Some("notifications/progress".into()), None),
            (Some("n:1".into()), None, None),
        ]
    );
}

#[test]
fn bad_lines_are_reported_with_offsets_and_skipped() {
    let stream = format!(
        "{REQ}\n{{\"jsonrpc\":\"2.0\",\"id\":1.5,\"method\":\"m\"}}\n{{oops\n\n\u{e9}\n{NOTE}\n"
    );
    let mut bytes = stream.into_bytes();
    // make the "\xff" line real invalid UTF-8
    let pos = bytes.iter().position(|&b| b == 0xC3).unwrap();
    bytes[pos] = 0xFF;
    bytes.remove(pos + 1);
    // By default the \xFF line is U+FFFD, which is not JSON.
    let lossy = frame(v1(), &[&bytes]);
    assert_eq!(lossy.len(), 6, "{lossy:?}");
    assert!(
        matches!(
            &lossy[4],
            Err(FrameError {
                kind: FrameErrorKind::MalformedJson { .. },
                ..
            })
        ),
        "{lossy:?}"
    );
    let out = frame(FramerOptions::strict(Profile::V1), &[&bytes]);
    assert_eq!(out.len(), 6, "{out:?}");
    assert_eq!(out[0], ok(REQ, Classification::Request));
    let second = REQ.len() as u64 + 1;
    let Err(e) = &out[1] else { panic!() };
    assert_eq!(e.offset, second);
    assert_eq!(e.line, 2);
    assert_eq!(
        e.to_string(),
        format!("not a valid JSON-RPC 2.0 message at byte offset {second} (line 2): \"id\" must be a string or an integer (got 1.5)")
    );
    let Err(e) = &out[2] else { panic!() };
    assert_eq!(e.line, 3);
    assert!(
        matches!(e.kind, FrameErrorKind::MalformedJson { at, .. } if at == e.offset + 1),
        "{e}"
    );
    assert!(
        e.to_string().starts_with("malformed JSON at byte offset"),
        "{e}"
    );
    let Err(e) = &out[3] else { panic!() };
    assert_eq!(e.kind, FrameErrorKind::Blank);
    assert_eq!(e.line, 4);
    let Err(e) = &out[4] else { panic!() };
    assert_eq!(e.kind, FrameErrorKind::InvalidUtf8 { at: e.offset });
    assert_eq!(out[5], ok(NOTE, Classification::Notification));
}

#[test]
fn invalid_utf8_is_replaced_as_buffer_to_string_does() {
    // Each maximal invalid subpart becomes one U+FFFD (WHATWG), in a
    // string value and in a key, in one chunk and cut inside a sequence.
    let cases: [(&[u8], &str); 7] = [
        (b"caf\xe9", "caf\u{FFFD}"),
        (b"\xc3\x28", "\u{FFFD}("),
        (b"\xe2\x82", "\u{FFFD}"),
        (b"\xf0\x9f\x98", "\u{FFFD}"),
        (b"\xed\xa0\x80", "\u{FFFD}\u{FFFD}\u{FFFD}"),
        (b"\xc0\xaf", "\u{FFFD}\u{FFFD}"),
        (b"\xf4\x90\x80\x80x", "\u{FFFD}\u{FFFD}\u{FFFD}\u{FFFD}x"),
    ];
    for (bad, want) in cases {
        let mut line = br#"{"jsonrpc":"2.0","method":"m","params":{"k"#.to_vec();
        line.extend_from_slice(bad);
        line.extend_from_slice(br#"":""#);
        line.extend_from_slice(bad);
        line.extend_from_slice(b"\"}}\n");
        let text = format!(r#"{{"jsonrpc":"2.0","method":"m","params":{{"k{want}":"{want}"}}}}"#);
        assert_eq!(String::from_utf8_lossy(&line[..line.len() - 1]), text);
        for profile in [Profile::V1, Profile::V2] {
            let options = FramerOptions::for_profile(profile);
            for cut in 0..=line.len() {
                let out = frame(options, &[&line[..cut], &line[cut..]]);
                assert_eq!(
                    out,
                    vec![ok(&text, Classification::Notification)],
                    "{profile:?} cut {cut}"
                );
            }
            let out = frame(FramerOptions::strict(profile), &[&line]);
            assert!(
                matches!(
                    &out[..],
                    [Err(FrameError {
                        kind: FrameErrorKind::InvalidUtf8 { .. },
                        ..
                    })]
                ),
                "{out:?}"
            );
        }
    }
}

#[test]
fn not_json_skipped_under_2x_unless_strict() {
    let stream = format!("{{oops\n\u{feff}{NOTE}\n\0\n\n{NOTE}\n[1]\n");
    let v2 = frame(
        FramerOptions::for_profile(Profile::V2),
        &[stream.as_bytes()],
    );
    assert_eq!(v2.len(), 2, "{v2:?}");
    assert_eq!(v2[0], ok(NOTE, Classification::Notification));
    assert!(matches!(
        &v2[1],
        Err(FrameError {
            kind: FrameErrorKind::NotJsonRpc { .. },
            ..
        })
    ));
    let codes = |out: &Out| -> Vec<&'static str> {
        out.iter()
            .map(|r| match r {
                Ok(_) => "message",
                Err(e) => e.kind.code(),
            })
            .collect()
    };
    let all = [
        "malformed-json",
        "malformed-json",
        "malformed-json",
        "blank-line",
        "message",
        "not-json-rpc",
    ];
    assert_eq!(codes(&frame(v1(), &[stream.as_bytes()])), all);
    let strict = frame(FramerOptions::strict(Profile::V2), &[stream.as_bytes()]);
    assert_eq!(codes(&strict), all);
}

#[test]
fn schema_strips() {
    struct Strips(Vec<bool>);
    impl FrameSink for Strips {
        fn line(&mut self, _line: &Line, outcome: LineOutcome<'_>) {
            if let LineOutcome::Message(m) = outcome {
                self.0.push(m.schema_strips);
            }
        }
    }
    let lines = [
        (
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"m","data":{"x":1}}}"#,
            false,
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"m","extra":1}}"#,
            true,
        ),
        (
            r#"{"jsonrpc":"2.0","method":"m","params":{"x":1,"_meta":{"y":2,"io.modelcontextprotocol/related-task":{"taskId":"t"}}}}"#,
            false,
        ),
        (
            r#"{"jsonrpc":"2.0","method":"m","params":{"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"t","z":1}}}}"#,
            true,
        ),
        (
            r#"{"jsonrpc":"2.0","id":2,"result":{"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"t","z":1}}}}"#,
            true,
        ),
        (REQ, false),
    ];
    for profile in [Profile::V1, Profile::V2] {
        let mut framer = Framer::new(FramerOptions::for_profile(profile));
        let mut got = Strips(Vec::new());
        for (line, _) in lines {
            framer.push(format!("{line}\n").as_bytes(), &mut got);
        }
        assert_eq!(got.0, lines.map(|(_, want)| want), "{profile:?}");
    }
}

#[test]
fn blank_lines_skipped_under_2x() {
    let out = frame(
        FramerOptions::for_profile(Profile::V2),
        &[format!("\n  \r\n{NOTE}\n").as_bytes()],
    );
    assert_eq!(out, vec![ok(NOTE, Classification::Notification)]);
}

#[test]
fn too_large_lines_are_skipped_without_buffering() {
    let options = FramerOptions {
        max_message_size: 64,
        ..v1()
    };
    let small = r#"{"jsonrpc":"2.0","method":"a"}"#;
    let big = format!(
        r#"{{"jsonrpc":"2.0","method":"b","params":{{"x":"{}"}}}}"#,
        "y".repeat(200)
    );
    let stream = format!("{small}\n{big}\n{small}\n");
    let bytes = stream.as_bytes();
    for step in [1, 7, 64, 1000] {
        let mut framer = Framer::new(options);
        let mut out = Out::new();
        for chunk in bytes.chunks(step) {
            framer.push(chunk, &mut out);
            assert!(framer.buffered() <= 64);
        }
        assert_eq!(out.len(), 3, "{out:?}");
        assert_eq!(out[0], ok(small, Classification::Notification));
        let Err(e) = &out[1] else { panic!() };
        assert_eq!(e.kind, FrameErrorKind::TooLarge { limit: 64 });
        assert_eq!(e.offset, small.len() as u64 + 1);
        assert_eq!(e.line, 2);
        assert_eq!(out[2], ok(small, Classification::Notification));
    }
    // exactly at the limit is fine
    let exact = format!(r#"{{"jsonrpc":"2.0","method":"{}"}}"#, "m".repeat(64 - 29));
    assert_eq!(exact.len(), 64);
    let out = frame(options, &[format!("{exact}\n").as_bytes()]);
    assert_eq!(out, vec![ok(&exact, Classification::Notification)]);
}

#[test]
fn what_json_parse_accepts_and_serde_json_does_not() {
    // overflowing numbers are ±Infinity in JS: fine where anything goes,
    // never a valid id
    let accept = [
        r#"{"jsonrpc":"2.0","method":"m","params":{"x":1e400}}"#,
        r#"{"jsonrpc":"2.0","id":1e400,"id":1,"result":{}}"#,
        r#"{"jsonrpc":"2.0","method":"\ud800"}"#,
        r#"{"jsonrpc":"2.0","id":"\udc00x","method":"m","params":{"\ud800":{"\udfff":1}}}"#,
        r#"{"jsonrpc":"2.0","id":1e-400,"method":"m"}"#,
        r#"{"jsonrpc":"2.0","id":1.00000000000000001,"method":"m"}"#,
    ];
    for text in accept {
        assert!(
            inspect(text, Profile::V1).is_ok(),
            "{text}: {:?} / {:?}",
            inspect(text, Profile::V1),
            parse_sparse(text, &mut Sparse::default()).map_err(|e| e.to_string())
        );
    }
    let reject = [
        r#"{"jsonrpc":"2.0","id":1e400,"method":"m"}"#,
        r#"{"jsonrpc":"2.0","id":-1E999,"method":"m"}"#,
        r#"{"jsonrpc":"2.0","method":"m","params":{"_meta":{"progressToken":1e400}}}"#,
        r#"{"jsonrpc":"\ud800","method":"m"}"#,
        r#"{"jsonrpc":"2.0","id":1.0000000000000002,"method":"m"}"#,
    ];
    for text in reject {
        assert!(
            matches!(inspect(text, Profile::V1), Err(Inspect::Rpc(_))),
            "{text}: {:?}",
            inspect(text, Profile::V1)
        );
    }
    // not JSON numbers, whatever Rust's float parser thinks
    for text in [
        r#"{"jsonrpc":"2.0","method":"m","params":{"x":01e400}}"#,
        r#"{"jsonrpc":"2.0","method":"m","params":{"x":1.e400}}"#,
        r#"{"jsonrpc":"2.0","method":"m","params":{"x":-e400}}"#,
    ] {
        assert!(
            matches!(inspect(text, Profile::V1), Err(Inspect::Json { .. })),
            "{text}"
        );
    }
    assert!(is_json_number(b"-0.5e+10"));
    assert!(is_json_number(b"0"));
    assert!(!is_json_number(b"00"));
    assert!(!is_json_number(b"1e"));
    assert!(!is_json_number(b"-"));
    // still malformed after sanitizing
    assert!(matches!(
        inspect(r#"{"jsonrpc":"\ud800","method":1e400,}"#, Profile::V1),
        Err(Inspect::Json { .. })
    ));
    // deep nesting where anything goes (serde_json's recursion limit is 128)
    let deep = format!(
        r#"{{"jsonrpc":"2.0","method":"m","params":{{"x":{}1{}}}}}"#,
        "[".repeat(5000),
        "]".repeat(5000)
    );
    assert!(inspect(&deep, Profile::V1).is_ok());
}

#[test]
fn profiles() {
    let v2_only = r#"{"jsonrpc":"2.0","id":1,"result":{"_meta":{"progressToken":1.5}}}"#;
    assert!(matches!(
        inspect(v2_only, Profile::V1),
        Err(Inspect::Rpc(_))
    ));
    let (kind, both) = inspect(v2_only, Profile::V2).unwrap();
    assert_eq!(kind, Classification::Result);
    assert!(!both);
    let (_, both) = inspect(RES, Profile::V2).unwrap();
    assert!(both);
}

#[test]
fn line_spans() {
    struct Spans(Vec<Line>);
    impl FrameSink for Spans {
        fn line(&mut self, line: &Line, _outcome: LineOutcome<'_>) {
            self.0.push(*line);
        }
    }
    let mut framer = Framer::new(v1());
    let mut spans = Spans(Vec::new());
    framer.push(b"{\"a\xc3\xa9\":1}\r\n{}\n{\"b", &mut spans);
    framer.push(b"\":2}\n", &mut spans);
    let s = &spans.0;
    assert_eq!(s.len(), 3);
    assert_eq!(
        s[0],
        Line {
            offset: 0,
            number: 1,
            span: Some((0, 9)),
            terminator: 2,
            utf16_len: Some(8)
        }
    );
    assert_eq!(s[1].span, Some((11, 13)));
    assert_eq!(s[1].offset, 11);
    assert_eq!(
        s[2],
        Line {
            offset: 14,
            number: 3,
            span: None,
            terminator: 1,
            utf16_len: None
        }
    );
}
