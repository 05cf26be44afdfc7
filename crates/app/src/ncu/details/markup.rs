//! Rule-message markup: `@section:`/`@url:`/`@source:` links and styled spans, parsed once
//! in the model ([`parse_markup`]) and drawn here ([`span_ui`]).

use super::*;
pub use sightline_model::ncu::{Span, parse_markup};

pub(super) fn span_ui(ui: &mut Ui, span: &Span, render: &mut Render<'_>) {
    match span {
        Span::Text(text) => {
            ui.label(text.as_str());
        }
        Span::Url { text, link } => {
            ui.hyperlink_to(text.as_str(), link.as_str())
                .on_hover_text(link.as_str());
        }
        Span::Section { id, text } => {
            if render.known.contains(id) {
                let response = ui.link(text.as_str());
                if response.clicked() {
                    render.clicked_section = Some(id.clone());
                }
                response.on_hover_ui(|ui| {
                    ui.label("Go to section");
                    ui.monospace(id.as_str());
                });
            } else {
                ui.label(RichText::new(text.as_str()).italics())
                    .on_hover_ui(|ui| {
                        ui.label("This section is not on the page");
                        ui.monospace(id.as_str());
                    });
            }
        }
        Span::Sass { address, text } => {
            ui.label(RichText::new(text.as_str()).italics().strong())
                .on_hover_ui(|ui| {
                    ui.label("SASS instruction");
                    ui.monospace(address.as_str());
                });
        }
        Span::Source { file, line, text } => {
            ui.label(RichText::new(text.as_str()).italics().strong())
                .on_hover_ui(|ui| {
                    ui.label("Source line");
                    ui.monospace(format!("{file}:{line}"));
                });
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The cache: everything derived from one page.
