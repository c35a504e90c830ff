/// A subcommand's options with the environment's defaults applied and every value checked.
package struct Settings: Equatable, Sendable {
    package var key: ItemKey
    package var format: IDFormat
    package var json: Bool
    package var create: Bool
    package var force: Bool
    package var valueFromInput: Bool
    package var allowPrompt: Bool
    package var timeout: Double
    /// `--derive APP`, or the argument of `keyid derive`.
    package var application: DeviceID?
    package var onClone: ClonePolicy
    package var show: Bool
    package var backend: BackendChoice
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
    package var details: ItemDetails

    /// Flags win over `KEYID_*` variables, which win over the built-in defaults. Only the
    /// variables `subcommand` reads are read and checked.
    package init(
        _ subcommand: Subcommand, options: CommandLineOptions, environment processEnvironment: ProcessEnvironment
    )
        throws(KeyIDError)
    {
        let spec = CommandTable.spec(for: subcommand)
        let environment = SubcommandEnvironment(spec: spec, environment: processEnvironment)
        let service = try Self.pick(.service, options, environment)
        let serviceGiven = options.values[.service] != nil || service.source != nil
        let account = try Self.pick(.account, options, environment)
        key = try ItemKey(
            service: service.value, account: account.value, origins: (service.source, account.source))
        func resolved(_ option: Option) throws(KeyIDError) -> OptionValue? {
            try Self.resolved(option, options, environment)
        }
        format = try resolved(.format)!.choice()!
        json = options.flags.contains(.json)
        create = options.flags.contains(.create)
        force = options.flags.contains(.force)
        valueFromInput = options.values[.value] != nil
        allowPrompt = !options.flags.contains(.noPrompt)
        timeout = try resolved(.timeout)!.seconds!
        show = options.flags.contains(.show)
        serviceFilter = serviceGiven ? service.value : nil
        application = options.checked[.derive]?.id
        onClone = try resolved(.onClone)!.choice()!
        backend = try resolved(.backend)!.choice()!
        collection = try resolved(.collection)?.text
        user = try resolved(.user)?.text
        details = ItemDetails(label: options.checked[.label]?.text)
        machineIDFile = try environment.value(.machineIDFile).flatMap { $0.isEmpty ? nil : $0 }
        fileDirectory = try environment.value(.fileDirectory).flatMap { $0.isEmpty ? nil : $0 }
        if let fileDirectory, !fileDirectory.hasPrefix("/") {
            throw .usage(
                "\(KeyIDVariable.fileDirectory.rawValue) must be an absolute path, not '\(Parser.printable(fileDirectory))'"
            )
        }
        if spec.takes(.backend) {
            try Self.checkSecretBackend(processEnvironment)
            // Refused before anything is asked of the bus, as the store would refuse it later;
            // the file backend never reads it.
            if backend == .secretService { _ = try SessionBus.secretServiceName(processEnvironment) }
        }
    }

    /// The option's checked value when it was given; else its variable's value, when set and
    /// not empty, checked by the same ``OptionSpec/check`` (the variable is read only when the
    /// option was not given); else its ``OptionSpec/defaultValue``. An option declared with a
    /// default always has a value.
    private static func resolved(_ option: Option, _ options: CommandLineOptions, _ environment: SubcommandEnvironment)
        throws(KeyIDError) -> OptionValue?
    {
        let option = option.spec
        if let given = options.checked[option.option] { return given }
        guard let variable = option.variable, let check = option.check,
            let text = try environment.value(variable), !text.isEmpty
        else { return option.defaultValue }
        return try check.check(text, .variable(variable))
    }

    /// A service or account name: the flag's, else its variable's (even empty, which
    /// ``ItemKey`` refuses), else the default; with the variable's name when it came from one.
    private static func pick(_ option: Option, _ options: CommandLineOptions, _ environment: SubcommandEnvironment)
        throws(KeyIDError) -> (value: String, source: String?)
    {
        let option = option.spec
        if let flag = options.values[option.option] { return (flag, nil) }
        if let variable = option.variable, let value = try environment.value(variable) {
            return (value, variable.rawValue)
        }
        return (option.defaultValue?.text ?? "", nil)
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

/// The environment as one subcommand sees it: only the `KEYID_*` variables it reads (see
/// ``SubcommandSpec/variables``), so that a default exported for one subcommand never
/// breaks another.
struct SubcommandEnvironment {
    let spec: SubcommandSpec
    let environment: ProcessEnvironment

    /// `variable`'s value; `nil` when it is unset or the subcommand does not read it.
    func value(_ variable: KeyIDVariable) throws(KeyIDError) -> String? {
        guard spec.variables.contains(variable) else { return nil }
        return try environment.value(variable)
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
