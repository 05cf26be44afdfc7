//! Value formatting for display (`src/section/format.rs`): unit steps and their boundaries,
//! precision, thousands separators, special values and the multiplier.

use sightline::format::{Formatted, format_value, format_with_unit, group_thousands};
use sightline::ncu::MetricValue;

fn d(v: f64) -> MetricValue {
    MetricValue::Double(v)
}

fn u(v: u64) -> MetricValue {
    MetricValue::Uint64(v)
}

/// `format_with_unit` without a multiplier.
fn show(value: &MetricValue, unit: &str) -> String {
    format_with_unit(value, unit, None)
}

#[test]
fn formatted_splits_text_and_unit() {
    assert_eq!(
        format_value(&d(12_345.0), "ns", None),
        Formatted {
            text: "12.35".into(),
            unit: "usecond".into()
        }
    );
    assert_eq!(
        format_value(&u(7), "", None),
        Formatted {
            text: "7".into(),
            unit: String::new()
        }
    );
}

#[test]
fn time_steps_and_boundaries() {
    assert_eq!(show(&d(0.0), "ns"), "0 nsecond");
    assert_eq!(show(&d(0.5), "ns"), "0.50 nsecond");
    assert_eq!(show(&d(999.0), "ns"), "999 nsecond");
    assert_eq!(show(&d(999.5), "ns"), "999.50 nsecond");
    assert_eq!(show(&d(1_000.0), "ns"), "1.00 usecond");
    assert_eq!(show(&d(41_696.0), "ns"), "41.70 usecond");
    assert_eq!(show(&d(999_994.0), "ns"), "999.99 usecond");
    assert_eq!(show(&d(1_000_000.0), "ns"), "1.00 msecond");
    assert_eq!(show(&d(999_999_000.0), "ns"), "1.00 second");
    assert_eq!(show(&d(1e9), "ns"), "1.00 second");
    assert_eq!(show(&d(3_600e9), "ns"), "3,600.00 second");
    // Rounding to 1,000.00 of a step moves to the next step.
    assert_eq!(show(&d(999.999), "ns"), "1.00 usecond");
    assert_eq!(show(&d(999.994), "ns"), "999.99 nsecond");
    // Integers: exact below the first step.
    assert_eq!(show(&u(999), "ns"), "999 nsecond");
    assert_eq!(show(&u(1_000), "ns"), "1.00 usecond");
    assert_eq!(show(&u(2_500_000), "ns"), "2.50 msecond");
    // Other input steps are converted: they can move down as well as up.
    assert_eq!(show(&d(0.002), "ms"), "2.00 usecond");
    assert_eq!(show(&d(1_500.0), "us"), "1.50 msecond");
    assert_eq!(show(&d(2.0), "s"), "2.00 second");
    assert_eq!(show(&d(0.25), "s"), "250.00 msecond");
}

#[test]
fn byte_steps_are_powers_of_1000() {
    assert_eq!(show(&u(0), "byte"), "0 byte");
    assert_eq!(show(&u(999), "byte"), "999 byte");
    assert_eq!(show(&u(1_000), "byte"), "1.00 Kbyte");
    assert_eq!(show(&u(1_024), "byte"), "1.02 Kbyte");
    assert_eq!(show(&d(32_768.0), "byte"), "32.77 Kbyte");
    assert_eq!(show(&u(1_000_000), "byte"), "1.00 Mbyte");
    assert_eq!(show(&u(6_000_000_000), "byte"), "6.00 Gbyte");
    assert_eq!(show(&u(2_000_000_000_000), "byte"), "2.00 Tbyte");
    assert_eq!(show(&d(1.5e15), "byte"), "1.50 Pbyte");
    assert_eq!(show(&d(1.5e18), "byte"), "1,500.00 Pbyte");
    // Composite units scale by their numerator.
    assert_eq!(show(&d(1_024.0), "byte/block"), "1.02 Kbyte/block");
    assert_eq!(show(&d(0.0), "byte/block"), "0 byte/block");
    assert_eq!(show(&d(32.0), "byte/sector"), "32 byte/sector");
    assert_eq!(show(&d(8.0), "byte/cycle"), "8 byte/cycle");
    assert_eq!(show(&d(2.5), "Kbyte"), "2.50 Kbyte");
    assert_eq!(show(&d(0.5), "Kbyte"), "500 byte");
}

#[test]
fn byte_rates() {
    assert_eq!(show(&d(999.0), "byte/s"), "999 byte/second");
    assert_eq!(show(&d(1_000.0), "byte/s"), "1.00 Kbyte/second");
    assert_eq!(show(&d(2_500_000.0), "byte/s"), "2.50 Mbyte/second");
    assert_eq!(
        show(&d(49_502_046_559.222_31), "byte/s"),
        "49.50 Gbyte/second"
    );
    assert_eq!(show(&d(1.2e12), "byte/s"), "1.20 Tbyte/second");
    // Other per-second rates take SI prefixes.
    assert_eq!(
        show(&d(9_449_587_490.406755), "sector/s"),
        "9.45 Gsector/second"
    );
    assert_eq!(show(&d(12.0), "inst/s"), "12 inst/second");
    assert_eq!(show(&d(12_000.0), "inst/s"), "12.00 Kinst/second");
}

#[test]
fn frequency() {
    assert_eq!(show(&d(999.0), "hz"), "999 hz");
    assert_eq!(show(&d(1_000.0), "hz"), "1.00 Khz");
    assert_eq!(show(&d(585_937_600.0), "hz"), "585.94 Mhz");
    assert_eq!(show(&d(6_749_552_315.170_12), "hz"), "6.75 Ghz");
    assert_eq!(show(&d(1_390_000_000.0), "hz"), "1.39 Ghz");
    // Older cycle-per-time units keep their numerator and spell out the time.
    assert_eq!(show(&d(6.79), "cycle/ns"), "6.79 cycle/nsecond");
}

#[test]
fn percentages_have_two_decimals() {
    assert_eq!(show(&d(16.7123), "%"), "16.71 %");
    assert_eq!(show(&d(100.0), "%"), "100.00 %");
    assert_eq!(show(&d(0.0), "%"), "0.00 %");
    assert_eq!(show(&d(0.004), "%"), "0.00 %");
    assert_eq!(show(&d(10_130.0), "%/register"), "10,130.00 %/register");
    assert_eq!(show(&u(50), "%"), "50.00 %");
    assert_eq!(show(&d(-3.456), "%"), "-3.46 %");
}

#[test]
fn counts_have_thousands_separators() {
    assert_eq!(show(&u(1_234_567), "inst"), "1,234,567 inst");
    assert_eq!(show(&u(491_520), "inst"), "491,520 inst");
    assert_eq!(show(&d(2_345.0), "cycle"), "2,345 cycle");
    assert_eq!(show(&d(3_431.666), "cycle"), "3,431.67 cycle");
    assert_eq!(show(&d(262_385.0), "sector"), "262,385 sector");
    assert_eq!(show(&d(169.946298966824), "warp"), "169.95 warp");
    assert_eq!(show(&d(16.0), "register/thread"), "16 register/thread");
    assert_eq!(
        show(&d(1.7042067851755518), "inst/cycle"),
        "1.70 inst/cycle"
    );
    assert_eq!(show(&d(256.0), "block"), "256 block");
    assert_eq!(show(&u(1_024), "thread"), "1,024 thread");
    assert_eq!(show(&u(1_024), ""), "1,024");
    assert_eq!(
        show(&MetricValue::Uint32(4_000_000_000), ""),
        "4,000,000,000"
    );
}

#[test]
fn large_integers_are_exact() {
    assert_eq!(show(&u(u64::MAX), ""), "18,446,744,073,709,551,615");
    assert_eq!(
        show(&u(9_007_199_254_740_993), "inst"),
        "9,007,199,254,740,993 inst"
    );
    assert_eq!(show(&u(100), ""), "100");
    assert_eq!(show(&u(1_000), ""), "1,000");
}

#[test]
fn doubles_keep_about_three_significant_digits() {
    assert_eq!(show(&d(0.11764705882352941), ""), "0.118");
    assert_eq!(show(&d(0.02), ""), "0.02");
    assert_eq!(show(&d(0.5), ""), "0.50");
    assert_eq!(show(&d(0.000123456), ""), "0.000123");
    assert_eq!(show(&d(6_551.772727272727), ""), "6,551.77");
    assert_eq!(show(&d(1.5e-12), ""), "1.50e-12");
    assert_eq!(show(&d(2.0e20), ""), "2.00e20");
    assert_eq!(show(&d(123_456_789_012.0), ""), "123,456,789,012");
    assert_eq!(show(&MetricValue::Float(0.25), ""), "0.25");
    assert_eq!(show(&MetricValue::Float(1_500.0), "ns"), "1.50 usecond");
}

#[test]
fn negative_and_zero_values() {
    assert_eq!(show(&d(0.0), ""), "0");
    assert_eq!(show(&d(-0.0), ""), "0");
    assert_eq!(show(&d(-0.0), "ns"), "0 nsecond");
    assert_eq!(show(&u(0), "inst"), "0 inst");
    assert_eq!(show(&d(-1_234_567.0), "cycle"), "-1,234,567 cycle");
    assert_eq!(show(&d(-1_234.567_8), ""), "-1,234.57");
    assert_eq!(show(&d(-0.0042), ""), "-0.0042");
    assert_eq!(show(&d(-1_500.0), "ns"), "-1.50 usecond");
    assert_eq!(show(&d(-2_000_000.0), "byte"), "-2.00 Mbyte");
    assert_eq!(show(&d(-999.0), "hz"), "-999 hz");
}

#[test]
fn nan_and_infinity() {
    assert_eq!(show(&d(f64::NAN), ""), "NaN");
    assert_eq!(show(&d(f64::NAN), "ns"), "NaN nsecond");
    assert_eq!(show(&d(f64::NAN), "%"), "NaN %");
    assert_eq!(show(&d(f64::INFINITY), "byte"), "inf byte");
    assert_eq!(show(&d(f64::NEG_INFINITY), "cycle"), "-inf cycle");
    assert_eq!(show(&MetricValue::Float(f32::NAN), "inst"), "NaN inst");
    assert_eq!(format_with_unit(&u(5), "", Some(f64::NAN)), "NaN");
    assert_eq!(format_with_unit(&d(1e308), "", Some(10.0)), "inf");
}

#[test]
fn multiplier_is_applied_before_scaling() {
    assert_eq!(
        format_with_unit(&d(1.5), "ns", Some(1_000.0)),
        "1.50 usecond"
    );
    assert_eq!(format_with_unit(&u(999), "byte", Some(2.0)), "2.00 Kbyte");
    assert_eq!(format_with_unit(&u(3), "inst", Some(2.0)), "6 inst");
    assert_eq!(format_with_unit(&u(3), "inst", Some(0.5)), "1.50 inst");
    assert_eq!(format_with_unit(&d(0.5), "%", Some(100.0)), "50.00 %");
    assert_eq!(format_with_unit(&u(7), "", Some(1.0)), "7");
    assert_eq!(format_with_unit(&u(7), "", Some(-1.0)), "-7");
    // Overflowing integer products fall back to doubles.
    assert_eq!(format_with_unit(&u(u64::MAX), "", Some(2.0)), "3.69e19");
    assert_eq!(
        format_with_unit(&u(u64::MAX / 2), "", Some(2.0)),
        "18,446,744,073,709,551,614"
    );
}

#[test]
fn strings_and_missing_values() {
    let s = MetricValue::String("vec_add(float *, float *, float *, int)".into());
    assert_eq!(
        format_value(&s, "", None),
        Formatted {
            text: "vec_add(float *, float *, float *, int)".into(),
            unit: String::new()
        }
    );
    // A string carries no unit, even when its metric has one; no multiplier applies.
    let breakdown = MetricValue::String("sm__a.avg.pct,sm__b.avg.pct".into());
    assert_eq!(
        format_with_unit(&breakdown, "%", Some(100.0)),
        "sm__a.avg.pct,sm__b.avg.pct"
    );
    assert_eq!(
        format_with_unit(&MetricValue::String(String::new()), "", None),
        ""
    );
    assert_eq!(
        format_value(&MetricValue::None, "ns", None),
        Formatted {
            text: "N/A".into(),
            unit: String::new()
        }
    );
    assert_eq!(
        format_with_unit(&MetricValue::None, "byte", Some(2.0)),
        "N/A"
    );
}

#[test]
fn group_thousands_inserts_commas() {
    assert_eq!(group_thousands(""), "");
    assert_eq!(group_thousands("0"), "0");
    assert_eq!(group_thousands("12"), "12");
    assert_eq!(group_thousands("123"), "123");
    assert_eq!(group_thousands("1234"), "1,234");
    assert_eq!(group_thousands("123456"), "123,456");
    assert_eq!(group_thousands("1234567"), "1,234,567");
    assert_eq!(group_thousands("-1234567"), "-1,234,567");
    assert_eq!(group_thousands("+1000"), "+1,000");
    assert_eq!(group_thousands("-"), "-");
    assert_eq!(group_thousands("12a4"), "12a4");
    assert_eq!(group_thousands("1.5"), "1.5");
    assert_eq!(group_thousands("１２３４"), "１２３４");
}

#[test]
fn unknown_and_odd_units_are_kept() {
    assert_eq!(show(&d(12.5), "sample"), "12.50 sample");
    assert_eq!(show(&u(22), "SM"), "22 SM");
    assert_eq!(show(&d(1_000.0), " ns "), "1.00 usecond");
    assert_eq!(show(&u(5_000), "widget/frame"), "5,000 widget/frame");
    assert_eq!(show(&u(5_000), "/s"), "5,000 /second");
    assert_eq!(show(&u(5_000), "%/s"), "5,000.00 %/second");
}

/// One duration formatter for the kernel list, the timeline and the text summaries.
#[test]
fn durations_in_each_style() {
    use sightline::format::DurationFormat;
    let list = DurationFormat::LIST;
    assert_eq!(list.format(789.4), "789 ns");
    assert_eq!(list.format(456_000.0), "456.00 µs");
    assert_eq!(list.format(1_234_567.0), "1.23 ms");
    assert_eq!(list.format(2.5e9), "2500.00 ms");
    assert_eq!(DurationFormat::ASCII.format(456_000.0), "456.00 us");
    let timeline = DurationFormat::TIMELINE;
    assert_eq!(timeline.format(2.5e9), "2.500 s");
    assert_eq!(timeline.format(1_234_000.0), "1.234 ms");
    assert_eq!(timeline.format(-1_500.0), "-1.500 µs");
    assert_eq!(timeline.format(12.0), "12 ns");
}
