/// `keyid doctor`'s checks of the session bus, the provider and the default keyring.
extension SecretServiceStore: Diagnosable {
    public func diagnose(_ report: (Check) -> Void) {
        let connection: LibSecretConnection
        do {
            connection = try self.connection()
        } catch {
            if case .unavailable(.noLibrary) = error { return report(.fail("libsecret", error)) }
            return report(.fail("session bus", error))
        }
        report(.ok("session bus", bus.map { "\($0.address) (\($0.source))" } ?? "connected"))
        do {
            let reply = try connection.call(
                "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetConnectionUnixProcessID",
                [.string("org.freedesktop.secrets")], destination: "org.freedesktop.DBus")
            guard case .uint32(let pid) = reply.first else {
                return report(.fail("secret service", .unavailable(.noProvider)))
            }
            report(.ok("secret service", Self.providerName(pid: pid)))
        } catch {
            return report(.fail("secret service", error.outcome))
        }
        let name = collection.map { "keyring '\($0)'" } ?? "default keyring"
        do {
            let path = try targetCollection()
            if Self.isTemporary(path) {
                report(.fail(name, .unavailable(.temporaryKeyring(describeCollection(path)))))
            } else if case .boolean(true) = try property(path, Self.collectionInterface, "Locked") {
                report(.warning(name, "\(path) is locked: keyid will ask to unlock it, or exit 4 with --no-prompt"))
            } else {
                report(.ok(name, "\(path), unlocked"))
            }
        } catch {
            report(.fail(name, error))
        }
    }

    /// The provider's name, from the program that owns the bus name: the file name of its
    /// command line's first word (`/proc/PID/comm` cuts names at 15 bytes).
    static func providerName(pid: UInt32) -> String {
        var program: String?
        if case .success(let bytes) = POSIX.readFile("/proc/\(pid)/cmdline", limit: 4096),
            let first = bytes.split(separator: 0, omittingEmptySubsequences: false).first, !first.isEmpty
        {
            program = String(decoding: first, as: UTF8.self).split(separator: "/").last.map(String.init)
        } else if case .success(let bytes) = POSIX.readFile("/proc/\(pid)/comm", limit: 64) {
            program = String(decoding: bytes, as: UTF8.self).split(separator: "\n").first.map(String.init)
        }
        guard let program else { return "process \(pid)" }
        let names = [
            "gnome-keyring-daemon": "gnome-keyring", "kwalletd5": "KWallet", "kwalletd6": "KWallet",
            "keepassxc": "KeePassXC", "pass_secret_service": "pass-secret-service",
        ]
        let known = names[program].map { "\($0) (" } ?? "("
        return "\(known)\(DisplayText.escaped(program)), pid \(pid))"
    }
}
