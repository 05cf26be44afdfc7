//! A details page with one item of every body kind, for the rendering tests.

use super::{entry, item, line_chart, roofline_chart, section};
use sightline::ncu::MetricValue;
use sightline::section::{
    ChartAxes, Entry, FixedWidget, HotSpots, Item, ItemKind, KernelDetails, RooflinePoint,
    TableLayout,
};

/// A page with one item of every body kind: tables in column and row major order, bars,
/// a line chart, a histogram, a roofline, a container of two tables, a fixed table with
/// entries and a fixed widget without metrics.
pub(super) fn every_item_kind_page() -> KernelDetails {
    let [column_major, row_major] = every_kind_tables();
    let [bars, lines, histogram] = every_kind_charts();
    let roofline = every_kind_roofline();
    let container = every_kind_container();
    let fixed_with_entries = item(
        ItemKind::Fixed(FixedWidget::MemoryL2CacheTable),
        "L2",
        vec![pct("L2 Hit", 50.0)],
    );
    // A fixed widget without metrics is a note naming it (an unknown kind can no longer be
    // made: `ItemKind` lists every widget).
    let without_metrics = item(ItemKind::Fixed(FixedWidget::GfxMetricsWidget), "", vec![]);

    KernelDetails {
        index: 0,
        name: "k".to_owned(),
        sections: vec![section(
            "All",
            "Everything",
            vec![],
            vec![
                column_major,
                row_major,
                bars,
                lines,
                histogram,
                roofline,
                container,
                fixed_with_entries,
                without_metrics,
            ],
        )],
    }
}

/// A percentage entry named `label`.
fn pct(label: &str, v: f64) -> Entry {
    entry(label, label, Some(MetricValue::Double(v)), "%")
}

/// Two 2-column tables: in column major and in row major order.
fn every_kind_tables() -> [Item; 2] {
    let table = |column_major| {
        ItemKind::Table(TableLayout {
            columns: 2,
            column_major,
            sort: None,
        })
    };
    let column_major = item(
        table(true),
        "Column major",
        vec![
            pct("A1", 1.0),
            pct("A2", 2.0),
            pct("B1", 3.0),
            pct("B2", 4.0),
        ],
    );
    let row_major = item(
        table(false),
        "Row major",
        vec![
            pct("R1", 1.0),
            pct("R2", 2.0),
            pct("S1", 3.0),
            pct("S2", 4.0),
        ],
    );
    [column_major, row_major]
}

/// Bars (one entry without a value), a line chart and a histogram of eight instances.
fn every_kind_charts() -> [Item; 3] {
    let bars = item(
        ItemKind::BarChart {
            axes: ChartAxes::default(),
            sort: None,
        },
        "Throughput bars",
        vec![
            pct("Compute", 85.0),
            pct("Memory", 10.0),
            entry("Gone", "g", None, "%"),
        ],
    );
    let mut occupancy = entry("Warps", "launch__occupancy_per_register_count", None, "");
    occupancy.instances = Some(
        (0..8u32)
            .map(|i| {
                (
                    Some(MetricValue::Uint32(32 * (i + 1))),
                    MetricValue::Double(64.0 / f64::from(i + 1)),
                )
            })
            .collect(),
    );
    let lines = item(
        line_chart(),
        "Occupancy by registers",
        vec![occupancy.clone()],
    );
    let histogram = item(
        ItemKind::Histogram {
            axes: ChartAxes::default(),
        },
        "Histogram of warps",
        vec![occupancy],
    );
    [bars, lines, histogram]
}

/// A roofline with one peak and two achieved points (one without work).
fn every_kind_roofline() -> Item {
    let peaks = vec![RooflinePoint {
        label: "FP32 Peak".to_owned(),
        work: Some(1.0e13),
        traffic: Some(1.0e12),
    }];
    let achieved = vec![
        RooflinePoint {
            label: "FP32 Achieved".to_owned(),
            work: Some(2.0e11),
            traffic: Some(4.0e10),
        },
        RooflinePoint {
            label: "FP64 Achieved".to_owned(),
            work: None,
            traffic: Some(4.0e10),
        },
    ];
    item(roofline_chart(peaks, achieved), "Roofline", vec![])
}

/// A container of a source metric table and a suffix table.
fn every_kind_container() -> Item {
    let mut container = item(ItemKind::Container, "", vec![]);
    container.items = vec![
        item(
            ItemKind::SourceMetricTable(HotSpots {
                rows: 5,
                ascending: false,
            }),
            "Source metrics",
            vec![pct("Src", 1.0)],
        ),
        item(
            ItemKind::SuffixTable {
                row_labels: Vec::new(),
            },
            "Suffixes",
            vec![pct("Base Suffix", 2.0)],
        ),
    ];
    container
}
