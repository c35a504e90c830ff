import Glibc
import Synchronization

/// A mutual-exclusion lock on `pthread_mutex_t` (doc/RELIABILITY.md says why not `Mutex`) that
/// survives `fork`: the library's calls take turns through it.
///
/// A child made by `fork` has only the thread that forked: a mutex another thread held at that
/// moment would stay locked there for good. So the lock knows the process its mutex belongs to,
/// and its first use in another one (a child) makes a new mutex, after `renewing` has made what
/// it guards anew; what the fork found is kept, never released (a thread of the parent may have
/// been changing it). Not generic: the owner keeps what the lock guards, so that no generic
/// type's metadata is built for it at run time.
package final class ProcessMutex: @unchecked Sendable {
    private var mutex = ProcessMutex.newMutex()
    /// The process the mutex belongs to; its negation while a thread of that process is making
    /// the mutex anew.
    private let process = Atomic<pid_t>(getpid())

    package init() {}

    deinit {
        pthread_mutex_destroy(mutex)  // EBUSY, and nothing done, when another process's thread holds it
        mutex.deallocate()
    }

    private static func newMutex() -> UnsafeMutablePointer<pthread_mutex_t> {
        let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
        return mutex
    }

    /// Runs `body` while no other thread can; in a child made by fork, `renewing` runs first,
    /// once, by the first of its threads here, while the others wait for it.
    package func withLock<T, E: Error>(renewing: () -> Void = {}, _ body: () throws(E) -> T) throws(E) -> T {
        let current = getpid()
        if process.load(ordering: .acquiring) != current { moveIn(current, renewing) }
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// Makes the lock this process's (`current`, a child made by fork).
    private func moveIn(_ current: pid_t, _ renewing: () -> Void) {
        while true {
            let found = process.load(ordering: .acquiring)
            if found == current { return }
            if found == -current {
                sched_yield()
                continue
            }
            guard process.compareExchange(expected: found, desired: -current, ordering: .acquiring).exchanged else {
                continue
            }
            mutex = Self.newMutex()  // the old one is left as the fork found it
            renewing()
            process.store(current, ordering: .releasing)
            return
        }
    }
}

/// A ``ProcessMutex`` over a value: a child made by fork starts from `renewedAfterFork`'s value
/// when given (and the value the fork found is kept, never released).
package final class ThreadLock<Value>: @unchecked Sendable {
    private let mutex = ProcessMutex()
    private var value: Value
    private let renewedAfterFork: ((Value) -> Value)?

    package init(_ value: Value, renewedAfterFork: ((Value) -> Value)? = nil) {
        self.value = value
        self.renewedAfterFork = renewedAfterFork
    }

    /// Runs `body` with the value, while no other thread can.
    package func withLock<T, E: Error>(_ body: (inout Value) throws(E) -> T) throws(E) -> T {
        try mutex.withLock(renewing: renew) { () throws(E) -> T in try body(&value) }
    }

    private func renew() {
        guard let renewedAfterFork else { return }
        value = renewedAfterFork(ProcessMutex.keptForever(value))
    }
}

extension ProcessMutex {
    /// `value`, copied into memory that is never released: what a fork found stays as it was.
    package static func keptForever<Value>(_ value: Value) -> Value {
        let found = UnsafeMutablePointer<Value>.allocate(capacity: 1)
        found.initialize(to: value)
        return found.pointee
    }
}

/// An exclusive advisory lock (`flock`) on keyid's lock file, held from acquisition until
/// the owner is released. It serialises keyid's own read-modify-write sequences, so that
/// concurrent `get --create` runs agree on one ID.
package final class LockFile {
    /// The lock file's path.
    package let path: String
    private let descriptor: Int32

    private init(path: String, descriptor: Int32) {
        self.path = path
        self.descriptor = descriptor
    }

    deinit {
        // The lock belongs to the open file description, which a child made by fork while it
        // was held shares: closing this descriptor alone would leave it held until the child
        // closes its copy, or exits.
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }

    /// The directory keyid keeps its lock in: `<runtime directory>/keyid`, else
    /// `<cache home>/keyid`, else `<home>/.cache/keyid` (the XDG base directories, each
    /// given only when it is an absolute path).
    package static func directory(runtimeDirectory: String?, cacheHome: String?, home: String?) throws(KeyIDError)
        -> String
    {
        if let runtimeDirectory { return runtimeDirectory + "/keyid" }
        if let cacheHome { return cacheHome + "/keyid" }
        if let home { return home + "/.cache/keyid" }
        throw .lockFile("cannot place the lock file: set XDG_RUNTIME_DIR or HOME to an absolute path")
    }

    private static func privateDirectory(_ directory: String) -> PrivateDirectory {
        PrivateDirectory(
            path: directory, role: "lock directory",
            parentAdvice: "point XDG_RUNTIME_DIR at your own runtime directory", failure: KeyIDError.lockFile)
    }

    /// Creates (if needed) the 0700 directory and the 0600 file `lock` inside it, refusing
    /// symbolic links and anything owned by another user, then waits for the lock. The
    /// directory's parent must belong to the user or to root: whoever owns it could replace
    /// the directory, and with it the lock. Waits at most `limit` when one is given (then a
    /// lock still held is ``KeyIDError/timedOut(_:)``), else until the lock is free.
    package static func acquire(in directory: String, waitingAtMost limit: Duration? = nil) throws(SystemFailure)
        -> LockFile
    {
        let directoryDescriptor = try privateDirectory(directory).openCreating { parent throws(SystemFailure) in
            do throws(SystemCallError) {
                try POSIX.makeDirectory(parent)
            } catch {
                throw failure("cannot create \(parent): \(error)", error)
            }
        }
        defer { close(directoryDescriptor) }
        let path = directory + "/lock"
        let descriptor: Int32
        do throws(SystemCallError) {
            descriptor = try POSIX.call("openat") {
                openat(directoryDescriptor, "lock", O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0o600)
            }
        } catch {
            if error.errno == ELOOP { throw failure("the lock file \(path) is a symbolic link; remove it", error) }
            throw failure("cannot open the lock file \(path): \(error)", error)
        }
        let lock = LockFile(path: path, descriptor: descriptor)
        var info = stat()
        do throws(SystemCallError) {
            try POSIX.call("fstat") { fstat(descriptor, &info) }
        } catch {
            throw failure("cannot inspect the lock file \(path): \(error)", error)
        }
        try checkFile(info, path)
        guard let limit else {
            do throws(SystemCallError) {
                try POSIX.call("flock") { flock(descriptor, LOCK_EX) }
            } catch {
                throw failure("cannot lock \(path): \(error)", error)
            }
            return lock
        }
        try wait(for: descriptor, path, limit)
        return lock
    }

    /// Takes the lock on `descriptor` within `limit`, trying again at growing intervals (up
    /// to 20 ms), with no signal, timer or thread.
    private static func wait(for descriptor: Int32, _ path: String, _ limit: Duration) throws(SystemFailure) {
        let deadline = MonotonicInstant.now + limit
        var pause = Duration.milliseconds(1)
        while true {
            do throws(SystemCallError) {
                try POSIX.call("flock") { flock(descriptor, LOCK_EX | LOCK_NB) }
                return
            } catch {
                guard error.errno == EWOULDBLOCK else { throw failure("cannot lock \(path): \(error)", error) }
            }
            guard MonotonicInstant.now < deadline else {
                throw SystemFailure(.timedOut("another keyid run held the lock \(path) for longer than \(limit)"))
            }
            POSIX.sleep(min(pause, deadline - MonotonicInstant.now))
            pause = min(pause * 2, .milliseconds(20))
        }
    }

    /// Checks, without creating or locking anything, that ``acquire(in:)`` would accept
    /// `directory`; returns what it found, or throws what `acquire` would throw.
    package static func inspect(_ directory: String) throws(SystemFailure) -> String {
        let found = try privateDirectory(directory).inspect()
        let path = directory + "/lock"
        var info = stat()
        if lstat(path, &info) == 0 {
            try checkFile(info, path)
        }
        return found
    }

    private static func checkFile(_ info: stat, _ path: String) throws(SystemFailure) {
        if info.st_mode & S_IFMT != S_IFREG || info.st_nlink != 1 {
            throw failure("the lock file \(path) is not a plain file (or is a symbolic link); remove it")
        }
        if info.st_uid != geteuid() {
            throw failure("the lock file \(path) belongs to user \(info.st_uid), not to you; remove it")
        }
    }

    /// A refusal, or the failed call `systemCall`, as the lock file's failure.
    private static func failure(_ message: String, _ systemCall: SystemCallError? = nil) -> SystemFailure {
        SystemFailure(.lockFile(message), systemCall: systemCall)
    }
}

/// Serialises writes with keyid's lock file, across processes.
package struct LockFileSerializer: WriteSerializer {
    /// Where the lock file's directory is, asked for when a write needs it (see
    /// ``LockFile/directory(runtimeDirectory:cacheHome:home:)``).
    let directory: @Sendable () throws(KeyIDError) -> String
    /// How long to wait for the lock; `nil`: as long as it takes (the command's deadline
    /// bounds the wait).
    let limit: Duration?

    package init(waitingAtMost limit: Duration? = nil, directory: @escaping @Sendable () throws(KeyIDError) -> String) {
        self.limit = limit
        self.directory = directory
    }

    package func exclusively<T>(_ body: () throws(KeyIDError) -> T) throws(KeyIDError) -> T {
        let directory = try directory()
        let held = try SystemFailure.reported { () throws(SystemFailure) in
            try LockFile.acquire(in: directory, waitingAtMost: limit)
        }
        defer { withExtendedLifetime(held) {} }
        return try body()
    }
}
