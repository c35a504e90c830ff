import Glibc

/// A subcommand's options with the environment's defaults applied and every value checked.
public struct Settings: Equatable, Sendable {
    public var key: ItemKey
    public var format: IDFormat
    public var json: Bool
    public var create: Bool
    public var force: Bool
    public var valueFromInput: Bool
    public var allowPrompt: Bool
    public var timeout: Double
    /// `--derive APP`, or the argument of `keyid derive`.
    public var application: DeviceID?
    public var onClone: ClonePolicy
    public var show: Bool
    public var backend: Backend
    /// `--service` or `KEYID_SERVICE` when one was given (for `list`), else `nil`.
    public var serviceFilter: String?

    /// Flags win over `KEYID_*` variables, which win over the built-in defaults.
    public init(options: ParsedOptions, environment: ProcessEnvironment) throws(KeyIDError) {
        let service = try Self.pick(options.values[.service], "KEYID_SERVICE", ItemKey.defaultService, environment)
        let serviceGiven = options.values[.service] != nil || service.source != nil
        let account = try Self.pick(options.values[.account], "KEYID_ACCOUNT", ItemKey.defaultAccount, environment)
        try ItemKey.validate(service.value, what: "service", source: service.source)
        try ItemKey.validate(account.value, what: "account", source: account.source)
        key = try ItemKey(service: service.value, account: account.value)
        format = options.values[.format].flatMap(IDFormat.init(rawValue:)) ?? .uuid
        json = options.flags.contains(.json)
        create = options.flags.contains(.create)
        force = options.flags.contains(.force)
        valueFromInput = options.values[.value] == "-"
        allowPrompt = !options.flags.contains(.noPrompt)
        if let text = options.values[.timeout] {
            timeout = try Parser.parseTimeout(text, source: "--timeout")
        } else if let text = try environment.value("KEYID_TIMEOUT"), !text.isEmpty {
            timeout = try Parser.parseTimeout(text, source: "KEYID_TIMEOUT")
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
        onClone = try Self.choice(options.values[.onClone], "KEYID_ON_CLONE", environment) ?? .warn
        backend = try Self.choice(options.values[.backend], "KEYID_BACKEND", environment) ?? .secretService
        try Self.checkSecretBackend(environment)
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
        _ flag: String?, _ variable: String, _ environment: ProcessEnvironment
    ) throws(KeyIDError) -> T? where T.RawValue == String {
        if let flag { return T(rawValue: flag) }
        guard let text = try environment.value(variable), !text.isEmpty else { return nil }
        guard let value = T(rawValue: text) else {
            throw .usage(
                "\(variable) is '\(Parser.printable(text))': expected \(T.allCases.map(\.rawValue).joined(separator: ", "))"
            )
        }
        return value
    }

    private static func pick(
        _ flag: String?, _ variable: String, _ fallback: String, _ environment: ProcessEnvironment
    ) throws(KeyIDError) -> (value: String, source: String?) {
        if let flag { return (flag, nil) }
        if let value = try environment.value(variable) { return (value, variable) }
        return (fallback, nil)
    }

    /// libsecret hangs on an unknown `SECRET_BACKEND`; refuse it before any call.
    static func checkSecretBackend(_ environment: ProcessEnvironment) throws(KeyIDError) {
        guard let backend = try environment.value("SECRET_BACKEND") else { return }
        guard backend == "service" || backend == "file" else {
            throw .usage(
                "SECRET_BACKEND is '\(Parser.printable(backend))', which libsecret does not know; unset it or set it to 'service'"
            )
        }
    }
}

/// The environment a run sees: the process's own, or a table (for tests).
public struct ProcessEnvironment: Sendable {
    private enum Source: Sendable {
        case table([String: String], malformed: Set<String>)
        case process
    }

    private let source: Source

    /// A table of variables; names in `malformed` stand for variables set to a value that
    /// is not valid UTF-8.
    public init(_ values: [String: String] = [:], malformed: Set<String> = []) {
        source = .table(values, malformed: malformed)
    }

    private init(source: Source) {
        self.source = source
    }

    /// The running process's environment, read one variable at a time as it is asked for
    /// (a run reads a handful of the dozens a session has).
    public static func current() -> ProcessEnvironment {
        ProcessEnvironment(source: .process)
    }

    /// A variable's value; throws a usage error when it is set but not valid UTF-8, so that
    /// keyid refuses such a value rather than guess.
    public func value(_ name: String) throws(KeyIDError) -> String? {
        switch source {
        case .table(let values, let malformed):
            if malformed.contains(name) { throw .usage("\(name) is not valid UTF-8") }
            return values[name]
        case .process:
            guard let pointer = getenv(name) else { return nil }
            guard let value = String(validatingCString: pointer) else { throw .usage("\(name) is not valid UTF-8") }
            return value
        }
    }
}
