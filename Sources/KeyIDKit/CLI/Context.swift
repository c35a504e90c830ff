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

    public init(
        stdout: any TextSink, stderr: any TextSink, environment: ProcessEnvironment,
        readInput: @escaping (Int) -> [UInt8]?, inputIsTerminal: Bool,
        makeStore: @escaping (Settings) throws(KeyIDError) -> any SecretStore,
        serializer: any WriteSerializer, generateID: @escaping () -> DeviceID,
        machineID: @escaping () throws(KeyIDError) -> MachineID, usesWatchdog: Bool
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
                case .secretService: return SecretServiceStore(allowPrompt: settings.allowPrompt)
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
            usesWatchdog: true)
    }

    /// The lock directory the environment points to.
    static func lockDirectory(_ environment: ProcessEnvironment) throws(KeyIDError) -> String {
        try LockFile.directory(
            runtimeDirectory: environment.absolutePath(.runtimeDirectory),
            cacheHome: environment.absolutePath(.cacheHome), home: environment.absolutePath(.home))
    }

    /// The file backend's directory the environment points to.
    static func fileDirectory(_ environment: ProcessEnvironment) throws(KeyIDError) -> String {
        try FileStore.directory(stateHome: environment.absolutePath(.stateHome), home: environment.absolutePath(.home))
    }
}
