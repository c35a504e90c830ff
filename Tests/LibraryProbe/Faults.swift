import Glibc
import KeyIDKit

// Modes for buses and providers that misbehave:
//
//   keyid-library-probe connects N SERVICE ACCOUNT MILLISECONDS
//       one instance, N gets with that timeout; prints "first FDS THREADS RSS" after the first,
//       "after FDS THREADS RSS" after the last and "kinds KIND:COUNT,..." (as `forks` words
//       them); then waits up to 10 s for fewer descriptors than after the first (the bus went
//       away, and what the connect held was let go), and prints "end FDS THREADS RSS"

/// The `connects` mode (see the top of this file).
func connects(count: Int, service: String, account: String, milliseconds: Int) {
    guard let ids = try? DeviceIDs(options: .init(timeout: .milliseconds(milliseconds))) else { exit(1) }
    var kinds: [String: Int] = [:]
    var first = ""
    for index in 0..<count {
        let (word, _) = kind { () throws(KeyIDError) in _ = try ids.get(service: service, account: account) }
        kinds[word, default: 0] += 1
        if index == 0 {
            first = footprint()
            line("first " + first)
        }
    }
    line("after " + footprint())
    line("kinds " + kinds.sorted { $0.key < $1.key }.map { "\($0.key):\($0.value)" }.joined(separator: ","))
    let descriptors = first.split(separator: " ").first.flatMap { Int($0) } ?? 0
    for _ in 0..<100 where (footprint().split(separator: " ").first.flatMap { Int($0) } ?? 0) >= descriptors {
        usleep(100_000)
    }
    line("end " + footprint())
}
