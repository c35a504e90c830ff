import Foundation
import Testing

@testable import KeyIDTestSupport

/// `examples/swift-package`: a program of its own that depends on this package by path
/// (`make test` builds it into .build/example and names it in KEYID_EXAMPLE_BIN).
@Suite(
    "The Swift package example against a real Secret Service", .tags(.integration),
    .enabled(if: TestEnvironment.canRunBinary && ProcessInfo.processInfo.environment["KEYID_EXAMPLE_BIN"] != nil))
struct ExampleTests {
    static var example: String { ProcessInfo.processInfo.environment["KEYID_EXAMPLE_BIN"]! }

    @Test("it prints the ID the keyid command stored; a missing one is keyid's exit 1 with one line")
    func readsWhatTheCommandStored() throws {
        let service = TestEnvironment.uniqueService()
        let stored = try keyid(["get", "--create", "--service", service])
        #expect(stored.status == 0)
        let read = try runProgram(Self.example, [service])
        #expect(read.status == 0, "\(read.stderr)")
        #expect(read.stdout == stored.stdout)
        let missing = try runProgram(Self.example, [service + "-missing"])
        #expect(missing.status == 1)
        #expect(missing.stdout.isEmpty)
        #expect(
            missing.stderr == "DeviceIDExample: no ID is stored for service '\(service)-missing', account 'device-id'\n"
        )
    }

    @Test("with --create it stores an ID the keyid command then reads")
    func createsWhatTheCommandReads() throws {
        let service = TestEnvironment.uniqueService()
        let created = try runProgram(Self.example, ["--create", service])
        #expect(created.status == 0, "\(created.stderr)")
        #expect(UUID(uuidString: created.stdout.trimmingCharacters(in: .newlines)) != nil)
        #expect(try keyid(["get", "--service", service]).stdout == created.stdout)
    }
}
