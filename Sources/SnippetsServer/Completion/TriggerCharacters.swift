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

    /// The distinct non-whitespace characters of every trigger in `library` (word characters only when
    /// `includingWordCharacters`), the `limit` most used ones, sorted by code point so equal libraries give equal
    /// lists.
    public static func of(_ library: SnippetLibrary, includingWordCharacters: Bool) -> [String] {
        var counts: [Character: Int] = [:]
        for snippet in library.snippets {
            for trigger in snippet.triggers {
                for character in trigger where !character.isWhitespace {
                    guard let first = character.unicodeScalars.first, first.value >= 0x20, first.value != 0x7F,
                        !first.properties.isDefaultIgnorableCodePoint
                    else { continue }
                    if !includingWordCharacters && TypedPrefix.isWordCharacter(character) { continue }
                    counts[character, default: 0] += 1
                }
            }
        }
        let kept = counts.sorted { $0.value != $1.value ? $0.value > $1.value : String($0.key) < String($1.key) }
            .prefix(limit).map { String($0.key) }
        return kept.sorted()
    }
}

extension ClientCapabilities {
    /// Whether the client completes as you type only on trigger characters, so it needs the triggers' letters too
    /// (Neovim's built-in completion with `autotrigger`).
    public var completesOnlyOnTriggerCharacters: Bool { clientName == "Neovim" }
}
