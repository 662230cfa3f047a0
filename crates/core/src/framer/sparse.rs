//! The validating serde visitor ("the sparse parse"): what the classifier
//! reads of a message, parsed straight into a small
//! fixed-shape struct (strings borrowed from the line unless they contain
//! escapes): no `serde_json::Value` tree, no map, no allocation for the usual
//! message. `Sparse` implements `JsonView`, so the message goes through the
//! same `classify` as everything else; the unit and property tests check that
//! it classifies exactly as `classify(&SerdeView, _)` on the full
//! `serde_json::Value`.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

use super::Id;
use crate::classify::RELATED_TASK_META_KEY;
use crate::view::{JsonView, Kind, ViewError};

/// A value the classifier reads: a scalar (strings and numbers kept) or a
/// container reduced to its kind.
#[derive(Debug, Clone, PartialEq, Default)]
pub(super) enum Leaf<'a> {
    #[default]
    Absent,
    Null,
    Bool,
    Num(f64),
    Str(Cow<'a, str>),
    Array,
    Object,
}

impl Leaf<'_> {
    fn kind(&self) -> Kind {
        match self {
            Leaf::Absent => Kind::Undefined,
            Leaf::Null => Kind::Null,
            Leaf::Bool => Kind::Bool,
            Leaf::Num(n) => Kind::Number(*n),
            Leaf::Str(_) => Kind::String,
            Leaf::Array => Kind::Array,
            Leaf::Object => Kind::Object,
        }
    }

    pub(super) fn id(&self) -> Option<Id<'_>> {
        match self {
            Leaf::Str(s) => Some(Id::Str(s)),
            Leaf::Num(n) => Some(Id::Num(*n)),
            _ => None,
        }
    }

    pub(super) fn into_owned(self) -> Leaf<'static> {
        match self {
            Leaf::Absent => Leaf::Absent,
            Leaf::Null => Leaf::Null,
            Leaf::Bool => Leaf::Bool,
            Leaf::Num(n) => Leaf::Num(n),
            Leaf::Str(s) => Leaf::Str(Cow::Owned(s.into_owned())),
            Leaf::Array => Leaf::Array,
            Leaf::Object => Leaf::Object,
        }
    }
}

/// The related-task object of a `_meta`.
#[derive(Debug, Clone, PartialEq, Default)]
pub(super) struct Task<'a> {
    /// `Leaf::Object` when it is an object (then `task_id` is read).
    pub(super) kind: Leaf<'a>,
    pub(super) task_id: Leaf<'a>,
    /// It has keys other than `taskId` (which the schema drops).
    pub(super) extra: bool,
}

/// A `_meta`.
#[derive(Debug, Clone, PartialEq, Default)]
pub(super) struct Meta<'a> {
    pub(super) kind: Leaf<'a>,
    pub(super) progress_token: Leaf<'a>,
    pub(super) task: Task<'a>,
    /// Other keys (kept by the schema: `_meta` is open).
    pub(super) extra: bool,
}

/// `result` or `params`: only their `_meta` matters.
#[derive(Debug, Clone, PartialEq, Default)]
pub(super) struct WithMeta<'a> {
    pub(super) kind: Leaf<'a>,
    pub(super) meta: Meta<'a>,
    /// Other keys (kept by the schema).
    pub(super) extra: bool,
}

/// `error`.
#[derive(Debug, Clone, PartialEq, Default)]
pub(super) struct ErrorObject<'a> {
    pub(super) kind: Leaf<'a>,
    pub(super) code: Leaf<'a>,
    pub(super) message: Leaf<'a>,
    /// It has keys other than `code`, `message` and `data` (which the
    /// schema drops).
    pub(super) extra: bool,
}

// The key bits the JavaScript gatherer uses too.
use crate::boundary::{
    KEY_ERROR as F_ERROR, KEY_ID as F_ID, KEY_JSONRPC as F_JSONRPC, KEY_METHOD as F_METHOD,
    KEY_PARAMS as F_PARAMS, KEY_RESULT as F_RESULT,
};

/// What the classifier reads of a message.
#[derive(Debug, Clone, PartialEq, Default)]
pub(super) struct Sparse<'a> {
    /// The message itself when it is not an object (`Absent` when it is).
    pub(super) not_object: Leaf<'a>,
    /// `F_*` bits: the known keys present.
    pub(super) keys: u8,
    /// The first other key, in the line's order.
    pub(super) unknown: Option<Cow<'a, str>>,
    pub(super) jsonrpc: Leaf<'a>,
    pub(super) id: Leaf<'a>,
    pub(super) method: Leaf<'a>,
    pub(super) result: WithMeta<'a>,
    pub(super) error: ErrorObject<'a>,
    pub(super) params: WithMeta<'a>,
}

impl Sparse<'_> {
    pub(super) fn into_owned(self) -> Sparse<'static> {
        let meta = |m: Meta<'_>| Meta {
            kind: m.kind.into_owned(),
            progress_token: m.progress_token.into_owned(),
            task: Task {
                kind: m.task.kind.into_owned(),
                task_id: m.task.task_id.into_owned(),
                extra: m.task.extra,
            },
            extra: m.extra,
        };
        Sparse {
            not_object: self.not_object.into_owned(),
            keys: self.keys,
            unknown: self.unknown.map(|u| Cow::Owned(u.into_owned())),
            jsonrpc: self.jsonrpc.into_owned(),
            id: self.id.into_owned(),
            method: self.method.into_owned(),
            result: WithMeta {
                kind: self.result.kind.into_owned(),
                meta: meta(self.result.meta),
                extra: self.result.extra,
            },
            error: ErrorObject {
                kind: self.error.kind.into_owned(),
                code: self.error.code.into_owned(),
                message: self.error.message.into_owned(),
                extra: self.error.extra,
            },
            params: WithMeta {
                kind: self.params.kind.into_owned(),
                meta: meta(self.params.meta),
                extra: self.params.extra,
            },
        }
    }

    /// Whether the SDK's schema parse drops keys of this (valid) message:
    /// unknown keys of `error`, or of a related-task object in `_meta`.
    pub(super) fn schema_strips(&self) -> bool {
        let task = |w: &WithMeta<'_>| {
            w.kind == Leaf::Object
                && w.meta.kind == Leaf::Object
                && w.meta.task.kind == Leaf::Object
                && w.meta.task.extra
        };
        (self.error.kind == Leaf::Object && self.error.extra)
            || task(&self.params)
            || task(&self.result)
    }
}

/// A position in a [`Sparse`], seen through [`JsonView`].
#[derive(Clone, Copy)]
pub(super) enum Node<'s, 'a> {
    Message(&'s Sparse<'a>),
    Leaf(&'s Leaf<'a>),
    WithMeta(&'s WithMeta<'a>),
    Error(&'s ErrorObject<'a>),
    Meta(&'s Meta<'a>),
    Task(&'s Task<'a>),
}

const ABSENT: Leaf<'static> = Leaf::Absent;

impl Node<'_, '_> {
    fn leaf(&self) -> &Leaf<'_> {
        match self {
            Node::Message(m) => {
                if m.not_object == Leaf::Absent {
                    &Leaf::Object
                } else {
                    &m.not_object
                }
            }
            Node::Leaf(l) => l,
            Node::WithMeta(w) => &w.kind,
            Node::Error(e) => &e.kind,
            Node::Meta(m) => &m.kind,
            Node::Task(t) => &t.kind,
        }
    }
}

impl<'s, 'a> JsonView for Node<'s, 'a> {
    fn kind(&self) -> Kind {
        self.leaf().kind()
    }

    fn string_eq(&self, expected: &str) -> Option<bool> {
        match self.leaf() {
            Leaf::Str(s) => Some(s == expected),
            _ => None,
        }
    }

    fn get(&self, key: &str) -> Result<Self, ViewError> {
        let absent = Node::Leaf(&ABSENT);
        Ok(match *self {
            Node::Message(m) if m.not_object == Leaf::Absent => match key {
                "jsonrpc" => Node::Leaf(&m.jsonrpc),
                "id" => Node::Leaf(&m.id),
                "method" => Node::Leaf(&m.method),
                "result" => Node::WithMeta(&m.result),
                "error" => Node::Error(&m.error),
                "params" => Node::WithMeta(&m.params),
                _ => absent,
            },
            Node::WithMeta(w) if w.kind == Leaf::Object && key == "_meta" => Node::Meta(&w.meta),
            Node::Error(e) if e.kind == Leaf::Object => match key {
                "code" => Node::Leaf(&e.code),
                "message" => Node::Leaf(&e.message),
                _ => absent,
            },
            Node::Meta(m) if m.kind == Leaf::Object => match key {
                "progressToken" => Node::Leaf(&m.progress_token),
                k if k == RELATED_TASK_META_KEY => Node::Task(&m.task),
                _ => absent,
            },
            Node::Task(t) if t.kind == Leaf::Object && key == "taskId" => Node::Leaf(&t.task_id),
            _ => absent,
        })
    }

    fn for_each_key<F>(&self, mut f: F) -> Result<(), ViewError>
    where
        F: FnMut(&str, &dyn Fn() -> Result<Self, ViewError>) -> Result<bool, ViewError>,
    {
        // Only the message's own keys are ever listed (for `.strict()`).
        let Node::Message(m) = *self else {
            return Ok(());
        };
        if m.not_object != Leaf::Absent {
            return Ok(());
        }
        for (bit, name) in [
            (F_JSONRPC, "jsonrpc"),
            (F_ID, "id"),
            (F_RESULT, "result"),
            (F_ERROR, "error"),
            (F_METHOD, "method"),
            (F_PARAMS, "params"),
        ] {
            if m.keys & bit != 0 {
                let value = || self.get(name);
                if !f(name, &value)? {
                    return Ok(());
                }
            }
        }
        if let Some(name) = &m.unknown {
            let value = || Ok(Node::Leaf(&ABSENT));
            f(name, &value)?;
        }
        Ok(())
    }
}

pub(super) fn parse_sparse<'a>(
    text: &'a str,
    sparse: &mut Sparse<'a>,
) -> Result<(), serde_json::Error> {
    let mut de = serde_json::Deserializer::from_str(text);
    de.deserialize_any(MessageVisitor(sparse))?;
    de.end()
}

/// Drains a container the classifier does not look into.
fn drain_seq<'de, A: SeqAccess<'de>>(mut seq: A) -> Result<(), A::Error> {
    while seq.next_element::<IgnoredAny>()?.is_some() {}
    Ok(())
}

fn drain_map<'de, A: MapAccess<'de>>(mut map: A) -> Result<(), A::Error> {
    while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
    Ok(())
}

/// A visitor for a value whose kind (and scalar value) is all that matters,
/// unless it is an object: then `on_map` reads it.
macro_rules! leaf_visitor_methods {
    () => {
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a JSON value")
        }
        fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
            Ok(self.leaf(Leaf::Bool))
        }
        fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
            Ok(self.leaf(Leaf::Num(v as f64)))
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
            Ok(self.leaf(Leaf::Num(v as f64)))
        }
        fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
            Ok(self.leaf(Leaf::Num(v)))
        }
        fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
            Ok(self.leaf(Leaf::Str(Cow::Borrowed(v))))
        }
        fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
            Ok(self.leaf(Leaf::Str(Cow::Owned(v.to_owned()))))
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(self.leaf(Leaf::Null))
        }
        fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
            drain_seq(seq)?;
            Ok(self.leaf(Leaf::Array))
        }
    };
}

/// A scalar the classifier reads.
struct LeafSeed;

impl LeafSeed {
    fn leaf<'de>(&self, leaf: Leaf<'de>) -> Leaf<'de> {
        leaf
    }
}

impl<'de> DeserializeSeed<'de> for LeafSeed {
    type Value = Leaf<'de>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Leaf<'de>, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for LeafSeed {
    type Value = Leaf<'de>;
    leaf_visitor_methods!();
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Leaf<'de>, A::Error> {
        drain_map(map)?;
        Ok(Leaf::Object)
    }
}

/// Which keys of an object the classifier reads.
#[derive(Clone, Copy)]
enum Part {
    /// `result` or `params`: `_meta`.
    WithMeta,
    /// `error`: `code`, `message`.
    Error,
    /// `_meta`: `progressToken`, the related-task object.
    Meta,
    /// The related-task object: `taskId`.
    Task,
}

/// A key of one of those objects: the index of a field it keeps, or none.
struct KeySeed(Part);

impl<'de> DeserializeSeed<'de> for KeySeed {
    type Value = Option<u8>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Option<u8>, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeySeed {
    type Value = Option<u8>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object key")
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Option<u8>, E> {
        Ok(match (self.0, v) {
            (Part::WithMeta, "_meta") => Some(0),
            (Part::Error, "code") => Some(0),
            (Part::Error, "message") => Some(1),
            (Part::Error, "data") => Some(2),
            (Part::Meta, "progressToken") => Some(0),
            (Part::Meta, k) if k == RELATED_TASK_META_KEY => Some(1),
            (Part::Task, "taskId") => Some(0),
            _ => None,
        })
    }
}

/// Parses an object of one of those parts into `$ty` in place (the structs
/// are filled where they lie rather than returned, to avoid moving them).
macro_rules! object_seed {
    ($seed:ident, $ty:ident, $part:expr, |$map:ident, $out:ident, $field:ident| $body:block) => {
        struct $seed<'s, 'de>(&'s mut $ty<'de>);

        impl<'de> $seed<'_, 'de> {
            fn leaf(self, kind: Leaf<'de>) {
                *self.0 = $ty {
                    kind,
                    ..Default::default()
                };
            }
        }

        impl<'de> DeserializeSeed<'de> for $seed<'_, 'de> {
            type Value = ();
            fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
                d.deserialize_any(self)
            }
        }

        impl<'de> Visitor<'de> for $seed<'_, 'de> {
            type Value = ();
            leaf_visitor_methods!();
            fn visit_map<A: MapAccess<'de>>(self, mut $map: A) -> Result<(), A::Error> {
                let $out = self.0;
                // A repeated key: the last value wins, as in JSON.parse.
                *$out = $ty::default();
                $out.kind = Leaf::Object;
                while let Some(key) = $map.next_key_seed(KeySeed($part))? {
                    match key {
                        Some($field) => $body,
                        None => {
                            $out.extra = true;
                            $map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(())
            }
        }
    };
}

object_seed!(
    WithMetaSeed,
    WithMeta,
    Part::WithMeta,
    |map, out, _field| {
        map.next_value_seed(MetaSeed(&mut out.meta))?;
    }
);

object_seed!(ErrorSeed, ErrorObject, Part::Error, |map, out, field| {
    match field {
        0 => out.code = map.next_value_seed(LeafSeed)?,
        1 => out.message = map.next_value_seed(LeafSeed)?,
        // `data`: anything, kept by the schema.
        _ => {
            map.next_value::<IgnoredAny>()?;
        }
    }
});

object_seed!(MetaSeed, Meta, Part::Meta, |map, out, field| {
    if field == 0 {
        out.progress_token = map.next_value_seed(LeafSeed)?;
    } else {
        map.next_value_seed(TaskSeed(&mut out.task))?;
    }
});

object_seed!(TaskSeed, Task, Part::Task, |map, out, _field| {
    out.task_id = map.next_value_seed(LeafSeed)?;
});

/// A top-level key: a known field (its `F_*` bit) or another key.
enum TopKey<'a> {
    Known(u8),
    Other(Cow<'a, str>),
}

struct TopKeySeed;

impl<'de> DeserializeSeed<'de> for TopKeySeed {
    type Value = TopKey<'de>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<TopKey<'de>, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for TopKeySeed {
    type Value = TopKey<'de>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object key")
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<TopKey<'de>, E> {
        Ok(top_key(v).unwrap_or(TopKey::Other(Cow::Borrowed(v))))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<TopKey<'de>, E> {
        Ok(top_key(v).unwrap_or_else(|| TopKey::Other(Cow::Owned(v.to_owned()))))
    }
}

fn top_key<'a>(key: &str) -> Option<TopKey<'a>> {
    Some(TopKey::Known(match key {
        "jsonrpc" => F_JSONRPC,
        "id" => F_ID,
        "result" => F_RESULT,
        "error" => F_ERROR,
        "method" => F_METHOD,
        "params" => F_PARAMS,
        _ => return None,
    }))
}

struct MessageVisitor<'s, 'de>(&'s mut Sparse<'de>);

impl<'de> MessageVisitor<'_, 'de> {
    fn leaf(self, leaf: Leaf<'de>) {
        self.0.not_object = leaf;
    }
}

impl<'de> Visitor<'de> for MessageVisitor<'_, 'de> {
    type Value = ();
    leaf_visitor_methods!();
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let m = self.0;
        while let Some(key) = map.next_key_seed(TopKeySeed)? {
            // Like JSON.parse, a repeated key keeps its last value (and its
            // first position, which only matters for `unknown`).
            match key {
                TopKey::Known(bit) => {
                    m.keys |= bit;
                    match bit {
                        F_JSONRPC => m.jsonrpc = map.next_value_seed(LeafSeed)?,
                        F_ID => m.id = map.next_value_seed(LeafSeed)?,
                        F_METHOD => m.method = map.next_value_seed(LeafSeed)?,
                        F_RESULT => map.next_value_seed(WithMetaSeed(&mut m.result))?,
                        F_ERROR => map.next_value_seed(ErrorSeed(&mut m.error))?,
                        _ => map.next_value_seed(WithMetaSeed(&mut m.params))?,
                    }
                }
                TopKey::Other(name) => {
                    if m.unknown.is_none() {
                        m.unknown = Some(name);
                    }
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(())
    }
}
