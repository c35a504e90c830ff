/// What the command prints for the library's outcomes and warnings: the library's account of
/// what happened, with what to do in the command line's own terms (`keyid rotate`,
/// `--backend file`), where the library says it in its own.
package enum CommandLineText {
    /// The line for a failure, without the `keyid: ` prefix.
    package static func line(_ error: KeyIDError) -> String {
        switch error {
        case .alreadyExists: return error.fact + "; read it with 'keyid get' or replace it with 'keyid rotate'"
        case .unavailable(.noBus):
            return error.fact
                + "; start keyid inside a login session or set DBUS_SESSION_BUS_ADDRESS; machines without one can use --backend file"
        case .unavailable(.temporaryKeyring):
            return error.fact + ", choose one with --collection, or use --backend file"
        case .invalidStoredValue: return error.fact + "; replace it with 'keyid rotate'"
        case .cloned: return error.fact + "; replace it with 'keyid rotate' or run with --on-clone rotate"
        default: return error.fact
        }
    }

    /// The line for a warning about `key`, without the `keyid: ` prefix.
    package static func line(_ warning: DeviceIDs.Warning, for key: ItemKey) -> String {
        let fact = warning.fact(for: key)
        switch warning {
        case .duplicates: return "warning: " + fact + "; 'keyid rotate' keeps only one"
        case .storedOnAnotherMachine: return "warning: " + fact + "; 'keyid rotate' or --on-clone rotate replaces it"
        case .replacedClone: return fact
        case .temporaryKeyring: return "warning: " + fact + "; run 'keyid doctor' to see how to fix it"
        }
    }
}
