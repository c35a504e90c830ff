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
