/// A rule between two options, which no single option's declaration holds. Each is declared
/// once, in ``each(_:)``: the parser enforces it (a broken rule is a usage error), the help
/// and the manual page state it, and the tests read it from there.
package enum OptionRule: Sendable {
    /// The first option is taken only together with the second, wherever both are taken;
    /// `purpose` says why, in the usage error (`names the ID get stores`).
    case requires(Option, Option, purpose: String)
    /// The two options cannot be given together.
    case excludes(Option, Option)

    /// Hands every rule to `body`, in the order they are checked.
    package static func each<E: Error>(_ body: (OptionRule) throws(E) -> Void) throws(E) {
        try body(.requires(.value, .create, purpose: "names the ID get stores"))
        try body(.requires(.label, .create, purpose: "names the item get stores"))
        try body(.excludes(.value, .derive))
    }

    /// Every rule, for the help, the manual page and the tests.
    package static var all: [OptionRule] {
        var rules: [OptionRule] = []
        each { rules.append($0) }
        return rules
    }

    /// Checks every rule on a command line for `subcommand`, on which `given` says which
    /// options were given.
    static func check(_ subcommand: Subcommand, given: (Option) -> Bool) throws(KeyIDError) {
        try each { rule throws(KeyIDError) in
            switch rule {
            case .requires(let option, let needed, let purpose):
                if given(option), !given(needed), needed.spec.takes(subcommand) {
                    throw .usage("\(option.flag) \(purpose): use it with \(needed.flag)")
                }
            case .excludes(let option, let other):
                if given(option), given(other) {
                    throw .usage("\(option.flag) and \(other.flag) cannot be combined")
                }
            }
        }
    }

    /// The options `option` needs on `subcommand`: those a ``requires(_:_:purpose:)`` rule names
    /// and `subcommand` takes.
    static func required(by option: Option, on subcommand: Subcommand) -> [Option] {
        all.compactMap { rule in
            guard case .requires(option, let needed, _) = rule, needed.spec.takes(subcommand) else { return nil }
            return needed
        }
    }

    /// The two options the rule names.
    package var options: (Option, Option) {
        switch self {
        case .requires(let option, let other, _), .excludes(let option, let other): return (option, other)
        }
    }

    /// The subcommands where the rule holds: those that take both its options.
    package var subcommands: [Subcommand] {
        let (option, other) = options
        return Subcommand.allCases.filter { option.spec.takes($0) && other.spec.takes($0) }
    }

    /// The rule in the manual page's words, for the entry of `option`: the option a
    /// ``requires(_:_:purpose:)`` rule restricts, or either option of an ``excludes(_:_:)``.
    package func sentence(for option: Option) -> String? {
        switch self {
        case .requires(option, let needed, _):
            return "With " + DisplayText.listed(subcommands.map(\.rawValue)) + ", only together with \(needed.flag)."
        case .excludes(option, let other), .excludes(let other, option):
            return "Cannot be combined with \(other.flag)."
        default:
            return nil
        }
    }
}
