/// Everything a run touches outside itself: its streams, environment, and what the library
/// is built from. The system context talks to the real Secret Service; tests build their own.
package struct Context {
    package var stdout: any TextSink
    package var stderr: any TextSink
    package var environment: ProcessEnvironment
    /// Reads standard input to its end, or until more than `limit` bytes are read (see
    /// ``POSIX/readAll(_:limit:)``), whichever comes first.
    package var readInput: (_ limit: Int) throws(SystemCallError) -> [UInt8]
    /// Whether standard input is a terminal (then `rotate --value -` prompts).
    package var inputIsTerminal: Bool
    /// What the run's ``DeviceIDs`` is built from: the store, the lock, the machine.
    package var dependencies: DeviceIDs.Dependencies
    /// Whether to bound the run with the ``Watchdog`` (which ends the process).
    package var usesWatchdog: Bool
    /// Makes the rest of the run act as the named user (`--user`), before anything is opened.
    package var actAs: (String) throws(KeyIDError) -> Void

    package init(
        stdout: any TextSink, stderr: any TextSink, environment: ProcessEnvironment,
        readInput: @escaping (Int) throws(SystemCallError) -> [UInt8], inputIsTerminal: Bool,
        dependencies: DeviceIDs.Dependencies, usesWatchdog: Bool,
        actAs: @escaping (String) throws(KeyIDError) -> Void
    ) {
        self.stdout = stdout
        self.stderr = stderr
        self.environment = environment
        self.readInput = readInput
        self.inputIsTerminal = inputIsTerminal
        self.dependencies = dependencies
        self.usesWatchdog = usesWatchdog
        self.actAs = actAs
    }

    /// The real process: standard streams, the process environment, and the dependencies
    /// programs get too (``deviceIDs(_:host:onPrompt:)`` tells the library it works for the
    /// command).
    /// `closedOutput`: standard output was closed when the process started.
    package static func system(environment: ProcessEnvironment, closedOutput: Bool) -> Context {
        Context(
            stdout: FileDescriptorSink(descriptor: 1, wasClosed: closedOutput),
            stderr: FileDescriptorSink(descriptor: 2),
            environment: environment,
            readInput: { limit throws(SystemCallError) in try POSIX.readAll(0, limit: limit) },
            inputIsTerminal: POSIX.isTerminal(0),
            dependencies: .system(environment),
            usesWatchdog: true, actAs: { name throws(KeyIDError) in try actAs(name) })
    }

    /// The library for this run: the command resolves the backend and the options `settings`
    /// stand for, then builds ``DeviceIDs`` through the initialiser programs use, telling it of
    /// `onPrompt` and `onChange`, the things the command's deadline must hear of (a prompt
    /// starting and ending, a change sent), and of `host`, whose words its advice takes.
    func deviceIDs(
        _ settings: Settings, host: Host = .keyidCommand, onPrompt: (@Sendable (Bool) -> Void)?,
        onChange: (@Sendable () -> Void)? = nil
    ) throws(KeyIDError) -> DeviceIDs {
        var options = settings.libraryOptions
        options.promptObserver = onPrompt
        options.changeObserver = onChange
        // The command's words; and only a run the watchdog bounds is keyid's own process, which
        // waits for the lock without a bound of its own.
        options.host = host
        options.host.ownsProcess = usesWatchdog
        return try DeviceIDs(
            backend: Self.backend(settings.backend, directory: settings.fileDirectory, environment), options: options,
            dependencies: dependencies)
    }

    /// The library's backend for the one chosen: the file backend's directory is `directory`
    /// (`KEYID_FILE_DIR`) when given, else it comes from the environment
    /// (``FileStore/directory(_:)``).
    static func backend(_ choice: BackendChoice, directory: String?, _ environment: ProcessEnvironment)
        throws(KeyIDError) -> DeviceIDs.Backend
    {
        switch choice {
        case .secretService: return .secretService
        case .file:
            if let directory { return .file(directory: directory) }
            return .file(directory: try FileStore.directory(environment))
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
