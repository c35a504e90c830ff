/// Somewhere text goes: standard output, standard error, or a buffer in tests.
package protocol TextSink: AnyObject, Sendable {
    /// Writes all of `text`.
    func write(_ text: String) throws(SystemCallError)
}
