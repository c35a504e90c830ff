/// This machine's signals, as keyid compares and records them. The machine ID and the raw
/// values are read through the closures it is given (the system layer reads the files, tests
/// give values), each at most when needed, and never leave this type: what is stored and
/// compared are keyed hashes.
package struct MachineSignals {
    /// The machine ID; `nil` when it cannot be read.
    let machineID: () -> MachineID?
    /// The raw value of a signal other than the machine ID; `nil` when it cannot be read now.
    let value: (MachineSignal) -> [UInt8]?

    package init(machineID: @escaping () -> MachineID?, value: @escaping (MachineSignal) -> [UInt8]?) {
        self.machineID = machineID
        self.value = value
    }

    /// A machine that offers no signal: nothing is bound, nothing is a clone.
    package static var none: MachineSignals { MachineSignals(machineID: { nil }, value: { _ in nil }) }

    /// What keyid stores beside an ID; `nil` when the machine ID cannot be read (it keys every
    /// hash).
    package var binding: MachineBinding? {
        guard let machine = machineID() else { return nil }
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
        guard let recorded = item.recorded(.machineID), let machine = machineID() else { return [] }
        if recorded != machine.binding { return [.machineID] }
        return MachineSignal.allCases.dropFirst().filter { signal in
            guard let stored = item.recorded(signal), let now = hash(signal, on: machine) else { return false }
            return stored != now
        }
    }

    /// The signals this machine offers to the current user now.
    package var available: [MachineSignal] {
        MachineSignal.allCases.filter { $0 == .machineID ? machineID() != nil : value($0) != nil }
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
