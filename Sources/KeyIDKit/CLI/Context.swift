/// Everything a run touches outside itself: its streams, environment, store, lock and
/// randomness. The system context talks to the real Secret Service; tests build their own.
public struct Context {
    public var stdout: any TextSink
    public var stderr: any TextSink
    public var environment: ProcessEnvironment
    /// Reads standard input to its end, or up to `limit` + 1 bytes, whichever comes first.
    public var readInput: (_ limit: Int) -> [UInt8]?
    /// Whether standard input is a terminal (then `rotate --value -` prompts).
    public var inputIsTerminal: Bool
    /// Opens the store a run uses; called only once the command line has been accepted.
    public var makeStore: (Settings) throws(KeyIDError) -> any SecretStore
    /// What serialises writes.
    public var serializer: any WriteSerializer
    public var generateID: () -> DeviceID
    /// Reads this machine's ID.
    public var machineID: () throws(KeyIDError) -> MachineID
    /// Whether to bound the run with the ``Watchdog`` (which ends the process).
    public var usesWatchdog: Bool
    /// Makes the rest of the run act as the named user (`--user`), before anything is opened.
    public var actAs: (String) throws(KeyIDError) -> Void

    public init(
        stdout: any TextSink, stderr: any TextSink, environment: ProcessEnvironment,
        readInput: @escaping (Int) -> [UInt8]?, inputIsTerminal: Bool,
        makeStore: @escaping (Settings) throws(KeyIDError) -> any SecretStore,
        serializer: any WriteSerializer, generateID: @escaping () -> DeviceID,
        machineID: @escaping () throws(KeyIDError) -> MachineID, usesWatchdog: Bool,
        actAs: @escaping (String) throws(KeyIDError) -> Void
    ) {
        self.stdout = stdout
        self.stderr = stderr
        self.environment = environment
        self.readInput = readInput
        self.inputIsTerminal = inputIsTerminal
        self.makeStore = makeStore
        self.serializer = serializer
        self.generateID = generateID
        self.machineID = machineID
        self.usesWatchdog = usesWatchdog
        self.actAs = actAs
    }

    /// The real process: standard streams, the process environment, libsecret, the lock
    /// file under `$XDG_RUNTIME_DIR/keyid`, and the system's random numbers.
    public static func system(environment: ProcessEnvironment) -> Context {
        Context(
            stdout: FileDescriptorSink(descriptor: 1), stderr: FileDescriptorSink(descriptor: 2),
            environment: environment,
            readInput: { limit in POSIX.readAll(0, limit: limit) }, inputIsTerminal: POSIX.isTerminal(0),
            makeStore: { settings throws(KeyIDError) in
                switch settings.backend {
                case .secretService:
                    let store = SecretServiceStore(allowPrompt: settings.allowPrompt, collection: settings.collection) {
                        () throws(KeyIDError) in try sessionBus(environment)
                    }
                    store.prompting = { waiting in
                        let message =
                            waiting
                            ? KeyID.promptTimeoutMessage(settings.timeout)
                            : KeyID.timeoutMessage(settings.timeout, settings.backend)
                        Watchdog.update(message: "keyid: \(message)\n")
                    }
                    return store
                case .file: return FileStore(directory: try fileDirectory(environment))
                }
            },
            serializer: LockFileSerializer { () throws(KeyIDError) in try lockDirectory(environment) },
            generateID: {
                var generator = SystemRandomNumberGenerator()
                return DeviceID.random(using: &generator)
            },
            machineID: { () throws(KeyIDError) in
                let path = try environment.value(.machineIDFile).flatMap { $0.isEmpty ? nil : $0 }
                return try MachineID.read(from: path ?? MachineID.defaultPath)
            },
            usesWatchdog: true, actAs: { name throws(KeyIDError) in try actAs(name) })
    }

    /// The session bus: `DBUS_SESSION_BUS_ADDRESS` when set, else `$XDG_RUNTIME_DIR/bus`, else
    /// `/run/user/UID/bus`, each only when it is a socket of the user's. Never a bus that
    /// would have to be started.
    static func sessionBus(_ environment: ProcessEnvironment) throws(KeyIDError) -> SessionBus {
        let variable = EnvironmentVariable.sessionBus.rawValue
        if let configured = try environment.value(.sessionBus), !configured.isEmpty {
            guard !SessionBus.autolaunches(configured) else {
                throw .unavailable(
                    .noBus("\(variable) is '\(Parser.printable(configured))', which would start a new bus"))
            }
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
        var detail =
            "\(variable) is unset and no socket of yours is at \(tried.map(DisplayText.escaped).joined(separator: " or "))"
        if uid == 0 { detail += "; as root, use --user NAME to act for a user who has a session" }
        throw .unavailable(.noBus(detail))
    }

    /// `--user NAME`: root becomes that user for good, and takes their environment (home,
    /// runtime directory, no inherited bus or XDG directories); anyone may name themselves.
    static func actAs(_ name: String) throws(KeyIDError) {
        guard let account = try UserAccount.named(name) else {
            throw .usage("--user: there is no user named '\(Parser.printable(name))'")
        }
        let me = UserAccount.effectiveUID
        guard account.uid != me else { return }
        guard me == 0 else {
            throw .usage("--user \(Parser.printable(name)): only root can act for another user")
        }
        try account.become()
        POSIX.setEnvironment(EnvironmentVariable.home.rawValue, account.home)
        for name in ["USER", "LOGNAME"] { POSIX.setEnvironment(name, account.name) }
        for variable in [EnvironmentVariable.sessionBus, .runtimeDirectory, .stateHome, .cacheHome] {
            POSIX.setEnvironment(variable.rawValue, nil)
        }
        for name in ["XDG_CONFIG_HOME", "XDG_DATA_HOME"] { POSIX.setEnvironment(name, nil) }
        let runtime = "/run/user/\(account.uid)"
        if POSIX.isDirectory(runtime, ownedBy: account.uid) {
            POSIX.setEnvironment(EnvironmentVariable.runtimeDirectory.rawValue, runtime)
        }
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
        return try UserAccount.withUID(UserAccount.effectiveUID)?.home
    }

    /// The file backend's directory the environment points to.
    static func fileDirectory(_ environment: ProcessEnvironment) throws(KeyIDError) -> String {
        if let state = try environment.absolutePath(.stateHome) {
            return try FileStore.directory(stateHome: state, home: nil)
        }
        return try FileStore.directory(stateHome: nil, home: UserAccount.effectiveUID == 0 ? nil : home(environment))
    }
}
