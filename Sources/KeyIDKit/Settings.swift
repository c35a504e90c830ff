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

    /// Flags win over `KEYID_*` variables, which win over the built-in defaults.
    public init(options: ParsedOptions, environment: ProcessEnvironment) throws(KeyIDError) {
        let service = try Self.pick(options.values[.service], "KEYID_SERVICE", ItemKey.defaultService, environment)
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
        try Self.checkSecretBackend(environment)
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

/// The process environment, keeping note of variables whose value is not UTF-8.
public struct ProcessEnvironment: Sendable {
    public var values: [String: String]
    /// Names of variables whose value was not valid UTF-8.
    public var malformed: Set<String>

    public init(_ values: [String: String] = [:], malformed: Set<String> = []) {
        self.values = values
        self.malformed = malformed
    }

    /// A variable's value; throws a usage error when it is set but not valid UTF-8.
    public func value(_ name: String) throws(KeyIDError) -> String? {
        if malformed.contains(name) { throw .usage("\(name) is not valid UTF-8") }
        return values[name]
    }
}
