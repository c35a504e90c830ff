import Glibc

/// A directory only its owner may use, such as the lock directory or the file backend's ID
/// directory: not a symbolic link, owned by the user, closed to group and others, in a
/// parent that belongs to the user or to root (whoever owns the parent could replace the
/// directory, and with it what is inside).
struct PrivateDirectory {
    /// The directory's absolute path.
    let path: String
    /// What the directory is, for messages: "lock directory", "ID directory".
    let role: String
    /// What to do when the parent belongs to someone else, for messages.
    let parentAdvice: String

    /// The directory `path` is in: "/" for a top-level one, "." for a bare name.
    var parent: String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    private var name: String {
        path.lastIndex(of: "/").map { String(path[path.index(after: $0)...]) } ?? path
    }

    /// Opens the directory after checking it and its parent; returns its descriptor, which
    /// the caller closes. When the parent or the directory is missing: with
    /// `createParent`, that makes the parent and the directory is made 0700; without it,
    /// returns nil.
    func open(createParent: ((String) throws(KeyIDError) -> Void)?) throws(KeyIDError) -> Int32? {
        let parent = self.parent
        var parentDescriptor = Glibc.open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if parentDescriptor < 0, errno == ENOENT {
            guard let createParent else { return nil }
            try createParent(parent)
            parentDescriptor = Glibc.open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        }
        guard parentDescriptor >= 0 else {
            throw .lockFile("cannot open \(parent) for the \(role): \(LockFile.describe(errno))")
        }
        defer { close(parentDescriptor) }
        var info = stat()
        guard fstat(parentDescriptor, &info) == 0 else {
            throw .lockFile("cannot inspect \(parent): \(LockFile.describe(errno))")
        }
        if info.st_uid != geteuid(), info.st_uid != 0 {
            throw .lockFile("\(parent) belongs to user \(info.st_uid), not to you; \(parentAdvice)")
        }
        let flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC
        var descriptor = openat(parentDescriptor, name, flags)
        if descriptor < 0, errno == ENOENT {
            guard createParent != nil else { return nil }
            if mkdirat(parentDescriptor, name, 0o700) != 0, errno != EEXIST {
                throw .lockFile("cannot create the \(role) \(path): \(LockFile.describe(errno))")
            }
            descriptor = openat(parentDescriptor, name, flags)
        }
        guard descriptor >= 0 else {
            let code = errno
            if code == ELOOP || code == ENOTDIR {
                throw .lockFile("the \(role) \(path) is not a directory (or is a symbolic link); remove it")
            }
            throw .lockFile("cannot open the \(role) \(path): \(LockFile.describe(code))")
        }
        do throws(KeyIDError) {
            guard fstat(descriptor, &info) == 0 else {
                throw .lockFile("cannot inspect the \(role) \(path): \(LockFile.describe(errno))")
            }
            if info.st_uid != geteuid() {
                throw .lockFile("the \(role) \(path) belongs to user \(info.st_uid), not to you; remove it")
            }
            if info.st_mode & 0o077 != 0 {
                throw .lockFile(
                    "the \(role) \(path) is open to other users (mode \(String(info.st_mode & 0o777, radix: 8))); run 'chmod 700 \(path)'"
                )
            }
        } catch {
            close(descriptor)
            throw error
        }
        return descriptor
    }
}
