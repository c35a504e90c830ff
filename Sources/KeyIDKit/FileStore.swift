import Glibc

/// A secret store kept in a directory of files, for servers and containers without a
/// Secret Service. It is chosen explicitly (`--backend file`), never as a fallback.
///
/// Each `(service, account)` has one file, so lookups find 0 or 1 item. Its name is
/// `<service>@<account>.id` with every byte outside `[A-Za-z0-9._-]` (and a leading dot)
/// percent-encoded, or `sha256-<hex>.id` when that would exceed 255 bytes (the hex is the
/// SHA-256 of the service, a NUL byte and the account). Names never start with a dot, so
/// temporary files (`.keyid-<random>.tmp`) never collide with them. The handle of an item
/// is its file's path.
///
/// A file holds one value per line, every value escaped (`\\`, `\n`, `\r`, `\xHH` for other
/// control bytes and, in attribute names, for `=`):
///
///     0f8fad5b-d9cb-469f-a165-70867728950e
///     label=Device ID for keyid (device-id)
///     created=1700000000
///     modified=1700000000
///     attribute.account=device-id
///     attribute.keyid=1
///     attribute.service=keyid
///     end
///
/// The first line is the stored value; `label`, `created` and `modified` (Unix seconds)
/// are required; `attribute.NAME=VALUE` lines hold the attributes, which must name the
/// file's own service and account; unknown keys are ignored; `end` closes the file. A file
/// that does not follow this format (hand-written, truncated, or holding another item's
/// attributes) is still reported, as an item whose value is the file's raw bytes (up to
/// 64 KiB), created and modified at its mtime, with only `service` and `account` as
/// attributes: a file holding nothing but an ID reads as that ID, anything else reads as
/// "not a valid ID" (exit 7), and `rotate` rewrites it properly.
///
/// Every write goes to a 0600 temporary file in the same directory, which is written,
/// synced and renamed over the item's file (or hard-linked to it, for a new item, so that
/// an existing one is never replaced); then the directory is synced. A reader sees the old
/// file or the new one, never a mix, whenever the writer is killed. Temporary files left
/// by killed writers are ignored, and removed by later writes once a minute old.
///
/// The directory is created 0700 when missing. A directory or file that is a symbolic link,
/// belongs to another user or (the directory) is open to others is refused with
/// ``KeyIDError/lockFile(_:)`` (exit 8), as are failed system calls.
public final class FileStore: SecretStore {
    /// The directory holding the files.
    public let directory: String
    private let now: () -> UInt64
    private var descriptor: Int32 = -1

    /// Opens the directory lazily, on the first call; `now` gives created and modified times.
    public init(directory: String, now: @escaping () -> UInt64 = { UInt64(max(0, time(nil))) }) {
        var path = directory
        while path.count > 1, path.hasSuffix("/") { path.removeLast() }
        self.directory = path
        self.now = now
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    /// Where the files live: `$XDG_STATE_HOME/keyid` when `XDG_STATE_HOME` is an absolute
    /// path, else `/var/lib/keyid` for root, else `$HOME/.local/state/keyid`.
    public static func directory(in environment: ProcessEnvironment) throws(KeyIDError) -> String {
        if let state = try environment.value("XDG_STATE_HOME"), state.hasPrefix("/") {
            return state + "/keyid"
        }
        if geteuid() == 0 {
            return "/var/lib/keyid"
        }
        if let home = try environment.value("HOME"), home.hasPrefix("/") {
            return home + "/.local/state/keyid"
        }
        throw .lockFile("cannot place the ID files: set XDG_STATE_HOME or HOME to an absolute path")
    }

    // MARK: SecretStore

    public func items(matching key: ItemKey, details: LookupDetails) throws(KeyIDError) -> [StoredItem] {
        guard let directoryDescriptor = try openDirectory(create: false) else { return [] }
        let name = Self.fileName(for: key)
        guard let item = try readItem(name, key: key, in: directoryDescriptor, details: details) else { return [] }
        return [item]
    }

    /// Every item file in the directory, or those of one service. Files whose names are
    /// not item names, and temporary files, are left out.
    public func managedItems(service: String?, details: LookupDetails) throws(KeyIDError) -> [StoredItem] {
        guard let directoryDescriptor = try openDirectory(create: false) else { return [] }
        var items: [StoredItem] = []
        for name in try entryNames(in: directoryDescriptor) {
            let key = Self.key(fromFileName: name)
            guard key != nil || Self.isHashedName(name) else { continue }
            if let key, let service, key.service != service { continue }
            guard let item = try readItem(name, key: key, in: directoryDescriptor, details: details) else { continue }
            if let service, item.attributes?["service"] != service { continue }
            items.append(item)
        }
        return items
    }

    public func add(label: String, secret: [UInt8], attributes: [String: String]) throws(KeyIDError) {
        guard let service = attributes["service"], let account = attributes["account"],
            let key = try? ItemKey(service: service, account: account)
        else {
            throw .lockFile("cannot store an ID without a valid service and account")
        }
        let directoryDescriptor = try openDirectory(create: true)!
        removeStaleTemporaries(in: directoryDescriptor)
        let time = now()
        let contents = Contents(secret: secret, label: label, created: time, modified: time, attributes: attributes)
        try write(contents, to: Self.fileName(for: key), in: directoryDescriptor, replacing: false, key: key)
    }

    public func replaceSecret(of item: StoredItem, with secret: [UInt8]) throws(KeyIDError) {
        try update(item) { contents in contents.secret = secret }
    }

    /// Replaces the attributes; the service and account must stay those of the item's file.
    public func replaceAttributes(of item: StoredItem, with attributes: [String: String]) throws(KeyIDError) {
        let name = try fileName(of: item)
        guard let service = attributes["service"], let account = attributes["account"],
            let key = try? ItemKey(service: service, account: account), Self.fileName(for: key) == name
        else {
            throw .lockFile("cannot move the ID in \(item.handle) to another service or account")
        }
        try update(item) { contents in contents.attributes = attributes }
    }

    public func delete(_ item: StoredItem) throws(KeyIDError) {
        let name = try fileName(of: item)
        guard let directoryDescriptor = try openDirectory(create: false) else { return }
        if unlinkat(directoryDescriptor, name, 0) != 0, errno != ENOENT {
            throw .lockFile("cannot remove \(item.handle): \(LockFile.describe(errno))")
        }
        try syncDirectory(directoryDescriptor)
    }

    // MARK: Reading and writing items

    /// Rewrites an item's file with `change` applied and a new modified time, keeping the
    /// rest (a damaged file's rest comes from `item`).
    private func update(_ item: StoredItem, _ change: (inout Contents) -> Void) throws(KeyIDError) {
        let name = try fileName(of: item)
        guard let directoryDescriptor = try openDirectory(create: false),
            let (bytes, mtime) = try readFile(name, in: directoryDescriptor)
        else {
            throw .lockFile("cannot update \(item.handle): it no longer exists")
        }
        let key = item.key ?? Self.key(fromFileName: name)
        var contents: Contents
        if let parsed = Contents(parsing: bytes), Self.belongs(parsed, to: name) {
            contents = parsed
        } else {
            contents = Contents(
                secret: bytes, label: item.label ?? key?.label ?? "", created: item.created ?? mtime,
                modified: mtime,
                attributes: item.attributes ?? key.map { Dictionary(uniqueKeysWithValues: $0.attributes) }
                    ?? [:])
        }
        change(&contents)
        contents.modified = now()
        removeStaleTemporaries(in: directoryDescriptor)
        try write(contents, to: name, in: directoryDescriptor, replacing: true, key: key)
    }

    /// The item in file `name`, or `nil` when there is no such file. `key` is the item's
    /// key when the name tells it.
    private func readItem(_ name: String, key: ItemKey?, in directoryDescriptor: Int32, details: LookupDetails)
        throws(KeyIDError) -> StoredItem?
    {
        guard let (bytes, mtime) = try readFile(name, in: directoryDescriptor) else { return nil }
        let handle = directory + "/" + name
        if let contents = Contents(parsing: bytes), Self.belongs(contents, to: name) {
            return StoredItem(
                handle: handle, secret: details.contains(.secrets) ? contents.secret : nil, label: contents.label,
                created: contents.created, modified: contents.modified, attributes: contents.attributes)
        }
        return StoredItem(
            handle: handle, secret: details.contains(.secrets) ? bytes : nil, created: mtime, modified: mtime,
            attributes: key.map { Dictionary(uniqueKeysWithValues: $0.attributes) })
    }

    /// Whether parsed contents name the service and account their file is named after.
    private static func belongs(_ contents: Contents, to name: String) -> Bool {
        guard let service = contents.attributes["service"], let account = contents.attributes["account"],
            let key = try? ItemKey(service: service, account: account)
        else { return false }
        return fileName(for: key) == name
    }

    /// The largest file read whole; a larger one is damaged and read as its first bytes.
    static let maximumFileSize = 65_536

    /// A file's first ``maximumFileSize`` bytes and mtime, or `nil` when it does not exist.
    private func readFile(_ name: String, in directoryDescriptor: Int32) throws(KeyIDError) -> ([UInt8], UInt64)? {
        let path = directory + "/" + name
        let fileDescriptor = openat(
            directoryDescriptor, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
        guard fileDescriptor >= 0 else {
            let code = errno
            if code == ENOENT { return nil }
            if code == ELOOP { throw .lockFile("the ID file \(path) is a symbolic link; remove it") }
            throw .lockFile("cannot open the ID file \(path): \(LockFile.describe(code))")
        }
        defer { close(fileDescriptor) }
        var info = stat()
        guard fstat(fileDescriptor, &info) == 0 else {
            throw .lockFile("cannot inspect the ID file \(path): \(LockFile.describe(errno))")
        }
        if info.st_mode & S_IFMT != S_IFREG {
            throw .lockFile("the ID file \(path) is not a plain file; remove it")
        }
        if info.st_uid != geteuid() {
            throw .lockFile("the ID file \(path) belongs to user \(info.st_uid), not to you; remove it")
        }
        guard let bytes = Context.readDescriptor(fileDescriptor, limit: Self.maximumFileSize) else {
            throw .lockFile("cannot read the ID file \(path): \(LockFile.describe(errno))")
        }
        return (Array(bytes.prefix(Self.maximumFileSize)), UInt64(max(0, info.st_mtim.tv_sec)))
    }

    /// Writes `contents` to a temporary file, syncs it, moves it to `name` and syncs the
    /// directory. Without `replacing`, an existing file is left alone and
    /// ``KeyIDError/alreadyExists(_:)`` thrown.
    private func write(
        _ contents: Contents, to name: String, in directoryDescriptor: Int32, replacing: Bool, key: ItemKey?
    ) throws(KeyIDError) {
        let path = directory + "/" + name
        let (temporary, fileDescriptor) = try createTemporary(in: directoryDescriptor)
        var closed = false
        var done = false
        defer {
            if !closed { close(fileDescriptor) }
            if !done { unlinkat(directoryDescriptor, temporary, 0) }
        }
        let bytes = contents.serialized()
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeBytes {
                Glibc.write(fileDescriptor, $0.baseAddress! + offset, $0.count - offset)
            }
            if count < 0 {
                if errno == EINTR { continue }
                throw .lockFile("cannot write \(directory)/\(temporary): \(LockFile.describe(errno))")
            }
            offset += count
        }
        guard fsync(fileDescriptor) == 0 else {
            throw .lockFile("cannot sync \(directory)/\(temporary): \(LockFile.describe(errno))")
        }
        closed = true
        guard close(fileDescriptor) == 0 else {
            throw .lockFile("cannot write \(directory)/\(temporary): \(LockFile.describe(errno))")
        }
        if replacing {
            guard renameat(directoryDescriptor, temporary, directoryDescriptor, name) == 0 else {
                throw .lockFile("cannot replace \(path): \(LockFile.describe(errno))")
            }
        } else {
            try moveWithoutReplacing(temporary, to: name, in: directoryDescriptor, key: key)
        }
        done = true
        try syncDirectory(directoryDescriptor)
    }

    /// Gives the temporary file the item's name unless that name is taken. A hard link
    /// fails atomically when it is; where hard links are not supported, the caller's lock
    /// is what keeps the check and the rename together.
    private func moveWithoutReplacing(
        _ temporary: String, to name: String, in directoryDescriptor: Int32, key: ItemKey?
    )
        throws(KeyIDError)
    {
        let path = directory + "/" + name
        if linkat(directoryDescriptor, temporary, directoryDescriptor, name, 0) == 0 {
            unlinkat(directoryDescriptor, temporary, 0)
            return
        }
        var code = errno
        if code == EPERM || code == EOPNOTSUPP || code == EMLINK {
            var info = stat()
            if fstatat(directoryDescriptor, name, &info, AT_SYMLINK_NOFOLLOW) == 0 {
                code = EEXIST
            } else if renameat(directoryDescriptor, temporary, directoryDescriptor, name) == 0 {
                return
            } else {
                code = errno
            }
        }
        if code == EEXIST, let key { throw .alreadyExists(key) }
        throw .lockFile("cannot create \(path): \(LockFile.describe(code))")
    }

    /// Creates `.keyid-<random>.tmp`, mode 0600, and opens it for writing.
    private func createTemporary(in directoryDescriptor: Int32) throws(KeyIDError) -> (String, Int32) {
        var generator = SystemRandomNumberGenerator()
        var code: Int32 = EEXIST
        for _ in 0..<8 {
            let name =
                Self.temporaryPrefix + Hex.string(withUnsafeBytes(of: generator.next() as UInt64) { Array($0) })
                + Self.temporarySuffix
            let fileDescriptor = openat(
                directoryDescriptor, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC, 0o600)
            if fileDescriptor >= 0 {
                fchmod(fileDescriptor, 0o600)
                return (name, fileDescriptor)
            }
            code = errno
            if code != EEXIST { break }
        }
        throw .lockFile("cannot create a temporary file in \(directory): \(LockFile.describe(code))")
    }

    private static let temporaryPrefix = ".keyid-"
    private static let temporarySuffix = ".tmp"
    /// How old a temporary file must be before a write removes it as a killed writer's.
    static let staleTemporaryAge: UInt64 = 60

    /// Removes temporary files that killed writers left behind; failures are harmless.
    private func removeStaleTemporaries(in directoryDescriptor: Int32) {
        guard let names = try? entryNames(in: directoryDescriptor) else { return }
        let time = now()
        for name in names where name.hasPrefix(Self.temporaryPrefix) && name.hasSuffix(Self.temporarySuffix) {
            var info = stat()
            guard fstatat(directoryDescriptor, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { continue }
            if UInt64(max(0, info.st_mtim.tv_sec)) + Self.staleTemporaryAge <= time {
                unlinkat(directoryDescriptor, name, 0)
            }
        }
    }

    /// The names in the directory, without `.` and `..`.
    private func entryNames(in directoryDescriptor: Int32) throws(KeyIDError) -> [String] {
        // A descriptor of its own: readdir moves the offset, which a dup would share.
        let listing = openat(directoryDescriptor, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard listing >= 0, let stream = fdopendir(listing) else {
            let code = errno
            if listing >= 0 { close(listing) }
            throw .lockFile("cannot list \(directory): \(LockFile.describe(code))")
        }
        defer { closedir(stream) }
        var names: [String] = []
        while true {
            errno = 0
            guard let entry = readdir(stream) else {
                if errno != 0 { throw .lockFile("cannot list \(directory): \(LockFile.describe(errno))") }
                return names
            }
            let name = withUnsafeBytes(of: &entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name != ".", name != ".." { names.append(name) }
        }
    }

    private func syncDirectory(_ directoryDescriptor: Int32) throws(KeyIDError) {
        guard fsync(directoryDescriptor) == 0 else {
            throw .lockFile("cannot sync \(directory): \(LockFile.describe(errno))")
        }
    }

    /// The file name an item's handle points to, which must be an item of this store.
    private func fileName(of item: StoredItem) throws(KeyIDError) -> String {
        let prefix = directory + "/"
        if item.handle.hasPrefix(prefix) {
            let name = String(item.handle.dropFirst(prefix.count))
            if Self.key(fromFileName: name) != nil || Self.isHashedName(name) { return name }
        }
        throw .lockFile("\(item.handle) is not an ID file in \(directory)")
    }

    // MARK: The directory

    /// The directory's descriptor, opened once and checked; `nil` when it does not exist
    /// and `create` is false. Missing parents are created 0700 too.
    fileprivate func openDirectory(create: Bool) throws(KeyIDError) -> Int32? {
        if descriptor >= 0 { return descriptor }
        let checked = PrivateDirectory(
            path: directory, role: "ID directory",
            parentAdvice: "point XDG_STATE_HOME at your own state directory")
        guard
            let opened = try checked.open(
                createParent: create ? { parent throws(KeyIDError) in try Self.makeDirectories(parent) } : nil)
        else { return nil }
        descriptor = opened
        return opened
    }

    /// Creates every missing directory of `path`, mode 0700.
    private static func makeDirectories(_ path: String) throws(KeyIDError) {
        var prefix = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            prefix += "/" + component
            if mkdir(prefix, 0o700) != 0, errno != EEXIST {
                throw .lockFile("cannot create \(prefix): \(LockFile.describe(errno))")
            }
        }
    }

    // MARK: File names

    /// The file name of an item: percent-encoded, or hashed when that is too long.
    static func fileName(for key: ItemKey) -> String {
        let name = percentEncoded(key.service, leadingDot: true) + "@" + percentEncoded(key.account) + ".id"
        if name.utf8.count <= 255 { return name }
        return "sha256-" + Hex.string(SHA256.hash(Array(key.service.utf8) + [0] + Array(key.account.utf8))) + ".id"
    }

    /// The key a percent-encoded file name stands for; `nil` for any other name, including
    /// hashed ones and names not written exactly as ``fileName(for:)`` writes them.
    static func key(fromFileName name: String) -> ItemKey? {
        guard name.hasSuffix(".id") else { return nil }
        let parts = name.dropLast(3).split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, let service = percentDecoded(parts[0]), let account = percentDecoded(parts[1]),
            let key = try? ItemKey(service: service, account: account), fileName(for: key) == name
        else { return nil }
        return key
    }

    /// Whether `name` is a hashed file name, `sha256-` and 64 lowercase hex digits.
    static func isHashedName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard bytes.count == 74, name.hasPrefix("sha256-"), name.hasSuffix(".id") else { return false }
        return bytes[7..<71].allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    private static func isSafe(_ byte: UInt8) -> Bool {
        (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte)
            || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
    }

    private static func percentEncoded(_ text: String, leadingDot: Bool = false) -> String {
        var out: [UInt8] = []
        for (index, byte) in text.utf8.enumerated() {
            if isSafe(byte), !(leadingDot && index == 0 && byte == UInt8(ascii: ".")) {
                out.append(byte)
            } else {
                out += Array("%\(Hex.string([byte]).uppercased())".utf8)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func percentDecoded(_ text: Substring) -> String? {
        var out: [UInt8] = []
        var bytes = Array(text.utf8)[...]
        while let byte = bytes.popFirst() {
            if byte == UInt8(ascii: "%") {
                guard bytes.count >= 2, let high = Hex.value(bytes.removeFirst()),
                    let low = Hex.value(bytes.removeFirst())
                else { return nil }
                out.append(high << 4 | low)
            } else {
                out.append(byte)
            }
        }
        return String(validating: out, as: UTF8.self)
    }

    // MARK: File contents

    /// What one file holds, in the format described on ``FileStore``.
    struct Contents: Equatable {
        var secret: [UInt8]
        var label: String
        var created: UInt64
        var modified: UInt64
        var attributes: [String: String]

        /// The file's bytes; attributes are written sorted by name.
        func serialized() -> [UInt8] {
            var out = Self.escaped(secret)
            out.append(0x0A)
            out += Array("label=".utf8) + Self.escaped(Array(label.utf8)) + [0x0A]
            out += Array("created=\(created)\nmodified=\(modified)\n".utf8)
            for (name, value) in attributes.sorted(by: { $0.key < $1.key }) {
                out += Array("attribute.".utf8) + Self.escaped(Array(name.utf8), isName: true) + [UInt8(ascii: "=")]
                out += Self.escaped(Array(value.utf8)) + [0x0A]
            }
            out += Array("end\n".utf8)
            return out
        }

        /// Parses a whole file; `nil` when it does not follow the format exactly.
        init?(parsing bytes: [UInt8]) {
            guard bytes.last == 0x0A else { return nil }
            let lines = bytes.dropLast().split(separator: 0x0A, omittingEmptySubsequences: false)
            guard lines.count >= 2, lines.last.map(Array.init) == Array("end".utf8),
                let secret = Self.unescaped(lines[0])
            else { return nil }
            var label: String?
            var created: UInt64?
            var modified: UInt64?
            var attributes: [String: String] = [:]
            for line in lines.dropFirst().dropLast() {
                guard let equals = line.firstIndex(of: UInt8(ascii: "=")) else { return nil }
                let name = Array(line[..<equals])
                let value = line[(equals + 1)...]
                switch name {
                case Array("label".utf8):
                    guard label == nil, let text = Self.text(value) else { return nil }
                    label = text
                case Array("created".utf8):
                    guard created == nil, let number = Self.number(value) else { return nil }
                    created = number
                case Array("modified".utf8):
                    guard modified == nil, let number = Self.number(value) else { return nil }
                    modified = number
                default:
                    let prefix = Array("attribute.".utf8)
                    guard name.starts(with: prefix) else { continue }
                    guard let attribute = Self.text(name[prefix.count...]), attributes[attribute] == nil,
                        let text = Self.text(value)
                    else { return nil }
                    attributes[attribute] = text
                }
            }
            guard let label, let created, let modified else { return nil }
            self.init(secret: secret, label: label, created: created, modified: modified, attributes: attributes)
        }

        init(secret: [UInt8], label: String, created: UInt64, modified: UInt64, attributes: [String: String]) {
            self.secret = secret
            self.label = label
            self.created = created
            self.modified = modified
            self.attributes = attributes
        }

        private static func escaped(_ bytes: [UInt8], isName: Bool = false) -> [UInt8] {
            var out: [UInt8] = []
            out.reserveCapacity(bytes.count)
            for byte in bytes {
                switch byte {
                case UInt8(ascii: "\\"): out += Array("\\\\".utf8)
                case 0x0A: out += Array("\\n".utf8)
                case 0x0D: out += Array("\\r".utf8)
                case 0..<0x20, 0x7F: out += Array("\\x\(Hex.string([byte]))".utf8)
                case UInt8(ascii: "=") where isName: out += Array("\\x3d".utf8)
                default: out.append(byte)
                }
            }
            return out
        }

        private static func unescaped(_ bytes: ArraySlice<UInt8>) -> [UInt8]? {
            var out: [UInt8] = []
            var rest = bytes
            while let byte = rest.popFirst() {
                guard byte == UInt8(ascii: "\\") else {
                    out.append(byte)
                    continue
                }
                switch rest.popFirst() {
                case UInt8(ascii: "\\"): out.append(UInt8(ascii: "\\"))
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "x"):
                    guard rest.count >= 2, let high = Hex.value(rest.removeFirst()),
                        let low = Hex.value(rest.removeFirst())
                    else { return nil }
                    out.append(high << 4 | low)
                default: return nil
                }
            }
            return out
        }

        private static func text(_ bytes: ArraySlice<UInt8>) -> String? {
            unescaped(bytes).flatMap { String(validating: $0, as: UTF8.self) }
        }

        private static func number(_ bytes: ArraySlice<UInt8>) -> UInt64? {
            guard !bytes.isEmpty, bytes.count <= 20, bytes.allSatisfy({ (0x30...0x39).contains($0) }) else {
                return nil
            }
            return UInt64(String(decoding: bytes, as: UTF8.self))
        }
    }
}

extension FileStore: Diagnosable {
    public func diagnose() -> [Check] {
        do throws(KeyIDError) {
            // The descriptor stays open: the store keeps it for its later calls.
            guard try openDirectory(create: false) != nil else {
                return [.ok("ID directory", "\(directory) will be created on first write")]
            }
            return [.ok("ID directory", directory)]
        } catch {
            return [.fail("ID directory", error)]
        }
    }
}
