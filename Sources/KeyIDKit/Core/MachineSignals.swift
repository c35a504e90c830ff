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
    private var readMachineID: Result<MachineID, KeyIDError>?
    private var values: [MachineSignal: [UInt8]?] = [:]

    package init(_ machine: any Machine, machineIDFile: String = MachineID.defaultPath) {
        self.machine = machine
        self.machineIDFile = machineIDFile
    }

    /// A machine that offers no signal: nothing is bound, nothing is a clone.
    package static var none: MachineSignals { MachineSignals(NoMachine()) }

    /// The machine ID, read on first use; throws what reading it threw, every time.
    package func machineID() throws(KeyIDError) -> MachineID {
        if readMachineID == nil {
            do throws(KeyIDError) {
                readMachineID = .success(try machine.machineID(at: machineIDFile))
            } catch {
                readMachineID = .failure(error)
            }
        }
        return try readMachineID!.get()
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

    /// The hash stored for `signal`; `nil` when the signal cannot be read.
    ///
    /// Keyed by the machine ID, which no keyring holds: someone who reads a keyring's
    /// attributes away from the machine (a backup; KWallet writes them in plain text beside the
    /// wallet) cannot test guesses at an instance ID or a product UUID, which may have little
    /// entropy (`i-` and 17 hex digits; `iid-local01`; a UUID made from a service tag), as they
    /// could against a plain hash. Not keyed by the stored ID: a value another program writes
    /// into the item must not turn its hashes into a clone.
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
