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
