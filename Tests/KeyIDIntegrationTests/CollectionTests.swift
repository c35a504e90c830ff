import Foundation
import Testing

@testable import KeyIDKit
@testable import KeyIDTestSupport

/// `--collection` on each provider: by alias, by the last part of the collection's path, by
/// label; unknown names and locked keyrings.
@Suite("--collection", .tags(.endToEnd), .enabled(if: TestEnvironment.canRunBinary))
struct CollectionTests {
    /// The default collection's object path, as doctor reports it.
    func defaultCollection() throws -> String {
        let doctor = try keyid(["doctor"])
        let line = try #require(doctor.stdout.split(separator: "\n").first { $0.contains("default keyring") })
        return try #require(line.split(separator: " ").first { $0.hasPrefix("/org/freedesktop/secrets/") })
            .trimmingCharacters(in: CharacterSet(charactersIn: ","))
    }

    @Test("the default keyring by alias and by name holds what keyid stores without --collection")
    func byAliasAndName() throws {
        let service = TestEnvironment.uniqueService()
        let created = try keyid(["get", "--create", "--collection", "default", "--service", service])
        #expect(created.status == 0, "\(created.stderr)")
        #expect(try keyid(["get", "--service", service]).stdout == created.stdout)
        let name = try #require(try defaultCollection().split(separator: "/").last.map(String.init))
        #expect(try keyid(["get", "--collection", name, "--service", service]).stdout == created.stdout)
        let variable = try keyid(["get", "--service", service], environment: ["KEYID_COLLECTION": name])
        #expect(variable.stdout == created.stdout, "\(variable.stderr)")
        #expect(try keyid(["rotate", "--collection", name, "--service", service]).status == 0)
        #expect(try itemCount(service: service) == 1)
    }

    @Test("an unknown keyring is exit 5 naming the keyrings there are; nothing is stored")
    func unknown() throws {
        let service = TestEnvironment.uniqueService()
        let outcome = try keyid(["get", "--create", "--collection", "no-such-keyring", "--service", service])
        #expect(outcome.status == 5)
        #expect(outcome.stderr.split(separator: "\n").count == 1)
        let name = try #require(try defaultCollection().split(separator: "/").last.map(String.init))
        #expect(outcome.stderr.contains("no keyring with the alias or label 'no-such-keyring'; it has "))
        #expect(outcome.stderr.contains(name))
        #expect(try itemCount(service: service) == 0)
    }

    /// A second KeePassXC database, opened beside the default one (`KEYID_KEEPASSXC_SECOND`):
    /// its file's name and its collection's path.
    struct Database {
        var name: String
        var path: String
    }

    static let second = Database(name: "second", path: "/org/freedesktop/secrets/collection/second")

    /// Stores an ID in `database`, then locks it (the script's `$id`, and `$2` its name, `$3`
    /// its path), before `script`.
    func inLockedSecond(_ service: String, _ script: String, database: Database = second) throws -> ProcessOutcome {
        try inSession(
            "unlocked",
            """
            database=$2
            id=$($KEYID get --create --collection "${3##*/}" --service "$1") || exit 91
            /usr/bin/python3 "$KEYRING_TOOL" lock "$3" || exit 92
            test "$(/usr/bin/python3 "$KEYRING_TOOL" locked "$3")" = true || exit 93
            open_second() {
              dbus-send --session --print-reply --dest=org.keepassxc.KeePassXC.MainWindow /keepassxc \\
                org.keepassxc.KeePassXC.MainWindow.openDatabase \\
                string:"$XDG_DATA_HOME/keyid-keepassxc/$database.kdbx" string:keyid-test-password >/dev/null
            }
            \(script)
            """, arguments: [service, database.name, database.path],
            environment: ["KEYID_KEEPASSXC_SECOND": database.name])
    }

    @Test(
        "a locked database that hides its items may hold the ID: exit 4 naming it, nothing stored or deleted, an unlock asked for",
        .enabled(if: TestEnvironment.provider == .keepassxc))
    func lockedDatabaseHidingItems() throws {
        let service = TestEnvironment.uniqueService()
        let outcome = try inLockedSecond(
            service,
            """
            for args in "get" "get --create" "create" "rotate" "delete --force"; do
              $KEYID $args --no-prompt --service "$1" >out; echo "$args=$?"; test -s out && echo "stdout not empty"
            done
            echo "visible=$(/usr/bin/python3 "$KEYRING_TOOL" count "$1" device-id)"
            start=$(date +%s%N)
            $KEYID get --timeout 2 --service "$1" >out 2>prompting.err; echo "prompting=$?"
            echo "ms=$(( ($(date +%s%N) - start) / 1000000 ))"
            test -s out && echo "stdout not empty"
            grep -q 'waiting for an unlock prompt nobody answered' prompting.err && echo "prompt asked"
            open_second
            echo "stored=$(/usr/bin/python3 "$KEYRING_TOOL" count "$1" device-id)"
            test "$($KEYID get --no-prompt --service "$1")" = "$id" && echo "same ID"
            """)
        #expect(
            outcome.stdout.hasPrefix(
                "get=4\nget --create=4\ncreate=4\nrotate=4\ndelete --force=4\nvisible=0\nprompting=6\n"),
            "\(outcome.stdout) \(outcome.stderr)"
        )
        #expect(!outcome.stdout.contains("stdout not empty"))
        #expect(outcome.stdout.contains("prompt asked\n"))
        #expect(outcome.stdout.contains("stored=1\nsame ID\n"))
        let ms = outcome.stdout.split(separator: "\n").first { $0.hasPrefix("ms=") }.flatMap { Int($0.dropFirst(3)) }
        #expect((1900..<4000).contains(ms ?? 0))
        let lines = outcome.stderr.split(separator: "\n")
        #expect(lines.count == 5)
        for line in lines {
            #expect(
                line
                    == "keyid: the keyring 'second' (\(Self.second.path)), which may hold the ID for service '\(service)', account 'device-id', is locked; unlock it, or run without --no-prompt to be asked for its password"
            )
        }
    }

    @Test(
        "a database unlocked in KeePassXC's own window while keyid waits: its prompt ends dismissed, and the ID is read",
        .enabled(if: TestEnvironment.provider == .keepassxc))
    func unlockedElsewhere() throws {
        let outcome = try inLockedSecond(
            TestEnvironment.uniqueService(),
            """
            $KEYID get --timeout 10 --service "$1" >out 2>err & keyid=$!
            prompts() {
              dbus-send --session --print-reply=literal --dest=org.freedesktop.secrets /org/freedesktop/secrets/prompt \\
                org.freedesktop.DBus.Introspectable.Introspect 2>/dev/null | grep -o 'node name="[^"]*"' | cut -d'"' -f2
            }
            until prompt=$(prompts | head -n 1) && [ -n "$prompt" ]; do sleep 0.02; done
            open_second
            dbus-send --session --print-reply --dest=org.freedesktop.secrets "/org/freedesktop/secrets/prompt/$prompt" \\
              org.freedesktop.Secret.Prompt.Dismiss >/dev/null || exit 94
            wait $keyid; echo "get=$?"
            test "$(cat out)" = "$id" && echo "same ID"
            """)
        #expect(outcome.stdout == "get=0\nsame ID\n", "\(outcome.stdout) \(outcome.stderr)")
        #expect(outcome.stderr.isEmpty)
    }

    @Test(
        "a locked database's name is escaped where keyid names it",
        .enabled(if: TestEnvironment.provider == .keepassxc))
    func lockedDatabaseNameEscaped() throws {
        // A locked KeePassXC database's label is its file's name, which may hold anything.
        let outcome = try inLockedSecond(
            TestEnvironment.uniqueService(), "$KEYID get --no-prompt --service \"$1\"; echo \"get=$?\"",
            database: Database(
                name: "sec\u{1B}[2J\u{202E}ond", path: "/org/freedesktop/secrets/collection/sec_1B_5B2J_E2_80_AEond"))
        #expect(outcome.stdout == "get=4\n", "\(outcome.stdout) \(outcome.stderr)")
        #expect(
            outcome.stderr.hasPrefix(
                "keyid: the keyring 'sec\\u{1b}[2J\\u{202e}ond' (/org/freedesktop/secrets/collection/sec_1B_5B2J_E2_80_AEond), which may hold"
            ), "\(outcome.stderr)")
        #expect(outcome.stderr.split(separator: "\n").count == 1)
        #expect(!outcome.stderr.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{202E}" })
    }

    @Test(
        "gnome-keyring's locked keyrings that do not hold the ID: not found, and nothing is asked",
        .enabled(if: TestEnvironment.provider == .gnomeKeyring))
    func lockedKeyringsListingItems() throws {
        // Keyrings load when gnome-keyring starts: copies of the login keyring made in a first
        // session (one empty, one holding another item) are locked in the second.
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("keyid-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: state) }
        let service = TestEnvironment.uniqueService()
        func session(_ script: String) throws -> ProcessOutcome {
            try runProgram(
                TestEnvironment.root + "/Tests/Harness/keyring-session.sh",
                ["--provider", "gnome-keyring", "--state", state, "--", "/bin/sh", "-c", script, "sh", service],
                environment: ["KEYID": TestEnvironment.binary])
        }
        let first = try session(
            """
            cd "$XDG_DATA_HOME/keyrings" || exit 91
            cp login.keyring empty.keyring || exit 92
            $KEYID create --service other >/dev/null || exit 93
            cp login.keyring second.keyring || exit 94
            $KEYID delete --force --service other || exit 95
            """)
        #expect(first.status == 0, "\(first.stderr)")
        let outcome = try session(
            """
            cd "$XDG_RUNTIME_DIR" || exit 99
            \(busMonitor)
            watch "type=method_call,interface=org.freedesktop.Secret.Service,member=Unlock" \\
              "type=method_call,interface=org.freedesktop.DBus.Peer,member=Ping"
            # Run in a subshell ($(unlocks)): the pings so far are counted, not remembered.
            unlocks() { seen $(($(grep -c member=Ping monitor) + 1)); grep -c 'member=Unlock' monitor; }
            $KEYID get --no-prompt --service "$1"; echo "get=$?"
            $KEYID get --service "$1"; echo "prompting=$?"
            $KEYID get --create --service "$1" >/dev/null; echo "create=$?"
            echo "unlocks=$(unlocks)"
            $KEYID get --service other 2>/dev/null; echo "other=$?"
            echo "unlocks=$(unlocks)"
            kill $monitor
            """)
        #expect(outcome.stdout == "get=1\nprompting=1\ncreate=0\nunlocks=0\nother=4\nunlocks=1\n", "\(outcome.stderr)")
        let notFound = "keyid: no ID is stored for service '\(service)', account 'device-id'\n"
        #expect(outcome.stderr.hasPrefix(notFound + notFound))
    }

    @Test("a locked keyring named by --collection is exit 4 under --no-prompt")
    func locked() throws {
        let outcome = try inSession(
            "locked", "\"$KEYID\" get --create --no-prompt --collection default; echo \"status=$?\"")
        #expect(outcome.stdout.contains("status=4\n"), "\(outcome.stdout) \(outcome.stderr)")
    }
}
