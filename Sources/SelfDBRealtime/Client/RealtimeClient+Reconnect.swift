import Foundation

extension RealtimeClient {
    /// Reconnects with backoff until a socket is open, the client is disconnected or the loop
    /// is cancelled (a trigger's ``reconnectNow()`` cancels it to try at once).
    ///
    /// The backoff's step is ``failedAttempts``: every attempt counts, whether or not the
    /// socket opened, until a socket proves healthy (``provedHealthy()``). A server that
    /// accepts the upgrade and closes it at once (SelfDB's backend when its realtime service is
    /// down) therefore meets longer and longer waits, up to the maximum, instead of the first
    /// delay again and again.
    func reconnect(immediately: Bool = false) async {
        var first = true
        while wantsConnection, socket == nil, !Task.isCancelled {
            // A trigger that came while an attempt was under way is answered by the next one.
            let prompt = (immediately && first) || retryPromptly
            retryPromptly = false
            let delay = prompt ? .zero : configuration.reconnectBackoff.delay(attempt: failedAttempts)
            first = false
            configuration.logger.info("realtime reconnecting in \(delay) (attempt \(failedAttempts + 1) since the last healthy socket)")
            do {
                try await Task.sleep(for: delay)
            } catch {
                break
            }
            guard wantsConnection, socket == nil else { break }
            failedAttempts += 1
            do {
                // A socket that dies before this resumes was dropped without a new loop (this
                // one was running): the loop's condition sees it and goes on.
                try await open()
                continue
            } catch let error as RealtimeError where error.isPermanent {
                // Nothing a later attempt could change.
                wantsConnection = false
                break
            } catch {
                continue
            }
        }
        // A cancelled loop was cleared by whoever cancelled it (connect(), disconnect() or
        // reconnectNow()), and the slot may already hold a later loop, which must keep running.
        if !Task.isCancelled { reconnecting = nil }
    }

    /// The socket answered a join or a heartbeat: it works, and the next drop starts the
    /// backoff from its first delay.
    func provedHealthy() {
        guard !isProvenHealthy else { return }
        isProvenHealthy = true
        failedAttempts = 0
        retryPromptly = false
    }

    /// Tries to reconnect now, instead of at the end of the backoff's wait: for when the app
    /// comes back to the foreground or the network returns (the configured
    /// ``RealtimeConfiguration/reconnectTriggers`` call it). Does nothing while connected on a
    /// socket the server answered, or after `disconnect()`; on a socket not answered yet, the
    /// attempt after it (if it fails) goes at once. One call is one attempt: a failed one goes
    /// back to the backoff, which it does not reset.
    public func reconnectNow() {
        guard wantsConnection else { return }
        guard socket == nil else {
            // A socket not yet proven may be one the server is about to close: if it is, the
            // next attempt goes at once rather than after the backoff's wait.
            if !isProvenHealthy { retryPromptly = true }
            return
        }
        configuration.logger.info("realtime reconnecting now (asked)")
        reconnecting?.cancel()
        reconnecting = Task { await self.reconnect(immediately: true) }
    }

    /// Follows the configured triggers between `connect()` and `disconnect()`.
    func watchReconnectTriggers() {
        guard triggerWatchers.isEmpty else { return }
        triggerWatchers = configuration.reconnectTriggers.map { trigger in
            Task { [weak self] in
                for await _ in trigger.signals() {
                    guard let self else { return }
                    await self.reconnectNow()
                }
            }
        }
    }

    func stopWatchingReconnectTriggers() {
        for watcher in triggerWatchers { watcher.cancel() }
        triggerWatchers = []
    }
}
