import Testing

@testable import KeyIDKit
@testable import KeyIDTestSupport

/// The library words its outcomes and warnings for any program; the command adds its own
/// hints, and prints what it always printed.
@Suite("Messages: the library's and the command's", .tags(.unit))
struct CommandLineTextTests {
    static let key = try! ItemKey(service: "s", account: "a")
    static let item = "service 's', account 'a'"

    // The cases of the tests below are properties rather than literals in @Test's arguments:
    // Swift 6.0's compiler crashes on a string interpolation there.
    static let outcomeLines: [(KeyIDError, String)] = [
        (
            KeyIDError.alreadyExists(key),
            "an ID is already stored for \(item); read it with 'keyid get' or replace it with 'keyid rotate'"
        ),
        (
            .unavailable(.noBus("d")),
            "no D-Bus session bus (d); start keyid inside a login session or set DBUS_SESSION_BUS_ADDRESS; machines without one can use --backend file"
        ),
        (
            .unavailable(.temporaryKeyring("k")),
            "k is temporary: the Secret Service keeps it only in memory, so an ID stored there is lost at logout and the next login silently gets a new one; make a keyring that is saved to disk the default (log in with a password that unlocks the 'login' keyring, or create one in Seahorse), choose one with --collection, or use --backend file"
        ),
        (.invalidStoredValue(key), "the item for \(item) does not hold a valid ID; replace it with 'keyid rotate'"),
        (
            .cloned(key),
            "the ID for \(item) was stored on another machine (a cloned disk or a restored home directory?); replace it with 'keyid rotate' or run with --on-clone rotate"
        ),
        (.notFound(key), "no ID is stored for \(item)"),
    ]

    @Test(
        "the command's line for each outcome whose advice names a subcommand or an option",
        arguments: outcomeLines)
    func errorLines(error: KeyIDError, line: String) {
        #expect(CommandLineText.line(error, asRoot: false) == line)
        #expect(error.message.hasPrefix(error.whatHappened))
        #expect(!error.message.contains("keyid") && !error.message.contains("--"), "\(error.message)")
    }

    static let libraryMessageCases: [(KeyIDError, String)] = [
        (
            KeyIDError.alreadyExists(key),
            "an ID is already stored for \(item); read it, or replace it with a rotation"
        ),
        (
            .unavailable(.noBus("d")),
            "no D-Bus session bus (d); run inside a login session or set DBUS_SESSION_BUS_ADDRESS; machines without one can keep IDs in files"
        ),
        (.invalidStoredValue(key), "the item for \(item) does not hold a valid ID; a rotation replaces it"),
        (
            .cloned(key),
            "the ID for \(item) was stored on another machine (a cloned disk or a restored home directory?); a rotation, or the clone policy rotate, replaces it"
        ),
    ]

    @Test(
        "the library's message for each outcome with advice, in its own terms",
        arguments: libraryMessageCases)
    func libraryMessages(error: KeyIDError, message: String) {
        #expect(error.message == message)
    }

    @Test("as root, no session bus adds --user")
    func rootLine() {
        #expect(
            CommandLineText.line(.unavailable(.noBus("d")), asRoot: true)
                == "no D-Bus session bus (d; as root, use --user NAME to act for a user who has a session); start keyid inside a login session or set DBUS_SESSION_BUS_ADDRESS; machines without one can use --backend file"
        )
    }

    static let warningLineCases: [(DeviceIDs.Warning, String)] = [
        (
            DeviceIDs.Warning.duplicates(count: 2),
            "warning: 2 items match \(item); using the oldest; 'keyid rotate' keeps only one"
        ),
        (
            .storedOnAnotherMachine,
            "warning: the ID for \(item) was stored on another machine (a cloned disk or a restored home directory?); 'keyid rotate' or --on-clone rotate replaces it"
        ),
        (.replacedClone, "replaced the ID for \(item), which was stored on another machine"),
        (
            .temporaryKeyring,
            "warning: the ID for \(item) is kept in a temporary keyring, only in memory: it is lost at logout, and the next login gets a new one; run 'keyid doctor' to see how to fix it"
        ),
    ]

    @Test(
        "the command's line for each warning",
        arguments: warningLineCases)
    func warningLines(warning: DeviceIDs.Warning, line: String) {
        #expect(CommandLineText.line(warning, for: Self.key) == line)
        let message = warning.message(for: Self.key)
        #expect(message.hasPrefix(warning.whatHappened(for: Self.key)))
        #expect(!message.contains("keyid") && !message.contains("--"), "\(message)")
    }
}
