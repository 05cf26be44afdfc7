//! A recipe's options typed as text (the app's option fields): each [`RecipeOption`] parsed
//! into its field of [`RecipeOptions`], with the value it takes and its default, for hints.

use super::{RecipeOption, RecipeOptions};

impl RecipeOption {
    /// What the option's value is (`NS`, `RANGE[@DOMAIN]`), as `--help` names it.
    pub fn value_name(self) -> &'static str {
        match self {
            RecipeOption::Start | RecipeOption::End => "NS",
            RecipeOption::Nvtx => "RANGE[@DOMAIN]",
            RecipeOption::Rows | RecipeOption::Chunks | RecipeOption::Bins => "N",
            RecipeOption::Gap => "MS",
            RecipeOption::Threshold => "PERCENT",
            RecipeOption::Name => "NAME",
            RecipeOption::Cumulative => "",
        }
    }

    /// Whether the option is a flag without a value (`--cumulative`): given or not.
    pub fn is_flag(self) -> bool {
        matches!(self, RecipeOption::Cumulative)
    }

    /// What the option does, in one line.
    pub fn about(self) -> &'static str {
        match self {
            RecipeOption::Start => "Only what ends at or after this time (ns, the export's clock)",
            RecipeOption::End => "Only what starts before this time (ns, the export's clock)",
            RecipeOption::Nvtx => "Only what overlaps the first instance of this NVTX range",
            RecipeOption::Rows => "At most this many rows per input file",
            RecipeOption::Gap => "The shortest GPU gap listed, in milliseconds (default 500)",
            RecipeOption::Threshold => {
                "List the chunks used less than this percentage of their time (default 50)"
            }
            RecipeOption::Chunks => "The number of equal chunks of each GPU's time (default 30)",
            RecipeOption::Name => "The NVTX range (its text) or kernel (its short name) to follow",
            RecipeOption::Bins => "The number of bins of the heat map (default 30)",
            RecipeOption::Cumulative => {
                "Add up the time of overlapping events in each bin (may exceed 100 %)"
            }
        }
    }
}

impl RecipeOptions {
    /// Sets `option` from `text` (trimmed; empty: not given; a flag is given by `true`). The
    /// error says what the option takes.
    pub fn set_text(&mut self, option: RecipeOption, text: &str) -> Result<(), String> {
        let text = text.trim();
        let given = !text.is_empty();
        let bad = || {
            format!(
                "--{} takes {}, not {text:?}",
                option.flag(),
                option.value_name()
            )
        };
        match option {
            RecipeOption::Start => self.start = parse(text, bad)?,
            RecipeOption::End => self.end = parse(text, bad)?,
            RecipeOption::Nvtx => self.nvtx = given.then(|| text.to_owned()),
            RecipeOption::Rows => self.rows = parse(text, bad)?,
            RecipeOption::Gap => {
                self.gap = parse::<f64>(text, bad)?;
                if self.gap.is_some_and(|g| !g.is_finite() || g < 0.0) {
                    return Err(bad());
                }
            }
            RecipeOption::Threshold => self.threshold = parse(text, bad)?,
            RecipeOption::Chunks => {
                self.chunks = parse(text, bad)?;
                if self.chunks.is_some_and(|c| !(1..=10_000).contains(&c)) {
                    return Err(format!("--chunks takes 1 to 10000, not {text}"));
                }
            }
            RecipeOption::Name => self.name = given.then(|| text.to_owned()),
            RecipeOption::Bins => {
                self.bins = parse(text, bad)?;
                if self.bins == Some(0) {
                    return Err("--bins takes at least 1".to_owned());
                }
            }
            RecipeOption::Cumulative => match text {
                "" | "false" => self.cumulative = false,
                "true" => self.cumulative = true,
                _ => return Err(format!("--cumulative is a flag, not {text:?}")),
            },
        }
        Ok(())
    }
}

/// `text` parsed (`None` when empty).
fn parse<T: std::str::FromStr>(text: &str, bad: impl Fn() -> String) -> Result<Option<T>, String> {
    if text.is_empty() {
        return Ok(None);
    }
    text.parse().map(Some).map_err(|_| bad())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_parse_from_text_and_say_what_they_take() {
        let mut o = RecipeOptions::default();
        o.set_text(RecipeOption::Start, " 1500 ").unwrap();
        o.set_text(RecipeOption::Nvtx, "step@NCCL").unwrap();
        o.set_text(RecipeOption::Gap, "0.25").unwrap();
        o.set_text(RecipeOption::Chunks, "12").unwrap();
        assert_eq!(o.start, Some(1500));
        assert_eq!(o.nvtx.as_deref(), Some("step@NCCL"));
        assert_eq!(o.gap, Some(0.25));
        assert_eq!(o.chunks, Some(12));
        o.set_text(RecipeOption::Start, "").unwrap();
        assert_eq!(o.start, None);
        let e = o.set_text(RecipeOption::Rows, "ten").unwrap_err();
        assert_eq!(e, "--rows takes N, not \"ten\"");
        assert!(o.set_text(RecipeOption::Gap, "-1").is_err());
        assert!(o.set_text(RecipeOption::Chunks, "0").is_err());
        o.set_text(RecipeOption::Cumulative, "true").unwrap();
        o.set_text(RecipeOption::Bins, "12").unwrap();
        assert!(o.cumulative);
        assert_eq!(o.bins, Some(12));
        assert!(o.set_text(RecipeOption::Bins, "0").is_err());
    }
}
