/// A persistent device ID kept in the freedesktop Secret Service (or in files), for Swift
/// programs: the Linux counterpart of a UUID saved in the Keychain.
///
/// ```swift
/// let ids = try DeviceIDs()
/// let id = try ids.getOrCreate(service: "com.example.app", account: "device-id")
/// ```
///
/// One instance keeps one connection, opened on first use, and one Secret Service session,
/// opened by the first call that reads or writes a value; both are reused by every call.
/// When the provider restarted (and forgot the session) or the bus closed the connection, the
/// call that finds out opens them again and runs once more, as long as nothing it sent could
/// have changed the keyring; a write is never repeated. Calls from many threads take turns;
/// writes also take keyid's lock file, so the `keyid` command and other processes using this
/// library never interleave their writes either: eight threads and a `keyid get --create`
/// racing on an empty item leave one item, and all get its ID.
///
/// It is a quiet guest in a program: it installs no signal handler, never ends the process
/// and writes nothing to standard output or error. GIO, which it connects through, sets
/// SIGPIPE to ignored for the rest of the process when it makes the process's first socket,
/// as GLib documents for `GSocket`. Warnings (duplicates, an ID stored on another machine, a
/// temporary keyring) come back as values, in ``Reading/warnings``. Every wait (for a D-Bus
/// reply, a prompt, keyid's lock) is bounded by ``Options/timeout``.
///
/// The session's variables (`DBUS_SESSION_BUS_ADDRESS`, `XDG_RUNTIME_DIR`, `HOME`, ...) are
/// read when the instance is made; the machine ID from ``Options/machineIDFile``, and the other
/// ``MachineSignal``s from their files, each once and only when needed. GLib moves
/// D-Bus messages on a thread of its own, which a child made by `fork` does not have: once a
/// process has connected (or used GDBus in any other way), the Secret Service is for it
/// alone, and a child's calls fail at once (the file backend works in a child).
public final class DeviceIDs: Sendable {
    /// Where IDs are kept.
    public enum Backend: Sendable, Equatable {
        /// The freedesktop Secret Service on the session bus: gnome-keyring, KWallet or
        /// KeePassXC. The bus is the session bus as the `keyid` command finds it
        /// (`DBUS_SESSION_BUS_ADDRESS`, else `$XDG_RUNTIME_DIR/bus`, else `/run/user/UID/bus`),
        /// on a connection of the instance's own; with none, calls throw "no session bus", and
        /// nothing is started.
        case secretService
        /// A directory of files, one per ID, for machines without a Secret Service (the
        /// directory is created, mode 0700, when an ID is first stored).
        case file(directory: String)
    }

    /// How an instance behaves; every option has a default.
    public struct Options: Sendable {
        /// Whether a locked keyring may be unlocked by asking the user for its password (the
        /// provider shows a prompt). Off by default: then a locked keyring is
        /// ``KeyIDError/locked(_:)``, at once.
        public var allowsPrompt: Bool
        /// The bound on each wait: for the replies to a batch of D-Bus calls, for a prompt, for
        /// keyid's lock. A call that needs several waits can take a multiple of it, and calls
        /// from other threads wait their turn first. 30 seconds by default, as for `keyid`; at
        /// most about 24 days.
        public var timeout: Duration
        /// The keyring to search and store in, by alias (`default`, `login`), the last part
        /// of its object path, or its label; `nil` (the default): search every keyring and
        /// store in the one the `default` alias names.
        public var collection: String?
        /// What a read does with an ID that was stored on another machine (a cloned disk, a
        /// restored home directory): ``ClonePolicy/warn`` (the default) returns it with
        /// ``Warning/storedOnAnotherMachine``.
        public var onClone: ClonePolicy
        /// Called with `true` just before the provider is asked to show a prompt (which waits
        /// for a person), and with `false` once it is over. It runs while the instance is
        /// busy: it must not call the instance.
        public var promptObserver: (@Sendable (Bool) -> Void)?
        /// The file the machine ID is read from (new IDs are bound to it); `nil` (the default):
        /// `/etc/machine-id`. The `keyid` command sets it from its variable for a machine-ID
        /// file; a program that wants another file sets it here.
        public var machineIDFile: String?
        /// Whom the instance works for: a program (the default) or the `keyid` command,
        /// which sets it so that advice names its options and its deadline bounds the lock.
        package var host: Host = .program

        /// Options with the given values; each defaults as described on its property.
        public init(
            allowsPrompt: Bool = false, timeout: Duration = .seconds(30), collection: String? = nil,
            onClone: ClonePolicy = .warn, promptObserver: (@Sendable (Bool) -> Void)? = nil
        ) {
            self.allowsPrompt = allowsPrompt
            self.timeout = timeout
            self.collection = collection
            self.onClone = onClone
            self.promptObserver = promptObserver
        }
    }

    /// The options this instance was made with.
    public let options: Options
    private let state: ThreadLock<OpenedOnce>

    /// An instance over `backend` (the Secret Service unless told otherwise). Nothing is
    /// opened until the first call. Throws ``KeyIDError/usage(_:)`` for an option out of
    /// range (a timeout that is not positive, an empty collection name).
    public convenience init(backend: Backend = .secretService, options: Options = Options()) throws(KeyIDError) {
        // The session's variables as they are now: later changes to the process environment
        // (or another thread's setenv) do not reach the instance.
        let environment = ProcessEnvironment.snapshot(of: SystemVariable.allCases.map(\.rawValue))
        try self.init(backend: backend, options: options, dependencies: .system(environment))
    }

    /// An instance over `backend` with what `dependencies` provide: the initialiser programs
    /// use, and the `keyid` command with the system's dependencies (or a test's).
    package convenience init(backend: Backend, options: Options, dependencies: Dependencies) throws(KeyIDError) {
        try Self.check(options)
        let machineIDFile = options.machineIDFile ?? MachineID.defaultPath
        self.init(
            options: options, store: { () throws(KeyIDError) in try dependencies.openStore(backend, options) },
            serializer: dependencies.serializer(options), generate: dependencies.generate,
            machineID: { () throws(KeyIDError) in try dependencies.readMachineID(machineIDFile) },
            signal: dependencies.readSignal)
    }

    /// The store `backend` and `options` describe: the one both the library and the `keyid`
    /// command use.
    package static func store(for backend: Backend, _ options: Options, _ environment: ProcessEnvironment)
        -> any SecretStore
    {
        switch backend {
        case .secretService: return secretServiceStore(options, environment)
        case .file(let directory): return FileStore(directory: directory)
        }
    }

    /// The Secret Service store `options` describe, on the bus `environment` leads to.
    private static func secretServiceStore(_ options: Options, _ environment: ProcessEnvironment)
        -> SecretServiceStore
    {
        let store = SecretServiceStore(
            allowPrompt: options.allowsPrompt, collection: options.collection, timeout: options.timeout,
            host: options.host
        ) { () throws(KeyIDError) in try Locations.sessionBus(environment) }
        store.prompting = options.promptObserver
        return store
    }

    /// `read`, called at most once: later calls give what the first one gave (the value, or
    /// the error). The machine ID does not change while a program runs.
    package static func once<T>(_ read: @escaping () throws(KeyIDError) -> T) -> () throws(KeyIDError) -> T {
        var outcome: Result<T, KeyIDError>?
        return { () throws(KeyIDError) in
            if outcome == nil {
                do throws(KeyIDError) {
                    outcome = .success(try read())
                } catch {
                    outcome = .failure(error)
                }
            }
            return try outcome!.get()
        }
    }

    /// An instance over parts given by the caller: tests (an in-memory store, a fixed machine
    /// ID, the values of the other ``MachineSignal``s, `nil` for one that cannot be read), and
    /// the initialiser above with what its ``Dependencies`` make.
    package init(
        options: Options, store: @escaping () throws(KeyIDError) -> any SecretStore,
        serializer: any WriteSerializer, generate: @escaping () -> DeviceID,
        machineID: @escaping () throws(KeyIDError) -> MachineID, signal: @escaping (MachineSignal) -> [UInt8]?
    ) {
        self.options = options
        state = ThreadLock(
            OpenedOnce(
                makeStore: store, serializer: serializer, generate: generate, machineID: machineID, signal: signal))
    }

    /// The timeout of ``Options`` unless one is given (the one place it is written: the
    /// initialiser's default), and of the `keyid` command.
    package static let defaultTimeout = Options().timeout

    /// The longest timeout: what `poll` can wait in one call (about 24 days).
    package static let longestTimeout = Duration.milliseconds(Int32.max)

    static func check(_ options: Options) throws(KeyIDError) {
        guard options.timeout > .zero, options.timeout <= longestTimeout else {
            throw .usage("the timeout must be more than zero and at most \(longestTimeout), not \(options.timeout)")
        }
        if let collection = options.collection, collection.isEmpty {
            throw .usage("the collection name is empty; leave it nil to use the default keyring")
        }
    }

    // MARK: - What is opened once, used one call at a time

    /// What the instance opened and read once: its store (with the connection and session),
    /// and the machine's signals. Reached only through ``state``'s lock, one call at a time.
    private final class OpenedOnce: @unchecked Sendable {
        let makeStore: () throws(KeyIDError) -> any SecretStore
        let serializer: any WriteSerializer
        let generate: () -> DeviceID
        /// The machine's signals, each read on first use and kept: they do not change while a
        /// program runs.
        let signals: MachineSignals
        /// The machine ID, read on first use and kept: the one memo of it.
        let machineID: () throws(KeyIDError) -> MachineID
        var store: (any SecretStore)?

        init(
            makeStore: @escaping () throws(KeyIDError) -> any SecretStore, serializer: any WriteSerializer,
            generate: @escaping () -> DeviceID, machineID: @escaping () throws(KeyIDError) -> MachineID,
            signal: @escaping (MachineSignal) -> [UInt8]?
        ) {
            self.makeStore = makeStore
            self.serializer = serializer
            self.generate = generate
            let machine = DeviceIDs.once { () throws(KeyIDError) in try machineID() }
            let values = Dictionary(
                uniqueKeysWithValues: MachineSignal.allCases.dropFirst().map { which in
                    (which, DeviceIDs.once { () throws(KeyIDError) in signal(which) })
                })
            self.machineID = machine
            signals = MachineSignals(machineID: { try? machine() }, value: { (try? values[$0]?()) ?? nil })
        }

        func useCases() throws(KeyIDError) -> DeviceIDUseCases {
            let store: any SecretStore
            if let opened = self.store {
                store = opened
            } else {
                store = try makeStore()
                self.store = store
            }
            return DeviceIDUseCases(
                store: store, serializer: serializer, generate: generate, signals: signals)
        }
    }

    /// Runs `body` with the use cases, one call at a time. When the store's connection was
    /// lost before anything was changed (see ``SecretStore/reconnect(after:rereading:)``), the store
    /// reconnects and `body` runs once more; a write the provider may have carried out is
    /// never repeated.
    func run<T: Sendable>(_ body: (DeviceIDUseCases) throws(KeyIDError) -> T) throws(KeyIDError) -> T {
        try state.withLock { (opened: inout OpenedOnce) throws(KeyIDError) -> T in
            let useCases = try opened.useCases()
            opened.store?.beginOperation()
            do throws(KeyIDError) {
                return try body(useCases)
            } catch {
                guard opened.store?.reconnect(after: error, rereading: false) == true else { throw error }
                opened.store?.beginOperation()
                return try body(useCases)
            }
        }
    }

    /// This machine's ID, read once per instance (the error too, when it cannot be read).
    package func machineID() throws(KeyIDError) -> MachineID {
        try state.withLock { (opened: inout OpenedOnce) throws(KeyIDError) -> MachineID in try opened.machineID() }
    }

    /// The signals this machine offers to the user running the program.
    package var availableSignals: [MachineSignal] {
        state.withLock { (opened: inout OpenedOnce) in opened.signals.available }
    }

    /// Runs `body` with the store, one call at a time.
    func inspect(_ body: (any SecretStore) -> Void) throws(KeyIDError) {
        try state.withLock { (opened: inout OpenedOnce) throws(KeyIDError) in
            _ = try opened.useCases()
            if let store = opened.store { body(store) }
        }
    }
}
