/// Everything a run touches outside itself: its streams, environment, store, lock and
/// randomness. The system context talks to the real Secret Service; tests build their own.
package struct Context {
    package var stdout: any TextSink
    package var stderr: any TextSink
    package var environment: ProcessEnvironment
    /// Reads standard input to its end, or until more than `limit` bytes are read (see
    /// ``POSIX/readAll(_:limit:)``), whichever comes first.
    package var readInput: (_ limit: Int) throws(SystemCallError) -> [UInt8]
    /// Whether standard input is a terminal (then `rotate --value -` prompts).
    package var inputIsTerminal: Bool
    /// Opens the store for a backend, with the library's options (the same value the
    /// ``DeviceIDs`` instance holds); called at most once a run, on the library's first call.
    package var makeStore: (DeviceIDs.Backend, DeviceIDs.Options) throws(KeyIDError) -> any SecretStore
    /// What serialises writes.
    package var serializer: any WriteSerializer
    package var generateID: () -> DeviceID
    /// Reads this machine's ID.
    package var machineID: () throws(KeyIDError) -> MachineID
    /// Reads one of the other ``MachineSignal``s; `nil` when it cannot be read.
    package var readSignal: (MachineSignal) -> [UInt8]?
    /// Whether to bound the run with the ``Watchdog`` (which ends the process).
    package var usesWatchdog: Bool
    /// Makes the rest of the run act as the named user (`--user`), before anything is opened.
    package var actAs: (String) throws(KeyIDError) -> Void

    package init(
        stdout: any TextSink, stderr: any TextSink, environment: ProcessEnvironment,
        readInput: @escaping (Int) throws(SystemCallError) -> [UInt8], inputIsTerminal: Bool,
        makeStore: @escaping (DeviceIDs.Backend, DeviceIDs.Options) throws(KeyIDError) -> any SecretStore,
        serializer: any WriteSerializer, generateID: @escaping () -> DeviceID,
        machineID: @escaping () throws(KeyIDError) -> MachineID,
        readSignal: @escaping (MachineSignal) -> [UInt8]?, usesWatchdog: Bool,
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
        self.readSignal = readSignal
        self.usesWatchdog = usesWatchdog
        self.actAs = actAs
    }

    /// The stores of the real process, kept until it exits: taking a libsecret connection
    /// apart costs a run about 0.3 ms, and the kernel closes it at exit anyway.
    private static let keptUntilExit = ThreadLock<[AnyObject]>([])

    /// The real process: standard streams, the process environment, the Secret Service, the lock
    /// file under `$XDG_RUNTIME_DIR/keyid`, and the system's random numbers.
    /// `closedOutput`: standard output was closed when the process started.
    package static func system(environment: ProcessEnvironment, closedOutput: Bool) -> Context {
        Context(
            stdout: FileDescriptorSink(descriptor: 1, wasClosed: closedOutput),
            stderr: FileDescriptorSink(descriptor: 2),
            environment: environment,
            readInput: { limit throws(SystemCallError) in try POSIX.readAll(0, limit: limit) },
            inputIsTerminal: POSIX.isTerminal(0),
            makeStore: { backend, options in
                let store = DeviceIDs.store(for: backend, options, environment, handover: .export)
                keptUntilExit.withLock { $0.append(store) }
                return store
            },
            serializer: LockFileSerializer { () throws(KeyIDError) in try Locations.lockDirectory(environment) },
            generateID: DeviceID.random,
            machineID: { () throws(KeyIDError) in
                let path = try environment.value(.machineIDFile).flatMap { $0.isEmpty ? nil : $0 }
                return try SystemFailure.reported { () throws(SystemFailure) in
                    try MachineID.read(from: path ?? MachineID.defaultPath)
                }
            }, readSignal: { $0.read() },
            usesWatchdog: true, actAs: { name throws(KeyIDError) in try actAs(name) })
    }

    /// The library over this context's parts: the command is one client of ``DeviceIDs``, and
    /// hands it a backend, the options `settings` stand for, built here once, and `onPrompt`,
    /// the one thing the command must hear of (a prompt starting and ending). The backend is
    /// worked out on the library's first call, as the store is opened. The lock is waited for
    /// without a limit of its own: the process deadline (the ``Watchdog``) bounds the whole run.
    func deviceIDs(_ settings: Settings, onPrompt: (@Sendable (Bool) -> Void)?) -> DeviceIDs {
        var options = settings.libraryOptions
        options.promptObserver = onPrompt
        let (makeStore, environment, choice) = (self.makeStore, self.environment, settings.backend)
        return DeviceIDs(
            options: options,
            store: { () throws(KeyIDError) in try makeStore(Self.backend(choice, environment), options) },
            serializer: serializer, generate: generateID, machineID: machineID, signal: readSignal)
    }

    /// The library's backend for the one chosen: the file backend's directory comes from the
    /// environment (``FileStore/directory(_:)``).
    static func backend(_ choice: BackendChoice, _ environment: ProcessEnvironment) throws(KeyIDError)
        -> DeviceIDs.Backend
    {
        switch choice {
        case .secretService: return .secretService
        case .file: return .file(directory: try FileStore.directory(environment))
        }
    }

    /// `--user NAME`: root becomes that user for good, and takes their environment (home,
    /// runtime directory, no inherited bus or XDG directories); anyone may name themselves.
    static func actAs(_ name: String) throws(KeyIDError) {
        guard let account = try SystemFailure.reported({ () throws(SystemFailure) in try UserAccount.named(name) })
        else {
            throw .usage("--user: there is no user named '\(Parser.printable(name))'")
        }
        let me = UserAccount.effectiveUID
        guard account.uid != me else { return }
        guard me == 0 else {
            throw .usage("--user \(Parser.printable(name)): only root can act for another user")
        }
        try SystemFailure.reported { () throws(SystemFailure) in try account.become() }
        POSIX.setEnvironment(SystemVariable.home.rawValue, account.home)
        for variable in [SystemVariable.user, .logName] { POSIX.setEnvironment(variable.rawValue, account.name) }
        let inherited: [SystemVariable] = [
            .sessionBus, .runtimeDirectory, .stateHome, .cacheHome, .configHome, .dataHome,
        ]
        for variable in inherited {
            POSIX.setEnvironment(variable.rawValue, nil)
        }
        let runtime = "/run/user/\(account.uid)"
        if POSIX.isDirectory(runtime, ownedBy: account.uid) {
            POSIX.setEnvironment(SystemVariable.runtimeDirectory.rawValue, runtime)
        }
    }

}
