import Testing

@testable import SnippetsCore

/// Inputs the fuzz targets (Tests/fuzz) found, each kept with its exact bytes once the bug behind it was fixed.
struct FuzzRegressionTests {
    /// What the server sends an editor must read back as the same tree and the same text.
    @Test(arguments: [
        // body fuzzer: a transform whose format holds a conditional with a `/`, then an escaped `_`.
        #"${1//${1:?/}\_${1:}"#,
    ])
    func bodyRoundTripsThroughLSPText(_ text: String) {
        let body = SnippetBody.parse(text).body
        let serialized = body.lspText()
        let reparsed = SnippetBody.parse(serialized).body

        #expect(reparsed == body, "\(text.debugDescription) -> \(serialized.debugDescription)")
        #expect(reparsed.lspText() == serialized)
    }
}
