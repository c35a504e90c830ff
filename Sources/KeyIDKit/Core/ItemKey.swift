/// The `service` and `account` attributes that name one stored ID.
public struct ItemKey: Hashable, Sendable, CustomStringConvertible {
    /// The service used when neither `--service` nor `KEYID_SERVICE` names one.
    public static let defaultService = "keyid"
    /// The account used when neither `--account` nor `KEYID_ACCOUNT` names one.
    public static let defaultAccount = "device-id"
    /// The longest service or account name accepted, in UTF-8 bytes.
    public static let maximumLength = 255

    /// The `service` attribute: whose ID it is, e.g. `com.example.app`.
    public let service: String
    /// The `account` attribute: which of the service's IDs, e.g. `device-id`.
    public let account: String

    /// Validates both names; throws ``KeyIDError/usage(_:)`` when one is empty, too long or
    /// holds a control character.
    public init(service: String, account: String) throws(KeyIDError) {
        try self.init(service: service, account: account, origins: (nil, nil))
    }

    /// As ``init(service:account:)``; a failure names where each name came from (for
    /// example `KEYID_SERVICE`) when `origins` says.
    init(service: String, account: String, origins: (service: String?, account: String?)) throws(KeyIDError) {
        try Self.validate(service, origin: origins.service ?? "the service name")
        try Self.validate(account, origin: origins.account ?? "the account name")
        self.service = service
        self.account = account
    }

    /// A key of names already checked with ``validate(_:origin:limit:shown:)``.
    init(checked service: String, account: String) {
        self.service = service
        self.account = account
    }

    /// The key an item's attributes name; `nil` when `service` or `account` is missing or
    /// invalid.
    package init?(attributes: [String: String]) {
        self.init(service: attributes[AttributeName.service], account: attributes[AttributeName.account])
    }

    /// The key `service` and `account` name; `nil` when one is missing or invalid.
    package init?(service: String?, account: String?) {
        guard let service, let account, let key = try? ItemKey(service: service, account: account) else { return nil }
        self = key
    }

    /// The attributes keyid looks items up by, exactly what `secret-tool` uses.
    package var attributes: AttributeList {
        var attributes = AttributeList()
        attributes[AttributeName.service] = service
        attributes[AttributeName.account] = account
        return attributes
    }

    /// The attributes keyid stores an ID under: the lookup attributes, its marker and,
    /// when the machine ID is known, the machine binding (one attribute per signal).
    package func storedAttributes(binding: MachineBinding?) -> [String: String] {
        var all = attributes.dictionary
        all[AttributeName.marker] = AttributeName.markerValue
        if let binding { all.merge(binding.attributes) { _, new in new } }
        return all
    }

    /// The label a person sees in a keyring manager.
    public var label: String { "Device ID for \(service) (\(account))" }

    /// The names as messages show them, each unsafe character written as `\u{...}`.
    public var description: String {
        "service '\(DisplayText.escaped(service))', account '\(DisplayText.escaped(account))'"
    }

    /// The one check of a name (a service, an account, a label, a keyring, a user): throws
    /// ``KeyIDError/usage(_:)``, naming `origin`, when `name` is empty, longer than `limit`
    /// bytes or holds a control character. `shown`: the name as the message quotes it, when
    /// it quotes it.
    package static func validate(
        _ name: String, origin: String, limit: Int? = maximumLength, shown: String? = nil
    ) throws(KeyIDError) {
        if name.isEmpty {
            throw .usage("\(origin) is empty")
        }
        if let limit, name.utf8.count > limit {
            throw .usage("\(origin) is \(name.utf8.count) bytes long; the limit is \(limit)")
        }
        if name.unicodeScalars.contains(where: DisplayText.isControl) {
            throw .usage("\(origin)\(shown.map { " '\($0)'" } ?? "") contains a control character")
        }
    }
}

/// The names of the attributes keyid reads and writes on a stored item: the one place they
/// are spelled.
package enum AttributeName {
    /// The service, as `secret-tool` spells it.
    package static let service = "service"
    /// The account, as `secret-tool` spells it.
    package static let account = "account"
    /// The account as Python keyring's Secret Service backend names it. The Secret Service
    /// store writes it too, so that `keyring get SERVICE ACCOUNT` finds keyid's IDs.
    package static let pythonKeyringAccount = "username"
    /// The marker on items keyid created, so that `keyid list` can find them; its value is
    /// ``markerValue``.
    package static let marker = "keyid"
    /// The value of ``marker``.
    package static let markerValue = "1"
    /// The marker and its value, as a search asks for them.
    package static let markerPair = (marker, markerValue)
    /// The keyed hash of the machine ID (see ``MachineID/binding``).
    package static let machineID = "keyid-machine"
    /// The keyed hash of cloud-init's instance ID.
    package static let cloudInstance = "keyid-instance"
    /// The keyed hash of the product UUID.
    package static let productUUID = "keyid-product"
}
