//! `IFrontend.generate_table` (NvRules 2025.3): the table a rule attaches, its configuration
//! (title, description, sorting, styles, per-column tooltip/width/styles), the element kinds
//! of its columns, and the errors NVIDIA's module raises for malformed tables.

use crate::common::rules::apply_rule;
use sightline::rules::model::{CellStyle, ColumnConfig, RuleTable, TableCell, TableSort};

/// Runs `body` as a rule on kernel 0 of the sample; returns the tables of its first message,
/// or the rule's error.
fn tables_of(body: &str) -> Result<Vec<RuleTable>, String> {
    apply_rule("Tables", body).map(|messages| messages[0].tables.clone())
}

fn text(s: &str) -> TableCell {
    TableCell::Text(s.to_owned())
}

#[test]
fn configured_table_keeps_its_sorting_styles_and_column_settings() {
    let tables = tables_of(
        r#"
def apply(handle):
    fe = NvRules.get_context(handle).frontend()
    msg = fe.message(NvRules.MsgType.OPTIMIZATION, "Hot lines", "Lines")
    config = {
        "title": "Hot lines",
        "description": "Lines with the most stalls",
        "sort_by": {"column": "Stalls", "order": "Descending"},
        "style": {"italic": True},
        "per_column_configs": {
            "Line": {"tooltip": "Source line", "relative_width": 0.25,
                     "style": {"header": {"bold": True}, "data": {"bold": True, "italic": False}}},
            1: {"relative_width": 0.75},
        },
    }
    result = fe.generate_table(msg, ["Line", "Stalls", "Share", "Hot"],
                               [["a.cu:10", 5, 0.25, True], ["a.cu:12", 40, 0.5, False],
                                ["a.cu:17", 12, 0.125, True]], config)
    assert result is None
"#,
    )
    .expect("rule ran");
    let table = &tables[0];
    assert_eq!(table.header, ["Line", "Stalls", "Share", "Hot"]);
    assert_eq!(table.title.as_deref(), Some("Hot lines"));
    assert_eq!(
        table.description.as_deref(),
        Some("Lines with the most stalls")
    );
    assert_eq!(
        table.sort,
        Some(TableSort {
            column: 1,
            ascending: false
        })
    );
    assert_eq!(
        table.style,
        Some(CellStyle {
            bold: false,
            italic: true
        })
    );
    assert_eq!(
        table.columns[0],
        ColumnConfig {
            tooltip: Some("Source line".into()),
            relative_width: Some(0.25),
            header_style: Some(CellStyle {
                bold: true,
                italic: false
            }),
            data_style: Some(CellStyle {
                bold: true,
                italic: false
            }),
        }
    );
    // Column 1 is configured by index, as NVIDIA's module allows.
    assert_eq!(table.columns[1].relative_width, Some(0.75));
    assert_eq!(table.columns[2], ColumnConfig::default());
    // Rows are kept as given; booleans are integers (Python's bool is an int), as in NVIDIA's.
    assert_eq!(
        table.rows[0],
        vec![
            text("a.cu:10"),
            TableCell::Int(5),
            TableCell::Double(0.25),
            TableCell::Int(1)
        ]
    );
    // Shown sorted by stalls, most first.
    let shown: Vec<&TableCell> = table.display_rows().iter().map(|r| &r[0]).collect();
    assert_eq!(
        shown,
        [&text("a.cu:12"), &text("a.cu:17"), &text("a.cu:10")]
    );
}

#[test]
fn unconfigured_tables_and_other_element_types() {
    let tables = tables_of(
        r#"
class Opcode:
    def __init__(self, name):
        self.name = name
    def __str__(self):
        return "op:" + self.name

class Broken:
    def __str__(self):
        raise RuntimeError("no text")

def apply(handle):
    fe = NvRules.get_context(handle).frontend()
    msg = fe.message("tables")
    fe.generate_table(msg, ["Opcode"], [[Opcode("FADD")], [Opcode("FMUL")]])
    fe.generate_table(msg, ("Broken",), ((Broken(),),), None)
    fe.generate_table(msg, ["n"], [[2], [1]], {"sort_by": {}})
    assert fe.generate_table(99, ["n"], [[1]]) is None
"#,
    )
    .expect("rule ran");
    assert_eq!(tables.len(), 3);
    assert_eq!(
        tables[0].rows,
        vec![vec![text("op:FADD")], vec![text("op:FMUL")]]
    );
    assert_eq!((tables[0].title.as_ref(), tables[0].sort), (None, None));
    // An object whose str() fails is shown as NVIDIA's module shows it.
    assert_eq!(tables[1].rows, vec![vec![text("???")]]);
    // An empty "sort_by" asks for no sorting: rows stay in the given order.
    assert_eq!(tables[2].sort, None);
    assert_eq!(tables[2].display_rows()[0], [TableCell::Int(2)]);
}

#[test]
fn malformed_tables_raise_nvidias_errors() {
    let cases: [(&str, &str); 10] = [
        ("[], []", "ValueError: No rows in data"),
        ("['a'], [[]]", "ValueError: No columns in first row of data"),
        (
            "['a'], [[1], [1, 2]]",
            "ValueError: Row 1 has different length (2) than first row (1)",
        ),
        ("[], [[1]]", "ValueError: No columns in header"),
        (
            "['a', 'b'], [[1]]",
            "ValueError: Number of columns in header (2) does not match number of columns in data (1)",
        ),
        (
            "['a'], [[1], [True]]",
            "TypeError: Column 0 has mixed types: <class 'bool'> (row 1) and <class 'int'> (row 0)",
        ),
        (
            "['a'], [[1]], {'sort_by': {'column': 'b'}}",
            "ValueError: Invalid column name in \"sort_by\": b",
        ),
        (
            "['a'], [[1]], {'sort_by': {'order': 'descending'}}",
            "ValueError: No column specified in \"sort_by\"",
        ),
        (
            "['a'], [[1]], {'sort_by': {'column': 0, 'order': 'up'}}",
            "ValueError: Invalid order keyword in \"sort_by\": up.",
        ),
        (
            "['a'], [[1]], {'sort_by': {'column': 1}}",
            "ValueError: Invalid column index in \"sort_by\": 1",
        ),
    ];
    for (args, expected) in cases {
        let body = format!(
            "def apply(handle):\n    fe = NvRules.get_context(handle).frontend()\n    fe.generate_table(fe.message('t'), {args})\n"
        );
        let error = tables_of(&body).expect_err(args);
        assert!(
            error.contains(expected),
            "generate_table({args}): expected {expected:?} in\n{error}"
        );
    }
}
