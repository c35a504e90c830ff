import Glibc

/// Somewhere text goes: standard output, standard error, or a buffer in tests.
package protocol TextSink: AnyObject, Sendable {
    /// Writes all of `text`; returns 0, or the `errno` of the write that failed.
    @discardableResult
    func write(_ text: String) -> Int32
}
