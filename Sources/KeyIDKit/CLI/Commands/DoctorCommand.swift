/// `keyid doctor`: check, read-only, everything keyid depends on.
enum DoctorCommand {
    static func run(_ settings: Settings, _ ids: DeviceIDs, _ context: Context) -> CommandResult {
        var checks: [Check] = [.ok("backend", settings.backend.rawValue)]
        let storeChecks = ((ids.store as? any Diagnosable)?.diagnose() ?? []).map(advise)
        checks += storeChecks
        checks.append(lockDirectory(context.environment))
        do throws(KeyIDError) {
            _ = try context.machineID()
            checks.append(.ok("machine ID", "readable; new IDs are bound to this machine"))
        } catch {
            checks.append(.warning("machine ID", "\(error.message); clone detection is off"))
        }
        if !storeChecks.contains(where: { $0.status == .fail }) {
            checks.append(storedID(settings.key, ids))
        }
        let width = checks.map(\.name.count).max() ?? 0
        let lines = checks.map { check in
            TextTable.pad(check.status.rawValue, 8) + TextTable.pad(check.name, width + 2) + check.detail
        }
        let failure = checks.first { $0.status == .fail }
        return CommandResult(output: lines.joined(separator: "\n") + "\n", status: failure?.exitCode ?? 0)
    }

    /// A failed check with the fix for where keyid runs: ssh and cron sessions, root, WSL.
    static func advise(_ check: Check) -> Check {
        guard check.status == .fail else { return check }
        var check = check
        let uid = UserAccount.effectiveUID
        if check.name == "session bus", check.exitCode == ExitStatus.unavailable.rawValue {
            if uid != 0 {
                check.detail +=
                    "; in an ssh or cron session the bus at /run/user/\(uid)/bus exists only while you are logged in: 'loginctl enable-linger' keeps it, and 'systemctl --user start gnome-keyring-daemon.socket' (or logging in once) starts the keyring"
            }
            if POSIX.isWSL {
                check.detail +=
                    "; on WSL, start a session bus and gnome-keyring in your shell's profile, or use --backend file"
            }
        }
        if check.detail.contains(" is temporary:"), POSIX.isWSL {
            check.detail += "; on WSL only the temporary keyring exists until you create one with a password"
        }
        return check
    }

    static func lockDirectory(_ environment: ProcessEnvironment) -> Check {
        do throws(KeyIDError) {
            let directory = try Context.lockDirectory(environment)
            return .ok("lock directory", try LockFile.inspect(directory))
        } catch {
            return .fail("lock directory", error)
        }
    }

    static func storedID(_ key: ItemKey, _ ids: DeviceIDs) -> Check {
        let name = "stored ID"
        do throws(KeyIDError) {
            let record = try ids.get(key)
            var notes = ["\(key): \(record.duplicates + 1 == 1 ? "one item" : "\(record.duplicates + 1) items")"]
            if record.duplicates > 0 {
                return .warning(name, notes[0] + "; keyid uses the oldest, and 'keyid rotate' keeps only one")
            }
            if record.cloned {
                return .warning(
                    name, notes[0] + ", stored on another machine; 'keyid rotate' replaces it (see --on-clone)")
            }
            notes.append(
                record.item.binding == nil
                    ? "not bound to a machine" : "bound to this machine")
            return .ok(name, notes.joined(separator: ", "))
        } catch .notFound {
            return .ok(name, "none stored yet for \(key); 'keyid get --create' makes one")
        } catch .locked(let message) {
            return .warning(name, message)
        } catch {
            return .fail(name, error)
        }
    }
}
