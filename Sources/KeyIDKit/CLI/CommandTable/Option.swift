/// An option keyid understands; ``CommandTable`` describes each one.
package enum Option: String, CaseIterable, Sendable {
    case service, account, format, json, create, force, value, derive, onClone, show, backend, collection, user
    case label, noPrompt, timeout
    case help, version

    /// The one-letter spelling the option also has (`-h`), if any.
    package var shortFlag: String? { self == .help ? "-h" : nil }

    /// Every spelling, the short one first: `-h`, `--help`.
    package var spellings: [String] { (shortFlag.map { [$0] } ?? []) + [flag] }

    /// How the option is spelled on the command line: `--` and the name in kebab case.
    package var flag: String {
        var spelled = "--"
        for character in rawValue {
            if character.isUppercase {
                spelled += "-" + character.lowercased()
            } else {
                spelled.append(character)
            }
        }
        return spelled
    }
}
