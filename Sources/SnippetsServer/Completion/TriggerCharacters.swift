import SnippetsCore

/// The `triggerCharacters` the server advertises: the characters the library's triggers need, so that typing `!` of
/// `!doctype` or `#` of `#include` asks for completions (most clients complete words by themselves, but only ask
/// after punctuation when the server lists it).
///
/// Letters, digits and `_` are listed only for clients that complete as you type *only* on trigger characters
/// (`includingWordCharacters`: Neovim's `vim.lsp.completion` autotrigger). Other clients must not get them:
/// lsp-mode treats text before the cursor that ends in trigger characters as already consumed, so a word made of
/// them would be completed from an empty prefix and inserted twice.
public enum TriggerCharacters {
    /// At most this many characters are advertised (the most used ones).
    public static let limit = 128

    /// Used when the library has not loaded in time: printable ASCII (without letters, digits and `_` unless
    /// `includingWordCharacters`), which covers most triggers.
    public static func fallback(includingWordCharacters: Bool) -> [String] {
        (0x21...0x7E).map { Character(UnicodeScalar(UInt8($0))) }
            .filter { includingWordCharacters || !TypedPrefix.isWordCharacter($0) }.map { String($0) }
    }

    /// What the server advertises for `library`: its triggers' characters (`of`), or the `fallback` set when it holds
    /// no snippet (a library path missing or empty at start). A client that cannot register completion again
    /// (Neovim) keeps what it was told at start for the whole session, so a library created later must still
    /// find completion popping up as the user types.
    public static func advertised(for library: SnippetLibrary, includingWordCharacters: Bool) -> [String] {
        library.snippets.isEmpty
            ? fallback(includingWordCharacters: includingWordCharacters)
            : of(library, includingWordCharacters: includingWordCharacters)
    }

    /// The distinct non-whitespace characters of every trigger in `library` (word characters only when
    /// `includingWordCharacters`), the `limit` most used ones, sorted by code point so equal libraries give equal
    /// lists.
    public static func of(_ library: SnippetLibrary, includingWordCharacters: Bool) -> [String] {
        var counts: [Character: Int] = [:]
        // An all-ASCII trigger (nearly every one) is counted byte by byte: each byte is a character, and whether it
        // counts is decided once per byte value below, by the same rules as any other character.
        var asciiCounts = [Int](repeating: 0, count: 128)
        let snippets = library.snippets
        for number in snippets.indices {
            for trigger in snippets[number].triggers {
                var trigger = trigger
                let isASCII = trigger.withUTF8 { bytes in
                    guard !ASCIIBytes.containsNonASCII(bytes) else { return false }
                    for byte in bytes { asciiCounts[Int(byte)] += 1 }
                    return true
                }
                if isASCII { continue }
                for character in trigger where Self.counts(character, includingWordCharacters: includingWordCharacters) {
                    counts[character, default: 0] += 1
                }
            }
        }
        for byte in asciiCounts.indices where asciiCounts[byte] > 0 {
            let character = Character(Unicode.Scalar(UInt8(byte)))
            if Self.counts(character, includingWordCharacters: includingWordCharacters) {
                counts[character, default: 0] += asciiCounts[byte]
            }
        }
        let kept = counts.sorted { $0.value != $1.value ? $0.value > $1.value : String($0.key) < String($1.key) }
            .prefix(limit).map { String($0.key) }
        return kept.sorted()
    }

    /// Whether `character` of a trigger may be advertised: printable, not white space, not default-ignorable, and
    /// a word character only when `includingWordCharacters`.
    private static func counts(_ character: Character, includingWordCharacters: Bool) -> Bool {
        guard !character.isWhitespace, let first = character.unicodeScalars.first, first.value >= 0x20, first.value != 0x7F,
            !first.properties.isDefaultIgnorableCodePoint
        else { return false }
        return includingWordCharacters || !TypedPrefix.isWordCharacter(character)
    }
}

extension ClientCapabilities {
    /// Whether the client completes as you type only on trigger characters, so it needs the triggers' letters too
    /// (Neovim's built-in completion with `autotrigger`).
    public var completesOnlyOnTriggerCharacters: Bool { knownClient?.completesOnlyOnTriggerCharacters ?? false }
}
