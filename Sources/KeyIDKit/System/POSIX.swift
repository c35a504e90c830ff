import Glibc

/// The one place keyid meets the C library's conventions: a failed call as a
/// ``SystemCallError``, retrying calls that a signal interrupted, and reading or writing a
/// descriptor whole. Every wrapper here throws `SystemCallError`.
enum POSIX {
    /// Calls `body` (the C function `call`) again for as long as it fails with `EINTR`, as
    /// swift-system's `valueOrErrno(retryOnInterrupt:)` does; returns its result, or throws
    /// the failure when it returns -1. `close` is never retried (on Linux the descriptor is
    /// gone whatever it returns): pass `retryingOnInterrupt: false`.
    @discardableResult
    static func call<Result: BinaryInteger>(
        _ call: String, retryingOnInterrupt: Bool = true, _ body: () -> Result
    ) throws(SystemCallError) -> Result {
        while true {
            let result = body()
            guard result == -1 else { return result }
            let failure = SystemCallError.last(call)
            if !retryingOnInterrupt || failure.errno != EINTR { throw failure }
        }
    }

    /// Sleeps for `duration` (whole, even when a signal interrupts the wait).
    static func sleep(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        var left = timespec(tv_sec: Int(max(seconds, 0)), tv_nsec: Int(max(attoseconds, 0) / 1_000_000_000))
        var remaining = timespec()
        while nanosleep(&left, &remaining) != 0, errno == EINTR { left = remaining }
    }

    /// Reads a descriptor to its end, or until more than `limit` bytes are read (then up to
    /// `limit` + 4096 bytes, the last chunk whole), whichever comes first. More than `limit`
    /// bytes means the input was too long.
    static func readAll(_ descriptor: Int32, limit: Int) throws(SystemCallError) -> [UInt8] {
        var bytes: [UInt8] = []
        var failure: SystemCallError?
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 4096) { chunk in
            while bytes.count <= limit {
                let count: Int
                do throws(SystemCallError) {
                    count = try call("read") { read(descriptor, chunk.baseAddress, chunk.count) }
                } catch {
                    failure = error
                    return
                }
                if count == 0 { return }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: chunk[..<count]))
            }
        }
        if let failure { throw failure }
        return bytes
    }

    /// Writes every byte.
    static func writeAll(_ descriptor: Int32, _ bytes: [UInt8]) throws(SystemCallError) {
        var offset = 0
        while offset < bytes.count {
            offset += try call("write") {
                bytes.withUnsafeBytes { buffer in write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                }
            }
        }
    }

    /// The whole of a small file (more than `limit` bytes, up to `limit` + 4096, when it is
    /// longer; see ``readAll(_:limit:)``).
    static func readFile(_ path: String, limit: Int) throws(SystemCallError) -> [UInt8] {
        let descriptor = try call("open") { open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY) }
        defer { close(descriptor) }
        return try readAll(descriptor, limit: limit)
    }

    /// The next entry of a directory stream (`readdir`), or `nil` at its end.
    static func nextEntry(_ stream: OpaquePointer) throws(SystemCallError) -> UnsafeMutablePointer<dirent>? {
        // readdir returns nil both at the end and on failure; only errno tells them apart.
        errno = 0
        if let entry = readdir(stream) { return entry }
        if errno != 0 { throw SystemCallError.last("readdir") }
        return nil
    }

    /// Opens `/dev/null` in place of any of descriptors 0, 1 and 2 that is closed, so that no
    /// descriptor opened later (the lock file, the bus socket) becomes standard output by
    /// accident. Returns the descriptors that were closed: what is written to them fails, as
    /// it would have.
    static func reopenClosedStandardDescriptors() -> Set<Int32> {
        var closed: Set<Int32> = []
        for descriptor: Int32 in 0...2 where fcntl(descriptor, F_GETFD) == -1 && errno == EBADF {
            closed.insert(descriptor)
            let opened = open("/dev/null", descriptor == 0 ? O_RDONLY : O_WRONLY)
            if opened >= 0, opened != descriptor {
                dup2(opened, descriptor)
                close(opened)
            }
        }
        return closed
    }

    /// Ends the process as a program whose reader went away ends: by SIGPIPE, even when the
    /// parent left it ignored. Returns the shell's status for it if the signal cannot end it.
    static func endOfBrokenPipe() -> Int32 {
        signal(SIGPIPE, SIG_DFL)
        var pipe = sigset_t()
        sigemptyset(&pipe)
        sigaddset(&pipe, SIGPIPE)
        pthread_sigmask(SIG_UNBLOCK, &pipe, nil)
        raise(SIGPIPE)
        return 128 + SIGPIPE
    }

    /// Whether a failed write says the reader of a pipe went away.
    static func isBrokenPipe(_ failure: SystemCallError) -> Bool { failure.errno == EPIPE }

    /// Whether a descriptor is a terminal (`isatty`).
    static func isTerminal(_ descriptor: Int32) -> Bool {
        isatty(descriptor) == 1
    }

    /// Sets (or, given `nil`, removes) a variable of the process environment.
    /// `mkdir(path, 0700)`; a directory (or anything) already at `path` is no failure.
    static func makeDirectory(_ path: String) throws(SystemCallError) {
        do throws(SystemCallError) {
            try call("mkdir") { mkdir(path, 0o700) }
        } catch {
            if error.errno != EEXIST { throw error }
        }
    }

    static func setEnvironment(_ name: String, _ value: String?) {
        if let value { setenv(name, value, 1) } else { unsetenv(name) }
    }

    /// Whether anything (a link included) is at `path`.
    static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 || errno != ENOENT
    }

    /// Whether `path` is a directory (not a link), owned by `uid` when one is given.
    static func isDirectory(_ path: String, ownedBy uid: UInt32? = nil) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR && (uid.map { info.st_uid == $0 } ?? true)
    }

    /// Whether this is Windows Subsystem for Linux (its kernel names Microsoft).
    static var isWSL: Bool {
        guard let bytes = try? readFile("/proc/sys/kernel/osrelease", limit: 256) else { return false }
        // Compared byte by byte: a `String.contains` would link the string-processing module.
        let lowered = bytes.map { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") ? $0 | 0x20 : $0 }
        let name = Array("microsoft".utf8)
        guard lowered.count >= name.count else { return false }
        return (0...(lowered.count - name.count)).contains { lowered[$0..<($0 + name.count)].elementsEqual(name) }
    }
}

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
