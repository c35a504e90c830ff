import Glibc

/// A point in time on the monotonic clock (`CLOCK_MONOTONIC`), for deadlines (doc/PERFORMANCE.md
/// says why not `ContinuousClock`).
package struct MonotonicInstant: Comparable, Sendable {
    /// Nanoseconds since an arbitrary point (the kernel's boot, in practice).
    private let nanoseconds: Int64

    /// Now.
    package static var now: MonotonicInstant {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return MonotonicInstant(nanoseconds: Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec))
    }

    /// The instant `duration` later; a sum past the clock's range stays at its end.
    package static func + (instant: MonotonicInstant, duration: Duration) -> MonotonicInstant {
        let (seconds, attoseconds) = duration.components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        let (sum, overflowed) = instant.nanoseconds.addingReportingOverflow(whole + attoseconds / 1_000_000_000)
        return MonotonicInstant(nanoseconds: overflow || overflowed ? .max : sum)
    }

    /// How long from `earlier` to this instant.
    package static func - (instant: MonotonicInstant, earlier: MonotonicInstant) -> Duration {
        .nanoseconds(instant.nanoseconds &- earlier.nanoseconds)
    }

    package static func < (a: MonotonicInstant, b: MonotonicInstant) -> Bool { a.nanoseconds < b.nanoseconds }
}
