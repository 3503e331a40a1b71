import Testing
@testable import SnippetsCore

@Suite struct StemmerTests {
    /// Words that must share a stem: inflections and irregular forms of one family.
    static let families: [[String]] = [
        ["payment", "payments", "Payments"],
        ["pay", "pays", "paid", "paying"],
        ["send", "sends", "sent", "sending"],
        ["write", "writes", "wrote", "written", "writing"],
        ["go", "goes", "went", "gone"],
        ["buy", "buys", "bought", "buying"],
        ["make", "makes", "made", "making"],
        ["say", "says", "said", "saying"],
        ["get", "gets", "got", "gotten", "getting"],
        ["run", "runs", "ran", "running"],
        ["take", "takes", "took", "taken", "taking"],
        ["give", "gives", "gave", "given", "giving"],
        ["know", "knows", "knew", "known"],
        ["leave", "leaves", "left", "leaving"],
        ["keep", "keeps", "kept", "keeping"],
        ["child", "children"],
        ["person", "people"],
        ["invoice", "invoices", "invoiced", "invoicing"],
        ["deploy", "deploys", "deployed", "deploying", "deployment"],
        ["connect", "connected", "connecting", "connection", "connections"],
        ["happy", "happiness"],
    ]

    @Test(arguments: families)
    func familySharesAStem(words: [String]) {
        let stems = Set(words.map(EnglishStemmer.stem))
        #expect(stems.count == 1, "stems of \(words): \(stems.sorted())")
    }

    static let examples: [(word: String, stem: String)] = [
        ("caresses", "caress"), ("ponies", "poni"), ("cats", "cat"), ("feed", "feed"), ("agreed", "agre"),
        ("plastered", "plaster"), ("motoring", "motor"), ("hopping", "hop"), ("filing", "file"),
        ("relational", "relat"), ("generalization", "gener"), ("pay", "pay"), ("paid", "pay"), ("went", "go"),
        ("payments", "payment"), ("by", "by"), ("is", "be"), ("straße", "straße"), ("utf8", "utf8"),
        ("HTTP", "http"), ("a", "a"),
    ]

    @Test(arguments: examples)
    func stem(word: String, expected: String) {
        #expect(EnglishStemmer.stem(word) == expected)
    }

    @Test func differentWordsKeepDifferentStems() {
        #expect(EnglishStemmer.stem("payment") != EnglishStemmer.stem("pay"))
        #expect(EnglishStemmer.stem("invoice") != EnglishStemmer.stem("voice"))
        #expect(EnglishStemmer.stem("left") != EnglishStemmer.stem("lift"))
    }
}
