import Dispatch
import Glibc
import KeyIDKit

// A program that uses KeyIDKit as any Swift program would (`import KeyIDKit`, the public API
// only), for the tests that need the library in a process of its own: racing the keyid
// command, a provider restarted under it, a stalled provider, and what it leaves alone.
//
//   keyid-library-probe race THREADS SERVICE ACCOUNT       one instance, THREADS threads
//   keyid-library-probe instances THREADS SERVICE ACCOUNT  one instance per thread
//   keyid-library-probe hold SERVICE ACCOUNT               getOrCreate, wait for a line, get
//   keyid-library-probe shared-hold SERVICE ACCOUNT        hold, while holding GLib's shared
//                                                          session-bus connection (first line:
//                                                          its unique name), as GTK programs do
//   keyid-library-probe forked SERVICE ACCOUNT MILLISECONDS  takes GLib's shared session-bus
//                                                          connection, forks, and in the child
//                                                          one get with that timeout; prints
//                                                          "MILLISECONDS-TAKEN RESULT"
//   keyid-library-probe repeat N SERVICE ACCOUNT           getOrCreate, N gets, wait for a line
//   keyid-library-probe get SERVICE ACCOUNT MILLISECONDS [LINGER]
//                                                          one get with that timeout (then LINGER
//                                                          milliseconds more before it exits)
//   keyid-library-probe quiet SERVICE ACCOUNT              every operation; prints nothing
//   keyid-library-probe diagnose                           diagnose's checks, one a line
//   keyid-library-probe pipe SERVICE ACCOUNT               two instances connecting at once on
//                                                          two threads; prints SIGPIPE's
//                                                          disposition after, "default" or "ignored"
//   keyid-library-probe prompt SERVICE ACCOUNT             one get, prompts allowed (5 s timeout)
//   keyid-library-probe prompt-hold SERVICE ACCOUNT MILLISECONDS
//                                                          one get, prompts allowed, with that
//                                                          timeout; prints "RESULT" and then the
//                                                          milliseconds it took; waits for a line
//   keyid-library-probe restarts SERVICE ACCOUNT           one instance: a getOrCreate for each
//                                                          line on stdin, printing "ID fds
//                                                          THREADS RSS" (or "error ...") each
//   keyid-library-probe soak N SERVICE ACCOUNT             N instances made, used (getOrCreate)
//                                                          and dropped; prints "fds THREADS RSS"
//                                                          (KiB) after the 100th and after the last
//   keyid-library-probe forks COUNT SERVICE ACCOUNT MILLISECONDS
//                                                          children made by fork while the parent is
//                                                          busy, each bounded (Forks.swift)
//   keyid-library-probe connects N SERVICE ACCOUNT MILLISECONDS
//                                                          one instance, N gets against a bus that
//                                                          may not answer (Faults.swift)
//   keyid-library-probe op OPERATION SERVICE ACCOUNT MILLISECONDS [prompt]
//                                                          one get, getOrCreate, create, rotate or
//                                                          delete with that timeout (prompts allowed
//                                                          with "prompt"): "ok ID" ("ok" for delete)
//                                                          or "error STATUS MESSAGE", and each GLib
//                                                          message a line "glib: DOMAIN: MESSAGE",
//                                                          none on stderr (Faults.swift)
//
// Results go to standard output, one per line: an ID, or "error STATUS MESSAGE".

func line(_ text: String) {
    let text = text + "\n"
    _ = write(1, text, text.utf8.count)
}

func describe(_ body: () throws(KeyIDError) -> DeviceID) -> String {
    do {
        return try body().uuidString
    } catch {
        return "error \(error.exitCode) \(error.message)"
    }
}

/// Runs `body` on `count` threads at once; returns their results in thread order.
func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> String) -> [String] {
    let results = UnsafeMutableBufferPointer<String>.allocate(capacity: count)
    results.initialize(repeating: "")
    nonisolated(unsafe) let shared = results
    DispatchQueue.concurrentPerform(iterations: count) { index in shared[index] = body(index) }
    defer {
        results.deinitialize()
        results.deallocate()
    }
    return Array(results)
}

/// The signal dispositions a library must leave as it found them (SIGPIPE is GIO's: its first
/// socket ignores it).
func dispositions(of signals: [Int32] = [SIGALRM, SIGTERM, SIGINT, SIGHUP, SIGCHLD]) -> [Int] {
    signals.map { signal in
        var action = sigaction()
        sigaction(signal, nil, &action)
        return unsafeBitCast(action.__sigaction_handler.sa_handler, to: Int.self)
    }
}

/// The README's example, as written there (a test holds the two together): it must compile.
// swift-format-ignore
func documentedUsage() throws {
    let ids = try DeviceIDs()                                  // Secret Service, never prompts, bounded
    let files = try DeviceIDs(backend: .file(directory: "/var/lib/example"))
    let id = try ids.getOrCreate(service: "com.example.app", account: "device-id")
    let same = try ids.get(service: "com.example.app", account: "device-id")   // KeyIDError.notFound
    let new = try ids.create(service: "com.example.app", account: "device-id") // KeyIDError.alreadyExists
    let next = try ids.rotate(service: "com.example.app", account: "device-id")
    try ids.delete(service: "com.example.app", account: "device-id")           // KeyIDError.notFound
    print(id.uuidString)                                       // DeviceID: Hashable, Sendable
    _ = (files, same, new, next)
}

/// Takes GLib's shared session-bus connection (`g_bus_get_sync`) and keeps it for the life of
/// the process, as a GTK or GApplication program does. GIO is reached through the dynamic
/// loader: the probe uses nothing of KeyIDKit's but its public API.
func glibSharedConnection() -> OpaquePointer? {
    typealias BusGet = @convention(c) (Int32, OpaquePointer?, OpaquePointer?) -> OpaquePointer?
    guard let gio = dlopen("libgio-2.0.so.0", RTLD_NOW), let get = dlsym(gio, "g_bus_get_sync") else { return nil }
    return unsafeBitCast(get, to: BusGet.self)(2, nil, nil)  // G_BUS_TYPE_SESSION
}

/// ``glibSharedConnection()``'s unique name.
func holdGLibSharedConnection() -> String {
    typealias UniqueName = @convention(c) (OpaquePointer?) -> UnsafePointer<CChar>?
    guard let gio = dlopen("libgio-2.0.so.0", RTLD_NOW), let name = dlsym(gio, "g_dbus_connection_get_unique_name"),
        let shared = glibSharedConnection(), let unique = unsafeBitCast(name, to: UniqueName.self)(shared)
    else { return "error: no shared connection" }
    return String(cString: unique)
}

/// The process's open file descriptors, threads and resident memory (KiB), from /proc.
func footprint() -> String {
    func entries(_ directory: String) -> Int {
        guard let stream = opendir(directory) else { return -1 }
        defer { closedir(stream) }
        var count = 0
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { count += 1 }
        }
        return count
    }
    var statm = [CChar](repeating: 0, count: 128)
    let file = fopen("/proc/self/statm", "r")
    defer { if let file { fclose(file) } }
    let read = file.flatMap { fgets(&statm, 128, $0) } != nil
    let line = String(decoding: statm.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    let pages = read ? line.split(separator: " ") : []
    let resident = pages.count > 1 ? (Int(pages[1]) ?? 0) * sysconf(Int32(_SC_PAGESIZE)) / 1024 : -1
    return "\(entries("/proc/self/fd")) \(entries("/proc/self/task")) \(resident)"
}

let arguments = Array(CommandLine.arguments.dropFirst())
let needed = [
    "race": 4, "instances": 4, "repeat": 4, "get": 4, "hold": 3, "shared-hold": 3, "quiet": 3, "diagnose": 1, "soak": 4,
    "pipe": 3, "prompt": 3, "restarts": 3, "forked": 4, "prompt-hold": 4, "forks": 5, "connects": 5, "op": 5,
]
guard let command = arguments.first, let count = needed[command], arguments.count >= count else {
    line(
        "usage: keyid-library-probe race|instances|hold|shared-hold|forked|forks|connects|op|repeat|get|quiet|diagnose|soak|pipe|prompt|prompt-hold|restarts ..."
    )
    exit(2)
}
switch arguments[0] {
case "race", "instances":
    let count = Int(arguments[1]) ?? 8
    let (service, account) = (arguments[2], arguments[3])
    let shared = try DeviceIDs()
    let perThread = arguments[0] == "instances"
    for result in onThreads(
        count,
        { _ in
            describe { () throws(KeyIDError) in
                try (perThread ? try DeviceIDs() : shared).getOrCreate(service: service, account: account)
            }
        })
    {
        line(result)
    }
case "hold", "shared-hold":
    let (service, account) = (arguments[1], arguments[2])
    if arguments[0] == "shared-hold" { line(holdGLibSharedConnection()) }
    let ids = try DeviceIDs(options: .init(timeout: .seconds(5)))
    line(describe { () throws(KeyIDError) in try ids.getOrCreate(service: service, account: account) })
    _ = readLine()
    line(describe { () throws(KeyIDError) in try ids.get(service: service, account: account) })
case "repeat":
    let count = Int(arguments[1]) ?? 10
    let (service, account) = (arguments[2], arguments[3])
    let ids = try DeviceIDs()
    let first = describe { () throws(KeyIDError) in try ids.getOrCreate(service: service, account: account) }
    let all = (0..<count).map { _ in
        describe { () throws(KeyIDError) in try ids.get(service: service, account: account) }
    }
    line(all.allSatisfy { $0 == first } ? first : "different: \(all)")
    _ = readLine()
case "get":
    let (service, account) = (arguments[1], arguments[2])
    let milliseconds = Int(arguments[3]) ?? 1000
    let ids = try DeviceIDs(options: .init(timeout: .milliseconds(milliseconds)))
    line(describe { () throws(KeyIDError) in try ids.get(service: service, account: account) })
    if arguments.count > 4, let linger = UInt32(arguments[4]) { usleep(linger * 1000) }
case "forked":
    let (service, account, milliseconds) = (arguments[1], arguments[2], Int(arguments[3]) ?? 1000)
    guard holdGLibSharedConnection().hasPrefix(":") else {
        line("error: no shared connection")
        exit(1)
    }
    let child = fork()
    if child == 0 {
        let start = DispatchTime.now().uptimeNanoseconds
        let result = describe { () throws(KeyIDError) in
            try DeviceIDs(options: .init(timeout: .milliseconds(milliseconds))).get(service: service, account: account)
        }
        line("\((DispatchTime.now().uptimeNanoseconds - start) / 1_000_000) \(result)")
        _exit(0)
    }
    var status: Int32 = 0
    waitpid(child, &status, 0)
case "forks":
    let (count, milliseconds) = (Int(arguments[1]) ?? 200, Int(arguments[4]) ?? 500)
    forks(count: count, service: arguments[2], account: arguments[3], milliseconds: milliseconds)
    _exit(0)
case "connects":
    let (count, milliseconds) = (Int(arguments[1]) ?? 30, Int(arguments[4]) ?? 100)
    connects(count: count, service: arguments[2], account: arguments[3], milliseconds: milliseconds)
case "op":
    operation(
        arguments[1], service: arguments[2], account: arguments[3], milliseconds: Int(arguments[4]) ?? 1000,
        prompts: arguments.count > 5 && arguments[5] == "prompt")
case "soak":
    let count = max(Int(arguments[1]) ?? 1000, 100)
    let (service, account) = (arguments[2], arguments[3])
    var baseline = ""
    for index in 1...count {
        let result = describe { () throws(KeyIDError) in
            try DeviceIDs().getOrCreate(service: service, account: account)
        }
        if result.hasPrefix("error") {
            line(result)
            exit(1)
        }
        if index == 100 {
            baseline = footprint()
            line(baseline)
        }
    }
    // The last figures once GLib's threads let go of what they finish after a call returned
    // (GDBus's worker thread drops the last reference of a close's task, and with it the
    // context, a moment after): up to 3 s for the descriptors to come back to the baseline.
    for _ in 0..<30 where footprint().split(separator: " ").first != baseline.split(separator: " ").first {
        usleep(100_000)
    }
    line(footprint())
case "restarts":
    let ids = try DeviceIDs(options: .init(timeout: .seconds(5)))
    while readLine() != nil {
        line(
            describe { () throws(KeyIDError) in try ids.getOrCreate(service: arguments[1], account: arguments[2]) }
                + " " + footprint())
    }
case "prompt":
    let ids = try DeviceIDs(options: .init(allowsPrompt: true, timeout: .seconds(5)))
    line(describe { () throws(KeyIDError) in try ids.get(service: arguments[1], account: arguments[2]) })
case "prompt-hold":
    let milliseconds = Int(arguments[3]) ?? 1000
    let ids = try DeviceIDs(options: .init(allowsPrompt: true, timeout: .milliseconds(milliseconds)))
    let start = DispatchTime.now().uptimeNanoseconds
    let result = describe { () throws(KeyIDError) in try ids.get(service: arguments[1], account: arguments[2]) }
    line(result)
    line("\((DispatchTime.now().uptimeNanoseconds - start) / 1_000_000)")
    _ = readLine()
case "diagnose":
    try DeviceIDs().diagnose { check in line("\(check.status.rawValue) \(check.name): \(check.detail)") }
case "quiet":
    let (service, account) = (arguments[1], arguments[2])
    let before = dispositions()
    let ids = try DeviceIDs()
    _ = try? ids.get(service: service, account: account)
    _ = try? ids.getOrCreate(service: service, account: account)
    _ = try? ids.create(service: service, account: account)
    _ = try? ids.rotate(service: service, account: account)
    try? ids.delete(service: service, account: account)
    try? ids.delete(service: service, account: account)
    _ = try? ids.getOrCreate(service: "", account: account)
    _ = try? DeviceIDs(backend: .file(directory: "/proc/keyid")).getOrCreate(service: service, account: account)
    // The others as they were, and SIGPIPE ignored, as GIO's first socket leaves it.
    exit(dispositions() == before && dispositions(of: [SIGPIPE]) == [1] ? 0 : 3)
case "pipe":
    let (service, account) = (arguments[1], arguments[2])
    signal(SIGPIPE, SIG_DFL)
    for result in onThreads(
        2,
        { _ in describe { () throws(KeyIDError) in try DeviceIDs().getOrCreate(service: service, account: account) } })
    where result.hasPrefix("error") {
        line(result)
    }
    line(dispositions(of: [SIGPIPE]) == [1] ? "ignored" : "default")
default:
    line("unknown command \(arguments[0])")
    exit(2)
}
