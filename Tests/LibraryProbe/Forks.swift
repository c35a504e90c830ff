import Glibc
import KeyIDKit
import Synchronization

// `keyid-library-probe forks COUNT SERVICE ACCOUNT MILLISECONDS`: children made by fork while
// the parent is busy, each bounded by MILLISECONDS and a second more (then it is killed and
// counted as hung). One line a phase, in this order:
//
//   fresh       the parent never used D-Bus: a child reads with an instance the parent made,
//               then with its own (each "ok" or "notfound"), then a grandchild it forks after
//               those reads calls ("refused")
//   host-gdbus  the parent holds GLib's shared connection and two threads call the bus on it
//               in a loop; each child calls on an instance of its own
//   keyid-busy  two threads loop gets on instance A and a third holds instance B's lock (it
//               waits inside B's diagnose); each child calls A, then B
//   file        a thread loops getOrCreate on a file-backed instance F; each child calls F
//
// Each line reads "PHASE children=N hung=H slowest=MS kinds=KIND:COUNT,...", a child's kind
// being "ok", "notfound", "refused" (error 8 naming the fork), or "errorSTATUS", joined by "/"
// when it made several calls.

/// Whether the parent's busy threads keep going.
private let busy = Atomic<Bool>(true)
/// Set once a thread waits inside instance B's diagnose, holding B's lock.
private let holding = Atomic<Bool>(false)
/// How many calls some of the parent's busy threads made.
private final class Counter: Sendable {
    let calls = Atomic<Int>(0)
}

/// Starts `threads` threads that run `body` until the end, and waits until they ran it a few
/// times each: a thread of the parent that runs Swift code for the first time at the fork may
/// hold a lock of the Swift runtime that the child then waits for forever (the child would
/// hang in the probe, not in the library).
private func keepBusy(threads: Int = 1, _ body: @escaping @Sendable () -> Void) {
    let counter = Counter()
    for _ in 0..<threads {
        startThread {
            while busy.load(ordering: .relaxed) {
                body()
                counter.calls.add(1, ordering: .relaxed)
            }
        }
    }
    while counter.calls.load(ordering: .relaxed) < 5 * threads { usleep(1000) }
}

/// A closure run by a thread of its own.
private final class ThreadBody: @unchecked Sendable {
    let run: () -> Void
    init(_ run: @escaping () -> Void) { self.run = run }
}

/// Starts a detached POSIX thread running `body` (Dispatch's threads are not the probe's to
/// block).
func startThread(_ body: @escaping @Sendable () -> Void) {
    var thread = pthread_t()
    let box = Unmanaged.passRetained(ThreadBody(body)).toOpaque()
    pthread_create(
        &thread, nil,
        { raw in
            Unmanaged<ThreadBody>.fromOpaque(raw!).takeRetainedValue().run()
            return nil
        }, box)
    pthread_detach(thread)
}

/// Milliseconds on the monotonic clock.
func monotonicMilliseconds() -> Int {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return now.tv_sec * 1000 + now.tv_nsec / 1_000_000
}

/// What a call came to, in one word, and how long it took: "KIND MS".
func kind(_ body: () throws(KeyIDError) -> Void) -> (String, Int) {
    let start = monotonicMilliseconds()
    let word: String
    do {
        try body()
        word = "ok"
    } catch {
        if error.exitCode == 1 {
            word = "notfound"
        } else if error.exitCode == 8 && error.message.contains("fork") {
            word = "refused"
        } else {
            word = "error\(error.exitCode)"
        }
    }
    return (word, monotonicMilliseconds() - start)
}

/// A child made by fork, whose one line of outcome comes back through a pipe.
private struct Child {
    let process: pid_t
    let pipe: Int32
}

/// Forks a child that runs `body` (which calls nothing but the instance and the kernel) and
/// writes its line to the parent; `nil` when the fork failed.
private func forkChild(_ body: () -> String) -> Child? {
    var ends: [Int32] = [0, 0]
    guard pipe(&ends) == 0 else { return nil }
    let process = fork()
    if process == 0 {
        close(ends[0])
        let text = body() + "\n"
        _ = write(ends[1], text, text.utf8.count)
        _exit(0)
    }
    close(ends[1])
    guard process > 0 else {
        close(ends[0])
        return nil
    }
    return Child(process: process, pipe: ends[0])
}

/// Reads a child's line, waiting until `deadline` (monotonic milliseconds); `nil` when none
/// came, and then the child is killed. The child is reaped either way.
private func collect(_ child: Child, until deadline: Int) -> String? {
    defer {
        var status: Int32 = 0
        waitpid(child.process, &status, 0)
        close(child.pipe)
    }
    var text: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 512)
    while !text.contains(UInt8(ascii: "\n")) {
        var descriptor = pollfd(fd: child.pipe, events: Int16(POLLIN), revents: 0)
        let left = deadline - monotonicMilliseconds()
        guard left > 0, poll(&descriptor, 1, Int32(left)) > 0 else { break }
        let count = read(child.pipe, &buffer, buffer.count)
        guard count > 0 else { break }
        text += buffer.prefix(count)
    }
    guard let end = text.firstIndex(of: UInt8(ascii: "\n")) else {
        kill(child.process, SIGKILL)
        return nil
    }
    return String(decoding: text[..<end], as: UTF8.self)
}

/// Forks `count` children running `body`, `batch` at a time, each given `milliseconds` and a
/// second more; prints the phase's line.
private func phase(_ name: String, count: Int, batch: Int = 20, milliseconds: Int, _ body: () -> String) {
    var kinds: [String: Int] = [:]
    var hung = 0
    var slowest = 0
    var done = 0
    while done < count {
        let started = (0..<min(batch, count - done)).compactMap { _ in forkChild(body) }
        let deadline = monotonicMilliseconds() + milliseconds + 1000
        for child in started {
            guard let reply = collect(child, until: deadline) else {
                hung += 1
                continue
            }
            let fields = reply.split(separator: " ")
            kinds[fields.first.map(String.init) ?? "?", default: 0] += 1
            slowest = max(slowest, fields.dropFirst().compactMap { Int($0) }.max() ?? 0)
        }
        done += max(started.count, 1)
    }
    let summary = kinds.sorted { $0.key < $1.key }.map { "\($0.key):\($0.value)" }.joined(separator: ",")
    line("\(name) children=\(count) hung=\(hung) slowest=\(slowest) kinds=\(summary)")
}

/// Joins the kinds and times of several calls into a child's line: "KIND/KIND MS".
private func joined(_ outcomes: [(String, Int)]) -> String {
    outcomes.map(\.0).joined(separator: "/") + " " + String(outcomes.map(\.1).max() ?? 0)
}

/// A call of the bus on GLib's shared connection, `g_dbus_connection_call_sync` reached
/// through the dynamic loader; `nil` when GIO is not there.
private func busCaller() -> (@Sendable () -> Void)? {
    typealias CallSync =
        @convention(c) (
            OpaquePointer?, UnsafePointer<CChar>?, UnsafePointer<CChar>?, UnsafePointer<CChar>?,
            UnsafePointer<CChar>?, OpaquePointer?, OpaquePointer?, Int32, Int32, OpaquePointer?, OpaquePointer?
        ) -> OpaquePointer?
    typealias Unref = @convention(c) (OpaquePointer?) -> Void
    guard let gio = dlopen("libgio-2.0.so.0", RTLD_NOW), let call = dlsym(gio, "g_dbus_connection_call_sync"),
        let unref = dlsym(gio, "g_variant_unref"), let shared = glibSharedConnection()
    else { return nil }
    let callSync = unsafeBitCast(call, to: CallSync.self)
    let variantUnref = unsafeBitCast(unref, to: Unref.self)
    nonisolated(unsafe) let connection = shared
    return {
        let reply = callSync(
            connection, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetId", nil, nil, 0,
            -1, nil, nil)
        if let reply { variantUnref(reply) }
    }
}

/// The `forks` mode (see the top of this file).
func forks(count: Int, service: String, account: String, milliseconds: Int) {
    let options = DeviceIDs.Options(timeout: .milliseconds(milliseconds))
    let get: @Sendable (DeviceIDs) throws(KeyIDError) -> Void = { ids throws(KeyIDError) in
        _ = try ids.get(service: service, account: account)
    }
    // 1. Nothing in this process has used D-Bus yet; an instance made here is used in children.
    guard let early = try? DeviceIDs(options: options) else { exit(1) }
    phase("fresh", count: 4, batch: 1, milliseconds: 3 * milliseconds) {
        let inherited = kind { () throws(KeyIDError) in try get(early) }
        let own = kind { () throws(KeyIDError) in try get(try DeviceIDs(options: options)) }
        let grandchild = forkChild {
            joined([kind { () throws(KeyIDError) in try get(try DeviceIDs(options: options)) }])
        }
        let later = grandchild.flatMap { collect($0, until: monotonicMilliseconds() + milliseconds + 1000) }
        let words = later?.split(separator: " ").map(String.init) ?? ["hung", "0"]
        return joined([inherited, own, (words[0], Int(words.last ?? "") ?? 0)])
    }
    // 2. The host's own GDBus traffic keeps GDBus's thread busy.
    guard let callBus = busCaller() else {
        line("error: no shared connection")
        exit(1)
    }
    keepBusy(threads: 2, callBus)
    phase("host-gdbus", count: count, milliseconds: milliseconds) {
        joined([kind { () throws(KeyIDError) in try get(try DeviceIDs(options: options)) }])
    }
    // 3. Calls of keyid's own, and a lock held.
    guard let first = try? DeviceIDs(options: options), let second = try? DeviceIDs(options: options) else { exit(1) }
    keepBusy(threads: 2) { try? get(first) }
    startThread {
        try? second.diagnose { _ in
            holding.store(true, ordering: .releasing)
            while busy.load(ordering: .relaxed) { usleep(10_000) }
        }
    }
    while !holding.load(ordering: .acquiring) { usleep(1000) }
    phase("keyid-busy", count: count, milliseconds: milliseconds) {
        joined([kind { () throws(KeyIDError) in try get(first) }, kind { () throws(KeyIDError) in try get(second) }])
    }
    // 4. The file backend, busy in the parent.
    let directory = "/tmp/keyid-forks-\(getpid())"
    guard let files = try? DeviceIDs(backend: .file(directory: directory), options: options) else { exit(1) }
    keepBusy { _ = try? files.getOrCreate(service: service, account: account) }
    phase("file", count: max(count / 4, 1), milliseconds: milliseconds) {
        joined([kind { () throws(KeyIDError) in _ = try files.getOrCreate(service: service, account: account) }])
    }
    busy.store(false, ordering: .relaxed)
    _ = try? files.delete(service: service, account: account)
    rmdir(directory)
}
