mod buffer;
mod callable;
mod iter;
mod mapping;
mod number;
mod object;
mod sequence;

pub use buffer::{BufferDescriptor, BufferMethods, BufferResizeGuard, PyBuffer, VecBuffer};
pub use callable::PyCallable;
pub(crate) use callable::TraceEvent;
pub use iter::{PyIter, PyIterIter, PyIterReturn};
pub use mapping::{PyMapping, PyMappingMethods, PyMappingSlots};
pub use number::{
    PyNumber, PyNumberBinaryFunc, PyNumberBinaryOp, PyNumberMethods, PyNumberSlots,
    PyNumberTernaryFunc, PyNumberTernaryOp, PyNumberUnaryFunc, handle_bytes_to_int_err,
};
pub use sequence::{PySequence, PySequenceMethods, PySequenceSlots};
