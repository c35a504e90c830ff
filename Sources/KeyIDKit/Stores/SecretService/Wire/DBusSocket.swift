import Glibc

/// A connected Unix stream socket whose every read and write is bounded by a deadline. It is
/// non-blocking once connected and close-on-exec; writes never raise SIGPIPE.
final class DBusSocket {
    /// Why a socket operation failed.
    enum Problem: Error, Equatable {
        case timedOut
        /// The peer closed the connection, or it broke (`EPIPE`, `ECONNRESET`).
        case closed
        /// Any other failure, with its `errno` value.
        case failed(Int32)
    }

    private let descriptor: Int32
    /// Where each read lands before it is appended to the caller's buffer.
    private let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 65_536, alignment: 8)

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    deinit {
        close(descriptor)
        scratch.deallocate()
    }

    /// Connects to `socket`, waiting at most `timeout` for a full listen queue to make room.
    static func connect(to socket: DBusAddress.Socket, timeout: Duration) -> Result<DBusSocket, Problem> {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        let name: [UInt8]
        switch socket {
        case .path(let path): name = path + [0]
        case .abstract(let abstract): name = [0] + abstract
        }
        guard name.count <= capacity else { return .failure(.failed(ENAMETOOLONG)) }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: name) }
        let length = socklen_t(MemoryLayout<sockaddr_un>.offset(of: \.sun_path)! + name.count)

        let descriptor = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return .failure(.failed(errno)) }
        let owner = DBusSocket(descriptor: descriptor)
        // A blocking connect to a Unix socket waits while the listener's queue is full; the
        // send timeout bounds that wait (EAGAIN when it runs out).
        var limit = timeval(duration: timeout)
        _ = setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                POSIX.retrying { Glibc.connect(descriptor, pointer, length) }
            }
        }
        if result != 0, errno != EISCONN {
            return .failure(errno == EAGAIN || errno == ETIMEDOUT ? .timedOut : .failed(errno))
        }
        let flags = fcntl(descriptor, F_GETFL)
        guard flags >= 0, fcntl(descriptor, F_SETFL, flags | O_NONBLOCK) == 0 else { return .failure(.failed(errno)) }
        return .success(owner)
    }

    /// Writes every byte before `deadline`.
    func send(_ bytes: [UInt8], deadline: MonotonicInstant) throws(Problem) {
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeBytes { buffer in
                Glibc.send(descriptor, buffer.baseAddress! + offset, buffer.count - offset, Int32(MSG_NOSIGNAL))
            }
            if count >= 0 {
                offset += count
                continue
            }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: try wait(for: Int16(POLLOUT), until: deadline)
            case EPIPE, ECONNRESET: throw .closed
            case let code: throw .failed(code)
            }
        }
    }

    /// Appends what arrives next to `buffer`, waiting until `deadline` (without limit when
    /// it is `nil`) for something to arrive.
    func receive(into buffer: inout [UInt8], deadline: MonotonicInstant?) throws(Problem) {
        while true {
            let count = recv(descriptor, scratch.baseAddress, scratch.count, 0)
            if count > 0 {
                buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: scratch[0..<count]))
                return
            }
            if count == 0 { throw .closed }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: try wait(for: Int16(POLLIN), until: deadline)
            case ECONNRESET, EPIPE: throw .closed
            case let code: throw .failed(code)
            }
        }
    }

    /// Waits until the socket is ready for `events`, or has failed, or `deadline` passes.
    private func wait(for events: Int16, until deadline: MonotonicInstant?) throws(Problem) {
        while true {
            var milliseconds: Int32 = -1
            if let deadline {
                let remaining = deadline - MonotonicInstant.now
                guard remaining > .zero else { throw .timedOut }
                let (seconds, attoseconds) = remaining.components
                let rounded = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
                milliseconds = Int32(clamping: rounded)
            }
            var entry = pollfd(fd: descriptor, events: events, revents: 0)
            let ready = poll(&entry, 1, milliseconds)
            if ready > 0 { return }  // also on POLLHUP or POLLERR: the next call reports them
            if ready < 0, errno != EINTR { throw .failed(errno) }
        }
    }
}

extension timeval {
    /// A `timeval` of `duration`, at least one microsecond (zero would mean no limit).
    fileprivate init(duration: Duration) {
        let (seconds, attoseconds) = duration.components
        // At most a year: a longer send timeout means no timeout, and would overflow here.
        let microseconds = max(min(seconds, 31_536_000) * 1_000_000 + attoseconds / 1_000_000_000_000, 1)
        self.init(tv_sec: Int(microseconds / 1_000_000), tv_usec: Int(microseconds % 1_000_000))
    }
}
