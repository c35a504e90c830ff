/// Every outcome other than success, one case per exit status users can act on.
public enum KeyIDError: Error, Equatable, Sendable {
    /// Bad command line, option value, environment variable or `--value` input (exit 2).
    case usage(String)
    /// No ID is stored for the item (exit 1).
    case notFound(ItemKey)
    /// `create` found an ID already stored (exit 3).
    case alreadyExists(ItemKey)
    /// The keyring holding the item, or the default keyring, is locked, or the keyring's
    /// prompt for a change was dismissed (exit 4).
    case locked(String)
    /// No session bus, no provider, or no default keyring (exit 5).
    case unavailable(Unavailable)
    /// The watchdog fired, or a D-Bus call timed out (exit 6).
    case timedOut(String)
    /// The stored value is not an ID (exit 7).
    case invalidStoredValue(ItemKey)
    /// Any other keyring failure (exit 8).
    case keyring(SecretServiceFailure)
    /// The lock file could not be used safely (exit 8).
    case lockFile(String)
    /// The machine ID could not be read (exit 8).
    case machineID(String)
    /// `--on-clone fail`: the stored ID was bound to another machine (exit 9).
    case cloned(ItemKey)

    /// Why the Secret Service could not be used.
    public enum Unavailable: Equatable, Sendable {
        /// No session bus could be reached; the payload is D-Bus's own words.
        case noBus(String)
        /// The bus is up but nothing owns `org.freedesktop.secrets`.
        case noProvider
        /// The provider has no default keyring (no `default` alias).
        case noDefaultKeyring
        /// libsecret itself could not be loaded; the payload says why.
        case noLibrary(String)
    }

    /// The process exit status for this outcome (see the README's table).
    public var exitCode: Int32 {
        switch self {
        case .notFound: return 1
        case .usage: return 2
        case .alreadyExists: return 3
        case .locked: return 4
        case .unavailable: return 5
        case .timedOut: return 6
        case .invalidStoredValue: return 7
        case .keyring, .lockFile, .machineID: return 8
        case .cloned: return 9
        }
    }

    /// One line for standard error, without the `keyid: ` prefix.
    public var message: String {
        switch self {
        case .usage(let text):
            return text
        case .notFound(let key):
            return "no ID is stored for \(key)"
        case .alreadyExists(let key):
            return "an ID is already stored for \(key); read it with 'keyid get' or replace it with 'keyid rotate'"
        case .locked(let text):
            return text
        case .unavailable(.noBus(let detail)):
            return
                "no D-Bus session bus (\(detail)); start keyid inside a login session or set DBUS_SESSION_BUS_ADDRESS; machines without one can use --backend file"
        case .unavailable(.noProvider):
            return
                "no Secret Service on the session bus: nothing provides org.freedesktop.secrets; start gnome-keyring-daemon, KeePassXC or KWallet"
        case .unavailable(.noDefaultKeyring):
            return
                "the Secret Service has no default keyring; create one (for example with Seahorse) or start gnome-keyring-daemon --unlock"
        case .unavailable(.noLibrary(let detail)):
            return "cannot load libsecret (\(detail)); install the libsecret-1-0 package"
        case .timedOut(let text):
            return text
        case .invalidStoredValue(let key):
            return "the item for \(key) does not hold a valid ID; replace it with 'keyid rotate'"
        case .keyring(let failure):
            return failure.description
        case .lockFile(let text), .machineID(let text):
            return text
        case .cloned(let key):
            return
                "the ID for \(key) was stored on another machine (a cloned disk or a restored home directory?); replace it with 'keyid rotate' or run with --on-clone rotate"
        }
    }
}
