/// Somewhere text goes: standard output, standard error, or a buffer in tests.
package protocol TextSink: AnyObject, Sendable {
    /// Writes all of `text`; returns 0, or the `errno` of the write that failed.
    @discardableResult
    func write(_ text: String) -> Int32
}

/// Writes to a file descriptor, all of it, retrying on interruption.
package final class FileDescriptorSink: TextSink {
    package let descriptor: Int32

    package init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    @discardableResult
    package func write(_ text: String) -> Int32 {
        POSIX.writeAll(descriptor, Array(text.utf8))
    }
}
