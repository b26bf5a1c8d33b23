import NIOCore

/// Runs a task's jobs on one NIO event loop instead of Swift's cooperative pool.
///
/// The link's connection loop is a few microseconds of bookkeeping between socket events that already happen on
/// this loop, so it costs the loop nothing; on the cooperative pool it waited behind whatever the app (or a test
/// run of 268 suites on 2 cores) kept there, and once did not dial for 60 s.
final class EventLoopTaskExecutor: TaskExecutor {
    let eventLoop: any EventLoop

    init(_ eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        eventLoop.execute { [self] in job.runSynchronously(on: asUnownedTaskExecutor()) }
    }
}
