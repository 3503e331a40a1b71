import Foundation

/// BERT's uncased WordPiece tokenizer, as Hugging Face's `tokenizers` runs the model's tokenizer.json: special tokens
/// matched verbatim in the raw text, then BertNormalizer, BertPreTokenizer, WordPiece, [CLS] … [SEP], truncation.
///
/// Tokens are compared as UTF-8 bytes, never as Swift strings: Swift's `==` treats canonically equivalent strings as
/// equal (a precomposed Hangul syllable equals its decomposed jamo), the Rust library does not.
struct WordPieceTokenizer: Sendable {
    let configuration: EncoderConfiguration
    private let vocabulary: Vocabulary
    /// Special tokens' bytes and ids, longest first (leftmost-longest matching).
    private let specialTokens: [(bytes: [UInt8], id: Int32)]

    init(vocabulary: Vocabulary, specialIDs: [Int32], configuration: EncoderConfiguration) {
        self.configuration = configuration
        self.vocabulary = vocabulary
        self.specialTokens = specialIDs.map { (Array(vocabulary.token($0)), $0) }.filter { !$0.0.isEmpty }
            .sorted { $0.0.count > $1.0.count }
    }

    /// The ids the model reads for `text`: [CLS], at most `maxSequenceLength - 2` word pieces, [SEP].
    func ids(for text: String) -> [Int32] {
        let limit = configuration.maxSequenceLength - 2
        var ids: [Int32] = [configuration.clsID]
        for segment in segments(of: text) {
            switch segment {
            case .special(let id):
                ids.append(id)
            case .text(let text):
                for word in words(in: normalized(text)) {
                    wordPieces(of: word, into: &ids)
                    if ids.count > limit { break }
                }
            }
            if ids.count > limit { break }
        }
        ids.removeLast(max(0, ids.count - 1 - limit))
        ids.append(configuration.sepID)
        return ids
    }

    private enum Segment {
        case special(Int32)
        case text(String)
    }

    /// `text` split around the special tokens written in it ("[MASK]" is the mask token, as in the library;
    /// "[mask]" is text).
    private func segments(of text: String) -> [Segment] {
        let bytes = Array(text.utf8)
        var segments: [Segment] = []
        var textStart = 0
        var index = 0
        while index < bytes.count {
            let match = specialTokens.first { token in
                index + token.bytes.count <= bytes.count && bytes[index..<index + token.bytes.count].elementsEqual(token.bytes)
            }
            guard let match else {
                index += 1
                continue
            }
            if textStart < index {
                segments.append(.text(String(decoding: bytes[textStart..<index], as: UTF8.self)))
            }
            segments.append(.special(match.id))
            index += match.bytes.count
            textStart = index
        }
        if textStart < bytes.count {
            segments.append(.text(String(decoding: bytes[textStart...], as: UTF8.self)))
        }
        return segments
    }

    /// BertNormalizer: clean text (drop NUL, U+FFFD and control characters; whitespace becomes a space), spaces
    /// around CJK ideographs, strip accents (NFD, then drop nonspacing marks), lowercase (per scalar, no context).
    func normalized(_ text: String) -> [Unicode.Scalar] {
        var scalars: [Unicode.Scalar] = []
        scalars.reserveCapacity(text.unicodeScalars.count)
        for scalar in text.unicodeScalars {
            if configuration.cleansText {
                if scalar.value == 0 || scalar.value == 0xFFFD || Self.isControl(scalar) { continue }
                if Self.isWhitespace(scalar) {
                    scalars.append(" ")
                    continue
                }
            }
            if configuration.separatesCJKIdeographs && Self.isCJKIdeograph(scalar) {
                scalars += [" ", scalar, " "]
            } else {
                scalars.append(scalar)
            }
        }
        if configuration.stripsAccents {
            var string = String.UnicodeScalarView()
            string.append(contentsOf: scalars)
            scalars = String(string).decomposedStringWithCanonicalMapping.unicodeScalars.filter {
                $0.properties.generalCategory != .nonspacingMark
            }
        }
        if configuration.lowercases {
            var lowered: [Unicode.Scalar] = []
            lowered.reserveCapacity(scalars.count)
            for scalar in scalars {
                if scalar.isASCII {
                    lowered.append(Unicode.Scalar(UInt8(ascii: scalar).asciiLowercased))
                } else {
                    lowered.append(contentsOf: scalar.properties.lowercaseMapping.unicodeScalars)
                }
            }
            scalars = lowered
        }
        return scalars
    }

    /// BertPreTokenizer: words split on whitespace (dropped) and around every punctuation character (kept alone).
    func words(in scalars: [Unicode.Scalar]) -> [ArraySlice<Unicode.Scalar>] {
        var words: [ArraySlice<Unicode.Scalar>] = []
        var start = 0
        for (index, scalar) in scalars.enumerated() {
            let isSpace = Self.isWhitespace(scalar)
            guard isSpace || Self.isPunctuation(scalar) else { continue }
            if start < index { words.append(scalars[start..<index]) }
            if !isSpace { words.append(scalars[index...index]) }
            start = index + 1
        }
        if start < scalars.count { words.append(scalars[start...]) }
        return words
    }

    /// WordPiece: longest vocabulary match first, continuations prefixed with "##"; a word with any unmatched rest,
    /// or longer than `maxInputCharactersPerWord` scalars, is one [UNK].
    func wordPieces(of word: ArraySlice<Unicode.Scalar>, into ids: inout [Int32]) {
        guard word.count <= configuration.maxInputCharactersPerWord else {
            ids.append(configuration.unknownID)
            return
        }
        // UTF-8 of the word, and where each scalar starts in it.
        var bytes: [UInt8] = []
        var boundaries: [Int] = []
        for scalar in word {
            boundaries.append(bytes.count)
            bytes.append(contentsOf: UTF8.encode(scalar)!)
        }
        boundaries.append(bytes.count)
        var pieces: [Int32] = []
        var start = 0
        while start < word.count {
            var end = word.count
            var found: Int32?
            while start < end {
                if let id = vocabulary.id(of: bytes[boundaries[start]..<boundaries[end]], continuing: start > 0) {
                    found = id
                    break
                }
                end -= 1
            }
            guard let found else {
                ids.append(configuration.unknownID)
                return
            }
            pieces.append(found)
            start = end
        }
        ids += pieces
    }

    /// `tokenizers`' is_whitespace: tab, line feed, carriage return and White_Space.
    static func isWhitespace(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "\t" || scalar == "\n" || scalar == "\r" || scalar.properties.isWhitespace
    }

    /// `tokenizers`' is_control: categories Cc, Cf and Co, but tab, line feed and carriage return (whitespace).
    /// Unassigned code points are kept (checked against the library: U+0378 becomes [UNK]).
    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        if scalar == "\t" || scalar == "\n" || scalar == "\r" { return false }
        switch scalar.properties.generalCategory {
        case .control, .format, .privateUse: return true
        default: return false
        }
    }

    /// ASCII punctuation (symbols such as $ + < = > ^ ` | ~ included) and Unicode categories P*.
    static func isPunctuation(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 33...47, 58...64, 91...96, 123...126: return true
        default: break
        }
        switch scalar.properties.generalCategory {
        case .connectorPunctuation, .dashPunctuation, .openPunctuation, .closePunctuation, .initialPunctuation,
            .finalPunctuation, .otherPunctuation:
            return true
        default:
            return false
        }
    }

    /// The CJK Unified Ideographs blocks BERT puts spaces around (not kana or Hangul).
    static func isCJKIdeograph(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x4E00...0x9FFF, 0x3400...0x4DBF, 0x20000...0x2A6DF, 0x2A700...0x2B73F, 0x2B740...0x2B81F,
            0x2B920...0x2CEAF, 0xF900...0xFAFF, 0x2F800...0x2FA1F:
            return true
        default:
            return false
        }
    }
}

/// Token bytes → id in one byte array and an open-addressing table (about 0.6 MB for BERT's 30,522 tokens, where a
/// dictionary of byte arrays took several).
struct Vocabulary: Sendable {
    private let bytes: [UInt8]
    /// Where token i's bytes start; `starts[i + 1]` is where they end.
    private let starts: [Int32]
    /// Token ids by hash, -1 for an empty slot; a power of two at least twice the token count.
    private let slots: [Int32]

    /// The tokens of `lines` (each ended by a line feed), or nil when the last one is not ended.
    init?(lines: UnsafeRawBufferPointer) {
        var starts: [Int32] = [0]
        var bytes: [UInt8] = []
        bytes.reserveCapacity(lines.count)
        for byte in lines {
            if byte == UInt8(ascii: "\n") {
                starts.append(Int32(bytes.count))
            } else {
                bytes.append(byte)
            }
        }
        guard Int(starts.last!) == bytes.count else { return nil }
        self.bytes = bytes
        self.starts = starts
        let count = starts.count - 1
        var capacity = 1
        while capacity < 2 * max(count, 1) { capacity <<= 1 }
        var slots = [Int32](repeating: -1, count: capacity)
        for id in 0..<count {
            let token = bytes[Int(starts[id])..<Int(starts[id + 1])]
            var slot = Self.hash(token, continuing: false) & (capacity - 1)
            var isDuplicate = false
            while slots[slot] >= 0 {
                let other = Int(slots[slot])
                if bytes[Int(starts[other])..<Int(starts[other + 1])].elementsEqual(token) {
                    isDuplicate = true
                    break
                }
                slot = (slot + 1) & (capacity - 1)
            }
            // The first of two equal tokens wins, as in tokenizer.json's map.
            if !isDuplicate { slots[slot] = Int32(id) }
        }
        self.slots = slots
    }

    /// How many tokens there are.
    var count: Int { starts.count - 1 }

    /// The bytes of token `id`.
    func token(_ id: Int32) -> ArraySlice<UInt8> {
        bytes[Int(starts[Int(id)])..<Int(starts[Int(id) + 1])]
    }

    /// The id of `piece`, or of "##" + `piece` when `continuing`.
    func id(of piece: ArraySlice<UInt8>, continuing: Bool) -> Int32? {
        let mask = slots.count - 1
        var slot = Self.hash(piece, continuing: continuing) & mask
        let prefixLength = continuing ? 2 : 0
        while slots[slot] >= 0 {
            let id = Int(slots[slot])
            let start = Int(starts[id])
            let end = Int(starts[id + 1])
            if end - start == piece.count + prefixLength
                && (!continuing || (bytes[start] == UInt8(ascii: "#") && bytes[start + 1] == UInt8(ascii: "#")))
                && bytes[(start + prefixLength)..<end].elementsEqual(piece)
            {
                return Int32(id)
            }
            slot = (slot + 1) & mask
        }
        return nil
    }

    /// FNV-1a over the token's bytes ("##" first when continuing).
    private static func hash(_ piece: ArraySlice<UInt8>, continuing: Bool) -> Int {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        if continuing {
            for byte in "##".utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3 }
        }
        for byte in piece { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3 }
        return Int(truncatingIfNeeded: hash >> 1)
    }
}

private extension UInt8 {
    var asciiLowercased: UInt8 { (65...90).contains(self) ? self + 32 : self }
}
