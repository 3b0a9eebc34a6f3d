import Foundation
import SelfDB
import SelfDBRuntime
import Testing

@Suite("auth and users through the generated client")
struct AuthClientTests {
    @Test func loginMeCountAndLogout() async throws {
        try await ClientFixture.run { fixture in
            let selfdb = fixture.client()
            let tokens = try await selfdb.auth.login(email: ClientFixture.adminEmail, password: ClientFixture.adminPassword)
            #expect(tokens.tokenType == "bearer")
            #expect(tokens.refreshToken != nil)
            let me = try await selfdb.auth.me()
            #expect(me.email == ClientFixture.adminEmail)
            #expect(me.role == .admin)
            #expect(try await selfdb.auth.count() >= 1)
            #expect(try await selfdb.auth.count(search: "nobody-matches-this") == 0)
            let status = try await selfdb.auth.logout(refreshToken: tokens.refreshToken)
            #expect(status.status == "logged_out")
            #expect(await selfdb.session == nil)
            await expectError("not signed in", { if case .authenticationError = $0 { true } else { false } }) {
                _ = try await selfdb.auth.me()
            }
        }
    }

    @Test func logoutAllEndsEverySession() async throws {
        try await ClientFixture.run { fixture in
            let first = try await fixture.admin()
            let second = try await fixture.admin()
            try await first.auth.logoutAll()
            #expect(await first.session == nil)
            // The second client's access token still verifies until it expires; its refresh
            // token, though, was revoked with every other session.
            let refresh = try #require(await second.session?.refreshToken)
            await expectError("401 for a revoked refresh token", { if case .authenticationError = $0 { true } else { false } }) {
                _ = try await second.auth.refresh(refreshToken: refresh)
            }
        }
    }

    @Test func credentialErrorsMapToTypedErrors() async throws {
        try await ClientFixture.run { fixture in
            await expectError("401 for a wrong password", { if case .authenticationError(let detail) = $0 { !detail.isEmpty } else { false } }) {
                _ = try await fixture.client().auth.login(email: ClientFixture.adminEmail, password: "wrong-password")
            }
            await expectError("401 for a wrong API key", { if case .authenticationError(let detail) = $0 { detail == "Invalid API key" } else { false } }) {
                _ = try await fixture.client(apiKey: "wrong").auth.users.create(payload: UserCreate(email: "a@b.co", password: "Password123", firstName: "A", lastName: "B"))
            }
            let keyless = APIClient(configuration: .init(baseURL: fixture.emulator.baseURL, errorKinds: SelfDB.errorKinds))
            await expectError("406 without an API key", { if case .notAcceptable(let detail) = $0 { detail.contains("X-API-Key") } else { false } }) {
                _ = try await SelfDB.Auth(api: keyless).login(email: ClientFixture.adminEmail, password: ClientFixture.adminPassword)
            }
        }
    }

    @Test func usersCRUDAndItsErrors() async throws {
        try await ClientFixture.run { fixture in
            let admin = try await fixture.admin()
            let (user, created) = try await fixture.newUser("carol")
            #expect(created.role == .user)
            #expect(created.isActive)

            let again = try await fixture.client().auth.users.create(payload: UserCreate(email: created.email, password: "Password123", firstName: "X", lastName: "Y"))
            #expect(again.id == created.id, "a duplicate sign-up returns the existing user")

            await expectError(
                "422 for a short password",
                { error in
                    if case .validationFailed(let issues) = error { issues.contains { $0.location.contains("password") } } else { false }
                }
            ) {
                _ = try await fixture.client().auth.users.create(payload: UserCreate(email: "short@example.com", password: "short", firstName: "A", lastName: "B"))
            }

            let listed = try await admin.auth.users.list(limit: 100, sortBy: .email, sortOrder: .asc)
            #expect(listed.map(\.email) == listed.map(\.email).sorted())
            #expect(try await admin.auth.users.get(created.id).email == created.email)

            let renamed = try await admin.auth.users.update(created.id, payload: UserUpdate(firstName: "Caroline"))
            #expect(renamed.firstName == "Caroline")
            await expectError("403 for a non-admin update", { if case .permissionDenied = $0 { true } else { false } }) {
                _ = try await user.auth.users.update(created.id, payload: UserUpdate(lastName: "Nope"))
            }
            await expectError("409 for a taken email", { if case .conflict = $0 { true } else { false } }) {
                _ = try await admin.auth.users.update(created.id, payload: UserUpdate(email: ClientFixture.adminEmail))
            }
            await expectError("404 for an unknown user", { if case .notFound = $0 { true } else { false } }) {
                _ = try await admin.auth.users.get(UUID())
            }
            let deleted = try await admin.auth.users.delete(created.id)
            #expect(deleted.status == "user_deleted")
            #expect(deleted.id == created.id)
        }
    }
}
