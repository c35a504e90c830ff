import Synchronization

/// A persistent device ID kept in the freedesktop Secret Service (or in files), for Swift
/// programs: the Linux counterpart of a UUID saved in the Keychain.
///
/// ```swift
/// let ids = try DeviceIDs()
/// let id = try ids.getOrCreate(service: "com.example.app", account: "device-id")
/// ```
///
/// One instance keeps one connection and one Secret Service session, opened on first use and
/// reused by every call; when the provider restarts or the bus closes the connection, the
/// next call opens them again once. Calls from many threads take turns; writes also take
/// keyid's lock file, so the `keyid` command and other processes using this library never
/// interleave their writes either: eight threads and a `keyid get --create` racing on an
/// empty item leave one item, and all get its ID.
///
/// It is a quiet guest in a program: it installs no signal handler, never ends the process
/// and writes nothing to standard output or error. Warnings (duplicates, an ID stored on
/// another machine, a temporary keyring) come back as values, in ``Reading/warnings``. Every
/// D-Bus call and every wait for the lock is bounded by ``Options/timeout``.
public final class DeviceIDs: Sendable {
    /// Where IDs are kept.
    public enum Backend: Sendable, Equatable {
        /// The freedesktop Secret Service on the session bus: gnome-keyring, KWallet or
        /// KeePassXC. The bus is found as `keyid` finds it (`DBUS_SESSION_BUS_ADDRESS`, else
        /// `$XDG_RUNTIME_DIR/bus`, else `/run/user/UID/bus`); nothing is ever autolaunched.
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
        /// The bound on each D-Bus call, on an unlock prompt, and on each wait for keyid's
        /// lock. 30 seconds by default, as for `keyid`.
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
        /// for a person), and with `false` once it is over.
        public var promptObserver: (@Sendable (Bool) -> Void)?

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
    private let state: Mutex<Parts>

    /// An instance over `backend` (the Secret Service unless told otherwise). Nothing is
    /// opened until the first call. Throws ``KeyIDError/usage(_:)`` for an option out of
    /// range (a timeout that is not positive, an empty collection name).
    public convenience init(backend: Backend = .secretService, options: Options = Options()) throws(KeyIDError) {
        try Self.check(options)
        let environment = ProcessEnvironment.current()
        let makeStore: () throws(KeyIDError) -> any SecretStore
        switch backend {
        case .secretService:
            makeStore = { () throws(KeyIDError) in
                let store = SecretServiceStore(
                    allowPrompt: options.allowsPrompt, collection: options.collection, timeout: options.timeout
                ) { () throws(KeyIDError) in try Locations.sessionBus(environment) }
                store.prompting = options.promptObserver
                return store
            }
        case .file(let directory):
            makeStore = { FileStore(directory: directory) }
        }
        self.init(
            options: options, store: makeStore,
            serializer: LockFileSerializer(waitingAtMost: options.timeout) { () throws(KeyIDError) in
                try Locations.lockDirectory(environment)
            },
            generate: {
                var generator = SystemRandomNumberGenerator()
                return DeviceID.random(using: &generator)
            },
            machineID: { () throws(KeyIDError) in try MachineID.read(from: MachineID.defaultPath) })
    }

    /// An instance over parts given by the caller: the `keyid` command (whose process
    /// deadline bounds the lock) and tests (an in-memory store, a fixed machine ID).
    package init(
        options: Options, store: @escaping () throws(KeyIDError) -> any SecretStore,
        serializer: any WriteSerializer, generate: @escaping () -> DeviceID,
        machineID: @escaping () throws(KeyIDError) -> MachineID
    ) {
        self.options = options
        state = Mutex(
            Parts(makeStore: store, serializer: serializer, generate: generate, readMachineID: machineID))
    }

    static func check(_ options: Options) throws(KeyIDError) {
        guard options.timeout > .zero else {
            throw .usage("the timeout must be more than zero, not \(options.timeout)")
        }
        if let collection = options.collection, collection.isEmpty {
            throw .usage("the collection name is empty; leave it nil to use the default keyring")
        }
    }

    // MARK: - The parts, used one call at a time

    /// What the instance opened and read once: its store (with the connection and session),
    /// and the machine's ID. Reached only through ``state``'s lock, one call at a time.
    private final class Parts: @unchecked Sendable {
        let makeStore: () throws(KeyIDError) -> any SecretStore
        let serializer: any WriteSerializer
        let generate: () -> DeviceID
        let readMachineID: () throws(KeyIDError) -> MachineID
        var store: (any SecretStore)?
        var machineID: Result<MachineID, KeyIDError>?

        init(
            makeStore: @escaping () throws(KeyIDError) -> any SecretStore, serializer: any WriteSerializer,
            generate: @escaping () -> DeviceID, readMachineID: @escaping () throws(KeyIDError) -> MachineID
        ) {
            self.makeStore = makeStore
            self.serializer = serializer
            self.generate = generate
            self.readMachineID = readMachineID
        }

        /// This machine's ID, read at most once.
        func machine() throws(KeyIDError) -> MachineID {
            if machineID == nil {
                do throws(KeyIDError) {
                    machineID = .success(try readMachineID())
                } catch {
                    machineID = .failure(error)
                }
            }
            return try machineID!.get()
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
                store: store, serializer: serializer, generate: generate,
                binding: { [unowned self] in try? machine().binding })
        }
    }

    /// Runs `body` with the use cases, one call at a time. When the store's connection was
    /// lost (see ``SecretStore/reconnect(after:)``) the store reconnects, and `body` runs
    /// once more.
    func run<T: Sendable>(_ body: (DeviceIDUseCases) throws(KeyIDError) -> T) throws(KeyIDError) -> T {
        try state.withLock { (parts: inout Parts) throws(KeyIDError) -> T in
            let useCases = try parts.useCases()
            do throws(KeyIDError) {
                return try body(useCases)
            } catch {
                guard parts.store?.reconnect(after: error) == true else { throw error }
                return try body(useCases)
            }
        }
    }

    /// Runs `body` with the store, one call at a time.
    func inspect(_ body: (any SecretStore) -> Void) throws(KeyIDError) {
        try state.withLock { (parts: inout Parts) throws(KeyIDError) in
            _ = try parts.useCases()
            if let store = parts.store { body(store) }
        }
    }
}
