//! The section state machine: header, then `=====name=====` sections of thread blocks.

use std::collections::HashMap;

use super::AtpTrace;
use super::api_line::name_span;
use super::model::*;
use super::sections::{classify_section, is_section_line};
use super::text::{self, Line, Lines, decode, parse_u64, tokens};
use crate::core::Cancelled;
use crate::core::num::index_u32;
use crate::core::problems::CappedProblems;
use crate::problem::{Location, Problem};

mod enqueue;

/// At most this many warnings are kept; the rest are counted in `warnings_dropped`.
const MAX_WARNINGS: usize = 500;

/// Where the reader is inside a section of thread blocks.
#[derive(Debug, Clone, Copy)]
enum BlockState {
    /// Expecting a thread id line.
    ThreadId,
    /// Expecting the entry count of `thread`.
    Count { thread: u64, line: u64 },
    /// Reading `remaining` entries of `thread` (entry `index` next).
    Entries {
        thread: u64,
        remaining: u64,
        index: u32,
    },
}

/// Trace lines of one thread block, to be attached to the timestamp block of the same
/// (API, thread, occurrence).
struct TraceBlock {
    offsets: Vec<u64>,
    line: u64,
}

/// A timestamp block waiting for its trace block.
struct TimestampBlock {
    thread: usize,
    /// Block positions whose line failed to parse (no call was made for them), ascending.
    skipped: Vec<u32>,
}

pub(super) struct Parser<'a> {
    data: &'a [u8],
    trace: AtpTrace,
    kinds: HashMap<(u32, Vec<u8>), u16>,
    queues: HashMap<(u32, u64, u32, u64, StrId), u32>,
    launches: HashMap<KernelLaunch, u32>,
    sizes: HashMap<u64, u32>,
    trace_blocks: HashMap<(Api, u64), Vec<TraceBlock>>,
    timestamp_blocks: Vec<TimestampBlock>,
    /// Open perfmarker begins per thread (indices into `trace.perfmarkers`).
    marker_stacks: HashMap<u64, Vec<usize>>,
    copy_name: Option<StrId>,
    /// Problems worked around, until [`AtpTrace::warnings`] takes them.
    warnings: CappedProblems,
}

impl<'a> Parser<'a> {
    pub(super) fn new(data: &'a [u8]) -> Self {
        Parser {
            data,
            trace: AtpTrace::default(),
            kinds: HashMap::new(),
            queues: HashMap::new(),
            launches: HashMap::new(),
            sizes: HashMap::new(),
            trace_blocks: HashMap::new(),
            timestamp_blocks: Vec::new(),
            marker_stacks: HashMap::new(),
            copy_name: None,
            warnings: CappedProblems::new(MAX_WARNINGS),
        }
    }

    fn warn(&mut self, line: u64, message: impl Into<String>) {
        self.warnings
            .push(Problem::warning(Location::line_or_file(line), message));
    }

    /// Reads every line of `lines`; `Err(Cancelled)` when Cancel stopped them.
    pub(super) fn run_lines(mut self, mut lines: Lines<'a>) -> Result<AtpTrace, Cancelled> {
        let mut pending = self.read_header(&mut lines);
        while let Some(section_line) = pending.take() {
            pending = self.read_section(section_line, &mut lines);
        }
        lines.finish()?;
        self.finish();
        Ok(self.trace)
    }

    /// Reads `Key=Value` lines; returns the first section line, if any.
    fn read_header(&mut self, lines: &mut Lines<'a>) -> Option<Line<'a>> {
        for line in lines.by_ref() {
            let bytes = text::trim(line.bytes);
            if line.bytes.first() == Some(&b'=') {
                return Some(line);
            }
            if bytes.is_empty() {
                continue;
            }
            match memchr::memchr(b'=', bytes) {
                Some(eq) => {
                    let key = decode(text::trim(&bytes[..eq])).into_owned();
                    let value = decode(text::trim(&bytes[eq + 1..])).into_owned();
                    self.trace.header.entries.push((key, value));
                }
                None => self.warn(
                    line.number,
                    format!("header line without '=': {:?}", decode(bytes)),
                ),
            }
        }
        None
    }

    /// Reads one section's lines; returns the next section line, if any.
    fn read_section(&mut self, header: Line<'a>, lines: &mut Lines<'a>) -> Option<Line<'a>> {
        let raw = decode(header.bytes);
        let name = raw
            .trim_matches(|c: char| c == '=' || c.is_whitespace())
            .to_string();
        let kind = classify_section(&name);
        if kind == SectionKind::Unknown {
            self.warn(header.number, format!("unknown section {name:?}: skipped"));
        }
        self.trace.sections.push(Section {
            name,
            kind,
            line: header.number,
        });
        let mut state = BlockState::ThreadId;
        let mut kernel_rows_expected: Option<u64> = None;
        let mut kernel_rows_seen: u64 = 0;
        let mut current_block: Option<usize> = None;
        for line in lines.by_ref() {
            if line.bytes.starts_with(b"=====")
                || (line.bytes.first() == Some(&b'=') && is_section_line(line.bytes))
            {
                self.end_block(&state, kind, line.number);
                if let (Some(expected), SectionKind::KernelTimestamp) = (kernel_rows_expected, kind)
                    && expected != kernel_rows_seen
                {
                    self.warn(line.number, format!("kernel timestamp section announced {expected} rows, has {kernel_rows_seen}"));
                }
                return Some(line);
            }
            let trimmed = text::trim(line.bytes);
            if trimmed.is_empty() {
                continue;
            }
            match kind {
                SectionKind::Unknown => {}
                SectionKind::KernelTimestamp => {
                    if kernel_rows_expected.is_none()
                        && let Some(count) = parse_u64(trimmed)
                    {
                        kernel_rows_expected = Some(count);
                        continue;
                    }
                    kernel_rows_seen += 1;
                    self.kernel_timestamp_row(line);
                }
                _ => {
                    if kind == SectionKind::Perfmarker
                        && memchr::memmem::find(trimmed, b"ProfilerVersion=").is_some()
                    {
                        continue;
                    }
                    state = self.block_line(state, kind, line, trimmed, &mut current_block);
                }
            }
        }
        self.end_block(&state, kind, u64::MAX);
        if let (Some(expected), SectionKind::KernelTimestamp) = (kernel_rows_expected, kind)
            && expected != kernel_rows_seen
        {
            self.warn(
                0,
                format!(
                    "kernel timestamp section announced {expected} rows, has {kernel_rows_seen}"
                ),
            );
        }
        None
    }

    fn end_block(&mut self, state: &BlockState, kind: SectionKind, line: u64) {
        if let BlockState::Entries {
            thread, remaining, ..
        } = *state
            && remaining > 0
        {
            let at = if line == u64::MAX { 0 } else { line };
            self.warn(
                at,
                format!("{kind:?} block of thread {thread} ended {remaining} entries short"),
            );
        }
        if let BlockState::Count { thread, line: at } = *state {
            self.warn(at, format!("thread {thread} has no entry count"));
        }
    }

    /// One non-empty line of a thread-block section.
    fn block_line(
        &mut self,
        state: BlockState,
        kind: SectionKind,
        line: Line<'a>,
        trimmed: &[u8],
        current: &mut Option<usize>,
    ) -> BlockState {
        match state {
            BlockState::ThreadId => match parse_u64(trimmed) {
                Some(thread) => BlockState::Count {
                    thread,
                    line: line.number,
                },
                None => {
                    self.warn(
                        line.number,
                        format!(
                            "expected a thread id, found {:?}: line skipped",
                            decode(trimmed)
                        ),
                    );
                    BlockState::ThreadId
                }
            },
            BlockState::Count { thread, .. } => match parse_u64(trimmed) {
                Some(count) => {
                    self.start_block(kind, thread, line.number, current);
                    if count == 0 {
                        BlockState::ThreadId
                    } else {
                        BlockState::Entries {
                            thread,
                            remaining: count,
                            index: 0,
                        }
                    }
                }
                None => {
                    self.warn(
                        line.number,
                        format!(
                            "expected the entry count of thread {thread}, found {:?}",
                            decode(trimmed)
                        ),
                    );
                    BlockState::ThreadId
                }
            },
            BlockState::Entries {
                thread,
                remaining,
                index,
            } => {
                self.entry(kind, thread, index, line, *current);
                if remaining <= 1 {
                    BlockState::ThreadId
                } else {
                    BlockState::Entries {
                        thread,
                        remaining: remaining - 1,
                        index: index.saturating_add(1),
                    }
                }
            }
        }
    }

    fn start_block(
        &mut self,
        kind: SectionKind,
        thread: u64,
        line: u64,
        current: &mut Option<usize>,
    ) {
        // Nothing is reserved from the block's count (it can be garbage): vectors grow as lines
        // arrive.
        match kind {
            SectionKind::ApiTrace(api) => {
                let blocks = self.trace_blocks.entry((api, thread)).or_default();
                blocks.push(TraceBlock {
                    offsets: Vec::new(),
                    line,
                });
                *current = Some(blocks.len() - 1);
            }
            SectionKind::Timestamp(api) => {
                let start = index_u32(self.trace.calls.len());
                self.trace.threads.push(ApiThread {
                    api,
                    thread_id: thread,
                    calls: start..start,
                    first_line: line,
                });
                self.timestamp_blocks.push(TimestampBlock {
                    thread: self.trace.threads.len() - 1,
                    skipped: Vec::new(),
                });
                *current = Some(self.trace.threads.len() - 1);
            }
            SectionKind::SourceCode(api) => {
                self.trace.sources.push(SourceThread {
                    api,
                    thread_id: thread,
                    locations: Vec::new(),
                });
                *current = Some(self.trace.sources.len() - 1);
            }
            _ => *current = None,
        }
    }

    fn entry(
        &mut self,
        kind: SectionKind,
        thread: u64,
        index: u32,
        line: Line<'a>,
        current: Option<usize>,
    ) {
        match kind {
            SectionKind::ApiTrace(api) => {
                if name_span(line.bytes).is_none() {
                    self.warn(
                        line.number,
                        "API trace line without 'Name (': kept without a name",
                    );
                }
                if let Some(block) =
                    current.and_then(|i| self.trace_blocks.get_mut(&(api, thread))?.get_mut(i))
                {
                    block.offsets.push(line.offset);
                }
            }
            SectionKind::Timestamp(api) => {
                let Some(thread_index) = current else { return };
                if !self.timestamp_line(api, line) {
                    if let Some(block) = self.timestamp_blocks.last_mut() {
                        block.skipped.push(index);
                    }
                    return;
                }
                if let Some(t) = self.trace.threads.get_mut(thread_index) {
                    t.calls.end = index_u32(self.trace.calls.len());
                }
            }
            SectionKind::Perfmarker => self.perfmarker_line(thread, line),
            SectionKind::SourceCode(_) => {
                if let Some(location) =
                    super::source::parse_source_line(line.bytes, &mut self.trace.names)
                {
                    if let Some(t) = current.and_then(|i| self.trace.sources.get_mut(i)) {
                        t.locations.push(location);
                    }
                } else {
                    self.warn(
                        line.number,
                        "source-code line without API name, function and line number: skipped",
                    );
                }
            }
            SectionKind::KernelTimestamp | SectionKind::Unknown => {}
        }
    }

    /// Parses a timestamp line and pushes its call (and enqueue command or copy); false when
    /// the line is malformed (warned).
    fn timestamp_line(&mut self, api: Api, line: Line<'a>) -> bool {
        if self.trace.calls.len() >= u32::MAX as usize - 1 {
            self.warn(
                line.number,
                "more than 4 billion API calls: the rest is not loaded",
            );
            return false;
        }
        let mut t = tokens(line.bytes);
        let (Some(type_id), Some(name), Some(start), Some(end)) =
            (t.next(), t.next(), t.next(), t.next())
        else {
            self.warn(
                line.number,
                "timestamp line needs 'apiTypeId apiName start end': skipped",
            );
            return false;
        };
        let type_id = parse_u64(type_id).and_then(|v| u32::try_from(v).ok());
        let (Some(type_id), Some(start), Some(end)) = (type_id, parse_u64(start), parse_u64(end))
        else {
            self.warn(
                line.number,
                "timestamp line: type id, start or end is not a number (or the type id is past \
                 2^32 - 1): skipped",
            );
            return false;
        };
        let name_id = self.trace.names.intern(name);
        self.trace.api_type_ids.entry(name_id).or_insert(type_id);
        // Calls stop below `u32::MAX` (checked above): the index fits.
        let call_index = index_u32(self.trace.calls.len());
        self.trace.calls.push(ApiCall::new(start, end, name_id));
        let Some(first_extra) = t.next() else {
            return true;
        };
        match api {
            Api::OpenCl => self.enqueue(call_index, first_extra, &mut t, line.number),
            Api::Hsa => {
                let copy_name = *self
                    .copy_name
                    .get_or_insert_with(|| self.trace.names.intern(b"hsa_amd_memory_async_copy"));
                match (parse_u64(first_extra), t.next().and_then(parse_u64)) {
                    (Some(copy_start), Some(copy_end)) => {
                        if name_id != copy_name {
                            self.warn(
                                line.number,
                                format!(
                                    "transfer times on {}, not hsa_amd_memory_async_copy",
                                    self.trace.names.get(name_id)
                                ),
                            );
                        }
                        self.trace.hsa_copies.push(HsaMemoryCopy {
                            call: call_index,
                            start_ns: copy_start,
                            end_ns: copy_end,
                            bytes: None,
                        });
                    }
                    _ => self.warn(
                        line.number,
                        "HSA timestamp line: extra fields are not two transfer times: ignored",
                    ),
                }
            }
        }
        true
    }

    fn kernel_timestamp_row(&mut self, line: Line<'a>) {
        match super::kernel_ts::parse_kernel_row(line.bytes, &mut self.trace.names) {
            super::kernel_ts::KernelRow::Dispatch(mut dispatch) => {
                dispatch.line = line.number;
                self.trace.hsa_dispatches.push(dispatch);
            }
            super::kernel_ts::KernelRow::OtherPacket => self.trace.skipped_packets += 1,
            super::kernel_ts::KernelRow::Malformed(why) => {
                self.warn(line.number, format!("kernel timestamp row: {why}: skipped"))
            }
        }
    }

    fn perfmarker_line(&mut self, thread: u64, line: Line<'a>) {
        use super::perfmarker::{MarkerLine, parse_marker_line};
        match parse_marker_line(line.bytes) {
            Some(MarkerLine::Begin { name, group, time_ns }) => {
                let stack = self.marker_stacks.entry(thread).or_default();
                let depth = index_u32(stack.len());
                stack.push(self.trace.perfmarkers.len());
                let (name, group) = (self.trace.names.intern_str(&name), self.trace.names.intern_str(&group));
                self.trace.perfmarkers.push(Perfmarker { start_ns: time_ns, end_ns: Perfmarker::OPEN, thread_id: thread, name, group, depth });
            }
            Some(MarkerLine::End { time_ns, name_group }) => {
                let open = self.marker_stacks.get_mut(&thread).and_then(Vec::pop);
                let ids = name_group.map(|(name, group)| (self.trace.names.intern_str(&name), self.trace.names.intern_str(&group)));
                match open.and_then(|i| self.trace.perfmarkers.get_mut(i)) {
                    Some(marker) => {
                        marker.end_ns = time_ns;
                        if let Some((name, group)) = ids {
                            marker.name = name;
                            marker.group = group;
                        }
                    }
                    None => self.warn(line.number, format!("perfmarker end on thread {thread} without a begin: ignored")),
                }
            }
            None => self.warn(line.number, "perfmarker line is not clBeginPerfMarker/clEndPerfMarker/clEndPerfMarkerEx: skipped"),
        }
    }

    /// Attaches trace lines to calls, HSA copy sizes, and reports what stayed unmatched.
    fn finish(&mut self) {
        let open: usize = self.marker_stacks.values().map(Vec::len).sum();
        if open > 0 {
            self.warn(0, format!("{open} perfmarker(s) never ended"));
        }
        let mut occurrence: HashMap<(Api, u64), usize> = HashMap::new();
        let blocks = std::mem::take(&mut self.timestamp_blocks);
        for block in &blocks {
            let Some(thread) = self.trace.threads.get(block.thread).cloned() else {
                continue;
            };
            let key = (thread.api, thread.thread_id);
            let k = occurrence.entry(key).or_default();
            let trace_block = self
                .trace_blocks
                .get_mut(&key)
                .and_then(|b| b.get_mut(*k))
                .map(|b| std::mem::take(&mut b.offsets));
            *k += 1;
            let Some(offsets) = trace_block else {
                self.warn(
                    thread.first_line,
                    format!(
                        "{} thread {}: no API trace block: calls have no arguments",
                        thread.api.label(),
                        thread.thread_id
                    ),
                );
                continue;
            };
            self.attach(&thread, block, &offsets);
        }
        // Trace blocks without timestamps: calls without times, so the arguments are not lost.
        let mut leftovers: Vec<((Api, u64), usize, TraceBlock)> = Vec::new();
        for (key, list) in self.trace_blocks.drain() {
            let used = occurrence.get(&key).copied().unwrap_or(0);
            for (i, block) in list.into_iter().enumerate().skip(used) {
                leftovers.push((key, i, block));
            }
        }
        leftovers.sort_by_key(|(key, i, _)| (*key, *i));
        for ((api, thread_id), _, block) in leftovers {
            self.warn(
                block.line,
                format!(
                    "{} thread {thread_id}: {} API trace lines without timestamps: times are 0",
                    api.label(),
                    block.offsets.len()
                ),
            );
            let start = index_u32(self.trace.calls.len());
            for &offset in &block.offsets {
                if self.trace.calls.len() >= u32::MAX as usize - 1 {
                    break;
                }
                let line = text::line_at(self.data, offset);
                let name = name_span(line).map_or(&b""[..], |(s, e)| &line[s..e]);
                let mut call = ApiCall::new(0, 0, self.trace.names.intern(name));
                call.set_trace_offset(offset);
                self.trace.calls.push(call);
            }
            let end = index_u32(self.trace.calls.len());
            self.trace.threads.push(ApiThread {
                api,
                thread_id,
                calls: start..end,
                first_line: block.line,
            });
        }
        if let Some(copy_name) = self.copy_name {
            for i in 0..self.trace.hsa_copies.len() {
                let copy = self.trace.hsa_copies[i];
                let Some(call) = self.trace.calls.get(copy.call as usize) else {
                    continue;
                };
                if call.name() != copy_name {
                    continue;
                }
                let bytes = call.trace_offset().and_then(|offset| {
                    let parsed = super::api_line::parse_api_line(text::line_at(self.data, offset))?;
                    parse_u64(parsed.args.get(4)?.as_bytes())
                });
                self.trace.hsa_copies[i].bytes = bytes;
            }
        }
        self.trace.calls.shrink_to_fit();
        self.trace.enqueues.shrink_to_fit();
        self.trace.hsa_copies.shrink_to_fit();
        self.trace.hsa_dispatches.shrink_to_fit();
        self.trace.perfmarkers.shrink_to_fit();
        let warnings = std::mem::replace(&mut self.warnings, CappedProblems::new(0));
        (self.trace.warnings, self.trace.warnings_dropped) = warnings.into_parts();
    }

    fn attach(&mut self, thread: &ApiThread, block: &TimestampBlock, offsets: &[u64]) {
        let calls = thread.calls.start as usize..thread.calls.end as usize;
        let positions = calls.len() + block.skipped.len();
        if positions != offsets.len() {
            self.warn(
                thread.first_line,
                format!(
                    "{} thread {}: {} API trace lines but {} timestamp lines: paired in order",
                    thread.api.label(),
                    thread.thread_id,
                    offsets.len(),
                    positions
                ),
            );
        }
        let mut skipped = block.skipped.iter().peekable();
        let mut call_index = calls.start;
        for (position, &offset) in offsets.iter().enumerate() {
            if skipped.peek().is_some_and(|&&p| p as usize == position) {
                skipped.next();
                continue;
            }
            if call_index >= calls.end {
                break;
            }
            let call = self.trace.calls[call_index];
            let line = text::line_at(self.data, offset);
            let trace_name = name_span(line).map(|(s, e)| &line[s..e]);
            let expected = self.trace.names.get(call.name()).as_bytes();
            if trace_name != Some(expected)
                && trace_name.map(|n| decode(n)).as_deref()
                    != Some(self.trace.names.get(call.name()))
            {
                self.warn(thread.first_line, format!(
                    "{} thread {}: call {} is {:?} in the API trace but {:?} in the timestamps: the rest of the thread has no arguments",
                    thread.api.label(), thread.thread_id, position,
                    trace_name.map(|n| decode(n).into_owned()).unwrap_or_default(),
                    self.trace.names.get(call.name())
                ));
                return;
            }
            self.trace.calls[call_index].set_trace_offset(offset);
            call_index += 1;
        }
    }
}
