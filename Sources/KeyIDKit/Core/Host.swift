/// Whom the library works for: a program that links it (``program``), or the `keyid` command,
/// which gives its own (in the CLI). It holds whether the process is keyid's own, and every
/// sentence of advice that depends on who asks: what follows what happened, in the host's terms.
/// The library's are here; the command's, in its options' terms, are in `CommandLineText.swift`.
package struct Host: Sendable {
    /// Whether the process is keyid's own: then its GLib messages may be dropped, and the run's
    /// deadline bounds the whole run, so keyid's lock is waited for, and the bus connected to,
    /// without a bound of their own.
    /// In a program's process, keyid leaves its environment and GLib's shared connection as
    /// they are (and SIGPIPE as GIO's first socket leaves it: ignored), and bounds every wait by
    /// ``DeviceIDs/Options/timeout``.
    package var ownsProcess: Bool
    /// What to do about one locked keyring when no prompt was allowed, after "is locked; ".
    package var unlockOne: String
    /// The same about several, after "are locked; ".
    package var unlockSeveral: String
    /// What `doctor` says of a locked keyring, after its path.
    package var lockedNote: String
    /// After ``KeyIDError/alreadyExists(_:)``.
    package var alreadyExists: String
    /// After ``KeyIDError/Unavailable/noBus(_:)``; ``noBusAsRoot`` goes inside its parentheses
    /// for a run as root.
    package var noBus: String
    package var noBusAsRoot: String
    /// After ``KeyIDError/Unavailable/temporaryKeyring(_:)``.
    package var temporaryKeyring: String
    /// After ``KeyIDError/invalidStoredValue(_:)``.
    package var invalidStoredValue: String
    /// After ``KeyIDError/cloned(_:)``.
    package var cloned: String
    /// After the warnings ``DeviceIDs/Warning/duplicates(count:)``,
    /// ``DeviceIDs/Warning/storedOnAnotherMachine`` and ``DeviceIDs/Warning/temporaryKeyring``.
    package var duplicatesWarning: String
    package var storedOnAnotherMachineWarning: String
    package var temporaryKeyringWarning: String

    /// A program that links KeyIDKit, in the library's terms.
    package static let program = Host(
        ownsProcess: false, unlockOne: "unlock it, or allow a prompt to be asked for its password",
        unlockSeveral: "unlock them, or allow a prompt to be asked for their passwords",
        lockedNote: "is locked: a call that may prompt asks to unlock it, one that may not fails as locked",
        alreadyExists: "; read it, or replace it with a rotation",
        noBus:
            "; run inside a login session or set DBUS_SESSION_BUS_ADDRESS; machines without one can keep IDs in files",
        noBusAsRoot: "", temporaryKeyring: ", choose another keyring as the collection, or keep IDs in files",
        invalidStoredValue: "; a rotation replaces it", cloned: "; a rotation, or the clone policy rotate, replaces it",
        duplicatesWarning: "; a rotation keeps only one",
        storedOnAnotherMachineWarning: "; a rotation, or the clone policy rotate, replaces it",
        temporaryKeyringWarning: "; a diagnosis says how to fix it")

    /// ``unlockOne`` or ``unlockSeveral``.
    package func unlockAdvice(several: Bool) -> String { several ? unlockSeveral : unlockOne }

    /// What to do about `error`, for the outcomes whose advice depends on who asks; `nil` for
    /// the others, whose ``KeyIDError/whatHappened`` is the whole sentence.
    package func advice(for error: KeyIDError) -> String? {
        switch error {
        case .alreadyExists: return alreadyExists
        case .unavailable(.noBus): return noBus
        case .unavailable(.temporaryKeyring): return temporaryKeyring
        case .invalidStoredValue: return invalidStoredValue
        case .cloned: return cloned
        default: return nil
        }
    }

    /// How long a write waits for keyid's lock: at most `timeout`, or (`nil`) as long as it
    /// takes.
    package func lockWait(_ timeout: Duration) -> Duration? { ownsProcess ? nil : timeout }
}
