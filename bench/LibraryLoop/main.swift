import Glibc
import KeyIDKit

// The benchmark's in-process loop: N gets on one DeviceIDs instance, timed one by one, as a
// Swift program using the public API would make them (`make bench`, bench/bench.py).
//
//   keyid-bench-loop SERVICE ACCOUNT [N]
//
// getOrCreate first (it opens the connection and the session, and makes the item if it is
// missing), then N gets (1000 by default). Prints one line of JSON on standard output, times
// in microseconds: {"gets": N, "median_us": …, "p90_us": …, "mean_us": …, "samples_us": […]}.
// bench/secretstorage-loop.py prints the same line for Python SecretStorage.

func fail(_ text: String, status: Int32) -> Never {
    let text = "keyid-bench-loop: " + text + "\n"
    _ = write(2, text, text.utf8.count)
    exit(status)
}

/// Microseconds in a duration.
func microseconds(_ duration: Duration) -> Double {
    let (seconds, attoseconds) = duration.components
    return Double(seconds) * 1e6 + Double(attoseconds) / 1e12
}

/// The median (the mean of the middle two for an even count) and the 90th percentile (nearest
/// rank) of sorted samples, as bench.py's Python computes them.
func summary(_ sorted: [Double]) -> (median: Double, p90: Double, mean: Double) {
    let count = sorted.count
    let median = count % 2 == 1 ? sorted[count / 2] : (sorted[count / 2 - 1] + sorted[count / 2]) / 2
    let rank = (count * 9 + 9) / 10  // ceil(0.9 × count)
    return (median, sorted[rank - 1], sorted.reduce(0, +) / Double(count))
}

/// A number for JSON, to the nanosecond.
func json(_ value: Double) -> String {
    String((value * 1000).rounded() / 1000)
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count == 2 || arguments.count == 3 else {
    fail("usage: keyid-bench-loop SERVICE ACCOUNT [N]", status: 2)
}
let (service, account) = (arguments[0], arguments[1])
let count = arguments.count == 3 ? Int(arguments[2]) ?? 0 : 1000
guard count > 0 else { fail("N must be a positive number, not \(arguments[2])", status: 2) }

var samples: [Double] = []
samples.reserveCapacity(count)
do throws(KeyIDError) {
    let ids = try DeviceIDs()
    let expected = try ids.getOrCreate(service: service, account: account)
    let clock = ContinuousClock()
    for _ in 0..<count {
        let start = clock.now
        let id = try ids.get(service: service, account: account)
        samples.append(microseconds(clock.now - start))
        guard id == expected else { fail("get returned \(id.uuidString), not \(expected.uuidString)", status: 1) }
    }
} catch {
    fail(error.message, status: error.exitCode)
}

samples.sort()
let (median, p90, mean) = summary(samples)
print(
    "{\"gets\": \(count), \"median_us\": \(json(median)), \"p90_us\": \(json(p90)), \"mean_us\": \(json(mean)), "
        + "\"samples_us\": [\(samples.map(json).joined(separator: ", "))]}")
