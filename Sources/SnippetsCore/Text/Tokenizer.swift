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
        forEachTokenUTF8(in: text) { bytes, reachesEnd in body(String(decoding: bytes, as: UTF8.self), reachesEnd) }
    }

    /// `forEachToken(in:_:)` giving each token as lowercase UTF-8 bytes, valid only during the call: lets the
    /// index intern tokens without making a `String` per occurrence. ASCII text takes a byte-only path.
    static func forEachTokenUTF8(
        in text: String, _ body: (_ token: UnsafeBufferPointer<UInt8>, _ reachesEnd: Bool) -> Void
    ) {
        var text = text
        let handledAsASCII = text.withUTF8 { bytes -> Bool in
            guard !ASCIIBytes.containsNonASCII(bytes) else { return false }
            var scratch = [UInt8](repeating: 0, count: bytes.count)
            scratch.withUnsafeMutableBufferPointer { scratch in
                let classes = asciiClasses
                scan(count: bytes.count, classAt: { classes[Int(bytes[$0])] }) { range, reachesEnd in
                    for index in range {
                        let byte = bytes[index]
                        scratch[index] = byte &+ (byte >= 0x41 && byte <= 0x5A ? 0x20 : 0)
                    }
                    body(UnsafeBufferPointer(rebasing: scratch[range]), reachesEnd)
                }
            }
            return true
        }
        guard !handledAsASCII else { return }
        let scalars = Array(text.unicodeScalars)
        let classes = scalars.map(CharacterClass.init)
        var scratch: [UInt8] = []
        scan(count: scalars.count, classAt: { classes[$0] }) { range, reachesEnd in
            if scalars[range].allSatisfy(\.isASCII) {
                // An ASCII word in a text that has other characters elsewhere: lowercased byte by byte, as above.
                scratch.removeAll(keepingCapacity: true)
                for scalar in scalars[range] {
                    let byte = UInt8(truncatingIfNeeded: scalar.value)
                    scratch.append(byte &+ (byte >= 0x41 && byte <= 0x5A ? 0x20 : 0))
                }
                scratch.withUnsafeBufferPointer { body($0, reachesEnd) }
                return
            }
            var view = String.UnicodeScalarView()
            view.append(contentsOf: scalars[range])
            var token = String(view).lowercased()
            token.withUTF8 { body($0, reachesEnd) }
        }
    }

    /// The word-splitting rules over characters `0..<count` classified by `classAt`; `emit` gets each token's
    /// range and whether it reaches the end.
    @inline(__always)
    private static func scan(
        count: Int, classAt: (Int) -> CharacterClass, emit: (_ range: Range<Int>, _ reachesEnd: Bool) -> Void
    ) {
        var index = 0
        while index < count {
            let characterClass = classAt(index)
            if characterClass == .ideograph {
                emit(index..<index + 1, index + 1 == count)
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
                let endClass = classAt(end)
                if endClass.isWordCharacter {
                    end += 1
                } else if endClass == .connector {
                    var next = end
                    while next < count, classAt(next) == .connector { next += 1 }
                    guard next < count, classAt(next).isWordCharacter else { break }
                    end = next
                } else {
                    break
                }
            }
            var partCount = 0
            var partStart = index
            var previous = CharacterClass.other
            var current = classAt(index)
            for position in index..<end {
                let next = position + 1 < end ? classAt(position + 1) : .other
                if current == .connector {
                    if partStart < position {
                        emit(partStart..<position, false)
                        partCount += 1
                    }
                    partStart = position + 1
                } else if position > partStart, isBoundary(previous, current, next) {
                    emit(partStart..<position, false)
                    partCount += 1
                    partStart = position
                }
                previous = current
                current = next
            }
            if partStart < end {
                partCount += 1
                emit(partStart..<end, end == count)
            }
            if partCount > 1 {
                emit(index..<end, end == count)
            }
            index = end
        }
    }

    /// Whether a word splits between `previous` and `current` (`next` is the class after `current`).
    @inline(__always)
    private static func isBoundary(
        _ previous: CharacterClass, _ current: CharacterClass, _ next: CharacterClass
    ) -> Bool {
        switch (previous, current) {
        case (.lower, .upper): true
        case (.upper, .upper): next == .lower
        case (.digit, .lower), (.digit, .upper), (.lower, .digit), (.upper, .digit): true
        default: false
        }
    }

    /// The class of each ASCII byte.
    private static let asciiClasses: [CharacterClass] = (0..<128).map { CharacterClass(Unicode.Scalar(UInt8($0))) }
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
