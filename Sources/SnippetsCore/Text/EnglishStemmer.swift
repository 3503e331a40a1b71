/// A deterministic English stemmer: the Porter (1980) algorithm with Snowball's gentler `y` rule (`pay` stays
/// `pay`, `happy` becomes `happi`), plus a table of irregular forms (`paid` → pay, `went` → go, `children` →
/// child), so that words of one family share a stem: `payments` and `payment` → payment, `deploying` and
/// `deployment` → deploy. Stems are keys for matching, not words to show. Words that are not plain ASCII
/// letters, and words of one or two letters, come back lowercased and otherwise unchanged.
public enum EnglishStemmer {
    /// The stem of `word` (any case).
    public static func stem(_ word: String) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(word.utf8.count)
        for byte in word.utf8 {
            switch byte {
            case 0x61...0x7A: bytes.append(byte)
            case 0x41...0x5A: bytes.append(byte + 0x20)
            default: return word.lowercased()
            }
        }
        if let base = irregularForms[String(decoding: bytes, as: UTF8.self)] {
            bytes = Array(base.utf8)
        }
        guard bytes.count > 2 else { return String(decoding: bytes, as: UTF8.self) }
        var stemmer = PorterStemmer(bytes)
        stemmer.run()
        return String(decoding: stemmer.word[0...stemmer.k], as: UTF8.self)
    }

    /// Irregular inflections mapped to their base form, which is then stemmed like any word. Forms that are
    /// commonly other words in code or prose (`bit`, `lit`, `saw`, `rose`, `fell`) are left out on purpose.
    public static let irregularForms: [String: String] = {
        let table: [(base: String, forms: [String])] = [
            ("be", ["am", "is", "are", "was", "were", "been", "being"]),
            ("have", ["has", "had"]),
            ("do", ["does", "did", "done"]),
            ("go", ["goes", "went", "gone"]),
            ("pay", ["paid"]),
            ("send", ["sent"]),
            ("write", ["wrote", "written"]),
            ("buy", ["bought"]),
            ("make", ["made"]),
            ("say", ["said", "says"]),
            ("get", ["got", "gotten"]),
            ("run", ["ran"]),
            ("take", ["took", "taken"]),
            ("give", ["gave", "given"]),
            ("know", ["knew", "known"]),
            ("leave", ["left"]),
            ("keep", ["kept"]),
            ("come", ["came"]),
            ("see", ["seen"]),
            ("find", ["found"]),
            ("think", ["thought"]),
            ("tell", ["told"]),
            ("feel", ["felt"]),
            ("become", ["became"]),
            ("begin", ["began", "begun"]),
            ("bring", ["brought"]),
            ("build", ["built"]),
            ("hold", ["held"]),
            ("stand", ["stood"]),
            ("understand", ["understood"]),
            ("mean", ["meant"]),
            ("meet", ["met"]),
            ("lose", ["lost"]),
            ("spend", ["spent"]),
            ("lend", ["lent"]),
            ("sell", ["sold"]),
            ("seek", ["sought"]),
            ("teach", ["taught"]),
            ("catch", ["caught"]),
            ("fight", ["fought"]),
            ("choose", ["chose", "chosen"]),
            ("drive", ["drove", "driven"]),
            ("eat", ["ate", "eaten"]),
            ("fly", ["flew", "flown"]),
            ("forget", ["forgot", "forgotten"]),
            ("freeze", ["froze", "frozen"]),
            ("grow", ["grew", "grown"]),
            ("hide", ["hid", "hidden"]),
            ("ride", ["rode", "ridden"]),
            ("shake", ["shook", "shaken"]),
            ("speak", ["spoke", "spoken"]),
            ("steal", ["stole", "stolen"]),
            ("throw", ["threw", "thrown"]),
            ("wake", ["woke", "woken"]),
            ("wear", ["wore", "worn"]),
            ("break", ["broke", "broken"]),
            ("draw", ["drew", "drawn"]),
            ("drink", ["drank", "drunk"]),
            ("sing", ["sang", "sung"]),
            ("swim", ["swam", "swum"]),
            ("ring", ["rang", "rung"]),
            ("win", ["won"]),
            ("sit", ["sat"]),
            ("sleep", ["slept"]),
            ("lay", ["laid"]),
            ("lead", ["led"]),
            ("feed", ["fed"]),
            ("flee", ["fled"]),
            ("deal", ["dealt"]),
            ("hear", ["heard"]),
            ("strike", ["struck"]),
            ("hang", ["hung"]),
            ("dig", ["dug"]),
            ("shoot", ["shot"]),
            ("slide", ["slid"]),
            ("spin", ["spun"]),
            ("stick", ["stuck"]),
            ("swing", ["swung"]),
            ("weep", ["wept"]),
            ("child", ["children"]),
            ("person", ["people"]),
            ("man", ["men"]),
            ("woman", ["women"]),
            ("mouse", ["mice"]),
            ("foot", ["feet"]),
            ("tooth", ["teeth"]),
            ("goose", ["geese"]),
            ("knife", ["knives"]),
            ("wife", ["wives"]),
            ("life", ["lives"]),
            ("analysis", ["analyses"]),
            ("index", ["indices"]),
            ("matrix", ["matrices"]),
            ("vertex", ["vertices"]),
            ("criterion", ["criteria"]),
            ("phenomenon", ["phenomena"]),
        ]
        var forms: [String: String] = [:]
        for (base, inflections) in table {
            for form in inflections { forms[form] = base }
        }
        return forms
    }()
}

/// Porter's algorithm over lowercase ASCII bytes, following his reference implementation: `word[0...k]` is the
/// current word, `j` marks the end of the stem found by the last `ends(_:)`.
private struct PorterStemmer {
    var word: [UInt8]
    var k: Int
    var j = 0

    init(_ word: [UInt8]) {
        self.word = word
        self.k = word.count - 1
    }

    mutating func run() {
        step1ab()
        if k > 0 {
            step1c()
            step2()
            step3()
            step4()
            step5()
        }
    }

    private func isConsonant(_ i: Int) -> Bool {
        switch word[i] {
        case UInt8(ascii: "a"), UInt8(ascii: "e"), UInt8(ascii: "i"), UInt8(ascii: "o"), UInt8(ascii: "u"): false
        case UInt8(ascii: "y"): i == 0 ? true : !isConsonant(i - 1)
        default: true
        }
    }

    /// The number of vowel-consonant sequences in `word[0...j]`.
    private func measure() -> Int {
        var n = 0
        var i = 0
        while true {
            if i > j { return n }
            if !isConsonant(i) { break }
            i += 1
        }
        i += 1
        while true {
            while true {
                if i > j { return n }
                if isConsonant(i) { break }
                i += 1
            }
            i += 1
            n += 1
            while true {
                if i > j { return n }
                if !isConsonant(i) { break }
                i += 1
            }
            i += 1
        }
    }

    private func vowelInStem() -> Bool {
        guard j >= 0 else { return false }
        for i in 0...j where !isConsonant(i) { return true }
        return false
    }

    private func isDoubleConsonant(_ i: Int) -> Bool {
        i >= 1 && word[i] == word[i - 1] && isConsonant(i)
    }

    /// Consonant-vowel-consonant ending at `i`, the last not w, x or y (`hop`, not `snow`).
    private func isCVC(_ i: Int) -> Bool {
        guard i >= 2, isConsonant(i), !isConsonant(i - 1), isConsonant(i - 2) else { return false }
        let last = word[i]
        return last != UInt8(ascii: "w") && last != UInt8(ascii: "x") && last != UInt8(ascii: "y")
    }

    private mutating func ends(_ suffix: StaticString) -> Bool {
        let length = suffix.utf8CodeUnitCount
        guard length <= k + 1 else { return false }
        let start = k - length + 1
        let matches = suffix.withUTF8Buffer { buffer in
            for offset in 0..<length where word[start + offset] != buffer[offset] { return false }
            return true
        }
        guard matches else { return false }
        j = k - length
        return true
    }

    private mutating func setTo(_ replacement: StaticString) {
        let length = replacement.utf8CodeUnitCount
        word.removeSubrange((j + 1)...)
        replacement.withUTF8Buffer { word.append(contentsOf: $0) }
        k = j + length
    }

    private mutating func replaceIfMeasured(_ replacement: StaticString) {
        if measure() > 0 { setTo(replacement) }
    }

    private mutating func truncate() {
        word.removeSubrange((k + 1)...)
    }

    private mutating func step1ab() {
        if word[k] == UInt8(ascii: "s") {
            if ends("sses") {
                k -= 2
            } else if ends("ies") {
                setTo("i")
            } else if k >= 1, word[k - 1] != UInt8(ascii: "s") {
                k -= 1
            }
            truncate()
        }
        if ends("eed") {
            if measure() > 0 { k -= 1 }
        } else if (ends("ed") || ends("ing")) && vowelInStem() {
            k = j
            truncate()
            if ends("at") {
                setTo("ate")
            } else if ends("bl") {
                setTo("ble")
            } else if ends("iz") {
                setTo("ize")
            } else if isDoubleConsonant(k) {
                let last = word[k]
                if last != UInt8(ascii: "l") && last != UInt8(ascii: "s") && last != UInt8(ascii: "z") { k -= 1 }
            } else {
                j = k
                if measure() == 1 && isCVC(k) {
                    word.append(UInt8(ascii: "e"))
                    k += 1
                }
            }
        }
        truncate()
    }

    /// Snowball's rule: a final `y` after a consonant that is not the first letter becomes `i`.
    private mutating func step1c() {
        if k >= 2, word[k] == UInt8(ascii: "y"), isConsonant(k - 1) {
            word[k] = UInt8(ascii: "i")
        }
    }

    private mutating func step2() {
        guard k >= 1 else { return }
        switch word[k - 1] {
        case UInt8(ascii: "a"):
            if ends("ational") { replaceIfMeasured("ate") } else if ends("tional") { replaceIfMeasured("tion") }
        case UInt8(ascii: "c"):
            if ends("enci") { replaceIfMeasured("ence") } else if ends("anci") { replaceIfMeasured("ance") }
        case UInt8(ascii: "e"):
            if ends("izer") { replaceIfMeasured("ize") }
        case UInt8(ascii: "l"):
            if ends("bli") {
                replaceIfMeasured("ble")
            } else if ends("alli") {
                replaceIfMeasured("al")
            } else if ends("entli") {
                replaceIfMeasured("ent")
            } else if ends("eli") {
                replaceIfMeasured("e")
            } else if ends("ousli") {
                replaceIfMeasured("ous")
            }
        case UInt8(ascii: "o"):
            if ends("ization") {
                replaceIfMeasured("ize")
            } else if ends("ation") {
                replaceIfMeasured("ate")
            } else if ends("ator") {
                replaceIfMeasured("ate")
            }
        case UInt8(ascii: "s"):
            if ends("alism") {
                replaceIfMeasured("al")
            } else if ends("iveness") {
                replaceIfMeasured("ive")
            } else if ends("fulness") {
                replaceIfMeasured("ful")
            } else if ends("ousness") {
                replaceIfMeasured("ous")
            }
        case UInt8(ascii: "t"):
            if ends("aliti") {
                replaceIfMeasured("al")
            } else if ends("iviti") {
                replaceIfMeasured("ive")
            } else if ends("biliti") {
                replaceIfMeasured("ble")
            }
        case UInt8(ascii: "g"):
            if ends("logi") { replaceIfMeasured("log") }
        default:
            break
        }
    }

    private mutating func step3() {
        switch word[k] {
        case UInt8(ascii: "e"):
            if ends("icate") {
                replaceIfMeasured("ic")
            } else if ends("ative") {
                replaceIfMeasured("")
            } else if ends("alize") {
                replaceIfMeasured("al")
            }
        case UInt8(ascii: "i"):
            if ends("iciti") { replaceIfMeasured("ic") }
        case UInt8(ascii: "l"):
            if ends("ical") { replaceIfMeasured("ic") } else if ends("ful") { replaceIfMeasured("") }
        case UInt8(ascii: "s"):
            if ends("ness") { replaceIfMeasured("") }
        default:
            break
        }
    }

    private mutating func step4() {
        guard k >= 1 else { return }
        let found: Bool
        switch word[k - 1] {
        case UInt8(ascii: "a"): found = ends("al")
        case UInt8(ascii: "c"): found = ends("ance") || ends("ence")
        case UInt8(ascii: "e"): found = ends("er")
        case UInt8(ascii: "i"): found = ends("ic")
        case UInt8(ascii: "l"): found = ends("able") || ends("ible")
        case UInt8(ascii: "n"): found = ends("ant") || ends("ement") || ends("ment") || ends("ent")
        case UInt8(ascii: "o"):
            if ends("ion"), j >= 0, word[j] == UInt8(ascii: "s") || word[j] == UInt8(ascii: "t") {
                found = true
            } else {
                found = ends("ou")
            }
        case UInt8(ascii: "s"): found = ends("ism")
        case UInt8(ascii: "t"): found = ends("ate") || ends("iti")
        case UInt8(ascii: "u"): found = ends("ous")
        case UInt8(ascii: "v"): found = ends("ive")
        case UInt8(ascii: "z"): found = ends("ize")
        default: found = false
        }
        if found && measure() > 1 {
            k = j
            truncate()
        }
    }

    private mutating func step5() {
        j = k
        if word[k] == UInt8(ascii: "e") {
            let m = measure()
            if m > 1 || (m == 1 && !isCVC(k - 1)) {
                k -= 1
                truncate()
            }
        }
        if word[k] == UInt8(ascii: "l") && isDoubleConsonant(k) {
            j = k
            if measure() > 1 {
                k -= 1
                truncate()
            }
        }
    }
}

extension EnglishStemmer {
    /// The key of a word's derivational family, for ask's matching of derived forms: the stem, with the few
    /// derivations Porter leaves apart rewritten to their verb (`delivery` → deliver → `deliv`, as `delivering`;
    /// `subscription` → subscribe; `receipt` → receive). Each rewrite names a whole productive ending, never a
    /// bare letter, so look-alikes stay apart (`factory` is not `factor`, `cancer` is not `cancel`). Words the
    /// stemmer leaves alone (not plain ASCII letters) are their own key.
    public static func familyKey(_ word: String) -> String {
        let stem = stem(word)
        guard stem.utf8.count >= 5, stem.utf8.allSatisfy({ $0 >= 0x61 && $0 <= 0x7A }) else { return stem }
        for (ending, replacement) in familyRewrites where stem.hasSuffix(ending) {
            let prefix = stem.dropLast(ending.count)
            // The word must keep a syllable before the ending ("deli-very", "sub-scription"; not "e-very", "script").
            guard prefix.utf8.count >= 2, prefix.utf8.count + replacement.utf8.count >= 5 else { continue }
            return Self.stem(String(prefix) + replacement)
        }
        return stem
    }

    /// Stem endings that Porter keeps apart from their verb, and what they become: a noun in -very from a verb in
    /// -ver (`deliveri`, `discoveri`, `recoveri`), -scription from -scribe, -ceipt from -ceive, -istration from
    /// -ister (`registr` and `regist`, `administr` and `administ`).
    static let familyRewrites: [(String, String)] = [("veri", "ver"), ("script", "scribe"), ("ceipt", "ceive"), ("istr", "ist")]
}
