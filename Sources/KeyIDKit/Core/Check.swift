/// One line of `keyid doctor`.
public struct Check: Equatable, Sendable {
    /// How a check came out: fine, worth a look, or what stops keyid.
    public enum Status: String, Sendable {
        /// Fine.
        case ok
        /// Worth a look; keyid works.
        case warning
        /// What stops keyid; the check carries the error.
        case fail = "FAIL"
    }

    /// How it came out.
    public var status: Status
    /// What was checked, e.g. `session bus`.
    public var name: String
    /// What was found, and what to do about it.
    public var detail: String
    /// For a failure: the outcome behind it.
    public var error: KeyIDError?

    /// For a failure: the exit status keyid itself would end with; 0 otherwise.
    public var exitCode: Int32 { error?.exitCode ?? 0 }

    package static func ok(_ name: String, _ detail: String) -> Check {
        Check(status: .ok, name: name, detail: detail)
    }

    package static func warning(_ name: String, _ detail: String) -> Check {
        Check(status: .warning, name: name, detail: detail)
    }

    package static func fail(_ name: String, _ error: KeyIDError) -> Check {
        Check(status: .fail, name: name, detail: error.message, error: error)
    }
}

/// A store that can say, without changing anything, whether it can be used.
package protocol Diagnosable {
    /// Reports the checks of the store's own dependencies, in order, each as soon as it is
    /// done (a later one may stall); a failure ends them.
    func diagnose(_ report: (Check) -> Void)
}
