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

    @Test("a locked keyring named by --collection is exit 4 under --no-prompt")
    func locked() throws {
        let outcome = try inSession(
            "locked", "\"$KEYID\" get --create --no-prompt --collection default; echo \"status=$?\"")
        #expect(outcome.stdout.contains("status=4\n"), "\(outcome.stdout) \(outcome.stderr)")
    }
}
