/// An option keyid understands, spelled `--` and its raw value, in the order each
/// subcommand's help and the manual page list them; ``spec`` declares it.
package enum Option: String, CaseIterable, Sendable {
    case create, force, value, service, account, label, derive
    case onClone = "on-clone"
    case show, format, json, backend, collection, user
    case noPrompt = "no-prompt"
    case timeout, help, version

    /// The option spelled `--` and `rawValue` (``named(_:)`` says why it is written here).
    package init?(rawValue: String) {
        guard let found = Self.named(rawValue) else { return nil }
        self = found
    }

    /// Which of several bad values on one command line is reported (``Parser/checkValues(_:for:)``):
    /// the option first among the options of each subcommand in turn, in ``Subcommand``'s order,
    /// each in this type's order and each once. (The order keyid has always checked them in.)
    var checkRank: Int {
        let spec = spec
        let first = Subcommand.allCases.firstIndex { spec.takes($0) } ?? Subcommand.allCases.count
        return first * Self.allCases.count + (Self.allCases.firstIndex(of: self) ?? 0)
    }

    /// The one place an option is declared: its value's placeholder, the subcommands that
    /// take it, its variable and default, how its value is checked into its typed place in
    /// ``Settings``, its help line and choices, and its line in the guide's table. The parser, ``Settings``, the help, the
    /// manual page, the completions and the guide's tables read it from here. Building it is
    /// cheap: its texts are made only when the help asks for them.
    package var spec: OptionSpec {
        let reachingAStore: [Subcommand] = [.create, .get, .delete, .rotate, .list, .doctor]
        switch self {
        case .create:
            return OptionSpec(
                self, takenBy: [.get], set: { $0.create = true },
                help: { _ in "create and store an ID when none is stored" })
        case .force:
            return OptionSpec(
                self, takenBy: [.delete], set: { $0.force = true },
                help: { _ in "succeed when no ID is stored" })
        case .value:
            return OptionSpec(
                self, "-", takenBy: [.create, .get, .rotate], choices: { ["-"] },
                check: { settings, text, source throws(KeyIDError) in
                    try ValueCheck.standardInput(text, source)
                    settings.valueFromInput = true
                },
                guide:
                    "read the ID to store from standard input (never from the command line, where `ps` would show it; see below)",
                help: { subcommand in
                    subcommand == .get
                        ? "read the ID to store from standard input; it also replaces a clone under --on-clone rotate"
                        : "read the new ID from standard input instead of making one"
                })
        case .service:
            return OptionSpec(
                self, "NAME", takenBy: reachingAStore, variable: .service, default: ItemKey.defaultService,
                refusesEmptyVariable: true,
                check: { settings, text, source throws(KeyIDError) in
                    settings.service = try ValueCheck.itemName(text, source, "the service name")
                },
                guide: "the `service` attribute of the item",
                help: { _ in "the service attribute of the item (default: \(ItemKey.defaultService))" })
        case .account:
            return OptionSpec(
                self, "NAME", takenBy: [.create, .get, .delete, .rotate, .doctor], variable: .account,
                default: ItemKey.defaultAccount, refusesEmptyVariable: true,
                check: { settings, text, source throws(KeyIDError) in
                    settings.account = try ValueCheck.itemName(text, source, "the account name")
                },
                guide: "the `account` attribute of the item",
                help: { _ in "the account attribute of the item (default: \(ItemKey.defaultAccount))" })
        case .label:
            return OptionSpec(
                self, "TEXT", takenBy: [.create, .get, .rotate],
                check: { settings, text, source throws(KeyIDError) in
                    settings.details = ItemDetails(label: try ValueCheck.label(text, source))
                },
                guide:
                    "the label keyring managers (Seahorse, KWallet) show for the item an ID is stored in (default `Device ID for SERVICE (ACCOUNT)`; a rotation without it keeps the label)",
                help: { _ in
                    "the label keyring managers show for the item it stores (default for a new item: Device ID for SERVICE (ACCOUNT); a rotation without it keeps the label)"
                })
        case .derive:
            return OptionSpec(
                self, "APP", takenBy: [.create, .rotate],
                check: { settings, text, source throws(KeyIDError) in
                    settings.application = try ValueCheck.application(text, source)
                },
                guide: "store the ID derived from this machine for application APP (see below)",
                help: { _ in "store the ID derived from this machine and the application ID APP, not a random one" })
        case .onClone:
            return OptionSpec(
                self, "ACTION", takenBy: [.get], variable: .onClone, default: ClonePolicy.warn.rawValue,
                choices: { ClonePolicy.allCases.map(\.rawValue) },
                check: { settings, text, source throws(KeyIDError) in
                    settings.onClone = try ValueCheck.choice(text, source)
                },
                guide: "what to do with an ID stored on another machine",
                help: { _ in "when the ID was stored on another machine: warn (default), fail (exit 9) or rotate" })
        case .show:
            return OptionSpec(
                self, takenBy: [.list], set: { $0.show = true }, guide: "also print the IDs",
                help: { _ in "also print each ID" })
        case .format:
            return OptionSpec(
                self, "FORMAT", takenBy: [.create, .get, .rotate, .derive], default: IDFormat.uuid.rawValue,
                choices: { IDFormat.allCases.map(\.rawValue) },
                check: { settings, text, source throws(KeyIDError) in
                    settings.format = try ValueCheck.choice(text, source)
                },
                guide: "how to print the ID",
                help: { _ in "how to print the ID: uuid (default), upper, hex, urn, or env (KEYID_DEVICE_ID=...)" })
        case .json:
            return OptionSpec(
                self, takenBy: [.create, .get, .rotate, .list], set: { $0.json = true },
                guide: "print JSON instead",
                help: { subcommand in
                    subcommand == .list
                        ? "print one JSON array of objects with \(JSONKey.listed(JSONKey.inList))"
                        : "print one JSON object with \(JSONKey.listed(JSONKey.always)) (and \(JSONKey.listed(JSONKey.occasional)) when an ID was replaced or stored elsewhere)"
                })
        case .backend:
            return OptionSpec(
                self, "BACKEND", takenBy: reachingAStore, variable: .backend,
                default: BackendChoice.secretService.rawValue, choices: { BackendChoice.allCases.map(\.rawValue) },
                check: { settings, text, source throws(KeyIDError) in
                    settings.backend = try ValueCheck.choice(text, source)
                },
                guide: "where IDs live",
                help: { _ in "where IDs live: secret-service (default) or file, for machines without one" })
        case .collection:
            return OptionSpec(
                self, "NAME", takenBy: reachingAStore, variable: .collection,
                check: { settings, text, source throws(KeyIDError) in
                    settings.collection = try ValueCheck.name(text, source)
                },
                guide:
                    "the keyring to search and store in, by alias or label (default: search every keyring, store in the default one)",
                help: { _ in
                    "the keyring to search and store in, by alias (default, login) or label (default: search every keyring, store in the default one)"
                })
        case .user:
            return OptionSpec(
                self, "NAME", takenBy: reachingAStore, variable: .user,
                check: { settings, text, source throws(KeyIDError) in
                    settings.user = try ValueCheck.name(text, source)
                },
                guide: "for root: act as this user, with their session bus, keyring, lock and files",
                help: { _ in "act as this user, for root: their session bus, keyring, lock and files" })
        case .noPrompt:
            return OptionSpec(
                self, takenBy: [.create, .get, .delete, .rotate, .list], set: { $0.allowPrompt = false },
                guide: "never ask to unlock a locked keyring; exit 4 instead (doctor never prompts)",
                help: { _ in "never ask to unlock a locked keyring; fail with exit status 4 instead" })
        case .timeout:
            return OptionSpec(
                self, "SECONDS", takenBy: reachingAStore, variable: .timeout, default: CommandTable.defaultTimeoutText,
                check: { settings, text, source throws(KeyIDError) in
                    settings.timeout = try ValueCheck.timeout(text, source)
                },
                guide: "give up after this long with exit 6",
                help: { _ in
                    "give up after this many seconds with exit status 6 (default: \(CommandTable.defaultTimeoutText))"
                })
        case .help:
            return OptionSpec(
                self, takenBy: Subcommand.allCases, global: true, set: { _ in },
                guide: "help for the tool or the subcommand (also `keyid help SUBCOMMAND`)",
                help: { _ in "show this help" })
        case .version:
            return OptionSpec(
                self, takenBy: [], global: true, set: { _ in }, guide: "print `keyid X.Y.Z`",
                help: { _ in "print the version" })
        }
    }

    /// The one-letter spelling the option also has (`-h`), if any.
    package var shortFlag: String? { self == .help ? "-h" : nil }

    /// Every spelling, the short one first: `-h`, `--help`.
    package var spellings: [String] { (shortFlag.map { [$0] } ?? []) + [flag] }

    /// How the option is spelled on the command line: `--` and its raw value.
    package var flag: String { "--" + rawValue }

    /// The option a long spelling (`--on-clone`) names, if any.
    package init?(flag: Substring) {
        guard flag.utf8.starts(with: "--".utf8) else { return nil }
        self.init(rawValue: String(flag.dropFirst(2)))
    }
}

/// An option's declaration (see ``Option/spec``).
package struct OptionSpec: Sendable {
    /// Checks a value's text and puts the value in its typed place in the settings. A failure
    /// names the value's source.
    typealias Check = @Sendable (inout Settings, _ text: String, _ source: ValueSource) throws(KeyIDError) -> Void

    package let option: Option
    /// The placeholder for the option's value, or `nil` for a flag.
    package let valueName: String?
    /// The subcommands that take the option.
    package let subcommands: [Subcommand]
    /// Whether the option is also accepted without a subcommand.
    package let isGlobal: Bool
    /// The environment variable that supplies a default, if any.
    package let variable: KeyIDVariable?
    /// The value, as text, when neither the option nor its variable gives one; `nil` when the
    /// option has none (then its setting stays unset).
    package let defaultValue: String?
    /// Whether the variable set to the empty string is refused (a name) rather than taken as
    /// unset.
    let refusesEmptyVariable: Bool
    /// How an option with a value lands in ``Settings``.
    private let check: Check?
    /// How a flag lands in ``Settings``.
    private let set: (@Sendable (inout Settings) -> Void)?
    /// The help line, for one subcommand or for the option as a whole.
    private let line: @Sendable (Subcommand?) -> String
    /// What the option does in the guide's table of options (`doc/GUIDE.md`), without its
    /// default, its variable and its rules, which the table adds; `nil`: the help line.
    private let guide: String?
    /// The only values the option accepts, when they are a fixed set.
    private let listChoices: (@Sendable () -> [String])?

    /// An option with a value.
    init(
        _ option: Option, _ valueName: String, takenBy subcommands: [Subcommand], variable: KeyIDVariable? = nil,
        default defaultValue: String? = nil, refusesEmptyVariable: Bool = false,
        choices: (@Sendable () -> [String])? = nil, check: @escaping Check, guide: String? = nil,
        help line: @escaping @Sendable (Subcommand?) -> String
    ) {
        self.option = option
        self.valueName = valueName
        self.subcommands = subcommands
        self.isGlobal = false
        self.variable = variable
        self.defaultValue = defaultValue
        self.refusesEmptyVariable = refusesEmptyVariable
        self.check = check
        self.set = nil
        self.line = line
        self.guide = guide
        self.listChoices = choices
    }

    /// A flag: `set` records that it was given.
    init(
        _ option: Option, takenBy subcommands: [Subcommand], global: Bool = false,
        set: @escaping @Sendable (inout Settings) -> Void, guide: String? = nil,
        help line: @escaping @Sendable (Subcommand?) -> String
    ) {
        self.option = option
        self.valueName = nil
        self.subcommands = subcommands
        self.isGlobal = global
        self.variable = nil
        self.defaultValue = nil
        self.refusesEmptyVariable = false
        self.check = nil
        self.set = set
        self.line = line
        self.guide = guide
        self.listChoices = nil
    }

    package var flag: String { option.flag }

    /// Checks `text` (ignored for a flag) and puts the value in its place in `settings`.
    package func apply(_ text: String, to settings: inout Settings, from source: ValueSource) throws(KeyIDError) {
        if let check { try check(&settings, text, source) } else { set?(&settings) }
    }

    /// Whether `subcommand` takes the option.
    package func takes(_ subcommand: Subcommand) -> Bool { subcommands.contains(subcommand) }

    /// The help line of the option as a whole, as the manual page's OPTIONS show it.
    package var summary: String { line(nil) }

    /// The help line in `subcommand`'s help: its own wording, after what the rules that hold
    /// there require (`with --create, `).
    package func summary(for subcommand: Subcommand) -> String {
        OptionRule.required(by: option, on: subcommand).map { "with \($0.flag), " }.joined() + line(subcommand)
    }

    /// What the option does in the guide's table of options (see ``guide``).
    package var guideLine: String { guide ?? summary }

    /// The only values the option accepts, when they are a fixed set.
    package var choices: [String] { listChoices?() ?? [] }
}
