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

    /// Flags win over `KEYID_*` variables, which win over the built-in defaults. Only the
    /// variables `subcommand` reads are read and checked.
    package init(_ subcommand: Subcommand, options: ParsedOptions, environment processEnvironment: ProcessEnvironment)
        throws(KeyIDError)
    {
        let spec = CommandTable.spec(for: subcommand)
        let environment = SubcommandEnvironment(spec: spec, environment: processEnvironment)
        let service = try Self.pick(options.values[.service], .service, ItemKey.defaultService, environment)
        let serviceGiven = options.values[.service] != nil || service.source != nil
        let account = try Self.pick(options.values[.account], .account, ItemKey.defaultAccount, environment)
        key = try ItemKey(
            service: service.value, account: account.value, origins: (service.source, account.source))
        format = options.values[.format].flatMap(IDFormat.init(rawValue:)) ?? .uuid
        json = options.flags.contains(.json)
        create = options.flags.contains(.create)
        force = options.flags.contains(.force)
        valueFromInput = options.values[.value] == "-"
        allowPrompt = !options.flags.contains(.noPrompt)
        if let seconds = options.timeout {
            timeout = seconds
        } else if let text = try environment.value(.timeout), !text.isEmpty {
            timeout = try Parser.parseTimeout(text, source: EnvironmentVariable.timeout.rawValue)
        } else {
            timeout = CommandTable.defaultTimeout
        }
        show = options.flags.contains(.show)
        serviceFilter = serviceGiven ? service.value : nil
        application = try options.values[.derive].map { text throws(KeyIDError) in
            try Self.application(text, source: "--derive")
        }
        if let argument = options.argument {
            application = try Self.application(argument, source: "the application ID")
        }
        if valueFromInput, application != nil {
            throw .usage("--value and --derive cannot be combined")
        }
        onClone = try Self.choice(options.values[.onClone], .onClone, environment) ?? .warn
        backend = try Self.choice(options.values[.backend], .backend, environment) ?? .secretService
        collection = try Self.name(options.values[.collection], .collection, environment, what: "--collection")
        user = try Self.name(options.values[.user], .user, environment, what: "--user")
        if spec.takes(.backend) { try Self.checkSecretBackend(processEnvironment) }
    }

    /// An application ID: 128 bits in any ID form, not all zeros.
    static func application(_ text: String, source: String) throws(KeyIDError) -> DeviceID {
        guard let id = DeviceID(text) else {
            throw .usage(
                "\(source) '\(Parser.printable(text))' is not a 128-bit ID (32 hex digits, a UUID or a urn:uuid: URN, not all zeros)"
            )
        }
        return id
    }

    /// A flag's value, else an environment variable's, as one of a fixed set of choices.
    private static func choice<T: RawRepresentable & CaseIterable>(
        _ flag: String?, _ variable: EnvironmentVariable, _ environment: SubcommandEnvironment
    ) throws(KeyIDError) -> T? where T.RawValue == String {
        if let flag { return T(rawValue: flag) }
        guard let text = try environment.value(variable), !text.isEmpty else { return nil }
        guard let value = T(rawValue: text) else {
            throw .usage(
                "\(variable.rawValue) is '\(Parser.printable(text))': expected \(T.allCases.map(\.rawValue).joined(separator: ", "))"
            )
        }
        return value
    }

    /// A flag's value, else a non-empty environment variable's, as a name: not empty, no
    /// control characters.
    private static func name(
        _ flag: String?, _ variable: EnvironmentVariable, _ environment: SubcommandEnvironment, what: String
    ) throws(KeyIDError) -> String? {
        let value: String?
        let source: String
        if let flag {
            (value, source) = (flag, what)
        } else {
            (value, source) = (try environment.value(variable), variable.rawValue)
        }
        guard let value, flag != nil || !value.isEmpty else { return nil }
        if value.isEmpty { throw .usage("\(source) is empty") }
        if value.unicodeScalars.contains(where: DisplayText.isControl) {
            throw .usage("\(source) '\(Parser.printable(value))' contains a control character")
        }
        return value
    }

    private static func pick(
        _ flag: String?, _ variable: EnvironmentVariable, _ fallback: String, _ environment: SubcommandEnvironment
    ) throws(KeyIDError) -> (value: String, source: String?) {
        if let flag { return (flag, nil) }
        if let value = try environment.value(variable) { return (value, variable.rawValue) }
        return (fallback, nil)
    }

    /// The library's options these settings stand for.
    var libraryOptions: DeviceIDs.Options {
        DeviceIDs.Options(
            allowsPrompt: allowPrompt, timeout: .seconds(timeout), collection: collection, onClone: onClone)
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
