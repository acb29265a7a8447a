//! When a verification must stop: one instant, fixed when the command starts (before the
//! network is loaded: loading counts), passed to every phase, and polled by every loop that can
//! run long — per box, per bounded row or block of rows, per descent step, every few thousand
//! steps of a replay. A phase that finds it passed stops and the answer is `unknown: timeout`;
//! a timeout never turns into `holds` or `violated` (docs/verification.md, "Timeouts").

use std::time::{Duration, Instant};

/// The instant the search stops at, or none.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Deadline(Option<Instant>);

/// What the answer needs after the search stops (the last poll's work, printing, freeing the
/// network): the search stops this long before the timeout, or a tenth of a short timeout.
const ANSWER_MARGIN: Duration = Duration::from_millis(250);

impl Deadline {
    /// No time limit.
    pub const NEVER: Deadline = Deadline(None);

    /// Stops at `instant`.
    pub fn at(instant: Instant) -> Deadline {
        Deadline(Some(instant))
    }

    /// The deadline of a verification given `timeout` from `started`: the timeout less the
    /// margin the answer needs, so that the answer is out by `started + timeout`.
    pub fn of_timeout(started: Instant, timeout: Option<Duration>) -> Deadline {
        Deadline(timeout.map(|t| started + t.saturating_sub(ANSWER_MARGIN.min(t / 10))))
    }

    /// Whether the deadline has passed (one read of the monotonic clock, about 20 ns).
    pub fn passed(self) -> bool {
        self.0.is_some_and(|d| Instant::now() >= d)
    }

    /// The instant, if any.
    pub fn instant(self) -> Option<Instant> {
        self.0
    }

    /// The earlier of this deadline and `other`.
    pub fn earlier(self, other: Instant) -> Deadline {
        Deadline(Some(self.0.map_or(other, |d| d.min(other))))
    }
}

impl From<Option<Instant>> for Deadline {
    fn from(instant: Option<Instant>) -> Deadline {
        Deadline(instant)
    }
}

#[cfg(test)]
#[path = "deadline_tests.rs"]
mod tests;
