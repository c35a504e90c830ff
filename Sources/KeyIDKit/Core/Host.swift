/// Whom the library works for: a program that links it (``program``), or the `keyid` command,
/// which gives its own (in the CLI). It holds the words of what to do about a locked keyring,
/// and whether the process is keyid's own.
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

    /// A program that links KeyIDKit, in the library's terms.
    package static let program = Host(
        ownsProcess: false, unlockOne: "unlock it, or allow a prompt to be asked for its password",
        unlockSeveral: "unlock them, or allow a prompt to be asked for their passwords",
        lockedNote: "is locked: a call that may prompt asks to unlock it, one that may not fails as locked")

    /// ``unlockOne`` or ``unlockSeveral``.
    package func unlockAdvice(several: Bool) -> String { several ? unlockSeveral : unlockOne }

    /// How long a write waits for keyid's lock: at most `timeout`, or (`nil`) as long as it
    /// takes.
    package func lockWait(_ timeout: Duration) -> Duration? { ownsProcess ? nil : timeout }
}
