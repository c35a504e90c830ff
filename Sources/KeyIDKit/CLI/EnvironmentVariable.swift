/// The environment variables keyid reads: the one place their names are written. The help,
/// the manual page and the README list those with a ``summary``.
public enum EnvironmentVariable: String, CaseIterable, Sendable {
    case service = "KEYID_SERVICE"
    case account = "KEYID_ACCOUNT"
    case timeout = "KEYID_TIMEOUT"
    case onClone = "KEYID_ON_CLONE"
    case backend = "KEYID_BACKEND"
    case machineIDFile = "KEYID_MACHINE_ID_FILE"
    case stateHome = "XDG_STATE_HOME"
    case sessionBus = "DBUS_SESSION_BUS_ADDRESS"
    case secretBackend = "SECRET_BACKEND"
    case runtimeDirectory = "XDG_RUNTIME_DIR"
    case cacheHome = "XDG_CACHE_HOME"
    case home = "HOME"

    /// What the variable does, for the help and the manual page; `nil` for a variable that
    /// only stands in for others that are unset.
    public var summary: String? {
        switch self {
        case .service: return "default for --service"
        case .account: return "default for --account"
        case .timeout: return "default for --timeout, in seconds"
        case .onClone: return "default for --on-clone"
        case .backend: return "default for --backend"
        case .machineIDFile: return "read the machine ID from this file instead of /etc/machine-id"
        case .stateHome:
            return
                "where --backend file keeps IDs (keyid/; unset: /var/lib/keyid for root, else ~/.local/state/keyid)"
        case .sessionBus: return "the session bus where the Secret Service is found"
        case .secretBackend: return "must be unset, service or file; any other value is refused"
        case .runtimeDirectory: return "where the lock file lives (keyid/lock)"
        case .cacheHome: return "where the lock file lives when XDG_RUNTIME_DIR is unset"
        case .home: return nil
        }
    }
}

extension ProcessEnvironment {
    /// A variable's value; see ``value(_:)-(String)``.
    func value(_ variable: EnvironmentVariable) throws(KeyIDError) -> String? {
        try value(variable.rawValue)
    }

    /// A variable's value when it is an absolute path.
    func absolutePath(_ variable: EnvironmentVariable) throws(KeyIDError) -> String? {
        guard let value = try value(variable), value.hasPrefix("/") else { return nil }
        return value
    }
}
