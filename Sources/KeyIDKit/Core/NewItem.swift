/// One ID as a store writes it: the ID, the key it goes under, the machine it is bound to
/// (when known) and the details the caller asked for.
package struct NewItem: Sendable, Equatable {
    package var id: DeviceID
    package var key: ItemKey
    package var binding: MachineBinding?
    package var details: ItemDetails

    package init(id: DeviceID, key: ItemKey, binding: MachineBinding? = nil, details: ItemDetails = ItemDetails()) {
        self.id = id
        self.key = key
        self.binding = binding
        self.details = details
    }

    /// The label a new item gets.
    package var label: String { details.label ?? key.label }

    /// The attributes the item is stored under (see ``ItemKey/storedAttributes(binding:)``).
    package var attributes: [String: String] { key.storedAttributes(binding: binding) }

    /// The value written: the ID as a lowercase UUID.
    package var secret: [UInt8] { Array(id.uuidString.utf8) }
}
