//! Gainsight on the committed fixtures: the hand-made log against expectations worked out by
//! hand, and the generated sample against the generator's by-construction expectations.

use std::path::{Path, PathBuf};

use sightline::gainsight::{
    Analysis, AnalyzeOptions, FrontendReport, KernelResult, Level, Params, Selection, Source,
    analyze, analyze_paths, read_kernel_csv, read_lifetime_csv, write_kernel_csv,
    write_lifetime_header, write_lifetime_rows,
};
use sightline_test_support::gainsight::{GenConfig, generate};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/gainsight")
        .join(name)
}

/// Runs an analysis and collects the lifetime CSVs as the CLI writes them.
fn run(paths: &[PathBuf], threads: usize) -> (Analysis, String, String) {
    let params = Params::default();
    let p = params.ns_per_cycle();
    let (mut l1, mut l2) = (Vec::new(), Vec::new());
    write_lifetime_header(&mut l1).unwrap();
    write_lifetime_header(&mut l2).unwrap();
    let analysis = analyze_paths(
        paths,
        &params,
        &AnalyzeOptions {
            threads,
            ..AnalyzeOptions::default()
        },
        &mut |k: &KernelResult| {
            write_lifetime_rows(&mut l1, k.id.unwrap(), &k.lifetimes[0], p).unwrap();
            write_lifetime_rows(&mut l2, k.id.unwrap(), &k.lifetimes[1], p).unwrap();
            Ok(())
        },
    )
    .expect("analysis");
    (
        analysis,
        String::from_utf8(l1).unwrap(),
        String::from_utf8(l2).unwrap(),
    )
}

const P: f64 = 1000.0 / 2235.0;

/// µs of a number of cycles, as the kernel CSV converts its statistics.
fn us(cycles: f64) -> f64 {
    cycles * P / 1000.0
}

fn close(actual: Option<f64>, expected: f64) {
    let a = actual.expect("a value");
    assert!(
        (a - expected).abs() <= 1e-12 * expected.abs().max(1.0),
        "{a} != {expected}"
    );
}

#[test]
fn handmade_log_matches_hand_computed_expectations() {
    let (analysis, l1, l2) = run(&[fixture("handmade.log")], 2);
    // Kernel 7, L1: SM0/0x1000 filled at 100, read at 150 and 2400 (the status-3 retry at 120
    // is ignored), re-created by the Store at 2500 → 2300 cycles; read at 7000, closed by the
    // kernel's end → 4500. SM1's hit on 0x1000 at 2550 starts nothing. SM1/0x1080: fill 2600,
    // read 2700 → 100; the fill at 2800 is never read → no lifetime.
    // Kernel 3, L1: Store at 10, reads at 20 and 1000 → 990. Rows in input order, longest first.
    assert_eq!(
        l1,
        "kernel_id,address,lifetime_cycles,lifetime_ns\n\
         7,4096.00,4500.00,2013.42\n\
         7,4096.00,2300.00,1029.08\n\
         7,4224.00,100.00,44.74\n\
         3,65408.00,990.00,442.95\n"
    );
    // L2: 0x2000 filled at 3000 (SM 0 bank 0), read at 3100 (SM 5 bank 3) and 25500 → 22500;
    // 0x2080 stored at 3300 (after a reservation fail) and never read.
    assert_eq!(
        l2,
        "kernel_id,address,lifetime_cycles,lifetime_ns\n7,8192.00,22500.00,10067.11\n"
    );
    assert_eq!(analysis.name, "demo");
    let ids: Vec<u64> = analysis.rows.iter().map(|r| r.kernel_id).collect();
    assert_eq!(ids, [3, 7], "kernel CSV sorted by id");
    let k3 = &analysis.rows[0];
    let k7 = &analysis.rows[1];
    // Kernel 7: T = 30000; L1 8 reads (status 3 excluded), 1 write; L2 3 reads, 1 write.
    // Reads/µs = n / (T × 1000/2235) × 1000 = n × 2235 / 30000.
    close(k7.l1_read_frequency, 8.0 * 2235.0 / 30000.0);
    close(k7.l1_write_frequency, 2235.0 / 30000.0);
    close(k7.l2_read_frequency, 3.0 * 2235.0 / 30000.0);
    close(k7.l2_write_frequency, 2235.0 / 30000.0);
    close(k7.total_read_frequency, 11.0 * 2.235 / 30000.0);
    close(k7.total_write_frequency, 2.0 * 2.235 / 30000.0);
    assert_eq!((k7.l1_size, k7.l1_unique, k7.l2_unique), (65536, 2, 2));
    assert_eq!(k7.l1_utilization, Some(2.0 * 32.0 / 65536.0));
    assert_eq!(k7.l2_utilization, Some(2.0 * 32.0 / 52428800.0));
    // L1 lifetimes 4500, 2300, 100: mean 2300, median 2300, p90 at index 1.8 → 2300 + 0.8 × 2200.
    close(k7.l1.mean, us(2300.0));
    close(k7.l1.median, us(2300.0));
    close(k7.l1.p90, us(4060.0));
    close(k7.l1.max, us(4500.0));
    close(k7.l2.mean, us(22500.0));
    assert_eq!(k7.total_cycles, 30000);
    // Kernel 3: no reconfiguration line → the default L1 size; no L2 access → empty statistics.
    assert_eq!((k3.l1_size, k3.l1_unique, k3.l2_unique), (131072, 1, 0));
    close(k3.l1.median, us(990.0));
    assert_eq!(k3.l2.mean, None);
    close(k3.l1_read_frequency, 2.0 * 2235.0 / 2000.0);
    assert_eq!(k3.l2_read_frequency, Some(0.0));
    // Refreshes: L1 lifetimes 2.013, 1.029, 0.045, 0.443 µs; L2 10.067 µs.
    let l1 = analysis.store.level(Level::L1);
    let l2 = analysis.store.level(Level::L2);
    assert_eq!(l1.refreshes(Selection::All, 1.0, 2235.0), 3);
    assert_eq!(l1.refreshes(Selection::All, 10.0, 2235.0), 0);
    assert_eq!(l2.refreshes(Selection::All, 1.0, 2235.0), 10);
    assert_eq!(l2.refreshes(Selection::All, 10.0, 2235.0), 1);
    assert_eq!(l1.covered_share(Selection::All, 1.0, 2235.0), 0.5);
    // At half the clock every lifetime doubles.
    assert_eq!(l1.refreshes(Selection::All, 1.0, 1117.5), 2 + 4);
    // Selection by kernel (input order: kernel 7 first).
    assert_eq!(l1.count(Selection::Kernel(0)), 3);
    assert_eq!(l1.count(Selection::Kernel(1)), 1);
    // JSON: write frequencies ordered by id [k3, k7].
    let report = FrontendReport::compute(&analysis, &Params::default(), "demo", "d", "t");
    assert_eq!(report.lifetime_count, [4, 1]);
    let wf = report.write_frequency[0];
    assert_eq!(wf.maxidx, 0);
    assert!((wf.max - 1.1175).abs() < 1e-12);
    assert!((wf.p90 - (0.0745 + (1.1175 - 0.0745) * 0.9)).abs() < 1e-12);
    assert!((wf.weighted - 2.0 * 2235.0 / 32000.0).abs() < 1e-12);
    assert_eq!(report.write_frequency[1].maxidx, 1);
    let names: Vec<&str> = report.refreshes[0]
        .iter()
        .map(|(n, _)| n.as_str())
        .collect();
    assert_eq!(names, ["5nm Silicon", "16nm Silicon", "Hybrid", "Oxide"]);
    assert_eq!(report.refreshes[1][0].1, 10.0);
    assert_eq!(report.refreshes[1][2].1, 1.0);
    // The preamble line and the L1I line are counted, not analysed.
    assert_eq!(analysis.lines.other_cache, 1);
    assert_eq!(analysis.lines.reservation_fails, 2);
    assert!(analysis.warnings.is_empty(), "{:?}", analysis.warnings);
}

#[test]
fn sample_fixture_is_what_the_generator_writes() {
    let committed = std::fs::read(fixture("sample.log")).unwrap();
    let config = GenConfig {
        seed: 15,
        kernels: 3,
        first_kernel_id: 1,
        sms: 3,
        banks: 2,
        l1_objects: 12,
        l2_objects: 10,
        max_episodes: 3,
        max_reads: 3,
        span_cycles: 2_000,
        noise_every: 7,
        without_end_stats: vec![2],
        program: "sample".into(),
        keep_expected: true,
    };
    let mut generated = Vec::new();
    let expected = generate(&config, &mut generated).unwrap();
    assert!(
        committed == generated,
        "fixtures/gainsight/sample.log is stale: regenerate it"
    );
    let (analysis, _, _) = run(&[fixture("sample.log")], 1);
    check_against(&analysis, &expected);
    assert_eq!(analysis.warnings.len(), 1, "{:?}", analysis.warnings);
    assert!(
        analysis.warnings[0]
            .problem
            .message
            .contains("no end-of-kernel statistics")
    );
}

fn check_against(
    analysis: &Analysis,
    expected: &[sightline_test_support::gainsight::ExpectedKernel],
) {
    assert_eq!(analysis.kernels.len(), expected.len());
    let p = Params::default();
    for (i, (k, e)) in analysis.kernels.iter().zip(expected).enumerate() {
        assert_eq!(k.id, Some(e.id));
        assert_eq!(k.name.as_deref(), Some(e.name.as_str()));
        assert_eq!(k.reads, e.reads, "kernel {}", e.id);
        assert_eq!(k.writes, e.writes, "kernel {}", e.id);
        assert_eq!(k.unique, e.unique, "kernel {}", e.id);
        assert_eq!(k.l1_size_bytes, Some(e.l1_size_bytes));
        assert_eq!(sightline::gainsight::kernel_cycles(k), e.cycles);
        for level in Level::ALL {
            let store = analysis.store.level(level);
            let li = level.index();
            assert_eq!(store.count(Selection::Kernel(i)), e.lifetime_count[li]);
            if !e.lifetimes[li].is_empty() {
                let mut cycles: Vec<u64> = e.lifetimes[li].iter().map(|l| l.cycles).collect();
                cycles.sort_unstable();
                let brute: u64 = cycles
                    .iter()
                    .map(|&c| sightline::gainsight::refreshes_of(c, p.ns_per_cycle(), 1.0))
                    .sum();
                assert_eq!(
                    store.refreshes(Selection::Kernel(i), 1.0, p.clock_mhz),
                    brute
                );
                assert_eq!(
                    store.max_cycles(Selection::Kernel(i)),
                    cycles.last().copied()
                );
            }
        }
    }
}

#[test]
fn generated_logs_give_their_known_lifetimes_on_one_or_two_threads() {
    for seed in [1, 2, 3] {
        let config = GenConfig {
            seed,
            kernels: 4,
            l1_objects: 300,
            l2_objects: 250,
            without_end_stats: vec![1],
            ..GenConfig::default()
        };
        let mut log = Vec::new();
        let expected = generate(&config, &mut log).unwrap();
        let mut csv = Vec::new();
        let mut results = Vec::new();
        for threads in [1, 2] {
            let mut lifetimes = Vec::new();
            let source = Source::from_bytes("gen.log", log.clone());
            let p = Params::default().ns_per_cycle();
            let analysis = analyze(
                &[source],
                &Params::default(),
                &AnalyzeOptions {
                    threads,
                    render_lifetime_csv: threads == 2,
                    ..AnalyzeOptions::default()
                },
                &mut |k: &KernelResult| {
                    lifetimes.push(k.lifetimes.clone());
                    if let Some(rendered) = &k.lifetime_csv {
                        for (bytes, lifetimes) in rendered.iter().zip(&k.lifetimes) {
                            let mut rows = Vec::new();
                            write_lifetime_rows(&mut rows, k.id.unwrap(), lifetimes, p).unwrap();
                            assert_eq!(bytes, &rows);
                        }
                    }
                    Ok(())
                },
            )
            .unwrap();
            for (got, e) in lifetimes.iter().zip(&expected) {
                assert_eq!(got[0], e.lifetimes[0], "seed {seed} kernel {} L1", e.id);
                assert_eq!(got[1], e.lifetimes[1], "seed {seed} kernel {} L2", e.id);
            }
            check_against(&analysis, &expected);
            let mut text = Vec::new();
            write_kernel_csv(&mut text, &analysis.rows).unwrap();
            csv.push(text);
            results.push(analysis.rows);
        }
        assert_eq!(csv[0], csv[1]);
    }
}

#[test]
fn a_folder_of_logs_is_read_in_natural_order() {
    let dir = tempfile::tempdir().unwrap();
    for (k, file) in [(10u64, "kernel-10.log"), (9, "kernel-9.log")] {
        let config = GenConfig {
            seed: k,
            kernels: 1,
            first_kernel_id: k,
            l1_objects: 20,
            l2_objects: 20,
            ..GenConfig::default()
        };
        let mut log = Vec::new();
        generate(&config, &mut log).unwrap();
        std::fs::write(dir.path().join(file), log).unwrap();
    }
    std::fs::write(dir.path().join("out.sim.csv"), "not a log").unwrap();
    let (analysis, _, _) = run(&[dir.path().to_path_buf()], 2);
    let ids: Vec<Option<u64>> = analysis.kernels.iter().map(|k| k.id).collect();
    assert_eq!(ids, [Some(9), Some(10)]);
    assert_eq!(analysis.files.len(), 2);
}

#[test]
fn outputs_read_back_and_rewrite_identically() {
    let (analysis, l1, _) = run(&[fixture("handmade.log")], 1);
    let rows = read_lifetime_csv("l1.csv", l1.as_bytes()).unwrap();
    assert_eq!(rows.len(), 4);
    assert_eq!(
        (rows[0].kernel_id, rows[0].address, rows[0].cycles),
        (7, 4096, 4500)
    );
    let mut kernel_csv = Vec::new();
    write_kernel_csv(&mut kernel_csv, &analysis.rows).unwrap();
    let back = read_kernel_csv("k.csv", &kernel_csv[..]).unwrap();
    assert_eq!(back, analysis.rows);
    let mut again = Vec::new();
    write_kernel_csv(&mut again, &back).unwrap();
    assert_eq!(kernel_csv, again);
    let report = FrontendReport::compute(
        &analysis,
        &Params::default(),
        "demo",
        "2025-03-03",
        "18-20-21",
    );
    let mut json = Vec::new();
    report.write(&mut json).unwrap();
    let text = String::from_utf8(json.clone()).unwrap();
    assert!(text.starts_with("{\n    \"Name\": \"demo\",\n    \"Date\": \"2025-03-03\",\n"));
    let read = FrontendReport::read("r.json", &text).unwrap();
    assert_eq!(read, report);
    let mut json2 = Vec::new();
    read.write(&mut json2).unwrap();
    assert_eq!(json, json2);
}

#[test]
fn energies_appear_when_the_parameters_give_them() {
    let mut params =
        Params::from_toml_str("[sram]\nread_energy_pj = { l1 = 1.0, l2 = 2.0 }\n").unwrap();
    for cell in &mut params.retention {
        cell.read_energy_pj = Some(sightline::gainsight::PerLevel { l1: 0.5, l2: 1.0 });
        cell.refresh_energy_pj = Some(sightline::gainsight::PerLevel { l1: 3.0, l2: 4.0 });
    }
    let (analysis, _, _) = run(&[fixture("handmade.log")], 1);
    let report = FrontendReport::compute(&analysis, &params, "demo", "d", "t");
    let read = report.read_energy.as_ref().expect("read energy");
    // L1 reads: 8 + 2.
    assert_eq!(read[0][0], ("sram".to_string(), 10.0));
    assert_eq!(read[0][1].1, 5.0);
    let refresh = report.refresh_energy.as_ref().expect("refresh energy");
    assert_eq!(refresh[1][0], ("5nm Silicon".to_string(), 40.0));
    let mut json = Vec::new();
    report.write(&mut json).unwrap();
    let text = String::from_utf8(json).unwrap();
    assert!(text.contains("\"L1 Read Energy\": {") && text.contains("\"L2 Refresh Energy\": {"));
    assert_eq!(FrontendReport::read("r", &text).unwrap(), report);
    // Without energies, no energy keys.
    let plain = FrontendReport::compute(&analysis, &Params::default(), "demo", "d", "t");
    assert!(plain.read_energy.is_none() && plain.refresh_energy.is_none());
}

#[test]
fn merged_only_store_answers_like_the_full_one() {
    let log = std::fs::read(fixture("sample.log")).unwrap();
    let run = |merged_lifetimes_only: bool| {
        analyze(
            &[Source::from_bytes("sample.log", log.clone())],
            &Params::default(),
            &AnalyzeOptions {
                merged_lifetimes_only,
                ..AnalyzeOptions::default()
            },
            &mut |_| Ok(()),
        )
        .unwrap()
    };
    let (full, merged) = (run(false), run(true));
    for level in Level::ALL {
        let (a, b) = (full.store.level(level), merged.store.level(level));
        assert_eq!(a.count(Selection::All), b.count(Selection::All));
        for r in [0.1, 1.0, 10.0] {
            assert_eq!(
                a.refreshes(Selection::All, r, 2235.0),
                b.refreshes(Selection::All, r, 2235.0)
            );
        }
        assert_eq!(
            a.histogram(Selection::All, 2235.0, 10),
            b.histogram(Selection::All, 2235.0, 10)
        );
        assert!(a.count(Selection::Kernel(0)) > 0);
        assert_eq!(b.count(Selection::Kernel(0)), 0);
    }
}

/// The generator writes the same log, with the same ground truth, for the same configuration
/// (moved from the generator's own unit tests: the test-support crate is not a default member).
#[test]
fn the_generator_is_deterministic() {
    use sightline_test_support::gainsight::{GenConfig, generate};
    let config = GenConfig {
        kernels: 2,
        l1_objects: 20,
        l2_objects: 20,
        ..GenConfig::default()
    };
    let (mut a, mut b) = (Vec::new(), Vec::new());
    let ea = generate(&config, &mut a).unwrap();
    let eb = generate(&config, &mut b).unwrap();
    assert_eq!(a, b);
    assert_eq!(ea, eb);
}
