import Glibc

/// Bounds a whole run in time. A cancellable D-Bus call is not enough: an unanswered
/// unlock prompt or a stalled daemon can block libsecret indefinitely, so a separate
/// thread ends the run when the deadline passes.
public final class Watchdog: @unchecked Sendable {
    private let seconds: Double
    private let onExpiry: @Sendable () -> Void
    private var mutex = pthread_mutex_t()
    private var finished = false

    /// `onExpiry` runs on the watchdog's thread if ``finish()`` has not been called when
    /// the deadline passes; it is expected to end the process.
    public init(seconds: Double, onExpiry: @escaping @Sendable () -> Void) {
        self.seconds = seconds
        self.onExpiry = onExpiry
        pthread_mutex_init(&mutex, nil)
    }

    /// Starts the countdown.
    public func start() {
        let context = Unmanaged.passRetained(self).toOpaque()
        var thread = pthread_t()
        let started = pthread_create(
            &thread, nil,
            { raw in
                let watchdog = Unmanaged<Watchdog>.fromOpaque(raw!).takeRetainedValue()
                watchdog.wait()
                return nil
            }, context)
        if started == 0 {
            pthread_detach(thread)
        } else {
            Unmanaged<Watchdog>.fromOpaque(context).release()
        }
    }

    /// Stops the countdown. Returns false when the deadline has already passed, in which
    /// case the caller must print nothing: the expiry handler owns the outcome.
    @discardableResult
    public func finish() -> Bool {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        if finished { return false }
        finished = true
        return true
    }

    private func wait() {
        var remaining = timespec(tv_sec: Int(seconds), tv_nsec: Int((seconds - seconds.rounded(.down)) * 1e9))
        var left = timespec()
        while nanosleep(&remaining, &left) != 0, errno == EINTR {
            remaining = left
        }
        pthread_mutex_lock(&mutex)
        if !finished {
            finished = true
            onExpiry()
        }
        pthread_mutex_unlock(&mutex)
    }
}
