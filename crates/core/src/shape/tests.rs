//! The same cases as `test/shape/shape.test.mjs`'s tokenizer and class
//! tracker tests, plus what only the byte-level reading can get wrong:
//! non-ASCII names and spaces, and UTF-16 offsets.

use super::classes::RawClass;
use super::tokens::{punct_text, tokenize, Kind, LexError, Sink, Token, Unit};
use super::{locate, locate_classes, utf16_offsets, Located, Shape};

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

fn toks(src: &str) -> Vec<String> {
    tokens_of(src).unwrap_or_else(|_| panic!("{src:?} lexes"))
}

#[test]
fn slash_divides_after_a_value_and_starts_a_regex_elsewhere() {
    assert_eq!(
        toks("a / b / c"),
        ["id:a", "punct:/", "id:b", "punct:/", "id:c"]
    );
    assert_eq!(toks("x = /}{/g"), ["id:x", "punct:=", "regex"]);
    assert_eq!(
        toks("return /\"/.test(s)"),
        [
            "id:return",
            "regex",
            "punct:.",
            "id:test",
            "punct:(",
            "id:s",
            "punct:)"
        ]
    );
    assert_eq!(
        toks("if (x) /a/.exec(y)")[..5],
        ["id:if", "punct:(", "id:x", "punct:)head", "regex"]
    );
    assert_eq!(
        toks("o.if (x) / 2")[..7],
        ["id:o", "punct:.", "id:if", "punct:(", "id:x", "punct:)", "punct:/"]
    );
    assert_eq!(
        toks("a.return / 2"),
        ["id:a", "punct:.", "id:return", "punct:/", "num:2"]
    );
    assert_eq!(
        toks("(a) / 2"),
        ["punct:(", "id:a", "punct:)", "punct:/", "num:2"]
    );
}

#[test]
fn strings_comments_and_templates_hide_braces() {
    assert_eq!(
        toks("\"{\" + '}' // }\n/* { */ x"),
        ["str:{", "punct:+", "str:}", "id:x"]
    );
    assert_eq!(
        toks("`a${b + `c${ {d} }e`}f`"),
        ["punct:${", "id:b", "punct:+", "punct:${", "punct:{", "id:d", "punct:}", "}`", "}`"]
    );
    assert_eq!(
        toks("`${a}${b}`"),
        ["punct:${", "id:a", "}${", "id:b", "}`"]
    );
    assert_eq!(toks("#!/usr/bin/env node\nx"), ["id:x"]);
    assert_eq!(
        toks("1e+5 0xe+5 .5 a?.5:1"),
        [
            "num:1e+5", "num:0xe", "punct:+", "num:5", "num:.5", "id:a", "punct:?", "num:.5",
            "punct::", "num:1"
        ]
    );
    assert_eq!(
        toks("this.#p = 1"),
        ["id:this", "punct:.", "private:#p", "punct:=", "num:1"]
    );
    assert_eq!(
        toks("a >>>= b ?? c ?. d"),
        [
            "id:a",
            "punct:>>>=",
            "id:b",
            "punct:??",
            "id:c",
            "punct:?.",
            "id:d"
        ]
    );
}

#[test]
fn non_ascii_names_spaces_and_line_ends() {
    // U+00A0 and U+3000 are spaces, U+00E9 and an astral character are name parts.
    assert_eq!(
        toks("caf\u{e9}\u{a0}x\u{3000}\u{1F600}y"),
        ["id:caf\u{e9}", "id:x", "id:\u{1F600}y"]
    );
    // A line comment ends at U+2028, a name at U+FEFF; an escaped space stays in the name.
    assert_eq!(toks("// c\u{2028}a\u{feff}b"), ["id:a", "id:b"]);
    assert_eq!(toks("a\\\u{a0}b"), ["id:a\\\u{a0}b"]);
    assert_eq!(toks("'\u{2028}'"), ["str:\u{2028}"]);
}

#[test]
fn sources_that_do_not_lex() {
    for bad in [
        "\"open",
        "`open ${",
        "/* open",
        "x = /open",
        "{ ( }",
        ")",
        "a \u{1} b",
        "'a\\",
    ] {
        assert_eq!(tokens_of(bad), Err(LexError), "{bad:?}");
        assert_eq!(locate_classes(bad.as_bytes()), None, "{bad:?}");
        let utf16: Vec<u16> = bad.encode_utf16().collect();
        assert_eq!(locate_classes(&utf16), None, "{bad:?}");
    }
}

fn names(src: &str, ranges: &[(usize, usize)]) -> Vec<String> {
    let mut v: Vec<String> = ranges.iter().map(|&(s, e)| src[s..e].to_owned()).collect();
    v.sort();
    v.dedup();
    v
}

#[test]
fn classes_bodies_extends_methods_and_sets() {
    let src = [
        "class A extends B { static x = 1; #p; get g() { return 1 } static { this.s = 1 } m(a) { this.q = a; f(this, \"r\", 2); } [k]() {} y\n z }",
        "const o = { class: 1 }; x.class; var C = class { n() {} };",
        "class D { v = `${\"}\"}`; w() { return class E { e() {} } } }",
    ]
    .join("\n");
    let classes = locate_classes(src.as_bytes()).expect("lexes");
    let shape = |c: &RawClass| {
        (
            c.extends,
            names(&src, &c.methods),
            names(&src, &c.sets),
            &src[c.open - 1..c.open],
            &src[c.end - 1..c.end],
        )
    };
    let got: Vec<_> = classes.iter().map(shape).collect();
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    assert_eq!(
        got,
        [
            (true, s(&["g", "m"]), s(&["q", "r", "s", "x"]), "{", "}"),
            (false, s(&["n"]), s(&[]), "{", "}"),
            (false, s(&["w"]), s(&["v"]), "{", "}"),
            (false, s(&["e"]), s(&[]), "{", "}"),
        ]
    );
    assert_eq!(classes[0].start, 0);
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
