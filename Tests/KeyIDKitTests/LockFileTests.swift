import Foundation
import Testing

@testable import KeyIDKit
@testable import KeyIDTestSupport

@Suite("Lock file", .tags(.files))
struct LockFileTests {
    func temporaryDirectory() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("keyid-lock-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        return path
    }

    @Test("the directory is made 0700 and the file 0600")
    func modes() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let lock = try LockFile.acquire(in: root + "/keyid")
        #expect(lock.path == root + "/keyid/lock")
        let directory = try FileManager.default.attributesOfItem(atPath: root + "/keyid")
        let file = try FileManager.default.attributesOfItem(atPath: root + "/keyid/lock")
        #expect((directory[.posixPermissions] as? Int) == 0o700)
        #expect((file[.posixPermissions] as? Int) == 0o600)
    }

    @Test("the directory follows XDG_RUNTIME_DIR, then /run/user/UID, then XDG_CACHE_HOME, then HOME")
    func directory() throws {
        let runtime = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: runtime) }
        #expect(
            try Locations.lockDirectory(ProcessEnvironment(["XDG_RUNTIME_DIR": runtime, "HOME": "/h"])) == runtime
                + "/keyid")
        // Without a usable XDG_RUNTIME_DIR (unset, relative, or stale after su), the user's
        // /run/user/UID when it exists, so that ssh, cron and the desktop share one lock.
        let uid = geteuid()
        let standard = POSIX.isDirectory("/run/user/\(uid)", ownedBy: uid) ? "/run/user/\(uid)/keyid" : nil
        #expect(
            try Locations.lockDirectory(ProcessEnvironment(["XDG_CACHE_HOME": "/c", "HOME": "/h"])) == standard
                ?? "/c/keyid")
        for stale in ["relative", "/nonexistent-runtime"] {  // relative: not a path; missing: left by su
            #expect(
                try Locations.lockDirectory(ProcessEnvironment(["XDG_RUNTIME_DIR": stale, "HOME": "/h"]))
                    == standard ?? "/h/.cache/keyid")
        }
        // Without HOME, the home directory of the password database.
        let home = try #require(try UserAccount.withUID(uid)).home
        #expect(try Locations.lockDirectory(ProcessEnvironment([:])) == standard ?? home + "/.cache/keyid")
    }

    @Test("a symbolic link planted as the lock file is refused and not followed")
    func symlinkFile() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(
            atPath: root + "/keyid", withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        try FileManager.default.createSymbolicLink(atPath: root + "/keyid/lock", withDestinationPath: root + "/target")
        #expect {
            try LockFile.acquire(in: root + "/keyid")
        } throws: { error in
            lockFileFailure(error)?.systemCall == SystemCallError("openat", errno: ELOOP)
        }
        #expect(!FileManager.default.fileExists(atPath: root + "/target"))
    }

    @Test("a symbolic link planted as the directory is refused")
    func symlinkDirectory() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(atPath: root + "/elsewhere", withIntermediateDirectories: false)
        try FileManager.default.createSymbolicLink(atPath: root + "/keyid", withDestinationPath: root + "/elsewhere")
        // O_DIRECTORY with O_NOFOLLOW: Linux says ENOTDIR of a link, where a file gets ELOOP.
        #expect {
            try LockFile.acquire(in: root + "/keyid")
        } throws: { error in
            lockFileFailure(error)?.systemCall == SystemCallError("openat", errno: ENOTDIR)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: root + "/elsewhere").isEmpty)
    }

    @Test("a directory open to others, or owned by someone else, is refused")
    func foreignDirectory() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(
            atPath: root + "/keyid", withIntermediateDirectories: false, attributes: [.posixPermissions: 0o755])
        #expect {
            try LockFile.acquire(in: root + "/keyid")
        } throws: { error in
            let failure = lockFileFailure(error)
            return failure?.systemCall == nil && failure?.outcome.message.contains("chmod 700") == true
        }
        if geteuid() == 0 {
            chmod(root + "/keyid", 0o700)
            chown(root + "/keyid", 65534, 65534)
            #expect {
                try LockFile.acquire(in: root + "/keyid")
            } throws: { error in
                lockFileFailure(error)?.outcome.message.contains("belongs to user 65534") == true
            }
        }
    }

    @Test(
        "a lock file owned by someone else is refused", .enabled(if: geteuid() == 0, "only root can give a file away"))
    func foreignFile() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(
            atPath: root + "/keyid", withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        _ = FileManager.default.createFile(
            atPath: root + "/keyid/lock", contents: nil, attributes: [.posixPermissions: 0o600])
        chown(root + "/keyid/lock", 65534, 65534)
        #expect {
            try LockFile.acquire(in: root + "/keyid")
        } throws: { error in
            lockFileFailure(error)?.outcome.message.contains("belongs to user 65534") == true
        }
    }

    @Test("a path through a plain file is refused")
    func notADirectory() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        _ = FileManager.default.createFile(atPath: root + "/file", contents: Data())
        #expect {
            try LockFile.acquire(in: root + "/file/keyid")
        } throws: { error in
            lockFileFailure(error)?.systemCall == SystemCallError("open", errno: ENOTDIR)
        }
    }

    @Test(
        "a parent the user may not search is refused with the errno of the call",
        .enabled(if: geteuid() != 0, "root searches any directory"))
    func unsearchableParent() throws {
        let root = try temporaryDirectory()
        defer {
            chmod(root + "/closed", 0o700)
            try? FileManager.default.removeItem(atPath: root)
        }
        try FileManager.default.createDirectory(
            atPath: root + "/closed", withIntermediateDirectories: false, attributes: [.posixPermissions: 0])
        #expect {
            try LockFile.acquire(in: root + "/closed/inner/keyid")
        } throws: { error in
            lockFileFailure(error)?.systemCall == SystemCallError("open", errno: EACCES)
        }
    }
}

/// The failure, when `error` is a failure of the lock file.
func lockFileFailure(_ error: any Error) -> SystemFailure? {
    guard let failure = error as? SystemFailure, case .failed(.lockFile) = failure.outcome else { return nil }
    return failure
}
