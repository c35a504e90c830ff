import Glibc

/// A secret store in a directory of files, one ``FileRecord`` per key (named as ``FileNames``
/// says; an item's handle is its file's path), written atomically by ``ItemDirectory``. A
/// file that is not a record of its own key reads as an item holding the file's bytes, which
/// `rotate` rewrites. The directory is created 0700; links, other users' files and a
/// directory open to others are refused (``KeyIDError/Failure/fileBackend(_:)``).
package final class FileStore: SecretStore {
    /// The directory holding the files.
    package let directory: String
    private let clock: any WallClock
    private var opened: ItemDirectory?

    /// Opens the directory lazily, on the first call; `clock` gives created and modified times.
    package init(directory: String, clock: any WallClock = SystemClock()) {
        var path = directory
        while path.count > 1, path.hasSuffix("/") { path.removeLast() }
        self.directory = path
        self.clock = clock
    }

    deinit {
        if let opened { close(opened.descriptor) }
    }

    /// Root's directory when `XDG_STATE_HOME` does not name one.
    package static let rootDirectory = "/var/lib/keyid"

    /// Where the files live, from the environment: `$XDG_STATE_HOME/keyid`, else
    /// ``rootDirectory`` for root, else `<home>/.local/state/keyid` (see
    /// ``Locations/home(_:)``); a variable counts only when it is an absolute path.
    package static func directory(_ environment: ProcessEnvironment) throws(KeyIDError) -> String {
        if let state = try environment.absolutePath(.stateHome) { return state + "/keyid" }
        if UserAccount.effectiveUID == 0 { return rootDirectory }
        if let home = try Locations.home(environment) { return home + "/.local/state/keyid" }
        throw .fileBackend("cannot place the ID files: set XDG_STATE_HOME or HOME to an absolute path")
    }

    // MARK: SecretStore

    package func items(matching key: ItemKey, scope: ReadScope) throws(KeyIDError) -> [StoredItem] {
        try SystemFailure.reported { () throws(SystemFailure) in
            guard let files = try existingDirectory(),
                let item = try readItem(FileNames.fileName(for: key), key: key, in: files, scope: scope)
            else { return [] }
            return [item]
        }
    }

    /// Every item file in the directory, or those of one service. Files whose names are
    /// not item names, and temporary files, are left out.
    package func managedItems(service: String?, scope: ReadScope) throws(KeyIDError) -> [StoredItem] {
        try SystemFailure.reported { () throws(SystemFailure) in
            try managedFiles(service: service, scope: scope)
        }
    }

    private func managedFiles(service: String?, scope: ReadScope) throws(SystemFailure) -> [StoredItem] {
        guard let files = try existingDirectory() else { return [] }
        var items: [StoredItem] = []
        for name in try files.entryNames() {
            let key = FileNames.key(fromFileName: name)
            guard key != nil || FileNames.isHashedName(name) else { continue }
            if let key, let service, key.service != service { continue }
            guard let item = try readItem(name, key: key, in: files, scope: scope) else { continue }
            if let service, item.key?.service != service { continue }
            items.append(item)
        }
        return items
    }

    package func add(_ new: NewItem) throws(KeyIDError) {
        try SystemFailure.reported { () throws(SystemFailure) in
            let files = try directoryCreatingIfNeeded()
            files.removeStaleTemporaries(now: clock.secondsSinceEpoch)
            let time = clock.secondsSinceEpoch
            let record = FileRecord(
                secret: new.secret, label: new.label, created: time, modified: time, attributes: new.attributes)
            try files.write(
                record.serialized(), to: FileNames.fileName(for: new.key), unlessTaken: .alreadyExists(new.key))
        }
    }

    /// Rewrites the item's file once, with the new value and keyid's attributes.
    package func replace(_ item: StoredItem, with new: NewItem) throws(KeyIDError) {
        try SystemFailure.reported { () throws(SystemFailure) in try rewrite(item, with: new) }
    }

    private func rewrite(_ item: StoredItem, with new: NewItem) throws(SystemFailure) {
        let key = new.key
        let name = try fileName(of: item)
        guard FileNames.fileName(for: key) == name else {
            throw ItemDirectory.failure("cannot move the ID in \(item.handle) to another service or account")
        }
        guard let files = try existingDirectory(), let (bytes, mtime) = try files.read(name) else {
            throw ItemDirectory.failure("cannot update \(item.handle): it no longer exists")
        }
        var record: FileRecord
        if let parsed = FileRecord(parsing: bytes), Self.belongs(parsed, to: name) {
            record = parsed
        } else {
            record = FileRecord(
                secret: bytes, label: item.label ?? key.label, created: item.created ?? mtime, modified: mtime,
                attributes: item.attributes ?? key.attributes.dictionary)
        }
        record.secret = new.secret
        if let label = new.details.label { record.label = label }
        record.attributes.merge(new.attributes) { _, replacement in replacement }
        record.modified = clock.secondsSinceEpoch
        files.removeStaleTemporaries(now: clock.secondsSinceEpoch)
        try files.write(record.serialized(), to: name, unlessTaken: nil)
    }

    package func delete(_ item: StoredItem) throws(KeyIDError) {
        try SystemFailure.reported { () throws(SystemFailure) in
            let name = try fileName(of: item)
            try existingDirectory()?.remove(name)
        }
    }

    // MARK: Items and their files

    /// The item in file `name`, or `nil` when there is no such file. `key` is the item's
    /// key when the name tells it.
    private func readItem(_ name: String, key: ItemKey?, in files: ItemDirectory, scope: ReadScope)
        throws(SystemFailure) -> StoredItem?
    {
        guard let (bytes, mtime) = try files.read(name) else { return nil }
        let handle = directory + "/" + name
        if let record = FileRecord(parsing: bytes), Self.belongs(record, to: name) {
            return StoredItem(
                handle: handle, secret: scope.contains(.secrets) ? record.secret : nil, label: record.label,
                created: record.created, modified: record.modified, attributes: record.attributes)
        }
        return StoredItem(
            handle: handle, secret: scope.contains(.secrets) ? bytes : nil, created: mtime, modified: mtime,
            attributes: key.map { $0.attributes.dictionary })
    }

    /// Whether a record names the service and account its file is named after.
    private static func belongs(_ record: FileRecord, to name: String) -> Bool {
        record.key.map { FileNames.fileName(for: $0) == name } ?? false
    }

    /// The file name an item's handle points to, which must be an item of this store.
    private func fileName(of item: StoredItem) throws(SystemFailure) -> String {
        let prefix = directory + "/"
        if item.handle.hasPrefix(prefix) {
            let name = String(item.handle.dropFirst(prefix.count))
            if FileNames.isItemName(name) { return name }
        }
        throw ItemDirectory.failure("\(item.handle) is not an ID file in \(directory)")
    }

    // MARK: The directory

    private var privateDirectory: PrivateDirectory {
        PrivateDirectory(
            path: directory, role: "ID directory", parentAdvice: "point XDG_STATE_HOME at your own state directory",
            failure: KeyIDError.fileBackend)
    }

    /// The directory, opened once and checked; `nil` while it does not exist.
    func existingDirectory() throws(SystemFailure) -> ItemDirectory? {
        if let opened { return opened }
        guard let descriptor = try privateDirectory.openExisting() else { return nil }
        opened = ItemDirectory(descriptor: descriptor, path: directory)
        return opened
    }

    /// The directory, created 0700 (with any missing parents) when it does not exist.
    func directoryCreatingIfNeeded() throws(SystemFailure) -> ItemDirectory {
        if let opened { return opened }
        let descriptor = try privateDirectory.openCreating { parent throws(SystemFailure) in
            try Self.makeDirectories(parent)
        }
        let files = ItemDirectory(descriptor: descriptor, path: directory)
        opened = files
        return files
    }

    /// Creates every missing directory of `path`, mode 0700.
    private static func makeDirectories(_ path: String) throws(SystemFailure) {
        var prefix = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            prefix += "/" + component
            do throws(SystemCallError) {
                try POSIX.makeDirectory(prefix)
            } catch {
                throw ItemDirectory.failure("cannot create \(prefix): \(error)", error)
            }
        }
    }
}

extension FileStore: Diagnosable {
    package func diagnose(_ report: (Check) -> Void) {
        do throws(SystemFailure) {
            // The directory stays open: the store keeps it for its later calls.
            guard try existingDirectory() != nil else {
                return report(.ok("ID directory", "\(directory) will be created on first write"))
            }
            report(.ok("ID directory", directory))
        } catch {
            report(.fail("ID directory", error.outcome))
        }
    }
}

/// Where a file store reads the time it dates items and leftovers by.
package protocol WallClock {
    /// Seconds since the Unix epoch.
    var secondsSinceEpoch: UInt64 { get }
}

/// The system's clock (`time(2)`).
package struct SystemClock: WallClock {
    package init() {}

    package var secondsSinceEpoch: UInt64 { UInt64(max(0, time(nil))) }
}
