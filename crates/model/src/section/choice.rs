//! Which sections a kernel's Details page is resolved against: the one rule that the `details`
//! command, the app and the tests share.
//!
//! A kernel uses the sections embedded in its report when it has some and embedded sections are
//! preferred; otherwise the sections of the search path: the folders given (`--section-folder`,
//! the app's settings), else the default path (the deployed bundled sections, or the bundled
//! copies in memory when deployment is disabled or impossible; see [`search_path`]).
//!
//! Who prefers embedded sections: the `details` command exactly when no folder was given
//! ([`SectionChoice::new`]), so explicit folders always win there; the app by its setting (on
//! by default; explicit folders then apply to kernels without embedded sections).

use std::borrow::Cow;

use super::registry::{SectionFolder, SectionSet, search_path};
use crate::ncu::Action;

/// Where a kernel's sections come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SectionSource {
    /// The sections embedded in the report.
    Embedded,
    /// The section folders of the search path.
    Folders,
}

impl SectionSource {
    /// The rule: the embedded sections when they are preferred and `action` has any, else the
    /// search path's.
    pub fn for_action(action: &Action, prefer_embedded: bool) -> SectionSource {
        if prefer_embedded && action.num_sections() > 0 {
            SectionSource::Embedded
        } else {
            SectionSource::Folders
        }
    }
}

/// The section sets of a report's kernels under the rule of this module: the search path's set
/// is loaded once, on first use (loading the default path deploys the bundled sections), and
/// embedded sets are decoded per kernel.
#[derive(Debug)]
pub struct SectionChoice {
    folders: Vec<SectionFolder>,
    prefer_embedded: bool,
    folder_set: Option<SectionSet>,
}

impl SectionChoice {
    /// The `details` command's choice: the given `folders` when there are any, else each
    /// kernel's embedded sections when it has some, else the default search path.
    pub fn new(folders: Vec<SectionFolder>) -> SectionChoice {
        SectionChoice {
            prefer_embedded: folders.is_empty(),
            folders,
            folder_set: None,
        }
    }

    /// The folders given (empty: the default path).
    pub fn folders(&self) -> &[SectionFolder] {
        &self.folders
    }

    /// Where the sections of `action` come from.
    pub fn source(&self, action: &Action) -> SectionSource {
        SectionSource::for_action(action, self.prefer_embedded)
    }

    /// The sections of the search path, loaded on first use.
    pub fn folder_set(&mut self) -> &SectionSet {
        let folders = &self.folders;
        self.folder_set
            .get_or_insert_with(|| SectionSet::load_search_path(&search_path(folders)))
    }

    /// The sections to resolve `action` against; fails when its embedded sections are chosen
    /// and do not decode.
    pub fn sections_for(
        &mut self,
        action: &Action,
    ) -> Result<Cow<'_, SectionSet>, prost::DecodeError> {
        Ok(match self.source(action) {
            SectionSource::Embedded => Cow::Owned(SectionSet::from_embedded(action.sections()?)),
            SectionSource::Folders => Cow::Borrowed(self.folder_set()),
        })
    }
}
