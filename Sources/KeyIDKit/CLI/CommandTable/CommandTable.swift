/// The command line's constants and its tables for the help, the manual page and the
/// completions: each subcommand is declared in ``Subcommand/spec``, each option in
/// ``Option/spec``, each rule between options in ``OptionRule/each(_:)``. The tables are made
/// when a reader asks for them, never on a run's way to the library.
package enum CommandTable {
    /// The default of `--timeout`, in seconds: the library's.
    package static let defaultTimeout = Double(DeviceIDs.defaultTimeout.components.seconds)
    /// ``defaultTimeout`` as the help shows it and `--timeout` reads it.
    static var defaultTimeoutText: String { String(DeviceIDs.defaultTimeout.components.seconds) }
    /// The largest `--timeout` accepted, in seconds: the library's longest timeout, in whole
    /// seconds (one range for both).
    package static let maximumTimeout = Double(DeviceIDs.longestTimeout.components.seconds)
    /// What keyid does, in one line: the help's first line and the manual page's NAME.
    package static let tagline = "keep a persistent device ID in the Secret Service"
    /// The abstract of `keyid help`, listed with the subcommands.
    package static let helpAbstract = "show help for a subcommand"

    /// Every subcommand, in the order help lists them.
    package static var subcommands: [SubcommandSpec] { Subcommand.allCases.map(\.spec) }

    /// Options accepted before any subcommand.
    package static var globalOptions: [OptionSpec] { Option.allCases.map(\.spec).filter(\.isGlobal) }

    /// The spec of one subcommand.
    package static func spec(for subcommand: Subcommand) -> SubcommandSpec { subcommand.spec }

    /// Every option: the global ones, then each subcommand's in turn, each once.
    package static var allOptions: [OptionSpec] {
        var all = globalOptions
        for subcommand in subcommands {
            all += subcommand.options.filter { spec in !all.contains { $0.option == spec.option } }
        }
        return all
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
