import Foundation
import SelfDBTestSupport
import Testing

#if os(Linux)
/// The crash tests' process launcher, checked where it can be: a helper gets standard input,
/// output and error and nothing else of the test process, and its end is reported as it was.
@Suite("helper processes")
struct HelperProcessTests {
    @Test func aHelperInheritsOnlyItsStandardDescriptors() async throws {
        // Descriptors the test process holds open, which must not reach the child.
        let held = (0..<20).map { _ in open("/dev/null", O_RDONLY) }
        defer { for descriptor in held { close(descriptor) } }
        let process = try HelperProcess(URL(fileURLWithPath: "/bin/ls"), arguments: ["/proc/self/fd"])
        let listed = String(decoding: process.output.readDataToEndOfFile(), as: UTF8.self).split(separator: "\n").map(String.init)
        #expect(await process.exited() == .exit(0))
        // 0, 1, 2, and the descriptor `ls` opened to read the directory.
        #expect(listed.sorted() == ["0", "1", "2", "3"])
    }

    @Test func aKilledHelperIsReportedAsSignalled() async throws {
        let process = try HelperProcess(URL(fileURLWithPath: "/bin/sleep"), arguments: ["30"])
        process.send(SIGKILL)
        #expect(await process.exited() == .signal(SIGKILL))
        let failing = try HelperProcess(URL(fileURLWithPath: "/bin/sh"), arguments: ["-c", "echo out; echo err >&2; exit 3"], mergeErrors: true)
        #expect(String(decoding: failing.output.readDataToEndOfFile(), as: UTF8.self) == "out\nerr\n")
        #expect(failing.waitUntilExit() == .exit(3))
        #expect(throws: (any Error).self) { try HelperProcess(URL(fileURLWithPath: "/nonexistent/helper")) }
    }
}
#endif
