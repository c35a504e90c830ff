import KeyIDKit
import Synchronization

/// Collects text in memory, for tests.
public final class BufferSink: TextSink {
    private let storage = Mutex("")

    public init() {}

    @discardableResult
    public func write(_ text: String) -> Int32 {
        storage.withLock { $0 += text }
        return 0
    }

    /// Everything written so far.
    public var text: String {
        storage.withLock { $0 }
    }
}
