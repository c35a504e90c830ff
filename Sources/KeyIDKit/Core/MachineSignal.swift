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
        DisplayText.listed(signals.map(\.description)) + (signals.count == 1 ? " differs" : " differ")
    }
}
