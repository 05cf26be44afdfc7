//! The projection's parameters (clock, block size, retention times, areas, energies), read from
//! TOML. The defaults (`params.toml`, embedded) reproduce the seed's worked example.

use std::path::Path;

use serde::Deserialize;

use super::GainsightError;

/// The embedded default parameter file, documented key by key.
pub const DEFAULT_PARAMS_TOML: &str = include_str!("params.toml");

/// Why [`Params::validate`] rejects parameters: a value the formulas cannot use.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ParamsError {
    /// A value that must be a finite positive number is not.
    #[error("{name} must be a positive number, got {value}")]
    NotPositive {
        /// The key (`clock_mhz`, ``retention `Oxide`.retention_us``...).
        name: String,
        /// The value given.
        value: f64,
    },
    /// `block_size_bytes` is 0.
    #[error("block_size_bytes must be positive")]
    BlockSize,
    /// `l1_default_size_bytes` or `l2_size_bytes` is 0.
    #[error("level sizes must be positive")]
    LevelSizes,
}

/// A value per cache level.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PerLevel {
    /// The L1 value.
    pub l1: f64,
    /// The L2 value.
    pub l2: f64,
}

impl PerLevel {
    /// The value of `level`.
    pub fn get(&self, level: super::Level) -> f64 {
        match level {
            super::Level::L1 => self.l1,
            super::Level::L2 => self.l2,
        }
    }
}

/// A gain-cell type of the refresh projection.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RetentionCell {
    /// Its name, a key of the JSON report ("5nm Silicon").
    pub name: String,
    /// Retention time in µs.
    pub retention_us: f64,
    /// Energy of one read access in pJ, per level (optional).
    pub read_energy_pj: Option<PerLevel>,
    /// Energy of one refresh in pJ, per level (optional).
    pub refresh_energy_pj: Option<PerLevel>,
}

/// A memory technology of the area projection.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AreaCell {
    /// Its name, a key of the JSON report ("sram").
    pub name: String,
    /// Cell factor K of `bits × K / divisor`.
    pub cell_factor: f64,
    /// Compute `(bits / divisor) × K` instead (the example's silicon order).
    #[serde(default)]
    pub divide_first: bool,
}

/// The area projection.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AreaParams {
    /// Divisor of the area formula (100 × array efficiency).
    pub divisor: f64,
    /// Capacity of L1 in bits.
    pub l1_capacity_bits: f64,
    /// Capacity of L2 in bits.
    pub l2_capacity_bits: f64,
    /// Technologies, in the report's order.
    pub cells: Vec<AreaCell>,
}

/// SRAM figures of the energy comparison.
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SramParams {
    /// Energy of one SRAM read access in pJ, per level.
    pub read_energy_pj: Option<PerLevel>,
}

/// All parameters of a Gainsight analysis.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Params {
    /// Core clock in MHz.
    pub clock_mhz: f64,
    /// Bytes per cache block (utilization).
    pub block_size_bytes: u64,
    /// L1 size for kernels without a reconfiguration line.
    pub l1_default_size_bytes: u64,
    /// L2 size in bytes.
    pub l2_size_bytes: u64,
    /// Gain-cell types of the refresh projection.
    pub retention: Vec<RetentionCell>,
    /// The area projection.
    pub area: AreaParams,
    /// SRAM energies.
    #[serde(default)]
    pub sram: SramParams,
}

impl Default for Params {
    fn default() -> Self {
        // The embedded file is checked by a unit test; a broken edit fails that test.
        Params::from_toml_str(DEFAULT_PARAMS_TOML).unwrap_or_else(|_| Params::fallback())
    }
}

impl Params {
    /// Nanoseconds per cycle, `1000 / clock_mhz` (the frontend's `p`).
    pub fn ns_per_cycle(&self) -> f64 {
        1000.0 / self.clock_mhz
    }

    /// Parses a complete parameter text layered over the defaults: keys the text leaves out
    /// keep their default value (arrays are replaced whole).
    pub fn from_toml_str(text: &str) -> Result<Params, GainsightError> {
        let bad = |message: String| GainsightError::Params {
            path: String::from("<params>"),
            message,
        };
        let mut base: toml::Table = DEFAULT_PARAMS_TOML
            .parse()
            .map_err(|e: toml::de::Error| bad(e.to_string()))?;
        let over: toml::Table = text
            .parse()
            .map_err(|e: toml::de::Error| bad(e.to_string()))?;
        merge(&mut base, over);
        let params: Params = toml::Value::Table(base)
            .try_into()
            .map_err(|e: toml::de::Error| bad(e.to_string()))?;
        params.validate().map_err(|e| bad(e.to_string()))?;
        Ok(params)
    }

    /// Reads a parameter file layered over the defaults.
    pub fn load(path: &Path) -> Result<Params, GainsightError> {
        let text = std::fs::read_to_string(path).map_err(|source| GainsightError::Io {
            path: path.display().to_string(),
            source,
        })?;
        Params::from_toml_str(&text).map_err(|e| match e {
            GainsightError::Params { message, .. } => GainsightError::Params {
                path: path.display().to_string(),
                message,
            },
            other => other,
        })
    }

    /// Rejects values the formulas cannot use.
    pub fn validate(&self) -> Result<(), ParamsError> {
        let positive = |name: &str, v: f64| {
            if v.is_finite() && v > 0.0 {
                Ok(())
            } else {
                Err(ParamsError::NotPositive {
                    name: name.to_owned(),
                    value: v,
                })
            }
        };
        positive("clock_mhz", self.clock_mhz)?;
        positive("area.divisor", self.area.divisor)?;
        if self.block_size_bytes == 0 {
            return Err(ParamsError::BlockSize);
        }
        if self.l1_default_size_bytes == 0 || self.l2_size_bytes == 0 {
            return Err(ParamsError::LevelSizes);
        }
        for cell in &self.retention {
            positive(
                &format!("retention `{}`.retention_us", cell.name),
                cell.retention_us,
            )?;
        }
        Ok(())
    }

    /// The parameters as they are documented, used only if the embedded file were unreadable.
    fn fallback() -> Params {
        let cell = |name: &str, retention_us: f64| RetentionCell {
            name: name.into(),
            retention_us,
            read_energy_pj: None,
            refresh_energy_pj: None,
        };
        let area = |name: &str, cell_factor: f64, divide_first: bool| AreaCell {
            name: name.into(),
            cell_factor,
            divide_first,
        };
        Params {
            clock_mhz: 2235.0,
            block_size_bytes: 32,
            l1_default_size_bytes: 131072,
            l2_size_bytes: 52428800,
            retention: vec![
                cell("5nm Silicon", 1.0),
                cell("16nm Silicon", 100.0),
                cell("Hybrid", 10.0),
                cell("Oxide", 1_000_000.0),
            ],
            area: AreaParams {
                divisor: 75.0,
                l1_capacity_bits: 1_048_576.0,
                l2_capacity_bits: 524_288.0,
                cells: vec![
                    area("sram", 121.0, false),
                    area("silicon", 62.92, true),
                    area("hybrid", 62.5, false),
                    area("oxide", 96.0, false),
                ],
            },
            sram: SramParams::default(),
        }
    }
}

/// Recursively overlays `over` on `base`: tables merge, other values replace.
fn merge(base: &mut toml::Table, over: toml::Table) {
    for (key, value) in over {
        match (base.get_mut(&key), value) {
            (Some(toml::Value::Table(inner)), toml::Value::Table(over_inner)) => {
                merge(inner, over_inner)
            }
            (_, value) => {
                base.insert(key, value);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_defaults_parse_and_match_the_documented_fallback() {
        let parsed = Params::from_toml_str("").expect("embedded params.toml");
        assert_eq!(parsed, Params::fallback());
    }

    #[test]
    fn partial_override_keeps_other_defaults() {
        let p = Params::from_toml_str("clock_mhz = 1000.0\n[area]\ndivisor = 50.0\n").unwrap();
        assert_eq!(p.clock_mhz, 1000.0);
        assert_eq!(p.area.divisor, 50.0);
        assert_eq!(p.area.cells.len(), 4);
        assert_eq!(p.retention.len(), 4);
    }

    #[test]
    fn bad_values_are_errors() {
        assert!(Params::from_toml_str("clock_mhz = 0.0").is_err());
        assert!(Params::from_toml_str("clock_mhz = \"fast\"").is_err());
        assert!(Params::from_toml_str("unknown_key = 1").is_err());
        assert!(Params::from_toml_str("[[retention]]\nname = \"x\"\nretention_us = -1.0").is_err());
    }
}
