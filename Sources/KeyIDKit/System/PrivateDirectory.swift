import Glibc

/// A directory only its owner may use, such as the lock directory or the file backend's ID
/// directory: not a symbolic link, owned by the user, closed to group and others, in a
/// parent that belongs to the user or to root (whoever owns the parent could replace the
/// directory, and with it what is inside).
struct PrivateDirectory: Sendable {
    /// The directory's absolute path.
    let path: String
    /// What the directory is, for messages: "lock directory", "ID directory".
    let role: String
    /// What to do when the parent belongs to someone else, for messages.
    let parentAdvice: String
    /// The outcome a refusal or a failed call becomes.
    let failure: @Sendable (String) -> KeyIDError

    /// The directory `path` is in: "/" for a top-level one, "." for a bare name.
    var parent: String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    private var name: String {
        path.lastIndex(of: "/").map { String(path[path.index(after: $0)...]) } ?? path
    }

    /// Opens the directory after checking it and its parent; returns its descriptor, which
    /// the caller closes, or `nil` when the directory or its parent does not exist.
    func openExisting() throws(KeyIDError) -> Int32? {
        guard let parentDescriptor = try openParent() else { return nil }
        defer { close(parentDescriptor) }
        return try openChecked(in: parentDescriptor)
    }

    /// Opens the directory after checking it and its parent, creating it (mode 0700) when
    /// missing, and its parent with `makeParent` when that is missing too; returns its
    /// descriptor, which the caller closes.
    func openCreating(makeParent: (String) throws(KeyIDError) -> Void) throws(KeyIDError) -> Int32 {
        var parentDescriptor = try openParent()
        if parentDescriptor == nil {
            try makeParent(parent)
            parentDescriptor = try openParent()
        }
        guard let parentDescriptor else {
            throw failure("cannot open \(parent) for the \(role): \(POSIX.message(ENOENT))")
        }
        defer { close(parentDescriptor) }
        if let descriptor = try openChecked(in: parentDescriptor) { return descriptor }
        if mkdirat(parentDescriptor, name, 0o700) != 0, errno != EEXIST {
            throw failure("cannot create the \(role) \(path): \(POSIX.message(errno))")
        }
        guard let descriptor = try openChecked(in: parentDescriptor) else {
            throw failure("cannot open the \(role) \(path): \(POSIX.message(ENOENT))")
        }
        return descriptor
    }

    /// Checks, creating nothing, what ``openCreating(makeParent:)`` would check; returns
    /// what it found, or throws what it would throw.
    func inspect() throws(KeyIDError) -> String {
        guard let parentDescriptor = try openParent() else { return "\(path) will be created (with \(parent))" }
        defer { close(parentDescriptor) }
        guard let descriptor = try openChecked(in: parentDescriptor) else {
            guard faccessat(parentDescriptor, ".", W_OK, AT_EACCESS) == 0 else {
                throw failure("cannot create the \(role) in \(parent): \(POSIX.message(errno))")
            }
            return "\(path) will be created"
        }
        close(descriptor)
        return path
    }

    /// The parent's descriptor after checking its owner; `nil` when it does not exist.
    private func openParent() throws(KeyIDError) -> Int32? {
        let descriptor = POSIX.retrying { open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        guard descriptor >= 0 else {
            if errno == ENOENT { return nil }
            throw failure("cannot open \(parent) for the \(role): \(POSIX.message(errno))")
        }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            let code = errno
            close(descriptor)
            throw failure("cannot inspect \(parent): \(POSIX.message(code))")
        }
        if info.st_uid != geteuid(), info.st_uid != 0 {
            close(descriptor)
            throw failure("\(parent) belongs to user \(info.st_uid), not to you; \(parentAdvice)")
        }
        return descriptor
    }

    /// The directory's descriptor after checking it; `nil` when it is missing.
    private func openChecked(in parentDescriptor: Int32) throws(KeyIDError) -> Int32? {
        let descriptor = POSIX.retrying {
            openat(parentDescriptor, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        }
        guard descriptor >= 0 else {
            let code = errno
            if code == ENOENT { return nil }
            if code == ELOOP || code == ENOTDIR {
                throw failure("the \(role) \(path) is not a directory (or is a symbolic link); remove it")
            }
            throw failure("cannot open the \(role) \(path): \(POSIX.message(code))")
        }
        var info = stat()
        var problem: String?
        if fstat(descriptor, &info) != 0 {
            problem = "cannot inspect the \(role) \(path): \(POSIX.message(errno))"
        } else if info.st_uid != geteuid() {
            problem = "the \(role) \(path) belongs to user \(info.st_uid), not to you; remove it"
        } else if info.st_mode & 0o077 != 0 {
            problem =
                "the \(role) \(path) is open to other users (mode \(String(info.st_mode & 0o777, radix: 8))); run 'chmod 700 \(path)'"
        }
        if let problem {
            close(descriptor)
            throw failure(problem)
        }
        return descriptor
    }
}
