import Foundation

// The crash tests start helper processes, and only macOS and Linux can: iOS, tvOS, watchOS
// and visionOS cannot spawn one, so their test builds leave this (and the tests that use it)
// out.
#if os(macOS) || os(Linux)
/// Helper processes the crash tests start and kill (built by SwiftPM next to the test bundle),
/// through ``HelperProcess``.
public enum TestExecutables {
    /// The executable `name` from the build folder of the running tests, if it was built.
    public static func url(named name: String) -> URL? {
        for start in searchStarts {
            var directory = start.deletingLastPathComponent()
            for _ in 0..<4 {
                let candidate = directory.appendingPathComponent(name)
                if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
                directory = directory.deletingLastPathComponent()
            }
        }
        return nil
    }

    /// Where the search starts; each one's folder and up to three above it are searched.
    ///
    /// On Linux the running executable is the test binary SwiftPM built in the products folder.
    /// On macOS `Bundle.main` and `argv[0]` are the toolchain's runner (`xctest` for XCTest,
    /// `swiftpm-testing-helper` for Swift Testing, which `dlopen`s the bundle's binary), so the
    /// search starts at the `.xctest` bundle this code is linked into: SwiftPM and Xcode put it
    /// in the products folder, beside the helper executables.
    private static var searchStarts: [URL] {
        var starts: [URL] = []
        #if os(macOS)
        let testBundle = Bundle(for: BundleMarker.self).bundleURL
        if testBundle.pathExtension == "xctest" { starts.append(testBundle) }
        starts += Bundle.allBundles.map(\.bundleURL).filter { $0.pathExtension == "xctest" && $0 != testBundle }
        #endif
        starts += [Bundle.main.executableURL, URL(fileURLWithPath: CommandLine.arguments[0])].compactMap { $0 }
        return starts
    }
}

#if os(macOS)
/// A class of this module, so that `Bundle(for:)` finds the test bundle it is linked into.
private final class BundleMarker {}
#endif

extension TestExecutables {
    /// The first output a helper writes to `handle` (a blocking read, done on a GCD thread
    /// rather than the cooperative pool it would starve).
    public static func firstOutput(of handle: FileHandle) async -> String {
        await withCheckedContinuation { (continuation: CheckedContinuation<String, Never>) in
            DispatchQueue.global().async {
                continuation.resume(returning: String(decoding: handle.availableData, as: UTF8.self))
            }
        }
    }
}
#endif
