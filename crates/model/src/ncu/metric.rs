//! Metrics of one result: values, instances and correlation ids.

use super::wire::{FieldReader, WireError, WireValue};
use crate::core::num::{float_to_u64, low_u32};

/// The value kind of a metric, numbered as NVIDIA's `IMetric.ValueKind`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ValueKind {
    /// No value stored.
    Unknown,
    /// Any kind (unused in reports; kept for API completeness).
    Any,
    /// UTF-8 string.
    String,
    /// 32-bit float.
    Float,
    /// 64-bit float.
    Double,
    /// 32-bit unsigned integer.
    Uint32,
    /// 64-bit unsigned integer.
    Uint64,
}

impl ValueKind {
    /// The name NVIDIA's reader uses (`ValueKind_<NAME>`).
    pub fn name(self) -> &'static str {
        match self {
            ValueKind::Unknown => "UNKNOWN",
            ValueKind::Any => "ANY",
            ValueKind::String => "STRING",
            ValueKind::Float => "FLOAT",
            ValueKind::Double => "DOUBLE",
            ValueKind::Uint32 => "UINT32",
            ValueKind::Uint64 => "UINT64",
        }
    }
}

/// One stored value (`ProfileMetricValue`).
#[derive(Debug, Clone, PartialEq, Default)]
pub enum MetricValue {
    /// Nothing stored.
    #[default]
    None,
    /// A string.
    String(String),
    /// A 32-bit float.
    Float(f32),
    /// A 64-bit float.
    Double(f64),
    /// A 32-bit unsigned integer.
    Uint32(u32),
    /// A 64-bit unsigned integer.
    Uint64(u64),
}

impl MetricValue {
    /// The value as Rust prints it (`String::new()` for no value): the shortest text that reads
    /// back to the same number, no unit, no grouping.
    pub fn plain_text(&self) -> String {
        match self {
            MetricValue::None => String::new(),
            MetricValue::String(s) => s.clone(),
            MetricValue::Float(v) => v.to_string(),
            MetricValue::Double(v) => v.to_string(),
            MetricValue::Uint32(v) => v.to_string(),
            MetricValue::Uint64(v) => v.to_string(),
        }
    }

    /// The kind of this value.
    pub fn kind(&self) -> ValueKind {
        match self {
            MetricValue::None => ValueKind::Unknown,
            MetricValue::String(_) => ValueKind::String,
            MetricValue::Float(_) => ValueKind::Float,
            MetricValue::Double(_) => ValueKind::Double,
            MetricValue::Uint32(_) => ValueKind::Uint32,
            MetricValue::Uint64(_) => ValueKind::Uint64,
        }
    }

    /// The value as a double, as NVIDIA's `as_double` (floats widened, integers converted).
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            MetricValue::Float(v) => Some(f64::from(*v)),
            MetricValue::Double(v) => Some(*v),
            MetricValue::Uint32(v) => Some(f64::from(*v)),
            MetricValue::Uint64(v) => Some(*v as f64),
            MetricValue::String(_) | MetricValue::None => None,
        }
    }

    /// The value as an unsigned integer, as NVIDIA's `as_uint64` (floats truncated).
    pub fn as_u64(&self) -> Option<u64> {
        match self {
            MetricValue::Float(v) => Some(float_to_u64(f64::from(*v))),
            MetricValue::Double(v) => Some(float_to_u64(*v)),
            MetricValue::Uint32(v) => Some(u64::from(*v)),
            MetricValue::Uint64(v) => Some(*v),
            MetricValue::String(_) | MetricValue::None => None,
        }
    }

    /// The string value, if this is a string.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            MetricValue::String(s) => Some(s),
            _ => None,
        }
    }

    /// Converts a decoded `ProfileMetricValue` (the first value field set wins).
    pub fn from_message(
        message: &crate::proto::nv::profiler::messages::ProfileMetricValue,
    ) -> MetricValue {
        if let Some(s) = &message.string_value {
            MetricValue::String(s.clone())
        } else if let Some(v) = message.float_value {
            MetricValue::Float(v)
        } else if let Some(v) = message.double_value {
            MetricValue::Double(v)
        } else if let Some(v) = message.uint32_value {
            MetricValue::Uint32(v)
        } else if let Some(v) = message.uint64_value {
            MetricValue::Uint64(v)
        } else {
            MetricValue::None
        }
    }

    /// Decodes a `ProfileMetricValue` message. When several value fields are present (never in
    /// files written by Nsight Compute) the last one wins.
    pub(crate) fn decode(buf: &[u8]) -> Result<MetricValue, WireError> {
        let mut value = MetricValue::None;
        let mut reader = FieldReader::new(buf);
        while let Some((field, wire)) = reader.next_field()? {
            value = match (field, wire) {
                (1, WireValue::Bytes(bytes, offset)) => match std::str::from_utf8(bytes) {
                    Ok(s) => MetricValue::String(s.to_owned()),
                    Err(_) => {
                        return Err(WireError {
                            offset,
                            what: "string is not valid UTF-8",
                        });
                    }
                },
                (2, WireValue::Fixed32(bits)) => MetricValue::Float(f32::from_bits(bits)),
                (3, WireValue::Fixed64(bits)) => MetricValue::Double(f64::from_bits(bits)),
                // A `uint32` field keeps a varint's low 32 bits, as protobuf reads it.
                (4, WireValue::Varint(v)) => MetricValue::Uint32(low_u32(v)),
                (5, WireValue::Varint(v)) => MetricValue::Uint64(v),
                (1..=5, _) => {
                    return Err(WireError {
                        offset: reader.position(),
                        what: "metric value field has the wrong wire type",
                    });
                }
                _ => continue,
            };
        }
        Ok(value)
    }
}

/// One element of a metric's value list: an instance value and its optional correlation id.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Instance {
    /// The correlation id (e.g. a PC address, or a unit index), when stored.
    pub correlation_id: Option<MetricValue>,
    /// The instance's value.
    pub value: MetricValue,
}

/// The kind of a metric stored as `stored` with `instances`, as NVIDIA's reader reports it:
/// the stored value's kind, or else the kind of the first instance, or `Unknown`.
pub(crate) fn own_kind(stored: &MetricValue, instances: &[Instance]) -> ValueKind {
    match stored {
        MetricValue::None => instances
            .first()
            .map_or(ValueKind::Unknown, |i| i.value.kind()),
        value => value.kind(),
    }
}

/// The value of a metric stored as `stored` with `instances`, as NVIDIA's reader reports it:
/// the stored value, or zero of the instances' kind when only instances are stored (strings:
/// no value).
pub(crate) fn own_value(stored: &MetricValue, instances: &[Instance]) -> MetricValue {
    match stored {
        MetricValue::None => match own_kind(stored, instances) {
            ValueKind::Float => MetricValue::Float(0.0),
            ValueKind::Double => MetricValue::Double(0.0),
            ValueKind::Uint32 => MetricValue::Uint32(0),
            ValueKind::Uint64 => MetricValue::Uint64(0),
            _ => MetricValue::None,
        },
        value => value.clone(),
    }
}

/// One metric of a result (`ProfileMetricResult`).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Metric {
    /// Index of the name in the report's string table.
    pub name_id: u32,
    /// The stored single value (`MetricValue::None` when only a list is stored).
    pub stored: MetricValue,
    /// The instance values, in file order.
    pub instances: Vec<Instance>,
    /// `ProfileMetricCategory`: 0 for PM counters, 1 for sampler data.
    pub category: u32,
}

impl Metric {
    /// The metric's kind as NVIDIA's reader reports it: the stored value's kind, or else the
    /// kind of the first instance, or `Unknown` when nothing is stored.
    pub fn kind(&self) -> ValueKind {
        own_kind(&self.stored, &self.instances)
    }

    /// The metric's value as NVIDIA's reader reports it: the stored value, or zero of the
    /// instances' kind when only instances are stored (strings: no value).
    pub fn value(&self) -> MetricValue {
        own_value(&self.stored, &self.instances)
    }

    /// Number of instance values.
    pub fn num_instances(&self) -> usize {
        self.instances.len()
    }

    /// Whether the instances carry correlation ids.
    pub fn has_correlation_ids(&self) -> bool {
        self.instances.iter().any(|i| i.correlation_id.is_some())
    }

    /// Decodes a `ProfileMetricResult` message.
    pub(crate) fn decode(buf: &[u8]) -> Result<Metric, WireError> {
        let mut metric = Metric::default();
        let mut reader = FieldReader::new(buf);
        while let Some((field, wire)) = reader.next_field()? {
            match (field, wire) {
                (1, WireValue::Varint(v)) => metric.name_id = low_u32(v),
                (2, WireValue::Bytes(bytes, offset)) => {
                    metric.stored = MetricValue::decode(bytes).map_err(|e| shift(e, offset))?;
                }
                (3, WireValue::Bytes(bytes, offset)) => {
                    metric
                        .instances
                        .push(decode_instance(bytes).map_err(|e| shift(e, offset))?);
                }
                (4, WireValue::Varint(v)) => metric.category = low_u32(v),
                (1..=4, _) => {
                    return Err(WireError {
                        offset: reader.position(),
                        what: "metric field has the wrong wire type",
                    });
                }
                _ => {}
            }
        }
        if metric.category == SAMPLER_CATEGORY {
            metric.normalize_sampler();
        }
        Ok(metric)
    }

    /// Category-1 (sampler, `pmsampling:*`) metrics as NVIDIA's reader gives them (FORMATS.md
    /// §1, and `fixtures/sampler_nan.ncu-rep` checked with NVIDIA's reader): always of kind
    /// double; value and instances are kept only when the list is non-empty, every element
    /// has a correlation id and a double value, and the stored value (if any) is a double.
    /// Otherwise the metric is 0.0 without instances: also when nothing is stored at all,
    /// when only a value is stored (double or not), and when a valid list comes with a
    /// non-double value.
    fn normalize_sampler(&mut self) {
        let keep = !self.instances.is_empty()
            && matches!(self.stored, MetricValue::None | MetricValue::Double(_))
            && self
                .instances
                .iter()
                .all(|i| i.correlation_id.is_some() && matches!(i.value, MetricValue::Double(_)));
        if !keep {
            self.stored = MetricValue::Double(0.0);
            self.instances.clear();
        }
    }
}

/// `ProfileMetricCategory` of sampler metrics (`pmsampling:*`).
pub const SAMPLER_CATEGORY: u32 = 1;

fn decode_instance(buf: &[u8]) -> Result<Instance, WireError> {
    let mut instance = Instance::default();
    let mut reader = FieldReader::new(buf);
    while let Some((field, wire)) = reader.next_field()? {
        match (field, wire) {
            (1, WireValue::Bytes(bytes, offset)) => {
                instance.correlation_id =
                    Some(MetricValue::decode(bytes).map_err(|e| shift(e, offset))?);
            }
            (2, WireValue::Bytes(bytes, offset)) => {
                instance.value = MetricValue::decode(bytes).map_err(|e| shift(e, offset))?;
            }
            (1..=2, _) => {
                return Err(WireError {
                    offset: reader.position(),
                    what: "metric list element has the wrong wire type",
                });
            }
            _ => {}
        }
    }
    Ok(instance)
}

/// Makes an error offset relative to the enclosing buffer.
pub(crate) fn shift(mut error: WireError, by: usize) -> WireError {
    error.offset += by;
    error
}
