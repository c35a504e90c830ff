import Foundation
import Testing

@testable import KeyIDKit
@testable import KeyIDTestSupport

/// The built binary against the private Secret Service provider that `make test` starts, and
/// against keyrings and buses set up per test (with the same provider) for the failure cases.
@Suite("keyid binary end to end", .tags(.endToEnd), .enabled(if: TestEnvironment.canRunBinary))
struct EndToEndTests {
    let uuidLine = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}\n$/

    @Test("create, get, rotate and delete, with their exit codes")
    func lifecycle() throws {
        let service = TestEnvironment.uniqueService()
        let s = ["--service", service]
        #expect(try keyid(["get"] + s).status == 1)
        let created = try keyid(["create"] + s)
        #expect(created.status == 0)
        #expect(created.stdout.wholeMatch(of: uuidLine) != nil)
        #expect(created.stderr.isEmpty)
        let again = try keyid(["create"] + s)
        #expect(again.status == 3)
        #expect(again.stdout.isEmpty)
        #expect(try keyid(["get"] + s).stdout == created.stdout)
        #expect(try keyid(["get", "--create"] + s).stdout == created.stdout)
        let rotated = try keyid(["rotate"] + s)
        #expect(rotated.status == 0)
        #expect(rotated.stdout != created.stdout)
        #expect(try keyid(["get"] + s).stdout == rotated.stdout)
        #expect(try keyid(["delete"] + s).status == 0)
        #expect(try keyid(["delete"] + s).status == 1)
        #expect(try keyid(["delete", "--force"] + s).status == 0)
        #expect(try keyid(["rotate"] + s).status == 1)
        #expect(try itemCount(service: service) == 0)
    }

    @Test("secret-tool reads what keyid stores, and keyid reads what secret-tool stores")
    func secretToolInterop() throws {
        let service = TestEnvironment.uniqueService()
        let created = try keyid(["create", "--service", service, "--account", "acct"])
        let lookup = try secretTool(["lookup", "service", service, "account", "acct"])
        #expect(lookup.stdout + "\n" == created.stdout)

        let other = TestEnvironment.uniqueService()
        let stored = try secretTool(
            ["store", "--label", "from secret-tool", "service", other, "account", "acct"],
            input: "urn:uuid:0F8FAD5B-D9CB-469F-A165-70867728950E\n")
        #expect(stored.status == 0)
        let read = try keyid(["get", "--service", other, "--account", "acct", "--json"])
        let object = try parseJSON(read.stdout)
        #expect(object["id"] as? String == "0f8fad5b-d9cb-469f-a165-70867728950e")
        #expect(object["label"] as? String == "from secret-tool")
        // keyid's rotate keeps the item secret-tool made. (KeePassXC 2.7.4 would wait for an
        // Access Request dialog if this went through CreateItem(replace) from another process.)
        #expect(try keyid(["rotate", "--service", other, "--account", "acct"]).status == 0)
        #expect(try itemCount(service: other, account: "acct") == 1)
    }

    @Test("rotate keeps the item and its created time; --json times are the item's own")
    func rotateInPlace() throws {
        let service = TestEnvironment.uniqueService()
        let created = try parseJSON(try keyid(["create", "--json", "--service", service]).stdout)
        let before = try providerItems(service: service)
        #expect(before.count == 1)
        waitForSecond(after: try #require(before.first).created)
        let rotated = try keyid(["rotate", "--json", "--service", service])
        #expect(rotated.status == 0)
        #expect(rotated.stderr.isEmpty)
        let object = try parseJSON(rotated.stdout)
        let after = try providerItems(service: service)
        #expect(after.map(\.path) == before.map(\.path))
        let item = try #require(after.first)
        let iso = ISO8601DateFormatter()
        #expect(object["created"] as? String == created["created"] as? String)
        #expect(object["created"] as? String == iso.string(from: Date(timeIntervalSince1970: Double(item.created))))
        #expect(object["modified"] as? String == iso.string(from: Date(timeIntervalSince1970: Double(item.modified))))
        #expect(object["label"] as? String == item.label)
        // Item.SetSecret moves the modified time on all three providers.
        #expect(item.modified > item.created)
    }

    @Test("--json has the documented shape and timestamps")
    func json() throws {
        let service = TestEnvironment.uniqueService()
        let before = Date().addingTimeInterval(-2)
        let outcome = try keyid(["get", "--create", "--json", "--service", service])
        #expect(outcome.status == 0)
        let object = try parseJSON(outcome.stdout)
        #expect(
            holdsDocumentedKeys(
                jsonKeyNames(outcome.stdout), ["id", "service", "account", "label", "created", "modified"]))
        #expect(object["service"] as? String == service)
        #expect(object["account"] as? String == "device-id")
        let formatter = ISO8601DateFormatter()
        let created = try #require(formatter.date(from: object["created"] as? String ?? ""))
        #expect(created >= before && created <= Date().addingTimeInterval(2))
        #expect(object["modified"] as? String == object["created"] as? String)
    }

    @Test("rotate --value - takes the ID from standard input, never argv")
    func rotateFromInput() throws {
        let service = TestEnvironment.uniqueService()
        _ = try keyid(["create", "--service", service])
        let outcome = try keyid(
            ["rotate", "--value", "-", "--service", service], input: "0F8FAD5B-D9CB-469F-A165-70867728950E\n")
        #expect(outcome.status == 0)
        #expect(outcome.stdout == "0f8fad5b-d9cb-469f-a165-70867728950e\n")
        let lookup = try secretTool(["lookup", "service", service, "account", "device-id"])
        #expect(lookup.stdout == "0f8fad5b-d9cb-469f-a165-70867728950e")
    }

    @Test("create --value - stores the ID from standard input in one step; exit 3 when one is stored")
    func createFromInput() throws {
        let service = TestEnvironment.uniqueService()
        let given = "0f8fad5b-d9cb-469f-a165-70867728950e"
        let outcome = try keyid(["create", "--value", "-", "--service", service], input: given.uppercased() + "\n")
        #expect(outcome.status == 0)
        #expect(outcome.stdout == given + "\n")
        #expect(try secretTool(["lookup", "service", service, "account", "device-id"]).stdout == given)
        let again = try keyid(["create", "--value", "-", "--service", service], input: "1" + given.dropFirst())
        #expect(again.status == 3)
        #expect(
            try keyid(["get", "--create", "--value", "-", "--service", service], input: "1" + given.dropFirst())
                .stdout == given + "\n")
        #expect(try itemCount(service: service) == 1)
    }

    @Test("a stored value that is not an ID is exit 7; rotate repairs it")
    func garbage() throws {
        let service = TestEnvironment.uniqueService()
        _ = try keyringTool(["add", service, "device-id"], input: "not an id")
        let outcome = try keyid(["get", "--service", service])
        #expect(outcome.status == 7)
        #expect(outcome.stdout.isEmpty)
        #expect(outcome.stderr.contains("service '\(service)'"))
        #expect(!outcome.stderr.contains("not an id"))
        #expect(try keyid(["get", "--create", "--service", service]).status == 7)
        #expect(try keyid(["rotate", "--service", service]).status == 0)
        #expect(try keyid(["get", "--service", service]).status == 0)
    }

    @Test("duplicates made behind keyid's back: the oldest wins, and rotate leaves one")
    func duplicates() throws {
        let service = TestEnvironment.uniqueService()
        let first = try keyid(["create", "--service", service]).stdout
        waitForSecond(after: try #require(try providerItems(service: service).first).created)
        _ = try keyringTool(["add", service, "device-id"], input: "22222222-2222-4222-8222-222222222222")
        #expect(try itemCount(service: service) == 2)
        for _ in 0..<3 {
            let got = try keyid(["get", "--service", service])
            #expect(got.stdout == first)
            #expect(got.stderr.contains("2 items match"))
        }
        _ = try keyid(["rotate", "--service", service])
        #expect(try itemCount(service: service) == 1)
    }

    @Test(
        "bad input: exit 2, one line on stderr, the keyring unchanged",
        arguments: [
            (["create", "--service", ""], nil, []), (["get", "--create", "--bogus"], nil, []),
            (["create", "--account", "a\nb"], nil, []), (["rotate", "--value", "not-an-id"], nil, []),
            (["rotate", "--value", "-"], "garbage", []), (["rotate", "--value", "-"], "", []),
            (["create", "--value", "-", "--service", "new"], "garbage", []),
            (["get", "--create", "--value", "-", "--service", "new"], "", []),
            (["get", "--create", "--timeout", "0"], nil, []), (["get", "--create", "--format", "yaml"], nil, []),
            (["get", "--create"], nil, ["KEYID_SERVICE="]), (["get", "--create"], nil, ["KEYID_TIMEOUT=never"]),
            (["get", "--create"], nil, ["SECRET_BACKEND=kwallet"]), ([], nil, []),
            (["create", "--service", String(repeating: "x", count: 300)], nil, []),
        ] as [([String], String?, [String])])
    func badInput(arguments: [String], input: String?, environment: [String]) throws {
        // A keyring of its own, with items in it, so that a full dump can be compared.
        let outcome = try inSession(
            "unlocked",
            """
            $KEYID create >/dev/null && $KEYID create --service other >/dev/null || exit 98
            /usr/bin/python3 "$KEYRING_TOOL" dump >before
            env "$@" >out 2>err; echo "status=$?"
            /usr/bin/python3 "$KEYRING_TOOL" dump >after
            cmp -s before after && echo "unchanged"; test -s before && echo "dumped"
            test -s out && echo "stdout not empty"; cat err >&2
            """, arguments: environment + [TestEnvironment.binary!] + arguments, input: input ?? "")
        #expect(outcome.stdout == "status=2\nunchanged\ndumped\n")
        #expect(outcome.stderr.hasPrefix("keyid: "))
        #expect(outcome.stderr.filter { $0 == "\n" }.count == 1)
    }

    @Test("--help and --version print to stdout and exit 0; usage errors hint at --help")
    func helpAndVersion() throws {
        let help = try keyid(["--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("Usage: keyid"))
        #expect(help.stderr.isEmpty)
        for sub in ["create", "get", "delete", "rotate"] {
            #expect(try keyid([sub, "--help"]).stdout.hasPrefix("Usage: keyid \(sub)"))
        }
        #expect(try keyid(["--version"]).stdout == "keyid \(KeyIDVersion.current)\n")
        let wrong = try keyid(["get", "--frobnicate"])
        #expect(wrong.status == 2)
        #expect(wrong.stderr.contains("'keyid get --help'"))
    }

    @Test("an argument that is not UTF-8 is a usage error")
    func invalidUTF8Argument() throws {
        let outcome = try runProgram("/bin/sh", ["-c", "\"$KEYID_BIN\" get --service \"$(printf 'a\\377b')\""])
        #expect(outcome.status == 2)
        #expect(outcome.stderr.contains("not valid UTF-8"))
    }

    @Test("a locked keyring is exit 4 within a second, never not found, and nothing is created")
    func locked() throws {
        let outcome = try inSession(
            "locked",
            """
            for args in "get" "get --create" "create" "rotate" "delete --force"; do
              $KEYID $args --no-prompt >out 2>err; echo "$args=$?"; test -s out && echo "stdout not empty"
            done
            echo "locked=$(/usr/bin/python3 "$KEYRING_TOOL" locked)"
            $KEYID get --create --timeout 3 >/dev/null 2>&1; echo "prompting=$?"
            """)
        let prompting: Int32
        switch TestEnvironment.provider {
        case .gnomeKeyring:
            // No prompter in the session: gnome-keyring dismisses the unlock prompt.
            prompting = 4
        case .kwallet:
            // The collection reports Locked until a client calls Unlock, which succeeds without a
            // dialog; "locked" above shows that --no-prompt never called it.
            prompting = 0
        case .keepassxc:
            // The unlock dialog waits for someone who never comes; the watchdog ends the run.
            prompting = 6
        }
        #expect(outcome.status == 0)
        #expect(
            outcome.stdout
                == "get=4\nget --create=4\ncreate=4\nrotate=4\ndelete --force=4\nlocked=true\nprompting=\(prompting)\n")
        #expect(outcome.seconds < 10)
    }

    @Test("an item in a keyring locked afterwards is reported locked, not missing")
    func lockedItem() throws {
        let outcome = try inSession(
            "unlocked",
            """
            $KEYID create >/dev/null
            /usr/bin/python3 "$KEYRING_TOOL" lock
            start=$(date +%s%N)
            $KEYID get --no-prompt; echo "get=$?"
            echo "ms=$(( ($(date +%s%N) - start) / 1000000 ))"
            timeout 3 secret-tool lookup service keyid account device-id; echo "secret-tool=$?"
            """)
        #expect(outcome.stdout.contains("get=4\n"))
        // secret-tool takes the locked item for a missing one (gnome-keyring dismisses the
        // unlock prompt; KeePassXC hides the items of a locked database), except on KWallet,
        // whose Lock closes the wallet: its Unlock then waits for a password dialog.
        #expect(outcome.stdout.contains(TestEnvironment.provider == .kwallet ? "secret-tool=124\n" : "secret-tool=1\n"))
        #expect(outcome.stderr.contains("is locked"))
        let ms = outcome.stdout.split(separator: "\n").first { $0.hasPrefix("ms=") }.flatMap { Int($0.dropFirst(3)) }
        #expect((ms ?? 9999) < 1000)
    }

    @Test(
        "a dismissed confirmation of a delete is exit 4, and the item stays",
        .enabled(if: TestEnvironment.provider == .keepassxc))
    func dismissedDelete() throws {
        // KeePassXC answers Delete with a prompt; with its confirmation of deletions on (its
        // default) that prompt shows a dialog, which this script dismisses over D-Bus as soon
        // as keyid runs the prompt.
        let outcome = try inSession(
            "unlocked",
            """
            $KEYID create >/dev/null || exit 90
            dbus-monitor --session "type='method_call',interface='org.freedesktop.Secret.Prompt',member='Prompt'" \\
              >monitor 2>&1 & monitor=$!
            tries=0; until grep -q NameAcquired monitor 2>/dev/null || [ $tries -gt 250 ]; do tries=$((tries + 1)); sleep 0.02; done
            $KEYID delete --timeout 10 >out 2>err & keyid=$!
            tries=0
            until prompt=$(grep -o 'path=/org/freedesktop/secrets/prompt/[^;]*' monitor | head -n 1 | cut -d= -f2) &&
              [ -n "$prompt" ] || [ $tries -gt 250 ]; do tries=$((tries + 1)); sleep 0.02; done
            kill $monitor
            dbus-send --session --print-reply --dest=org.freedesktop.secrets "$prompt" \\
              org.freedesktop.Secret.Prompt.Dismiss >/dev/null && echo "dismissed"
            wait $keyid; echo "delete=$?"; test -s out && echo "stdout not empty"; cat err >&2
            echo "items=$(/usr/bin/python3 "$KEYRING_TOOL" count keyid device-id)"
            $KEYID get >/dev/null; echo "get=$?"
            """, environment: ["KEYID_KEEPASSXC_CONFIRM_DELETE": "true"])
        #expect(outcome.stdout == "dismissed\ndelete=4\nitems=1\nget=0\n", "\(outcome.stderr)")
        #expect(outcome.stderr.contains("was not deleted: the keyring's prompt was dismissed"))
    }

    @Test(
        "no session bus or no provider: exit 5 within a second, saying which",
        arguments: [
            (["DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent/bus"], "no D-Bus session bus"),
            (["DBUS_SESSION_BUS_ADDRESS": ""], "no D-Bus session bus"),
            (
                ["DBUS_SESSION_BUS_ADDRESS": nil, "XDG_RUNTIME_DIR": "/nonexistent", "DISPLAY": nil],
                "no D-Bus session bus"
            ),
        ] as [([String: String?], String)])
    func noBus(environment: [String: String?], message: String) throws {
        let outcome = try keyid(["get", "--create"], environment: environment)
        #expect(outcome.status == 5)
        #expect(outcome.stderr.contains(message))
        #expect(outcome.seconds < 1)
    }

    @Test("a bus without a Secret Service: exit 5 within a second")
    func noProvider() throws {
        let outcome = try inSession(
            "none",
            "start=$(date +%s%N); $KEYID get --create; echo \"rc=$?\"; echo \"ms=$(( ($(date +%s%N) - start) / 1000000 ))\""
        )
        #expect(outcome.stdout.contains("rc=5\n"))
        #expect(outcome.stderr.contains("nothing provides org.freedesktop.secrets"))
        let ms = outcome.stdout.split(separator: "\n").first { $0.hasPrefix("ms=") }.flatMap { Int($0.dropFirst(3)) }
        #expect((ms ?? 9999) < 1000)
    }

    @Test("a provider without a default keyring: exit 5 within a second, saying so")
    func noDefaultKeyring() throws {
        // gnome-keyring started on a fresh home without --unlock has no login keyring and no
        // default alias.
        let outcome = try inSession(
            "none",
            """
            gnome-keyring-daemon --components=secrets --daemonize >/dev/null 2>&1
            until dbus-send --session --print-reply=literal --dest=org.freedesktop.DBus /org/freedesktop/DBus \
                org.freedesktop.DBus.NameHasOwner string:org.freedesktop.secrets | grep -q true; do sleep 0.02; done
            daemon=$(dbus-send --session --print-reply=literal --dest=org.freedesktop.DBus /org/freedesktop/DBus \
                org.freedesktop.DBus.GetConnectionUnixProcessID string:org.freedesktop.secrets | awk '{print $2}')
            start=$(date +%s%N)
            $KEYID get --create; echo "status=$?"
            echo "ms=$(( ($(date +%s%N) - start) / 1000000 ))"
            $KEYID create >/dev/null 2>&1; echo "create=$?"
            kill "$daemon"
            """)
        #expect(outcome.stdout.contains("status=5\n"), "\(outcome.stdout)\(outcome.stderr)")
        #expect(outcome.stdout.contains("create=5\n"))
        #expect(outcome.stderr.contains("has no default keyring"))
        let ms = outcome.stdout.split(separator: "\n").first { $0.hasPrefix("ms=") }.flatMap { Int($0.dropFirst(3)) }
        #expect((ms ?? 9999) < 1000)
    }

    @Test("a stalled daemon: exit 6 at the timeout, nothing on stdout")
    func stalledDaemon() throws {
        let outcome = try inSession(
            "unlocked",
            """
            kill -STOP "$KEYID_TEST_DAEMON_PID"
            start=$(date +%s%N)
            $KEYID get --create --timeout 1 >out; echo "rc=$?"
            echo "ms=$(( ($(date +%s%N) - start) / 1000000 ))"
            test -s out && echo "stdout not empty"
            kill -CONT "$KEYID_TEST_DAEMON_PID"
            """)
        #expect(outcome.stdout.contains("rc=6\n"))
        #expect(!outcome.stdout.contains("stdout not empty"))
        #expect(outcome.stderr.contains("timed out after 1 s"))
        let ms = outcome.stdout.split(separator: "\n").first { $0.hasPrefix("ms=") }.flatMap { Int($0.dropFirst(3)) }
        #expect((900..<2000).contains(ms ?? 0))
    }

    @Test("an unusable lock directory is refused with a clear message and exit 8")
    func unsafeLockDirectory() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("keyid-run-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(
            atPath: root, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createSymbolicLink(atPath: root + "/keyid", withDestinationPath: "/tmp")
        let service = TestEnvironment.uniqueService()
        let outcome = try keyid(["create", "--service", service], environment: ["XDG_RUNTIME_DIR": root])
        #expect(outcome.status == 8)
        #expect(outcome.stderr.contains("lock directory"))
        #expect(try itemCount(service: service) == 0)
    }
}
