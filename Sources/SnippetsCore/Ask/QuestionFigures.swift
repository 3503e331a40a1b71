/// A figure a question names, with the unit written against it: `20%`, `£5`, `Year 8`'s `8`. A premise check reads
/// it as a whole number with its unit, so that "loses 20%" is not found in "15:20" and "£5" is not found in "5 days".
struct QuestionFigure: Hashable, Sendable {
    /// The number as written, separators included (`2,650`, `1.5`, `10:00`).
    var number: String
    /// The unit written against it: a currency sign before it, or `%` after it; nil for a bare number.
    var unit: Character?

    /// The figure as the question writes it, for a reason that names what was not found.
    var written: String {
        guard let unit else { return number }
        return unit == "%" ? number + "%" : String(unit) + number
    }

    /// Currency signs read as a figure's unit when written just before it (`Lexicon.currencySigns`).
    static let currencySigns: Set<Character> = Set(Lexicon.currencySigns.texts.compactMap(\.first))

    /// How far after a number its unit written out may reach: the longest of `Lexicon.percentWords`.
    static let percentWordsLength = Lexicon.percentWords.texts.map(\.count).max() ?? 0

    /// The figures of `text`, in order, each once.
    static func figures(in text: String) -> [QuestionFigure] {
        var result: [QuestionFigure] = []
        for occurrence in occurrences(in: Array(text)) where !result.contains(occurrence) { result.append(occurrence) }
        return result
    }

    /// Whether `text` holds this figure: the same whole number (thousands separators aside), not part of a longer
    /// one (`20` is not in `15:20` or `2024`), and with the same unit when the question wrote one (`%` also written
    /// out: `Lexicon.percentWords`).
    func isHeld(in text: String) -> Bool {
        let wanted = Self.normalised(number)
        return Self.occurrences(in: Array(text)).contains { found in
            Self.normalised(found.number) == wanted && (unit == nil || found.unit == unit)
        }
    }

    /// `number` without the thousands separators a writer may or may not use (`2,650` and `2650`).
    static func normalised(_ number: String) -> String {
        let characters = Array(number)
        return String(characters.indices.compactMap { index -> Character? in
            let character = characters[index]
            let isSeparator = character == "," && index + 3 < characters.count + 0
                && characters[(index + 1)...].prefix(3).allSatisfy(\.isASCIIDigit)
            return isSeparator ? nil : character
        })
    }

    /// Every number of `characters` as `AskText.numbers` reads them (digit runs joined by single `.`, `,`, `:` or
    /// `/`), with its unit; digits glued to a letter are left out.
    private static func occurrences(in characters: [Character]) -> [QuestionFigure] {
        var result: [QuestionFigure] = []
        for range in AskText.numberRanges(in: characters) {
            let (start, end) = (range.lowerBound, range.upperBound)
            // Digits glued to letters are part of a code ("LS9 8QT", "fx-83GTX"), not a figure.
            let gluedBefore = start > 0 && characters[start - 1].isLetter
            let gluedAfter = end < characters.count && characters[end].isLetter
            if gluedBefore || gluedAfter { continue }
            var unit: Character?
            if start > 0, currencySigns.contains(characters[start - 1]) { unit = characters[start - 1] }
            var after = end
            while after < characters.count, characters[after] == " " { after += 1 }
            if after < characters.count, characters[after] == "%" && after - end <= 1 {
                unit = "%"
            } else if after - end <= 1 {
                let rest = String(characters[after..<min(characters.count, after + percentWordsLength)]).lowercased()
                if Lexicon.percentWords.texts.contains(where: rest.hasPrefix) { unit = "%" }
            }
            result.append(QuestionFigure(number: String(characters[start..<end]), unit: unit))
        }
        return result
    }
}
