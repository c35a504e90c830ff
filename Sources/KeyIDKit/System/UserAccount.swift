import Glibc

/// A user of this machine, as the password database describes it, and the way root becomes
/// that user for the rest of the process.
package struct UserAccount: Equatable, Sendable {
    package var name: String
    package var uid: UInt32
    package var gid: UInt32
    /// The home directory.
    package var home: String

    /// Looks a user up by name (`getpwnam_r`); `nil` when there is none.
    package static func named(_ name: String) throws(SystemFailure) -> UserAccount? {
        try lookUp("'\(DisplayText.escaped(name))'", "getpwnam_r") { entry, buffer, result in
            getpwnam_r(name, &entry, buffer, 16_384, &result)
        }
    }

    /// Looks a user up by user ID (`getpwuid_r`); `nil` when there is none.
    package static func withUID(_ uid: UInt32) throws(SystemFailure) -> UserAccount? {
        try lookUp("\(uid)", "getpwuid_r") { entry, buffer, result in getpwuid_r(uid, &entry, buffer, 16_384, &result) }
    }

    private static func lookUp(
        _ what: String, _ function: String,
        _ call: (inout passwd, UnsafeMutablePointer<CChar>, inout UnsafeMutablePointer<passwd>?) -> Int32
    ) throws(SystemFailure) -> UserAccount? {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 16_384)
        let code = buffer.withUnsafeMutableBufferPointer { call(&entry, $0.baseAddress!, &result) }
        // These two return the errno rather than setting it.
        guard code == 0 else {
            let failure = SystemCallError(function, errno: code)
            throw SystemFailure(.failed(.user("cannot look up the user \(what): \(failure)")), systemCall: failure)
        }
        guard result != nil else { return nil }
        return UserAccount(
            name: String(cString: entry.pw_name), uid: entry.pw_uid, gid: entry.pw_gid,
            home: entry.pw_dir.map { String(cString: $0) } ?? "/")
    }

    /// The effective user of this process.
    package static var effectiveUID: UInt32 { geteuid() }

    /// Takes this user's supplementary groups, group ID and user ID, real, effective and saved,
    /// for good, then checks in `/proc/self/status` that every ID changed and that root cannot
    /// be regained. Only root can do it. (As root, `setgid` and `setuid` set the real,
    /// effective and saved IDs together, as `setresgid` and `setresuid` with three equal
    /// arguments do; glibc's headers hide the latter from Swift.)
    package func become() throws(SystemFailure) {
        func refusal(_ what: String, _ systemCall: SystemCallError? = nil) -> SystemFailure {
            SystemFailure(.failed(.user("cannot act as \(name): \(what)")), systemCall: systemCall)
        }
        do throws(SystemCallError) {
            try POSIX.call("initgroups") { initgroups(name, gid) }
            try POSIX.call("setgid") { setgid(gid) }
            try POSIX.call("setuid") { setuid(uid) }
        } catch {
            throw refusal("\(error.call) failed: \(error)", error)
        }
        guard Self.currentIDs("Uid:") == [uid, uid, uid, uid], Self.currentIDs("Gid:") == [gid, gid, gid, gid] else {
            throw refusal("the user and group IDs did not all change")
        }
        if uid != 0, setuid(0) == 0 || seteuid(0) == 0 {
            throw refusal("root could be regained after dropping to it")
        }
        // Capabilities can outlive the change of user (SECBIT_NO_SETUID_FIXUP in containers).
        for set in ["CapPrm:", "CapEff:", "CapAmb:"] where Self.status(set).contains(where: { $0 != "0" }) {
            throw refusal("the process keeps capabilities (\(set))")
        }
    }

    /// The real, effective, saved and file-system IDs on a line of `/proc/self/status`.
    private static func currentIDs(_ label: String) -> [UInt32] {
        status(label).split(whereSeparator: { $0 == "\t" || $0 == " " }).compactMap { UInt32($0) }
    }

    /// What follows `label` on its line of `/proc/self/status` ("" when there is none).
    private static func status(_ label: String) -> String {
        guard let bytes = try? POSIX.readFile("/proc/self/status", limit: 65_536) else { return "" }
        let line = String(decoding: bytes, as: UTF8.self).split(separator: "\n").first { $0.hasPrefix(label) }
        return line.map { String($0.dropFirst(label.count)).trimmingWhitespace() } ?? ""
    }
}

extension String {
    /// Without leading and trailing spaces and tabs.
    fileprivate func trimmingWhitespace() -> String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
