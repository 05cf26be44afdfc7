//! Export: the frontend's four files through the model's writers, and chart images as PNG.
//!
//! From logs, the lifetime CSVs are written by analysing the logs again with the parameters in
//! use (the panel keeps lifetimes compact, without addresses), as `sightline gainsight` does;
//! from outputs read back, they are rewritten row by row (the `lifetime_ns` column follows the
//! clock). The kernel CSV and the JSON report are the panel's. Everything runs on the
//! `sightline-loader` thread with progress and Cancel; files are written under temporary names
//! and renamed when complete, so a cancelled export leaves nothing half-written.
//!
//! A chart image is a region of a window screenshot (`ViewportCommand::Screenshot`), cropped to
//! the chart's frame and encoded as PNG.

use std::fs::File;
use std::io::{BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};

use eframe::egui::{ColorImage, Rect};

use super::loader::{Inputs, JobError};
use crate::job::JobCtx;
use sightline_model::core::Progress;
use sightline_model::gainsight::{
    AnalyzeOptions, FrontendReport, GainsightError, KernelRow, Lifetime, Params, analyze_paths,
    read_lifetime_csv, write_kernel_csv, write_lifetime_header, write_lifetime_rows,
};

/// What to export.
#[derive(Debug, Clone)]
pub struct ExportRequest {
    /// Output folder (created).
    pub dir: PathBuf,
    /// Output name: `NAME.sim.csv`...
    pub name: String,
    /// Where the document came from.
    pub inputs: Inputs,
    /// The parameters in use.
    pub params: Params,
    /// The kernel rows.
    pub rows: Vec<KernelRow>,
    /// The report (its name is replaced by `name`, as the CLI's `--name` does).
    pub report: FrontendReport,
}

/// A file being written under a temporary name beside its final one.
struct Pending {
    tmp: PathBuf,
    path: PathBuf,
    out: BufWriter<File>,
}

impl Pending {
    fn create(path: PathBuf) -> Result<Pending, JobError> {
        let file_name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let tmp = path.with_file_name(format!(".{file_name}.{}.part", std::process::id()));
        let file = File::create(&tmp).map_err(JobError::io(&tmp))?;
        Ok(Pending {
            tmp,
            path,
            out: BufWriter::with_capacity(1 << 20, file),
        })
    }

    fn io(&self) -> impl Fn(std::io::Error) -> GainsightError + '_ {
        |source| GainsightError::Io {
            path: self.tmp.display().to_string(),
            source,
        }
    }

    fn finish(mut self) -> Result<PathBuf, JobError> {
        self.out.flush().map_err(JobError::io(&self.tmp))?;
        drop(self.out);
        std::fs::rename(&self.tmp, &self.path).map_err(JobError::io(&self.path))?;
        Ok(self.path)
    }

    fn abandon(self) {
        drop(self.out);
        let _ = std::fs::remove_file(&self.tmp);
    }
}

/// Writes the four files; returns their paths. Runs on the job's thread.
pub fn export_outputs(request: &ExportRequest, ctx: &JobCtx) -> Result<Vec<PathBuf>, JobError> {
    if request.name.trim().is_empty() {
        return Err(JobError::EmptyName);
    }
    std::fs::create_dir_all(&request.dir).map_err(JobError::io(&request.dir))?;
    let path = |suffix: &str| request.dir.join(format!("{}{suffix}", request.name));
    let mut l1 = Pending::create(path(".sim_l1.csv"))?;
    let mut l2 = match Pending::create(path(".sim_l2.csv")) {
        Ok(l2) => l2,
        Err(e) => {
            l1.abandon();
            return Err(e);
        }
    };
    let written = write_lifetimes(request, &mut l1, &mut l2, ctx);
    if let Err(e) = written {
        l1.abandon();
        l2.abandon();
        return Err(e);
    }
    let mut done = vec![l1.finish()?, l2.finish()?];
    ctx.progress(1.0, "writing the kernel CSV and the report");
    let mut kernels = Pending::create(path(".sim.csv"))?;
    write_kernel_csv(&mut kernels.out, &request.rows).map_err(JobError::io(&kernels.tmp))?;
    done.push(kernels.finish()?);
    let mut report = request.report.clone();
    report.name = request.name.clone();
    let mut json = Pending::create(path(".json"))?;
    report
        .write(&mut json.out)
        .map_err(JobError::io(&json.tmp))?;
    done.push(json.finish()?);
    Ok(done)
}

fn write_lifetimes(
    request: &ExportRequest,
    l1: &mut Pending,
    l2: &mut Pending,
    ctx: &JobCtx,
) -> Result<(), JobError> {
    let p = request.params.ns_per_cycle();
    let header = |pending: &mut Pending| {
        write_lifetime_header(&mut pending.out).map_err(JobError::io(&pending.tmp))
    };
    header(l1)?;
    header(l2)?;
    match &request.inputs {
        Inputs::Logs(paths) => {
            let options = AnalyzeOptions {
                progress: Progress::new(ctx).named("writing the lifetime CSVs"),
                render_lifetime_csv: true,
                merged_lifetimes_only: true,
                ..AnalyzeOptions::default()
            };
            let mut sink = |kernel: &sightline_model::gainsight::KernelResult| {
                if let Some([rows_l1, rows_l2]) = &kernel.lifetime_csv {
                    l1.out.write_all(rows_l1).map_err(l1.io())?;
                    l2.out.write_all(rows_l2).map_err(l2.io())?;
                }
                Ok(())
            };
            analyze_paths(paths, &request.params, &options, &mut sink)
                .map(|_| ())
                .map_err(|e| match e {
                    GainsightError::Cancelled(_) => JobError::ExportCancelled,
                    other => other.into(),
                })
        }
        Inputs::Outputs(files) => {
            for (source, pending) in [(&files.l1_csv, l1), (&files.l2_csv, l2)] {
                let Some(source) = source else { continue };
                if ctx.is_cancelled() {
                    return Err(JobError::ExportCancelled);
                }
                ctx.progress(0.5, "rewriting the lifetime CSVs");
                let name = source.display().to_string();
                let file = File::open(source).map_err(JobError::io(source))?;
                let rows = read_lifetime_csv(&name, BufReader::new(file))?;
                for row in rows {
                    let lifetime = [Lifetime {
                        address: row.address,
                        cycles: row.cycles,
                    }];
                    write_lifetime_rows(&mut pending.out, row.kernel_id, &lifetime, p)
                        .map_err(JobError::io(&pending.tmp))?;
                }
            }
            Ok(())
        }
    }
}

/// The PNG of `region` (points) of a screenshot taken at `pixels_per_point`; the region is
/// clamped to the image.
pub fn png_of_region(
    image: &ColorImage,
    region: Rect,
    pixels_per_point: f32,
) -> Result<Vec<u8>, JobError> {
    let [width, height] = image.size;
    let clamp = |v: f32, max: usize| ((v * pixels_per_point).round().max(0.0) as usize).min(max);
    let (x0, x1) = (clamp(region.min.x, width), clamp(region.max.x, width));
    let (y0, y1) = (clamp(region.min.y, height), clamp(region.max.y, height));
    if x1 <= x0 || y1 <= y0 {
        return Err(JobError::OffScreen);
    }
    let mut rgba = Vec::with_capacity((x1 - x0) * (y1 - y0) * 4);
    for y in y0..y1 {
        for pixel in &image.pixels[y * width + x0..y * width + x1] {
            rgba.extend_from_slice(&pixel.to_srgba_unmultiplied());
        }
    }
    let buffer = image::RgbaImage::from_raw((x1 - x0) as u32, (y1 - y0) as u32, rgba)
        .ok_or(JobError::ImageSize)?;
    let mut png = Vec::new();
    buffer
        .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
        .map_err(JobError::Png)?;
    Ok(png)
}

/// Writes `png` to `path` (through a temporary name).
pub fn write_png(path: &Path, png: &[u8]) -> Result<PathBuf, JobError> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(JobError::io(dir))?;
    }
    let mut pending = Pending::create(path.to_path_buf())?;
    pending
        .out
        .write_all(png)
        .map_err(JobError::io(&pending.tmp))?;
    pending.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use eframe::egui::{Color32, pos2};

    #[test]
    fn crops_and_encodes() {
        let mut image = ColorImage::filled([8, 6], Color32::BLACK);
        image.pixels[2 * 8 + 3] = Color32::RED;
        let png = png_of_region(
            &image,
            Rect::from_min_max(pos2(1.0, 1.0), pos2(3.0, 2.0)),
            2.0,
        )
        .unwrap();
        let decoded = image::load_from_memory(&png).unwrap().to_rgba8();
        assert_eq!(decoded.dimensions(), (4, 2));
        assert_eq!(decoded.get_pixel(1, 0).0, [255, 0, 0, 255]);
        assert!(
            png_of_region(
                &image,
                Rect::from_min_max(pos2(9.0, 0.0), pos2(12.0, 2.0)),
                1.0
            )
            .is_err()
        );
    }
}
