import Glibc

/// Somewhere text goes: standard output, standard error, or a buffer in tests.
package protocol TextSink: AnyObject, Sendable {
    /// Writes all of `text`.
    func write(_ text: String) throws(SystemCallError)
}

/// Writes to a file descriptor, all of it, retrying on interruption.
package final class FileDescriptorSink: TextSink {
    package let descriptor: Int32
    /// Whether the descriptor was closed when the process started (and now holds
    /// `/dev/null`, see ``POSIX/reopenClosedStandardDescriptors()``): writes fail with `EBADF`,
    /// as they would have, rather than vanish.
    package let wasClosed: Bool

    package init(descriptor: Int32, wasClosed: Bool = false) {
        self.descriptor = descriptor
        self.wasClosed = wasClosed
    }

    package func write(_ text: String) throws(SystemCallError) {
        if wasClosed { throw SystemCallError("write", errno: EBADF) }
        try POSIX.writeAll(descriptor, Array(text.utf8))
    }
}
