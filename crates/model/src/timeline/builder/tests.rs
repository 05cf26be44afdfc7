//! The builder's unit tests: layouts, rows, re-building a finished timeline.

use super::*;

fn ev(kind: EventKind, start: i64, end: i64, name: StrId) -> NewEvent {
    NewEvent::new(kind, start, end, name, 0)
}

#[test]
fn nested_layout_gives_depths_and_rows_do_not_overlap() {
    let mut b = TimelineBuilder::new("t");
    let t = b.track(None, TrackKind::Thread, 1, || "T".into());
    let n = b.intern("x");
    // Outer 0..100 holds 10..20 (which holds 12..15) and 30..40; 100..110 follows.
    for (s, e) in [(30, 40), (0, 100), (12, 15), (10, 20), (100, 110)] {
        b.push(t, ev(EventKind::NvtxPushPop, s, e, n));
    }
    let tl = b.finish();
    let rows = &tl.tracks[0].rows;
    assert_eq!(rows.len(), 3);
    let starts = |r: &std::ops::Range<u32>| -> Vec<i64> {
        r.clone().map(|i| tl.start_of(i as usize)).collect()
    };
    assert_eq!(starts(&rows[0]), vec![0, 100]);
    assert_eq!(starts(&rows[1]), vec![10, 30]);
    assert_eq!(starts(&rows[2]), vec![12]);
}

#[test]
fn a_finished_timeline_reopens_for_more_events() {
    let mut b = TimelineBuilder::new("t");
    let api = b.track(None, TrackKind::Thread, 1, || "T".into());
    let gpu = b.track(None, TrackKind::Stream, 7, || "S".into());
    let n = b.intern("k");
    let call = b.push(api, ev(EventKind::CudaApi, 0, 5, n));
    let k = b.push(gpu, ev(EventKind::Kernel, 10, 20, n));
    b.add_flow(call, k);
    b.set_attrs(
        k,
        EventAttrs {
            color: Some(0xFF00_00FF),
            ..Default::default()
        },
    );
    let first = b.finish();
    let mut again = TimelineBuilder::from_timeline(&first);
    let file = again.track(None, TrackKind::Series, 99, || "notes.nvtxt".into());
    let m = again.intern("mark");
    again.push(file, ev(EventKind::Marker, 3, 3, m));
    again.push(api, ev(EventKind::CudaApi, 6, 8, n));
    again.warn_file("notes.nvtxt", Location::line(2), "unknown colour");
    let tl = again.finish();
    assert_eq!(tl.event_count(), 4);
    assert_eq!(tl.tracks.len(), 3);
    assert_eq!(tl.flows().len(), 1);
    let kernel = tl
        .events()
        .find(|e| e.kind == EventKind::Kernel)
        .map(|e| e.id);
    assert_eq!(
        kernel.and_then(|k| tl.attrs(k)).and_then(|a| a.color),
        Some(0xFF00_00FF)
    );
    assert_eq!(tl.warnings[0].file, PathBuf::from("notes.nvtxt"));
}

#[test]
fn an_end_set_later_moves_the_event_and_may_make_it_long() {
    let mut b = TimelineBuilder::new("t");
    let t = b.track(None, TrackKind::Thread, 1, || "T".into());
    let n = b.intern("r");
    let open = b.push(t, ev(EventKind::NvtxPushPop, 10, 10, n));
    let inner = b.push(t, ev(EventKind::NvtxPushPop, 20, 30, n));
    let back = b.push(t, ev(EventKind::NvtxPushPop, 40, 6_000_000_000, n));
    b.set_end(open, 8_000_000_000);
    // Back to 32 bits, and an end before the start is an instant.
    b.set_end(back, 50);
    b.set_end(inner, 5);
    let tl = b.finish();
    let ends: Vec<(i64, i64)> = tl.events().map(|e| (e.start, e.end)).collect();
    assert_eq!(ends, vec![(10, 8_000_000_000), (20, 20), (40, 50)]);
    assert_eq!(tl.tracks[0].rows.len(), 2);
}

#[test]
fn events_alike_keep_push_order_and_share_one_attribute_set() {
    let mut b = TimelineBuilder::new("t");
    let t = b.track(None, TrackKind::Stream, 1, || "S".into());
    b.set_layout(t, Layout::Lanes);
    let names: Vec<StrId> = ["a", "b", "c"].iter().map(|s| b.intern(s)).collect();
    let red = EventAttrs {
        color: Some(0xFFFF_0000),
        ..Default::default()
    };
    for &n in &names {
        let e = b.push(t, ev(EventKind::Kernel, 5, 9, n));
        b.set_attrs(e, red.clone());
    }
    let tl = b.finish();
    let order: Vec<StrId> = (0..3)
        .map(|i| tl.event(EventId(i)).map(|e| e.name))
        .map(Option::unwrap)
        .collect();
    assert_eq!(order, names);
    assert_eq!(tl.attr_sets.len(), 1);
    assert!((0..3).all(|i| tl.attrs(EventId(i)) == Some(&red)));
}

#[test]
fn lanes_and_flows_and_long_durations() {
    let mut b = TimelineBuilder::new("t");
    let api = b.track(None, TrackKind::Thread, 1, || "T".into());
    let gpu = b.track(None, TrackKind::Stream, 7, || "S".into());
    b.set_layout(gpu, Layout::Lanes);
    let n = b.intern("k");
    let call = b.push(api, ev(EventKind::CudaApi, 0, 5, n));
    let k1 = b.push(gpu, ev(EventKind::Kernel, 10, 20, n));
    let k2 = b.push(gpu, ev(EventKind::Kernel, 15, 10_000_000_000, n));
    assert_eq!(b.link_by_key(vec![(1, call)], &[(1, k1), (2, k2)]), 1);
    let tl = b.finish();
    assert_eq!(tl.tracks[1].rows.len(), 2);
    let k2id = EventId(tl.tracks[1].rows[1].start);
    assert_eq!(tl.event(k2id).map(|e| e.end), Some(10_000_000_000));
    let k1id = EventId(tl.tracks[1].rows[0].start);
    assert_eq!(tl.flow_partners(EventId(0)), vec![k1id]);
    assert_eq!(tl.flow_partners(k1id), vec![EventId(0)]);
    assert!(tl.flow_partners(k2id).is_empty());
    assert_eq!(tl.locate(k2id), Some((TrackId(1), 1)));
}

#[test]
fn a_sketch_covers_every_event_of_large_tracks_in_few_spans() {
    let mut b = TimelineBuilder::new("t");
    let big = b.track(None, TrackKind::Thread, 1, || "big".into());
    let small = b.track(None, TrackKind::Thread, 2, || "small".into());
    let (n, m) = (b.intern("k"), b.intern("s"));
    let mut events = Vec::new();
    // Bursts with gaps, out of order, one long event across several bursts.
    for burst in [5_000i64, 0, 20_000, 9_000] {
        for i in 0..500 {
            events.push((burst + i * 3, burst + i * 3 + 2));
        }
    }
    events.push((1_000, 9_500));
    for &(s, e) in &events {
        b.push(big, ev(EventKind::Kernel, s, e, n));
    }
    let call = b.push(small, ev(EventKind::CudaApi, 100, 200, m));
    let work = b.push(small, ev(EventKind::CudaApi, 300, 400, m));
    b.add_flow(call, work);
    let tl = b.sketch(64);
    assert!(tl.partial);
    let spans: Vec<_> = tl
        .events()
        .filter(|e| tl.name(e.name) == "[events being read]")
        .collect();
    assert!(!spans.is_empty() && spans.len() <= 64, "{}", spans.len());
    for &(s, e) in &events {
        assert!(
            spans.iter().any(|x| x.start <= s && e <= x.end),
            "{s}..{e} not covered"
        );
    }
    assert!(spans.windows(2).all(|w| w[0].end < w[1].start));
    assert!(spans.iter().all(|e| tl.is_sketch(e.id)));
    assert_eq!(tl.events_read(), events.len() + 2);
    // The small track as it is, with its flow; the builder goes on whole.
    let kept: Vec<_> = tl.events().filter(|e| tl.name(e.name) == "s").collect();
    assert_eq!(kept.len(), 2);
    assert_eq!(tl.flows().len(), 1);
    assert_eq!(b.event_count(), events.len() + 2);
    assert_eq!(b.finish().event_count(), events.len() + 2);
}
