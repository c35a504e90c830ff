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
