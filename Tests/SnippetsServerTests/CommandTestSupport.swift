import Foundation
@testable import SnippetsServer

/// Collects what a command writes. @unchecked Sendable: every access to the text goes through `lock`.
final class CapturedOutput: @unchecked Sendable {
    private let lock = NSLock()
    private var out = ""
    private var err = ""

    /// Streams that append to this capture.
    var output: CommandOutput {
        CommandOutput(
            standardOutput: { text in self.lock.withLock { self.out += text } },
            standardError: { text in self.lock.withLock { self.err += text } })
    }
    var standardOutput: String { lock.withLock { out } }
    var standardError: String { lock.withLock { err } }
}

/// Where tests keep state (`XDG_STATE_HOME`: the gap log), never the real home's.
let testStateDirectory = FileManager.default.temporaryDirectory
    .appendingPathComponent("snippets-lsp-tests-\(ProcessInfo.processInfo.processIdentifier)/state").path
/// Where tests keep caches (`XDG_CACHE_HOME`: model measurements), never the real home's.
let testCacheDirectory = FileManager.default.temporaryDirectory
    .appendingPathComponent("snippets-lsp-tests-\(ProcessInfo.processInfo.processIdentifier)/cache").path

/// Runs `snippets-lsp ARGUMENTS` in-process: its exit status and both streams. `XDG_STATE_HOME` is
/// `testStateDirectory` unless the environment names one. Meaning search is off (`SNIPPETS_ENCODER=off`) unless the
/// environment names an encoder: these tests pin the word pipeline's answers, and the encoder file beside the test
/// binary would otherwise be found; asking by meaning has its own tests.
func runCommand(_ arguments: [String], environment: [String: String] = [:]) async -> (status: Int32, out: String, err: String) {
    var environment = environment
    if environment["SNIPPETS_ENCODER"] == nil { environment["SNIPPETS_ENCODER"] = "off" }
    if environment["XDG_STATE_HOME"] == nil { environment["XDG_STATE_HOME"] = testStateDirectory }
    if environment["XDG_CACHE_HOME"] == nil { environment["XDG_CACHE_HOME"] = testCacheDirectory }
    let captured = CapturedOutput()
    let status = await CommandLineTool.run(arguments: arguments, environment: environment, output: captured.output)
    return (status, captured.standardOutput, captured.standardError)
}
