extension MachineID {
    /// Reads the machine ID from a file such as `/etc/machine-id`.
    package static func read(from path: String) throws(SystemFailure) -> MachineID {
        let text: [UInt8]
        do throws(SystemCallError) {
            text = try POSIX.readFile(path, limit: 64)
        } catch {
            throw SystemFailure(.machineID("cannot read the machine ID from \(path): \(error)"), systemCall: error)
        }
        guard let id = MachineID(text: text) else {
            throw SystemFailure(.machineID("\(path) does not hold a machine ID (32 hex digits)"))
        }
        return id
    }
}

extension MachineSignal {
    /// The signal's value as its file holds it now (``path``, unless `path` names another);
    /// `nil` when the file cannot be read (it is missing, or readable by root only) or holds no
    /// usable value. The machine ID is read by ``MachineID/read(from:)``.
    package func read(from path: String? = nil) -> [UInt8]? {
        guard let text = try? POSIX.readFile(path ?? self.path, limit: 256), text.count <= 256 else { return nil }
        return value(of: text)
    }
}

/// The machine as its files say: the machine ID from the file ``Machine/machineID(at:)`` is
/// given, the other signals from their own files (``MachineSignal/path``).
package struct SystemMachine: Machine {
    package init() {}

    package func machineID(at path: String) throws(KeyIDError) -> MachineID {
        try SystemFailure.reported { () throws(SystemFailure) in try MachineID.read(from: path) }
    }

    package func value(of signal: MachineSignal) -> [UInt8]? { signal.read() }
}
