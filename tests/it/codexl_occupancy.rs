//! The `.occupancy` reader and the occupancy charts on generated files (no real `.occupancy`
//! file is public): RCP's 26 columns with `,`, rows with `;` under a `,` column line (a CodeXL
//! release's bug), CRLF; the charts through the kernel's own point; malformed rows.

use std::path::{Path, PathBuf};

use sightline::codexl::{OCCUPANCY_COLUMNS, OccupancyFile, OccupancyModel, Resource};
use sightline_test_support::codexl::session_spec;
use sightline_test_support::codexl::tables::dispatches;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/codexl")
        .join(name)
}

#[test]
fn session_occupancy_rows_and_values() {
    let file = OccupancyFile::open(&fixture("session1.occupancy")).unwrap();
    assert!(file.warnings().is_empty(), "{:?}", file.warnings());
    assert_eq!(
        file.table.columns,
        OCCUPANCY_COLUMNS.map(String::from).to_vec()
    );
    assert_eq!(file.table.header_value("KernelCount"), Some("8"));
    assert_eq!(file.table.header_value("ListSeparator"), Some(","));
    let expected = dispatches(&session_spec());
    assert_eq!(file.rows.len(), expected.len());
    for (row, d) in file.rows.iter().zip(&expected) {
        assert_eq!(
            (
                row.thread_id,
                row.kernel_name.as_str(),
                row.device_name.as_str()
            ),
            (Some(d.thread_id), d.kernel, "Hawaii")
        );
        assert_eq!(
            (row.vgprs, row.sgprs, row.lds),
            (
                Some(d.resources.0),
                Some(d.resources.1),
                Some(d.resources.2)
            )
        );
        assert_eq!(row.global_work_size, Some(d.global_size));
        assert_eq!(row.simds_per_cu, Some(4));
        assert_eq!(row.graphics_ip, "IP 7");
    }
    // matmul_tiled, 128-item groups: 93 VGPRs → 8 waves, 22 SGPRs → 40, 13824 B LDS → 8,
    // 16 groups × 2 waves → 32; occupancy 8/40 (hand-computed, see src/codexl/curves.rs).
    let matmul = file
        .rows
        .iter()
        .find(|r| r.kernel_name == "matmul_tiled" && r.work_group_size == Some(256))
        .unwrap();
    assert_eq!(
        (
            matmul.vgpr_limited_waves,
            matmul.sgpr_limited_waves,
            matmul.lds_limited_waves,
            matmul.wg_limited_waves
        ),
        (Some(8), Some(40), Some(16), Some(40))
    );
    assert_eq!(matmul.occupancy_percent, Some(20.0));
    let (kernel, id, device) = file.kernel_parts(matmul);
    assert_eq!(
        (kernel.as_str(), id, device.as_deref()),
        ("matmul_tiled", None, Some("Hawaii"))
    );
}

#[test]
fn rows_with_semicolons_under_a_comma_column_line_and_crlf() {
    let file = OccupancyFile::open(&fixture("semicolon_rows_crlf.occupancy")).unwrap();
    assert!(file.warnings().is_empty(), "{:?}", file.warnings());
    assert_eq!(file.table.separator, ';');
    assert_eq!(file.table.columns.len(), 26);
    assert_eq!(file.rows.len(), 9);
    assert!(
        file.rows
            .iter()
            .all(|r| r.occupancy_percent.is_some() && r.simds_per_cu == Some(4))
    );
}

#[test]
fn charts_pass_through_each_kernels_point() {
    let file = OccupancyFile::open(&fixture("session1.occupancy")).unwrap();
    for row in &file.rows {
        let model = OccupancyModel::from_row(row).unwrap();
        let limits = model.limits(model.usage);
        assert_eq!(
            Some(limits.occupancy_percent),
            row.occupancy_percent,
            "line {}",
            row.line
        );
        assert_eq!(Some(limits.vgpr), row.vgpr_limited_waves);
        let curves = model.curves();
        let resources: Vec<Resource> = curves.iter().map(|c| c.resource).collect();
        assert_eq!(
            resources,
            vec![
                Resource::Vgprs,
                Resource::Sgprs,
                Resource::LdsBytes,
                Resource::WorkGroupSize
            ]
        );
        for curve in &curves {
            assert_eq!(curve.kernel_point.1, limits.occupancy_percent);
            assert!(
                curve.points.contains(&curve.kernel_point),
                "line {}: {:?}",
                row.line,
                curve.resource
            );
            assert!(curve.points.iter().all(|p| (0.0..=100.0).contains(&p.1)));
        }
        // More VGPRs never raise occupancy.
        let vgprs = &curves[0].points;
        assert!(vgprs.windows(2).all(|w| w[1].1 <= w[0].1));
        assert_eq!(vgprs.len(), 256);
        let sizes: Vec<u64> = curves[3].points.iter().map(|p| p.0).collect();
        assert_eq!(sizes, vec![64, 128, 192, 256]);
    }
}

#[test]
fn malformed_rows_warn_with_their_line_and_the_rest_loads() {
    let mut text = String::from("# ListSeparator=,\n");
    text.push_str(&OCCUPANCY_COLUMNS.join(","));
    text.push('\n');
    text.push_str("1,good,Hawaii,44,40,16,256,512,65536,24,16,0,64,256,4,256,4,1024,16777216,40,40,40,40,100,IP 7,4\n");
    text.push_str("2,short,Hawaii,44\n");
    text.push_str("3,bad&nbsp;name,Hawaii,x,40,16,256,512,65536,24,16,0,64,256,4,256,4,1024,16777216,40,40,40,40,100,IP 7,4\r\n");
    text.push_str("4,huge,Hawaii,44,40,16,256,512,65536,99999999999999,16,18446744073709551615,64,18446744073709551615,4,256,4,1,1,1,1,1,1,1,IP 9,4\n");
    let file = OccupancyFile::parse(text.as_bytes());
    let lines: Vec<u64> = file
        .warnings()
        .iter()
        .map(|w| w.location.line_number().unwrap_or(0) as u64)
        .collect();
    assert_eq!(lines, vec![4, 5], "{:?}", file.warnings());
    assert_eq!(file.rows.len(), 4);
    assert_eq!(file.rows[0].occupancy_percent, Some(100.0));
    assert_eq!(file.rows[1].compute_units, Some(44));
    assert_eq!(file.rows[1].max_waves_per_cu, None);
    assert_eq!(file.rows[2].kernel_name, "bad name");
    assert_eq!(file.rows[2].compute_units, None);
    assert!(OccupancyModel::from_row(&file.rows[1]).is_none());
    // Absurd usage still gives bounded charts, quickly.
    let model = OccupancyModel::from_row(&file.rows[3]).unwrap();
    for curve in model.curves() {
        assert!(curve.points.len() <= 1030, "{:?}", curve.resource);
    }
    for garbage in [
        &b""[..],
        b"\xff",
        b"# ListSeparator=\n",
        b"Kernel Name\n\n\n",
        b"a;b\n{;};",
    ] {
        let _ = OccupancyFile::parse(garbage);
    }
}
