//! The NvRules enums (the model's [`sightline_model::ncu::nvrules`] constants), and what only
//! the rule system's `IFrontend` has.

pub(crate) use sightline_model::ncu::nvrules::{
    class_constants, marker_kind, metric_subtype, msg_types, name_base, rollup, value_kind,
};

/// `IFrontend.deprecated_attributes` (2025.3): old constant names and their replacements.
pub(crate) const DEPRECATED_FRONTEND_CONSTANTS: [(&str, &str); 7] = [
    ("MarkerKind_SASS", "MarkerKind.SASS"),
    ("MarkerKind_SOURCE", "MarkerKind.SOURCE"),
    ("MsgType_MSG_NONE", "MsgType.NONE"),
    ("MsgType_MSG_OK", "MsgType.OK"),
    ("MsgType_MSG_OPTIMIZATION", "MsgType.OPTIMIZATION"),
    ("MsgType_MSG_WARNING", "MsgType.WARNING"),
    ("MsgType_MSG_ERROR", "MsgType.ERROR"),
];
