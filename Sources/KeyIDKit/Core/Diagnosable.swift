/// A store that can say, without changing anything, whether it can be used.
package protocol Diagnosable {
    /// Reports the checks of the store's own dependencies, in order, each as soon as it is
    /// done (a later one may stall); a failure ends them.
    func diagnose(_ report: (Check) -> Void)
}
