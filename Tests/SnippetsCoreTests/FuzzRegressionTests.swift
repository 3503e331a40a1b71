import Testing

@testable import SnippetsCore

/// Inputs the fuzz targets (Tests/fuzz) found, each kept with its exact bytes once the bug behind it was fixed.
struct FuzzRegressionTests {
    /// What the server sends an editor must read back as the same tree and the same text.
    @Test(arguments: [
        // body fuzzer: a transform whose format holds a conditional with a `/`, then an escaped `_`.
        #"${1//${1:?/}\_${1:}"#,
        // body fuzzer (36 KB: thousands of `${N:a` with stray `$`, `$7a{:` and unmatched `}`): a bare `$7` inside
        // placeholders nested to the depth cap is a tabstop, written back as `${7}`, which the cap read as text.
        String(repeating: "${1:a", count: SnippetBodyParser.maximumDepth) + "$7a{:"
            + String(repeating: "}", count: SnippetBodyParser.maximumDepth + 2),
        // The same for a variable and for a choice at the cap, and one level past it (where `${2:` is text).
        String(repeating: "${1:a", count: SnippetBodyParser.maximumDepth) + "$TM_FILENAME_x ${2|a,b|} ${3:c}"
            + String(repeating: "}", count: SnippetBodyParser.maximumDepth),
    ])
    func bodyRoundTripsThroughLSPText(_ text: String) {
        let body = SnippetBody.parse(text).body
        let serialized = body.lspText()
        let reparsed = SnippetBody.parse(serialized).body

        #expect(reparsed == body, "\(text.debugDescription) -> \(serialized.debugDescription)")
        #expect(reparsed.lspText() == serialized)
    }
}
