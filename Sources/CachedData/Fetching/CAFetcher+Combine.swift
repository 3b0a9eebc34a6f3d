#if canImport(Combine)
import Combine
import SelfDBRuntime

extension CAFetcher {
    /// The fetched value now and after every change, as a Combine publisher (on platforms
    /// with Combine; `asyncFetchedValue` everywhere).
    ///
    /// Each subscriber gets a subscription of its own, started when it subscribes and ended
    /// when it cancels, without touching the others. It finishes when the fetcher goes away.
    ///
    /// The current value arrives at once, on the thread that subscribes; later values arrive
    /// on a thread of the Swift concurrency pool, not the main queue. Put
    /// `.receive(on: DispatchQueue.main)` in front of code that updates a UI.
    public var fetchedValuePublisher: AnyPublisher<CAFetchedValue<Item>, Never> {
        Deferred { [self] in
            let relay = FetchedValueRelay(initial: fetchedValue)
            relay.start(asyncFetchedValue)
            return relay.subject
                .handleEvents(receiveCancel: { relay.cancel() })
                .removeDuplicates()
        }
        .eraseToAnyPublisher()
    }
}

/// One subscription's bridge from the fetcher's `AsyncStream` to Combine: a subject the task
/// feeds, and the task, which the subscriber's cancel ends.
private final class FetchedValueRelay<Item: CAItem>: @unchecked Sendable {
    // @unchecked: `subject` is only sent to, and Combine's subjects serialise `send` and
    // subscription under their own lock; `task` is behind `Locked`.
    let subject: CurrentValueSubject<CAFetchedValue<Item>, Never>
    private let task = Locked<Task<Void, Never>?>(nil)

    init(initial: CAFetchedValue<Item>) {
        subject = CurrentValueSubject(initial)
    }

    func start(_ values: AsyncStream<CAFetchedValue<Item>>) {
        let feeding = Task { [self] in
            for await value in values {
                subject.send(value)
            }
            subject.send(completion: .finished)
        }
        task.withLock { $0 = feeding }
    }

    func cancel() {
        task.current?.cancel()
    }
}
#endif
