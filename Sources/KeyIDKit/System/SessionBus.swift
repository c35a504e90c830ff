import Glibc

/// The session bus keyid found (``Locations/sessionBus(_:)``), and where. keyid connects to it
/// itself, never asking GLib to find a bus, so no bus is ever autolaunched.
package struct SessionBus: Equatable, Sendable {
    /// A D-Bus address, such as `unix:path=/run/user/1000/bus`.
    package var address: String
    /// Where the address came from, for `doctor`.
    package var source: String

    /// The bus name the Secret Service is addressed by on it (``secretServiceName(_:)``).
    package var serviceName = SessionBus.defaultServiceName

    package init(address: String, source: String) {
        self.address = address
        self.source = source
    }

    /// The Secret Service's well-known bus name.
    package static let defaultServiceName = "org.freedesktop.secrets"

    /// The bus name of the Secret Service: `SECRET_SERVICE_BUS_NAME`, which libsecret reads
    /// for its own calls, else ``defaultServiceName``. A value that is not a bus name is a
    /// usage error: GDBus refuses a call to it with a critical and never completes it, so each
    /// would wait out the timeout.
    static func secretServiceName(_ environment: ProcessEnvironment) throws(KeyIDError) -> String {
        guard let name = try environment.value(.secretServiceBusName) else { return defaultServiceName }
        guard isBusName(name) else {
            throw .usage(
                "\(SystemVariable.secretServiceBusName.rawValue) is '\(DisplayText.escaped(name))', which is not a D-Bus bus name; unset it to use \(defaultServiceName)"
            )
        }
        return name
    }

    /// Whether `name` is a D-Bus bus name: a unique name (`:1.42`) or a well-known one, two or
    /// more non-empty elements of `[A-Za-z0-9_-]` joined by dots, at most 255 bytes, whose
    /// elements do not start with a digit.
    static func isBusName(_ name: String) -> Bool {
        let unique = name.hasPrefix(":")
        let elements = (unique ? name.dropFirst() : Substring(name)).split(
            separator: ".", omittingEmptySubsequences: false)
        guard name.utf8.count <= 255, elements.count >= 2 else { return false }
        return elements.allSatisfy { element in
            guard let first = element.utf8.first, unique || !(0x30...0x39).contains(first) else { return false }
            return element.utf8.allSatisfy { byte in
                (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                    || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
            }
        }
    }

    /// The address of the bus socket at `path`, when it is a socket owned by `uid`.
    package static func socket(at path: String, ownedBy uid: UInt32) -> SessionBus? {
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFSOCK, info.st_uid == uid else { return nil }
        return SessionBus(address: "unix:path=" + escaped(path), source: "found at " + path)
    }

    /// A value escaped as D-Bus addresses require: bytes outside `[-0-9A-Za-z_/.\\*]` as `%XX`.
    static func escaped(_ value: String) -> String {
        var out = ""
        for byte in value.utf8 {
            let plain =
                (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                || "-_/.\\*".utf8.contains(byte)
            out += plain ? String(UnicodeScalar(byte)) : "%" + Hex.string([byte]).uppercased()
        }
        return out
    }

    /// The refusal of an address that would start a new bus.
    static func refusingAutolaunch(_ address: String) -> KeyIDError {
        .unavailable(
            .noBus(
                "\(SystemVariable.sessionBus.rawValue) is '\(DisplayText.escaped(address))', which would start a new bus"
            ))
    }

    /// Whether an address asks for a bus to be started (an `autolaunch:` entry, which GLib's
    /// clients would follow); keyid refuses it.
    package static func autolaunches(_ address: String) -> Bool {
        // Each entry follows the start or a `;` (compared as bytes: a split would build
        // substrings on every run).
        let bytes = Array(address.utf8)
        let prefix = Array("autolaunch:".utf8)
        for start in bytes.indices where start == 0 || bytes[start - 1] == UInt8(ascii: ";") {
            if bytes[start...].starts(with: prefix) { return true }
        }
        return false
    }
}

/// Where a Secret Service store finds the session bus, when it first connects.
package protocol BusLocator {
    func sessionBus() throws(KeyIDError) -> SessionBus
}

/// The bus the environment leads to (``Locations/sessionBus(_:)``).
extension ProcessEnvironment: BusLocator {
    package func sessionBus() throws(KeyIDError) -> SessionBus {
        try Locations.sessionBus(self)
    }
}
