//! Writing `.ncu-rep` files: fixtures, benchmarks and round trips.
//!
//! [`ReportWriter`] streams a report block by block: strings interned since the last block
//! form that block's part of the cumulative string table, so a writer of any size keeps only
//! one block of results in memory. [`write_report`] re-encodes a [`Report`] from its decoded
//! model (a read → write → read round trip gives an identical model).

use std::collections::HashMap;
use std::io::{self, Write};

use prost::Message;

use sightline_model::ncu::{
    Action, MAGIC, Metric, MetricValue, ReadError, Report, ResultInfo, WorkloadKind,
};
use sightline_model::proto::nv::nvtx::NvtxState;
use sightline_model::proto::nv::profiler::messages as pb;
use sightline_model::proto::nv::rule_system::RuleResult;

/// The container version Nsight Compute 2020.2 to 2025.2 write.
pub const CONTAINER_VERSION: u32 = 7;

/// One result to write, with metric names already interned.
#[derive(Debug, Clone)]
pub enum ResultMessage {
    /// A kernel launch.
    Kernel(Box<pb::ProfileResult>),
    /// A replayed range.
    Range(Box<pb::RangeResult>),
    /// A command list.
    Cmdlist(Box<pb::CmdlistResult>),
    /// A CUDA graph.
    Graph(Box<pb::GraphResult>),
}

/// Streams a report to `out`.
pub struct ReportWriter<W: Write> {
    out: W,
    ids: HashMap<String, u32>,
    next_id: u32,
    pending_strings: Vec<String>,
    pending_session: Option<pb::ReportSessionDetails>,
    pending_process: Option<pb::ProcessInfo>,
    pending_sources: Vec<pb::SourceData>,
    pending_results: Vec<(WorkloadKind, Vec<u8>)>,
    buffer: Vec<u8>,
}

impl<W: Write> ReportWriter<W> {
    /// Starts a report: writes the magic and the file header.
    pub fn new(mut out: W) -> io::Result<Self> {
        out.write_all(MAGIC)?;
        write_prefixed(
            &mut out,
            &pb::FileHeader {
                version: CONTAINER_VERSION,
            }
            .encode_to_vec(),
        )?;
        Ok(ReportWriter {
            out,
            ids: HashMap::new(),
            next_id: 0,
            pending_strings: Vec::new(),
            pending_session: None,
            pending_process: None,
            pending_sources: Vec::new(),
            pending_results: Vec::new(),
            buffer: Vec::new(),
        })
    }

    /// The string-table id of `name`, adding it to the next block's table when new.
    pub fn intern(&mut self, name: &str) -> u32 {
        if let Some(&id) = self.ids.get(name) {
            return id;
        }
        let id = self.next_id;
        self.next_id += 1;
        self.ids.insert(name.to_owned(), id);
        self.pending_strings.push(name.to_owned());
        id
    }

    /// Session details for the next block (merged with earlier blocks' by readers).
    pub fn session(&mut self, session: pb::ReportSessionDetails) {
        self.pending_session = Some(session);
    }

    /// The process the next block belongs to.
    pub fn process(&mut self, process: pb::ProcessInfo) {
        self.pending_process = Some(process);
    }

    /// Adds a source entry to the next block.
    pub fn add_source(&mut self, source: pb::SourceData) {
        self.pending_sources.push(source);
    }

    /// Adds a result to the next block.
    pub fn add_result(&mut self, result: &ResultMessage) {
        let (kind, bytes) = match result {
            ResultMessage::Kernel(m) => (WorkloadKind::Kernel, m.encode_to_vec()),
            ResultMessage::Range(m) => (WorkloadKind::Range, m.encode_to_vec()),
            ResultMessage::Cmdlist(m) => (WorkloadKind::Cmdlist, m.encode_to_vec()),
            ResultMessage::Graph(m) => (WorkloadKind::Graph, m.encode_to_vec()),
        };
        self.pending_results.push((kind, bytes));
    }

    /// Adds an already encoded result message of the given kind to the next block.
    pub fn add_encoded_result(&mut self, kind: WorkloadKind, bytes: Vec<u8>) {
        self.pending_results.push((kind, bytes));
    }

    /// Encodes a model metric as `ProfileMetricResult`, interning its name.
    pub fn metric_message(&mut self, name: &str, metric: &Metric) -> pb::ProfileMetricResult {
        pb::ProfileMetricResult {
            name_id: self.intern(name),
            metric_value: value_message(&metric.stored),
            metric_value_list: metric
                .instances
                .iter()
                .map(|i| pb::ProfileMetricListElement {
                    correlation_id: i.correlation_id.as_ref().and_then(value_message),
                    element_value: value_message(&i.value).unwrap_or_default(),
                })
                .collect(),
            category: (metric.category != 0).then_some(metric.category as i32),
        }
    }

    /// Writes the pending strings, session details, sources and results as one block.
    pub fn flush_block(&mut self) -> io::Result<()> {
        let mut payload = std::mem::take(&mut self.buffer);
        payload.clear();
        let count = |n: usize| (n > 0).then_some(n as u32);
        let mut counts = [0usize; 4];
        for source in &self.pending_sources {
            write_prefixed(&mut payload, &source.encode_to_vec())?;
        }
        // Results are grouped by kind in the payload: kernels, ranges, command lists, graphs.
        for kind in [
            WorkloadKind::Kernel,
            WorkloadKind::Range,
            WorkloadKind::Cmdlist,
            WorkloadKind::Graph,
        ] {
            for (_, bytes) in self.pending_results.iter().filter(|(k, _)| *k == kind) {
                write_prefixed(&mut payload, bytes)?;
                counts[kind as usize] += 1;
            }
        }
        let header = pb::BlockHeader {
            num_sources: count(self.pending_sources.len()),
            num_results: count(counts[0]),
            session_details: self.pending_session.take(),
            string_table: (!self.pending_strings.is_empty()).then(|| pb::ProfilerStringTable {
                strings: std::mem::take(&mut self.pending_strings),
            }),
            payload_size: Some(u32::try_from(payload.len()).map_err(|_| {
                io::Error::new(io::ErrorKind::InvalidInput, "block payload exceeds 4 GiB")
            })?),
            process: self.pending_process.take(),
            num_range_results: count(counts[1]),
            num_cmdlist_results: count(counts[2]),
            num_graph_results: count(counts[3]),
        };
        write_prefixed(&mut self.out, &header.encode_to_vec())?;
        self.out.write_all(&payload)?;
        self.pending_sources.clear();
        self.pending_results.clear();
        self.buffer = payload;
        Ok(())
    }

    /// Like [`ReportWriter::flush_block`], but the last `deferred` pending strings stay
    /// pending: results of this block may name strings that only a later block defines, as
    /// real reports do (string ids index the string table of the whole file).
    pub fn flush_block_deferring_strings(&mut self, deferred: usize) -> io::Result<()> {
        let keep = self.pending_strings.len().saturating_sub(deferred);
        let later = self.pending_strings.split_off(keep);
        self.flush_block()?;
        self.pending_strings = later;
        Ok(())
    }

    /// Writes a block that holds only the next `count` pending strings, with explicit zero
    /// counts and an empty payload (`NumSources 0, NumResults 0, StringTable, PayloadSize
    /// 0`), the shape of the string-only blocks of real reports.
    pub fn flush_string_block(&mut self, count: usize) -> io::Result<()> {
        let count = count.min(self.pending_strings.len());
        let rest = self.pending_strings.split_off(count);
        let strings = std::mem::replace(&mut self.pending_strings, rest);
        let header = pb::BlockHeader {
            num_sources: Some(0),
            num_results: Some(0),
            string_table: Some(pb::ProfilerStringTable { strings }),
            payload_size: Some(0),
            ..Default::default()
        };
        write_prefixed(&mut self.out, &header.encode_to_vec())
    }

    /// Flushes what is pending (if anything) and returns the output.
    pub fn finish(mut self) -> io::Result<W> {
        if !self.pending_results.is_empty()
            || !self.pending_sources.is_empty()
            || !self.pending_strings.is_empty()
            || self.pending_session.is_some()
        {
            self.flush_block()?;
        }
        self.out.flush()?;
        Ok(self.out)
    }
}

fn write_prefixed(out: &mut impl Write, bytes: &[u8]) -> io::Result<()> {
    let len = u32::try_from(bytes.len())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "message exceeds 4 GiB"))?;
    out.write_all(&len.to_le_bytes())?;
    out.write_all(bytes)
}

/// Encodes a model value as `ProfileMetricValue` (`None` for no value).
pub fn value_message(value: &MetricValue) -> Option<pb::ProfileMetricValue> {
    let mut message = pb::ProfileMetricValue::default();
    match value {
        MetricValue::None => return None,
        MetricValue::String(s) => message.string_value = Some(s.clone()),
        MetricValue::Float(v) => message.float_value = Some(*v),
        MetricValue::Double(v) => message.double_value = Some(*v),
        MetricValue::Uint32(v) => message.uint32_value = Some(*v),
        MetricValue::Uint64(v) => message.uint64_value = Some(*v),
    }
    Some(message)
}

/// Error while re-encoding a report.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    /// The source report could not be read.
    #[error(transparent)]
    Read(#[from] ReadError),
    /// The output failed.
    #[error("writing report: {0}")]
    Io(#[from] io::Error),
}

/// Re-encodes `report` from its decoded model: session details, sources, and every action's
/// fields, metrics, sections, rule results and NVTX state. Consecutive actions of one process
/// share a block.
pub fn write_report(report: &Report, out: impl Write) -> Result<(), WriteError> {
    let mut writer = ReportWriter::new(out)?;
    writer.session(report.session().clone());
    for source in report.sources() {
        writer.add_source(source.decode().map_err(|e| {
            ReadError::format(report.path(), 0, format!("corrupt source entry: {e}"))
        })?);
    }
    writer.flush_block()?;
    let mut current_process = None;
    for index in 0..report.num_actions() {
        let action = report.action(index)?;
        if index > 0 && action.process() != current_process {
            writer.flush_block()?;
        }
        if action.process() != current_process || index == 0 {
            if let Some(p) = action.process().and_then(|p| report.processes().get(p)) {
                writer.process(p.clone());
            }
            current_process = action.process();
        }
        let (kind, bytes) = encode_action(&mut writer, &action);
        writer.add_encoded_result(kind, bytes);
    }
    writer.finish()?;
    Ok(())
}

/// Encodes the result message of `action`, interning its metric names in `writer`. Embedded
/// sections are copied as stored, so fields this schema does not know survive the round trip.
pub fn encode_action<W: Write>(
    writer: &mut ReportWriter<W>,
    action: &Action,
) -> (WorkloadKind, Vec<u8>) {
    let metrics: Vec<pb::ProfileMetricResult> = action
        .metrics()
        .iter()
        .map(|m| writer.metric_message(action.metric_name(m), m))
        .collect();
    let rule_results: Vec<RuleResult> = action.rule_results().to_vec();
    let nvtx: Option<NvtxState> = action.nvtx().cloned();
    let (kind, mut bytes, sections_field) = match action.info() {
        ResultInfo::Kernel(k) => {
            let mut k = k.clone();
            k.metric_results = metrics;
            k.rule_results = rule_results;
            k.nvtx = nvtx;
            (WorkloadKind::Kernel, k.encode_to_vec(), 17)
        }
        ResultInfo::Range(r) => {
            let mut r = r.clone();
            r.metric_results = metrics;
            r.nvtx = nvtx;
            (WorkloadKind::Range, r.encode_to_vec(), 7)
        }
        ResultInfo::Cmdlist(c) => {
            let mut c = c.clone();
            c.metric_results = metrics;
            c.rule_results = rule_results;
            c.nvtx = nvtx;
            (WorkloadKind::Cmdlist, c.encode_to_vec(), 7)
        }
        ResultInfo::Graph(g) => {
            let mut g = g.clone();
            g.metric_results = metrics;
            g.nvtx = nvtx;
            (WorkloadKind::Graph, g.encode_to_vec(), 7)
        }
    };
    for section in action.section_bytes() {
        prost::encoding::encode_key(
            sections_field,
            prost::encoding::WireType::LengthDelimited,
            &mut bytes,
        );
        prost::encoding::encode_varint(section.len() as u64, &mut bytes);
        bytes.extend_from_slice(section);
    }
    (kind, bytes)
}
