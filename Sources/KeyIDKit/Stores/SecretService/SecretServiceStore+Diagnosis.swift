/// `keyid doctor`'s checks of the session bus, the provider and the default keyring.
extension SecretServiceStore: Diagnosable {
    public func diagnose() -> [Check] {
        let connection: LibSecretConnection
        do {
            connection = try self.connection()
        } catch {
            if case .unavailable(.noLibrary) = error { return [.fail("libsecret", error)] }
            return [.fail(error.exitCode == ExitStatus.unavailable.rawValue ? "session bus" : "libsecret", error)]
        }
        var checks: [Check] = [.ok("session bus", bus.map { "\($0.address) (\($0.source))" } ?? "connected")]
        do {
            let reply = try connection.call(
                "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetConnectionUnixProcessID",
                [.string("org.freedesktop.secrets")], destination: "org.freedesktop.DBus")
            guard case .uint32(let pid) = reply.first else {
                return checks + [.fail("secret service", .unavailable(.noProvider))]
            }
            checks.append(.ok("secret service", Self.providerName(pid: pid)))
        } catch {
            return checks + [.fail("secret service", error.outcome)]
        }
        let name = collection.map { "keyring '\($0)'" } ?? "default keyring"
        do {
            let path = try targetCollection()
            if Self.isTemporary(path) {
                checks.append(.fail(name, .unavailable(.temporaryKeyring(describeCollection(path)))))
            } else if case .boolean(true) = try property(path, Self.collectionInterface, "Locked") {
                checks.append(
                    .warning(name, "\(path) is locked: keyid will ask to unlock it, or exit 4 with --no-prompt"))
            } else {
                checks.append(.ok(name, "\(path), unlocked"))
            }
        } catch {
            checks.append(.fail(name, error))
        }
        return checks
    }

    /// The provider's name, from the program that owns the bus name.
    static func providerName(pid: UInt32) -> String {
        guard case .success(let bytes) = POSIX.readFile("/proc/\(pid)/comm", limit: 64) else {
            return "process \(pid)"
        }
        let program = String(decoding: bytes, as: UTF8.self).split(separator: "\n").first.map(String.init) ?? "?"
        let names = [
            "gnome-keyring-d": "gnome-keyring", "kwalletd5": "KWallet", "kwalletd6": "KWallet",
            "keepassxc": "KeePassXC",
        ]
        let known = names[program].map { "\($0) (" } ?? "("
        return "\(known)\(program == "gnome-keyring-d" ? "gnome-keyring-daemon" : program), pid \(pid))"
    }
}
