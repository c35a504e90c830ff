import Foundation
import Testing

@testable import KeyIDKit
@testable import KeyIDTestSupport

@Suite("Failed C calls", .tags(.files))
struct SystemCallErrorTests {
    @Test("a failed call keeps its name and errno, and reads as strerror's text")
    func description() {
        let failure = SystemCallError("openat", errno: ENOENT)
        #expect(failure.description == String(cString: strerror(ENOENT)))
        #expect(failure != SystemCallError("openat", errno: EACCES))
    }

    @Test("every wrapper throws the call that failed and its errno")
    func wrappers() {
        #expect(throws: SystemCallError("open", errno: ENOENT)) {
            try POSIX.readFile("/nonexistent-keyid-file", limit: 64)
        }
        #expect(throws: SystemCallError("read", errno: EISDIR)) { try POSIX.readFile("/", limit: 64) }
        #expect(throws: SystemCallError("write", errno: EBADF)) { try POSIX.writeAll(-1, [0x41]) }
        #expect(throws: SystemCallError("write", errno: EBADF)) {
            try FileDescriptorSink(descriptor: 1, wasClosed: true).write("x")
        }
    }

    @Test("an unreadable machine ID file carries the errno, and its message is the same sentence")
    func machineID() {
        let path = "/nonexistent-keyid-machine-id"
        #expect(
            throws: SystemFailure(
                .machineID("cannot read the machine ID from \(path): No such file or directory"),
                systemCall: SystemCallError("open", errno: ENOENT))
        ) {
            try MachineID.read(from: path)
        }
        #expect { try MachineID.read(from: "/") } throws: { error in
            (error as? SystemFailure)?.errno == EISDIR
        }
    }

    @Test("a failure keyid decided itself carries no call")
    func refusal() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("keyid-\(UUID().uuidString)").path
        #expect(FileManager.default.createFile(atPath: path, contents: Data("not an ID\n".utf8)))
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(throws: SystemFailure(.machineID("\(path) does not hold a machine ID (32 hex digits)"))) {
            try MachineID.read(from: path)
        }
    }
}
