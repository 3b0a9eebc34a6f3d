import Foundation

/// A value behind a lock. (`Synchronization.Mutex` needs macOS 15; the package supports 14.)
package final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    package init(_ value: Value) {
        self.value = value
    }

    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }

    package var current: Value {
        withLock { $0 }
    }
}
