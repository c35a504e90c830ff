/// Where keyid finds the session bus, its lock and the user's home, from the environment a
/// run sees: the rules for a desktop session, ssh, cron and `env -i` alike.
enum Locations {
    /// The session bus: `DBUS_SESSION_BUS_ADDRESS` when set, else `$XDG_RUNTIME_DIR/bus`, else
    /// `/run/user/UID/bus`, each only when it is a socket of the user's. Never a bus that
    /// would have to be started.
    static func sessionBus(_ environment: ProcessEnvironment) throws(KeyIDError) -> SessionBus {
        let serviceName = try SessionBus.secretServiceName(environment)
        var bus = try sessionBusAddress(environment)
        bus.serviceName = serviceName
        return bus
    }

    /// ``sessionBus(_:)``'s address, and where it came from.
    private static func sessionBusAddress(_ environment: ProcessEnvironment) throws(KeyIDError) -> SessionBus {
        let variable = SystemVariable.sessionBus.rawValue
        if let configured = try environment.value(.sessionBus), !configured.isEmpty {
            guard !SessionBus.autolaunches(configured) else { throw SessionBus.refusingAutolaunch(configured) }
            return SessionBus(address: configured, source: "set in " + variable)
        }
        let uid = UserAccount.effectiveUID
        var tried: [String] = []
        if let runtime = try environment.absolutePath(.runtimeDirectory) {
            tried.append(runtime + "/bus")
        }
        let standard = "/run/user/\(uid)/bus"
        if !tried.contains(standard) { tried.append(standard) }
        for path in tried {
            if let bus = SessionBus.socket(at: path, ownedBy: uid) { return bus }
        }
        throw .unavailable(
            .noBus(
                "\(variable) is unset and no socket of yours is at \(tried.map(DisplayText.escaped).joined(separator: " or "))"
            ))
    }

    /// The lock directory: under the runtime directory (`XDG_RUNTIME_DIR` when it names an
    /// existing directory, else `/run/user/UID` when that is the user's), so that a desktop
    /// session, ssh and cron share one lock; else `$XDG_CACHE_HOME/keyid`, else
    /// `~/.cache/keyid`. Each variable is read only when the ones before it did not answer.
    static func lockDirectory(_ environment: ProcessEnvironment) throws(KeyIDError) -> String {
        if let runtime = try runtimeDirectory(environment) {
            return try LockFile.directory(runtimeDirectory: runtime, cacheHome: nil, home: nil)
        }
        if let cache = try environment.absolutePath(.cacheHome) {
            return try LockFile.directory(runtimeDirectory: nil, cacheHome: cache, home: nil)
        }
        return try LockFile.directory(runtimeDirectory: nil, cacheHome: nil, home: home(environment))
    }

    /// The user's runtime directory: `XDG_RUNTIME_DIR` unless it names nothing at all (a
    /// stale one, left by `su`, is passed over; anything else there is checked, and refused
    /// when unsafe, by the lock), else `/run/user/UID` when it is the user's.
    static func runtimeDirectory(_ environment: ProcessEnvironment) throws(KeyIDError) -> String? {
        if let runtime = try environment.absolutePath(.runtimeDirectory), POSIX.exists(runtime) {
            return runtime
        }
        let standard = "/run/user/\(UserAccount.effectiveUID)"
        return POSIX.isDirectory(standard, ownedBy: UserAccount.effectiveUID) ? standard : nil
    }

    /// The home directory: `HOME` when it is an absolute path, else the password database's
    /// (cron and `env -i` may leave `HOME` unset).
    static func home(_ environment: ProcessEnvironment) throws(KeyIDError) -> String? {
        if let home = try environment.absolutePath(.home) { return home }
        return try SystemFailure.reported { () throws(SystemFailure) in
            try UserAccount.withUID(UserAccount.effectiveUID)?.home
        }
    }

}
