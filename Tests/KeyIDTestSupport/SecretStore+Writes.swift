import KeyIDKit

extension SecretStore {
    /// Adds `id` for `key` with the default label (see ``SecretStore/add(_:)``).
    package func add(_ id: DeviceID, for key: ItemKey, binding: MachineBinding?) throws(KeyIDError) {
        try add(NewItem(id: id, key: key, binding: binding))
    }

    /// Replaces `item`'s value with `id`, keeping its label (see ``SecretStore/replace(_:with:)``).
    package func replace(_ item: StoredItem, with id: DeviceID, for key: ItemKey, binding: MachineBinding?)
        throws(KeyIDError)
    {
        try replace(item, with: NewItem(id: id, key: key, binding: binding))
    }
}
