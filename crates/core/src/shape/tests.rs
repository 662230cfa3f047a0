//! The tokenizer and the class tracker over the cases the JavaScript's tests
//! read too (`test/shape/cases.json`, and the cases every entry of
//! `lib/shape/grammar.cjs` makes), each read as UTF-8 bytes and as UTF-16
//! units; then the locate step's shapes and offsets.

use super::tokens::{punct_text, tokenize, Kind, LexError, Sink, Token, Unit};
use super::{distinct, locate, locate_classes, utf16_offsets, Located, Shape};
use serde_json::Value;

struct Record(Vec<String>);

impl<T: Unit> Sink<T> for Record {
    fn token(&mut self, src: &[T], token: Token, _at: usize) {
        let kind = match token.kind {
            Kind::Id => "id",
            Kind::Num => "num",
            Kind::Str => "str",
            Kind::Regex => "regex",
            Kind::Tmpl => "tmpl",
            Kind::Private => "private",
            Kind::Punct => "punct",
            Kind::None => "none",
        };
        let value = if token.kind == Kind::Punct {
            punct_text(token.punct)
        } else {
            T::decode(token.value(src))
        };
        self.0.push(if value.is_empty() {
            kind.to_owned()
        } else {
            format!("{kind}:{value}")
        });
    }

    fn substitution_end(&mut self, more: bool) {
        self.0.push(if more { "}${" } else { "}`" }.to_owned());
    }
}

/// The tokens of `src`, read as UTF-8 and as UTF-16 (both must agree).
fn tokens_of(src: &str) -> Result<Vec<String>, LexError> {
    let mut bytes = Record(Vec::new());
    let from_bytes = tokenize(src.as_bytes(), &mut bytes);
    let mut units = Record(Vec::new());
    let utf16: Vec<u16> = src.encode_utf16().collect();
    let from_units = tokenize(&utf16, &mut units);
    assert_eq!(from_bytes, from_units, "{src:?}");
    assert_eq!(bytes.0, units.0, "{src:?}");
    from_bytes.map(|()| bytes.0)
}

/// `test/shape/cases.json`: the cases `test/shape/shape.test.mjs` runs the JavaScript through.
const CASES: &str = include_str!("../../../../test/shape/cases.json");
/// `lib/shape/grammar.cjs`'s lists, which both tokenizers are made of (as JSON, by build.rs).
const GRAMMAR: &str = include_str!(concat!(env!("OUT_DIR"), "/grammar.json"));

fn cases(key: &str) -> Vec<Value> {
    let all: Value = serde_json::from_str(CASES).expect("test/shape/cases.json is JSON");
    all[key].as_array().expect("a list of cases").clone()
}

fn text<'a>(case: &'a Value, key: &str) -> &'a str {
    case[key]
        .as_str()
        .unwrap_or_else(|| panic!("{key} of {case}"))
}

fn strings(value: &Value) -> Vec<String> {
    value
        .as_array()
        .unwrap_or_else(|| panic!("a list: {value}"))
        .iter()
        .map(|v| v.as_str().expect("a string").to_owned())
        .collect()
}

#[test]
fn the_shared_token_cases() {
    let cases = cases("tokens");
    assert!(cases.len() > 20, "{} cases", cases.len());
    for case in &cases {
        let source = text(case, "source");
        assert_eq!(
            tokens_of(source),
            Ok(strings(&case["tokens"])),
            "{}: {source:?}",
            text(case, "why")
        );
    }
}

/// The cases every punctuator and keyword of the grammar makes, by the
/// rules of `test/shape/cases.mjs`'s `grammarCases()`.
fn grammar_cases() -> Vec<(String, Vec<String>)> {
    let grammar: Value =
        serde_json::from_str(GRAMMAR).expect("lib/shape/grammar.cjs's lists are JSON");
    let list = |key: &str| strings(&grammar[key]);
    let own = |v: &[&str]| v.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
    let division = list("divisionAfterPunct");
    let mut cases = Vec::new();
    for p in list("punctuators") {
        let punct = format!("punct:{p}");
        cases.push((format!("a {p} b"), own(&["id:a", &punct, "id:b"])));
        if p != "#" {
            cases.push((format!("a{p}b"), own(&["id:a", &punct, "id:b"])));
        }
        if !division.contains(&p) {
            cases.push((format!("a {p} /r/"), own(&["id:a", &punct, "regex"])));
        }
    }
    for p in &division {
        let punct = format!("punct:{p}");
        let (source, mut tokens) = match p.as_str() {
            ")" => (format!("(a{p} / 2"), own(&["punct:(", "id:a", &punct])),
            "]" => (format!("[a{p} / 2"), own(&["punct:[", "id:a", &punct])),
            _ => (format!("a{p} / 2"), own(&["id:a", &punct])),
        };
        tokens.extend(own(&["punct:/", "num:2"]));
        cases.push((source, tokens));
    }
    for w in list("controlHeads") {
        let id = format!("id:{w}");
        cases.push((
            format!("{w} (x) /r/"),
            own(&[&id, "punct:(", "id:x", "punct:)head", "regex"]),
        ));
        cases.push((
            format!("o.{w} (x) / 2"),
            own(&[
                "id:o", "punct:.", &id, "punct:(", "id:x", "punct:)", "punct:/", "num:2",
            ]),
        ));
    }
    for w in list("regexAfterWord") {
        let id = format!("id:{w}");
        cases.push((format!("{w} /r/"), own(&[&id, "regex"])));
        cases.push((
            format!("o.{w} / 2"),
            own(&["id:o", "punct:.", &id, "punct:/", "num:2"]),
        ));
    }
    cases
}

#[test]
fn every_punctuator_and_keyword_of_the_grammar() {
    let cases = grammar_cases();
    assert!(cases.len() > 150, "{} cases", cases.len());
    for (source, tokens) in cases {
        assert_eq!(tokens_of(&source), Ok(tokens), "{source:?}");
    }
}

#[test]
fn the_shared_sources_that_do_not_lex() {
    let cases = cases("unlexed");
    assert!(cases.len() > 10, "{} cases", cases.len());
    for case in &cases {
        let source = text(case, "source");
        let kind = tokens_of(source).map_err(LexError::text);
        assert_eq!(
            kind,
            Err(text(case, "error")),
            "{}: {source:?}",
            text(case, "why")
        );
        assert_eq!(locate_classes(source.as_bytes()), None, "{source:?}");
        let utf16: Vec<u16> = source.encode_utf16().collect();
        assert_eq!(locate_classes(&utf16), None, "{source:?}");
    }
}

/// A class as the shared cases give it: offsets in UTF-16 units, names each once in order.
#[derive(Debug, PartialEq)]
struct Case {
    start: usize,
    open: usize,
    end: usize,
    extends: bool,
    methods: Vec<String>,
    sets: Vec<String>,
}

#[test]
fn the_shared_class_cases() {
    for case in cases("classes") {
        let source = text(&case, "source");
        let why = text(&case, "why");
        let expected: Vec<Case> = case["classes"]
            .as_array()
            .expect("classes")
            .iter()
            .map(|c| Case {
                start: units_of(c, "start"),
                open: units_of(c, "open"),
                end: units_of(c, "end"),
                extends: c["extends"].as_bool().expect("extends"),
                methods: strings(&c["methods"]),
                sets: strings(&c["sets"]),
            })
            .collect();
        // Read as UTF-16 units (offsets as they are) and as UTF-8 bytes (offsets converted).
        let utf16: Vec<u16> = source.encode_utf16().collect();
        let from_units: Vec<Case> = locate_classes(&utf16)
            .expect("lexes")
            .iter()
            .map(|c| Case {
                start: c.start,
                open: c.open,
                end: c.end,
                extends: c.extends,
                methods: distinct(&utf16, &c.methods),
                sets: distinct(&utf16, &c.sets),
            })
            .collect();
        assert_eq!(from_units, expected, "{why} (UTF-16)");
        let bytes = source.as_bytes();
        let from_bytes: Vec<Case> = locate_classes(bytes)
            .expect("lexes")
            .iter()
            .map(|c| {
                let at = utf16_offsets(bytes, &[c.start, c.open, c.end]);
                Case {
                    start: at[0],
                    open: at[1],
                    end: at[2],
                    extends: c.extends,
                    methods: distinct(bytes, &c.methods),
                    sets: distinct(bytes, &c.sets),
                }
            })
            .collect();
        assert_eq!(from_bytes, expected, "{why} (UTF-8)");
    }
}

fn units_of(value: &Value, key: &str) -> usize {
    value[key]
        .as_u64()
        .and_then(|n| usize::try_from(n).ok())
        .unwrap_or_else(|| panic!("{key} of {value}"))
}

fn protocol_shape() -> Shape {
    Shape {
        methods: vec![b"_onresponse".to_vec(), b"_onrequest".to_vec()],
        sets: vec![b"_progressHandlers".to_vec()],
    }
}

#[test]
fn locate_matches_shapes_and_counts_utf16_offsets() {
    // "é" is 2 bytes and 1 unit, the emoji 4 bytes and 2 units.
    let src = "var s='\u{e9}\u{1F600}';var P=class{constructor(){this._progressHandlers=new Map}_onresponse(a){}_onrequest(b){}_onresponse(c){}};class Q extends R{_onresponse(){}_onrequest(){}constructor(){this._progressHandlers=1}}class O{_onresponse(){}}";
    let found = locate(src.as_bytes(), &[protocol_shape()]).expect("lexes");
    let units: Vec<u16> = src.encode_utf16().collect();
    assert_eq!(locate(&units, &[protocol_shape()]).as_ref(), Some(&found));
    let index_of = |needle: &str| {
        let n: Vec<u16> = needle.encode_utf16().collect();
        units
            .windows(n.len())
            .position(|w| w == n.as_slice())
            .unwrap()
    };
    let start = index_of("class{");
    assert_eq!(
        found,
        [Located {
            start,
            open: start + 6,
            end: index_of(";class Q"),
            methods: vec![
                "constructor".into(),
                "_onresponse".into(),
                "_onrequest".into()
            ],
            sets: vec!["_progressHandlers".into()],
        }]
    );
    // A define helper's call sets a field too (esbuild's __publicField).
    let helper = "class X{constructor(){f(this,\"_progressHandlers\",new Map)}_onresponse(){}_onrequest(){}}";
    assert_eq!(
        locate(helper.as_bytes(), &[protocol_shape()]).map(|v| v.len()),
        Some(1)
    );
    assert_eq!(locate(b"class X{", &[protocol_shape()]), None);
}

#[test]
fn utf16_offsets_count_units() {
    let text = "a\u{e9}\u{20ac}\u{1F600}b".as_bytes();
    // byte offsets of each character boundary: 0 a 1 é 3 € 6 😀 10 b 11
    assert_eq!(
        utf16_offsets(text, &[0, 1, 3, 6, 10, 11]),
        [0, 1, 2, 3, 5, 6]
    );
}
