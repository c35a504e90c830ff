import Glibc

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
    /// Takes the lock that serialises writes.
    public var lock: () throws(KeyIDError) -> LockFile?
    public var generateID: () -> DeviceID
    /// Reads this machine's ID.
    public var machineID: () throws(KeyIDError) -> MachineID
    /// Whether to bound the run with the ``Watchdog`` (which ends the process).
    public var usesWatchdog: Bool

    public init(
        stdout: any TextSink, stderr: any TextSink, environment: ProcessEnvironment,
        readInput: @escaping (Int) -> [UInt8]?, inputIsTerminal: Bool,
        makeStore: @escaping (Settings) throws(KeyIDError) -> any SecretStore,
        lock: @escaping () throws(KeyIDError) -> LockFile?, generateID: @escaping () -> DeviceID,
        machineID: @escaping () throws(KeyIDError) -> MachineID, usesWatchdog: Bool
    ) {
        self.stdout = stdout
        self.stderr = stderr
        self.environment = environment
        self.readInput = readInput
        self.inputIsTerminal = inputIsTerminal
        self.makeStore = makeStore
        self.lock = lock
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
            readInput: { limit in readDescriptor(0, limit: limit) }, inputIsTerminal: isatty(0) == 1,
            makeStore: { settings throws(KeyIDError) in
                switch settings.backend {
                case .secretService: return LibSecretStore(allowPrompt: settings.allowPrompt)
                case .file: return FileStore(directory: try FileStore.directory(in: environment))
                }
            },
            lock: { () throws(KeyIDError) in try LockFile.acquire(in: LockFile.directory(in: environment)) },
            generateID: {
                var generator = SystemRandomNumberGenerator()
                return DeviceID.random(using: &generator)
            },
            machineID: { () throws(KeyIDError) in try MachineID.current(environment) },
            usesWatchdog: true)
    }

    /// Reads a descriptor to its end or to `limit` + 1 bytes; `nil` on a read error.
    static func readDescriptor(_ descriptor: Int32, limit: Int) -> [UInt8]? {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while bytes.count <= limit {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if count == 0 { break }
            bytes += chunk[0..<count]
        }
        return bytes
    }
}
