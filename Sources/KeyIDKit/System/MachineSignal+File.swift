extension MachineSignal {
    /// The signal's value as its file holds it now (``path``, unless `path` names another);
    /// `nil` when the file cannot be read (it is missing, or readable by root only) or holds no
    /// usable value. The machine ID is read by ``MachineID/read(from:)``.
    package func read(from path: String? = nil) -> [UInt8]? {
        guard let text = try? POSIX.readFile(path ?? self.path, limit: 256), text.count <= 256 else { return nil }
        return value(of: text)
    }
}
