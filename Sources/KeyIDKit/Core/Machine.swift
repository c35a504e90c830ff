/// One fact about a machine that tells it apart from a copy of it, recorded (as a keyed hash,
/// never the value) beside each stored ID: a read compares what was recorded with what the
/// machine says now (``DeviceRecord/differingSignals``).
public enum MachineSignal: String, CaseIterable, Sendable {
    /// The machine ID (`/etc/machine-id`), which disk images often carry to their copies.
    case machineID = "machine-id"
    /// cloud-init's instance ID (`/var/lib/cloud/data/instance-id`): each instance booted from
    /// an image has its own.
    case cloudInstance = "instance-id"
    /// The product UUID the firmware or hypervisor gives the machine
    /// (`/sys/class/dmi/id/product_uuid`), readable by root only.
    case productUUID = "product-uuid"

    /// What a sentence calls it: "the cloud instance differs".
    public var description: String {
        switch self {
        case .machineID: return "the machine ID"
        case .cloudInstance: return "the cloud instance"
        case .productUUID: return "the product UUID"
        }
    }

    /// The attribute its keyed hash is stored in.
    package var attribute: String {
        switch self {
        case .machineID: return AttributeName.machineID
        case .cloudInstance: return AttributeName.cloudInstance
        case .productUUID: return AttributeName.productUUID
        }
    }

    /// The file it is read from (the machine ID's can be another: `KEYID_MACHINE_ID_FILE`).
    package var path: String {
        switch self {
        case .machineID: return MachineID.defaultPath
        case .cloudInstance: return "/var/lib/cloud/data/instance-id"
        case .productUUID: return "/sys/class/dmi/id/product_uuid"
        }
    }

    /// The value a file holds, without trailing newlines and spaces (and, for the product
    /// UUID, in lowercase); `nil` when nothing is left, or the value is one that many machines
    /// share: a product UUID of all zeros or all `f`s, which firmware writes when it has none.
    package func value(of text: some Collection<UInt8>) -> [UInt8]? {
        var value = Array(text)
        while let last = value.last, last == 0x0A || last == 0x20 || last == 0x09 || last == 0x0D {
            value.removeLast()
        }
        guard !value.isEmpty else { return nil }
        if self == .productUUID {
            value = value.map { (0x41...0x5A).contains($0) ? $0 + 0x20 : $0 }
            let digits = Set(value.filter { $0 != UInt8(ascii: "-") })
            if digits == [UInt8(ascii: "0")] || digits == [UInt8(ascii: "f")] { return nil }
        }
        return value
    }

    /// The signals named in a sentence: "the cloud instance and the product UUID differ".
    package static func differ(_ signals: [MachineSignal]) -> String {
        DisplayText.listed(signals.map { $0.description }) + (signals.count == 1 ? " differs" : " differ")
    }
}

/// This machine's ID (machine-id(5)), used only to derive other values: it is never
/// printed or stored. Reading it is the system layer's job (``MachineID/read(from:)``).
package struct MachineID: Sendable {
    /// Where the machine ID is read from, unless `KEYID_MACHINE_ID_FILE` names another file.
    package static let defaultPath = "/etc/machine-id"

    let bytes: [UInt8]

    /// Parses the 32 hex digits of machine-id(5) (in either letter case, as systemd reads
    /// them), then any trailing newlines and spaces; `nil` for anything else.
    package init?(text: some Collection<UInt8>) {
        var lines = Array(text)
        while let last = lines.last, last == 0x0A || last == 0x20 { lines.removeLast() }
        guard lines.count == 32, let id = DeviceID(parsing: lines) else { return nil }
        bytes = id.bytes
    }

    /// The ID `systemd-id128 machine-id --app-specific=APP` prints: HMAC-SHA-256 keyed by
    /// the machine ID over the application ID, cut to 16 bytes, as a version-4 UUID.
    package func appSpecific(_ application: DeviceID) -> DeviceID {
        DeviceID(versionFourFrom: Array(SHA256.hmac(key: bytes, message: application.bytes).prefix(16)))
    }

    /// The application ID keyid derives its clone-detection binding with,
    /// 5f1e9a3c-7b2d-4e8f-9a61-0c4d2b7e8f13, as bytes (no text to parse on every run).
    static let bindingApplication = DeviceID(bytes: [
        0x5F, 0x1E, 0x9A, 0x3C, 0x7B, 0x2D, 0x4E, 0x8F, 0x9A, 0x61, 0x0C, 0x4D, 0x2B, 0x7E, 0x8F, 0x13,
    ])!

    /// What keyid stores beside an ID to recognise the machine it was stored on: a keyed
    /// hash of the machine ID, from which the machine ID cannot be recovered.
    package var binding: String { appSpecific(Self.bindingApplication).formatted(.hex) }
}

/// The machine keyid runs on, as it reads it: the system layer reads its files
/// (``SystemMachine``), tests give values.
package protocol Machine {
    /// The machine ID, read from `path` (``MachineID/defaultPath`` unless told otherwise).
    func machineID(at path: String) throws(KeyIDError) -> MachineID
    /// The raw value of a signal other than the machine ID; `nil` when it cannot be read now.
    func value(of signal: MachineSignal) -> [UInt8]?
}

/// This machine's signals, as keyid compares and records them. Each is read from the
/// ``Machine`` at most once, when first needed, and kept (the machine ID's error too): they do
/// not change while a program runs. The raw values never leave this type: what is stored and
/// compared are keyed hashes. Used one call at a time (``DeviceIDs`` holds it under its lock).
package final class MachineSignals {
    private let machine: any Machine
    private let machineIDFile: String
    /// The machine ID once read, or why it could not be (two fields, not a `Result`: the
    /// runtime builds a generic type's metadata on its first use, which a run pays for).
    private var readMachineID: MachineID?
    private var machineIDError: KeyIDError?
    private var values: [MachineSignal: [UInt8]?] = [:]

    package init(_ machine: any Machine, machineIDFile: String = MachineID.defaultPath) {
        self.machine = machine
        self.machineIDFile = machineIDFile
    }

    /// A machine that offers no signal: nothing is bound, nothing is a clone.
    package static var none: MachineSignals { MachineSignals(NoMachine()) }

    /// The machine ID, read on first use; throws what reading it threw, every time.
    package func machineID() throws(KeyIDError) -> MachineID {
        if let readMachineID { return readMachineID }
        if let machineIDError { throw machineIDError }
        do throws(KeyIDError) {
            let read = try machine.machineID(at: machineIDFile)
            readMachineID = read
            return read
        } catch {
            machineIDError = error
            throw error
        }
    }

    /// The raw value of a signal other than the machine ID, read on first use; `nil` when it
    /// cannot be read.
    private func value(_ signal: MachineSignal) -> [UInt8]? {
        if let known = values[signal] { return known }
        let value = machine.value(of: signal)
        values[signal] = .some(value)
        return value
    }

    /// What keyid stores beside an ID; `nil` when the machine ID cannot be read (it keys every
    /// hash).
    package var binding: MachineBinding? {
        guard let machine = try? machineID() else { return nil }
        var hashes: [MachineSignal: String] = [:]
        for signal in MachineSignal.allCases {
            hashes[signal] = hash(signal, on: machine) ?? ""
        }
        return MachineBinding(hashes: hashes)
    }

    /// The signals recorded beside `item` that differ from this machine's.
    /// A signal not recorded, or not readable now, is unknown and never counts. When the
    /// machine ID differs, that is the answer: the other hashes are keyed by it and cannot be
    /// compared.
    package func differences(_ item: StoredItem) -> [MachineSignal] {
        guard let recorded = item.recorded(.machineID), let machine = try? machineID() else { return [] }
        if recorded != machine.binding { return [.machineID] }
        return MachineSignal.allCases.dropFirst().filter { signal in
            guard let stored = item.recorded(signal), let now = hash(signal, on: machine) else { return false }
            return stored != now
        }
    }

    /// The signals this machine offers to the current user now.
    package var available: [MachineSignal] {
        MachineSignal.allCases.filter { $0 == .machineID ? (try? machineID()) != nil : value($0) != nil }
    }

    /// The hash stored for `signal`, keyed by the machine ID (doc/GUIDE.md says why); `nil`
    /// when the signal cannot be read.
    private func hash(_ signal: MachineSignal, on machine: MachineID) -> String? {
        if signal == .machineID { return machine.binding }
        guard let raw = value(signal) else { return nil }
        let mac = SHA256.hmac(key: machine.bytes, message: Array("keyid \(signal.rawValue)".utf8) + [0] + raw)
        return Hex.string(mac.prefix(16))
    }
}

/// A machine whose machine ID and signals cannot be read.
private struct NoMachine: Machine {
    func machineID(at path: String) throws(KeyIDError) -> MachineID { throw .machineID("no machine ID") }
    func value(of signal: MachineSignal) -> [UInt8]? { nil }
}

/// What keyid stores beside an ID to recognise the machine it was stored on: one keyed hash
/// per ``MachineSignal``, empty for a signal that could not be read then. Every write stores
/// all of them, so that a hash recorded before never outlives the ID it was made for.
package struct MachineBinding: Equatable, Sendable {
    /// The hash of each signal (`""`: not readable when stored).
    package var hashes: [MachineSignal: String]

    package init(hashes: [MachineSignal: String]) {
        self.hashes = hashes
    }

    /// A binding by the machine ID alone, as keyid 0.2.0 stored it.
    package init(machine: String) {
        self.init(hashes: [.machineID: machine])
    }

    /// The attributes it is stored in.
    package var attributes: [String: String] {
        Dictionary(uniqueKeysWithValues: MachineSignal.allCases.map { ($0.attribute, hashes[$0] ?? "") })
    }
}
