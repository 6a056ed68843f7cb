#if canImport(Glibc)
import Glibc
#endif

/// Work done on a thread of its own while the caller goes on with other work; `value` waits for
/// it. For a program that starts for one message: on two cores, its rules are made at once
/// rather than one after the other.
public final class Background<Value>: @unchecked Sendable {
    private var thread = pthread_t()
    private var result: Value?
    private var running = false

    /// `work` is `@Sendable`: a closure made on the main actor (top-level code) would otherwise
    /// be that actor's, and trap when it runs on the thread.
    public init(_ work: @escaping @Sendable () -> Value) {
        let body = Unmanaged.passRetained(ThreadBody { self.result = work() }).toOpaque()
        if pthread_create(&thread, nil, { body in
            Unmanaged<ThreadBody>.fromOpaque(body!).takeRetainedValue().run()
            return nil
        }, body) == 0 {
            running = true
        } else {  // no thread to be had: the work is done here
            Unmanaged<ThreadBody>.fromOpaque(body).takeRetainedValue().run()
        }
    }

    /// The work's result, once it is done.
    public var value: Value {
        if running {
            pthread_join(thread, nil)
            running = false
        }
        return result!
    }
}

private final class ThreadBody {
    let run: () -> Void
    init(_ run: @escaping () -> Void) { self.run = run }
}
