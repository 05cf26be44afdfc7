//! The schema tables the parser is guided by: every message's fields (number, kind, label,
//! oneof) and every enum's values, built once from Sightline's descriptor pool.

use super::*;

// ---------------------------------------------------------------------------------------------
// Schema tables (built once from the descriptor pool)

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum FieldKind {
    Double,
    Float,
    Int32,
    Int64,
    Uint32,
    Uint64,
    Sint32,
    Sint64,
    Fixed32,
    Fixed64,
    Sfixed32,
    Sfixed64,
    Bool,
    String,
    Bytes,
    /// Index into [`Schema::messages`].
    Message(usize),
    /// Index into [`Schema::enums`].
    Enum(usize),
}

pub(super) struct FieldInfo {
    pub(super) name: String,
    pub(super) number: u32,
    pub(super) kind: FieldKind,
    /// Repeated or map (a map is a repeated entry message on the wire).
    pub(super) repeated: bool,
    pub(super) required: bool,
    pub(super) group: bool,
    /// Index of the (non-synthetic) oneof within the message.
    pub(super) oneof: Option<usize>,
    /// `ProfilerSectionMetricDefinition.Expression`: checked as a derived-metric expression.
    pub(super) expression: bool,
}

pub(super) struct MessageInfo {
    pub(super) full_name: String,
    /// Sorted by name (looked up by a linear scan: messages have few fields).
    pub(super) fields: Vec<FieldInfo>,
    /// Names of the oneofs, by index.
    pub(super) oneofs: Vec<String>,
}

pub(super) struct EnumInfo {
    pub(super) full_name: String,
    pub(super) name: String,
    /// `(name, number)` sorted by name.
    pub(super) by_name: Vec<(String, i32)>,
    /// Sorted, deduplicated.
    pub(super) numbers: Vec<i32>,
}

pub(super) struct Schema {
    pub(super) pool: DescriptorPool,
    pub(super) messages: Vec<MessageInfo>,
    pub(super) message_index: HashMap<String, usize>,
    pub(super) enums: Vec<EnumInfo>,
}

pub(super) fn schema() -> Result<&'static Schema, &'static DescriptorError> {
    static SCHEMA: OnceLock<Result<Schema, DescriptorError>> = OnceLock::new();
    SCHEMA
        .get_or_init(|| DescriptorPool::decode(FILE_DESCRIPTOR_SET).map(Schema::build))
        .as_ref()
}

impl Schema {
    pub(super) fn build(pool: DescriptorPool) -> Schema {
        let message_index: HashMap<String, usize> = pool
            .all_messages()
            .enumerate()
            .map(|(i, m)| (m.full_name().to_owned(), i))
            .collect();
        let enum_descs: Vec<_> = pool.all_enums().collect();
        let enum_index: HashMap<String, usize> = enum_descs
            .iter()
            .enumerate()
            .map(|(i, e)| (e.full_name().to_owned(), i))
            .collect();
        let enums = enum_descs
            .iter()
            .map(|e| {
                let mut by_name: Vec<(String, i32)> = e
                    .values()
                    .map(|v| (v.name().to_owned(), v.number()))
                    .collect();
                by_name.sort();
                let mut numbers: Vec<i32> = by_name.iter().map(|(_, n)| *n).collect();
                numbers.sort_unstable();
                numbers.dedup();
                EnumInfo {
                    full_name: e.full_name().to_owned(),
                    name: e.name().to_owned(),
                    by_name,
                    numbers,
                }
            })
            .collect();
        let messages = pool
            .all_messages()
            .map(|m| {
                let oneofs: Vec<_> = m.oneofs().filter(|o| !o.is_synthetic()).collect();
                let mut fields: Vec<FieldInfo> = m
                    .fields()
                    .filter_map(|f| {
                        let kind = match f.kind() {
                            Kind::Double => FieldKind::Double,
                            Kind::Float => FieldKind::Float,
                            Kind::Int32 => FieldKind::Int32,
                            Kind::Int64 => FieldKind::Int64,
                            Kind::Uint32 => FieldKind::Uint32,
                            Kind::Uint64 => FieldKind::Uint64,
                            Kind::Sint32 => FieldKind::Sint32,
                            Kind::Sint64 => FieldKind::Sint64,
                            Kind::Fixed32 => FieldKind::Fixed32,
                            Kind::Fixed64 => FieldKind::Fixed64,
                            Kind::Sfixed32 => FieldKind::Sfixed32,
                            Kind::Sfixed64 => FieldKind::Sfixed64,
                            Kind::Bool => FieldKind::Bool,
                            Kind::String => FieldKind::String,
                            Kind::Bytes => FieldKind::Bytes,
                            Kind::Message(d) => {
                                FieldKind::Message(*message_index.get(d.full_name())?)
                            }
                            Kind::Enum(d) => FieldKind::Enum(*enum_index.get(d.full_name())?),
                        };
                        let oneof = f.containing_oneof().and_then(|o| {
                            oneofs.iter().position(|x| x.full_name() == o.full_name())
                        });
                        Some(FieldInfo {
                            name: f.name().to_owned(),
                            number: f.number(),
                            kind,
                            repeated: f.is_list() || f.is_map(),
                            required: f.is_required(),
                            group: f.is_group(),
                            oneof,
                            expression: m.full_name() == METRIC_DEFINITION_MESSAGE
                                && f.name() == "Expression",
                        })
                    })
                    .collect();
                fields.sort_by(|a, b| a.name.cmp(&b.name));
                MessageInfo {
                    full_name: m.full_name().to_owned(),
                    fields,
                    oneofs: oneofs.iter().map(|o| o.name().to_owned()).collect(),
                }
            })
            .collect();
        Schema {
            pool,
            messages,
            message_index,
            enums,
        }
    }
}

impl MessageInfo {
    pub(super) fn field(&self, name: &str) -> Option<usize> {
        // Messages have few fields: a linear scan comparing lengths first beats hashing.
        self.fields
            .iter()
            .position(|f| f.name.len() == name.len() && f.name == name)
    }
}

impl EnumInfo {
    pub(super) fn get(&self, name: &str) -> Option<i32> {
        self.by_name
            .binary_search_by(|(n, _)| n.as_str().cmp(name))
            .ok()
            .and_then(|i| self.by_name.get(i))
            .map(|(_, n)| *n)
    }

    /// Looks a value up by name, accepting the documented short forms.
    pub(super) fn lookup(&self, name: &str) -> Option<i32> {
        if let Some(n) = self.get(name) {
            return Some(n);
        }
        if let Some(n) = self.get(&format!("{}_{}", self.name, name)) {
            return Some(n);
        }
        let written = name.split_once('_');
        if let Some((wp, wr)) = written
            && prefix_equivalent(wp, &self.name)
            && let Some(n) = self.get(wr)
        {
            // `SortKeys_ByValue` for an enum whose values carry no prefix.
            return Some(n);
        }
        for (value, number) in &self.by_name {
            let Some((prefix, rest)) = value.split_once('_') else {
                continue;
            };
            if rest == name && prefix_equivalent(prefix, &self.name) {
                return Some(*number);
            }
            if let Some((wp, wr)) = written
                && wr == rest
                && prefix_equivalent(wp, prefix)
            {
                return Some(*number);
            }
        }
        None
    }
}

/// Whether two enum-value prefixes differ only in ASCII case or a trailing `s`.
pub(super) fn prefix_equivalent(a: &str, b: &str) -> bool {
    pub(super) fn trim(s: &str) -> &str {
        match s.strip_suffix(['s', 'S']) {
            Some(t) if !t.is_empty() => t,
            _ => s,
        }
    }
    a.eq_ignore_ascii_case(b) || trim(a).eq_ignore_ascii_case(trim(b))
}

pub(super) fn kind_name(schema: &Schema, kind: FieldKind) -> String {
    match kind {
        FieldKind::Double | FieldKind::Float => "a number".to_owned(),
        FieldKind::Int32
        | FieldKind::Sint32
        | FieldKind::Sfixed32
        | FieldKind::Int64
        | FieldKind::Sint64
        | FieldKind::Sfixed64 => "an integer".to_owned(),
        FieldKind::Uint32 | FieldKind::Fixed32 | FieldKind::Uint64 | FieldKind::Fixed64 => {
            "an unsigned integer".to_owned()
        }
        FieldKind::Bool => "a boolean".to_owned(),
        FieldKind::String => "a string".to_owned(),
        FieldKind::Bytes => "a string (bytes)".to_owned(),
        FieldKind::Message(m) => format!(
            "a `{}` message block",
            schema.messages.get(m).map_or("", |m| m.full_name.as_str())
        ),
        FieldKind::Enum(e) => format!(
            "a `{}` enum value",
            schema.enums.get(e).map_or("", |e| e.full_name.as_str())
        ),
    }
}
