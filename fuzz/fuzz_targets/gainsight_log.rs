//! Fuzz target: Gainsight's log reader, the kernel folding and the three output writers and
//! readers. Any input must give an analysis or an error — never a panic, a hang or an
//! allocation blow-up.

#![no_main]

use libfuzzer_sys::fuzz_target;
use sightline_model::gainsight::{
    AnalyzeOptions, FrontendReport, Level, Params, Selection, Source, analyze, read_kernel_csv,
    read_lifetime_csv, write_kernel_csv, write_lifetime_rows,
};

/// The default parameters, parsed once.
fn params() -> &'static Params {
    static PARAMS: std::sync::OnceLock<Params> = std::sync::OnceLock::new();
    PARAMS.get_or_init(Params::default)
}

fuzz_target!(|data: &[u8]| {
    let params = params();
    let p = params.ns_per_cycle();
    let mut sink = std::io::sink();
    let result = analyze(
        &[Source::from_bytes("fuzz.log", data.to_vec())],
        params,
        &AnalyzeOptions {
            threads: 2,
            // Both ways of producing the lifetime CSVs and of keeping the lifetimes.
            render_lifetime_csv: data.len() % 2 == 0,
            merged_lifetimes_only: data.len() % 3 == 0,
            ..AnalyzeOptions::default()
        },
        &mut |kernel| {
            let id = kernel.id.unwrap_or_default();
            let _ = write_lifetime_rows(&mut sink, id, &kernel.lifetimes[0], p);
            let _ = write_lifetime_rows(&mut sink, id, &kernel.lifetimes[1], p);
            Ok(())
        },
    );
    if let Ok(analysis) = result {
        let _ = write_kernel_csv(&mut sink, &analysis.rows);
        let report = FrontendReport::compute(&analysis, params, &analysis.name, "d", "t");
        let _ = report.write(&mut sink);
        for level in Level::ALL {
            let store = analysis.store.level(level);
            let _ = store.refreshes(Selection::All, 0.001, params.clock_mhz);
            let _ = store.covered_share(Selection::Kernel(0), 1.0, params.clock_mhz);
            let _ = store.histogram(Selection::All, params.clock_mhz, 10);
        }
    }
    // The same bytes as the frontend's outputs.
    let _ = read_lifetime_csv("fuzz.csv", data);
    let _ = read_kernel_csv("fuzz.sim.csv", data);
    let _ = FrontendReport::read("fuzz.json", &String::from_utf8_lossy(data));
});
