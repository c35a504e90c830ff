/// This machine's ID (machine-id(5)), used only to derive other values: it is never
/// printed or stored. Reading it is the system layer's job (``MachineID/read(from:)``).
package struct MachineID: Sendable {
    /// Where the machine ID is read from, unless `KEYID_MACHINE_ID_FILE` names another file.
    package static let defaultPath = "/etc/machine-id"

    let bytes: [UInt8]

    /// Parses the 32 hex digits of machine-id(5) (in either letter case, as systemd reads
    /// them), then any trailing newlines and spaces; `nil` for anything else.
    package init?(text: some Collection<UInt8>) {
        var lines = Array(text)
        while let last = lines.last, last == 0x0A || last == 0x20 { lines.removeLast() }
        guard lines.count == 32, let id = DeviceID(parsing: lines) else { return nil }
        bytes = id.bytes
    }

    /// The ID `systemd-id128 machine-id --app-specific=APP` prints: HMAC-SHA-256 keyed by
    /// the machine ID over the application ID, cut to 16 bytes, as a version-4 UUID.
    package func appSpecific(_ application: DeviceID) -> DeviceID {
        DeviceID(versionFourFrom: Array(SHA256.hmac(key: bytes, message: application.bytes).prefix(16)))
    }

    /// The application ID keyid derives its clone-detection binding with.
    static let bindingApplication = DeviceID("5f1e9a3c-7b2d-4e8f-9a61-0c4d2b7e8f13")!

    /// What keyid stores beside an ID to recognise the machine it was stored on: a keyed
    /// hash of the machine ID, from which the machine ID cannot be recovered.
    package var binding: String { appSpecific(Self.bindingApplication).formatted(.hex) }
}
