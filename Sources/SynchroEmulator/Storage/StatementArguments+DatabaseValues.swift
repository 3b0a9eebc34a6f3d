import GRDB

extension StatementArguments {
    /// Arguments from values already converted.
    ///
    /// GRDB's `StatementArguments(_:)` over a sequence of `DatabaseValue` maps it with a key
    /// path in code not specialized for the caller: that was a third of each row written by a
    /// push. Its initializer over optional existentials maps with a closure instead.
    init(databaseValues values: [DatabaseValue]) {
        self.init(values.map { $0 as (any DatabaseValueConvertible)? })
    }
}
