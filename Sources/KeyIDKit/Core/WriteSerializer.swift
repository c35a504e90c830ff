/// Keeps keyid's own read-modify-write sequences from interleaving, across processes and
/// (where the implementation says so) across threads.
package protocol WriteSerializer: Sendable {
    /// Runs `body` while holding the serialiser.
    func exclusively<T>(_ body: () throws(KeyIDError) -> T) throws(KeyIDError) -> T
}
