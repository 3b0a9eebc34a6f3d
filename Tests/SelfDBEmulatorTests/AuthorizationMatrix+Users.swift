// The user cells of ``AuthorizationMatrixTests`` (the "owner" is the user themself): what a
// real SelfDB v0.0.5 answers.
extension AuthorizationMatrixTests {
    static let userCells: [Cell] = [
        // Reading users needs a user; changing one needs an admin, even for oneself.
        Cell(.user, .listUsers, .anonymous, 401),
        Cell(.user, .listUsers, .owner, 200),
        Cell(.user, .listUsers, .other, 200),
        Cell(.user, .listUsers, .admin, 200),
        Cell(.user, .getUser, .anonymous, 401),
        Cell(.user, .getUser, .owner, 200),
        Cell(.user, .getUser, .other, 200),
        Cell(.user, .getUser, .admin, 200),
        Cell(.user, .me, .anonymous, 401),
        Cell(.user, .me, .owner, 200),
        Cell(.user, .me, .other, 200),
        Cell(.user, .me, .admin, 200),
        Cell(.user, .countUsers, .anonymous, 401),
        Cell(.user, .countUsers, .owner, 200),
        Cell(.user, .countUsers, .other, 200),
        Cell(.user, .countUsers, .admin, 200),
        Cell(.user, .updateUser, .anonymous, 401),
        Cell(.user, .updateUser, .owner, 403),
        Cell(.user, .updateUser, .other, 403),
        Cell(.user, .updateUser, .admin, 200),
        Cell(.user, .deleteUser, .anonymous, 401),
        Cell(.user, .deleteUser, .owner, 403),
        Cell(.user, .deleteUser, .other, 403),
        Cell(.user, .deleteUser, .admin, 200),
        // Sign-up needs only the API key.
        Cell(.user, .createUser, .anonymous, 201),
        Cell(.user, .createUser, .owner, 201),
        Cell(.user, .createUser, .other, 201),
        Cell(.user, .createUser, .admin, 201),
    ]
}
