//! The occupancy charts CodeXL drew for a kernel: how occupancy would change with the number
//! of VGPRs, SGPRs, LDS bytes and the work-group size, the other resources staying the kernel's,
//! computed from the limits in the `.occupancy` row (GCN rules: registers are allocated per
//! wavefront in blocks, a SIMD holds `max waves per CU / SIMDs` wavefronts, work-groups are
//! resident whole on one CU).
//!
//! The allocation granularities are not in the file: for each resource the reader takes the
//! smallest candidate that reproduces the file's own "Nbr …-limited waves" value at the kernel's
//! point (defaults: 4 VGPRs, 8 SGPRs before Graphics IP 8 and 16 from it, 256 LDS bytes), so the
//! curve passes through the kernel's point as the profiler computed it.

use super::occupancy::OccupancyRow;

/// The resource on a chart's x axis.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resource {
    /// VGPRs per work-item.
    Vgprs,
    /// SGPRs per wavefront.
    Sgprs,
    /// LDS bytes per work-group.
    LdsBytes,
    /// Work-items per work-group.
    WorkGroupSize,
}

impl Resource {
    /// Axis title.
    pub fn label(self) -> &'static str {
        match self {
            Resource::Vgprs => "Number of VGPRs",
            Resource::Sgprs => "Number of SGPRs",
            Resource::LdsBytes => "LDS bytes per work-group",
            Resource::WorkGroupSize => "Work-group size",
        }
    }
}

/// One chart: occupancy (%) against a resource, with the kernel's own point.
#[derive(Debug, Clone, PartialEq)]
pub struct OccupancyCurve {
    /// The x axis.
    pub resource: Resource,
    /// `(x, occupancy %)`, x ascending.
    pub points: Vec<(u64, f64)>,
    /// The kernel's x and its occupancy.
    pub kernel_point: (u64, f64),
}

/// The limits and usage of one kernel, with the granularities in use.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OccupancyModel {
    /// Wavefronts a CU holds.
    pub max_waves_per_cu: u64,
    /// SIMDs per CU.
    pub simds_per_cu: u64,
    /// Work-groups a CU holds.
    pub max_work_groups_per_cu: u64,
    /// VGPRs per SIMD lane.
    pub max_vgprs: u64,
    /// SGPRs per SIMD.
    pub max_sgprs: u64,
    /// LDS bytes per CU.
    pub max_lds: u64,
    /// Wavefront size.
    pub wavefront_size: u64,
    /// Largest work-group size.
    pub max_work_group_size: u64,
    /// The kernel's VGPRs, SGPRs, LDS bytes and work-group size.
    pub usage: Usage,
    /// VGPR allocation block.
    pub vgpr_granularity: u64,
    /// SGPR allocation block.
    pub sgpr_granularity: u64,
    /// LDS allocation block (bytes).
    pub lds_granularity: u64,
}

/// What a kernel uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Usage {
    /// VGPRs.
    pub vgprs: u64,
    /// SGPRs.
    pub sgprs: u64,
    /// LDS bytes per work-group.
    pub lds: u64,
    /// Work-items per work-group.
    pub work_group_size: u64,
}

/// Wavefronts per CU allowed by each resource, and the occupancy.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Limits {
    /// VGPR-limited wavefronts.
    pub vgpr: u64,
    /// SGPR-limited wavefronts.
    pub sgpr: u64,
    /// LDS-limited wavefronts.
    pub lds: u64,
    /// Work-group-limited wavefronts.
    pub work_group: u64,
    /// `min / max waves per CU`, in percent.
    pub occupancy_percent: f64,
}

fn round_up(value: u64, granularity: u64) -> u64 {
    let g = granularity.max(1);
    value.div_ceil(g).saturating_mul(g)
}

impl OccupancyModel {
    /// The model of a row, or `None` when a limit the computation needs is missing or zero.
    pub fn from_row(row: &OccupancyRow) -> Option<OccupancyModel> {
        let positive = |v: Option<u64>| v.filter(|&x| x > 0);
        let wavefront_size = positive(row.wavefront_size)?;
        let ip_major: u64 = row
            .graphics_ip
            .chars()
            .filter(char::is_ascii_digit)
            .take(2)
            .collect::<String>()
            .parse()
            .unwrap_or(0);
        let mut model = OccupancyModel {
            max_waves_per_cu: positive(row.max_waves_per_cu)?,
            simds_per_cu: positive(row.simds_per_cu).unwrap_or(4),
            max_work_groups_per_cu: positive(row.max_work_groups_per_cu)?,
            max_vgprs: positive(row.max_vgprs)?,
            max_sgprs: positive(row.max_sgprs)?,
            max_lds: positive(row.max_lds)?,
            wavefront_size,
            max_work_group_size: positive(row.max_work_group_size).unwrap_or(256),
            usage: Usage {
                vgprs: row.vgprs.unwrap_or(0),
                sgprs: row.sgprs.unwrap_or(0),
                lds: row.lds.unwrap_or(0),
                work_group_size: positive(row.work_group_size).unwrap_or(wavefront_size),
            },
            vgpr_granularity: 4,
            sgpr_granularity: if ip_major >= 8 { 16 } else { 8 },
            lds_granularity: 256,
        };
        let usage = model.usage;
        let pick = |model: &OccupancyModel,
                    candidates: &[u64],
                    current: u64,
                    want: Option<u64>,
                    f: &dyn Fn(&OccupancyModel, u64) -> u64| {
            let Some(want) = want else { return current };
            if f(model, current) == want {
                return current;
            }
            candidates
                .iter()
                .copied()
                .find(|&g| f(model, g) == want)
                .unwrap_or(current)
        };
        model.vgpr_granularity = pick(
            &model,
            &[1, 4, 8, 16],
            model.vgpr_granularity,
            row.vgpr_limited_waves,
            &|m, g| {
                OccupancyModel {
                    vgpr_granularity: g,
                    ..*m
                }
                .limits(usage)
                .vgpr
            },
        );
        model.sgpr_granularity = pick(
            &model,
            &[1, 8, 16],
            model.sgpr_granularity,
            row.sgpr_limited_waves,
            &|m, g| {
                OccupancyModel {
                    sgpr_granularity: g,
                    ..*m
                }
                .limits(usage)
                .sgpr
            },
        );
        model.lds_granularity = pick(
            &model,
            &[1, 64, 128, 256, 512],
            model.lds_granularity,
            row.lds_limited_waves,
            &|m, g| {
                OccupancyModel {
                    lds_granularity: g,
                    ..*m
                }
                .limits(usage)
                .lds
            },
        );
        Some(model)
    }

    /// Wavefronts per CU allowed by each resource for `usage`, whole work-groups only.
    pub fn limits(&self, usage: Usage) -> Limits {
        let max_waves = self.max_waves_per_cu;
        let waves_per_group = usage.work_group_size.div_ceil(self.wavefront_size).max(1);
        let whole_groups = |waves: u64| (waves.min(max_waves) / waves_per_group) * waves_per_group;
        let per_simd = (max_waves / self.simds_per_cu.max(1)).max(1);
        let vgpr = if usage.vgprs == 0 {
            max_waves
        } else {
            (self.max_vgprs / round_up(usage.vgprs, self.vgpr_granularity)).min(per_simd)
                * self.simds_per_cu
        };
        let sgpr = if usage.sgprs == 0 {
            max_waves
        } else {
            (self.max_sgprs / round_up(usage.sgprs, self.sgpr_granularity)).min(per_simd)
                * self.simds_per_cu
        };
        let lds = if usage.lds == 0 {
            max_waves
        } else {
            (self.max_lds / round_up(usage.lds, self.lds_granularity))
                .saturating_mul(waves_per_group)
        };
        let work_group = self.max_work_groups_per_cu.saturating_mul(waves_per_group);
        let (vgpr, sgpr, lds, work_group) = (
            whole_groups(vgpr),
            whole_groups(sgpr),
            whole_groups(lds),
            whole_groups(work_group),
        );
        let active = vgpr.min(sgpr).min(lds).min(work_group);
        Limits {
            vgpr,
            sgpr,
            lds,
            work_group,
            occupancy_percent: active as f64 * 100.0 / max_waves as f64,
        }
    }

    /// The four charts. Each x range is capped (1024 points at most); a kernel point beyond the
    /// range is added to it.
    pub fn curves(&self) -> Vec<OccupancyCurve> {
        let own = self.usage;
        let at = |usage: Usage| self.limits(usage).occupancy_percent;
        let kernel_point = |x: u64| (x, at(own));
        let with_own = |mut points: Vec<(u64, f64)>, x: u64| {
            if !points.iter().any(|p| p.0 == x) {
                points.push(kernel_point(x));
                points.sort_by_key(|p| p.0);
            }
            points
        };
        let vgprs = (1..=self.max_vgprs.min(1024))
            .map(|v| (v, at(Usage { vgprs: v, ..own })))
            .collect();
        let sgprs = (1..=self.max_sgprs.min(128))
            .map(|s| (s, at(Usage { sgprs: s, ..own })))
            .collect();
        let step = self.lds_granularity.max(self.max_lds / 1024).max(1);
        let lds = (0..=self.max_lds / step)
            .map(|i| i * step)
            .map(|l| (l, at(Usage { lds: l, ..own })))
            .collect();
        let wave = self.wavefront_size.max(1);
        let groups = (self.max_work_group_size / wave).min(1024);
        let sizes = (1..=groups)
            .map(|k| k * wave)
            .map(|n| {
                (
                    n,
                    at(Usage {
                        work_group_size: n,
                        ..own
                    }),
                )
            })
            .collect();
        vec![
            OccupancyCurve {
                resource: Resource::Vgprs,
                points: with_own(vgprs, own.vgprs),
                kernel_point: kernel_point(own.vgprs),
            },
            OccupancyCurve {
                resource: Resource::Sgprs,
                points: with_own(sgprs, own.sgprs),
                kernel_point: kernel_point(own.sgprs),
            },
            OccupancyCurve {
                resource: Resource::LdsBytes,
                points: with_own(lds, own.lds),
                kernel_point: kernel_point(own.lds),
            },
            OccupancyCurve {
                resource: Resource::WorkGroupSize,
                points: with_own(sizes, own.work_group_size),
                kernel_point: kernel_point(own.work_group_size),
            },
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hawaii (GCN 2): 40 waves/CU, 4 SIMDs, 16 work-groups/CU, 256 VGPRs, 512 SGPRs, 64 KiB LDS.
    fn hawaii(vgprs: u64, sgprs: u64, lds: u64, wg: u64) -> OccupancyRow {
        OccupancyRow {
            max_waves_per_cu: Some(40),
            simds_per_cu: Some(4),
            max_work_groups_per_cu: Some(16),
            max_vgprs: Some(256),
            max_sgprs: Some(512),
            max_lds: Some(65536),
            wavefront_size: Some(64),
            max_work_group_size: Some(256),
            vgprs: Some(vgprs),
            sgprs: Some(sgprs),
            lds: Some(lds),
            work_group_size: Some(wg),
            graphics_ip: "IP 7".into(),
            ..OccupancyRow::default()
        }
    }

    #[test]
    fn hand_computed_points() {
        // 93 VGPRs → 96 allocated → 2 waves/SIMD → 8 per CU; 22 SGPRs → 24 → 21 → capped at 10/SIMD
        // → 40; LDS 13824 B → 4 groups of 2 waves → 8; 16 groups × 2 waves = 32. Occupancy 8/40.
        let m = OccupancyModel::from_row(&hawaii(93, 22, 13824, 128)).unwrap();
        let l = m.limits(m.usage);
        assert_eq!((l.vgpr, l.sgpr, l.lds, l.work_group), (8, 40, 8, 32));
        assert_eq!(l.occupancy_percent, 20.0);
        // 24 VGPRs → 10 waves/SIMD → 40 per CU; 256-item groups (4 waves): 40 → whole groups 40.
        let m = OccupancyModel::from_row(&hawaii(24, 16, 0, 256)).unwrap();
        assert_eq!(m.limits(m.usage).occupancy_percent, 100.0);
        // 192-item groups (3 waves): 40 → 39 whole-group waves.
        let m = OccupancyModel::from_row(&hawaii(24, 16, 0, 192)).unwrap();
        assert_eq!(m.limits(m.usage).occupancy_percent, 97.5);
    }

    #[test]
    fn curves_pass_through_the_kernel_point() {
        let m = OccupancyModel::from_row(&hawaii(93, 22, 13824, 128)).unwrap();
        let curves = m.curves();
        assert_eq!(curves.len(), 4);
        for c in &curves {
            assert_eq!(c.kernel_point.1, 20.0, "{:?}", c.resource);
            assert!(c.points.windows(2).all(|w| w[0].0 < w[1].0));
            assert!(c.points.contains(&c.kernel_point), "{:?}", c.resource);
        }
        // Fewer VGPRs lift the VGPR limit, LDS still caps at 8 waves (20%).
        let vgpr = &curves[0];
        assert_eq!(vgpr.points.iter().find(|p| p.0 == 24).unwrap().1, 20.0);
        assert_eq!(vgpr.points.iter().find(|p| p.0 == 256).unwrap().1, 10.0);
    }

    #[test]
    fn granularity_is_calibrated_from_the_file() {
        // A file that says 12 VGPR-limited waves for 60 VGPRs: 256/60 = 4 → but 4 waves/SIMD = 16;
        // granularity 8 gives 64 → 4 → 16; granularity 16 → 64 → 16 too; 1 → 4 → 16. The default
        // (4 → 60 → 4 → 16) already fits: kept.
        let mut row = hawaii(60, 16, 0, 64);
        row.vgpr_limited_waves = Some(16);
        assert_eq!(OccupancyModel::from_row(&row).unwrap().vgpr_granularity, 4);
        // 84 VGPRs: granularity 4 → 84 → 3 → 12; granularity 8 → 88 → 2 → 8. A file saying 8 → 8.
        let mut row = hawaii(84, 16, 0, 64);
        row.vgpr_limited_waves = Some(8);
        assert_eq!(OccupancyModel::from_row(&row).unwrap().vgpr_granularity, 8);
    }
}
