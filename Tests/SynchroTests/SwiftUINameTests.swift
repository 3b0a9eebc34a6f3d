import SelfDB
import SwiftUINames
import Synchro
import Testing

/// An app file imports SelfDB, Synchro and SwiftUI together. `SwiftUINames` stands in for
/// SwiftUI (Linux has none): each name below compiles only while neither SelfDB, nor Synchro,
/// nor anything they re-export declares it too (GRDB's `Table` did, through Synchro, and so did
/// the runtime's `TableColumn`, through SelfDB).
@Suite("SwiftUI's names")
struct SwiftUINameTests {
    @Test func swiftUINamesMeanSwiftUIsBesideSelfDBAndSynchro() {
        let standIns: [Any] = [
            Table(), TableColumn(), TableRow(), Text(), List(), Section(), Group(), Label(), Link(), Image(), Color(), Font(), Path(),
            State(), Binding(), Environment(), Form(), Menu(), Button(), Toggle(), Picker(), Tab(), Grid(), GridRow(), Settings(),
            Window(), Edge.top, Alignment(), Animation(), Transaction(), Namespace(), Gauge(), Alert(), ForEach(), Layout(), Gesture(),
            Shape(),
        ]
        #expect(standIns.count == 37)
        // SelfDB's and Synchro's own names stay usable in the same file.
        let ours: [Any.Type] = [SelfDB.self, SelfDBError.self, TableRead.self, SynchroClient.self, SynchroConfig.self, SynchroError.self]
        #expect(ours.count == 6)
    }
}
