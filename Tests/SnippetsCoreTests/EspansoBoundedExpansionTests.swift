import Testing

@testable import SnippetsCore

/// The bytes an espanso file's converted bodies take are bounded by a small multiple of the bytes its matches are
/// written in, whatever mix of global variables, `echo`, `random`, `match` nesting and imports it uses: past
/// `EspansoReplacement.fileAllowance` references become placeholders, with a note.
@Suite struct EspansoBoundedExpansionTests {
    /// A 200 KB text, as a YAML scalar on one line.
    static let big = String(repeating: "x", count: 200_000)

    /// Shapes of file that multiply text: each is the file text for `matches` matches (and its imports).
    static func shapes(matches: Int) -> [(name: String, files: [String: String])] {
        let uses = String(repeating: "{{big}}", count: 4)
        func list(_ replace: String) -> String {
            (0..<matches).map { "  - trigger: \":m\($0)\"\n    replace: \"\(replace)\"\n" }.joined()
        }
        return [
            (
                "a global echo used four times in each match",
                ["/esp/match/base.yml": "global_vars:\n  - name: big\n    type: echo\n    params:\n      echo: \(big)\nmatches:\n" + list(uses)]
            ),
            (
                "nested echoes, random and a match variable",
                [
                    "/esp/match/base.yml": """
                        global_vars:
                          - name: leaf
                            type: echo
                            params:
                              echo: \(String(repeating: "y", count: 20_000))
                          - name: two
                            type: random
                            params:
                              choices: ["{{leaf}}{{leaf}}{{leaf}}{{leaf}}"]
                          - name: big
                            type: echo
                            params:
                              echo: "{{two}}{{two}}{{two}}{{two}}"
                          - name: nested
                            type: match
                            params:
                              trigger: ":m0"
                        matches:

                        """ + list(uses + "{{nested}}"),
                ]
            ),
            (
                "a global from an import",
                [
                    "/esp/match/_vars.yml": "global_vars:\n  - name: big\n    type: echo\n    params:\n      echo: \(big)\n",
                    "/esp/match/base.yml": "imports:\n  - _vars.yml\nmatches:\n" + list(uses),
                ]
            ),
        ]
    }

    static func bodyBytes(_ library: SnippetLibrary, in path: String) -> Int {
        library.files.filter { $0.path == path }.flatMap(\.snippets).reduce(0) { $0 + $1.body.utf8.count }
    }

    @Test(arguments: 0..<3)
    func aFilesBodiesAreBoundedByItsSize(shape: Int) {
        let matches = 150  // about 7 KB of matches: 120 MB of bodies before the file allowance
        let (name, files) = Self.shapes(matches: matches)[shape]
        let library = loadLibrary(files, paths: ["/esp"])
        let fileBytes = files["/esp/match/base.yml"]!.utf8.count
        let bodies = Self.bodyBytes(library, in: "/esp/match/base.yml")
        #expect(library.files.first { $0.path == "/esp/match/base.yml" }?.snippets.count == matches, "\(name)")
        // The allowance, plus what an expansion under way finishes (at most the largest scalar per nesting level).
        #expect(bodies <= EspansoReplacement.fileAllowance(fileBytes: fileBytes) + 2 * 200_000 + 64 << 10, "\(name): \(bodies)")
        let notes = library.files.flatMap(\.diagnostics).filter { $0.code == .espansoExpansionLimit }
        #expect(!notes.isEmpty, "\(name)")
    }

    @Test func twiceTheMatchesDoNotTakeTwiceTheBytesPastTheAllowance() {
        let small = Self.shapes(matches: 150)[0].files
        let large = Self.shapes(matches: 300)[0].files
        let single = Self.bodyBytes(loadLibrary(small, paths: ["/esp"]), in: "/esp/match/base.yml")
        let double = Self.bodyBytes(loadLibrary(large, paths: ["/esp"]), in: "/esp/match/base.yml")
        let grown = large["/esp/match/base.yml"]!.utf8.count - small["/esp/match/base.yml"]!.utf8.count
        // The file grows by 7 KB: its bodies by 8 times that (and one expansion's 200 KB that the larger allowance
        // lets finish), not by 150 more bodies of 800 KB.
        #expect(double - single <= 8 * grown + 200_000 + 150 * 64, "\(single) → \(double)")
    }

    @Test func anOrdinaryFileIsUntouched() {
        // A signature used by 50 matches: 50 full bodies, well under the 64 KiB floor.
        let signature = String(repeating: "Best regards, Ada Lovelace. ", count: 8)
        let file = "global_vars:\n  - name: sig\n    type: echo\n    params:\n      echo: \(signature)\nmatches:\n"
            + (0..<50).map { "  - trigger: \":s\($0)\"\n    replace: \"Hello,{{sig}}\"\n" }.joined()
        let library = loadLibrary(["/esp/match/base.yml": file], paths: ["/esp"])
        #expect(library.snippets.count == 50)
        #expect(library.snippets.allSatisfy { $0.body == "Hello," + signature.trimmingTrailingSpace })
        #expect(!library.files.flatMap(\.diagnostics).contains { $0.code == .espansoExpansionLimit })
    }
}

extension String {
    fileprivate var trimmingTrailingSpace: String {
        var result = self
        while result.last == " " { result.removeLast() }
        return result
    }
}
