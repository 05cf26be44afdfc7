//! OpenCL enqueue lines: a device command's kind, queue, timestamps and payload (a transfer
//! size or a kernel launch), each kind, queue, size and launch stored once.

use super::Parser;
use crate::core::num::index_u32;
use crate::timeline::atp::model::*;
use crate::timeline::atp::text::{self, decode, parse_handle, parse_u64};

/// The numeric fields of an enqueue line, in file order.
struct CommandFields {
    /// The command type id.
    cmd_type: u32,
    /// The queued, submit, start and end timestamps.
    times: [u64; 4],
    /// The queue id.
    queue_id: u32,
    /// The queue handle.
    queue_handle: u64,
    /// The context id.
    context_id: u32,
    /// The context handle.
    context_handle: u64,
}

impl<'a> Parser<'a> {
    /// Reads the command fields after an OpenCL enqueue call and records the device command;
    /// a line with missing or unreadable fields is warned about and skipped.
    pub(super) fn enqueue(
        &mut self,
        call: u32,
        cmd_type: &[u8],
        t: &mut text::Tokens<'a>,
        line: u64,
    ) {
        let Some((cmd_name, fields, device)) = self.command_fields(cmd_type, t, line) else {
            return;
        };
        let Some(kind) = self.command_kind(fields.cmd_type, cmd_name, line) else {
            return;
        };
        let queue = self.command_queue(&fields, device);
        let rest: Vec<&[u8]> = t.collect();
        let payload = self.command_payload(&rest, line);
        self.trace.enqueues.push(EnqueueCommand::new(
            fields.times,
            call,
            queue,
            kind,
            payload,
        ));
    }

    /// The command name, the numeric fields and the device name of an enqueue line; `None`
    /// (with a warning) when a field is missing or not a number or handle, or an id (command
    /// type, queue, context) does not fit in 32 bits.
    fn command_fields(
        &mut self,
        cmd_type: &[u8],
        t: &mut text::Tokens<'a>,
        line: u64,
    ) -> Option<(&'a [u8], CommandFields, &'a [u8])> {
        let fields: [Option<&[u8]>; 10] = std::array::from_fn(|_| t.next());
        let [
            Some(cmd_name),
            Some(queued),
            Some(submit),
            Some(start),
            Some(end),
            Some(queue_id),
            Some(queue_handle),
            Some(context_id),
            Some(context_handle),
            Some(device),
        ] = fields
        else {
            self.warn(
                line,
                "enqueue line: fewer than the 11 command fields: device command not loaded",
            );
            return None;
        };
        let id = |bytes: &[u8]| parse_u64(bytes).and_then(|v| u32::try_from(v).ok());
        let numbers = (
            id(cmd_type),
            parse_u64(queued),
            parse_u64(submit),
            parse_u64(start),
            parse_u64(end),
            id(queue_id),
            parse_handle(queue_handle),
            id(context_id),
            parse_handle(context_handle),
        );
        let (
            Some(cmd_type),
            Some(queued),
            Some(submit),
            Some(start),
            Some(end),
            Some(queue_id),
            Some(queue_handle),
            Some(context_id),
            Some(context_handle),
        ) = numbers
        else {
            self.warn(line, "enqueue line: a command field is not a number or handle (or an id past 2^32 - 1): device command not loaded");
            return None;
        };
        let fields = CommandFields {
            cmd_type,
            times: [queued, submit, start, end],
            queue_id,
            queue_handle,
            context_id,
            context_handle,
        };
        Some((cmd_name, fields, device))
    }

    /// The index of the command kind (type id and name), added on first use; `None` (with a
    /// warning) past 65535 kinds.
    fn command_kind(&mut self, cmd_type: u32, cmd_name: &[u8], line: u64) -> Option<u16> {
        let kind_key = (cmd_type, cmd_name.to_vec());
        if let Some(&k) = self.kinds.get(&kind_key) {
            return Some(k);
        }
        let Some(k) = u16::try_from(self.trace.command_kinds.len())
            .ok()
            .filter(|&k| k < u16::MAX)
        else {
            self.warn(
                line,
                "more than 65535 command kinds: device command not loaded",
            );
            return None;
        };
        self.trace.command_kinds.push(CommandKind {
            type_id: cmd_type,
            name: decode(cmd_name).into_owned(),
        });
        self.kinds.insert(kind_key, k);
        Some(k)
    }

    /// The index of the command queue (queue, context and device), added on first use.
    fn command_queue(&mut self, fields: &CommandFields, device: &[u8]) -> u32 {
        let device = self.trace.names.intern(device);
        let queue_key = (
            fields.queue_id,
            fields.queue_handle,
            fields.context_id,
            fields.context_handle,
            device,
        );
        if let Some(&q) = self.queues.get(&queue_key) {
            return q;
        }
        let q = index_u32(self.trace.queues.len());
        self.trace.queues.push(CommandQueue {
            queue_id: fields.queue_id,
            queue_handle: fields.queue_handle,
            context_id: fields.context_id,
            context_handle: fields.context_handle,
            device,
        });
        self.queues.insert(queue_key, q);
        q
    }

    /// The payload of the fields after the device name: nothing, a transfer size, or a kernel
    /// launch (handle, name, global and local work sizes); unreadable fields are warned about.
    fn command_payload(&mut self, rest: &[&[u8]], line: u64) -> CommandPayload {
        match rest {
            [] => CommandPayload::None,
            [size] => match parse_u64(size) {
                Some(bytes) => CommandPayload::Transfer(self.transfer_size(bytes)),
                None => {
                    self.warn(
                        line,
                        format!(
                            "enqueue line: transfer size {:?} is not a number",
                            decode(size)
                        ),
                    );
                    CommandPayload::None
                }
            },
            [.., handle, kernel, global, local] => match self.launch(handle, kernel, global, local)
            {
                Some(index) => {
                    if rest.len() > 4 {
                        self.warn(
                            line,
                            "enqueue line: extra fields before the kernel handle: ignored",
                        );
                    }
                    CommandPayload::Kernel(index)
                }
                None => {
                    self.warn(
                        line,
                        "enqueue line: kernel handle, name or work sizes unreadable",
                    );
                    CommandPayload::None
                }
            },
            _ => {
                self.warn(
                    line,
                    "enqueue line: unexpected fields after the device name: ignored",
                );
                CommandPayload::None
            }
        }
    }

    /// The index of a transfer size, added on first use.
    fn transfer_size(&mut self, bytes: u64) -> u32 {
        *self.sizes.entry(bytes).or_insert_with(|| {
            self.trace.transfer_sizes.push(bytes);
            index_u32(self.trace.transfer_sizes.len() - 1)
        })
    }

    /// The index of a kernel launch (handle, name and work sizes), added on first use;
    /// `None` when a field is unreadable.
    fn launch(&mut self, handle: &[u8], kernel: &[u8], global: &[u8], local: &[u8]) -> Option<u32> {
        let kernel_handle = parse_handle(handle)?;
        let global = text::parse_work_size(global).ok()??;
        let local = text::parse_work_size(local).ok()?;
        let launch = KernelLaunch {
            kernel_handle,
            kernel: self.trace.names.intern(kernel),
            global,
            local,
        };
        if let Some(&index) = self.launches.get(&launch) {
            return Some(index);
        }
        let index = index_u32(self.trace.launches.len());
        self.trace.launches.push(launch.clone());
        self.launches.insert(launch, index);
        Some(index)
    }
}
