import Glibc

/// An exclusive advisory lock (`flock`) on keyid's lock file, held from acquisition until
/// the owner is released. It serialises keyid's own read-modify-write sequences, so that
/// concurrent `get --create` runs agree on one ID.
public final class LockFile {
    /// The lock file's path.
    public let path: String
    private let descriptor: Int32

    private init(path: String, descriptor: Int32) {
        self.path = path
        self.descriptor = descriptor
    }

    deinit {
        close(descriptor)
    }

    /// The directory keyid keeps its lock in: `$XDG_RUNTIME_DIR/keyid`, else
    /// `$XDG_CACHE_HOME/keyid`, else `$HOME/.cache/keyid`.
    public static func directory(in environment: ProcessEnvironment) throws(KeyIDError) -> String {
        if let runtime = try environment.value("XDG_RUNTIME_DIR"), runtime.hasPrefix("/") {
            return runtime + "/keyid"
        }
        if let cache = try environment.value("XDG_CACHE_HOME"), cache.hasPrefix("/") {
            return cache + "/keyid"
        }
        if let home = try environment.value("HOME"), home.hasPrefix("/") {
            return home + "/.cache/keyid"
        }
        throw .lockFile("cannot place the lock file: set XDG_RUNTIME_DIR or HOME to an absolute path")
    }

    /// Creates (if needed) the 0700 directory and the 0600 file `lock` inside it, refusing
    /// symbolic links and anything owned by another user, then waits for the lock. The
    /// directory's parent must belong to the user or to root: whoever owns it could replace
    /// the directory, and with it the lock.
    public static func acquire(in directory: String) throws(KeyIDError) -> LockFile {
        let checked = PrivateDirectory(
            path: directory, role: "lock directory",
            parentAdvice: "point XDG_RUNTIME_DIR at your own runtime directory")
        guard
            let directoryDescriptor = try checked.open(createParent: { parent throws(KeyIDError) in
                if mkdir(parent, 0o700) != 0, errno != EEXIST {
                    throw .lockFile("cannot create \(parent): \(describe(errno))")
                }
            })
        else {
            throw .lockFile("cannot create the lock directory \(directory)")
        }
        defer { close(directoryDescriptor) }
        var info = stat()
        let path = directory + "/lock"
        let descriptor = openat(
            directoryDescriptor, "lock", O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0o600)
        guard descriptor >= 0 else {
            let code = errno
            if code == ELOOP {
                throw .lockFile("the lock file \(path) is a symbolic link; remove it")
            }
            throw .lockFile("cannot open the lock file \(path): \(describe(code))")
        }
        let lock = LockFile(path: path, descriptor: descriptor)
        guard fstat(descriptor, &info) == 0 else {
            throw .lockFile("cannot inspect the lock file \(path): \(describe(errno))")
        }
        if info.st_mode & S_IFMT != S_IFREG || info.st_nlink != 1 {
            throw .lockFile("the lock file \(path) is not a plain file; remove it")
        }
        if info.st_uid != geteuid() {
            throw .lockFile("the lock file \(path) belongs to user \(info.st_uid), not to you; remove it")
        }
        while flock(descriptor, LOCK_EX) != 0 {
            guard errno == EINTR else {
                throw .lockFile("cannot lock \(path): \(describe(errno))")
            }
        }
        return lock
    }

    /// Checks, without creating or locking anything, that ``acquire(in:)`` would accept
    /// `directory`; returns what it found, or throws what `acquire` would throw.
    public static func inspect(_ directory: String) throws(KeyIDError) -> String {
        var info = stat()
        if lstat(directory, &info) != 0 {
            guard errno == ENOENT else {
                throw .lockFile("cannot inspect the lock directory \(directory): \(describe(errno))")
            }
            let parent = PrivateDirectory(path: directory, role: "", parentAdvice: "").parent
            guard stat(parent, &info) == 0 else {
                return "\(directory) will be created (with \(parent))"
            }
            if info.st_mode & S_IFMT != S_IFDIR {
                throw .lockFile("\(parent) is not a directory; point XDG_RUNTIME_DIR at your runtime directory")
            }
            if info.st_uid != geteuid(), info.st_uid != 0 {
                throw .lockFile("\(parent) belongs to user \(info.st_uid), not to you")
            }
            guard access(parent, W_OK) == 0 else {
                throw .lockFile("cannot create the lock directory in \(parent): \(describe(errno))")
            }
            return "\(directory) will be created"
        }
        if info.st_mode & S_IFMT != S_IFDIR {
            throw .lockFile("the lock directory \(directory) is not a directory (or is a symbolic link); remove it")
        }
        if info.st_uid != geteuid() {
            throw .lockFile("the lock directory \(directory) belongs to user \(info.st_uid), not to you; remove it")
        }
        if info.st_mode & 0o077 != 0 {
            throw .lockFile("the lock directory \(directory) is open to other users; run 'chmod 700 \(directory)'")
        }
        let path = directory + "/lock"
        if lstat(path, &info) == 0 {
            if info.st_mode & S_IFMT != S_IFREG {
                throw .lockFile("the lock file \(path) is not a plain file (or is a symbolic link); remove it")
            }
            if info.st_uid != geteuid() {
                throw .lockFile("the lock file \(path) belongs to user \(info.st_uid), not to you; remove it")
            }
        }
        return directory
    }

    static func describe(_ code: Int32) -> String {
        guard let text = strerror(code) else { return "error \(code)" }
        return String(cString: text)
    }
}
