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
    /// Whether the item is bound to another machine: the keyed hash of the machine ID stored
    /// beside it is not this machine's.
    public var cloned = false
}
