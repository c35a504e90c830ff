/// What the command prints for the library's outcomes and warnings: the library's account of
/// what happened, with what to do in the command line's own terms (`keyid rotate`,
/// `--backend file`), where the library says it in its own.
package enum CommandLineText {
    /// The line for a failure, without the `keyid: ` prefix; `asRoot`: for a run as root,
    /// which has no session bus of its own but can act for a user who has one; `serviceName`:
    /// the Secret Service's bus name the run used (`SECRET_SERVICE_BUS_NAME`).
    package static func line(
        _ error: KeyIDError, asRoot: Bool = UserAccount.effectiveUID == 0,
        serviceName: String = SessionBus.defaultServiceName
    ) -> String {
        switch error {
        case .unavailable(.noProvider): return KeyIDError.noProviderSentence(serviceName)
        case .alreadyExists: return error.whatHappened + "; read it with 'keyid get' or replace it with 'keyid rotate'"
        case .unavailable(.noBus(let detail)):
            let forRoot = asRoot ? "; as root, use --user NAME to act for a user who has a session" : ""
            return KeyIDError.noBusSentence(detail + forRoot)
                + "; start keyid inside a login session or set DBUS_SESSION_BUS_ADDRESS; machines without one can use --backend file"
        case .unavailable(.temporaryKeyring):
            return error.whatHappened + ", choose one with --collection, or use --backend file"
        case .invalidStoredValue: return error.whatHappened + "; replace it with 'keyid rotate'"
        case .cloned(let key): return cloned(key, differing: [])
        default: return error.whatHappened
        }
    }

    /// The line for an ID refused because it was stored on another machine, naming the
    /// signals that differ when they are known.
    package static func cloned(_ key: ItemKey, differing: [MachineSignal]) -> String {
        DeviceIDs.Warning.storedOnAnotherMachine.whatHappened(for: key, differing: differing)
            + "; replace it with 'keyid rotate' or run with --on-clone rotate"
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
        switch warning {
        case .duplicates: return "warning: " + fact + "; 'keyid rotate' keeps only one"
        case .storedOnAnotherMachine: return "warning: " + fact + "; 'keyid rotate' or --on-clone rotate replaces it"
        case .replacedClone: return fact
        case .temporaryKeyring: return "warning: " + fact + "; run 'keyid doctor' to see how to fix it"
        }
    }
}

extension Host {
    /// The `keyid` command: advice in its options' terms. Whether the process is keyid's own
    /// is ``Context/deviceIDs(_:host:onPrompt:)``'s to say (only a run the watchdog bounds is).
    package static let keyidCommand = Host(
        ownsProcess: false, unlockOne: "unlock it, or run without --no-prompt to be asked for its password",
        unlockSeveral: "unlock them, or run without --no-prompt to be asked for their passwords",
        lockedNote: "is locked: keyid will ask to unlock it, or exit 4 with --no-prompt")

    /// `keyid doctor`, which never asks for a password itself: its advice names a subcommand
    /// that does.
    package static let keyidDoctor = Host(
        ownsProcess: false,
        unlockOne: "unlock it, or run 'keyid get' without --no-prompt to be asked for its password",
        unlockSeveral: "unlock them, or run 'keyid get' without --no-prompt to be asked for their passwords",
        lockedNote: keyidCommand.lockedNote)
}
