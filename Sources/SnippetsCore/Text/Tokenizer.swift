/// Splits prose and code into lowercase search tokens, the same way for snippets and for queries.
///
/// Rules, in the order they apply:
/// - A *word* is a run of letters and digits, possibly joined by `_` or `-` (runs of them) between letters or
///   digits: `guard_let`, `well-known`, `parseHTTPResponse`, `utf8`. Everything else (spaces, punctuation,
///   symbols, emoji) separates words and is dropped, so snippet syntax such as `${1:name}` yields `1`, `name`.
/// - A word splits into *parts* at `_` and `-`, at a lower-to-upper change (`parseHttp` → parse, http), before the
///   last capital of an acronym followed by a lowercase letter (`HTTPResponse` → http, response), and where
///   letters meet digits (`base64` → base, 64).
/// - Each part is a token. When a word has more than one part, the whole word, lowercased and with its `_`/`-`
///   kept, is a token too (`guard_let` → guard, let, guard_let; `parseHTTPResponse` → parse, http, response,
///   parsehttpresponse), so an identifier typed in full is found.
/// - Han ideographs (CJK) are one token each: Chinese and Japanese put no spaces between words, and a single
///   ideograph is the unit a person can type and expect to find. Kana, Hangul, Cyrillic, Greek and the other
///   alphabets form words like Latin letters do.
/// - Tokens are lowercased with Unicode rules; diacritics are kept (`Straße` → straße, `café` → café).
public enum Tokenizer {
    /// The tokens of `text`, in order of appearance, duplicates kept.
    public static func tokens(in text: String) -> [String] {
        var result: [String] = []
        forEachToken(in: text) { token, _ in result.append(token) }
        return result
    }

    /// Calls `body` with each token of `text` and whether the token runs to the very end of `text` (the word
    /// still being typed, which a search treats as a prefix).
    public static func forEachToken(in text: String, _ body: (_ token: String, _ reachesEnd: Bool) -> Void) {
        let scalars = Array(text.unicodeScalars)
        let count = scalars.count
        guard count > 0 else { return }
        var classes = [CharacterClass](repeating: .other, count: count)
        for index in 0..<count { classes[index] = CharacterClass(scalars[index]) }

        var index = 0
        while index < count {
            let characterClass = classes[index]
            if characterClass == .ideograph {
                body(lowercased(scalars, index..<index + 1), index + 1 == count)
                index += 1
                continue
            }
            guard characterClass.isWordCharacter else {
                index += 1
                continue
            }
            // Find the end of the word: letters and digits, with connector runs only between them.
            var end = index + 1
            while end < count {
                if classes[end].isWordCharacter {
                    end += 1
                } else if classes[end] == .connector {
                    var next = end
                    while next < count, classes[next] == .connector { next += 1 }
                    guard next < count, classes[next].isWordCharacter else { break }
                    end = next
                } else {
                    break
                }
            }
            var partCount = 0
            var partStart = index
            for position in index..<end {
                if classes[position] == .connector {
                    if partStart < position {
                        body(lowercased(scalars, partStart..<position), false)
                        partCount += 1
                    }
                    partStart = position + 1
                } else if position > partStart,
                    isBoundary(classes[position - 1], classes[position], position + 1 < end ? classes[position + 1] : .other)
                {
                    body(lowercased(scalars, partStart..<position), false)
                    partCount += 1
                    partStart = position
                }
            }
            if partStart < end {
                partCount += 1
                body(lowercased(scalars, partStart..<end), end == count)
            }
            if partCount > 1 {
                body(lowercased(scalars, index..<end), end == count)
            }
            index = end
        }
    }

    /// Whether a word splits between `previous` and `current` (`next` is the class after `current`).
    private static func isBoundary(_ previous: CharacterClass, _ current: CharacterClass, _ next: CharacterClass) -> Bool {
        switch (previous, current) {
        case (.lower, .upper): true
        case (.upper, .upper): next == .lower
        case (.digit, .lower), (.digit, .upper), (.lower, .digit), (.upper, .digit): true
        default: false
        }
    }

    private static func lowercased(_ scalars: [Unicode.Scalar], _ range: Range<Int>) -> String {
        var isASCII = true
        for index in range where scalars[index].value >= 0x80 {
            isASCII = false
            break
        }
        if isASCII {
            return String(unsafeUninitializedCapacity: range.count) { buffer in
                var offset = 0
                for index in range {
                    var byte = UInt8(truncatingIfNeeded: scalars[index].value)
                    if byte >= 0x41 && byte <= 0x5A { byte += 0x20 }
                    buffer[offset] = byte
                    offset += 1
                }
                return offset
            }
        }
        var view = String.UnicodeScalarView()
        view.append(contentsOf: scalars[range])
        return String(view).lowercased()
    }
}

/// What a scalar is to the tokenizer.
enum CharacterClass: UInt8 {
    case other
    /// Lowercase letters, caseless letters (most scripts) and combining marks (they stay with their letter).
    case lower
    case upper
    case digit
    /// A Han ideograph: a token on its own.
    case ideograph
    /// `_` and `-`: join word parts.
    case connector

    var isWordCharacter: Bool { self == .lower || self == .upper || self == .digit }

    init(_ scalar: Unicode.Scalar) {
        let value = scalar.value
        if value < 0x80 {
            switch value {
            case 0x61...0x7A: self = .lower
            case 0x41...0x5A: self = .upper
            case 0x30...0x39: self = .digit
            case 0x5F, 0x2D: self = .connector
            default: self = .other
            }
            return
        }
        let properties = scalar.properties
        if properties.isIdeographic {
            self = .ideograph
            return
        }
        switch properties.generalCategory {
        case .uppercaseLetter, .titlecaseLetter: self = .upper
        case .lowercaseLetter, .modifierLetter, .otherLetter, .nonspacingMark, .spacingMark, .enclosingMark:
            self = .lower
        case .decimalNumber: self = .digit
        default: self = .other
        }
    }
}
