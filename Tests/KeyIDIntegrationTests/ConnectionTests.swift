import Foundation
import Testing

@testable import KeyIDTestSupport

/// The Secret Service store's D-Bus connection, seen from the bus: libsecret's
/// `SecretService` on a connection of keyid's own, beside the GLib shared connection a host
/// holds, and a bus and provider that restart under a library instance.
@Suite(
    "keyid's own D-Bus connection", .tags(.integration),
    .enabled(if: TestEnvironment.hasKeyring && TestEnvironment.provider == .gnomeKeyring),
    .enabled(if: LibraryKeyringTests.probeIsBuilt))
struct ConnectionTests {
    @Test(
        "the SecretService is on keyid's own connection, not the host's shared one, and asks for no signals, properties or start"
    )
    func ownConnection() throws {
        let outcome = try inSession(
            "unlocked",
            """
            \(busMonitor)
            watch
            mkfifo go; : >out
            "$PROBE" shared-hold own-connection device-id <go >out 2>err &
            probe=$!
            exec 3>go
            tries=0; until [ "$(wc -l <out)" -ge 2 ] || [ $tries -gt 1000 ]; do sleep 0.01; tries=$((tries + 1)); done
            echo >&3; exec 3>&-
            wait $probe; echo "status=$?"
            seen 1; kill $monitor
            cat out; cat err >&2
            echo "--"
            cat monitor
            """, environment: ["PROBE": LibraryKeyringTests.probe])
        let (head, monitor) = Self.split(outcome.stdout)
        #expect(head.first == "status=0", "\(outcome.stdout)\(outcome.stderr)")
        let shared = head.count > 1 ? head[1] : ""
        #expect(shared.hasPrefix(":"), "\(head)")
        let calls = Self.calls(in: monitor)
        // keyid's connection is the one that searched.
        let searchers = Set(calls.filter { $0.member == "SearchItems" }.map(\.sender))
        #expect(searchers.count == 1 && !searchers.contains(shared), "\(searchers), shared \(shared)")
        let keyid = searchers.first ?? "?"
        let mine = calls.filter { $0.sender == keyid }
        #expect(!mine.contains { ["GetAll", "StartServiceByName"].contains($0.member) }, "\(mine.map(\.member))")
        // Its only match rule follows the provider's owner: no Secret Service signals.
        let rules = mine.filter { $0.member == "AddMatch" }.map(\.argument)
        #expect(rules.count == 1, "\(rules)")
        #expect(rules.allSatisfy { $0.contains("member='NameOwnerChanged'") && !$0.contains("Secret") }, "\(rules)")
        #expect(!calls.contains { $0.sender == shared && $0.destination != "org.freedesktop.DBus" }, "\(calls)")
        #expect(outcome.stderr.isEmpty, "\(outcome.stderr)")
    }

    @Test("the command connects in the calling thread, a program in a thread of GTask's pool: the threads each starts")
    func connectingThread() throws {
        let outcome = try inSession(
            "unlocked",
            """
            strace -f -qq -e trace=prctl -o command.trace "$KEYID" get --create >/dev/null || exit 90
            strace -f -qq -e trace=prctl -o program.trace "$PROBE" get own-thread device-id 5000 >/dev/null || exit 91
            for trace in command program; do
              echo "$trace:$(sed -n 's/.*PR_SET_NAME, "\\([^"]*\\)".*/\\1/p' $trace.trace | sort | tr '\\n' ' ')"
            done
            """, environment: TestEnvironment.traced.merging(["PROBE": LibraryKeyringTests.probe]) { _, new in new })
        #expect(outcome.status == 0, "\(outcome.stdout)\(outcome.stderr)")
        let threads = Dictionary(
            outcome.stdout.split(separator: "\n").compactMap { line -> (String, Set<String>)? in
                let parts = line.split(separator: ":", maxSplits: 1).map(String.init)
                guard parts.count == 2 else { return nil }
                return (parts[0], Set(parts[1].split(separator: " ").map(String.init)))
            }, uniquingKeysWith: { first, _ in first })
        // GDBus's worker in both; GTask's pool, which runs an asynchronous connection's set-up,
        // only in the program, whose thread must get its call back at the timeout.
        #expect(threads["command"]?.contains("gdbus") == true, "\(outcome.stdout)")
        #expect(threads["command"]?.contains { $0.hasPrefix("pool") } == false, "\(outcome.stdout)")
        #expect(threads["program"]?.contains("gdbus") == true, "\(outcome.stdout)")
        #expect(threads["program"]?.contains { $0.hasPrefix("pool") } == true, "\(outcome.stdout)")
    }

    @Test(
        "a create and a rotation, which write a value, send OpenSession with their search; a delete sends none",
        arguments: [["create"], ["rotate"], ["delete", "--force"]])
    func sessionOnlyForValues(arguments: [String]) throws {
        let outcome = try inSession(
            "unlocked",
            """
            [ "$1" = create ] || $KEYID get --create --service session-use >/dev/null
            \(busMonitor)
            watch
            $KEYID "$@" --service session-use >/dev/null; echo "status=$?"
            seen 1; kill $monitor
            echo "--"
            cat monitor
            """, arguments: arguments)
        let (head, monitor) = Self.split(outcome.stdout)
        #expect(head == ["status=0"], "\(outcome.stdout)\(outcome.stderr)")
        // keyid's calls and the replies to it, in the order the bus routed them.
        let calls = Self.calls(in: monitor)
        let keyid = calls.first { $0.member == "SearchItems" }?.sender ?? "?"
        var events: [String] = []
        for line in monitor.split(separator: "\n") {
            if line.hasPrefix("method call "), line.contains(" sender=\(keyid) "),
                let member = line.split(separator: "member=").last
            {
                events.append(String(member))
            } else if line.hasPrefix("method return "), line.contains(" destination=\(keyid) ") {
                events.append("reply")
            }
        }
        // The calls keyid sent, in order: a batch goes out before keyid waits for anything, so the
        // call after the searches is the session's when it went with them (a reply may be routed
        // before the batch's last call, so replies tell nothing here).
        let sent = events.filter { $0 != "reply" }
        let search = try #require(sent.firstIndex(of: "SearchItems"), "\(events)")
        let afterSearches = sent[search...].firstIndex { $0 != "SearchItems" } ?? sent.endIndex
        let sessions = sent.indices.filter { sent[$0] == "OpenSession" }
        if arguments[0] == "delete" {
            #expect(sessions.isEmpty, "\(events)")
        } else {
            #expect(sessions == [afterSearches], "\(events)")
        }
    }

    @Test(
        "the bus and gnome-keyring restart at the same address under an instance holding GLib's shared connection: the next call reads the same ID, and nothing reaches stderr"
    )
    func busRestarted() throws {
        let outcome = try inSession(
            "none",
            """
            socket="$XDG_RUNTIME_DIR/restarting-bus"
            export DBUS_SESSION_BUS_ADDRESS="unix:path=$socket"
            bus() { dbus-send --session --print-reply=literal --dest=org.freedesktop.DBus /org/freedesktop/DBus "org.freedesktop.DBus.$@"; }
            start() {
                dbus-daemon --config-file="$CONF" --address="$DBUS_SESSION_BUS_ADDRESS" --nofork 2>/dev/null &
                bus_pid=$!
                tries=0; until [ -S "$socket" ] || [ $tries -gt 500 ]; do sleep 0.01; tries=$((tries + 1)); done
                printf %s keyid-test-password | gnome-keyring-daemon --unlock --components=secrets >/dev/null 2>&1
                tries=0
                until bus NameHasOwner string:org.freedesktop.secrets 2>/dev/null | grep -q true || [ $tries -gt 500 ]; do
                    sleep 0.01; tries=$((tries + 1))
                done
                keyring_pid=$(bus GetConnectionUnixProcessID string:org.freedesktop.secrets | awk '{print $2}')
            }
            stop() {
                kill "$keyring_pid" "$bus_pid"
                tries=0
                while { kill -0 "$keyring_pid" 2>/dev/null || kill -0 "$bus_pid" 2>/dev/null; } && [ $tries -le 500 ]; do
                    sleep 0.01; tries=$((tries + 1))
                done
                rm -f "$socket"
            }
            start
            mkfifo go; : >out
            "$PROBE" shared-hold restarted device-id <go >out 2>err &
            probe=$!
            exec 3>go
            tries=0; until [ "$(wc -l <out)" -ge 2 ] || [ $tries -gt 1000 ]; do sleep 0.01; tries=$((tries + 1)); done
            stop
            start
            echo >&3; exec 3>&-
            wait $probe; echo "status=$?"
            cat out; cat err >&2
            stop
            """,
            environment: [
                "PROBE": LibraryKeyringTests.probe, "CONF": TestEnvironment.root + "/Tests/Harness/session.conf",
            ])
        let lines = outcome.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "status=0", "\(outcome.stdout)\(outcome.stderr)")
        #expect(lines.count == 4, "\(lines)")
        #expect(lines.count > 1 && lines[1].hasPrefix(":"), "\(lines)")
        #expect(UUID(uuidString: lines.count > 2 ? lines[2] : "") != nil, "\(lines)")
        #expect(lines.count == 4 && lines[2] == lines[3], "\(lines)\n\(outcome.stderr)")
        #expect(outcome.stderr.isEmpty, "\(outcome.stderr)")
    }

    @Test(
        "after gnome-keyring restarts under an instance, the new daemon answers a read that needs no caller before it gets anything else"
    )
    func introducedToRestartedProvider() throws {
        let outcome = try inSession(
            "unlocked",
            """
            bus() { dbus-send --session --print-reply=literal --dest=org.freedesktop.DBus /org/freedesktop/DBus "org.freedesktop.DBus.$@"; }
            \(busMonitor)
            watch
            mkfifo go; : >out
            "$PROBE" hold introduced device-id <go >out 2>err &
            probe=$!
            exec 3>go
            tries=0; until [ -s out ] || [ $tries -gt 1000 ]; do sleep 0.01; tries=$((tries + 1)); done
            kill "$KEYID_TEST_DAEMON_PID"
            tries=0; while bus NameHasOwner string:org.freedesktop.secrets | grep -q true && [ $tries -le 500 ]; do sleep 0.01; tries=$((tries + 1)); done
            printf %s keyid-test-password | gnome-keyring-daemon --unlock --components=secrets >/dev/null 2>&1
            tries=0; until bus NameHasOwner string:org.freedesktop.secrets | grep -q true || [ $tries -gt 500 ]; do sleep 0.01; tries=$((tries + 1)); done
            seen 1
            mark=$(wc -l <monitor)
            echo >&3; exec 3>&-
            wait $probe; echo "status=$?"
            seen 2; kill $monitor
            cat out; cat err >&2
            kill "$(bus GetConnectionUnixProcessID string:org.freedesktop.secrets | awk '{print $2}')"
            echo "--"
            tail -n +"$((mark + 1))" monitor
            """, environment: ["PROBE": LibraryKeyringTests.probe])
        let (head, monitor) = Self.split(outcome.stdout)
        #expect(head.first == "status=0", "\(outcome.stdout)\(outcome.stderr)")
        #expect(head.count == 3 && head[1] == head[2], "\(head)")
        let calls = Self.calls(in: monitor)
        let searcher = calls.first { $0.member == "SearchItems" }?.sender ?? "?"
        let toProvider = calls.filter { $0.sender == searcher && $0.destination != "org.freedesktop.DBus" }
        #expect(
            ["Get", "GetAll"].contains(toProvider.first?.member ?? "") && toProvider.count > 1,
            "\(toProvider.map(\.member))")
        // Nothing else goes to the new daemon before it answered that read.
        let lines = monitor.split(separator: "\n").map(String.init)
        let first = lines.firstIndex { $0.hasPrefix("method call ") && $0.contains("sender=\(searcher) ") }
        let answered = first.flatMap { start in
            lines[(start + 1)...].firstIndex {
                ($0.hasPrefix("method return ") || $0.hasPrefix("error ")) && $0.contains("-> destination=\(searcher) ")
                    && !$0.contains("sender=org.freedesktop.DBus ")
            }
        }
        let second = first.flatMap { start in
            lines[(start + 1)...].firstIndex {
                $0.hasPrefix("method call ") && $0.contains("sender=\(searcher) ")
                    && !$0.contains("destination=org.freedesktop.DBus ")
            }
        }
        #expect(answered != nil && second != nil && answered! < second!, "\(monitor)")
    }

    /// One method call dbus-monitor showed: who sent it, to whom, the member, and its first
    /// string argument.
    struct Call {
        var sender: String
        var destination: String
        var member: String
        var argument: String
    }

    /// The lines before `--`, and the monitor's text after it.
    static func split(_ text: String) -> ([String], String) {
        guard let range = text.range(of: "\n--\n") else { return (text.split(separator: "\n").map(String.init), "") }
        return (text[..<range.lowerBound].split(separator: "\n").map(String.init), String(text[range.upperBound...]))
    }

    /// The method calls in dbus-monitor's output.
    static func calls(in monitor: String) -> [Call] {
        var calls: [Call] = []
        for line in monitor.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("method call ") {
                func field(_ name: String) -> String {
                    guard let start = line.range(of: name + "=") else { return "" }
                    return String(line[start.upperBound...].prefix { $0 != " " && $0 != ";" })
                }
                calls.append(
                    Call(
                        sender: field("sender"), destination: field("destination"), member: field("member"),
                        argument: ""))
            } else if line.hasPrefix("   string \""), let last = calls.indices.last, calls[last].argument.isEmpty {
                calls[last].argument = String(line.dropFirst("   string \"".count).dropLast())
            }
        }
        return calls
    }
}
