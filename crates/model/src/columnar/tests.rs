use super::*;

fn build(kind: Option<Kind>, values: &[Value<'_>]) -> ColumnBuilder {
    let mut b = ColumnBuilder::new("c", kind);
    for v in values {
        b.push(*v);
    }
    b
}

#[test]
fn integers_with_nulls() {
    let b = build(
        Some(Kind::Int),
        &[Value::Int(3), Value::Null, Value::Int(-7)],
    );
    assert_eq!(b.mismatched, 0);
    let c = b.finish();
    assert_eq!(c.values, Values::Int64(vec![3, 0, -7]));
    assert_eq!(c.validity, Some(vec![true, false, true]));
    assert_eq!(c.null_count(), 1);
    assert!(!c.is_valid(1));
}

#[test]
fn full_column_has_no_validity() {
    let c = build(Some(Kind::Float), &[Value::Float(1.5), Value::Int(2)]).finish();
    assert_eq!(c.values, Values::Float64(vec![1.5, 2.0]));
    assert_eq!(c.validity, None);
}

#[test]
fn a_float_in_an_integer_column_widens_it() {
    let b = build(
        Some(Kind::Int),
        &[Value::Int(1), Value::Null, Value::Float(2.5)],
    );
    assert_eq!(b.mismatched, 1);
    let c = b.finish();
    assert_eq!(c.values, Values::Float64(vec![1.0, 0.0, 2.5]));
    assert_eq!(c.validity, Some(vec![true, false, true]));
}

#[test]
fn text_in_a_number_column_makes_it_text_as_sqlite_casts() {
    let c = build(
        Some(Kind::Float),
        &[
            Value::Float(3.0),
            Value::Null,
            Value::Text(b"n/a"),
            Value::Float(0.25),
        ],
    )
    .finish();
    let Values::Utf8(s) = &c.values else {
        panic!("not text: {c:?}")
    };
    let texts: Vec<&[u8]> = (0..s.len()).filter_map(|i| s.get(i)).collect();
    assert_eq!(texts, [&b"3.0"[..], b"", b"n/a", b"0.25"]);
    assert_eq!(c.validity, Some(vec![true, false, true, true]));
}

#[test]
fn untyped_column_takes_its_first_value_kind_after_nulls() {
    let c = build(None, &[Value::Null, Value::Null, Value::Blob(b"\x00\x01")]).finish();
    let Values::Binary(s) = &c.values else {
        panic!("not bytes: {c:?}")
    };
    assert_eq!(s.len(), 3);
    assert_eq!(s.get(2), Some(&b"\x00\x01"[..]));
    assert_eq!(c.validity, Some(vec![false, false, true]));
    let only_nulls = build(None, &[Value::Null]).finish();
    assert_eq!(only_nulls.values.type_name(), "string");
    assert_eq!(only_nulls.null_count(), 1);
}

#[test]
fn non_utf8_text_is_counted_and_replaced() {
    let b = build(
        Some(Kind::Text),
        &[Value::Text(b"ok"), Value::Text(b"\xffx")],
    );
    assert_eq!(b.not_utf8, 1);
    let c = b.finish();
    let Values::Utf8(s) = &c.values else {
        panic!("not text")
    };
    assert_eq!(s.get(1), Some("\u{fffd}x".as_bytes()));
}

#[test]
fn parquet_round_trip_keeps_types_nulls_and_values() {
    use ::parquet::file::reader::{FileReader, SerializedFileReader};
    use ::parquet::record::Field;
    let table = ColumnTable {
        name: "T".into(),
        columns: vec![
            Column {
                name: "i".into(),
                ..build(Some(Kind::Int), &[Value::Int(5), Value::Null]).finish()
            },
            Column::full("f", Values::Float64(vec![0.5, -1.0])),
            build(
                Some(Kind::Text),
                &[Value::Null, Value::Text("é".as_bytes())],
            )
            .finish(),
            Column::full(
                "d",
                Values::Dictionary {
                    keys: vec![1, 0],
                    dictionary: vec!["a".into(), "b".into()],
                },
            ),
        ],
        rows: 2,
        warnings: Vec::new(),
    };
    let mut bytes = Vec::new();
    parquet::write_to(&table, &mut bytes).unwrap();
    let reader = SerializedFileReader::new(bytes::Bytes::from(bytes)).unwrap();
    let rows: Vec<Vec<Field>> = reader
        .get_row_iter(None)
        .unwrap()
        .map(|r| {
            r.unwrap()
                .get_column_iter()
                .map(|(_, f)| f.clone())
                .collect()
        })
        .collect();
    assert_eq!(
        rows,
        vec![
            vec![
                Field::Long(5),
                Field::Double(0.5),
                Field::Null,
                Field::Str("b".into())
            ],
            vec![
                Field::Null,
                Field::Double(-1.0),
                Field::Str("é".into()),
                Field::Str("a".into())
            ],
        ]
    );
}

#[test]
fn parquet_of_an_empty_table_keeps_its_schema() {
    use ::parquet::file::reader::{FileReader, SerializedFileReader};
    let table = ColumnTable {
        name: "E".into(),
        columns: vec![Column::full("x", Values::Int64(Vec::new()))],
        rows: 0,
        warnings: Vec::new(),
    };
    let mut bytes = Vec::new();
    parquet::write_to(&table, &mut bytes).unwrap();
    let reader = SerializedFileReader::new(bytes::Bytes::from(bytes)).unwrap();
    let meta = reader.metadata().file_metadata();
    assert_eq!(meta.num_rows(), 0);
    assert_eq!(meta.schema_descr().column(0).name(), "x");
}
