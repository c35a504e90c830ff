import Glibc

/// The open directory of the file backend, and the atomic way its files are written.
///
/// Every write goes to a 0600 temporary file in the same directory (`.keyid-<random>.tmp`),
/// which is written, synced and renamed over the item's file (or hard-linked to it, for a
/// new item, so that an existing one is never replaced); then the directory is synced. A
/// reader sees the old file or the new one, never a mix, whenever the writer is killed.
/// Temporary files left by killed writers are ignored, and removed by later writes once a
/// minute old.
struct ItemDirectory {
    /// The directory's descriptor; its owner, ``FileStore``, closes it.
    let descriptor: Int32
    /// The directory's path, for handles and messages.
    let path: String

    /// The largest file read whole; a larger one is damaged and read as its first bytes.
    static let maximumFileSize = 65_536
    /// How old a temporary file must be before a write removes it as a killed writer's.
    static let staleTemporaryAge: UInt64 = 60
    private static let temporaryPrefix = ".keyid-"
    private static let temporarySuffix = ".tmp"

    /// A file's first ``maximumFileSize`` bytes and mtime, or `nil` when it does not exist.
    /// Symbolic links, other kinds of file and files of other users are refused.
    func read(_ name: String) throws(SystemFailure) -> (bytes: [UInt8], mtime: UInt64)? {
        let file = path + "/" + name
        let fileDescriptor: Int32
        do throws(SystemCallError) {
            fileDescriptor = try POSIX.call("openat") {
                openat(descriptor, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
            }
        } catch {
            if error.errno == ENOENT { return nil }
            if error.errno == ELOOP { throw Self.failure("the ID file \(file) is a symbolic link; remove it", error) }
            throw Self.failure("cannot open the ID file \(file): \(error)", error)
        }
        defer { close(fileDescriptor) }
        var info = stat()
        try attempt("cannot inspect the ID file \(file)") { () throws(SystemCallError) in
            try POSIX.call("fstat") { fstat(fileDescriptor, &info) }
        }
        if info.st_mode & S_IFMT != S_IFREG {
            throw Self.failure("the ID file \(file) is not a plain file; remove it")
        }
        if info.st_uid != geteuid() {
            throw Self.failure("the ID file \(file) belongs to user \(info.st_uid), not to you; remove it")
        }
        let bytes = try attempt("cannot read the ID file \(file)") { () throws(SystemCallError) in
            try POSIX.readAll(fileDescriptor, limit: Self.maximumFileSize)
        }
        return (Array(bytes.prefix(Self.maximumFileSize)), UInt64(max(0, info.st_mtim.tv_sec)))
    }

    /// Writes `bytes` to a temporary file, syncs it, moves it to `name` and syncs the
    /// directory. With `taken`, a new file: an existing one is left alone and `taken` thrown;
    /// without, the file is replaced.
    func write(_ bytes: [UInt8], to name: String, unlessTaken taken: KeyIDError?) throws(SystemFailure) {
        let (temporary, fileDescriptor) = try createTemporary()
        var closed = false
        var done = false
        defer {
            if !closed { close(fileDescriptor) }
            if !done { unlinkat(descriptor, temporary, 0) }
        }
        try attempt("cannot write \(path)/\(temporary)") { () throws(SystemCallError) in
            try POSIX.writeAll(fileDescriptor, bytes)
        }
        try attempt("cannot sync \(path)/\(temporary)") { () throws(SystemCallError) in
            try POSIX.call("fsync") { fsync(fileDescriptor) }
        }
        closed = true
        try attempt("cannot write \(path)/\(temporary)") { () throws(SystemCallError) in
            try POSIX.call("close", retryingOnInterrupt: false) { close(fileDescriptor) }
        }
        if let taken {
            try moveWithoutReplacing(temporary, to: name, taken: taken)
        } else {
            try attempt("cannot replace \(path)/\(name)") { () throws(SystemCallError) in
                try POSIX.call("renameat") { renameat(descriptor, temporary, descriptor, name) }
            }
        }
        done = true
        try sync()
    }

    /// Removes a file; a missing one is not an error.
    func remove(_ name: String) throws(SystemFailure) {
        do throws(SystemCallError) {
            try POSIX.call("unlinkat") { unlinkat(descriptor, name, 0) }
        } catch {
            if error.errno != ENOENT { throw Self.failure("cannot remove \(path)/\(name): \(error)", error) }
        }
        try sync()
    }

    /// Gives the temporary file the item's name unless that name is taken. A hard link
    /// fails atomically when it is; where hard links are not supported, the caller's lock
    /// is what keeps the check and the rename together.
    private func moveWithoutReplacing(_ temporary: String, to name: String, taken: KeyIDError) throws(SystemFailure) {
        var failure: SystemCallError
        do throws(SystemCallError) {
            try POSIX.call("linkat") { linkat(descriptor, temporary, descriptor, name, 0) }
            unlinkat(descriptor, temporary, 0)
            return
        } catch {
            failure = error
        }
        if failure.errno == EPERM || failure.errno == EOPNOTSUPP || failure.errno == EMLINK {
            var info = stat()
            if fstatat(descriptor, name, &info, AT_SYMLINK_NOFOLLOW) == 0 {
                failure = SystemCallError("linkat", errno: EEXIST)
            } else {
                do throws(SystemCallError) {
                    try POSIX.call("renameat") { renameat(descriptor, temporary, descriptor, name) }
                    return
                } catch {
                    failure = error
                }
            }
        }
        if failure.errno == EEXIST { throw SystemFailure(taken, systemCall: failure) }
        throw Self.failure("cannot create \(path)/\(name): \(failure)", failure)
    }

    /// Creates `.keyid-<random>.tmp`, mode 0600, and opens it for writing.
    private func createTemporary() throws(SystemFailure) -> (String, Int32) {
        var generator = SystemRandomNumberGenerator()
        var failure = SystemCallError("openat", errno: EEXIST)
        for _ in 0..<8 {
            let name =
                Self.temporaryPrefix + Hex.string(withUnsafeBytes(of: generator.next() as UInt64) { Array($0) })
                + Self.temporarySuffix
            do throws(SystemCallError) {
                let fileDescriptor = try POSIX.call("openat") {
                    openat(descriptor, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC, 0o600)
                }
                fchmod(fileDescriptor, 0o600)
                return (name, fileDescriptor)
            } catch {
                failure = error
                if error.errno != EEXIST { break }
            }
        }
        throw Self.failure("cannot create a temporary file in \(path): \(failure)", failure)
    }

    /// Removes temporary files that killed writers left behind; failures are harmless.
    func removeStaleTemporaries(now: UInt64) {
        guard let names = try? entryNames() else { return }
        for name in names where name.hasPrefix(Self.temporaryPrefix) && name.hasSuffix(Self.temporarySuffix) {
            var info = stat()
            guard fstatat(descriptor, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { continue }
            if UInt64(max(0, info.st_mtim.tv_sec)) + Self.staleTemporaryAge <= now {
                unlinkat(descriptor, name, 0)
            }
        }
    }

    /// The names in the directory, without `.` and `..`.
    func entryNames() throws(SystemFailure) -> [String] {
        // A descriptor of its own: readdir moves the offset, which a dup would share.
        let stream = try attempt("cannot list \(path)") { () throws(SystemCallError) in
            let listing = try POSIX.call("openat") { openat(descriptor, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
            guard let stream = fdopendir(listing) else {
                let failure = SystemCallError.last("fdopendir")
                close(listing)
                throw failure
            }
            return stream
        }
        defer { closedir(stream) }
        var names: [String] = []
        while true {
            let next = try attempt("cannot list \(path)") { () throws(SystemCallError) in try POSIX.nextEntry(stream) }
            guard let entry = next else { return names }
            let name = withUnsafeBytes(of: &entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name != ".", name != ".." { names.append(name) }
        }
    }

    private func sync() throws(SystemFailure) {
        try attempt("cannot sync \(path)") { () throws(SystemCallError) in
            try POSIX.call("fsync") { fsync(descriptor) }
        }
    }

    /// `body`'s result; its failure as the file backend's, "`what`: <the C library's text>".
    @discardableResult
    private func attempt<T>(_ what: String, _ body: () throws(SystemCallError) -> T) throws(SystemFailure) -> T {
        do {
            return try body()
        } catch {
            throw Self.failure("\(what): \(error)", error)
        }
    }

    /// A refusal, or the failed call `systemCall`, as the file backend's failure.
    static func failure(_ message: String, _ systemCall: SystemCallError? = nil) -> SystemFailure {
        SystemFailure(.fileBackend(message), systemCall: systemCall)
    }
}
