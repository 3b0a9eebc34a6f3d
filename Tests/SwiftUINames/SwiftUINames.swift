// Stand-ins for SwiftUI's top-level type names that a data layer might also use, so a test on
// Linux (where there is no SwiftUI) can check that importing SelfDB and Synchro beside SwiftUI
// leaves every such name unambiguous. Add a name here when SwiftUI gains one we might clash with.

/// SwiftUI's `Table`.
public struct Table { public init() {} }
/// SwiftUI's `TableColumn`.
public struct TableColumn { public init() {} }
/// SwiftUI's `TableRow`.
public struct TableRow { public init() {} }
/// SwiftUI's `Text`.
public struct Text { public init() {} }
/// SwiftUI's `List`.
public struct List { public init() {} }
/// SwiftUI's `Section`.
public struct Section { public init() {} }
/// SwiftUI's `Group`.
public struct Group { public init() {} }
/// SwiftUI's `Label`.
public struct Label { public init() {} }
/// SwiftUI's `Link`.
public struct Link { public init() {} }
/// SwiftUI's `Image`.
public struct Image { public init() {} }
/// SwiftUI's `Color`.
public struct Color { public init() {} }
/// SwiftUI's `Font`.
public struct Font { public init() {} }
/// SwiftUI's `Path`.
public struct Path { public init() {} }
/// SwiftUI's `State`.
public struct State { public init() {} }
/// SwiftUI's `Binding`.
public struct Binding { public init() {} }
/// SwiftUI's `Environment`.
public struct Environment { public init() {} }
/// SwiftUI's `Form`.
public struct Form { public init() {} }
/// SwiftUI's `Menu`.
public struct Menu { public init() {} }
/// SwiftUI's `Button`.
public struct Button { public init() {} }
/// SwiftUI's `Toggle`.
public struct Toggle { public init() {} }
/// SwiftUI's `Picker`.
public struct Picker { public init() {} }
/// SwiftUI's `Tab`.
public struct Tab { public init() {} }
/// SwiftUI's `Grid`.
public struct Grid { public init() {} }
/// SwiftUI's `GridRow`.
public struct GridRow { public init() {} }
/// SwiftUI's `Settings`.
public struct Settings { public init() {} }
/// SwiftUI's `Window`.
public struct Window { public init() {} }
/// SwiftUI's `Edge`.
public enum Edge { case top }
/// SwiftUI's `Alignment`.
public struct Alignment { public init() {} }
/// SwiftUI's `Animation`.
public struct Animation { public init() {} }
/// SwiftUI's `Transaction`.
public struct Transaction { public init() {} }
/// SwiftUI's `Namespace`.
public struct Namespace { public init() {} }
/// SwiftUI's `Gauge`.
public struct Gauge { public init() {} }
/// SwiftUI's `Alert`.
public struct Alert { public init() {} }
/// SwiftUI's `ForEach`.
public struct ForEach { public init() {} }
/// SwiftUI's `Layout` (a protocol in SwiftUI; a type is enough to clash).
public struct Layout { public init() {} }
/// SwiftUI's `Gesture` (a protocol in SwiftUI).
public struct Gesture { public init() {} }
/// SwiftUI's `Shape` (a protocol in SwiftUI).
public struct Shape { public init() {} }
