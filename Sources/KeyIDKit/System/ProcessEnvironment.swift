import Glibc

/// The environment a run sees: the process's own, or a table (for tests).
package struct ProcessEnvironment: Sendable {
    private enum Source: Sendable {
        case table([String: String], malformed: Set<String>)
        case process
    }

    private let source: Source

    /// A table of variables; names in `malformed` stand for variables set to a value that
    /// is not valid UTF-8.
    package init(_ values: [String: String] = [:], malformed: Set<String> = []) {
        source = .table(values, malformed: malformed)
    }

    private init(source: Source) {
        self.source = source
    }

    /// The running process's environment, read one variable at a time as it is asked for.
    package static func current() -> ProcessEnvironment {
        ProcessEnvironment(source: .process)
    }

    /// The named variables of the running process, read now: a table that later changes to
    /// the environment do not reach.
    package static func snapshot(of names: [String]) -> ProcessEnvironment {
        var values: [String: String] = [:]
        var malformed: Set<String> = []
        for name in names {
            guard let pointer = getenv(name) else { continue }
            if let value = String(validatingCString: pointer) { values[name] = value } else { malformed.insert(name) }
        }
        return ProcessEnvironment(values, malformed: malformed)
    }

    /// A variable's value; throws a usage error when it is set but not valid UTF-8, so that
    /// keyid refuses such a value rather than guess.
    package func value(_ name: String) throws(KeyIDError) -> String? {
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

/// The variables of the session keyid runs in that say where things are. (The command
/// table describes them for the help and the manual page.)
package enum SystemVariable: String, CaseIterable, Sendable {
    case stateHome = "XDG_STATE_HOME"
    case sessionBus = "DBUS_SESSION_BUS_ADDRESS"
    case secretBackend = "SECRET_BACKEND"
    case secretServiceBusName = "SECRET_SERVICE_BUS_NAME"
    case runtimeDirectory = "XDG_RUNTIME_DIR"
    case cacheHome = "XDG_CACHE_HOME"
    case home = "HOME"
    case user = "USER"
    case logName = "LOGNAME"
    case configHome = "XDG_CONFIG_HOME"
    case dataHome = "XDG_DATA_HOME"
}

extension ProcessEnvironment {
    /// A variable's value; see ``value(_:)-(String)``.
    func value(_ variable: SystemVariable) throws(KeyIDError) -> String? {
        try value(variable.rawValue)
    }

    /// A variable's value when it is an absolute path.
    func absolutePath(_ variable: SystemVariable) throws(KeyIDError) -> String? {
        guard let value = try value(variable), value.hasPrefix("/") else { return nil }
        return value
    }
}
