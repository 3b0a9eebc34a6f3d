import Foundation
import Testing

@testable import EmulatorSupport
@testable import SelfDBEmulator

@Suite("API key and authentication")
struct AuthTests {
    @Test func missingAPIKeyIs406AndWrongKeyIs401() async throws {
        try await withEmulator { _, client in
            let missing = try await client.send("GET", "/tables/", apiKey: .missing)
            #expect(missing.status == 406)
            #expect(missing.detail == "Missing required header: X-API-Key")
            let wrong = try await client.send("GET", "/tables/", apiKey: .other("nope"))
            #expect(wrong.status == 401)
            #expect(wrong.detail == "Invalid API key")
            // Checked before routing: unknown paths answer the same.
            #expect(try await client.send("GET", "/nowhere", apiKey: .missing).status == 406)
        }
    }

    @Test func loginReturnsTokenPairWithSelfDBClaims() async throws {
        try await withEmulator { _, client in
            let response = try await client.send(
                "POST",
                "/users/token",
                json: ["email": .string(Fixture.adminEmail), "password": .string(Fixture.adminPassword)]
            )
            #expect(response.status == 200)
            let json = try #require(response.json)
            #expect(json["token_type"] == "bearer")
            #expect(json["expires_in"] == 1800)
            let token = try #require(json["access_token"]?.stringValue)
            let parts = token.split(separator: ".")
            #expect(parts.count == 3)
            let header = try JSONParser.parse(try #require(Base64URL.decode(parts[0])))
            #expect(header["alg"] == "HS256")
            let claims = try JSONParser.parse(try #require(Base64URL.decode(parts[1])))
            #expect(claims.objectValue?.keys.sorted() == ["exp", "role", "sub"])
            #expect(claims["role"] == "ADMIN")
            let me = try await client.send("GET", "/users/me", token: token)
            #expect(me.json?["id"] == claims["sub"])
        }
    }

    @Test func wrongCredentialsAre401AndBadBodyIs422() async throws {
        try await withEmulator { _, client in
            let wrong = try await client.send("POST", "/users/token", json: ["email": .string(Fixture.adminEmail), "password": "WrongPass1"])
            #expect(wrong.status == 401)
            let unknown = try await client.send("POST", "/users/token", json: ["email": "ghost@example.com", "password": "WrongPass1"])
            #expect(unknown.status == 401)
            let missing = try await client.send("POST", "/users/token", json: ["email": .string(Fixture.adminEmail)])
            #expect(missing.status == 422)
            #expect(missing.issueTypes == ["missing"])
            #expect(missing.json?["detail"]?.arrayValue?.first?["loc"] == ["body", "password"])
        }
    }

    @Test func inactiveUserCannotLogIn() async throws {
        try await withEmulator { _, client in
            let admin = try await client.adminToken()
            let user = try await client.newUser("sleepy@example.com")
            let patch = try await client.send("PATCH", "/users/\(user.id)", json: ["isActive": false], token: admin)
            #expect(patch.status == 200)
            #expect(patch.json?["isActive"] == false)
            let login = try await client.send("POST", "/users/token", json: ["email": "sleepy@example.com", "password": "Password123"])
            #expect(login.status == 400)
            #expect(login.detail == "Inactive user")
        }
    }

    /// SelfDB v0.0.5: a token used again after its rotation is refused, and nothing else.
    @Test func refreshRotatesAndALaterReuseIsRefusedAlone() async throws {
        try await withEmulator { _, client in
            _ = try await client.newUser("rotor@example.com")
            let first = try await client.login("rotor@example.com", "Password123")
            let other = try await client.login("rotor@example.com", "Password123")

            let rotated = try await client.send("POST", "/users/token/refresh", json: ["refresh_token": .string(first.refresh)])
            #expect(rotated.status == 200)
            let newRefresh = try #require(rotated.json?["refresh_token"]?.stringValue)
            #expect(newRefresh != first.refresh)
            #expect(rotated.json?["access_token"]?.stringValue != nil)

            let reuse = try await client.send("POST", "/users/token/refresh", json: ["refresh_token": .string(first.refresh)])
            #expect(reuse.status == 401)
            #expect(reuse.json?["detail"]?.stringValue == "Invalid or expired refresh token")
            // The rotated token and the user's other session still work.
            let next = try await client.send("POST", "/users/token/refresh", json: ["refresh_token": .string(newRefresh)])
            #expect(next.status == 200)
            let otherSession = try await client.send("POST", "/users/token/refresh", json: ["refresh_token": .string(other.refresh)])
            #expect(otherSession.status == 200)

            let garbage = try await client.send("POST", "/users/token/refresh", json: ["refresh_token": "garbage"])
            #expect(garbage.status == 401)
            #expect(garbage.json?["detail"]?.stringValue == "Invalid or expired refresh token")
            let missing = try await client.send("POST", "/users/token/refresh", json: [:])
            #expect(missing.status == 422)
        }
    }

    /// SelfDB v0.0.5: two refreshes with one token that race its rotation: one wins, the other
    /// finds the token revoked under it, and every session of the user is revoked.
    @Test func aReuseThatRacesTheRotationRevokesEverySession() async throws {
        try await withEmulator { emulator, client in
            _ = try await client.newUser("racer@example.com")
            let first = try await client.login("racer@example.com", "Password123")
            let other = try await client.login("racer@example.com", "Password123")
            emulator.refreshRotationDelay = .milliseconds(300)
            async let one = client.send("POST", "/users/token/refresh", json: ["refresh_token": .string(first.refresh)])
            async let two = client.send("POST", "/users/token/refresh", json: ["refresh_token": .string(first.refresh)])
            let answers = try await [one, two]
            emulator.refreshRotationDelay = .zero
            #expect(answers.map(\.status).sorted() == [200, 401])
            let winner = try #require(answers.first { $0.status == 200 })
            let loser = try #require(answers.first { $0.status == 401 })
            #expect(loser.json?["detail"]?.stringValue == "Token reuse detected. All sessions revoked.")
            let winnersToken = try #require(winner.json?["refresh_token"]?.stringValue)
            let afterTheft = try await client.send("POST", "/users/token/refresh", json: ["refresh_token": .string(winnersToken)])
            #expect(afterTheft.status == 401)
            let otherSession = try await client.send("POST", "/users/token/refresh", json: ["refresh_token": .string(other.refresh)])
            #expect(otherSession.status == 401)
        }
    }

    @Test func logoutRevokesOneSessionAndLogoutAllRevokesAll() async throws {
        try await withEmulator { _, client in
            _ = try await client.newUser("bye@example.com")
            let a = try await client.login("bye@example.com", "Password123")
            let b = try await client.login("bye@example.com", "Password123")
            let c = try await client.login("bye@example.com", "Password123")

            let one = try await client.send("POST", "/users/logout", json: ["refresh_token": .string(a.refresh)], token: a.access)
            #expect(one.status == 200)
            #expect(one.json == ["status": "logged_out"])
            #expect(try await client.send("POST", "/users/token/refresh", json: ["refresh_token": .string(b.refresh)]).status == 200)

            let all = try await client.send("POST", "/users/logout/all", token: c.access)
            #expect(all.json == ["status": "logged_out"])
            #expect(try await client.send("POST", "/users/token/refresh", json: ["refresh_token": .string(c.refresh)]).status == 401)

            #expect(try await client.send("POST", "/users/logout").status == 401)
            #expect(try await client.send("POST", "/users/logout/all", token: "not-a-jwt").status == 401)
        }
    }

    @Test func logoutWithoutBodyRevokesAllSessions() async throws {
        try await withEmulator { _, client in
            _ = try await client.newUser("plain@example.com")
            let a = try await client.login("plain@example.com", "Password123")
            let b = try await client.login("plain@example.com", "Password123")
            #expect(try await client.send("POST", "/users/logout", token: a.access).status == 200)
            #expect(try await client.send("POST", "/users/token/refresh", json: ["refresh_token": .string(b.refresh)]).status == 401)
        }
    }

    @Test func expiredTokenIs401WhereRequiredAndAnonymousWhereOptional() async throws {
        try await withEmulator { emulator, client in
            // Set up first, so the short-lived token is used at once (a loaded CI machine can
            // take longer than its lifetime for the setup requests).
            let admin = try await client.adminToken()
            _ = try await client.newTable("secret_things", schema: ["a": ["type": "text"]], public: false, token: admin)
            _ = try await client.newTable("open_things", schema: ["a": ["type": "text"]], public: true, token: admin)
            emulator.accessTokenLifetime = 2
            let login = try await client.send(
                "POST",
                "/users/token",
                json: ["email": .string(Fixture.adminEmail), "password": .string(Fixture.adminPassword)]
            )
            #expect(login.json?["expires_in"] == 2)
            let token = try #require(login.json?["access_token"]?.stringValue)
            emulator.accessTokenLifetime = 1800
            #expect(try await client.send("GET", "/tables/count", token: token).json == 2)

            try await Task.sleep(for: .milliseconds(3_100))
            let me = try await client.send("GET", "/users/me", token: token)
            #expect(me.status == 401)
            // Optional auth: the expired token is just anonymous.
            let count = try await client.send("GET", "/tables/count", token: token)
            #expect(count.status == 200)
            #expect(count.json == 1)
        }
    }

    @Test func tamperedTokenIsRejected() async throws {
        try await withEmulator { _, client in
            let token = try await client.adminToken()
            let parts = token.split(separator: ".").map(String.init)
            let forged = JSONWriter.bytes(["sub": "someone", "role": "ADMIN", "exp": 9_999_999_999])
            let tampered = [parts[0], Base64URL.encode(forged), parts[2]].joined(separator: ".")
            #expect(try await client.send("GET", "/users/me", token: tampered).status == 401)
        }
    }
}
