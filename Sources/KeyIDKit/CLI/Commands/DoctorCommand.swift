/// `keyid doctor`: check, read-only, everything keyid depends on.
enum DoctorCommand {
    /// Runs the checks, handing each line to `emit` as soon as it is known, so that a stall
    /// (which the deadline ends) leaves the finished checks printed.
    static func run(_ settings: Settings, _ ids: DeviceIDs, _ environment: ProcessEnvironment, emit: (String) -> Void)
        throws(KeyIDError) -> CommandResult
    {
        var failure: Check?
        func report(_ check: Check) {
            let check = advise(check, serviceName: KeyIDCommand.serviceName(environment))
            if check.status == .fail, failure == nil { failure = check }
            emit(
                TextTable.pad(check.status.rawValue, 8) + TextTable.pad(check.name, nameWidth + 2) + check.detail + "\n"
            )
        }
        report(.ok("backend", settings.backend.rawValue))
        try ids.diagnose { report($0) }
        let storeFailed = failure != nil
        report(lockDirectory(environment))
        do throws(KeyIDError) {
            _ = try ids.machineID()
            report(.ok("machine ID", "readable; new IDs are bound to this machine"))
        } catch {
            report(.warning("machine ID", "\(CommandLineText.line(error)); clone detection is off"))
        }
        report(signals(ids))
        if !storeFailed {
            report(storedID(settings.key, ids))
        }
        return CommandResult(output: nil, status: failure?.exitCode ?? 0)
    }

    /// The width names are padded to: that of the longest usual one ("default keyring").
    static let nameWidth = 15

    /// A failed check in the command line's words, with the fix for where keyid runs: ssh and
    /// cron sessions, root, WSL.
    static func advise(_ check: Check, serviceName: String = SessionBus.defaultServiceName) -> Check {
        var check = check
        guard check.status == .fail else { return check }
        if let error = check.error { check.detail = CommandLineText.line(error, serviceName: serviceName) }
        let uid = UserAccount.effectiveUID
        if case .unavailable(.noBus) = check.error {
            if uid != 0 {
                check.detail +=
                    "; in an ssh or cron session the bus at /run/user/\(uid)/bus exists only while you are logged in: 'loginctl enable-linger' keeps it, and 'systemctl --user start gnome-keyring-daemon.socket' (or logging in once) starts the keyring"
            }
            if POSIX.isWSL {
                check.detail +=
                    "; on WSL, start a session bus and gnome-keyring in your shell's profile, or use --backend file"
            }
        }
        if case .unavailable(.temporaryKeyring) = check.error, POSIX.isWSL {
            check.detail += "; on WSL only the temporary keyring exists until you create one with a password"
        }
        return check
    }

    static func lockDirectory(_ environment: ProcessEnvironment) -> Check {
        do throws(KeyIDError) {
            let directory = try Locations.lockDirectory(environment)
            return .ok(
                "lock directory",
                try SystemFailure.reported { () throws(SystemFailure) in try LockFile.inspect(directory) })
        } catch {
            return .fail("lock directory", error)
        }
    }

    /// The signals this machine offers to the current user, which new IDs are bound to.
    static func signals(_ ids: DeviceIDs) -> Check {
        let readable = ids.availableSignals
        let unreadable = MachineSignal.allCases.filter { !readable.contains($0) }
        var detail = readable.isEmpty ? "none readable" : readable.map(\.rawValue).joined(separator: ", ")
        if !unreadable.isEmpty {
            detail +=
                "; not readable here: \(unreadable.map(\.rawValue).joined(separator: ", ")) (no cloud-init, no DMI, or root only), so not compared"
        }
        return .ok("clone signals", detail)
    }

    static func storedID(_ key: ItemKey, _ ids: DeviceIDs) -> Check {
        let name = "stored ID"
        do throws(KeyIDError) {
            let reading = try ids.read(key)
            let record = reading.record
            var notes = ["\(key): \(record.duplicates + 1 == 1 ? "one item" : "\(record.duplicates + 1) items")"]
            if record.duplicates > 0 {
                return .warning(name, notes[0] + "; keyid uses the oldest, and 'keyid rotate' keeps only one")
            }
            if reading.warnings.contains(.storedOnAnotherMachine) {
                let how = reading.cloneSignals.isEmpty ? "" : ": " + MachineSignal.differ(reading.cloneSignals)
                return .warning(
                    name, notes[0] + ", stored on another machine\(how); 'keyid rotate' replaces it (see --on-clone)")
            }
            let recorded = MachineSignal.allCases.filter { record.item.recorded($0) != nil }
            notes.append(
                recorded.isEmpty
                    ? "not bound to a machine"
                    : "bound to this machine (recorded: \(recorded.map(\.rawValue).joined(separator: ", ")))")
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
