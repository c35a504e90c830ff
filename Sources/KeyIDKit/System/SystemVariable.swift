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
