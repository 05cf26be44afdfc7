//! Driving the whole app headless (egui_kittest).

use std::time::{Duration, Instant};

use egui_kittest::Harness;
use sightline::app::SightlineApp;

/// Steps the app until `done` holds (reports load and rules run on real threads); panics with
/// `what` after `limit`.
pub fn step_until(
    harness: &mut Harness<'static, SightlineApp>,
    what: &str,
    limit: Duration,
    done: impl Fn(&Harness<'static, SightlineApp>) -> bool,
) {
    let start = Instant::now();
    loop {
        harness.step();
        if done(harness) {
            harness.step();
            return;
        }
        assert!(start.elapsed() < limit, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(10));
    }
}
