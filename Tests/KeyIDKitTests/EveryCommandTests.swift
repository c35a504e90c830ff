import Foundation
import Testing

@testable import KeyIDKit
@testable import KeyIDTestSupport

@Suite("What every subcommand shares, in process: usage errors, help and variables", .tags(.command))
struct EveryCommandTests {
    @Test(
        "usage errors: one line on stderr, exit 2, nothing stored",
        arguments: [
            ["create", "--service", ""], ["get", "--bogus"], ["rotate", "--value", "abc"],
            ["create", "--account", "a\u{1}b"],
            ["delete", "--format", "hex"], ["create", "--service", String(repeating: "x", count: 1 << 20)],
        ])
    func usageErrors(arguments: [String]) {
        let keyid = InProcess()
        let outcome = keyid.run(arguments)
        #expect(outcome.status == 2)
        #expect(outcome.stdout.isEmpty)
        #expect(outcome.stderr.hasPrefix("keyid: "))
        #expect(outcome.stderr.hasSuffix("--help'\n"))
        #expect(outcome.stderr.filter { $0 == "\n" }.count == 1)
        #expect(outcome.stderr.count < 400)
        #expect(keyid.store.entries.isEmpty)
    }

    @Test("--help for the tool and every subcommand goes to stdout with exit 0")
    func help() {
        let keyid = InProcess()
        let tool = keyid.run("--help")
        #expect(tool.status == 0)
        #expect(tool.stderr.isEmpty)
        for spec in CommandTable.subcommands {
            #expect(tool.stdout.contains(spec.name))
            let own = keyid.run(spec.name, "--help")
            #expect(own.status == 0)
            #expect(own.stdout.hasPrefix("Usage: keyid \(spec.name)"))
            #expect(keyid.run("help", spec.name).stdout == own.stdout)
        }
        #expect(keyid.run("--version").stdout == "keyid \(KeyIDVersion.current)\n")
    }

    @Test("a variable for an option the subcommand does not take is left alone; one it takes is checked")
    func variablesPerSubcommand() throws {
        var keyid = InProcess()
        _ = keyid.run("create")
        keyid.environment = ["KEYID_ON_CLONE": "x"]
        let delete = keyid.run("delete", "--force")
        #expect(delete.status == 0, "\(delete.stderr)")
        #expect(keyid.store.entries.isEmpty)
        let get = keyid.run("get")
        #expect(get.status == 2)
        #expect(get.stderr == "keyid: KEYID_ON_CLONE is 'x': expected warn, fail, rotate; see 'keyid get --help'\n")
        keyid.environment = ["KEYID_SERVICE": "", "KEYID_TIMEOUT": "never", "SECRET_BACKEND": "kwallet"]
        let derive = keyid.run("derive", "c273277323db454ea63bb96e79b53e97")
        #expect(derive.status == 0, "\(derive.stderr)")
        #expect(derive.stdout == "e54216b7-4275-4544-9c94-623f246677b4\n")
        let list = keyid.run("list")
        #expect(list.status == 2)
        #expect(list.stderr.hasPrefix("keyid: KEYID_SERVICE is empty; see 'keyid list --help'"))
    }
}
