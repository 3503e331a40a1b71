/// A body that takes the case its trigger is typed in: espanso's `propagate_case`, with its `uppercase_style`.
///
/// espanso matches such a trigger whatever its case and then cases the whole output by how the trigger was typed
/// (espanso's `calculate_casing_style`): `:sig` as written, `:Sig` capitalized, `:SIG` upper-cased; a trigger typed
/// with one upper-case letter only takes the style (upper-case unless it says otherwise). Here the typed text is what
/// precedes the cursor, and the casing applies to the body's text, its placeholders' defaults and its choices: what
/// the user types into a field, and a variable the client fills, keep their own case.
public enum TriggerCasing: String, Hashable, Sendable, CaseIterable {
    /// `uppercase_style: uppercase` (espanso's default): `:S` gives `BEST REGARDS`.
    case uppercase
    /// `uppercase_style: capitalize`: `:S` gives `Best regards`.
    case capitalize
    /// `uppercase_style: capitalize_words`: `:S` and `:Si` give `Best Regards`.
    case capitalizeWords = "capitalize_words"

    /// How a body is cased for `typed`, the trigger as typed so far; nil where it stays as written.
    public func casing(forTyped typed: String) -> TextCasing? {
        let letters = typed.filter(\.isLetter).prefix(2)
        guard let first = letters.first, first.isUppercase else { return nil }
        if letters.count == 2 {
            if letters.last!.isUppercase { return .uppercase }
            return self == .capitalizeWords ? .capitalizeWords : .capitalize
        }
        switch self {
        case .uppercase: return .uppercase
        case .capitalize: return .capitalize
        case .capitalizeWords: return .capitalizeWords
        }
    }
}

/// One of espanso's casing styles, applied to text.
public enum TextCasing: Hashable, Sendable {
    /// Every letter upper-case.
    case uppercase
    /// The first character upper-case.
    case capitalize
    /// The first character of every word (a run of letters, digits and `_`) upper-case.
    case capitalizeWords

    /// A character of a word as espanso's `\w` reads one: a letter, a digit or `_`.
    static func isWordCharacter(_ character: Character) -> Bool {
        character.isLetter || character.isNumber || character == "_"
    }

    /// Where in the output a piece of text falls: whether it begins the output, and whether it continues a word.
    struct Position {
        var atStart = true
        var inWord = false
    }

    /// `text` in this style, at `position` in the output, which it moves past the text.
    func apply(to text: String, at position: inout Position) -> String {
        defer {
            if let last = text.last {
                position.atStart = false
                position.inWord = Self.isWordCharacter(last)
            }
        }
        switch self {
        case .uppercase:
            return text.uppercased()
        case .capitalize:
            guard position.atStart, let first = text.first else { return text }
            return first.uppercased() + text.dropFirst()
        case .capitalizeWords:
            var result = ""
            var inWord = position.inWord
            for character in text {
                let isWordCharacter = Self.isWordCharacter(character)
                result += isWordCharacter && !inWord ? character.uppercased() : String(character)
                inWord = isWordCharacter
            }
            return result
        }
    }
}

extension SnippetBody {
    /// The body with its text, placeholder defaults and choices in `casing`. `capitalize` changes the first character
    /// only where the body begins with text (a tabstop or a variable first is left as it is).
    public func cased(_ casing: TextCasing) -> SnippetBody {
        var position = TextCasing.Position()
        func visit(_ elements: [SnippetElement]) -> [SnippetElement] {
            elements.map { element in
                switch element {
                case .text(let text):
                    return .text(casing.apply(to: text, at: &position))
                case .placeholder(let number, let children):
                    return .placeholder(number, visit(children))
                case .choice(let number, let options):
                    let before = position
                    let cased = options.map { option in
                        var at = before
                        return casing.apply(to: option, at: &at)
                    }
                    if let first = options.first { _ = casing.apply(to: first, at: &position) }
                    return .choice(number, cased)
                case .tabstop, .variable, .transform:
                    position.atStart = false
                    return element
                }
            }
        }
        return SnippetBody(elements: visit(elements))
    }
}
