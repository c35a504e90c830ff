import KeyIDKit
import Synchronization

/// Collects text in memory, for tests.
public final class BufferSink: TextSink {
    private let storage = Mutex("")

    public init() {}

    public func write(_ text: String) {
        storage.withLock { $0 += text }
    }

    /// Everything written so far.
    public var text: String {
        storage.withLock { $0 }
    }
}
