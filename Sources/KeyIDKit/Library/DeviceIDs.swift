/// A persistent device ID kept in the freedesktop Secret Service (or in files), for Swift
/// programs: the Linux counterpart of a UUID saved in the Keychain.
///
/// ```swift
/// let ids = try DeviceIDs()
/// let id = try ids.getOrCreate(service: "com.example.app", account: "device-id")
/// ```
///
/// One instance keeps one connection and one session, opened on first use, and is shared by
/// threads, whose calls take turns. It writes nothing to standard output or error (warnings
/// come back in ``Reading/warnings``) and installs no signal handler. <doc:ThreadsAndProcesses>
/// says how it behaves beside other threads, processes and `fork`.
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
        /// The bound on a call: every reply and prompt it waits for comes within it, counted
        /// from the moment the call's turn comes (calls from other threads wait their turn
        /// first), and a wait for keyid's lock file is bounded by it too. 30 seconds by default,
        /// as for `keyid`; at most about 24 days.
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
        /// Called once a call sends the provider its first change (the `keyid` command's
        /// deadline then says that the change may have been made). It runs while the instance
        /// is busy: it must not call the instance.
        package var changeObserver: (@Sendable () -> Void)?

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
    private let backend: Backend
    /// What the instance opened, reached only under ``lock``.
    nonisolated(unsafe) private var opened: OpenedOnce
    private let lock = ProcessMutex()
    /// Makes what the instance opens anew, in a child made by fork.
    nonisolated(unsafe) private let openAgain: () -> OpenedOnce

    /// An instance over `backend` (the Secret Service unless told otherwise). The session's
    /// variables (`DBUS_SESSION_BUS_ADDRESS`, `XDG_RUNTIME_DIR`, `HOME`, ...) are read now;
    /// nothing is opened until the first call. Throws ``KeyIDError/usage(_:)`` for an option out of
    /// range (a timeout that is not positive, an empty collection name).
    public convenience init(backend: Backend = .secretService, options: Options = Options()) throws(KeyIDError) {
        // The session's variables as they are now: later changes to the process environment
        // (or another thread's setenv) do not reach the instance.
        let environment = ProcessEnvironment.snapshot(of: SystemVariable.allCases.map { $0.rawValue })
        try self.init(backend: backend, options: options, dependencies: .system(environment))
    }

    /// An instance over `backend` with what `dependencies` provide: the initialiser programs
    /// use, and the `keyid` command with the system's dependencies (or a test's).
    package convenience init(backend: Backend, options: Options, dependencies: Dependencies) throws(KeyIDError) {
        try Self.check(options)
        self.init(options: options, backend: backend, dependencies: dependencies)
    }

    /// As ``init(backend:options:dependencies:)``, without checking `options`: tests.
    package init(options: Options, backend: Backend = .secretService, dependencies: Dependencies) {
        self.options = options
        self.backend = backend
        openAgain = { OpenedOnce(backend: backend, options: options, dependencies: dependencies) }
        opened = openAgain()
    }

    /// Runs `body` with what the instance opened, one call at a time. In a child made by fork,
    /// the instance starts again from nothing: what the parent opened belongs to the parent's
    /// threads (and is kept, never released).
    private func withOpened<T, E: Error>(_ body: (OpenedOnce) throws(E) -> T) throws(E) -> T {
        try lock.withLock(
            renewing: {
                _ = Unmanaged.passRetained(opened)
                opened = openAgain()
            },
            { () throws(E) -> T in try body(opened) })
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
    /// and the machine's signals (``MachineSignals`` keeps each once read). Reached only
    /// through ``lock``, one call at a time.
    private final class OpenedOnce: @unchecked Sendable {
        let backend: Backend
        let options: Options
        let storage: any Storage
        let serializer: any WriteSerializer
        let generate: () -> DeviceID
        let signals: MachineSignals
        var store: (any SecretStore)?

        init(backend: Backend, options: Options, dependencies: Dependencies) {
            self.backend = backend
            self.options = options
            storage = dependencies.storage
            serializer = dependencies.storage.serializer(options)
            generate = dependencies.generate
            signals = MachineSignals(
                dependencies.machine, machineIDFile: options.machineIDFile ?? MachineID.defaultPath)
        }

        func useCases() throws(KeyIDError) -> DeviceIDUseCases {
            let store: any SecretStore
            if let opened = self.store {
                store = opened
            } else {
                store = try storage.openStore(backend, options)
                self.store = store
            }
            return DeviceIDUseCases(
                store: store, serializer: serializer, generate: generate, signals: signals)
        }
    }

    /// Runs `body` with the use cases, one call at a time, as one operation of the store (one
    /// deadline, one provider). When the store's connection was lost before anything was
    /// changed (see ``SecretStore/reconnect(after:rereading:)``), the store reconnects and `body`
    /// runs once more, within the same deadline; a write the provider may have carried out is
    /// never repeated.
    func run<T: Sendable>(_ body: (DeviceIDUseCases) throws(KeyIDError) -> T) throws(KeyIDError) -> T {
        try refuseAfterFork()
        return try withOpened { (opened: OpenedOnce) throws(KeyIDError) -> T in
            let useCases = try opened.useCases()
            opened.store?.beginOperation()
            do throws(KeyIDError) {
                return try body(useCases)
            } catch {
                guard opened.store?.reconnect(after: error, rereading: false) == true else { throw error }
                return try body(useCases)
            }
        }
    }

    /// Throws at once, before the instance's lock and any call into GLib, in a child made by
    /// `fork` after GDBus ran in its parent, which the Secret Service cannot be reached from
    /// (``LibSecretConnection/refusalAfterFork``); the file backend works there.
    private func refuseAfterFork() throws(KeyIDError) {
        guard case .secretService = backend, let refusal = LibSecretConnection.refusalAfterFork else { return }
        throw refusal.outcome
    }

    /// This machine's ID, read once per instance (the error too, when it cannot be read).
    package func machineID() throws(KeyIDError) -> MachineID {
        try withOpened { (opened: OpenedOnce) throws(KeyIDError) -> MachineID in
            try opened.signals.machineID()
        }
    }

    /// The signals this machine offers to the user running the program.
    package var availableSignals: [MachineSignal] {
        withOpened { (opened: OpenedOnce) in opened.signals.available }
    }

    /// Runs `body` with the store, one call at a time, as one operation of the store.
    func inspect(_ body: (any SecretStore) -> Void) throws(KeyIDError) {
        try refuseAfterFork()
        try withOpened { (opened: OpenedOnce) throws(KeyIDError) in
            _ = try opened.useCases()
            opened.store?.beginOperation()
            if let store = opened.store { body(store) }
        }
    }
}

// MARK: - What an instance is built from

extension DeviceIDs {
    /// What an instance is built from besides its backend and options: where it keeps IDs,
    /// the machine it reads and how it makes IDs. ``system(_:)`` is the real one, for programs
    /// and the `keyid` command alike; tests give their own.
    package struct Dependencies {
        package var storage: any Storage
        package var machine: any Machine
        package var generate: () -> DeviceID

        package init(storage: any Storage, machine: any Machine, generate: @escaping () -> DeviceID = DeviceID.random) {
            self.storage = storage
            self.machine = machine
            self.generate = generate
        }

        /// The system's, for programs and the command alike: ``SystemStorage`` and the
        /// machine's files (``SystemMachine``).
        package static func system(_ environment: ProcessEnvironment) -> Dependencies {
            Dependencies(storage: SystemStorage(environment: environment), machine: SystemMachine())
        }
    }
}

/// Where an instance keeps IDs: the store it opens on first use, and what keeps its writes
/// from interleaving with other threads' and processes'.
package protocol Storage {
    /// The store `backend` and `options` describe.
    func openStore(_ backend: DeviceIDs.Backend, _ options: DeviceIDs.Options) throws(KeyIDError) -> any SecretStore
    /// What serialises the instance's writes.
    func serializer(_ options: DeviceIDs.Options) -> any WriteSerializer
}

/// The system's storage: the Secret Service on the session bus `environment` leads to (on a
/// connection of its own) or a directory of files, and keyid's lock file (waited for as
/// ``DeviceIDs/Options/host`` says).
package struct SystemStorage: Storage {
    let environment: ProcessEnvironment

    package init(environment: ProcessEnvironment) {
        self.environment = environment
    }

    package func openStore(_ backend: DeviceIDs.Backend, _ options: DeviceIDs.Options) -> any SecretStore {
        switch backend {
        case .secretService:
            let store = SecretServiceStore(
                allowPrompt: options.allowsPrompt, collection: options.collection, timeout: options.timeout,
                host: options.host, bus: environment)
            store.prompting = options.promptObserver
            store.changing = options.changeObserver
            return store
        case .file(let directory): return FileStore(directory: directory)
        }
    }

    package func serializer(_ options: DeviceIDs.Options) -> any WriteSerializer {
        let environment = environment
        return LockFileSerializer(waitingAtMost: options.host.lockWait(options.timeout)) { () throws(KeyIDError) in
            try Locations.lockDirectory(environment)
        }
    }
}

/// What a read does when the stored ID was bound to another machine (a cloned disk, a restored
/// home directory): `keyid get --on-clone`, and ``DeviceIDs/Options/onClone``.
public enum ClonePolicy: String, CaseIterable, Sendable {
    /// Keep the ID and warn: the library returns ``DeviceIDs/Warning/storedOnAnotherMachine``,
    /// the command prints the ID and a warning on standard error.
    case warn
    /// Refuse it: ``KeyIDError/cloned(_:)`` (the command prints nothing and exits 9).
    case fail
    /// Replace the ID with a new one, bound to this machine, and return (print) that.
    case rotate
}
