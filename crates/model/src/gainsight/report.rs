//! The frontend's JSON report (`NAME.json`): computed from an analysis, written with the seed's
//! keys, order, nesting and Python's `json.dump(indent=4)` layout, and read back.

use std::io::{self, Write};

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

use super::params::Params;
use super::reader::Analysis;
use super::stats::{
    WriteFrequencyStats, area, kernel_cycles, level_frequency, write_frequency_stats,
};
use super::whatif::Selection;
use super::{GainsightError, Level};
use crate::core::num::exact_u64;

/// Named values in the report's order (cell type → refreshes, area, energy).
pub type Named = Vec<(String, f64)>;

/// The JSON report.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct FrontendReport {
    /// "Name": the program.
    pub name: String,
    /// "Date": `YYYY-MM-DD`.
    pub date: String,
    /// "Time": `HH-MM-SS`.
    pub time: String,
    /// "L1/L2 Lifetime Count".
    pub lifetime_count: [u64; 2],
    /// "L1/L2 Write Frequency".
    pub write_frequency: [WriteFrequencyStats; 2],
    /// "L1/L2 Refreshes": per gain-cell type.
    pub refreshes: [Named; 2],
    /// "L1/L2 Area": per technology.
    pub area: [Named; 2],
    /// "L1/L2 Read Energy" (pJ): SRAM and each gain-cell type, when the parameters give them.
    pub read_energy: Option<[Named; 2]>,
    /// "L1/L2 Refresh Energy" (pJ): per gain-cell type, when the parameters give them.
    pub refresh_energy: Option<[Named; 2]>,
}

/// The local date and time as the report writes them (`2025-03-03`, `18-20-21`), in UTC, from
/// `SOURCE_DATE_EPOCH` when set (reproducible outputs), else the clock.
pub fn report_date_time() -> (String, String) {
    let secs = std::env::var("SOURCE_DATE_EPOCH")
        .ok()
        .and_then(|s| s.trim().parse::<i64>().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs() as i64)
        });
    date_time_of(secs)
}

/// `(YYYY-MM-DD, HH-MM-SS)` of a Unix time (UTC).
pub fn date_time_of(secs: i64) -> (String, String) {
    let (year, month, day, rem) = crate::format::civil_utc(secs);
    (
        format!("{year:04}-{month:02}-{day:02}"),
        format!("{:02}-{:02}-{:02}", rem / 3600, rem / 60 % 60, rem % 60),
    )
}

impl FrontendReport {
    /// The report of an analysis under `params`, dated `date`/`time`.
    pub fn compute(
        analysis: &Analysis,
        params: &Params,
        name: &str,
        date: &str,
        time: &str,
    ) -> Self {
        let p = params.ns_per_cycle();
        let mut kernels: Vec<_> = analysis.kernels.iter().collect();
        kernels.sort_by_key(|k| k.id.unwrap_or_default());
        let level_report = |level: Level| {
            let i = level.index();
            let per_kernel: Vec<(f64, u64, u64)> = kernels
                .iter()
                .map(|k| {
                    let t = kernel_cycles(k);
                    (
                        level_frequency(k.writes[i], t, p).unwrap_or(0.0),
                        k.writes[i],
                        t,
                    )
                })
                .collect();
            let lifetimes = analysis.store.level(level);
            let refreshes: Named = params
                .retention
                .iter()
                .map(|c| {
                    let n = lifetimes.refreshes(Selection::All, c.retention_us, params.clock_mhz);
                    (c.name.clone(), n as f64)
                })
                .collect();
            let bits = match level {
                Level::L1 => params.area.l1_capacity_bits,
                Level::L2 => params.area.l2_capacity_bits,
            };
            let areas: Named = params
                .area
                .cells
                .iter()
                .map(|c| {
                    let a = area(bits, c.cell_factor, params.area.divisor, c.divide_first);
                    (c.name.clone(), a)
                })
                .collect();
            let reads: u64 = kernels.iter().map(|k| k.reads[i]).sum();
            let read_energy = params.sram.read_energy_pj.and_then(|sram| {
                let mut named = vec![("sram".to_string(), reads as f64 * sram.get(level))];
                for c in &params.retention {
                    named.push((c.name.clone(), reads as f64 * c.read_energy_pj?.get(level)));
                }
                Some(named)
            });
            let refresh_energy = params
                .retention
                .iter()
                .zip(&refreshes)
                .map(|(c, (_, n))| Some((c.name.clone(), n * c.refresh_energy_pj?.get(level))))
                .collect::<Option<Named>>()
                .filter(|v| !v.is_empty());
            (
                lifetimes.count(Selection::All),
                write_frequency_stats(&per_kernel, p),
                refreshes,
                areas,
                read_energy,
                refresh_energy,
            )
        };
        let (c1, w1, r1, a1, re1, rf1) = level_report(Level::L1);
        let (c2, w2, r2, a2, re2, rf2) = level_report(Level::L2);
        FrontendReport {
            name: name.to_string(),
            date: date.to_string(),
            time: time.to_string(),
            lifetime_count: [c1, c2],
            write_frequency: [w1, w2],
            refreshes: [r1, r2],
            area: [a1, a2],
            read_energy: re1.zip(re2).map(|(a, b)| [a, b]),
            refresh_energy: rf1.zip(rf2).map(|(a, b)| [a, b]),
        }
    }

    /// Writes the report as `json.dump(report, f, indent=4)` does (no trailing newline).
    pub fn write(&self, out: &mut impl Write) -> io::Result<()> {
        let mut w = crate::pyjson::PyJsonWriter::new(out, 4);
        w.begin_object()?;
        w.key_string("Name", &self.name)?;
        w.key_string("Date", &self.date)?;
        w.key_string("Time", &self.time)?;
        for level in Level::ALL {
            w.key_uint(
                &format!("{} Lifetime Count", level.label()),
                self.lifetime_count[level.index()],
            )?;
        }
        for level in Level::ALL {
            let s = &self.write_frequency[level.index()];
            w.key(&format!("{} Write Frequency", level.label()))?;
            w.begin_object()?;
            w.key_float("max", s.max)?;
            w.key_uint("maxidx", s.maxidx)?;
            w.key_float("90%-tile", s.p90)?;
            w.key_float("weighted", s.weighted)?;
            w.end_object()?;
        }
        let named = |w: &mut crate::pyjson::PyJsonWriter<_>, what: &str, values: &[Named; 2]| {
            for level in Level::ALL {
                w.key(&format!("{} {what}", level.label()))?;
                w.begin_object()?;
                for (k, v) in &values[level.index()] {
                    w.key_float(k, *v)?;
                }
                w.end_object()?;
            }
            io::Result::Ok(())
        };
        named(&mut w, "Refreshes", &self.refreshes)?;
        named(&mut w, "Area", &self.area)?;
        if let Some(e) = &self.read_energy {
            named(&mut w, "Read Energy", e)?;
        }
        if let Some(e) = &self.refresh_energy {
            named(&mut w, "Refresh Energy", e)?;
        }
        w.end_object()?;
        Ok(())
    }

    /// Reads a report written by the frontend or by [`FrontendReport::write`].
    pub fn read(name: &str, text: &str) -> Result<FrontendReport, GainsightError> {
        let bad = |message: String| GainsightError::Format {
            path: name.to_string(),
            line: 0,
            message,
        };
        let value: Json = serde_json::from_str(text).map_err(|e| GainsightError::Format {
            path: name.to_string(),
            line: e.line() as u64,
            message: e.to_string(),
        })?;
        let Json::Object(entries) = value else {
            return Err(bad("the report is not a JSON object".into()));
        };
        let get = |key: &str| entries.iter().find(|(k, _)| k == key).map(|(_, v)| v);
        let string = |key: &str| match get(key) {
            Some(Json::String(s)) => Ok(s.clone()),
            _ => Err(bad(format!("`{key}` missing or not a string"))),
        };
        let number = |v: Option<&Json>, key: &str| match v {
            Some(Json::Number(n)) => Ok(*n),
            _ => Err(bad(format!("`{key}` missing or not a number"))),
        };
        let whole = |v: f64, key: &str| {
            exact_u64(v).ok_or_else(|| bad(format!("`{key}` is not a whole number ≥ 0")))
        };
        let named = |key: &str| -> Result<Named, GainsightError> {
            match get(key) {
                Some(Json::Object(items)) => items
                    .iter()
                    .map(|(k, v)| Ok((k.clone(), number(Some(v), &format!("{key}.{k}"))?)))
                    .collect(),
                _ => Err(bad(format!("`{key}` missing or not an object"))),
            }
        };
        let wf = |key: &str| -> Result<WriteFrequencyStats, GainsightError> {
            let Some(Json::Object(items)) = get(key) else {
                return Err(bad(format!("`{key}` missing or not an object")));
            };
            let field = |f: &str| number(items.iter().find(|(k, _)| k == f).map(|(_, v)| v), f);
            Ok(WriteFrequencyStats {
                max: field("max")?,
                maxidx: whole(field("maxidx")?, "maxidx")?,
                p90: field("90%-tile")?,
                weighted: field("weighted")?,
            })
        };
        let optional_pair = |what: &str| -> Result<Option<[Named; 2]>, GainsightError> {
            let (k1, k2) = (format!("L1 {what}"), format!("L2 {what}"));
            if get(&k1).is_none() && get(&k2).is_none() {
                return Ok(None);
            }
            Ok(Some([named(&k1)?, named(&k2)?]))
        };
        Ok(FrontendReport {
            name: string("Name")?,
            date: string("Date")?,
            time: string("Time")?,
            lifetime_count: [
                whole(
                    number(get("L1 Lifetime Count"), "L1 Lifetime Count")?,
                    "L1 Lifetime Count",
                )?,
                whole(
                    number(get("L2 Lifetime Count"), "L2 Lifetime Count")?,
                    "L2 Lifetime Count",
                )?,
            ],
            write_frequency: [wf("L1 Write Frequency")?, wf("L2 Write Frequency")?],
            refreshes: [named("L1 Refreshes")?, named("L2 Refreshes")?],
            area: [named("L1 Area")?, named("L2 Area")?],
            read_energy: optional_pair("Read Energy")?,
            refresh_energy: optional_pair("Refresh Energy")?,
        })
    }
}

/// A JSON value whose objects keep their key order.
#[derive(Debug, Clone, PartialEq)]
enum Json {
    Null,
    Bool(bool),
    Number(f64),
    String(String),
    Array(Vec<Json>),
    Object(Vec<(String, Json)>),
}

impl<'de> Deserialize<'de> for Json {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Json;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON value")
            }
            fn visit_unit<E>(self) -> Result<Json, E> {
                Ok(Json::Null)
            }
            fn visit_bool<E>(self, v: bool) -> Result<Json, E> {
                Ok(Json::Bool(v))
            }
            fn visit_i64<E>(self, v: i64) -> Result<Json, E> {
                Ok(Json::Number(v as f64))
            }
            fn visit_u64<E>(self, v: u64) -> Result<Json, E> {
                Ok(Json::Number(v as f64))
            }
            fn visit_f64<E>(self, v: f64) -> Result<Json, E> {
                Ok(Json::Number(v))
            }
            fn visit_str<E>(self, v: &str) -> Result<Json, E> {
                Ok(Json::String(v.to_string()))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Json, A::Error> {
                let mut items = Vec::new();
                while let Some(item) = seq.next_element()? {
                    items.push(item);
                }
                Ok(Json::Array(items))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Json, A::Error> {
                let mut items = Vec::new();
                while let Some((k, v)) = map.next_entry::<String, Json>()? {
                    items.push((k, v));
                }
                Ok(Json::Object(items))
            }
        }
        deserializer.deserialize_any(V)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates() {
        assert_eq!(date_time_of(0), ("1970-01-01".into(), "00-00-00".into()));
        assert_eq!(
            date_time_of(1_741_026_021),
            ("2025-03-03".into(), "18-20-21".into())
        );
    }
}
