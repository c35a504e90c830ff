/// An option keyid understands, in the order each subcommand's help lists them; ``spec``
/// declares it.
package enum Option: String, CaseIterable, Sendable {
    case create, force, value, service, account, label, derive, onClone, show, format, json
    case backend, collection, user, noPrompt, timeout
    case help, version

    /// The option's declaration (the `switch` below), made once for the process.
    package var spec: OptionSpec {
        Self.specs[Self.allCases.firstIndex(of: self)!]
    }

    private static let specs = allCases.map(\.declaration)

    /// The one place an option is declared: its value's placeholder and choices, its help
    /// line (and the subcommands that word it otherwise), its variable, its check, its default
    /// and the subcommands that take it. Everything else reads it from here.
    private var declaration: OptionSpec {
        let reachingAStore: [Subcommand] = [.create, .get, .delete, .rotate, .list, .doctor]
        switch self {
        case .create:
            return OptionSpec(
                self, summary: "create and store an ID when none is stored", takenBy: [.get])
        case .force:
            return OptionSpec(self, summary: "succeed when no ID is stored", takenBy: [.delete])
        case .value:
            return OptionSpec(
                self, valueName: "-", choices: ["-"],
                summary: "read the new ID from standard input instead of making one",
                summaries: [
                    (
                        .get,
                        "with --create, read the ID to store from standard input; it also replaces a clone under --on-clone rotate"
                    )
                ],
                check: .standardInput, takenBy: [.create, .get, .rotate])
        case .service:
            return OptionSpec(
                self, valueName: "NAME",
                summary: "the service attribute of the item (default: \(ItemKey.defaultService))",
                variable: .service, check: .itemName("the service name"), default: .text(ItemKey.defaultService),
                takenBy: reachingAStore)
        case .account:
            return OptionSpec(
                self, valueName: "NAME",
                summary: "the account attribute of the item (default: \(ItemKey.defaultAccount))",
                variable: .account, check: .itemName("the account name"), default: .text(ItemKey.defaultAccount),
                takenBy: [.create, .get, .delete, .rotate, .doctor])
        case .label:
            return OptionSpec(
                self, valueName: "TEXT",
                summary:
                    "the label keyring managers show for the item it stores (default for a new item: Device ID for SERVICE (ACCOUNT); a rotation without it keeps the label)",
                check: .label, takenBy: [.create, .get, .rotate])
        case .derive:
            return OptionSpec(
                self, valueName: "APP",
                summary: "store the ID derived from this machine and the application ID APP, not a random one",
                check: .application, takenBy: [.create, .rotate])
        case .onClone:
            return OptionSpec(
                self, valueName: "ACTION", choices: ClonePolicy.allCases.map(\.rawValue),
                summary: "when the ID was stored on another machine: warn (default), fail (exit 9) or rotate",
                variable: .onClone, check: .choice(ClonePolicy.self), default: .text(ClonePolicy.warn.rawValue),
                takenBy: [.get])
        case .show:
            return OptionSpec(self, summary: "also print each ID", takenBy: [.list])
        case .format:
            return OptionSpec(
                self, valueName: "FORMAT", choices: IDFormat.allCases.map(\.rawValue),
                summary: "how to print the ID: uuid (default), upper, hex, urn, or env (KEYID_DEVICE_ID=...)",
                check: .choice(IDFormat.self), default: .text(IDFormat.uuid.rawValue),
                takenBy: [.create, .get, .rotate, .derive])
        case .json:
            return OptionSpec(
                self,
                summary:
                    "print one JSON object with \(JSONKey.listed(JSONKey.always)) (and \(JSONKey.listed(JSONKey.occasional)) when an ID was replaced or stored elsewhere)",
                summaries: [
                    (
                        .list,
                        "print one JSON array of objects with \(JSONKey.listed(JSONKey.always.filter { $0 != .id }))"
                    )
                ],
                takenBy: [.create, .get, .rotate, .list])
        case .backend:
            return OptionSpec(
                self, valueName: "BACKEND", choices: BackendChoice.allCases.map(\.rawValue),
                summary: "where IDs live: secret-service (default) or file, for machines without one",
                variable: .backend, check: .choice(BackendChoice.self),
                default: .text(BackendChoice.secretService.rawValue), takenBy: reachingAStore)
        case .collection:
            return OptionSpec(
                self, valueName: "NAME",
                summary:
                    "the keyring to search and store in, by alias (default, login) or label (default: search every keyring, store in the default one)",
                variable: .collection, check: .name, takenBy: reachingAStore)
        case .user:
            return OptionSpec(
                self, valueName: "NAME",
                summary: "act as this user, for root: their session bus, keyring, lock and files",
                variable: .user, check: .name, takenBy: reachingAStore)
        case .noPrompt:
            return OptionSpec(
                self, summary: "never ask to unlock a locked keyring; fail with exit status 4 instead",
                takenBy: [.create, .get, .delete, .rotate, .list])
        case .timeout:
            return OptionSpec(
                self, valueName: "SECONDS",
                summary:
                    "give up after this many seconds with exit status 6 (default: \(Int(CommandTable.defaultTimeout)))",
                variable: .timeout, check: .timeout, default: .seconds(CommandTable.defaultTimeout),
                takenBy: reachingAStore)
        case .help:
            return OptionSpec(self, summary: "show this help", takenBy: Subcommand.allCases, global: true)
        case .version:
            return OptionSpec(self, summary: "print the version", takenBy: [], global: true)
        }
    }

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

/// An option's declaration (see ``Option/spec``), as one subcommand's help shows it once
/// ``for(_:)`` has picked its help line. The parser, ``Settings``, the help, the manual page,
/// the completions and the README's tests read it.
package struct OptionSpec: Sendable {
    package let option: Option
    /// The placeholder for the option's value, or `nil` for a flag.
    package let valueName: String?
    /// The only values the option accepts, when they are a fixed set.
    package let choices: [String]
    /// One line for help texts and completions.
    package let summary: String
    /// The help lines of the subcommands that word the option otherwise than ``summary``.
    let summaries: [(subcommand: Subcommand, summary: String)]
    /// The environment variable that supplies a default, if any.
    package let variable: KeyIDVariable?
    /// How the option's value (given, or from ``variable``) is checked; `nil` for a flag.
    package let check: ValueCheck?
    /// The value when neither the option nor its variable gives one; `nil` when the option
    /// has none (then its setting is unset).
    package let defaultValue: OptionValue?
    /// The subcommands that take the option.
    package let subcommands: [Subcommand]
    /// Whether the option is also accepted without a subcommand.
    package let isGlobal: Bool

    init(
        _ option: Option, valueName: String? = nil, choices: [String] = [], summary: String,
        summaries: [(subcommand: Subcommand, summary: String)] = [], variable: KeyIDVariable? = nil,
        check: ValueCheck? = nil,
        default defaultValue: OptionValue? = nil, takenBy subcommands: [Subcommand], global: Bool = false
    ) {
        self.option = option
        self.valueName = valueName
        self.choices = choices
        self.summary = summary
        self.summaries = summaries
        self.variable = variable
        self.check = check
        self.defaultValue = defaultValue
        self.subcommands = subcommands
        self.isGlobal = global
    }

    package var flag: String { option.flag }

    /// The option as `subcommand`'s help shows it: with the help line that subcommand gives it.
    func `for`(_ subcommand: Subcommand) -> OptionSpec {
        guard let summary = summaries.first(where: { $0.subcommand == subcommand })?.summary else { return self }
        return OptionSpec(
            option, valueName: valueName, choices: choices, summary: summary, variable: variable, check: check,
            default: defaultValue, takenBy: subcommands, global: isGlobal)
    }
}
