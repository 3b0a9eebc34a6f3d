/// Every endpoint of the emulator, in one table.
enum RouteBuilder {
    static func routes() -> RouteTable {
        var table = RouteTable()
        UserRoutes.register(in: &table)
        TableRoutes.register(in: &table)
        ColumnRoutes.register(in: &table)
        RowRoutes.register(in: &table)
        BucketRoutes.register(in: &table)
        FileRoutes.register(in: &table)
        SystemRoutes.register(in: &table)
        SchemaRoutes.register(in: &table)
        BackupRoutes.register(in: &table)
        SQLRoutes.register(in: &table)
        FunctionRoutes.register(in: &table)
        WebhookRoutes.register(in: &table)
        return table
    }
}
