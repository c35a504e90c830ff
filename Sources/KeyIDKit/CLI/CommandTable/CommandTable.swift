/// The single table of subcommands and options. Help, usage errors, the manual page and
/// the shell completions are all rendered from it.
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

    static let service = OptionSpec(
        option: .service, valueName: "NAME", choices: [],
        summary: "the service attribute of the item (default: \(ItemKey.defaultService))",
        variable: .service, check: .itemName("the service name"), default: .text(ItemKey.defaultService))
    static let account = OptionSpec(
        option: .account, valueName: "NAME", choices: [],
        summary: "the account attribute of the item (default: \(ItemKey.defaultAccount))",
        variable: .account, check: .itemName("the account name"), default: .text(ItemKey.defaultAccount))
    static let format = OptionSpec(
        option: .format, valueName: "FORMAT", choices: IDFormat.allCases.map(\.rawValue),
        summary: "how to print the ID: uuid (default), upper, hex, urn, or env (KEYID_DEVICE_ID=...)",
        variable: nil, check: .choice(IDFormat.self), default: .text(IDFormat.uuid.rawValue))
    static let json = OptionSpec(
        option: .json, valueName: nil, choices: [],
        summary:
            "print one JSON object with id, service, account, label, created and modified (and previous_id, reason and differs when an ID was replaced or stored elsewhere)",
        variable: nil)
    static let label = OptionSpec(
        option: .label, valueName: "TEXT", choices: [],
        summary:
            "the label keyring managers show for the item it stores (default for a new item: Device ID for SERVICE (ACCOUNT); a rotation without it keeps the label)",
        variable: nil, check: .label)
    static let noPrompt = OptionSpec(
        option: .noPrompt, valueName: nil, choices: [],
        summary: "never ask to unlock a locked keyring; fail with exit status 4 instead",
        variable: nil)
    static let timeout = OptionSpec(
        option: .timeout, valueName: "SECONDS", choices: [],
        summary: "give up after this many seconds with exit status 6 (default: \(Int(defaultTimeout)))",
        variable: .timeout, check: .timeout, default: .seconds(defaultTimeout))
    static let help = OptionSpec(
        option: .help, valueName: nil, choices: [], summary: "show this help", variable: nil)
    static let backend = OptionSpec(
        option: .backend, valueName: "BACKEND", choices: BackendChoice.allCases.map(\.rawValue),
        summary: "where IDs live: secret-service (default) or file, for machines without one",
        variable: .backend, check: .choice(BackendChoice.self),
        default: .text(BackendChoice.secretService.rawValue))
    static let derive = OptionSpec(
        option: .derive, valueName: "APP", choices: [],
        summary: "store the ID derived from this machine and the application ID APP, not a random one",
        variable: nil, check: .application)
    static let value = OptionSpec(
        option: .value, valueName: "-", choices: ["-"],
        summary: "read the new ID from standard input instead of making one", variable: nil,
        check: .standardInput)
    static let onClone = OptionSpec(
        option: .onClone, valueName: "ACTION", choices: ClonePolicy.allCases.map(\.rawValue),
        summary: "when the ID was stored on another machine: warn (default), fail (exit 9) or rotate",
        variable: .onClone, check: .choice(ClonePolicy.self), default: .text(ClonePolicy.warn.rawValue))

    static let collection = OptionSpec(
        option: .collection, valueName: "NAME", choices: [],
        summary:
            "the keyring to search and store in, by alias (default, login) or label (default: search every keyring, store in the default one)",
        variable: .collection, check: .name)
    static let user = OptionSpec(
        option: .user, valueName: "NAME", choices: [],
        summary: "act as this user, for root: their session bus, keyring, lock and files",
        variable: .user, check: .name)

    /// Every subcommand, in the order help lists them.
    package static let subcommands: [SubcommandSpec] = [
        SubcommandSpec(
            subcommand: .create,
            abstract: "store a new random ID and print it",
            discussion:
                "Creates a random version-4 UUID, or takes the ID read from standard input (--value -) or the derived one (--derive), stores it in the default keyring under the service and account attributes, and prints it. If an ID is already stored, nothing changes and the exit status is 3.",
            options: [
                value, service, account, label, derive, format, json, backend, collection, user, noPrompt, timeout,
                help,
            ],
            examples: [
                ("keyid create --service com.example.agent", "mint the ID for one application"),
                ("printf %s \"$id\" | keyid create --value -", "store a known ID, in one step, where none is stored"),
                (
                    "keyid create --derive c273277323db454ea63bb96e79b53e97",
                    "store the ID systemd-id128 derives for that application"
                ),
            ], readsMachineID: true),
        SubcommandSpec(
            subcommand: .get,
            abstract: "print the stored ID",
            discussion:
                "Prints the stored ID; the exit status is 1 when none is stored. With --create, prints the stored ID or, when none is stored, creates, stores and prints one (with --value -, the ID read from standard input; a stored ID that differs is kept, with a warning); concurrent runs all print the same ID and exactly one item is stored. An ID stored on another machine (its machine ID, cloud instance or product UUID differs) is handled as --on-clone says, and the warning and --json (differs) name what differs; when --on-clone rotate replaces it, --json adds previous_id and reason (clone) and --format env a second line, KEYID_PREVIOUS_DEVICE_ID=.",
            options: [
                OptionSpec(
                    option: .create, valueName: nil, choices: [],
                    summary: "create and store an ID when none is stored", variable: nil),
                OptionSpec(
                    option: .value, valueName: "-", choices: ["-"],
                    summary:
                        "with --create, read the ID to store from standard input; it also replaces a clone under --on-clone rotate",
                    variable: nil, check: .standardInput),
                service, account, label, onClone, format, json, backend, collection, user, noPrompt, timeout, help,
            ],
            examples: [
                ("keyid get --create", "print this machine's ID, creating it on first use"),
                ("id=$(keyid get --no-prompt --timeout 5) || exit", "read it in a script that must not hang"),
            ], readsMachineID: true),
        SubcommandSpec(
            subcommand: .delete,
            abstract: "remove the stored ID",
            discussion:
                "Removes the item, and any duplicate items with the same service and account. The exit status is 1 when none is stored, unless --force is given.",
            options: [
                OptionSpec(
                    option: .force, valueName: nil, choices: [],
                    summary: "succeed when no ID is stored", variable: nil),
                service, account, backend, collection, user, noPrompt, timeout, help,
            ],
            examples: [("keyid delete --force", "remove the ID if there is one, as before capturing a disk image")]),
        SubcommandSpec(
            subcommand: .rotate,
            abstract: "replace the stored ID with a new one and print it",
            discussion:
                "Replaces the value of the stored item in place with a fresh random ID, or with the ID read from standard input (--value -), and prints the new ID. Duplicate items are removed. The exit status is 1 when no ID is stored. rotate also repairs an item whose value is not a valid ID. --json adds previous_id (the ID replaced, or null) and reason (rotate); --format env prints a second line, KEYID_PREVIOUS_DEVICE_ID= and the ID replaced.",
            options: [
                value, service, account, label, derive, format, json, backend, collection, user, noPrompt, timeout,
                help,
            ],
            examples: [
                ("keyid rotate", "give this machine a new ID"),
                ("printf %s \"$id\" | keyid rotate --value -", "restore a known ID"),
            ], readsMachineID: true),
        SubcommandSpec(
            subcommand: .list,
            abstract: "list the IDs keyid stored",
            discussion:
                "Lists the items keyid stored, one line each with service, account, created and modified times and label, as a table; the IDs themselves only with --show. --service narrows the list to one service.",
            options: [
                service,
                OptionSpec(
                    option: .show, valueName: nil, choices: [], summary: "also print each ID", variable: nil),
                OptionSpec(
                    option: .json, valueName: nil, choices: [],
                    summary: "print one JSON array of objects with service, account, label, created and modified",
                    variable: nil),
                backend, collection, user, noPrompt, timeout, help,
            ],
            examples: [("keyid list --show", "every ID keyid keeps, with its value")]),
        SubcommandSpec(
            subcommand: .derive,
            abstract: "print the ID derived from this machine for an application",
            discussion:
                "Prints the ID that systemd-id128 machine-id prints for the same application ID in its app-specific mode: HMAC-SHA-256 keyed by the machine ID (/etc/machine-id) over the application ID APP, as a version-4 UUID. APP is a 128-bit ID written as a UUID, 32 hex digits or a urn:uuid: URN, in any letter case, and not all zeros. Nothing is stored, and the machine ID itself is never printed.",
            options: [format, help],
            examples: [("keyid derive c273277323db454ea63bb96e79b53e97", "this machine's ID for one application")],
            argument: "APP", readsMachineID: true),
        SubcommandSpec(
            subcommand: .doctor,
            abstract: "check everything keyid depends on",
            discussion:
                "Checks, without changing anything, the session bus, the Secret Service provider, the default keyring and whether it is locked, the lock directory, the machine ID and the other clone signals this user can read (cloud-init's instance ID, the product UUID), and the stored ID for the service and account (duplicates, clone binding, the signals that differ). Prints one line per check: ok, warning or FAIL, and what to do. The exit status is 0 only when keyid would work; otherwise it is the status of the first failed check.",
            options: [service, account, backend, collection, user, timeout, help],
            examples: [("keyid doctor", "see why keyid does not work here")], readsMachineID: true),
    ]

    /// Options accepted before any subcommand.
    package static let globalOptions: [OptionSpec] = [
        help,
        OptionSpec(option: .version, valueName: nil, choices: [], summary: "print the version", variable: nil),
    ]

    /// The spec of one subcommand.
    package static func spec(for subcommand: Subcommand) -> SubcommandSpec {
        subcommands.first { $0.subcommand == subcommand }!
    }

    /// Every option of every subcommand, and the global ones.
    package static let allOptions: [OptionSpec] = {
        // Plain loops over a dozen options: cheaper at start-up than a Set and flatMap.
        var all: [OptionSpec] = []
        func add(_ specs: [OptionSpec]) {
            for spec in specs where !all.contains(where: { $0.option == spec.option }) {
                all.append(spec)
            }
        }
        add(globalOptions)
        for subcommand in subcommands {
            add(subcommand.options)
        }
        return all
    }()

    /// Every environment variable keyid reads that a user sets, with what it does.
    package static var documentedVariables: [(name: String, summary: String)] {
        EnvironmentVariable.allCases.map { ($0.rawValue, $0.summary) } + sessionVariables
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
