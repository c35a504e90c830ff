import Glibc

/// A mutual-exclusion lock over a value, on `pthread_mutex_t`: the library's calls take turns
/// through it. Not the standard library's `Mutex`, whose futex is invisible to
/// ThreadSanitizer (`make sanitize` would report what it protects as races); a pthread mutex
/// is what the sanitizer watches.
package final class ThreadLock<Value>: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private var value: Value

    package init(_ value: Value) {
        self.value = value
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with the value, while no other thread can.
    package func withLock<T, E: Error>(_ body: (inout Value) throws(E) -> T) throws(E) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
