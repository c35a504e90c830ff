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

    /// A refusal, or the failed call `systemCall`, as this directory reports it.
    func refusal(_ message: String, _ systemCall: SystemCallError? = nil) -> SystemFailure {
        SystemFailure(failure(message), systemCall: systemCall)
    }

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
    func openExisting() throws(SystemFailure) -> Int32? {
        guard let parentDescriptor = try openParent() else { return nil }
        defer { close(parentDescriptor) }
        return try openChecked(in: parentDescriptor)
    }

    /// Opens the directory after checking it and its parent, creating it (mode 0700) when
    /// missing, and its parent with `makeParent` when that is missing too; returns its
    /// descriptor, which the caller closes.
    func openCreating(makeParent: (String) throws(SystemFailure) -> Void) throws(SystemFailure) -> Int32 {
        var parentDescriptor = try openParent()
        if parentDescriptor == nil {
            try makeParent(parent)
            parentDescriptor = try openParent()
        }
        guard let parentDescriptor else {
            let missing = SystemCallError("open", errno: ENOENT)
            throw refusal("cannot open \(parent) for the \(role): \(missing)", missing)
        }
        defer { close(parentDescriptor) }
        if let descriptor = try openChecked(in: parentDescriptor) { return descriptor }
        do throws(SystemCallError) {
            try POSIX.call("mkdirat") { mkdirat(parentDescriptor, name, 0o700) }
        } catch {
            if error.errno != EEXIST { throw refusal("cannot create the \(role) \(path): \(error)", error) }
        }
        guard let descriptor = try openChecked(in: parentDescriptor) else {
            let missing = SystemCallError("openat", errno: ENOENT)
            throw refusal("cannot open the \(role) \(path): \(missing)", missing)
        }
        return descriptor
    }

    /// Checks, creating nothing, what ``openCreating(makeParent:)`` would check; returns
    /// what it found, or throws what it would throw.
    func inspect() throws(SystemFailure) -> String {
        guard let parentDescriptor = try openParent() else { return "\(path) will be created (with \(parent))" }
        defer { close(parentDescriptor) }
        guard let descriptor = try openChecked(in: parentDescriptor) else {
            do throws(SystemCallError) {
                try POSIX.call("faccessat") { faccessat(parentDescriptor, ".", W_OK, AT_EACCESS) }
            } catch {
                throw refusal("cannot create the \(role) in \(parent): \(error)", error)
            }
            return "\(path) will be created"
        }
        close(descriptor)
        return path
    }

    /// The parent's descriptor after checking its owner; `nil` when it does not exist.
    private func openParent() throws(SystemFailure) -> Int32? {
        let descriptor: Int32
        do throws(SystemCallError) {
            descriptor = try POSIX.call("open") { open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        } catch {
            if error.errno == ENOENT { return nil }
            throw refusal("cannot open \(parent) for the \(role): \(error)", error)
        }
        var info = stat()
        do throws(SystemCallError) {
            try POSIX.call("fstat") { fstat(descriptor, &info) }
        } catch {
            close(descriptor)
            throw refusal("cannot inspect \(parent): \(error)", error)
        }
        if info.st_uid != geteuid(), info.st_uid != 0 {
            close(descriptor)
            throw refusal("\(parent) belongs to user \(info.st_uid), not to you; \(parentAdvice)")
        }
        return descriptor
    }

    /// The directory's descriptor after checking it; `nil` when it is missing.
    private func openChecked(in parentDescriptor: Int32) throws(SystemFailure) -> Int32? {
        let descriptor: Int32
        do throws(SystemCallError) {
            descriptor = try POSIX.call("openat") {
                openat(parentDescriptor, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            }
        } catch {
            if error.errno == ENOENT { return nil }
            if error.errno == ELOOP || error.errno == ENOTDIR {
                throw refusal("the \(role) \(path) is not a directory (or is a symbolic link); remove it", error)
            }
            throw refusal("cannot open the \(role) \(path): \(error)", error)
        }
        var info = stat()
        var problem: SystemFailure?
        do throws(SystemCallError) {
            try POSIX.call("fstat") { fstat(descriptor, &info) }
            if info.st_uid != geteuid() {
                problem = refusal("the \(role) \(path) belongs to user \(info.st_uid), not to you; remove it")
            } else if info.st_mode & 0o077 != 0 {
                problem = refusal(
                    "the \(role) \(path) is open to other users (mode \(String(info.st_mode & 0o777, radix: 8))); run 'chmod 700 \(path)'"
                )
            }
        } catch {
            problem = refusal("cannot inspect the \(role) \(path): \(error)", error)
        }
        if let problem {
            close(descriptor)
            throw problem
        }
        return descriptor
    }
}
