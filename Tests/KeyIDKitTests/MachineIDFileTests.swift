import Testing

@testable import KeyIDKit
@testable import KeyIDTestSupport

/// Where the machine ID is read from: decided by `Options.machineIDFile`, which the command
/// sets from `KEYID_MACHINE_ID_FILE`; read once per instance.
@Suite("The machine ID's file", .tags(.unit))
struct MachineIDFileTests {
    final class Reads {
        var paths: [String] = []
    }

    /// An instance whose machine-ID reader records each path it is asked to read.
    func ids(_ options: DeviceIDs.Options, reads: Reads) throws -> DeviceIDs {
        let machine = MachineID(text: Array("0123456789abcdef0123456789abcdef".utf8))!
        return try DeviceIDs(
            backend: .secretService, options: options,
            dependencies: DeviceIDs.Dependencies(
                storage: GivenStorage(MemoryStore()), machine: RecordingMachine(reads: reads, machine: machine)))
    }

    @Test("the library reads /etc/machine-id unless machineIDFile names another file, and reads it once")
    func library() throws {
        let reads = Reads()
        let plain = try ids(.init(), reads: reads)
        _ = try plain.machineID()
        _ = try plain.machineID()
        var options = DeviceIDs.Options()
        options.machineIDFile = "/srv/image/machine-id"
        _ = try ids(options, reads: reads).machineID()
        #expect(reads.paths == ["/etc/machine-id", "/srv/image/machine-id"])
    }

    @Test("the command passes KEYID_MACHINE_ID_FILE to the library, for the subcommands that read the machine ID")
    func command() throws {
        func file(_ subcommand: Subcommand, _ environment: [String: String]) throws -> String? {
            try Settings(subcommand, options: CommandLineOptions(), environment: ProcessEnvironment(environment))
                .libraryOptions.machineIDFile
        }
        #expect(try file(.get, ["KEYID_MACHINE_ID_FILE": "/tmp/m"]) == "/tmp/m")
        #expect(try file(.get, ["KEYID_MACHINE_ID_FILE": ""]) == nil)
        #expect(try file(.get, [:]) == nil)
        #expect(try file(.list, ["KEYID_MACHINE_ID_FILE": "/tmp/m"]) == nil)
    }
}

/// A machine whose machine ID is `machine`, wherever it is read from; each path asked for is
/// recorded in `reads`.
private struct RecordingMachine: Machine {
    let reads: MachineIDFileTests.Reads
    let machine: MachineID

    func machineID(at path: String) throws(KeyIDError) -> MachineID {
        reads.paths.append(path)
        return machine
    }

    func value(of signal: MachineSignal) -> [UInt8]? { nil }
}
