import Glibc

/// The session bus keyid found (``Locations/sessionBus(_:)``), and where. How GLib is led to
/// it is ``Handover``'s choice; neither way autolaunches a bus.
package struct SessionBus: Equatable, Sendable {
    /// A D-Bus address, such as `unix:path=/run/user/1000/bus`.
    package var address: String
    /// Where the address came from, for `doctor`.
    package var source: String

    package init(address: String, source: String) {
        self.address = address
        self.source = source
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

    /// How GLib, which libsecret connects through, is led to the bus keyid found.
    package enum Handover: Sendable {
        /// Set `DBUS_SESSION_BUS_ADDRESS` to the bus's address before GLib's first look (the
        /// command: one thread, its own environment).
        case export
        /// Leave the environment as it is (a library's host owns it), and refuse a bus GLib
        /// would not find without autolaunching one.
        case asGLibFindsIt
    }

    /// Makes sure GLib connects to this bus, or to none: GLib reads
    /// `DBUS_SESSION_BUS_ADDRESS`, else looks for `$XDG_RUNTIME_DIR/bus`, else autolaunches
    /// a bus (with `DISPLAY` set, running `dbus-launch`).
    package func handOver(_ handover: Handover) throws(KeyIDError) {
        let variable = SystemVariable.sessionBus.rawValue
        switch handover {
        case .export:
            POSIX.setEnvironment(variable, address)
        case .asGLibFindsIt:
            // The environment as it is now, when GLib looks (a value that is not UTF-8 is no value).
            let environment = ProcessEnvironment.current()
            if let set = (try? environment.value(.sessionBus)) ?? nil, !set.isEmpty {
                guard !Self.autolaunches(set) else { throw Self.refusingAutolaunch(set) }
                return
            }
            if let runtime = (try? environment.absolutePath(.runtimeDirectory)) ?? nil,
                access(runtime + "/bus", F_OK) == 0
            {
                return
            }
            throw .unavailable(
                .noBus(
                    "\(variable) and XDG_RUNTIME_DIR name no bus, so GLib would start one; set \(variable)=\(DisplayText.escaped(address))"
                ))
        }
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
        address.split(separator: ";").contains { $0.hasPrefix("autolaunch:") }
    }
}
