import Testing
@testable import SnippetsCore

@Suite struct TokenizerTests {
    static let cases: [(text: String, tokens: [String])] = [
        ("parseHTTPResponse", ["parse", "http", "response", "parsehttpresponse"]),
        ("camelCase", ["camel", "case", "camelcase"]),
        ("PascalCase", ["pascal", "case", "pascalcase"]),
        ("XMLHttpRequest", ["xml", "http", "request", "xmlhttprequest"]),
        ("guard_let", ["guard", "let", "guard_let"]),
        ("__init__", ["init"]),
        ("SCREAMING_SNAKE_CASE", ["screaming", "snake", "case", "screaming_snake_case"]),
        ("kebab-case-name", ["kebab", "case", "name", "kebab-case-name"]),
        ("--verbose", ["verbose"]),
        ("base64 utf8", ["base", "64", "base64", "utf", "8", "utf8"]),
        ("h1", ["h", "1", "h1"]),
        ("2nd", ["2", "nd", "2nd"]),
        ("version 10", ["version", "10"]),
        ("Hello, World!", ["hello", "world"]),
        ("console.log(${1:message});", ["console", "log", "1", "message"]),
        ("Straße café", ["straße", "café"]),
        ("ПриветМир", ["привет", "мир", "приветмир"]),
        ("счёт-фактура", ["счёт", "фактура", "счёт-фактура"]),
        ("日本語テキスト", ["日", "本", "語", "テキスト"]),
        ("发票模板", ["发", "票", "模", "板"]),
        ("🚀launch now🎉", ["launch", "now"]),
        ("///", []),
        ("!", []),
        ("#include", ["include"]),
        ("", []),
        ("don't", ["don", "t"]),
    ]

    @Test(arguments: cases)
    func tokens(text: String, expected: [String]) {
        #expect(Tokenizer.tokens(in: text) == expected, "tokens of \(text)")
    }

    /// ASCII text takes a byte-only path; adding one non-ASCII word sends the same text down the Unicode path,
    /// which must split it identically.
    @Test(arguments: cases.filter { $0.text.utf8.allSatisfy { $0 < 0x80 } })
    func asciiAndUnicodePathsAgree(text: String, expected: [String]) {
        #expect(Tokenizer.tokens(in: text + " é") == expected + ["é"])
    }

    @Test func lastWordReachesTheEndOnlyWhenNothingFollows() {
        var ends: [String: Bool] = [:]
        Tokenizer.forEachToken(in: "invoice foot") { token, reachesEnd in ends[token] = reachesEnd }
        #expect(ends == ["invoice": false, "foot": true])
        var trailing: [Bool] = []
        Tokenizer.forEachToken(in: "foot ") { _, reachesEnd in trailing.append(reachesEnd) }
        #expect(trailing == [false])
        var compound: [String: Bool] = [:]
        Tokenizer.forEachToken(in: "guardLe") { token, reachesEnd in compound[token] = reachesEnd }
        #expect(compound == ["guard": false, "le": true, "guardle": true])
    }
}
