/// The subcommands keyid runs, in the order help lists them; ``spec`` declares each.
package enum Subcommand: String, CaseIterable, Sendable {
    case create, get, delete, rotate, list, derive, doctor

    /// The subcommand named `rawValue` (``named(_:)`` says why it is written here).
    package init?(rawValue: String) {
        guard let found = Self.named(rawValue) else { return nil }
        self = found
    }

    /// The one place a subcommand is declared: its abstract, its discussion, its examples,
    /// its argument and whether it reads the machine ID. Its options are those whose
    /// ``Option/spec`` names it.
    package var spec: SubcommandSpec {
        switch self {
        case .create:
            return SubcommandSpec(
                self, abstract: "store a new random ID and print it",
                discussion:
                    "Creates a random version-4 UUID, or takes the ID read from standard input (--value -) or the derived one (--derive), stores it in the default keyring under the service and account attributes, and prints it. If an ID is already stored, nothing changes and the exit status is 3.",
                readsMachineID: true
            ) {
                [
                    ("keyid create --service com.example.agent", "mint the ID for one application"),
                    (
                        "printf %s \"$id\" | keyid create --value -",
                        "store a known ID, in one step, where none is stored"
                    ),
                    (
                        "keyid create --derive c273277323db454ea63bb96e79b53e97",
                        "store the ID systemd-id128 derives for that application"
                    ),
                ]
            }
        case .get:
            return SubcommandSpec(
                self, abstract: "print the stored ID",
                discussion:
                    "Prints the stored ID; the exit status is 1 when none is stored. With --create, prints the stored ID or, when none is stored, creates, stores and prints one (with --value -, the ID read from standard input; a stored ID that differs is kept, with a warning); concurrent runs all print the same ID and exactly one item is stored. An ID stored on another machine (its machine ID, cloud instance or product UUID differs) is handled as --on-clone says, and the warning and --json (differs) name what differs; when --on-clone rotate replaces it, --json adds previous_id and reason (clone) and --format env a second line, KEYID_PREVIOUS_DEVICE_ID=.",
                readsMachineID: true
            ) {
                [
                    ("keyid get --create", "print this machine's ID, creating it on first use"),
                    ("id=$(keyid get --no-prompt --timeout 5) || exit", "read it in a script that must not hang"),
                ]
            }
        case .delete:
            return SubcommandSpec(
                self, abstract: "remove the stored ID",
                discussion:
                    "Removes the item, and any duplicate items with the same service and account. The exit status is 1 when none is stored, unless --force is given."
            ) { [("keyid delete --force", "remove the ID if there is one, as before capturing a disk image")] }
        case .rotate:
            return SubcommandSpec(
                self, abstract: "replace the stored ID with a new one and print it",
                discussion:
                    "Replaces the value of the stored item in place with a fresh random ID, or with the ID read from standard input (--value -), and prints the new ID. Duplicate items are removed. The exit status is 1 when no ID is stored. rotate also repairs an item whose value is not a valid ID. --json adds previous_id (the ID replaced, or null) and reason (rotate); --format env prints a second line, KEYID_PREVIOUS_DEVICE_ID= and the ID replaced.",
                readsMachineID: true
            ) {
                [
                    ("keyid rotate", "give this machine a new ID"),
                    ("printf %s \"$id\" | keyid rotate --value -", "restore a known ID"),
                ]
            }
        case .list:
            return SubcommandSpec(
                self, abstract: "list the IDs keyid stored",
                discussion:
                    "Lists the items keyid stored, one line each with service, account, created and modified times and label, as a table; the IDs themselves only with --show. --service narrows the list to one service."
            ) { [("keyid list --show", "every ID keyid keeps, with its value")] }
        case .derive:
            return SubcommandSpec(
                self, abstract: "print the ID derived from this machine for an application",
                discussion:
                    "Prints the ID that systemd-id128 machine-id prints for the same application ID in its app-specific mode: HMAC-SHA-256 keyed by the machine ID (/etc/machine-id) over the application ID APP, as a version-4 UUID. APP is a 128-bit ID written as a UUID, 32 hex digits or a urn:uuid: URN, in any letter case, and not all zeros. Nothing is stored, and the machine ID itself is never printed.",
                argument: "APP", readsMachineID: true
            ) { [("keyid derive c273277323db454ea63bb96e79b53e97", "this machine's ID for one application")] }
        case .doctor:
            return SubcommandSpec(
                self, abstract: "check everything keyid depends on",
                discussion:
                    "Checks, without changing anything, the session bus, the Secret Service provider, the default keyring and whether it is locked, the lock directory, the machine ID and the other clone signals this user can read (cloud-init's instance ID, the product UUID), and the stored ID for the service and account (duplicates, clone binding, the signals that differ). Prints one line per check: ok, warning or FAIL, and what to do. The exit status is 0 only when keyid would work; otherwise it is the status of the first failed check.",
                readsMachineID: true
            ) { [("keyid doctor", "see why keyid does not work here")] }
        }
    }

    /// Whether the subcommand reads `variable`: an option's when it takes the option, the
    /// machine ID's file when it reads the machine ID, the file backend's directory when it
    /// takes `--backend`. Any other `KEYID_*` variable is left alone, whatever its value.
    package func reads(_ variable: KeyIDVariable) -> Bool {
        switch variable {
        case .machineIDFile: return spec.readsMachineID
        case .fileDirectory: return Option.backend.spec.takes(self)
        default: return Option.allCases.contains { $0.spec.variable == variable && $0.spec.takes(self) }
        }
    }
}

/// A subcommand's declaration (see ``Subcommand/spec``), and what the help, the manual page and
/// the completions make of it.
package struct SubcommandSpec: Sendable {
    package let subcommand: Subcommand
    /// One line for the subcommand list and completions.
    package let abstract: String
    /// A paragraph for `keyid help SUBCOMMAND` and the manual page.
    package let discussion: String
    /// The placeholder of the one positional argument the subcommand takes, if any.
    package let argument: String?
    /// Whether the subcommand reads the machine ID (to derive an ID, or to bind or check one).
    package let readsMachineID: Bool
    private let listExamples: @Sendable () -> [(command: String, explanation: String)]

    init(
        _ subcommand: Subcommand, abstract: String, discussion: String, argument: String? = nil,
        readsMachineID: Bool = false, examples: @escaping @Sendable () -> [(command: String, explanation: String)]
    ) {
        self.subcommand = subcommand
        self.abstract = abstract
        self.discussion = discussion
        self.argument = argument
        self.readsMachineID = readsMachineID
        self.listExamples = examples
    }

    package var name: String { subcommand.rawValue }

    /// Example command lines, each with a one-line explanation.
    package var examples: [(command: String, explanation: String)] { listExamples() }

    /// The options it takes (those whose ``OptionSpec/subcommands`` name it), in ``Option``'s
    /// order.
    package var options: [OptionSpec] { Option.allCases.map(\.spec).filter { $0.takes(subcommand) } }

    /// Whether the subcommand takes `option`.
    package func takes(_ option: Option) -> Bool { option.spec.takes(subcommand) }

    /// keyid's own variables the subcommand reads (see ``Subcommand/reads(_:)``), in their
    /// order of the help: the options', then the machine ID's file, then the file backend's
    /// directory.
    package var variables: [KeyIDVariable] {
        options.compactMap(\.variable) + [.machineIDFile, .fileDirectory].filter(subcommand.reads)
    }

    /// Every variable the subcommand reads that a user sets, with what it does: its own
    /// (``variables``), and, when it reaches a store (`--backend`), the session's.
    package var documentedVariables: [(name: String, summary: String)] {
        variables.map { ($0.rawValue, $0.summary) } + (takes(.backend) ? CommandTable.sessionVariables : [])
    }

    /// The usage line, e.g. `keyid get [--create] [--service NAME] ...`.
    package var usage: String {
        let parts = options.filter { $0.option != .help }.map { spec in
            spec.valueName.map { "[\(spec.flag) \($0)]" } ?? "[\(spec.flag)]"
        }
        return (["keyid", name] + parts + (argument.map { [$0] } ?? [])).joined(separator: " ")
    }
}
