/// Somewhere text goes: standard output, standard error, or a buffer in tests.
public protocol TextSink: AnyObject, Sendable {
    func write(_ text: String)
}

/// Writes to a file descriptor, all of it, retrying on interruption.
public final class FileDescriptorSink: TextSink {
    public let descriptor: Int32

    public init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    public func write(_ text: String) {
        _ = POSIX.writeAll(descriptor, Array(text.utf8))
    }
}
