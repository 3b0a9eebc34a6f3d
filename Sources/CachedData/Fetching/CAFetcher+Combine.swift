#if canImport(Combine)
import Combine

extension CAFetcher {
    /// The fetched value now and after every change, as a Combine publisher (on platforms
    /// with Combine; `asyncFetchedValue` everywhere).
    public var fetchedValuePublisher: AnyPublisher<CAFetchedValue<Item>, Never> {
        // Combine's subjects lock internally; the task is the subject's only other user.
        nonisolated(unsafe) let subject = CurrentValueSubject<CAFetchedValue<Item>, Never>(fetchedValue)
        let values = asyncFetchedValue
        let task = Task {
            for await value in values { subject.send(value) }
            subject.send(completion: .finished)
        }
        return subject.removeDuplicates().handleEvents(receiveCancel: { task.cancel() }).eraseToAnyPublisher()
    }
}
#endif
