/// A subcommand's options with the environment's defaults applied and every value checked:
/// each option's value in the typed place its declaration (``Option/spec``) puts it.
package struct Settings: Equatable, Sendable {
    /// `--service`, `KEYID_SERVICE` or the default.
    package var service = ""
    /// `--account`, `KEYID_ACCOUNT` or the default.
    package var account = ""
    package var format = IDFormat.uuid
    package var json = false
    package var create = false
    package var force = false
    package var valueFromInput = false
    package var allowPrompt = true
    package var timeout = 0.0
    /// `--derive APP`, or the argument of `keyid derive`.
    package var application: DeviceID?
    package var onClone = ClonePolicy.warn
    package var show = false
    package var backend = BackendChoice.secretService
    /// `--service` or `KEYID_SERVICE` when one was given (for `list`), else `nil`.
    package var serviceFilter: String?
    /// `--collection` or `KEYID_COLLECTION`: the keyring to search and store in.
    package var collection: String?
    /// `--user` or `KEYID_USER`: the user root acts for.
    package var user: String?
    /// `KEYID_MACHINE_ID_FILE`: the file the machine ID is read from instead of
    /// `/etc/machine-id` (the library's ``DeviceIDs/Options/machineIDFile``).
    package var machineIDFile: String?
    /// `KEYID_FILE_DIR`: the file backend's directory instead of the one the session's
    /// variables give (``FileStore/directory(_:)``); an absolute path.
    package var fileDirectory: String?
    /// What a write stores beside the ID: `--label`.
    package var details = ItemDetails()

    /// Settings before anything is applied: flags unset, and placeholders where an option has a
    /// default, which ``init(_:options:environment:)`` puts in their place.
    init() {}

    /// The item the service and account name (each was checked as it was applied).
    package var key: ItemKey { ItemKey(checked: service, account: account) }

    /// Flags win over `KEYID_*` variables, which win over the declared defaults. Only the
    /// variables `subcommand` reads are read, each checked as its option's value is; of several
    /// bad ones, the first in ``KeyIDVariable``'s order (the help's) is reported.
    package init(
        _ subcommand: Subcommand, options: CommandLineOptions, environment: ProcessEnvironment
    )
        throws(KeyIDError)
    {
        self = options.checked
        var serviceGiven = options.has(.service)
        // On a bad variable the others are checked still; the first in KeyIDVariable's order
        // (``KeyIDVariable/errorRank(reading:)``, worked out only then) is checked again at the
        // end, to throw its error.
        var firstBad: Option?
        var firstRank = Int.max
        for option in Option.allCases where !options.has(option) {
            let spec = option.spec
            if let variable = spec.variable, spec.takes(subcommand) {
                var reading = true
                do throws(KeyIDError) {
                    if let text = try environment.value(variable), spec.refusesEmptyVariable || !text.isEmpty {
                        reading = false
                        try spec.apply(text, to: &self, from: .variable(variable))
                        if option == .service { serviceGiven = true }
                        continue
                    }
                } catch {
                    let rank = variable.errorRank(reading: reading)
                    if rank < firstRank { (firstBad, firstRank) = (option, rank) }
                    continue
                }
            }
            if let text = spec.defaultValue {
                try spec.apply(text, to: &self, from: .flag(option))
            }
        }
        if let firstBad, let variable = firstBad.spec.variable, let text = try environment.value(variable) {
            try firstBad.spec.apply(text, to: &self, from: .variable(variable))
        }
        serviceFilter = serviceGiven ? service : nil
        if subcommand.reads(.machineIDFile) {
            machineIDFile = try environment.value(.machineIDFile).flatMap { $0.isEmpty ? nil : $0 }
        }
        if subcommand.reads(.fileDirectory) {
            fileDirectory = try environment.value(.fileDirectory).flatMap { $0.isEmpty ? nil : $0 }
        }
        if let fileDirectory, !fileDirectory.hasPrefix("/") {
            throw .usage(
                "\(KeyIDVariable.fileDirectory.rawValue) must be an absolute path, not '\(Parser.printable(fileDirectory))'"
            )
        }
        if Option.backend.spec.takes(subcommand) {
            try Self.checkSecretBackend(environment)
            // Refused before anything is asked of the bus, as the store would refuse it later;
            // the file backend never reads it.
            if backend == .secretService { _ = try SessionBus.secretServiceName(environment) }
        }
    }

    /// The library's options these settings stand for.
    var libraryOptions: DeviceIDs.Options {
        var options = DeviceIDs.Options(
            allowsPrompt: allowPrompt, timeout: .seconds(timeout), collection: collection, onClone: onClone)
        options.machineIDFile = machineIDFile
        return options
    }

    /// libsecret (and so `secret-tool`) hangs on an unknown `SECRET_BACKEND`; keyid, which
    /// shares the setting with them, refuses one before any call.
    static func checkSecretBackend(_ environment: ProcessEnvironment) throws(KeyIDError) {
        guard let backend = try environment.value(.secretBackend) else { return }
        guard backend == "service" || backend == "file" else {
            throw .usage(
                "SECRET_BACKEND is '\(Parser.printable(backend))', which libsecret does not know; unset it or set it to 'service'"
            )
        }
    }
}

/// Where keyid keeps IDs, as `--backend` names it; ``Context/backend(_:directory:_:)`` makes the
/// library's ``DeviceIDs/Backend`` of it once `--user` has taken effect.
package enum BackendChoice: String, CaseIterable, Sendable {
    /// The freedesktop Secret Service, over D-Bus (the default).
    case secretService = "secret-service"
    /// Files in ``FileStore/directory(_:)``, for machines without a Secret Service. Only
    /// ever used when asked for.
    case file
}
