import Glibc

/// The one place keyid meets the C library's conventions: errno messages, retrying calls
/// that a signal interrupted, and reading or writing a descriptor whole.
enum POSIX {
    /// The C library's description of an `errno` value (`strerror`).
    static func message(_ code: Int32) -> String {
        guard let text = strerror(code) else { return "error \(code)" }
        return String(cString: text)
    }

    /// Calls `body` again for as long as it fails with `EINTR`; returns its last result,
    /// with `errno` as that call left it.
    static func retrying<Result: BinaryInteger>(_ body: () -> Result) -> Result {
        while true {
            let result = body()
            if result == -1, errno == EINTR { continue }
            return result
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
    /// `limit` + 4096 bytes, the last chunk whole), whichever comes first; `nil` on a read
    /// error (with `errno` set). More than `limit` bytes means the input was too long.
    static func readAll(_ descriptor: Int32, limit: Int) -> [UInt8]? {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while bytes.count <= limit {
            let count = chunk.withUnsafeMutableBytes { buffer in
                retrying { read(descriptor, buffer.baseAddress, buffer.count) }
            }
            if count < 0 { return nil }
            if count == 0 { break }
            bytes += chunk[0..<count]
        }
        return bytes
    }

    /// Writes every byte; returns 0, or the `errno` of the write that failed.
    static func writeAll(_ descriptor: Int32, _ bytes: [UInt8]) -> Int32 {
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeBytes { buffer in
                retrying { write(descriptor, buffer.baseAddress! + offset, buffer.count - offset) }
            }
            if count < 0 { return errno }
            offset += count
        }
        return 0
    }

    /// The whole of a small file (more than `limit` bytes, up to `limit` + 4096, when it is
    /// longer; see ``readAll(_:limit:)``), or the `errno` of the call that failed.
    static func readFile(_ path: String, limit: Int) -> Swift.Result<[UInt8], CodeError> {
        let descriptor = retrying { open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY) }
        guard descriptor >= 0 else { return .failure(CodeError(code: errno)) }
        defer { close(descriptor) }
        guard let bytes = readAll(descriptor, limit: limit) else { return .failure(CodeError(code: errno)) }
        return .success(bytes)
    }

    /// Opens `/dev/null` in place of any of descriptors 0, 1 and 2 that is closed, so that no
    /// descriptor opened later (the lock file, the bus socket) becomes standard output by
    /// accident. Returns the descriptors that were closed: what is written to them fails, as
    /// it would have.
    @discardableResult
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

    /// Records how `signal` is handled now; the function returned puts that back if it changed.
    static func signalDisposition(_ signal: Int32) -> () -> Void {
        var before = sigaction()
        sigaction(signal, nil, &before)
        return {
            var now = sigaction()
            sigaction(signal, nil, &now)
            if unsafeBitCast(now.__sigaction_handler.sa_handler, to: Int.self)
                != unsafeBitCast(before.__sigaction_handler.sa_handler, to: Int.self)
            {
                sigaction(signal, &before, nil)
            }
        }
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

    /// Whether an `errno` value says the reader of a pipe went away.
    static func isBrokenPipe(_ code: Int32) -> Bool { code == EPIPE }

    /// Whether a descriptor is a terminal (`isatty`).
    static func isTerminal(_ descriptor: Int32) -> Bool {
        isatty(descriptor) == 1
    }

    /// Sets (or, given `nil`, removes) a variable of the process environment.
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
        guard case .success(let bytes) = readFile("/proc/sys/kernel/osrelease", limit: 256) else { return false }
        return String(decoding: bytes, as: UTF8.self).lowercased().contains("microsoft")
    }

    /// An `errno` value, as an error.
    struct CodeError: Error {
        var code: Int32
        var message: String { POSIX.message(code) }
    }
}
