/// `keyid doctor`'s checks of the session bus, the provider and the default keyring.
extension SecretServiceStore: Diagnosable {
    /// The bus name the Secret Service is addressed by on the bus found.
    private var serviceName: String { bus?.serviceName ?? SessionBus.defaultServiceName }

    package func diagnose(_ report: (Check) -> Void) {
        // A failure to connect is the bus's; a failed call, the provider's.
        let owner: SecretServiceReply
        do {
            // The name the Secret Service is addressed by (SECRET_SERVICE_BUS_NAME), once the bus
            // is found.
            _ = try connection()
            owner = try requests([
                .method(
                    DBusCall(
                        destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                        interface: "org.freedesktop.DBus", member: "GetConnectionUnixProcessID",
                        arguments: [.string(serviceName)], replyType: "(u)"))
            ])[0]
        } catch {
            return report(.fail("session bus", error))
        }
        report(
            .ok(
                "session bus",
                bus.map { "\(DisplayText.escaped($0.address)) (\(DisplayText.escaped($0.source)))" } ?? "connected"))
        switch owner {
        case .success(let reply):
            guard case .uint32(let pid) = reply.first else {
                return report(.fail("secret service", .unavailable(.noProvider)))
            }
            let named = serviceName == SessionBus.defaultServiceName ? "" : " as \(DisplayText.escaped(serviceName))"
            report(.ok("secret service", Self.providerName(pid: pid) + named))
        case .failure(let error):
            return report(.fail("secret service", error.outcome))
        }
        let name = collection.map { "keyring '\(DisplayText.escaped($0))'" } ?? "default keyring"
        do {
            let path = try targetCollection()
            if Self.isTemporary(path) {
                report(.fail(name, .unavailable(.temporaryKeyring(describeCollection(path)))))
            } else if case .boolean(true) = try property(path, Self.collectionInterface, "Locked") {
                report(.warning(name, "\(path) " + host.lockedNote))
            } else {
                report(.ok(name, "\(path), unlocked"))
            }
        } catch {
            report(.fail(name, error))
        }
    }

    /// The provider's name, from the program that owns the bus name: `/proc/PID/comm`, which
    /// the kernel cuts at 15 bytes; a cut name is completed from the command line's word it
    /// begins (an interpreted provider, such as pass-secret-service, runs as `python3 SCRIPT`).
    static func providerName(pid: UInt32) -> String {
        guard let bytes = try? POSIX.readFile("/proc/\(pid)/comm", limit: 64),
            var program = String(decoding: bytes, as: UTF8.self).split(separator: "\n").first.map(String.init)
        else { return "process \(pid)" }
        if program.utf8.count == 15, let line = try? POSIX.readFile("/proc/\(pid)/cmdline", limit: 4096) {
            let names = line.split(separator: 0).map { String(decoding: $0, as: UTF8.self).split(separator: "/").last }
            if let whole = names.compactMap({ $0 }).first(where: { $0.hasPrefix(program) }) { program = String(whole) }
        }
        let known = [
            "gnome-keyring-daemon": "gnome-keyring", "gnome-keyring-d": "gnome-keyring", "kwalletd5": "KWallet",
            "kwalletd6": "KWallet", "keepassxc": "KeePassXC", "pass_secret_service": "pass-secret-service",
        ]
        let shown = program == "gnome-keyring-d" ? "gnome-keyring-daemon" : program
        return (known[program].map { "\($0) (" } ?? "(") + "\(DisplayText.escaped(shown)), pid \(pid))"
    }
}
