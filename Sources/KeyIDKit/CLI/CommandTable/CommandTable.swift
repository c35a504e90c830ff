/// The single table of subcommands; each option is declared in ``Option/spec``. Help, usage
/// errors, the manual page and the shell completions are all rendered from them.
package enum CommandTable {
    /// The default of `--timeout`, in seconds: the library's.
    package static let defaultTimeout = Double(DeviceIDs.defaultTimeout.components.seconds)
    /// The largest `--timeout` accepted, in seconds: the library's longest timeout, in whole
    /// seconds (one range for both).
    package static let maximumTimeout = Double(DeviceIDs.longestTimeout.components.seconds)
    /// What keyid does, in one line: the help's first line and the manual page's NAME.
    package static let tagline = "keep a persistent device ID in the Secret Service"
    /// The abstract of `keyid help`, listed with the subcommands.
    package static let helpAbstract = "show help for a subcommand"

    /// Every subcommand, in the order help lists them.
    package static let subcommands: [SubcommandSpec] = [
        SubcommandSpec(
            subcommand: .create,
            abstract: "store a new random ID and print it",
            discussion:
                "Creates a random version-4 UUID, or takes the ID read from standard input (--value -) or the derived one (--derive), stores it in the default keyring under the service and account attributes, and prints it. If an ID is already stored, nothing changes and the exit status is 3.",
            examples: [
                ("keyid create --service com.example.agent", "mint the ID for one application"),
                ("printf %s \"$id\" | keyid create --value -", "store a known ID, in one step, where none is stored"),
                (
                    "keyid create --derive c273277323db454ea63bb96e79b53e97",
                    "store the ID systemd-id128 derives for that application"
                ),
            ], readsMachineID: true, rules: oneSourceOfTheNewID),
        SubcommandSpec(
            subcommand: .get,
            abstract: "print the stored ID",
            discussion:
                "Prints the stored ID; the exit status is 1 when none is stored. With --create, prints the stored ID or, when none is stored, creates, stores and prints one (with --value -, the ID read from standard input; a stored ID that differs is kept, with a warning); concurrent runs all print the same ID and exactly one item is stored. An ID stored on another machine (its machine ID, cloud instance or product UUID differs) is handled as --on-clone says, and the warning and --json (differs) name what differs; when --on-clone rotate replaces it, --json adds previous_id and reason (clone) and --format env a second line, KEYID_PREVIOUS_DEVICE_ID=.",
            examples: [
                ("keyid get --create", "print this machine's ID, creating it on first use"),
                ("id=$(keyid get --no-prompt --timeout 5) || exit", "read it in a script that must not hang"),
            ], readsMachineID: true,
            rules: { options throws(KeyIDError) in
                guard !options.flags.contains(.create) else { return }
                if options.values[.value] != nil {
                    throw .usage("--value names the ID get stores: use it with --create")
                }
                if options.values[.label] != nil {
                    throw .usage("--label names the item get stores: use it with --create")
                }
            }),
        SubcommandSpec(
            subcommand: .delete,
            abstract: "remove the stored ID",
            discussion:
                "Removes the item, and any duplicate items with the same service and account. The exit status is 1 when none is stored, unless --force is given.",
            examples: [("keyid delete --force", "remove the ID if there is one, as before capturing a disk image")]),
        SubcommandSpec(
            subcommand: .rotate,
            abstract: "replace the stored ID with a new one and print it",
            discussion:
                "Replaces the value of the stored item in place with a fresh random ID, or with the ID read from standard input (--value -), and prints the new ID. Duplicate items are removed. The exit status is 1 when no ID is stored. rotate also repairs an item whose value is not a valid ID. --json adds previous_id (the ID replaced, or null) and reason (rotate); --format env prints a second line, KEYID_PREVIOUS_DEVICE_ID= and the ID replaced.",
            examples: [
                ("keyid rotate", "give this machine a new ID"),
                ("printf %s \"$id\" | keyid rotate --value -", "restore a known ID"),
            ], readsMachineID: true, rules: oneSourceOfTheNewID),
        SubcommandSpec(
            subcommand: .list,
            abstract: "list the IDs keyid stored",
            discussion:
                "Lists the items keyid stored, one line each with service, account, created and modified times and label, as a table; the IDs themselves only with --show. --service narrows the list to one service.",
            examples: [("keyid list --show", "every ID keyid keeps, with its value")]),
        SubcommandSpec(
            subcommand: .derive,
            abstract: "print the ID derived from this machine for an application",
            discussion:
                "Prints the ID that systemd-id128 machine-id prints for the same application ID in its app-specific mode: HMAC-SHA-256 keyed by the machine ID (/etc/machine-id) over the application ID APP, as a version-4 UUID. APP is a 128-bit ID written as a UUID, 32 hex digits or a urn:uuid: URN, in any letter case, and not all zeros. Nothing is stored, and the machine ID itself is never printed.",
            examples: [("keyid derive c273277323db454ea63bb96e79b53e97", "this machine's ID for one application")],
            argument: "APP", readsMachineID: true),
        SubcommandSpec(
            subcommand: .doctor,
            abstract: "check everything keyid depends on",
            discussion:
                "Checks, without changing anything, the session bus, the Secret Service provider, the default keyring and whether it is locked, the lock directory, the machine ID and the other clone signals this user can read (cloud-init's instance ID, the product UUID), and the stored ID for the service and account (duplicates, clone binding, the signals that differ). Prints one line per check: ok, warning or FAIL, and what to do. The exit status is 0 only when keyid would work; otherwise it is the status of the first failed check.",
            examples: [("keyid doctor", "see why keyid does not work here")], readsMachineID: true),
    ]

    /// Options accepted before any subcommand.
    package static let globalOptions: [OptionSpec] = Option.allCases.map(\.spec).filter(\.isGlobal)

    /// The spec of one subcommand.
    package static func spec(for subcommand: Subcommand) -> SubcommandSpec {
        subcommands.first { $0.subcommand == subcommand }!
    }

    /// Every option: the global ones, then each subcommand's in turn, each once.
    package static let allOptions: [OptionSpec] = {
        var all: [OptionSpec] = []
        func add(_ specs: [OptionSpec]) {
            for spec in specs where !all.contains(where: { $0.option == spec.option }) {
                all.append(spec.option.spec)
            }
        }
        add(globalOptions)
        for subcommand in subcommands {
            add(subcommand.options)
        }
        return all
    }()

    /// `create`'s and `rotate`'s rule: the new ID comes from one place.
    static func oneSourceOfTheNewID(_ options: CommandLineOptions) throws(KeyIDError) {
        if options.values[.value] != nil, options.checked[.derive] != nil {
            throw .usage("--value and --derive cannot be combined")
        }
    }

    /// Every environment variable keyid reads that a user sets, with what it does.
    package static var documentedVariables: [(name: String, summary: String)] {
        KeyIDVariable.allCases.map { ($0.rawValue, $0.summary) } + sessionVariables
    }

    /// The session's variables a user sets that keyid reads, with what each does for keyid.
    package static var sessionVariables: [(name: String, summary: String)] {
        SystemVariable.allCases.compactMap { variable in summary(of: variable).map { (variable.rawValue, $0) } }
    }

    /// What a variable of the session does for keyid; `nil` for one that only stands in for
    /// others that are unset.
    static func summary(of variable: SystemVariable) -> String? {
        switch variable {
        case .stateHome:
            return
                "where --backend file keeps IDs (keyid/; unset: \(FileStore.rootDirectory) for root, else ~/.local/state/keyid)"
        case .sessionBus:
            return
                "the session bus where the Secret Service is found; unset: $XDG_RUNTIME_DIR/bus, else /run/user/UID/bus, each only when it is your socket (keyid never starts a bus)"
        case .secretBackend: return "must be unset, service or file; any other value is refused"
        case .secretServiceBusName:
            return
                "the Secret Service's bus name, as libsecret reads it; unset: org.freedesktop.secrets (where the Secret Service is used, a value that is not a bus name is refused)"
        case .runtimeDirectory:
            return "where the lock file lives (keyid/lock); unset or missing: /run/user/UID when it exists"
        case .cacheHome: return "where the lock file lives when there is no runtime directory"
        case .home, .user, .logName, .configHome, .dataHome: return nil
        }
    }

    /// The exit statuses, as the help, README and manual page list them.
    package static var exitStatuses: [(code: Int32, meaning: String)] {
        ExitStatus.allCases.map { ($0.rawValue, $0.meaning) }
    }
}

extension ExitStatus {
    /// What the status means, in one line.
    package var meaning: String {
        switch self {
        case .success: return "success"
        case .notFound: return "no ID is stored"
        case .usage: return "usage error: unknown option, missing or invalid argument, invalid name or value"
        case .alreadyExists: return "create: an ID is already stored"
        case .locked: return "the keyring is locked and was not unlocked"
        case .unavailable:
            return
                "no Secret Service: no session bus, no provider, no such keyring, or only a temporary one to write to"
        case .timedOut: return "timed out"
        case .invalidStoredValue: return "the stored value is not a valid ID"
        case .failure:
            return
                "any other failure of the keyring (a write the provider left unconfirmed included), the lock file, the file backend, the machine ID, acting as another user, or writing the output"
        case .cloned: return "--on-clone fail: the ID was stored on another machine"
        }
    }
}

/// The subcommands keyid runs.
package enum Subcommand: String, CaseIterable, Sendable {
    case create, get, delete, rotate, list, derive, doctor
}

/// A subcommand as the help, the manual page and the completions describe it.
package struct SubcommandSpec: Sendable {
    package let subcommand: Subcommand
    /// One line for the subcommand list and completions.
    package let abstract: String
    /// A paragraph for `keyid help SUBCOMMAND` and the manual page.
    package let discussion: String
    /// The options it takes (those whose ``OptionSpec/subcommands`` name it), in
    /// ``Option``'s order, with the help lines it gives them.
    package let options: [OptionSpec]
    /// Example command lines, each with a one-line explanation.
    package let examples: [(command: String, explanation: String)]
    /// The placeholder of the one positional argument the subcommand takes, if any.
    package let argument: String?
    /// Whether the subcommand reads the machine ID (to derive an ID, or to bind or check one).
    package let readsMachineID: Bool
    /// The rules between its options, checked once every value given is: what cannot be
    /// combined, what needs another option. Each broken rule is a usage error.
    let rules: @Sendable (CommandLineOptions) throws(KeyIDError) -> Void

    package init(
        subcommand: Subcommand, abstract: String, discussion: String,
        examples: [(command: String, explanation: String)], argument: String? = nil, readsMachineID: Bool = false,
        rules: @escaping @Sendable (CommandLineOptions) throws(KeyIDError) -> Void = { _ throws(KeyIDError) in }
    ) {
        self.subcommand = subcommand
        self.abstract = abstract
        self.discussion = discussion
        self.options = Option.allCases.compactMap { option in
            let spec = option.spec
            return spec.subcommands.contains(subcommand) ? spec.for(subcommand) : nil
        }
        self.examples = examples
        self.argument = argument
        self.readsMachineID = readsMachineID
        self.rules = rules
    }

    /// Whether the subcommand takes `option`.
    package func takes(_ option: Option) -> Bool {
        options.contains { $0.option == option }
    }

    /// keyid's own variables the subcommand reads: the defaults of the options it takes, the
    /// machine ID's file when it reads the machine ID, and the file backend's directory when it
    /// takes `--backend`. Any other `KEYID_*` variable is left alone, whatever its value.
    package var variables: [KeyIDVariable] {
        options.compactMap(\.variable) + (readsMachineID ? [.machineIDFile] : [])
            + (takes(.backend) ? [.fileDirectory] : [])
    }

    /// Every variable the subcommand reads that a user sets, with what it does: its own
    /// (``variables``), and, when it reaches a store (`--backend`), the session's.
    package var documentedVariables: [(name: String, summary: String)] {
        variables.map { ($0.rawValue, $0.summary) } + (takes(.backend) ? CommandTable.sessionVariables : [])
    }

    package var name: String { subcommand.rawValue }

    /// The usage line, e.g. `keyid get [--create] [--service NAME] ...`.
    package var usage: String {
        let parts = options.filter { $0.option != .help }.map { spec in
            spec.valueName.map { "[\(spec.flag) \($0)]" } ?? "[\(spec.flag)]"
        }
        return (["keyid", name] + parts + (argument.map { [$0] } ?? [])).joined(separator: " ")
    }
}
