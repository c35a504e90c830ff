/// A failure below the library (a system call, a Secret Service call) that stands for one
/// outcome users see.
protocol ReportableFailure: Error {
    /// What the library reports for this failure.
    var outcome: KeyIDError { get }
}

extension ReportableFailure {
    /// `body`'s result; a failure is thrown as its ``outcome``.
    static func reported<T>(_ body: () throws(Self) -> T) throws(KeyIDError) -> T {
        do throws(Self) {
            return try body()
        } catch {
            throw error.outcome
        }
    }
}
