//! The Details page in tests: resolving a kernel's page, finding its items, and drawing it in
//! a `DetailsPanel` headless (egui_kittest).

use eframe::egui;
use egui_kittest::Harness;
use sightline::app::ViewCtx;
use sightline::app::ncu::details::DetailsPanel;
use sightline::app::ncu::rule_state::PageRules;
use sightline::ncu::{Action, Report};
use sightline::section::{
    DetailsSection, Item, KernelDetails, SectionSet, SectionSource, resolve_action,
};

/// The kernel's page under the model's rule with embedded sections preferred, as in
/// `sightline details`: the report's embedded sections, else the bundled ones (standing in for
/// the default search path, whose loading would deploy them into the user's data folder).
pub fn page(action: &Action) -> KernelDetails {
    let set = match SectionSource::for_action(action, true) {
        SectionSource::Embedded => {
            SectionSet::from_embedded(action.sections().expect("embedded sections decode"))
        }
        SectionSource::Folders => SectionSet::bundled(),
    };
    resolve_action(action, &set)
}

/// The body items of a page for which `wanted` holds, depth first (containers and child
/// sections included).
pub fn items_where(page: &KernelDetails, wanted: impl Fn(&Item) -> bool) -> Vec<&Item> {
    fn section<'a>(s: &'a DetailsSection, wanted: &dyn Fn(&Item) -> bool, out: &mut Vec<&'a Item>) {
        for item in &s.body {
            walk(item, wanted, out);
        }
        s.children.iter().for_each(|c| section(c, wanted, out));
    }
    fn walk<'a>(item: &'a Item, wanted: &dyn Fn(&Item) -> bool, out: &mut Vec<&'a Item>) {
        if wanted(item) {
            out.push(item);
        }
        item.items.iter().for_each(|i| walk(i, wanted, out));
    }
    let mut out = Vec::new();
    page.sections
        .iter()
        .for_each(|s| section(s, &wanted, &mut out));
    out
}

/// Equal to 1e-9, relative (absolute below 1).
pub fn close(a: f64, b: f64) -> bool {
    // NaN is the value NVIDIA stores for a counter that failed (a real H800 kernel holds ~600):
    // NaN equals NaN here, an infinity only itself.
    (a.is_nan() && b.is_nan()) || a == b || (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

/// A Details panel `height` pixels tall drawing `page` of `action` in `report`, no rules applied.
pub fn panel_harness<'a>(
    report: &'a Report,
    action: &'a Action,
    page: &'a KernelDetails,
    height: f32,
) -> Harness<'a, DetailsPanel> {
    Harness::builder()
        .with_size(egui::vec2(1200.0, height))
        .with_max_steps(30)
        .build_ui_state(
            move |ui, panel: &mut DetailsPanel| {
                let ctx = ViewCtx {
                    report,
                    action,
                    details: page,
                    rules: &PageRules::default(),
                };
                panel.ui(ui, &ctx);
            },
            DetailsPanel::new(),
        )
}

/// Every body item of the first kernel of a `details --json` output, the items of child
/// sections included, in page order.
pub fn json_body_items(json: &serde_json::Value) -> Vec<&serde_json::Value> {
    fn collect<'a>(section: &'a serde_json::Value, out: &mut Vec<&'a serde_json::Value>) {
        out.extend(section["body"].as_array().into_iter().flatten());
        for child in section["children"].as_array().into_iter().flatten() {
            collect(child, out);
        }
    }
    let mut items = Vec::new();
    for section in json["kernels"][0]["sections"]
        .as_array()
        .into_iter()
        .flatten()
    {
        collect(section, &mut items);
    }
    items
}
