//! Gainsight's formulas against the seed's worked example (FORMATS.md §5): the kernel CSV row's
//! frequencies, utilizations and maxima to the last bit, the lifetime CSV's number formats, the
//! areas of the JSON report, and the seed's CSV row and JSON re-written byte for byte.
//! Tests that read the seed itself skip when `../shared` is absent.

use std::path::Path;

use sightline::gainsight::{
    Analysis, EndStats, FrontendReport, KernelResult, Lifetime, Params, kernel_row, lifetime_us,
    read_kernel_csv, read_lifetime_csv, write_frequency_stats, write_kernel_csv,
    write_lifetime_header, write_lifetime_rows,
};

const P: f64 = 1000.0 / 2235.0;

fn seed_text() -> Option<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/reference/seeds/004_430cbaeb18553081.txt");
    match std::fs::read_to_string(&path) {
        Ok(text) => Some(text),
        Err(_) => {
            crate::common::skip_shared(format!("{} is absent", path.display()));
            None
        }
    }
}

/// A kernel with the seed example's counts (12056/88 L1, 4296/128 L2 accesses, 2996/141436
/// unique addresses, 120 KB L1, 22571 cycles) and lifetimes whose median is 7808.5 cycles and
/// max 17116 (L1), 9610.5 and 17007 (L2).
fn seed_like_kernel() -> KernelResult {
    // Ten values each: the median is the mean of the 5th and 6th smallest.
    let l1 = [17116, 17116, 14968, 14967, 7809, 7808, 50, 10, 1, 0].map(|cycles| Lifetime {
        address: 0x93ce_6a00,
        cycles,
    });
    let l2 = [17007, 17007, 16052, 16052, 9611, 9610, 30, 20, 10, 5].map(|cycles| Lifetime {
        address: 0x1000,
        cycles,
    });
    KernelResult {
        id: Some(25),
        name: Some("_ZN8internal5gemvx6kernel".into()),
        l1_size_bytes: Some(120 * 1024),
        end: EndStats {
            sim_cycle: Some(22571),
            ..EndStats::default()
        },
        reads: [12056, 4296],
        writes: [88, 128],
        unique: [2996, 141436],
        lifetimes: [l1.to_vec(), l2.to_vec()],
        ..KernelResult::default()
    }
}

#[test]
fn seed_row_frequencies_utilizations_and_maxima_to_the_last_bit() {
    let row = kernel_row(&seed_like_kernel(), &Params::default());
    assert_eq!(row.l1_read_frequency, Some(1193.795578397058));
    assert_eq!(row.l1_write_frequency, Some(8.71383633866466));
    assert_eq!(row.l2_read_frequency, Some(425.39364671481104));
    assert_eq!(row.l2_write_frequency, Some(12.674671038057685));
    assert_eq!(row.l1_utilization, Some(0.7802083333333333));
    assert_eq!(row.l2_utilization, Some(0.08632568359375));
    assert_eq!(
        (row.l1_size, row.l1_unique, row.l2_size, row.l2_unique),
        (122880, 2996, 52428800, 141436)
    );
    assert_eq!(row.total_read_frequency, Some(1.6191892251118694));
    assert_eq!(row.total_write_frequency, Some(0.021388507376722345));
    assert_eq!(row.total_cycles, 22571);
    assert_eq!(row.l1.max, Some(7.658165548098434));
    assert_eq!(row.l1.median, Some(3.4937360178970915));
    assert_eq!(row.l2.max, Some(7.609395973154362));
    assert_eq!(row.l2.median, Some(4.3));
}

#[test]
fn seed_percentiles_to_the_last_bit() {
    // 11 values: index 10 × 0.9 = 9.0 exactly → the 10th smallest.
    let eleven: Vec<u64> = (0..9).map(|i| i * 10).chain([14967, 14968]).collect();
    let lifetimes: Vec<Lifetime> = eleven
        .iter()
        .map(|&c| Lifetime {
            address: 0,
            cycles: c,
        })
        .collect();
    let stats = sightline::gainsight::lifetime_stats(&lifetimes, P);
    assert_eq!(stats.p90, Some(lifetime_us(14967, P)));
    // Half a step (6 values, index 4.5) gives the seed's L1 90%-tile, 14967.5 cycles.
    let six: Vec<Lifetime> = [1, 2, 3, 4, 14967, 14968]
        .map(|c| Lifetime {
            address: 0,
            cycles: c,
        })
        .to_vec();
    let stats = sightline::gainsight::lifetime_stats(&six, P);
    assert_eq!(stats.p90, Some(6.696868008948546));
    assert_eq!(stats.max, Some(lifetime_us(14968, P)));
}

#[test]
fn seed_lifetime_rows_are_written_with_its_number_formats() {
    let rows: Vec<Lifetime> = (0..6)
        .map(|i| Lifetime {
            address: 2479779712 - 128 * i,
            cycles: 17116 - i,
        })
        .collect();
    let mut out = Vec::new();
    write_lifetime_header(&mut out).unwrap();
    write_lifetime_rows(&mut out, 25, &rows, P).unwrap();
    let text = String::from_utf8(out).unwrap();
    let expected = "kernel_id,address,lifetime_cycles,lifetime_ns\n\
        25,2479779712.00,17116.00,7658.17\n\
        25,2479779584.00,17115.00,7657.72\n\
        25,2479779456.00,17114.00,7657.27\n\
        25,2479779328.00,17113.00,7656.82\n\
        25,2479779200.00,17112.00,7656.38\n\
        25,2479779072.00,17111.00,7655.93\n";
    assert_eq!(text, expected);
    let back = read_lifetime_csv("seed.csv", text.as_bytes()).unwrap();
    assert_eq!(back[5].cycles, 17111);
    assert_eq!(back[5].ns, 7655.93);
}

#[test]
fn seed_areas_from_the_default_parameters() {
    let report = FrontendReport::compute(&Analysis::default(), &Params::default(), "x", "d", "t");
    let l1: Vec<f64> = report.area[0].iter().map(|a| a.1).collect();
    let l2: Vec<f64> = report.area[1].iter().map(|a| a.1).collect();
    assert_eq!(
        l1,
        [
            1691702.6133333333,
            879685.3589333334,
            873813.3333333334,
            1342177.28
        ]
    );
    assert_eq!(
        l2,
        [
            845851.3066666666,
            439842.6794666667,
            436906.6666666667,
            671088.64
        ]
    );
    let names: Vec<&str> = report.area[0].iter().map(|a| a.0.as_str()).collect();
    assert_eq!(names, ["sram", "silicon", "hybrid", "oxide"]);
}

#[test]
fn write_frequency_statistics() {
    // Frequencies 1, 3, 2 (ids in order); writes/cycles chosen so weighted = Σw / Σ(T p) × 1000.
    let per = [(1.0, 10, 1000), (3.0, 30, 2000), (2.0, 20, 3000)];
    let s = write_frequency_stats(&per, P);
    assert_eq!((s.max, s.maxidx), (3.0, 1));
    assert_eq!(s.p90, 2.8);
    assert_eq!(
        s.weighted,
        60.0 / (1000.0 * P + 2000.0 * P + 3000.0 * P) * 1000.0
    );
}

fn seed_block(text: &str, first: &str) -> Option<Vec<String>> {
    let lines: Vec<&str> = text.lines().collect();
    let start = lines.iter().position(|l| l.starts_with(first))?;
    Some(lines[start..].iter().map(|l| l.to_string()).collect())
}

#[test]
fn seed_kernel_csv_reads_and_rewrites_byte_for_byte() {
    let Some(text) = seed_text() else { return };
    let block = seed_block(&text, "Kernel ID,Mangled Names").expect("the seed's kernel CSV");
    let csv = format!("{}\n{}\n", block[0], block[1]);
    let rows = read_kernel_csv("seed.sim.csv", csv.as_bytes()).unwrap();
    assert_eq!(rows.len(), 1);
    let mut out = Vec::new();
    write_kernel_csv(&mut out, &rows).unwrap();
    assert_eq!(String::from_utf8(out).unwrap(), csv);
    // And the computed row equals the seed's in every column the counts determine.
    let computed = kernel_row(&seed_like_kernel(), &Params::default());
    let seed = &rows[0];
    assert_eq!(computed.l1_read_frequency, seed.l1_read_frequency);
    assert_eq!(computed.l1_write_frequency, seed.l1_write_frequency);
    assert_eq!(computed.l2_read_frequency, seed.l2_read_frequency);
    assert_eq!(computed.l2_write_frequency, seed.l2_write_frequency);
    assert_eq!(computed.l1_utilization, seed.l1_utilization);
    assert_eq!(computed.l2_utilization, seed.l2_utilization);
    assert_eq!(computed.total_read_frequency, seed.total_read_frequency);
    assert_eq!(computed.total_write_frequency, seed.total_write_frequency);
    assert_eq!(computed.l1.max, seed.l1.max);
    assert_eq!(computed.l1.median, seed.l1.median);
    assert_eq!(computed.l2.max, seed.l2.max);
    assert_eq!(computed.l2.median, seed.l2.median);
    assert_eq!(
        (
            computed.l1_size,
            computed.l1_unique,
            computed.l2_size,
            computed.l2_unique,
            computed.total_cycles
        ),
        (
            seed.l1_size,
            seed.l1_unique,
            seed.l2_size,
            seed.l2_unique,
            seed.total_cycles
        )
    );
}

#[test]
fn seed_json_reads_and_rewrites_byte_for_byte() {
    let Some(text) = seed_text() else { return };
    let block = seed_block(&text, "{").expect("the seed's JSON report");
    let end = block.iter().position(|l| l == "}").expect("closing brace");
    let json = block[..=end].join("\n");
    let report = FrontendReport::read("seed.json", &json).unwrap();
    assert_eq!(report.name, "generate");
    assert_eq!(report.lifetime_count, [43181, 72470]);
    let mut out = Vec::new();
    report.write(&mut out).unwrap();
    assert_eq!(String::from_utf8(out).unwrap(), json);
    // The default parameters give the seed's areas.
    let ours = FrontendReport::compute(
        &Analysis::default(),
        &Params::default(),
        "generate",
        "d",
        "t",
    );
    assert_eq!(ours.area, report.area);
    // Its refreshes are consistent with the default retentions' order: 5nm < Hybrid < 16nm < Oxide.
    let r = &report.refreshes[1];
    assert!(r[0].1 > r[2].1 && r[2].1 > r[1].1 && r[1].1 > r[3].1);
}
