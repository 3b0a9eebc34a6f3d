import Testing

@testable import Synchro

/// When the log is folded after sync cycles: at once after many rows or none, a second later
/// after a few; never twice at a time, never after close().
@Suite("Synchro client: when the log is folded")
struct LogFoldStateTests {
    @Test("many rows or none since the last fold: now; a few: later; folded, queued or closed: nothing")
    func plans() {
        let state = LogFoldState()
        // Opened, nothing written: what an earlier session left is folded now.
        #expect(state.planAfterCycles(manyRows: 1_000) == .foldNow)
        state.commitHappened(changes: 3)
        #expect(state.planAfterCycles(manyRows: 1_000) == .foldLater)
        state.commitHappened(changes: 1_003)
        #expect(state.planAfterCycles(manyRows: 1_000) == .foldNow)

        #expect(state.queueFold())
        #expect(!state.queueFold(), "one fold at a time")
        #expect(state.planAfterCycles(manyRows: 1_000) == .nothing)
        #expect(state.foldStarts())
        state.foldCompleted()
        #expect(state.isFolded)
        #expect(state.planAfterCycles(manyRows: 1_000) == .nothing)

        // Counted from the last fold's start.
        state.commitHappened(changes: 1_010)
        #expect(!state.isFolded)
        #expect(state.planAfterCycles(manyRows: 1_000) == .foldLater)
        #expect(state.close(), "close() folds what is left")
        #expect(state.planAfterCycles(manyRows: 1_000) == .nothing)
        #expect(!state.queueFold())
    }

    @Test("a fold waiting for its second is replaced by the next, and cancelled by close()")
    func waitingFolds() {
        let state = LogFoldState()
        let first = Task<Void, Never> { _ = try? await Task.sleep(for: .seconds(60)) }
        let second = Task<Void, Never> { _ = try? await Task.sleep(for: .seconds(60)) }
        state.wait(first)
        state.wait(second)
        #expect(first.isCancelled)
        #expect(!second.isCancelled)
        _ = state.close()
        #expect(second.isCancelled)
    }

    @Test("a fold queued before close() does not run; close() folds instead")
    func foldQueuedBeforeClose() {
        let state = LogFoldState()
        state.commitHappened(changes: 1)
        #expect(state.queueFold())
        #expect(state.close())
        #expect(!state.foldStarts())
    }
}
