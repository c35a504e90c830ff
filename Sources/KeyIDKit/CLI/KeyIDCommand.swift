import Synchronization

/// The `keyid` command: parse, check, call the library, and decide the output and exit status
/// in one place.
package enum KeyIDCommand {
    /// Runs one command line (without the program name) and returns the exit status.
    package static func run(_ arguments: [String], context: Context) -> Int32 {
        let invocation: Invocation
        do {
            invocation = try Parser.parse(arguments)
        } catch {
            return report(error, context)
        }
        switch invocation {
        case .version:
            return deliver("keyid \(KeyIDVersion.current)\n", change: nil, context) ?? 0
        case .help(let subcommand):
            return deliver(HelpText.render(subcommand), change: nil, context) ?? 0
        case .run(let subcommand, let options):
            return runSubcommand(subcommand, options, context)
        }
    }

    /// Runs the process's own command line in the system context.
    package static func main() -> Int32 {
        let closed = POSIX.reopenClosedStandardDescriptors()
        let context = Context.system(environment: .current(), closedOutput: closed.contains(1))
        var arguments: [String] = []
        for index in 1..<Int(CommandLine.argc) {
            guard let pointer = CommandLine.unsafeArgv[index], let argument = String(validatingCString: pointer) else {
                return report(Parser.usageError("argument \(index) is not valid UTF-8", nil), context)
            }
            arguments.append(argument)
        }
        return run(arguments, context: context)
    }

    /// Runs a parsed subcommand: its settings, the deadline, the library call, then the
    /// output and the exit status.
    private static func runSubcommand(_ subcommand: Subcommand, _ options: CommandLineOptions, _ context: Context)
        -> Int32
    {
        let settings: Settings
        let value: DeviceID?
        do {
            settings = try Settings(subcommand, options: options, environment: context.environment)
            value = settings.valueFromInput ? try NewIDInput.read(context) : nil
        } catch .usage(let message) {
            return report(Parser.usageError(message, subcommand), context)
        } catch {
            return report(error, context)
        }
        if context.usesWatchdog {
            Watchdog.start(
                seconds: settings.timeout,
                message:
                    "keyid: \(timeoutMessage(settings.timeout, settings.backend))\n",
                status: ExitStatus.timedOut.rawValue)
        }
        // The result or the error, the deadline disarmed before either is reported. (Not a
        // `Result`: its type's metadata, built on first use, looks up KeyIDError's conformance
        // to Error among every conformance the binary holds.)
        let result: CommandResult
        do {
            result = try callLibrary(subcommand, settings, value, context)
        } catch {
            if context.usesWatchdog, !Watchdog.finish() { Watchdog.awaitExpiry() }
            return report(error, context)
        }
        if context.usesWatchdog, !Watchdog.finish() { Watchdog.awaitExpiry() }
        for notice in result.notices { try? context.stderr.write("keyid: \(DisplayText.escaped(notice))\n") }
        if case .failed(let failure) = result.streamFailure { return failedOutput(failure, change: nil, context) }
        if let output = result.output, let failed = deliver(output, change: result.change, context) {
            return failed
        }
        return result.status
    }

    /// Acts as `--user`'s user, builds the library and calls it for the subcommand.
    private static func callLibrary(
        _ subcommand: Subcommand, _ settings: Settings, _ value: DeviceID?, _ context: Context
    )
        throws(KeyIDError) -> CommandResult
    {
        // Before anything is opened, and inside the deadline: a user lookup may wait on a
        // directory service.
        if let user = settings.user { try context.actAs(user) }
        var settings = settings
        // doctor only looks: it never asks to unlock anything, and never replaces an ID.
        if subcommand == .doctor {
            settings.allowPrompt = false
            settings.onClone = .warn
        }
        var onPrompt: (@Sendable (Bool) -> Void)?
        var onChange: (@Sendable () -> Void)?
        if context.usesWatchdog {
            let deadline = DeadlineMessage(settings)
            onPrompt = { waiting in deadline.update(prompting: waiting) }
            onChange = { deadline.markChanged() }
        }
        let ids = try context.deviceIDs(
            settings, host: subcommand == .doctor ? .keyidDoctor : .keyidCommand, onPrompt: onPrompt,
            onChange: onChange)
        if context.usesWatchdog { KeptUntilExit.keep(ids) }
        let derived = try settings.application.map { application throws(KeyIDError) in
            try ids.machineID().appSpecific(application)
        }
        switch subcommand {
        case .derive: return DeriveCommand.run(settings, derived)
        case .get: return try GetCommand.run(settings, ids, value: value)
        case .create: return try CreateCommand.run(settings, ids, value: value ?? derived)
        case .rotate: return try RotateCommand.run(settings, ids, value: value ?? derived)
        case .delete: return try DeleteCommand.run(settings, ids)
        case .list: return try ListCommand.run(settings, ids)
        case .doctor:
            var failure: SystemCallError?
            var result = try DoctorCommand.run(settings, ids, context.environment) { line in
                guard failure == nil else { return }
                do throws(SystemCallError) { try context.stdout.write(line) } catch { failure = error }
            }
            if let failure { result.streamFailure = .failed(failure) }
            return result
        }
    }

    /// The library instances of this process's runs, kept until it exits, which closes their
    /// connections (doc/PERFORMANCE.md, "Exit"). Under a ``ProcessMutex``: a generic lock would
    /// build its type's metadata on every run.
    private enum KeptUntilExit {
        /// The first (a command makes one), then the others.
        nonisolated(unsafe) private static var first: DeviceIDs?
        nonisolated(unsafe) private static var others: [DeviceIDs] = []
        private static let lock = ProcessMutex()

        static func keep(_ ids: DeviceIDs) {
            lock.withLock {
                if first == nil { first = ids } else { others.append(ids) }
            }
        }
    }

    /// The run's deadline message as the run goes: it says what the run was waiting for (a
    /// prompt, or the Secret Service), and, once the run sent a change, that the change may
    /// have been made. Updated from the thread that runs the command.
    private final class DeadlineMessage: Sendable {
        let timeout: Double
        let backend: BackendChoice
        private let prompting = Atomic<Bool>(false)
        private let changed = Atomic<Bool>(false)

        init(_ settings: Settings) { (timeout, backend) = (settings.timeout, settings.backend) }

        /// The run waits for a prompt (`true`) or no longer (`false`).
        func update(prompting waiting: Bool) {
            prompting.store(waiting, ordering: .relaxed)
            render()
        }

        /// The run sent a change.
        func markChanged() {
            changed.store(true, ordering: .relaxed)
            render()
        }

        private func render() {
            let message =
                prompting.load(ordering: .relaxed)
                ? promptTimeoutMessage(timeout) : timeoutMessage(timeout, backend)
            let note = changed.load(ordering: .relaxed) ? SecretServiceFailure.unconfirmed : ""
            Watchdog.update(message: "keyid: \(message)\(note)\n")
        }
    }

    static func timeoutMessage(_ seconds: Double, _ backend: BackendChoice) -> String {
        guard backend == .secretService else {
            return
                "timed out after \(shown(seconds)) s (another keyid run may hold the lock); use --timeout to wait longer"
        }
        return
            "timed out after \(shown(seconds)) s: the Secret Service did not answer (a stalled daemon or session bus, or another keyid run holding the lock); use --timeout to wait longer"
    }

    /// The timeout message once the provider has been asked to show a prompt.
    static func promptTimeoutMessage(_ seconds: Double) -> String {
        "timed out after \(shown(seconds)) s waiting for an unlock prompt nobody answered; answer it, run with --no-prompt to fail at once instead, or use --timeout to wait longer"
    }

    private static func shown(_ seconds: Double) -> String { Duration.seconds(seconds).secondsText }

    /// Writes the result to standard output. Output is part of the result: a failed write is
    /// exit 8 with one line on standard error, saying what the run had already changed; a
    /// reader that went away ends the run quietly, by SIGPIPE. Returns nil when all was
    /// written.
    private static func deliver(_ output: String, change: String?, _ context: Context) -> Int32? {
        do throws(SystemCallError) {
            try context.stdout.write(output)
            return nil
        } catch {
            return failedOutput(error, change: change, context)
        }
    }

    /// The end of a run whose output could not be written.
    private static func failedOutput(_ failure: SystemCallError, change: String?, _ context: Context) -> Int32 {
        if POSIX.isBrokenPipe(failure) { return POSIX.endOfBrokenPipe() }
        try? context.stderr.write(
            "keyid: cannot write to standard output: \(failure)"
                + (change.map { "; \($0), and 'keyid get' prints it" } ?? "") + "\n")
        return ExitStatus.failure.rawValue
    }

    /// The Secret Service's bus name in `environment`, for messages (one that is not a bus name
    /// was refused before any call).
    static func serviceName(_ environment: ProcessEnvironment) -> String {
        (try? SessionBus.secretServiceName(environment)) ?? SessionBus.defaultServiceName
    }

    /// Reports a failure as one line: whatever a provider put in its error name or message
    /// (newlines, escape sequences, bidi controls) is escaped here, in the one place
    /// failures are written.
    private static func report(_ error: KeyIDError, _ context: Context) -> Int32 {
        let line = CommandLineText.line(error, serviceName: serviceName(context.environment))
        try? context.stderr.write("keyid: \(DisplayText.escaped(line))\n")
        return error.exitCode
    }
}

/// The new ID `rotate --value -` reads from standard input.
enum NewIDInput {
    /// The most bytes `--value -` reads; an ID in any form is far shorter.
    static let limit = 1024

    /// Reads and checks the new ID from standard input, before the keyring is touched.
    static func read(_ context: Context) throws(KeyIDError) -> DeviceID {
        if context.inputIsTerminal { try? context.stderr.write("New ID: ") }
        guard let bytes = try? context.readInput(limit) else {
            throw .usage("cannot read the new ID from standard input")
        }
        if bytes.count > limit {
            throw .usage("standard input holds more than \(limit) bytes; expected one ID")
        }
        if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }) {
            throw .usage("standard input is empty; expected the new ID")
        }
        guard let id = DeviceID(parsing: bytes) else {
            throw .usage("standard input does not hold a valid ID (expected a UUID, 32 hex digits or a urn:uuid: URN)")
        }
        return id
    }
}

/// keyid's version: the one place it is written down.
package enum KeyIDVersion {
    package static let current = "0.3.0"
}
