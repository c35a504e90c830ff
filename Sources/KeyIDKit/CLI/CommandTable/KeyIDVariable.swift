/// keyid's own environment variables, the one place their names are written: defaults for
/// options, the machine ID's file and the file backend's directory. (Those of the session, such as `XDG_RUNTIME_DIR`, are
/// ``SystemVariable``s.) The help and the manual page list both.
package enum KeyIDVariable: String, CaseIterable, Sendable {
    case service = "KEYID_SERVICE"
    case account = "KEYID_ACCOUNT"
    case timeout = "KEYID_TIMEOUT"
    case onClone = "KEYID_ON_CLONE"
    case backend = "KEYID_BACKEND"
    case collection = "KEYID_COLLECTION"
    case user = "KEYID_USER"
    case machineIDFile = "KEYID_MACHINE_ID_FILE"
    case fileDirectory = "KEYID_FILE_DIR"

    /// Which of several bad variables ``Settings`` reports: the least rank. In this type's
    /// order (the help's), except that `KEYID_SERVICE` and `KEYID_ACCOUNT` are both read
    /// before either is checked (`reading`: the variable could not be read), as keyid always
    /// did.
    func errorRank(reading: Bool) -> Int {
        let index = Self.allCases.firstIndex(of: self) ?? Self.allCases.count
        return reading && (self == .service || self == .account) ? index : index + 2
    }

    /// What the variable does, for the help and the manual page.
    package var summary: String {
        switch self {
        case .service: return "default for --service"
        case .account: return "default for --account"
        case .timeout: return "default for --timeout, in seconds"
        case .onClone: return "default for --on-clone"
        case .backend: return "default for --backend"
        case .collection: return "default for --collection"
        case .user: return "default for --user"
        case .machineIDFile: return "read the machine ID from this file instead of /etc/machine-id"
        case .fileDirectory:
            return
                "the directory where --backend file keeps IDs, an absolute path (default: $XDG_STATE_HOME/keyid, else \(FileStore.rootDirectory) for root, else ~/.local/state/keyid)"
        }
    }
}

extension ProcessEnvironment {
    /// A variable's value; see ``value(_:)-(String)``.
    func value(_ variable: KeyIDVariable) throws(KeyIDError) -> String? {
        try value(variable.rawValue)
    }
}
