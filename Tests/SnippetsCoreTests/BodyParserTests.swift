import Testing

@testable import SnippetsCore

/// One grammar case: a body, the tree it must parse to, and the problem codes (with offsets) it must report.
struct BodyCase: Sendable, CustomTestStringConvertible {
    var body: String
    var elements: [SnippetElement]
    var problems: [String] = []

    var testDescription: String { body.debugDescription }
}

/// Parses `body` and compares the tree and the problems (`code@offset`) with what a case expects.
private func check(_ testCase: BodyCase, sourceLocation: Testing.SourceLocation = #_sourceLocation) {
    let parse = SnippetBody.parse(testCase.body)
    #expect(parse.body.elements == testCase.elements, sourceLocation: sourceLocation)
    #expect(parse.problems.map { "\($0.code)@\($0.utf16Offset)" } == testCase.problems, sourceLocation: sourceLocation)
}

@Suite struct BodyParserTests {
    static let wellFormed: [BodyCase] = [
        BodyCase(body: "hello world", elements: [.text("hello world")]),
        BodyCase(body: "", elements: []),
        BodyCase(body: "$1", elements: [.tabstop(1)]),
        BodyCase(body: "${1}", elements: [.tabstop(1)]),
        BodyCase(body: "$0", elements: [.tabstop(0)]),
        BodyCase(body: "$1abc", elements: [.tabstop(1), .text("abc")]),
        BodyCase(body: "${1:default}", elements: [.placeholder(1, [.text("default")])]),
        BodyCase(body: "${1:}", elements: [.placeholder(1, [])]),
        BodyCase(
            body: "${1:foo ${2:bar}}",
            elements: [.placeholder(1, [.text("foo "), .placeholder(2, [.text("bar")])])]),
        BodyCase(body: "${1:${2:x}}", elements: [.placeholder(1, [.placeholder(2, [.text("x")])])]),
        BodyCase(body: "${1|a,b,c|}", elements: [.choice(1, ["a", "b", "c"])]),
        BodyCase(body: #"${1|a\,b,c|}"#, elements: [.choice(1, ["a,b", "c"])]),
        BodyCase(body: #"${1|a\|b,c\\d|}"#, elements: [.choice(1, ["a|b", #"c\d"#])]),
        BodyCase(body: #"${1|a$b,c},\$\}|}"#, elements: [.choice(1, ["a$b", "c}", "$}"])]),
        BodyCase(body: "$TM_FILENAME", elements: [.variable("TM_FILENAME", default: nil)]),
        BodyCase(body: "$TM_FILENAME.txt", elements: [.variable("TM_FILENAME", default: nil), .text(".txt")]),
        BodyCase(body: "${TM_FILENAME}", elements: [.variable("TM_FILENAME", default: nil)]),
        BodyCase(body: "${CLIPBOARD:}", elements: [.variable("CLIPBOARD", default: [])]),
        BodyCase(
            body: "${TM_FILENAME:untitled}", elements: [.variable("TM_FILENAME", default: [.text("untitled")])]),
        BodyCase(
            body: "${TM_SELECTED_TEXT:${1:x}}",
            elements: [.variable("TM_SELECTED_TEXT", default: [.placeholder(1, [.text("x")])])]),
        BodyCase(
            body: "${TM_FILENAME_BASE/(.*)/${1:/upcase}/}",
            elements: [
                .transform(
                    .variable("TM_FILENAME_BASE"), SnippetTransform(regex: "(.*)", format: "${1:/upcase}", options: ""))
            ]),
        BodyCase(
            body: "${1/(.*)/${1:/capitalize}/}",
            elements: [
                .transform(.tabstop(1), SnippetTransform(regex: "(.*)", format: "${1:/capitalize}", options: ""))
            ]),
        BodyCase(
            body: #"${1/a\/b/c\/d/gi}"#,
            elements: [.transform(.tabstop(1), SnippetTransform(regex: #"a\/b"#, format: #"c\/d"#, options: "gi"))]),
        BodyCase(
            body: #"${TM_FILENAME/(.*)\..+$/$1/}"#,
            elements: [
                .transform(.variable("TM_FILENAME"), SnippetTransform(regex: #"(.*)\..+$"#, format: "$1", options: ""))
            ]),
        BodyCase(
            body: "${1/(foo)?/${1:?yes:no}/m}",
            elements: [.transform(.tabstop(1), SnippetTransform(regex: "(foo)?", format: "${1:?yes:no}", options: "m"))]
        ),
        BodyCase(
            body: "${1/x/${1:+a}${1:-b}${1:c}$2 $ ${2}/}",
            elements: [
                .transform(
                    .tabstop(1), SnippetTransform(regex: "x", format: "${1:+a}${1:-b}${1:c}$2 $ ${2}", options: ""))
            ]),
        // Escapes in text: \$, \}, \\; any other backslash is literal.
        BodyCase(body: "$$1", elements: [.text("$"), .tabstop(1)]),
        BodyCase(body: #"\$1"#, elements: [.text("$1")]),
        BodyCase(body: #"\\$1"#, elements: [.text(#"\"#), .tabstop(1)]),
        BodyCase(body: #"\}"#, elements: [.text("}")]),
        BodyCase(body: #"a\b\n"#, elements: [.text(#"a\b\n"#)]),
        BodyCase(body: #"${1:a\}b}"#, elements: [.placeholder(1, [.text("a}b")])]),
        BodyCase(body: "${1:a}b}", elements: [.placeholder(1, [.text("a")]), .text("b}")]),
        BodyCase(body: "}", elements: [.text("}")]),
        // A lone `$` is literal text and no problem.
        BodyCase(body: "price: $ 5, $", elements: [.text("price: $ 5, $")]),
        BodyCase(body: "a$-b", elements: [.text("a$-b")]),
        BodyCase(
            body: "for ${1:i} in ${2|a,b|} {\n\t$0\n}",
            elements: [
                .text("for "), .placeholder(1, [.text("i")]), .text(" in "), .choice(2, ["a", "b"]), .text(" {\n\t"),
                .tabstop(0), .text("\n}"),
            ]),
    ]

    @Test(arguments: wellFormed) func parsesWellFormedBodies(_ testCase: BodyCase) {
        check(testCase)
    }

    static let malformed: [BodyCase] = [
        BodyCase(body: "${1:foo", elements: [.text("${1:foo")], problems: ["unterminated-placeholder@0"]),
        BodyCase(body: "${1", elements: [.text("${1")], problems: ["unterminated-placeholder@0"]),
        BodyCase(body: "x${", elements: [.text("x${")], problems: ["unterminated-placeholder@1"]),
        // The outer placeholder falls back to text; the inner one still parses.
        BodyCase(
            body: "${1:foo ${2:bar}",
            elements: [.text("${1:foo "), .placeholder(2, [.text("bar")])],
            problems: ["unterminated-placeholder@0"]),
        BodyCase(
            body: "${TM_FILENAME:foo", elements: [.text("${TM_FILENAME:foo")], problems: ["unterminated-variable@0"]),
        BodyCase(body: "${1|a,b", elements: [.text("${1|a,b")], problems: ["unterminated-choice@0"]),
        BodyCase(body: "${1|a,b|", elements: [.text("${1|a,b|")], problems: ["unterminated-choice@0"]),
        BodyCase(body: "${1||}", elements: [.text("${1||}")], problems: ["empty-choice@0"]),
        BodyCase(body: "${1|a,,b|}", elements: [.text("${1|a,,b|}")], problems: ["empty-choice@0"]),
        // A regex JavaScript rejects makes the whole transform literal text, as in VS Code and Helix.
        BodyCase(body: "a${1/(/x/}", elements: [.text("a${1/(/x/}")], problems: ["invalid-regex@1"]),
        // A regex that backtracks without bound is kept (the server runs it under a budget) and warned of.
        BodyCase(
            body: "a${1/(a+)+$/x/}",
            elements: [.text("a"), .transform(.tabstop(1), SnippetTransform(regex: "(a+)+$", format: "x", options: ""))],
            problems: ["backtracking-regex@1"]),
        // VS Code takes no choice on $0 (#31599): literal text.
        BodyCase(body: "${0|a,b|}", elements: [.text("${0|a,b|}")], problems: ["choice-on-final-tabstop@0"]),
        // An empty conditional is not a format item (VS Code's `_until` gives ''), so it is format text.
        BodyCase(
            body: "${1/a/${1:+}/}",
            elements: [.transform(.tabstop(1), SnippetTransform(regex: "a", format: "${1:+}", options: ""))]),
        BodyCase(body: "${1/a/b}", elements: [.text("${1/a/b}")], problems: ["invalid-transform@0"]),
        BodyCase(body: "${1/a/b/z}", elements: [.text("${1/a/b/z}")], problems: ["invalid-transform@0"]),
        BodyCase(body: "${1/a/b/", elements: [.text("${1/a/b/")], problems: ["invalid-transform@0"]),
        // Options that run on into text fail at the first character that is no flag (VS Code reads on to the next `}`
        // and fails the same way), and reading resumes after the `$`: the later placeholder still parses.
        BodyCase(
            body: "${1/a/b/g ${2:x}}", elements: [.text("${1/a/b/g "), .placeholder(2, [.text("x")]), .text("}")],
            problems: ["invalid-transform@0"]),
        BodyCase(body: "${1/a/b/gimsuydg}", elements: [.text("${1/a/b/gimsuydg}")], problems: ["invalid-transform@0"]),
        BodyCase(
            body: "${1/a/b/dgimsuy}",
            elements: [.transform(.tabstop(1), SnippetTransform(regex: "a", format: "b", options: "dgimsuy"))]),
        BodyCase(body: "${1x}", elements: [.text("${1x}")], problems: ["invalid-placeholder@0"]),
        BodyCase(body: "${}", elements: [.text("${}")], problems: ["invalid-placeholder@0"]),
        BodyCase(body: "${#array[@]}", elements: [.text("${#array[@]}")], problems: ["invalid-placeholder@0"]),
        BodyCase(body: "${array[@]}", elements: [.text("${array[@]}")], problems: ["invalid-variable@0"]),
        BodyCase(
            body: "a $foo", elements: [.text("a "), .variable("foo", default: nil)], problems: ["unknown-variable@2"]),
        BodyCase(
            body: "${name:x}", elements: [.variable("name", default: [.text("x")])], problems: ["unknown-variable@0"]),
        // Offsets count UTF-16 code units: é is one, 😀 is two.
        BodyCase(body: "é😀${1:x", elements: [.text("é😀${1:x")], problems: ["unterminated-placeholder@3"]),
        // A problem inside a construct that later falls back is reported once, from the text-level reparse.
        BodyCase(
            body: "${1:$foo",
            elements: [.text("${1:"), .variable("foo", default: nil)],
            problems: ["unterminated-placeholder@0", "unknown-variable@4"]),
    ]

    @Test(arguments: malformed) func keepsMalformedPartsAsTextAndReportsThem(_ testCase: BodyCase) {
        check(testCase)
    }

    @Test func problemSeveritiesAndMessages() {
        let unknown = SnippetBody.parse("$foo").problems
        #expect(unknown.map(\.severity) == [.warning])
        #expect(unknown.first?.message.contains("placeholder") == true)
        #expect(SnippetBody.parse("${1:x").problems.map(\.severity) == [.error])
        #expect(SnippetBody.parse("${}").problems.map(\.severity) == [.warning])
    }

    @Test func deeplyNestedAndUnterminatedBodiesStayFast() {
        let unterminated = String(repeating: "${1:", count: 3000)
        let parse = SnippetBody.parse(unterminated)
        #expect(parse.body.elements == [.text(unterminated)])
        #expect(parse.problems.count == 3000)
        #expect(Set(parse.problems.map(\.code.rawValue)).isSubset(of: ["unterminated-placeholder", "nesting-too-deep"]))
        #expect(parse.problems.first?.code.rawValue == "unterminated-placeholder")

        let deep = (1...100).map { "${\($0):" }.joined() + "x" + String(repeating: "}", count: 100)
        let deepParse = SnippetBody.parse(deep)
        #expect(deepParse.problems.map(\.code.rawValue).contains("nesting-too-deep"))
        #expect(deepParse.body.plainText().contains("x"))
        #expect(SnippetBody.parse(deepParse.body.lspText()).body == deepParse.body)
    }

    @Test func everyCodeIsExercised() {
        let seen = Set(
            (Self.malformed + [BodyCase(body: "", elements: [])]).map(\.problems).joined().map {
                String($0.split(separator: "@")[0])
            }
        ).union(["nesting-too-deep"])
        #expect(seen == Set(DiagnosticCode.bodyProblems.map(\.rawValue)))
    }
}

/// Random bodies over the grammar's own characters: parsing never traps, offsets stay inside the body, and
/// re-serializing is a fixed point. Seeded, so a failure reproduces.
@Suite struct BodyFuzzTests {
    /// SplitMix64: small, deterministic, good enough to pick characters.
    struct SeededGenerator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static let alphabet: [String] = [
        "$", "$", "{", "}", "1", "0", "2", ":", "|", ",", "/", "\\", "a", "TM_FILENAME", "X", "_", "-", "+", "?", " ",
        "é", "😀", "(", ")", ".", "*", "\n", "g",
        // Whole openers and closers, so choices and transforms actually form.
        "${1:", "${2|", "${1/", "${TM_FILENAME/", "${X:", "|}", "/", "/", "/}", "/gi}", "${1:/upcase}", "${1:?a:b}",
        "\\,", "\\/", "\\$",
    ]

    @Test func randomBodiesRoundTrip() {
        var generator = SeededGenerator(state: 20_261_129)
        var unstable: [String] = []
        var withSyntax = 0
        var withProblems = 0
        var transforms = 0
        var choices = 0
        for _ in 0..<3000 {
            let length = Int.random(in: 0...24, using: &generator)
            let text = (0..<length).map { _ in Self.alphabet.randomElement(using: &generator)! }.joined()
            let parse = SnippetBody.parse(text)
            let length16 = text.utf16.count
            #expect(parse.problems.allSatisfy { $0.utf16Offset >= 0 && $0.utf16Offset < length16 }, "\(text)")
            let serialized = parse.body.lspText()
            let reparsed = SnippetBody.parse(serialized).body
            if reparsed != parse.body || reparsed.lspText() != serialized { unstable.append(text) }
            _ = parse.body.plainText()
            if parse.body.hasSnippetSyntax { withSyntax += 1 }
            if parse.body.elements.contains(where: { if case .transform = $0 { true } else { false } }) {
                transforms += 1
            }
            if parse.body.elements.contains(where: { if case .choice = $0 { true } else { false } }) { choices += 1 }
            if !parse.problems.isEmpty { withProblems += 1 }
        }
        // The alphabet must actually produce constructs and broken ones, or the test proves nothing.
        #expect(withSyntax > 300 && withProblems > 300, "\(withSyntax) with syntax, \(withProblems) with problems")
        #expect(transforms > 10 && choices > 10, "\(transforms) with transforms, \(choices) with choices")
        #expect(unstable.isEmpty, "unstable: \(unstable.prefix(5).map(\.debugDescription))")
    }
}
