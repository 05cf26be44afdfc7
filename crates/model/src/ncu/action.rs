//! One decoded result (an "action" in NVIDIA's API): kernel launch, range, command list or graph.

use std::sync::Arc;

use bytes::Bytes;
use prost::Message;

use super::index::ResultEntry;
use super::metric::{Metric, shift};
use super::report::{ToolVersion, VersionOf, WorkloadKind};
use super::wire::{FieldReader, WireError, WireValue, first_string_field};
use crate::core::num::index_u32;
use crate::problem::{Location, Problem};
use crate::proto::nv::nvtx::NvtxState;
use crate::proto::nv::profiler::ProfilerSection;
use crate::proto::nv::profiler::messages as pb;
use crate::proto::nv::rule_system::RuleResult;

/// Which name of a kernel to show, numbered as NVIDIA's `IAction.NameBase`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NameBase {
    /// The function name (`vec_add`).
    Function = 0,
    /// The demangled signature (`vec_add(float *, float *, float *, int)`).
    Demangled = 1,
    /// The mangled symbol (`_Z7vec_addPfS_S_i`).
    Mangled = 2,
}

/// The small fields of a result: everything except metrics, sections, rule results and NVTX,
/// which [`Action`] keeps separately.
#[derive(Debug, Clone)]
pub enum ResultInfo {
    /// A kernel launch.
    Kernel(Box<pb::ProfileResult>),
    /// A replayed range.
    Range(Box<pb::RangeResult>),
    /// A command list.
    Cmdlist(Box<pb::CmdlistResult>),
    /// A CUDA graph.
    Graph(Box<pb::GraphResult>),
}

/// Field numbers of the large fields, per result message.
struct LargeFields {
    metrics: u32,
    sections: u32,
    rule_results: Option<u32>,
    nvtx: u32,
}

impl LargeFields {
    fn of(kind: WorkloadKind) -> LargeFields {
        match kind {
            WorkloadKind::Kernel => LargeFields {
                metrics: 13,
                sections: 17,
                rule_results: Some(19),
                nvtx: 21,
            },
            WorkloadKind::Range | WorkloadKind::Graph => LargeFields {
                metrics: 4,
                sections: 7,
                rule_results: None,
                nvtx: 10,
            },
            WorkloadKind::Cmdlist => LargeFields {
                metrics: 4,
                sections: 7,
                rule_results: Some(21),
                nvtx: 10,
            },
        }
    }
}

/// A decoded result with its metrics, embedded sections, stored rule results and NVTX state.
#[derive(Debug, Clone)]
pub struct Action {
    index: usize,
    kind: WorkloadKind,
    info: ResultInfo,
    metrics: Vec<Metric>,
    /// Indices into `metrics`, sorted by name; for duplicate names the last entry wins.
    by_name: Vec<u32>,
    strings: Arc<Vec<String>>,
    sections: Vec<Bytes>,
    rule_results: Vec<RuleResult>,
    nvtx: Option<NvtxState>,
    process: Option<usize>,
    warnings: Vec<Problem>,
    tool_version: VersionOf,
    /// Whether a metric was skipped for a name id beyond `strings`.
    names_beyond_table: bool,
}

impl Action {
    /// Decodes one result. Damage that is contained in one field (a metric naming a string
    /// the file never defines, a rule result, the NVTX state or a header field this schema
    /// reads differently) skips that field with a warning; only damage to the result's framing
    /// fails the action.
    pub(crate) fn decode(
        index: usize,
        entry: &ResultEntry,
        bytes: &Bytes,
        strings: Arc<Vec<String>>,
        tool_version: VersionOf,
    ) -> Result<Action, WireError> {
        let mut warnings = Warnings {
            base: entry.offset,
            list: Vec::new(),
        };
        let fields = Fields::read(entry.kind, bytes, &strings, &mut warnings)?;
        let info = fields.header(entry.kind, bytes, &mut warnings);
        let by_name = sorted_by_name(&fields.metrics, &strings);
        Ok(Action {
            index,
            kind: entry.kind,
            info,
            metrics: fields.metrics,
            by_name,
            strings,
            sections: fields.sections,
            rule_results: fields.rule_results,
            nvtx: fields.nvtx,
            process: entry.process,
            warnings: warnings.list,
            tool_version,
            names_beyond_table: fields.names_beyond_table,
        })
    }

    /// The Nsight Compute version that wrote the report this action comes from (for an action
    /// of a report opened lazily, this may index the rest of the report).
    pub fn tool_version(&self) -> Option<ToolVersion> {
        self.tool_version.get()
    }

    /// Whether a metric was skipped for naming a string beyond the table it was decoded with.
    pub(crate) fn names_beyond_table(&self) -> bool {
        self.names_beyond_table
    }

    /// How many strings the table this action was decoded with holds: the report's whole
    /// table, or (opened lazily) the blocks walked so far, which name every metric it kept.
    pub fn string_table_len(&self) -> usize {
        self.strings.len()
    }

    /// Problems worked around while decoding this action (absolute byte offsets).
    pub fn warnings(&self) -> &[Problem] {
        &self.warnings
    }

    /// Position of this action in the report.
    pub fn index(&self) -> usize {
        self.index
    }

    /// What kind of workload this is.
    pub fn kind(&self) -> WorkloadKind {
        self.kind
    }

    /// The small fields of the result message.
    pub fn info(&self) -> &ResultInfo {
        &self.info
    }

    /// Index into [`super::Report::processes`] of the block's process, if any.
    pub fn process(&self) -> Option<usize> {
        self.process
    }

    /// The action's name in the given base. Ranges, command lists and graphs have one name.
    pub fn name(&self, base: NameBase) -> &str {
        match &self.info {
            ResultInfo::Kernel(k) => match base {
                NameBase::Function => &k.kernel_function_name,
                // Kernels without a demangled form (`extern "C"`) show the mangled name, as
                // NVIDIA's reader does.
                NameBase::Demangled if k.kernel_demangled_name.is_empty() => &k.kernel_mangled_name,
                NameBase::Demangled => &k.kernel_demangled_name,
                NameBase::Mangled => &k.kernel_mangled_name,
            },
            ResultInfo::Cmdlist(c) => c.display_name.as_deref().unwrap_or(""),
            ResultInfo::Range(_) | ResultInfo::Graph(_) => "",
        }
    }

    /// Grid size `[x, y, z]` of a kernel launch.
    pub fn grid_size(&self) -> Option<[u64; 3]> {
        match &self.info {
            ResultInfo::Kernel(k) => Some(dim3(&k.grid_size)),
            _ => None,
        }
    }

    /// Block size `[x, y, z]` of a kernel launch.
    pub fn block_size(&self) -> Option<[u64; 3]> {
        match &self.info {
            ResultInfo::Kernel(k) => Some(dim3(&k.block_size)),
            _ => None,
        }
    }

    /// The id of the CPU thread that launched the workload.
    pub fn thread_id(&self) -> Option<u32> {
        Some(match &self.info {
            ResultInfo::Kernel(k) => k.thread_id,
            ResultInfo::Range(r) => r.thread_id,
            ResultInfo::Cmdlist(c) => c.thread_id,
            ResultInfo::Graph(g) => g.thread_id,
        })
    }

    /// The CUDA context id.
    pub fn context_id(&self) -> Option<u32> {
        match &self.info {
            ResultInfo::Kernel(k) => k.context_id,
            ResultInfo::Range(r) => r.context_id,
            ResultInfo::Cmdlist(c) => c.context_id,
            ResultInfo::Graph(g) => g.context_id,
        }
    }

    /// The CUDA stream id.
    pub fn stream_id(&self) -> Option<u32> {
        match &self.info {
            ResultInfo::Kernel(k) => k.stream_id,
            ResultInfo::Range(_) => None,
            ResultInfo::Cmdlist(c) => c.stream_id,
            ResultInfo::Graph(g) => g.stream_id,
        }
    }

    /// All metrics in file order.
    pub fn metrics(&self) -> &[Metric] {
        &self.metrics
    }

    /// The name of a metric of this action.
    pub fn metric_name(&self, metric: &Metric) -> &str {
        &self.strings[metric.name_id as usize]
    }

    /// Metric names in sorted order (each once).
    pub fn metric_names(&self) -> impl Iterator<Item = &str> + '_ {
        self.by_name
            .iter()
            .map(|&i| self.metric_name(&self.metrics[i as usize]))
    }

    /// `(name, metric)` pairs in name order (each name once).
    pub fn metrics_by_name(&self) -> impl Iterator<Item = (&str, &Metric)> + '_ {
        self.by_name.iter().map(|&i| {
            let metric = &self.metrics[i as usize];
            (self.metric_name(metric), metric)
        })
    }

    /// Looks a metric up by its full name.
    pub fn metric(&self, name: &str) -> Option<&Metric> {
        self.by_name
            .binary_search_by(|&i| self.metric_name(&self.metrics[i as usize]).cmp(name))
            .ok()
            .map(|pos| &self.metrics[self.by_name[pos] as usize])
    }

    /// The index in [`Action::metrics`] of the metric with this full name.
    pub fn metric_index(&self, name: &str) -> Option<usize> {
        self.by_name
            .binary_search_by(|&i| self.metric_name(&self.metrics[i as usize]).cmp(name))
            .ok()
            .map(|pos| self.by_name[pos] as usize)
    }

    /// Compute capability as `major * 10 + minor`, from the device attributes.
    pub fn compute_capability(&self) -> Option<u32> {
        let major = self
            .metric("device__attribute_compute_capability_major")?
            .value()
            .as_u64()?;
        let minor = self
            .metric("device__attribute_compute_capability_minor")?
            .value()
            .as_u64()?;
        u32::try_from(major * 10 + minor).ok()
    }

    /// The NVTX state at launch, if recorded.
    pub fn nvtx(&self) -> Option<&NvtxState> {
        self.nvtx.as_ref()
    }

    /// The rule results stored in the report for this action.
    pub fn rule_results(&self) -> &[RuleResult] {
        &self.rule_results
    }

    /// Number of embedded sections.
    pub fn num_sections(&self) -> usize {
        self.sections.len()
    }

    /// Identifiers of the embedded sections, without decoding them.
    pub fn section_identifiers(&self) -> Result<Vec<&str>, WireError> {
        self.sections
            .iter()
            .map(|s| first_string_field(s, 1).map(Option::unwrap_or_default))
            .collect()
    }

    /// Decodes the embedded sections.
    pub fn sections(&self) -> Result<Vec<ProfilerSection>, prost::DecodeError> {
        self.sections
            .iter()
            .map(|s| ProfilerSection::decode(s.clone()))
            .collect()
    }

    /// The encoded embedded sections.
    pub fn section_bytes(&self) -> &[Bytes] {
        &self.sections
    }
}

/// Indices of `metrics` sorted by name, each name once (for duplicates the last entry wins).
/// Names are ranked once per distinct string-table id, so sorting compares integers.
fn sorted_by_name(metrics: &[Metric], strings: &[String]) -> Vec<u32> {
    // The distinct name ids, sorted by id (to look a name id's rank up by binary search, no
    // hashing: this runs once per decoded result, on ~1,000 metrics).
    let mut ids: Vec<u32> = metrics.iter().map(|m| m.name_id).collect();
    ids.sort_unstable();
    ids.dedup();
    let text = |id: u32| strings.get(id as usize).map_or("", String::as_str);
    let mut by_text = ids.clone();
    by_text.sort_by(|&a, &b| text(a).cmp(text(b)));
    // Equal names under different ids share a rank.
    let mut rank_at = vec![0u32; ids.len()];
    let mut previous: Option<&str> = None;
    let mut current = 0u32;
    for (position, &id) in by_text.iter().enumerate() {
        let name = text(id);
        if previous != Some(name) {
            current = index_u32(position);
            previous = Some(name);
        }
        if let Ok(slot) = ids.binary_search(&id) {
            rank_at[slot] = current;
        }
    }
    let ranks: Vec<u32> = metrics
        .iter()
        .map(|m| {
            ids.binary_search(&m.name_id)
                .map_or(0, |slot| rank_at[slot])
        })
        .collect();
    let mut by_name: Vec<u32> = (0..index_u32(metrics.len())).collect();
    // The last metric of a name wins, as before: keys are unique, so unstable is stable here.
    by_name.sort_unstable_by_key(|&i| (ranks[i as usize], std::cmp::Reverse(i)));
    by_name.dedup_by(|later, earlier| ranks[*later as usize] == ranks[*earlier as usize]);
    by_name
}

fn dim3(v: &pb::Uint64x3) -> [u64; 3] {
    [v.x.unwrap_or(0), v.y.unwrap_or(0), v.z.unwrap_or(0)]
}

/// Decodes the small fields of a result (`rest`, the concatenation of the byte ranges
/// `fields` of `bytes`). When the whole does not decode, each field is merged on its own and
/// the ones that do not decode are skipped with a warning, so one field that a newer writer
/// encodes differently costs that field, not the kernel.
fn decode_fields<M: Message + Default + Clone>(
    rest: &[u8],
    bytes: &[u8],
    fields: &[(usize, usize)],
    warn: &mut impl FnMut(usize, String),
) -> M {
    if let Ok(message) = M::decode(rest) {
        return message;
    }
    let mut message = M::default();
    for &(start, end) in fields {
        let mut trial = message.clone();
        match trial.merge(&bytes[start..end]) {
            Ok(()) => message = trial,
            Err(e) => {
                let field = FieldReader::new(&bytes[start..end])
                    .next_field()
                    .ok()
                    .flatten()
                    .map_or(0, |(field, _)| field);
                warn(
                    start,
                    format!(
                        "result field {field} does not decode as this reader expects ({e}); \
                         the field was skipped"
                    ),
                );
            }
        }
    }
    message
}

/// The warnings of one result being decoded; offsets are relative to the result and stored
/// absolute.
struct Warnings {
    /// The result's byte offset in the file.
    base: usize,
    list: Vec<Problem>,
}

impl Warnings {
    /// Adds a warning at `offset` bytes into the result.
    fn push(&mut self, offset: usize, message: String) {
        self.list.push(Problem::warning(
            Location::Byte((self.base + offset) as u64),
            message,
        ));
    }
}

/// The fields of one result, sorted while reading its wire format: the large ones kept
/// apart, the small (header) ones gathered for one decode.
#[derive(Default)]
struct Fields {
    metrics: Vec<Metric>,
    sections: Vec<Bytes>,
    rule_results: Vec<RuleResult>,
    nvtx: Option<NvtxState>,
    /// The small fields, concatenated.
    rest: Vec<u8>,
    /// The byte range of each small field in the result.
    rest_fields: Vec<(usize, usize)>,
    /// Whether a metric was skipped for a name id beyond the string table.
    names_beyond_table: bool,
}

impl Fields {
    /// Reads the fields of a result of `kind`; fails only on damage to the framing.
    fn read(
        kind: WorkloadKind,
        bytes: &Bytes,
        strings: &[String],
        warnings: &mut Warnings,
    ) -> Result<Fields, WireError> {
        let large = LargeFields::of(kind);
        let mut fields = Fields::default();
        let mut reader = FieldReader::new(bytes);
        loop {
            let start = reader.position();
            let Some((field, value)) = reader.next_field()? else {
                break;
            };
            match value {
                WireValue::Bytes(payload, offset) if field == large.metrics => {
                    fields.add_metric(payload, offset, strings, warnings)?;
                }
                WireValue::Bytes(_, offset) if field == large.sections => {
                    fields.sections.push(bytes.slice(offset..reader.position()));
                }
                WireValue::Bytes(payload, offset) if Some(field) == large.rule_results => {
                    fields.add_rule_result(payload, offset, warnings);
                }
                WireValue::Bytes(payload, offset) if field == large.nvtx => {
                    fields.merge_nvtx(payload, offset, warnings);
                }
                _ => {
                    fields.rest_fields.push((start, reader.position()));
                    fields
                        .rest
                        .extend_from_slice(&bytes[start..reader.position()]);
                }
            }
        }
        Ok(fields)
    }

    /// Adds a metric; one whose name id is outside the string table is skipped with a
    /// warning.
    fn add_metric(
        &mut self,
        payload: &[u8],
        offset: usize,
        strings: &[String],
        warnings: &mut Warnings,
    ) -> Result<(), WireError> {
        let metric = Metric::decode(payload).map_err(|e| shift(e, offset))?;
        // Name ids index the string table of the whole file, including blocks written after
        // this result.
        if metric.name_id as usize >= strings.len() {
            self.names_beyond_table = true;
            warnings.push(
                offset,
                format!(
                    "metric name id {} outside the string table ({} strings); the metric was \
                     skipped",
                    metric.name_id,
                    strings.len()
                ),
            );
            return Ok(());
        }
        self.metrics.push(metric);
        Ok(())
    }

    /// Adds a stored rule result; a corrupt one is skipped with a warning.
    fn add_rule_result(&mut self, payload: &[u8], offset: usize, warnings: &mut Warnings) {
        match RuleResult::decode(payload) {
            Ok(result) => self.rule_results.push(result),
            Err(e) => warnings.push(
                offset,
                format!("corrupt rule result ({e}); the rule result was skipped"),
            ),
        }
    }

    /// Merges one part of the NVTX state; a corrupt part is skipped with a warning.
    fn merge_nvtx(&mut self, payload: &[u8], offset: usize, warnings: &mut Warnings) {
        let mut merged = self.nvtx.clone().unwrap_or_default();
        match merged.merge(payload) {
            Ok(()) => self.nvtx = Some(merged),
            Err(e) => warnings.push(
                offset,
                format!("corrupt NVTX state ({e}); that part of it was skipped"),
            ),
        }
    }

    /// Decodes the small fields as the header message of a result of `kind`.
    fn header(&self, kind: WorkloadKind, bytes: &[u8], warnings: &mut Warnings) -> ResultInfo {
        let mut warn = |offset: usize, message: String| warnings.push(offset, message);
        let (rest, fields) = (&self.rest[..], &self.rest_fields[..]);
        match kind {
            WorkloadKind::Kernel => {
                ResultInfo::Kernel(Box::new(decode_fields(rest, bytes, fields, &mut warn)))
            }
            WorkloadKind::Range => {
                ResultInfo::Range(Box::new(decode_fields(rest, bytes, fields, &mut warn)))
            }
            WorkloadKind::Cmdlist => {
                ResultInfo::Cmdlist(Box::new(decode_fields(rest, bytes, fields, &mut warn)))
            }
            WorkloadKind::Graph => {
                ResultInfo::Graph(Box::new(decode_fields(rest, bytes, fields, &mut warn)))
            }
        }
    }
}
