/// What keyid's own use of the system throws (the lock file, the private directories, the
/// machine ID file, the file backend, user accounts): the ``outcome`` the library reports,
/// whose message is the sentence users read, and the failed C call behind it, when there was
/// one (``systemCall``), so that a caller tells one `errno` from another. The outcome's public
/// payload stays a sentence (``KeyIDError/Failure/lockFile(_:)`` and the like cannot carry
/// more without changing the public API); ``reported(_:)`` hands on the outcome alone where a
/// caller speaks ``KeyIDError``.
package struct SystemFailure: Error, Equatable, Sendable {
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

    /// `body`'s result; a failure is thrown as its ``outcome``.
    package static func reported<T>(_ body: () throws(SystemFailure) -> T) throws(KeyIDError) -> T {
        do throws(SystemFailure) {
            return try body()
        } catch {
            throw error.outcome
        }
    }
}
