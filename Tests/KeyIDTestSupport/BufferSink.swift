import KeyIDKit
import Synchronization

/// Collects text in memory, for tests.
package final class BufferSink: TextSink {
    private let storage = Mutex("")

    package init() {}

    package func write(_ text: String) {
        storage.withLock { $0 += text }
    }

    /// Everything written so far.
    package var text: String {
        storage.withLock { $0 }
    }
}
