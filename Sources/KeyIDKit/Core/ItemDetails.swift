/// What a caller asks a write to store beside the ID. Every field defaults to what keyid
/// writes when it is not given.
public struct ItemDetails: Sendable, Equatable {
    /// The label a keyring manager (Seahorse, KWallet) shows for the item; `nil`: a new item
    /// is labelled "Device ID for SERVICE (ACCOUNT)" (``ItemKey/label``), and a replaced one
    /// keeps its label.
    public var label: String?

    /// Details with the given values; each defaults as described on its property.
    public init(label: String? = nil) {
        self.label = label
    }

    /// Throws ``KeyIDError/usage(_:)`` when the label is empty, longer than
    /// ``ItemKey/maximumLength`` bytes or holds a control character.
    package func check(origin: String = "the label") throws(KeyIDError) {
        if let label { try ItemKey.validate(label, origin: origin) }
    }
}
