import SnippetsCore

/// The `triggerCharacters` the server advertises: the characters the library's triggers are made of, so that typing
/// any part of a trigger (`!` of `!doctype`, `#` of `#include`, the letters of `fn`) asks for completions in clients
/// that only complete on trigger characters (Neovim's `autotrigger`, Helix, Emacs).
public enum TriggerCharacters {
    /// At most this many characters are advertised (the most used ones).
    public static let limit = 128

    /// Used when the library has not loaded in time: printable ASCII, which covers most triggers.
    public static let fallback: [String] = (0x21...0x7E).map { String(UnicodeScalar(UInt8($0))) }

    /// The distinct non-whitespace characters of every trigger in `library`, most used first (ties by code point),
    /// at most `limit` of them, then sorted by code point so equal libraries give equal lists.
    public static func of(_ library: SnippetLibrary) -> [String] {
        var counts: [Character: Int] = [:]
        for snippet in library.snippets {
            for trigger in snippet.triggers {
                for character in trigger where !character.isWhitespace && !character.unicodeScalars.contains(where: \.properties.isDefaultIgnorableCodePoint) {
                    if character.unicodeScalars.first.map({ $0.value < 0x20 || $0.value == 0x7F }) == true { continue }
                    counts[character, default: 0] += 1
                }
            }
        }
        let kept = counts.sorted { $0.value != $1.value ? $0.value > $1.value : String($0.key) < String($1.key) }
            .prefix(limit).map { String($0.key) }
        return kept.sorted()
    }
}
