import Glibc

/// The one lock primitive of the kit and the command: a non-recursive mutual-exclusion lock
/// built on `pthread_mutex_t`, with `Condition`s to wait on and `Locked` for a guarded value.
///
/// Used instead of `Synchronization.Mutex` and `Atomic`, which ThreadSanitizer on Linux does not
/// see (it reports false races between accesses made under them). The mutex lives in its own
/// heap allocation so its address never moves.
public final class Lock: @unchecked Sendable {
    fileprivate let mutex: UnsafeMutablePointer<pthread_mutex_t>

    /// A new, unlocked lock.
    public init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        let rc = pthread_mutex_init(mutex, nil)
        precondition(rc == 0, "pthread_mutex_init failed: \(rc)")
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Takes the lock (blocking); pair with `unlock()`.
    public func lock() {
        pthread_mutex_lock(mutex)
    }

    /// Lets the lock go.
    public func unlock() {
        pthread_mutex_unlock(mutex)
    }

    /// Runs `body` with the lock held and returns its result.
    @inline(__always)
    public func withLock<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}

/// A condition variable to wait on while holding a `Lock` (`pthread_cond_t`, on the monotonic
/// clock for timed waits).
public final class Condition: @unchecked Sendable {
    private let condition: UnsafeMutablePointer<pthread_cond_t>

    public init() {
        condition = .allocate(capacity: 1)
        condition.initialize(to: pthread_cond_t())
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        let rc = pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
        precondition(rc == 0, "pthread_cond_init failed: \(rc)")
    }

    deinit {
        pthread_cond_destroy(condition)
        condition.deinitialize(count: 1)
        condition.deallocate()
    }

    /// Waits for a signal; `lock` must be held, and is held again on return.
    public func wait(_ lock: Lock) {
        pthread_cond_wait(condition, lock.mutex)
    }

    /// Waits for a signal until `deadline` (`CLOCK_MONOTONIC`); `lock` must be held, and is held
    /// again on return. Returns false when the deadline passed.
    package func wait(_ lock: Lock, until deadline: timespec) -> Bool {
        var deadline = deadline
        return pthread_cond_timedwait(condition, lock.mutex, &deadline) != ETIMEDOUT
    }

    /// Wakes one waiter.
    package func signal() {
        pthread_cond_signal(condition)
    }

    /// Wakes every waiter.
    public func broadcast() {
        pthread_cond_broadcast(condition)
    }
}

/// A value guarded by a `Lock`; every access goes through `withLock`.
public final class Locked<Value> {
    private let lock = Lock()
    private var value: Value

    /// Guards `value`.
    public init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with exclusive access to the value.
    public func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        try lock.withLock { try body(&value) }
    }
}

extension Locked: @unchecked Sendable where Value: Sendable {}
