/// Where a value came from, as messages name it.
package enum ValueSource: Sendable {
    case flag(Option)
    case variable(EnvironmentVariable)
    /// The positional argument, named by what it is.
    case argument(String)

    var name: String {
        switch self {
        case .flag(let option): return option.flag
        case .variable(let variable): return variable.rawValue
        case .argument(let what): return what
        }
    }
}
