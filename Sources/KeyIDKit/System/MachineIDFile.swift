extension MachineID {
    /// Reads the machine ID from a file such as `/etc/machine-id`.
    package static func read(from path: String) throws(KeyIDError) -> MachineID {
        switch POSIX.readFile(path, limit: 64) {
        case .failure(let error):
            throw .machineID("cannot read the machine ID from \(path): \(error.message)")
        case .success(let text):
            guard let id = MachineID(text: text) else {
                throw .machineID("\(path) does not hold a machine ID (32 hex digits)")
            }
            return id
        }
    }
}
