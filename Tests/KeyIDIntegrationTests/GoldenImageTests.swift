import Foundation
import Testing

@testable import KeyIDKit
@testable import KeyIDTestSupport

extension TestEnvironment {
    /// Whether `Tests/Harness/fake-machine.sh` can run: root, with `unshare`.
    static var canFakeMachines: Bool {
        getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare")
    }
}

/// A golden image end to end: an ID stored on a template, read on two copies of its disk that
/// keep its machine ID but have instance IDs and product UUIDs of their own. Each machine is a
/// state directory (home, keyring, the file backend's files) with a gnome-keyring of its own
/// (`keyring-session.sh --state`), its cloud-init and DMI files faked in a private mount
/// namespace (`fake-machine.sh`, as root).
@Suite(
    "golden images: copies that keep the machine ID", .tags(.endToEnd),
    .enabled(if: TestEnvironment.binary != nil && TestEnvironment.canFakeMachines))
struct GoldenImageTests {
    struct Machine {
        var instance: String
        var product: String
    }

    static let machineID = "5a4d0b8c3e2f41a7b6c9d0e1f2a3b4c5"
    static let template = Machine(instance: "i-0a1b2c3d4e5f60718", product: "4C4C4544-0042-3510-8052-B4C04F4E3232")
    static let clones = [
        Machine(instance: "i-09f8e7d6c5b4a3921", product: "EC2A11F0-5C3E-4B7A-9D51-0A2B3C4D5E6F"),
        Machine(instance: "i-0c3d5e7f9a1b2c4d6", product: "9B1D6E02-7A4F-4C38-8E15-3F6A2B9C0D47"),
    ]
    /// The raw values keyid must never write anywhere.
    static var secrets: [String] {
        ([template] + clones).flatMap { [$0.instance, $0.product, $0.product.lowercased()] } + [machineID]
    }

    let base: String
    let machineFile: String
    /// Everything keyid printed, for the check that no raw value appears in it.
    let printed = ThreadLock<[String]>([])

    init() throws {
        base = FileManager.default.temporaryDirectory.appendingPathComponent("keyid-golden-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: false)
        machineFile = base + "/machine-id"
        try Data((Self.machineID + "\n").utf8).write(to: URL(fileURLWithPath: machineFile))
    }

    /// Runs a command on `machine` whose disk is the state directory `disk`, in a
    /// gnome-keyring session of its own.
    func run(on machine: Machine, disk: String, _ command: [String]) throws -> ProcessOutcome {
        let harness = TestEnvironment.root + "/Tests/Harness/"
        return try runProgram(
            harness + "keyring-session.sh",
            ["--provider", "gnome-keyring", "--state", base + "/" + disk, "--", harness + "fake-machine.sh"]
                + [machine.instance, machine.product, "--"] + command,
            environment: ["KEYID_MACHINE_ID_FILE": machineFile])
    }

    func keyid(on machine: Machine, disk: String, _ arguments: [String]) throws -> ProcessOutcome {
        let outcome = try run(on: machine, disk: disk, [TestEnvironment.binary!] + arguments)
        printed.withLock { $0 += [outcome.stdout, outcome.stderr] }
        return outcome
    }

    func json(_ outcome: ProcessOutcome) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [String: Any])
    }

    /// A copy of the template's disk, as a machine booted from its image has.
    func copy(_ disk: String) throws -> String {
        _ = try runProgram("/bin/cp", ["-a", base + "/template", base + "/" + disk])
        return disk
    }

    @Test(
        "each copy reports a clone, gets its own ID with the template's as previous_id, then reads it quietly",
        arguments: ["secret-service", "file"])
    func goldenImage(backend: String) throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        let options = ["--service", "com.example.agent", "--backend", backend]
        let stored = try keyid(on: Self.template, disk: "template", ["get", "--create", "--json"] + options)
        #expect(stored.status == 0, "\(stored.stderr)")
        let templateID = try #require(try json(stored)["id"] as? String)
        #expect(try keyid(on: Self.template, disk: "template", ["get"] + options).stderr.isEmpty)
        if backend == "file" {
            let record = try String(
                contentsOfFile: base + "/template/state/keyid/com.example.agent@device-id.id", encoding: .utf8)
            #expect(record.contains(/attribute\.keyid-instance=[0-9a-f]{32}\n/))
            #expect(record.contains(/attribute\.keyid-product=[0-9a-f]{32}\n/))
        }
        var newIDs: Set<String> = []
        for (number, clone) in Self.clones.enumerated() {
            let disk = try copy("clone-\(number)")
            let warned = try keyid(on: clone, disk: disk, ["get", "--json"] + options)
            #expect(warned.status == 0)
            #expect(try json(warned)["id"] as? String == templateID)
            #expect(try json(warned)["differs"] as? [String] == ["instance-id", "product-uuid"])
            #expect(warned.stderr.contains("stored on another machine: the cloud instance and the product UUID differ"))
            let refused = try keyid(on: clone, disk: disk, ["get", "--on-clone", "fail"] + options)
            #expect(refused.status == 9)
            #expect(refused.stdout.isEmpty)
            #expect(refused.stderr.contains("the cloud instance and the product UUID differ"))
            let rotated = try keyid(on: clone, disk: disk, ["get", "--on-clone", "rotate", "--json"] + options)
            let object = try json(rotated)
            #expect(object["previous_id"] as? String == templateID)
            #expect(object["reason"] as? String == "clone")
            #expect(object["differs"] as? [String] == ["instance-id", "product-uuid"])
            let newID = try #require(object["id"] as? String)
            #expect(newID != templateID)
            newIDs.insert(newID)
            let again = try keyid(on: clone, disk: disk, ["get", "--json", "--on-clone", "fail"] + options)
            #expect(again.status == 0)
            #expect(again.stderr.isEmpty)
            #expect(try json(again)["id"] as? String == newID)
            #expect(try json(again)["differs"] == nil)
        }
        #expect(newIDs.count == Self.clones.count)
        // A copy that cannot read the signals (no cloud-init, no DMI) does not know: no clone.
        let blind = try copy("blind")
        let unknown = try keyid(
            on: Machine(instance: "", product: ""), disk: blind, ["get", "--on-clone", "fail"] + options)
        #expect(unknown.stdout == templateID + "\n")
        #expect(
            try keyid(on: Self.template, disk: "template", ["doctor"] + options).stdout.contains(
                "clone signals    machine-id, instance-id, product-uuid\n"))
        try expectNoRawValues(disks: ["template", "clone-0", "clone-1", "blind"])
    }

    /// No raw value in what keyid printed, in any file of the machines' disks, or in the items'
    /// attributes as the provider lists them.
    func expectNoRawValues(disks: [String]) throws {
        var written = printed.withLock { $0 }
        for disk in disks {
            let root = base + "/" + disk
            let files = FileManager.default.enumerator(atPath: root)?.compactMap { $0 as? String } ?? []
            for file in files {
                if let data = FileManager.default.contents(atPath: root + "/" + file) {
                    written.append(String(decoding: data, as: UTF8.self))
                }
            }
            let listed = try run(
                on: Machine(instance: "", product: ""), disk: disk,
                ["/usr/bin/secret-tool", "search", "--all", "service", "com.example.agent"])
            // secret-tool prints the attributes on standard error.
            written.append(listed.stdout + listed.stderr)
            if disk != "blind", !listed.stdout.isEmpty {
                #expect(listed.stderr.contains(/attribute\.keyid-instance = [0-9a-f]{32}\n/))
                #expect(listed.stderr.contains(/attribute\.keyid-product = [0-9a-f]{32}\n/))
            }
        }
        for value in Self.secrets {
            for text in written {
                #expect(!text.contains(value), "\(value) appears in what keyid wrote")
            }
        }
    }
}
