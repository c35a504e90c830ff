/// Every outcome other than success: one case per exit status users can act on.
public enum KeyIDError: Error, Equatable, Sendable {
    /// No ID is stored for the item (exit 1).
    case notFound(ItemKey)
    /// Bad command line, option value, environment variable or `--value` input (exit 2).
    case usage(String)
    /// `create` found an ID already stored (exit 3).
    case alreadyExists(ItemKey)
    /// The keyring holding the item, or the default keyring, is locked, or the keyring's
    /// prompt for a change was dismissed (exit 4).
    case locked(String)
    /// No session bus, no provider, or no default keyring (exit 5).
    case unavailable(Unavailable)
    /// The run's deadline passed, or a D-Bus call timed out (exit 6).
    case timedOut(String)
    /// The stored value is not an ID (exit 7).
    case invalidStoredValue(ItemKey)
    /// Anything else went wrong: the keyring, the lock file, the file backend or the
    /// machine ID (exit 8).
    case failed(Failure)
    /// `--on-clone fail`: the stored ID was bound to another machine (exit 9).
    case cloned(ItemKey)

    /// Why the Secret Service could not be used.
    public enum Unavailable: Equatable, Sendable {
        /// No session bus could be reached; the payload is D-Bus's own words.
        case noBus(String)
        /// The bus is up but nothing owns the Secret Service's bus name. ``KeyIDError/message``
        /// names `org.freedesktop.secrets`, whatever `SECRET_SERVICE_BUS_NAME` says.
        case noProvider
        /// The provider has no default keyring (no `default` alias).
        case noDefaultKeyring
        /// No collection has this alias or label; the payload lists those there are.
        case noSuchCollection(String, available: [String])
        /// The ID would be written to a keyring the provider keeps only in memory: it would
        /// be lost at logout. The payload names the keyring, e.g. "the default keyring
        /// (/org/freedesktop/secrets/collection/session)".
        case temporaryKeyring(String)
    }

    /// What failed, for ``failed(_:)``; each payload is a sentence for standard error.
    public enum Failure: Equatable, Sendable {
        /// A Secret Service call failed in a way no other outcome describes.
        case keyring(SecretServiceFailure)
        /// The lock file or its directory could not be used safely.
        case lockFile(String)
        /// The file backend's directory or one of its files could not be used.
        case fileBackend(String)
        /// The machine ID could not be read.
        case machineID(String)
        /// keyid could not become the user it was asked to act for.
        case user(String)
    }

    /// ``failed(_:)`` for a Secret Service call.
    package static func keyring(_ failure: SecretServiceFailure) -> KeyIDError { .failed(.keyring(failure)) }
    /// ``failed(_:)`` for the lock file.
    package static func lockFile(_ message: String) -> KeyIDError { .failed(.lockFile(message)) }
    /// ``failed(_:)`` for the file backend.
    package static func fileBackend(_ message: String) -> KeyIDError { .failed(.fileBackend(message)) }
    /// ``failed(_:)`` for the machine ID.
    package static func machineID(_ message: String) -> KeyIDError { .failed(.machineID(message)) }

    /// The exit status this outcome ends a run with.
    public var status: ExitStatus {
        switch self {
        case .notFound: return .notFound
        case .usage: return .usage
        case .alreadyExists: return .alreadyExists
        case .locked: return .locked
        case .unavailable: return .unavailable
        case .timedOut: return .timedOut
        case .invalidStoredValue: return .invalidStoredValue
        case .failed: return .failure
        case .cloned: return .cloned
        }
    }

    /// The process exit status for this outcome: ``status``'s number.
    public var exitCode: Int32 { status.rawValue }

    /// One sentence for a person: what went wrong and, in the library's terms, what to do.
    /// (The `keyid` command says what to do in its own terms.)
    public var message: String {
        whatHappened + (Host.program.advice(for: self) ?? "")
    }

    /// What went wrong, without what to do about it when the advice depends on who asks
    /// (``Host/advice(for:)``); for the other outcomes, the whole sentence.
    package var whatHappened: String {
        switch self {
        case .usage(let text), .locked(let text), .timedOut(let text):
            return text
        case .notFound(let key):
            return "no ID is stored for \(key)"
        case .alreadyExists(let key):
            return "an ID is already stored for \(key)"
        case .unavailable(.noBus(let detail)):
            return Self.noBusSentence(detail)
        case .unavailable(.noProvider):
            return Self.noProviderSentence("org.freedesktop.secrets")
        case .unavailable(.noDefaultKeyring):
            return
                "the Secret Service has no default keyring; create one (for example with Seahorse) or start gnome-keyring-daemon --unlock"
        case .unavailable(.noSuchCollection(let name, let available)):
            return
                "the Secret Service has no keyring with the alias or label '\(DisplayText.escaped(name))'; it has "
                + (available.isEmpty ? "none" : available.joined(separator: ", "))
        case .unavailable(.temporaryKeyring(let keyring)):
            return
                "\(keyring) is temporary: the Secret Service keeps it only in memory, so an ID stored there is lost at logout and the next login silently gets a new one; make a keyring that is saved to disk the default (log in with a password that unlocks the 'login' keyring, or create one in Seahorse)"
        case .invalidStoredValue(let key):
            return "the item for \(key) does not hold a valid ID"
        case .failed(.keyring(let failure)):
            return failure.description
        case .failed(.lockFile(let text)), .failed(.fileBackend(let text)), .failed(.machineID(let text)),
            .failed(.user(let text)):
            return text
        case .cloned(let key):
            return "the ID for \(key) was stored on another machine (a cloned disk or a restored home directory?)"
        }
    }

    /// The sentence for ``Unavailable/noProvider`` where the Secret Service's bus name is `name`
    /// (`SECRET_SERVICE_BUS_NAME`, when set).
    package static func noProviderSentence(_ name: String) -> String {
        "no Secret Service on the session bus: nothing provides \(name); start gnome-keyring-daemon, KeePassXC or KWallet"
    }

    /// The sentence for ``Unavailable/noBus(_:)`` with `detail`.
    package static func noBusSentence(_ detail: String) -> String { "no D-Bus session bus (\(detail))" }
}

/// The exit statuses of keyid, the one list the help, the manual page and the README show.
public enum ExitStatus: Int32, CaseIterable, Sendable {
    case success = 0
    case notFound = 1
    case usage = 2
    case alreadyExists = 3
    case locked = 4
    case unavailable = 5
    case timedOut = 6
    case invalidStoredValue = 7
    case failure = 8
    case cloned = 9
}

/// A failure below the library (a system call, a Secret Service call) that stands for one
/// outcome users see.
protocol ReportableFailure: Error {
    /// What the library reports for this failure.
    var outcome: KeyIDError { get }
}

extension ReportableFailure {
    /// `body`'s result; a failure is thrown as its ``outcome``.
    static func reported<T>(_ body: () throws(Self) -> T) throws(KeyIDError) -> T {
        do throws(Self) {
            return try body()
        } catch {
            throw error.outcome
        }
    }
}

extension Duration {
    /// The duration in seconds as messages write it, to the microsecond and never in
    /// exponent form, so that it reads as `--timeout` takes it: `30`, `2.5`, `0.00001`.
    package var secondsText: String {
        let (whole, fraction) = components
        let micros = fraction / 1_000_000_000_000
        guard micros > 0 else { return "\(whole)" }
        var decimals = String(micros + 1_000_000).dropFirst()
        while decimals.hasSuffix("0") { decimals.removeLast() }
        return "\(whole).\(decimals)"
    }
}
