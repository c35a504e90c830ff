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
