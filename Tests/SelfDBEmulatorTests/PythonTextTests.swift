import Testing

@testable import EmulatorSupport
@testable import SelfDBEmulator

/// The words SelfDB's Python writes for a failed run's result (`str(result)`), checked against
/// what CPython 3.11 prints.
@Suite("Python's str() of JSON values")
struct PythonTextTests {
    @Test(arguments: [
        (JSONValue.object(JSONObject([("m", .int(1)), ("s", .string("it's"))])), #"{'m': 1, 's': "it's"}"#),
        (.array([.bool(true), .null, .double(1.5), .double(2)]), "[True, None, 1.5, 2.0]"),
        (.double(9.5e15), "9500000000000000.0"),
        (.double(1e16), "1e+16"),
        (.double(1.5e-5), "1.5e-05"),
        (.array([.string("a\u{0}b\n")]), #"['a\x00b\n']"#),
        (.string("plain"), "plain"),
    ])
    func str(_ value: JSONValue, _ expected: String) {
        #expect(PythonText.str(value) == expected)
    }

    @Test func truthAndBlankness() {
        #expect(!PythonText.isTruthy(.object(JSONObject())) && !PythonText.isTruthy(.int(0)) && PythonText.isTruthy(.string(" ")))
        #expect(PythonText.isBlank(" \t\u{1C}\u{1F}\u{A0}") && !PythonText.isBlank(" x "))
    }
}
