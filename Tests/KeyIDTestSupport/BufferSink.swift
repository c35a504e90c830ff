import KeyIDKit
import Synchronization

/// Collects text in memory, for tests.
package final class BufferSink: TextSink {
    private let storage = Mutex("")

    package init() {}

    @discardableResult
    package func write(_ text: String) -> Int32 {
        storage.withLock { $0 += text }
        return 0
    }

    /// Everything written so far.
    package var text: String {
        storage.withLock { $0 }
    }
}
