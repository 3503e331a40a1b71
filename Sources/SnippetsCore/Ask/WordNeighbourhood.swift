/// The library's vocabulary as ask needs it to forgive a question's wording: words within a small edit distance
/// (a typo: `recieve` → receive) and words of one derivational family (`delivery` → deliver, delivering). Built
/// once per library snapshot from the index's tokens (`AskLibraryFacts.words(index:)`), so a question looks up
/// each of its words in time that depends on the word, never on the library's size.
///
/// Used by ask only: completion matches what is typed, never a correction.
public struct WordNeighbourhood: Sendable {
    /// The most edits a correction may make to a word of `length` letters: none below 4 letters (too many
    /// neighbours), one up to 7, two from 8.
    public static func maximumEdits(forLength length: Int) -> Int {
        length < 4 ? 0 : length < 8 ? 1 : 2
    }

    /// Eligible words: plain lowercase ASCII letters, 3 to 32 of them.
    private let words: [String]
    /// How many snippets hold each word.
    private let frequencies: [Int32]
    /// Hashes of each word and of each of its one-letter deletions, sorted, with the word each came from.
    private let deletionKeys: [UInt64]
    private let deletionWords: [Int32]
    /// Hashes of each word's family key (`EnglishStemmer.familyKey`), sorted, with the word.
    private let familyKeys: [UInt64]
    private let familyWords: [Int32]

    /// The neighbourhood of the index's vocabulary.
    public init(index: TokenIndex) {
        var words: [String] = []
        var frequencies: [Int32] = []
        index.forEachToken { token, frequency in
            guard Self.isEligible(token) else { return }
            words.append(token)
            frequencies.append(Int32(clamping: frequency))
        }
        var deletions: [(UInt64, Int32)] = []
        deletions.reserveCapacity(words.count * 8)
        var families: [(UInt64, Int32)] = []
        families.reserveCapacity(words.count)
        for (number, word) in words.enumerated() {
            let bytes = Array(word.utf8)
            let id = Int32(number)
            if bytes.count >= 3 {
                deletions.append((Self.hash(bytes[...]), id))
                Self.forEachDeletion(of: bytes) { deletions.append((Self.hash($0), id)) }
            }
            families.append((Self.hash(Array(EnglishStemmer.familyKey(word).utf8)[...]), id))
        }
        deletions.sort { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }
        families.sort { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }
        self.words = words
        self.frequencies = frequencies
        deletionKeys = deletions.map(\.0)
        deletionWords = deletions.map(\.1)
        familyKeys = families.map(\.0)
        familyWords = families.map(\.1)
    }

    /// How many words it holds.
    public var count: Int { words.count }

    static func isEligible(_ token: String) -> Bool {
        let count = token.utf8.count
        return count >= 3 && count <= 32 && token.utf8.allSatisfy { $0 >= 0x61 && $0 <= 0x7A }
    }

    /// Library words of the same derivational family as `word` whose stem differs from `word`'s (those the
    /// index already matches by stem), most frequent first.
    public func family(of word: String) -> [String] {
        guard Self.isEligible(word) else { return [] }
        let stem = EnglishStemmer.stem(word)
        let key = EnglishStemmer.familyKey(word)
        var seenStems: Set<String> = [stem]
        var result: [(word: String, frequency: Int32)] = []
        for id in Self.lookup(Self.hash(Array(key.utf8)[...]), keys: familyKeys, values: familyWords) {
            let candidate = words[Int(id)]
            guard EnglishStemmer.familyKey(candidate) == key, seenStems.insert(EnglishStemmer.stem(candidate)).inserted else {
                continue
            }
            result.append((candidate, frequencies[Int(id)]))
        }
        return result.sorted { ($0.frequency, $1.word) > ($1.frequency, $0.word) }.map(\.word)
    }

    /// The library word `word` most likely mistypes: within `maximumEdits(forLength:)` edits (a transposition
    /// counts as one; for a word of up to `shortWordLength` letters only the edits of `isSafeShortTypo`), starting
    /// with the same letter; the fewest edits, then the word more snippets hold, then
    /// the alphabetically first. Nil when none is close, or `word` is not plain lowercase letters.
    public func correction(of word: String) -> String? {
        guard Self.isEligible(word) else { return nil }
        let bytes = Array(word.utf8)
        let allowed = Self.maximumEdits(forLength: bytes.count)
        guard allowed > 0 else { return nil }
        // Query variants: the word and its deletions (one, or two for long words). A word within one edit shares
        // a variant of at most one deletion with the query; for two, the query's double deletions also meet the
        // word itself and its single deletions (two extra letters, or one extra and one changed). Every hit is
        // then measured exactly.
        var variants: [UInt64] = [Self.hash(bytes[...])]
        Self.forEachDeletion(of: bytes) { variants.append(Self.hash($0)) }
        if allowed >= 2 {
            Self.forEachDeletion(of: bytes) { once in
                Self.forEachDeletion(of: Array(once)) { variants.append(Self.hash($0)) }
            }
        }
        var best: (word: String, edits: Int, frequency: Int32)?
        var seen: Set<Int32> = []
        for variant in variants {
            for id in Self.lookup(variant, keys: deletionKeys, values: deletionWords) where seen.insert(id).inserted {
                let candidate = words[Int(id)]
                let candidateBytes = Array(candidate.utf8)
                guard candidateBytes.first == bytes.first, candidate != word else { continue }
                let edits = Self.editDistance(bytes, candidateBytes, limit: allowed)
                guard edits <= allowed, bytes.count > Self.shortWordLength || Self.isSafeShortTypo(bytes, candidateBytes) else { continue }
                let frequency = frequencies[Int(id)]
                if let current = best {
                    let better = edits != current.edits ? edits < current.edits
                        : frequency != current.frequency ? frequency > current.frequency : candidate < current.word
                    if !better { continue }
                }
                best = (candidate, edits, frequency)
            }
        }
        return best?.word
    }

    /// Up to this many letters, a word is corrected only by the edits that rarely turn one real word into another.
    static let shortWordLength = 6

    /// Whether `typed` becomes `word` by swapping two adjacent letters, by adding a left-out letter ("footr" →
    /// footer), or by dropping a doubled one ("jobss" → jobs): the usual slips in a short word. Not by changing a
    /// letter or dropping another: a short word so changed is most often another real word ("hang" is not "hand",
    /// "long" not "log", "cancer" not "cancel").
    static func isSafeShortTypo(_ typed: [UInt8], _ word: [UInt8]) -> Bool {
        if typed.count == word.count {
            let differing = typed.indices.filter { typed[$0] != word[$0] }
            return differing.count == 2 && differing[1] == differing[0] + 1
                && typed[differing[0]] == word[differing[1]] && typed[differing[1]] == word[differing[0]]
        }
        if typed.count + 1 == word.count { return true }
        guard typed.count == word.count + 1 else { return false }
        // The extra letter of `typed` doubles its neighbour.
        for skip in typed.indices where Array(typed[..<skip] + typed[(skip + 1)...]) == word {
            if (skip > 0 && typed[skip - 1] == typed[skip]) || (skip + 1 < typed.count && typed[skip + 1] == typed[skip]) { return true }
        }
        return false
    }

    /// The optimal-string-alignment distance between `a` and `b` (insertions, deletions, substitutions and
    /// adjacent transpositions), or `limit + 1` once it is certain to exceed `limit`.
    static func editDistance(_ a: [UInt8], _ b: [UInt8], limit: Int) -> Int {
        if abs(a.count - b.count) > limit { return limit + 1 }
        let width = b.count + 1
        var previous2 = [Int](repeating: 0, count: width)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: width)
        for i in 1...max(a.count, 1) where !a.isEmpty {
            current[0] = i
            var rowMinimum = current[0]
            for j in 1..<width {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var value = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { value = min(value, previous2[j - 2] + 1) }
                current[j] = value
                rowMinimum = min(rowMinimum, value)
            }
            if rowMinimum > limit { return limit + 1 }
            (previous2, previous, current) = (previous, current, previous2)
        }
        return a.isEmpty ? b.count : previous[b.count]
    }

    private static func forEachDeletion(of bytes: [UInt8], _ body: (ArraySlice<UInt8>) -> Void) {
        guard bytes.count > 1 else { return }
        var buffer = [UInt8](repeating: 0, count: bytes.count - 1)
        for skip in bytes.indices {
            // Deleting either letter of a double gives the same variant: report it once.
            if skip > 0 && bytes[skip] == bytes[skip - 1] { continue }
            var position = 0
            for (index, byte) in bytes.enumerated() where index != skip {
                buffer[position] = byte
                position += 1
            }
            body(buffer[...])
        }
    }

    /// FNV-1a 64 of `bytes`.
    private static func hash(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return hash
    }

    /// The values stored under `key` in sorted `keys`.
    private static func lookup(_ key: UInt64, keys: [UInt64], values: [Int32]) -> ArraySlice<Int32> {
        var low = 0
        var high = keys.count
        while low < high {
            let middle = (low + high) / 2
            if keys[middle] < key { low = middle + 1 } else { high = middle }
        }
        var end = low
        while end < keys.count && keys[end] == key { end += 1 }
        return values[low..<end]
    }
}
