import Glibc

/// A failure of keyid's own use of the system (the lock file, private directories, the
/// machine ID file, the file backend, user accounts): the ``outcome`` the library reports,
/// and the failed C call behind it (``systemCall``), for tests and callers that tell one
/// `errno` from another.
package struct SystemFailure: ReportableFailure, Equatable, Sendable {
    /// What the library reports.
    package var outcome: KeyIDError
    /// The C call that failed and its `errno`; `nil` for a refusal keyid made itself (a link,
    /// another user's file, a mode open to others).
    package var systemCall: SystemCallError?

    package init(_ outcome: KeyIDError, systemCall: SystemCallError? = nil) {
        self.outcome = outcome
        self.systemCall = systemCall
    }

    /// The `errno` of the failed call, if one failed.
    package var errno: Int32? { systemCall?.errno }
}

/// A C call that failed: the call's name and the `errno` it left, as swift-system's `Errno`
/// keeps one. Its description is the C library's text for the `errno` (`strerror`), which is
/// what messages show; callers tell failures apart by ``errno``.
package struct SystemCallError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The C function that failed, e.g. `openat`.
    package var call: String
    /// The `errno` value it failed with, e.g. `ELOOP`.
    package var errno: Int32

    package init(_ call: String, errno: Int32) {
        self.call = call
        self.errno = errno
    }

    /// The failure of `call`, with the `errno` the C library holds now.
    package static func last(_ call: String) -> SystemCallError {
        SystemCallError(call, errno: Glibc.errno)
    }

    /// The C library's description of the `errno` (`strerror`).
    package var description: String {
        guard let text = strerror(errno) else { return "error \(errno)" }
        return String(cString: text)
    }
}
