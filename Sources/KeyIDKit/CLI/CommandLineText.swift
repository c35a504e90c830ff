/// What the command prints for the library's outcomes and warnings: the library's account of
/// what happened, with what to do in the command line's own terms (`keyid rotate`,
/// `--backend file`): ``Host/keyidCommand``'s, where the library says it in its own.
package enum CommandLineText {
    /// The line for a failure, without the `keyid: ` prefix; `asRoot`: for a run as root,
    /// which has no session bus of its own but can act for a user who has one; `serviceName`:
    /// the Secret Service's bus name the run used (`SECRET_SERVICE_BUS_NAME`).
    package static func line(
        _ error: KeyIDError, asRoot: Bool = UserAccount.effectiveUID == 0,
        serviceName: String = SessionBus.defaultServiceName
    ) -> String {
        let host = Host.keyidCommand
        switch error {
        case .unavailable(.noProvider): return KeyIDError.noProviderSentence(serviceName)
        case .unavailable(.noBus(let detail)):
            return KeyIDError.noBusSentence(detail + (asRoot ? host.noBusAsRoot : "")) + host.noBus
        default: return error.whatHappened + (host.advice(for: error) ?? "")
        }
    }

    /// The line for an ID refused because it was stored on another machine, naming the
    /// signals that differ when they are known.
    package static func cloned(_ key: ItemKey, differing: [MachineSignal]) -> String {
        DeviceIDs.Warning.storedOnAnotherMachine.whatHappened(for: key, differing: differing)
            + Host.keyidCommand.cloned
    }

    /// The line for `get --create --value -` finding another ID stored for `key`, which it keeps.
    static func keptOtherID(_ key: ItemKey) -> String {
        "warning: the ID stored for \(key) is not the one read from standard input, and is kept; 'keyid rotate --value -' replaces it"
    }

    /// The line for a warning about `key` (naming the signals that differ, for a clone),
    /// without the `keyid: ` prefix.
    package static func line(_ warning: DeviceIDs.Warning, for key: ItemKey, differing: [MachineSignal] = [])
        -> String
    {
        let fact = warning.whatHappened(for: key, differing: differing)
        return warning == .replacedClone ? fact : "warning: " + fact + warning.advice(.keyidCommand)
    }
}

extension Host {
    /// The `keyid` command: advice in its options' terms. Whether the process is keyid's own
    /// is ``Context/deviceIDs(_:host:onPrompt:)``'s to say (only a run the watchdog bounds is).
    package static let keyidCommand = Host(
        ownsProcess: false, unlockOne: "unlock it, or run without --no-prompt to be asked for its password",
        unlockSeveral: "unlock them, or run without --no-prompt to be asked for their passwords",
        lockedNote: "is locked: keyid will ask to unlock it, or exit 4 with --no-prompt",
        alreadyExists: "; read it with 'keyid get' or replace it with 'keyid rotate'",
        noBus:
            "; start keyid inside a login session or set DBUS_SESSION_BUS_ADDRESS; machines without one can use --backend file",
        noBusAsRoot: "; as root, use --user NAME to act for a user who has a session",
        temporaryKeyring: ", choose one with --collection, or use --backend file",
        invalidStoredValue: "; replace it with 'keyid rotate'",
        cloned: "; replace it with 'keyid rotate' or run with --on-clone rotate",
        duplicatesWarning: "; 'keyid rotate' keeps only one",
        storedOnAnotherMachineWarning: "; 'keyid rotate' or --on-clone rotate replaces it",
        temporaryKeyringWarning: "; run 'keyid doctor' to see how to fix it")

    /// `keyid doctor`, which never asks for a password itself: its advice names a subcommand
    /// that does.
    package static let keyidDoctor = {
        var host = keyidCommand
        host.unlockOne = "unlock it, or run 'keyid get' without --no-prompt to be asked for its password"
        host.unlockSeveral = "unlock them, or run 'keyid get' without --no-prompt to be asked for their passwords"
        return host
    }()
}
