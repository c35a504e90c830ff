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
    func read(_ name: String) throws(KeyIDError) -> (bytes: [UInt8], mtime: UInt64)? {
        let file = path + "/" + name
        let fileDescriptor = POSIX.retrying {
            openat(descriptor, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
        }
        guard fileDescriptor >= 0 else {
            let code = errno
            if code == ENOENT { return nil }
            if code == ELOOP { throw .fileBackend("the ID file \(file) is a symbolic link; remove it") }
            throw .fileBackend("cannot open the ID file \(file): \(POSIX.message(code))")
        }
        defer { close(fileDescriptor) }
        var info = stat()
        guard fstat(fileDescriptor, &info) == 0 else {
            throw .fileBackend("cannot inspect the ID file \(file): \(POSIX.message(errno))")
        }
        if info.st_mode & S_IFMT != S_IFREG {
            throw .fileBackend("the ID file \(file) is not a plain file; remove it")
        }
        if info.st_uid != geteuid() {
            throw .fileBackend("the ID file \(file) belongs to user \(info.st_uid), not to you; remove it")
        }
        guard let bytes = POSIX.readAll(fileDescriptor, limit: Self.maximumFileSize) else {
            throw .fileBackend("cannot read the ID file \(file): \(POSIX.message(errno))")
        }
        return (Array(bytes.prefix(Self.maximumFileSize)), UInt64(max(0, info.st_mtim.tv_sec)))
    }

    /// Writes `bytes` to a temporary file, syncs it, moves it to `name` and syncs the
    /// directory. With `taken`, a new file: an existing one is left alone and `taken` thrown;
    /// without, the file is replaced.
    func write(_ bytes: [UInt8], to name: String, unlessTaken taken: KeyIDError?) throws(KeyIDError) {
        let (temporary, fileDescriptor) = try createTemporary()
        var closed = false
        var done = false
        defer {
            if !closed { close(fileDescriptor) }
            if !done { unlinkat(descriptor, temporary, 0) }
        }
        let code = POSIX.writeAll(fileDescriptor, bytes)
        guard code == 0 else {
            throw .fileBackend("cannot write \(path)/\(temporary): \(POSIX.message(code))")
        }
        guard fsync(fileDescriptor) == 0 else {
            throw .fileBackend("cannot sync \(path)/\(temporary): \(POSIX.message(errno))")
        }
        closed = true
        guard close(fileDescriptor) == 0 else {
            throw .fileBackend("cannot write \(path)/\(temporary): \(POSIX.message(errno))")
        }
        if let taken {
            try moveWithoutReplacing(temporary, to: name, taken: taken)
        } else {
            guard renameat(descriptor, temporary, descriptor, name) == 0 else {
                throw .fileBackend("cannot replace \(path)/\(name): \(POSIX.message(errno))")
            }
        }
        done = true
        try sync()
    }

    /// Removes a file; a missing one is not an error.
    func remove(_ name: String) throws(KeyIDError) {
        if unlinkat(descriptor, name, 0) != 0, errno != ENOENT {
            throw .fileBackend("cannot remove \(path)/\(name): \(POSIX.message(errno))")
        }
        try sync()
    }

    /// Gives the temporary file the item's name unless that name is taken. A hard link
    /// fails atomically when it is; where hard links are not supported, the caller's lock
    /// is what keeps the check and the rename together.
    private func moveWithoutReplacing(_ temporary: String, to name: String, taken: KeyIDError) throws(KeyIDError) {
        if linkat(descriptor, temporary, descriptor, name, 0) == 0 {
            unlinkat(descriptor, temporary, 0)
            return
        }
        var code = errno
        if code == EPERM || code == EOPNOTSUPP || code == EMLINK {
            var info = stat()
            if fstatat(descriptor, name, &info, AT_SYMLINK_NOFOLLOW) == 0 {
                code = EEXIST
            } else if renameat(descriptor, temporary, descriptor, name) == 0 {
                return
            } else {
                code = errno
            }
        }
        if code == EEXIST { throw taken }
        throw .fileBackend("cannot create \(path)/\(name): \(POSIX.message(code))")
    }

    /// Creates `.keyid-<random>.tmp`, mode 0600, and opens it for writing.
    private func createTemporary() throws(KeyIDError) -> (String, Int32) {
        var generator = SystemRandomNumberGenerator()
        var code: Int32 = EEXIST
        for _ in 0..<8 {
            let name =
                Self.temporaryPrefix + Hex.string(withUnsafeBytes(of: generator.next() as UInt64) { Array($0) })
                + Self.temporarySuffix
            let fileDescriptor = POSIX.retrying {
                openat(descriptor, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC, 0o600)
            }
            if fileDescriptor >= 0 {
                fchmod(fileDescriptor, 0o600)
                return (name, fileDescriptor)
            }
            code = errno
            if code != EEXIST { break }
        }
        throw .fileBackend("cannot create a temporary file in \(path): \(POSIX.message(code))")
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
    func entryNames() throws(KeyIDError) -> [String] {
        // A descriptor of its own: readdir moves the offset, which a dup would share.
        let listing = POSIX.retrying { openat(descriptor, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        guard listing >= 0, let stream = fdopendir(listing) else {
            let code = errno
            if listing >= 0 { close(listing) }
            throw .fileBackend("cannot list \(path): \(POSIX.message(code))")
        }
        defer { closedir(stream) }
        var names: [String] = []
        while true {
            errno = 0
            guard let entry = readdir(stream) else {
                if errno != 0 { throw .fileBackend("cannot list \(path): \(POSIX.message(errno))") }
                return names
            }
            let name = withUnsafeBytes(of: &entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name != ".", name != ".." { names.append(name) }
        }
    }

    private func sync() throws(KeyIDError) {
        guard fsync(descriptor) == 0 else {
            throw .fileBackend("cannot sync \(path): \(POSIX.message(errno))")
        }
    }
}
