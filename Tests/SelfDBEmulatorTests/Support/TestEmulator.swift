import Foundation

@testable import SelfDBEmulator

/// Credentials every test emulator is started with.
enum Fixture {
    static let apiKey = "test-api-key"
    static let adminEmail = "admin@example.com"
    static let adminPassword = "AdminPass123!"
}

/// Starts an emulator on a free port with a fresh temporary data directory, runs `body`,
/// and always stops it.
func withEmulator<T>(
    idleTimeout: TimeInterval = 45,
    maximumFileSize: Int = 1 << 40,
    _ body: (SelfDBEmulator, APIClient) async throws -> T
) async throws -> T {
    let emulator = try await SelfDBEmulator.start(
        .init(
            apiKey: Fixture.apiKey,
            admin: .init(email: Fixture.adminEmail, password: Fixture.adminPassword),
            realtimeIdleTimeout: idleTimeout,
            passwordHashIterations: 1_000,
            maximumFileSize: maximumFileSize
        )
    )
    let client = APIClient(baseURL: emulator.baseURL)
    do {
        let result = try await body(emulator, client)
        await emulator.stop()
        return result
    } catch {
        await emulator.stop()
        throw error
    }
}
