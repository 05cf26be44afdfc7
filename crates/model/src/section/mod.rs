//! Section files (`.section`, `.chart`) and the Details model: parsing, search paths, which
//! sections a kernel uses (`choice`), metric options and filters, derived metrics, resolution
//! for one action, and value formatting.

mod baseline;
mod breakdown;
mod choice;
pub(crate) mod derived;
pub(crate) mod details;
pub(crate) mod filter;
pub mod memory;
mod overview;
mod parse;
mod registry;
pub mod system;
mod watch;
pub use baseline::{
    BaselineEntries, BaselineSpec, Compared, Difference, NOT_AVAILABLE, match_all, match_by_name,
    number,
};
pub use choice::{SectionChoice, SectionSource};
pub use derived::{
    DerivedError, Expression, Function, MAX_DEPTH, Operand, Operator, Semantics, derive_all,
    derive_all_with, evaluate, evaluate_with, parse_expression, section_definitions,
};
pub use details::{
    ChartAxes, ChartAxis, DetailsSection, Entry, FixedWidget, HotSpots, Item, ItemKind,
    KernelDetails, Roofline, RooflinePoint, TableLayout, breakdown_label, resolve_action,
    resolve_action_for, resolve_chart,
};
pub use filter::Target;
pub use overview::{OverviewBuilder, OverviewColumns, OverviewRow, gpu_rollup};
pub use parse::{
    CHART_MESSAGE, Parsed, SECTION_MESSAGE, Severity, descriptor_pool, parse_chart,
    parse_chart_file, parse_section, parse_section_file, parse_text_format,
};
pub use registry::{
    BUNDLED_RULES, LoadedSection, SectionFolder, SectionOrigin, SectionSet,
    deploy_bundled_sections, deployed_section_folder, search_path, timeline_rules_folder,
};
pub use watch::{FolderWatcher, WatchError, is_watched_file};
