import Glibc

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
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                return
            }
            bytes = bytes.dropFirst(written)
        }
    }
}

/// Collects text in memory, for tests.
public final class BufferSink: TextSink, @unchecked Sendable {
    private var mutex = pthread_mutex_t()
    private var storage = ""

    public init() {
        pthread_mutex_init(&mutex, nil)
    }

    public func write(_ text: String) {
        pthread_mutex_lock(&mutex)
        storage += text
        pthread_mutex_unlock(&mutex)
    }

    /// Everything written so far.
    public var text: String {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        return storage
    }
}
