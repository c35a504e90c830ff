import Glibc
import Synchronization

/// The command's deadline for a whole run: a real-time timer whose SIGALRM ends the process,
/// whatever it is blocked in, and a second timer that sends SIGKILL a second later, for a
/// wait no handler can interrupt (a hung NFS mount). One deadline per process; the library
/// never arms it.
package enum Watchdog {
    /// Arms the deadline: unless ``finish()`` comes first, after `seconds` the process
    /// writes `message` to standard error and exits with `status`.
    package static func start(seconds: Double, message: String, status: Int32) {
        var off = itimerval()
        setitimer(realTime, &off, nil)
        // The signal handler may only touch prepared memory: render the message now.
        update(message: message)
        expiryStatus = status
        claimed.store(false, ordering: .sequentiallyConsistent)

        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in expire() }
        action.sa_flags = SA_RESTART
        sigemptyset(&action.sa_mask)
        sigaction(SIGALRM, &action, nil)
        // A parent may have started keyid with signals blocked (the mask survives exec);
        // threads created later inherit this thread's mask.
        var alarm = sigset_t()
        sigemptyset(&alarm)
        sigaddset(&alarm, SIGALRM)
        pthread_sigmask(SIG_UNBLOCK, &alarm, nil)

        if !hasBackstop {
            var event = sigevent()
            event.sigev_notify = Int32(SIGEV_SIGNAL)
            event.sigev_signo = SIGKILL
            hasBackstop = timer_create(CLOCK_MONOTONIC, &event, &backstop) == 0
        }
        let whole = seconds.rounded(.down)
        var deadline = itimerval()
        deadline.it_value.tv_sec = Int(whole)
        deadline.it_value.tv_usec = Int((seconds - whole) * 1e6)
        if deadline.it_value.tv_sec == 0, deadline.it_value.tv_usec == 0 { deadline.it_value.tv_usec = 1 }
        if hasBackstop {
            var last = itimerspec()
            last.it_value.tv_sec = deadline.it_value.tv_sec + 1
            last.it_value.tv_nsec = deadline.it_value.tv_usec * 1000
            timer_settime(backstop, 0, &last, nil)
        }
        setitimer(realTime, &deadline, nil)
    }

    /// Replaces the message an expiry writes, leaving the deadline as it is. The message is
    /// one allocation, the previous message's address and its own length first, published
    /// with one atomic store; an old one stays allocated (reachable from the new one), since the
    /// signal handler may be reading it (a run replaces it at most a few times).
    package static func update(message: String) {
        var message = message
        message.withUTF8 { bytes in
            let header = 2 * MemoryLayout<Int>.size
            let buffer = UnsafeMutableRawPointer.allocate(
                byteCount: header + bytes.count, alignment: MemoryLayout<Int>.alignment)
            buffer.storeBytes(of: expiryMessage.load(ordering: .sequentiallyConsistent), as: Int.self)
            buffer.storeBytes(of: bytes.count, toByteOffset: MemoryLayout<Int>.size, as: Int.self)
            if let base = bytes.baseAddress { (buffer + header).copyMemory(from: base, byteCount: bytes.count) }
            expiryMessage.store(Int(bitPattern: buffer), ordering: .sequentiallyConsistent)
        }
    }

    /// Disarms the deadline. Returns false when it has already passed: the expiry then owns
    /// the outcome, and the caller must print nothing and wait for it (``awaitExpiry()``).
    package static func finish() -> Bool {
        guard claimed.compareExchange(expected: false, desired: true, ordering: .sequentiallyConsistent).exchanged
        else { return false }
        var off = itimerval()
        setitimer(realTime, &off, nil)
        if hasBackstop {
            var never = itimerspec()
            timer_settime(backstop, 0, &never, nil)
        }
        return true
    }

    /// Waits for an expiry that is under way (on another thread) to end the process.
    package static func awaitExpiry() -> Never {
        while true { pause() }
    }

    private static var realTime: __itimer_which_t { __itimer_which_t(ITIMER_REAL.rawValue) }

    /// The SIGKILL timer, created on first use. (Its handle may be null: glibc's handle is
    /// the kernel's timer number, and the first is 0.)
    nonisolated(unsafe) private static var backstop: timer_t?
    nonisolated(unsafe) private static var hasBackstop = false
}

/// Runs in the signal handler: only async-signal-safe calls from here on.
private func expire() {
    guard claimed.compareExchange(expected: false, desired: true, ordering: .sequentiallyConsistent).exchanged
    else { return }
    if let message = UnsafeMutableRawPointer(bitPattern: expiryMessage.load(ordering: .sequentiallyConsistent)) {
        let count = message.load(fromByteOffset: MemoryLayout<Int>.size, as: Int.self)
        let base = message + 2 * MemoryLayout<Int>.size
        var offset = 0
        while offset < count {
            let written = write(2, base + offset, count - offset)
            if written > 0 {
                offset += written
            } else if written < 0, errno == EINTR {
                continue
            } else {
                break
            }
        }
    }
    _exit(expiryStatus)
}

/// Set by whichever comes first, ``Watchdog/finish()`` or the expiry.
private let claimed = Atomic<Bool>(false)
/// Where what an expiry writes is (its address, as an integer): the previous message's address
/// (0 for none), its length (each an `Int`), then its bytes.
private let expiryMessage = Atomic<Int>(0)
// Read in the signal handler: no exclusivity checks there (they call into the runtime).
@exclusivity(unchecked) nonisolated(unsafe) private var expiryStatus: Int32 = 0
