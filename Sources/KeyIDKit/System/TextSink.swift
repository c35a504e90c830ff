/// Somewhere text goes: standard output, standard error, or a buffer in tests.
public protocol TextSink: AnyObject, Sendable {
    /// Writes all of `text`; returns 0, or the `errno` of the write that failed.
    @discardableResult
    func write(_ text: String) -> Int32
}

/// Writes to a file descriptor, all of it, retrying on interruption.
public final class FileDescriptorSink: TextSink {
    public let descriptor: Int32

    public init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    @discardableResult
    public func write(_ text: String) -> Int32 {
        POSIX.writeAll(descriptor, Array(text.utf8))
    }
}
