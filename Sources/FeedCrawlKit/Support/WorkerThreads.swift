import Glibc

/// A few plain threads that run submitted jobs in order of arrival (internal).
///
/// For short blocking work that must stay off the HTTP engine's thread and out of Swift's
/// cooperative pool (two threads on two cores, which a blocking `fsync` would stall): the
/// image pipeline finishes each download here (fsync, close, validate, rename). An idle
/// thread is woken only when no thread is already awake to take the job.
final class WorkerThreads: @unchecked Sendable {
    typealias Job = @Sendable () -> Void

    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    // Guarded by `mutex`.
    private var jobs: [Job] = []
    private var head = 0
    private var idle = 0
    private var stopping = false
    private var threads: [pthread_t] = []

    /// Starts `count` threads (at least one).
    init(count: Int) {
        mutex.initialize(to: pthread_mutex_t())
        condition.initialize(to: pthread_cond_t())
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
        for _ in 0..<max(1, count) {
            var tid = pthread_t()
            let context = Unmanaged.passRetained(self).toOpaque()
            let rc = pthread_create(&tid, nil, { argument in
                guard let argument else { return nil }
                Unmanaged<WorkerThreads>.fromOpaque(argument).takeRetainedValue().work()
                return nil
            }, context)
            if rc == 0 {
                threads.append(tid)
            } else {
                Unmanaged<WorkerThreads>.fromOpaque(context).release()
            }
        }
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    /// Queues `job`. After `stop()` (or if no thread could start) it runs on the caller's thread.
    func submit(_ job: @escaping Job) {
        pthread_mutex_lock(mutex)
        if stopping || threads.isEmpty {
            pthread_mutex_unlock(mutex)
            job()
            return
        }
        jobs.append(job)
        // Wake a sleeper only when the awake threads have more queued than they can take next.
        let wake = idle > 0 && jobs.count - head > threads.count - idle
        pthread_mutex_unlock(mutex)
        if wake { pthread_cond_signal(condition) }
    }

    /// Runs what is queued, then ends the threads and waits for them. Idempotent.
    func stop() {
        pthread_mutex_lock(mutex)
        let running = stopping ? [] : threads
        stopping = true
        pthread_mutex_unlock(mutex)
        pthread_cond_broadcast(condition)
        for tid in running {
            if pthread_equal(tid, pthread_self()) != 0 { pthread_detach(tid) } else { pthread_join(tid, nil) }
        }
    }

    private func work() {
        pthread_mutex_lock(mutex)
        while true {
            if head < jobs.count {
                let job = jobs[head]
                head += 1
                if head == jobs.count {
                    jobs.removeAll(keepingCapacity: true)
                    head = 0
                } else if head > 1024 {
                    jobs.removeFirst(head)
                    head = 0
                }
                pthread_mutex_unlock(mutex)
                job()
                pthread_mutex_lock(mutex)
            } else if stopping {
                break
            } else {
                idle += 1
                pthread_cond_wait(condition, mutex)
                idle -= 1
            }
        }
        pthread_mutex_unlock(mutex)
    }
}
