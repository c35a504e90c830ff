/// An ID as found in (or just written to) a store.
public struct DeviceRecord: Equatable, Sendable {
    /// The ID.
    public var id: DeviceID
    /// The service and account it is stored for.
    public var key: ItemKey
    /// The item the ID lives in.
    public var item: StoredItem
    /// How many other items matched the same service and account.
    public var duplicates: Int
    /// Whether the item is bound to another machine: a signal recorded beside it differs from
    /// this machine's (``differingSignals``).
    public var cloned = false
    /// The signals recorded beside the item that differ from this machine's; empty when none
    /// does (or none could be compared).
    public var differingSignals: [MachineSignal] = [] {
        didSet { cloned = !differingSignals.isEmpty }
    }
}
