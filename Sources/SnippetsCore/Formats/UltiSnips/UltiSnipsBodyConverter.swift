/// Converts an UltiSnips body to LSP snippet syntax, token by token as UltiSnips' lexer reads it (its order:
/// escape, `${VISUAL}`, transformation, choice, tabstop, mirror, `!p`, `!v`, shell).
///
/// - `\` escapes one of `` {}\$` ``; any other backslash is literal. Literal `$`, `}` and `\` are written escaped.
/// - `$N`, `${N}`, `${N:placeholder}` (nested, parsed again inside) and `${N|a,b|}` keep their LSP form; a choice
///   with no option (`${N||}`) is what UltiSnips inserts, a tabstop holding `||`.
/// - `${VISUAL}`, `${VISUAL:default}` and `${VISUAL/…/…/…}` become `$TM_SELECTED_TEXT` forms; `${VISUAL:default/…/…/…}`
///   becomes `${TM_SELECTED_TEXT:…}` of the default transformed (an LSP variable has a default or a transform).
/// - `${N/regex/format/options}`: `UltiSnipsTransformation`; when the meaning would change, its text is kept as
///   literal text and a note says why.
/// - Interpolation (`` `!p …` ``, `` `!v …` ``, `` `…` ``) is NEVER run: `UltiSnipsInterpolation` says what stands in
///   for it (a variable, a mirror, or nothing) and a note at its position says so.
struct UltiSnipsBodyConverter {
    typealias Note = (offset: Int, severity: LibraryDiagnostic.Severity, code: DiagnosticCode, message: String)

    struct Result {
        var text: String
        var map: BodySourceMap
        var notes: [Note]
        /// How many of each construct the body holds (`tabstop`, `transformation`, `python`, …), for counts.
        var constructs: [String: Int]
    }

    private var scalars: [Unicode.Scalar] = []
    private var offsets: [Int] = []
    private var output: [UInt8] = []
    private var outputUTF16 = 0
    private var map = BodySourceMap()
    private var notes: [Note] = []
    private var constructs: [String: Int] = [:]
    private var verbatimEnd = -1
    /// Tabstop numbers defined so far (a transformation of an unknown one is an UltiSnips error).
    private var tabstops: Set<Int> = []
    /// Tabstop numbers written so far, so a later `$N` counts as a mirror.
    private var written: Set<Int> = []

    /// The regex ticks a transformed `${VISUAL:default/…/…/}` may spend transforming its default at load (a short
    /// text the author wrote): a small constant, so loading stays linear in bytes.
    static let defaultTransformTicks = 2

    /// Converts the body made of `lines`, each with the UTF-8 file offset where it starts.
    static func convert(lines: [(text: Substring, offset: Int)]) -> Result {
        var converter = UltiSnipsBodyConverter()
        for (index, line) in lines.enumerated() {
            var offset = line.offset
            for scalar in line.text.unicodeScalars {
                converter.scalars.append(scalar)
                converter.offsets.append(offset)
                offset += scalar.utf8.count
            }
            if index < lines.count - 1 {
                converter.scalars.append("\n")
                converter.offsets.append(offset)
            }
        }
        converter.collectTabstops()
        converter.run(0..<converter.scalars.count)
        return Result(
            text: String(decoding: converter.output, as: UTF8.self), map: converter.map, notes: converter.notes,
            constructs: converter.constructs)
    }

    // MARK: Output

    private mutating func emit(_ text: String, from offset: Int, verbatim: Bool = false) {
        map.append(.init(outputUTF16: outputUTF16, sourceUTF8: offset, isVerbatim: verbatim))
        output.append(contentsOf: text.utf8)
        outputUTF16 += text.utf16.count
        verbatimEnd = verbatim ? offset + text.utf8.count : -1
    }

    private mutating func emitLiteral(_ scalar: Unicode.Scalar, from offset: Int) {
        if scalar == "$" || scalar == "}" || scalar == "\\" {
            emit("\\" + String(scalar), from: offset)
            return
        }
        if offset != verbatimEnd {
            map.append(.init(outputUTF16: outputUTF16, sourceUTF8: offset, isVerbatim: true))
        }
        output.append(contentsOf: String(scalar).utf8)
        outputUTF16 += scalar.utf16.count
        verbatimEnd = offset + scalar.utf8.count
    }

    /// Source scalars `range` as literal LSP text.
    private mutating func emitLiteralText(_ range: Range<Int>) {
        for index in range { emitLiteral(scalars[index], from: offsets[index]) }
    }

    private mutating func count(_ construct: String) { constructs[construct, default: 0] += 1 }

    // MARK: Reading

    private func at(_ index: Int) -> Unicode.Scalar? { index < scalars.count ? scalars[index] : nil }
    private func isDigit(_ index: Int) -> Bool { at(index).map { ("0"..."9").contains($0) } ?? false }

    private func matches(_ word: String, at index: Int) -> Bool {
        var position = index
        for scalar in word.unicodeScalars {
            guard at(position) == scalar else { return false }
            position += 1
        }
        return true
    }

    private func text(_ range: Range<Int>) -> String {
        var result = String.UnicodeScalarView()
        result.append(contentsOf: scalars[range])
        return String(result)
    }

    /// The number starting at `index` and the index after it.
    private func number(at index: Int) -> (Int, Int)? {
        var end = index
        while isDigit(end) { end += 1 }
        guard end > index, let value = Int(text(index..<end)) else { return nil }
        return (value, end)
    }

    /// The index of the `}` closing a brace opened before `start` (escaped `\{`, `\}`, `\\` skipped), or nil.
    private func closingBrace(from start: Int, limit: Int) -> Int? {
        var depth = 1
        var index = start
        while index < limit {
            let scalar = scalars[index]
            if scalar == "\\", let next = at(index + 1), next == "{" || next == "}" || next == "\\" {
                index += 2
                continue
            }
            if scalar == "{" { depth += 1 }
            if scalar == "}" {
                depth -= 1
                if depth == 0 { return index }
            }
            index += 1
        }
        return nil
    }

    /// The index of the first unescaped scalar of `stops` from `start`, or nil.
    private func unescaped(_ stops: String, from start: Int, limit: Int) -> Int? {
        let set = Set(stops.unicodeScalars)
        var index = start
        while index < limit {
            if scalars[index] == "\\", let next = at(index + 1), set.contains(next) {
                index += 2
                continue
            }
            if set.contains(scalars[index]) { return index }
            index += 1
        }
        return nil
    }

    /// The tabstop numbers of the body: a transformation may come before its tabstop.
    private mutating func collectTabstops() {
        var index = 0
        while index < scalars.count {
            if scalars[index] == "\\" { index += 2; continue }
            if scalars[index] == "$" {
                if let (value, end) = number(at: index + 1) {
                    tabstops.insert(value)
                    index = end
                    continue
                }
                if at(index + 1) == "{", let (value, end) = number(at: index + 2), at(end) == ":" || at(end) == "}" || at(end) == "|" {
                    tabstops.insert(value)
                }
            }
            index += 1
        }
    }

    // MARK: Conversion

    private mutating func run(_ range: Range<Int>) {
        var index = range.lowerBound
        let limit = range.upperBound
        while index < limit {
            let scalar = scalars[index]
            let offset = offsets[index]
            switch scalar {
            case "\\":
                if let next = at(index + 1), index + 1 < limit, "{}\\$`".unicodeScalars.contains(next) {
                    emitLiteral(next, from: offsets[index + 1])
                    index += 2
                } else {
                    emitLiteral("\\", from: offset)
                    index += 1
                }
            case "$":
                index = convertDollar(at: index, limit: limit)
            case "`":
                index = convertCode(at: index, limit: limit)
            default:
                emitLiteral(scalar, from: offset)
                index += 1
            }
        }
    }

    private mutating func convertDollar(at index: Int, limit: Int) -> Int {
        let offset = offsets[index]
        if let (value, end) = number(at: index + 1), end <= limit {
            count(written.insert(value).inserted ? "tabstop" : "mirror")
            emit(text(index..<end), from: offset, verbatim: true)
            return end
        }
        guard at(index + 1) == "{" else {
            emitLiteral("$", from: offset)
            return index + 1
        }
        if matches("VISUAL", at: index + 2), let next = at(index + 8), next == ":" || next == "}" || next == "/" {
            return convertVisual(at: index, limit: limit)
        }
        guard let (value, end) = number(at: index + 2), end < limit else {
            emitLiteral("$", from: offset)
            return index + 1
        }
        switch scalars[end] {
        case "/":
            return convertTransformation(at: index, number: value, slash: end, limit: limit)
        case "|":
            return convertChoice(at: index, number: value, bar: end, limit: limit)
        case "}":
            count(written.insert(value).inserted ? "tabstop" : "mirror")
            emit("${\(value)}", from: offset, verbatim: true)
            return end + 1
        case ":":
            guard let close = closingBrace(from: end + 1, limit: limit) else { break }
            count("placeholder")
            written.insert(value)
            emit("${\(value):", from: offset, verbatim: true)
            run((end + 1)..<close)
            emit("}", from: offsets[close], verbatim: true)
            return close + 1
        default:
            break
        }
        emitLiteral("$", from: offset)
        return index + 1
    }

    private mutating func convertVisual(at index: Int, limit: Int) -> Int {
        let offset = offsets[index]
        count("visual")
        var position = index + 8
        if at(position) == ":" { position += 1 }
        guard let stop = unescaped("/}", from: position, limit: limit) else {
            emitLiteral("$", from: offset)
            return index + 1
        }
        let fallback = Self.unescapingBackslashes(text(position..<stop))
        if scalars[stop] == "}" {
            emit(fallback.isEmpty ? "${TM_SELECTED_TEXT}" : "${TM_SELECTED_TEXT:\(SnippetBody.escaped(fallback))}", from: offset)
            return stop + 1
        }
        guard let searchEnd = unescaped("/", from: stop + 1, limit: limit),
            let replaceEnd = unescaped("/", from: searchEnd + 1, limit: limit),
            let close = closingBrace(from: replaceEnd + 1, limit: limit)
        else {
            emitLiteralText(index..<limit)
            notes.append((offset, .warning, UltiSnipsCode.transformation, "this ${VISUAL} transformation is never closed; the rest of the body is kept as text"))
            return limit
        }
        count("transformation")
        let search = text((stop + 1)..<searchEnd), replace = text((searchEnd + 1)..<replaceEnd)
        let options = text((replaceEnd + 1)..<close)
        switch UltiSnipsTransformation.convert(search: search, replace: replace, options: options) {
        case .success(let converted):
            // An LSP variable takes a default or a transform, not both. A completion has nothing selected, so what
            // UltiSnips inserts without a selection (the default, transformed) is kept.
            if !fallback.isEmpty,
                let transformed = SnippetTransform(regex: converted.regex, format: converted.format, options: converted.flags)
                    .apply(to: fallback, budget: RegexBudget(ticks: Self.defaultTransformTicks))
            {
                emit("${TM_SELECTED_TEXT:\(SnippetBody.escaped(transformed))}", from: offset)
                notes.append((offset, .note, UltiSnipsCode.transformation, "an LSP variable takes a default or a transformation, not both: with nothing selected the default '\(fallback)' is inserted transformed ('\(transformed)'), and a selection is inserted untransformed"))
                return close + 1
            }
            emit("${TM_SELECTED_TEXT/\(converted.regex)/\(converted.format)/\(converted.flags)}", from: offset)
            if !fallback.isEmpty {
                notes.append((offset, .note, UltiSnipsCode.transformation, "the default '\(fallback)' of a transformed ${VISUAL} could not be transformed here (its regex does not compile or outran its budget), so it was left out"))
            }
        case .failure(let refusal):
            emitLiteralText(index..<(close + 1))
            notes.append((offset, .note, UltiSnipsCode.transformation, "this ${VISUAL} transformation is kept as text: \(refusal.reason)"))
        }
        return close + 1
    }

    private mutating func convertTransformation(at index: Int, number: Int, slash: Int, limit: Int) -> Int {
        let offset = offsets[index]
        guard let searchEnd = unescaped("/", from: slash + 1, limit: limit),
            let replaceEnd = unescaped("/", from: searchEnd + 1, limit: limit),
            let close = closingBrace(from: replaceEnd + 1, limit: limit)
        else {
            emitLiteralText(index..<limit)
            notes.append((offset, .warning, UltiSnipsCode.transformation, "this transformation is never closed; the rest of the body is kept as text"))
            return limit
        }
        count("transformation")
        let search = text((slash + 1)..<searchEnd), replace = text((searchEnd + 1)..<replaceEnd)
        let options = text((replaceEnd + 1)..<close)
        guard tabstops.contains(number) else {
            emitLiteralText(index..<(close + 1))
            notes.append((offset, .warning, UltiSnipsCode.transformation, "this transformation uses tabstop \(number), which the snippet does not have (UltiSnips refuses it); it is kept as text"))
            return close + 1
        }
        switch UltiSnipsTransformation.convert(search: search, replace: replace, options: options) {
        case .success(let converted):
            emit("${\(number)/\(converted.regex)/\(converted.format)/\(converted.flags)}", from: offset)
        case .failure(let refusal):
            emitLiteralText(index..<(close + 1))
            notes.append((offset, .note, UltiSnipsCode.transformation, "this transformation is kept as text: \(refusal.reason)"))
        }
        return close + 1
    }

    private mutating func convertChoice(at index: Int, number: Int, bar: Int, limit: Int) -> Int {
        let offset = offsets[index]
        guard number != 0, let end = unescaped("|", from: bar + 1, limit: limit),
            let close = closingBrace(from: end + 1, limit: limit)
        else {
            emitLiteral("$", from: offset)
            return index + 1
        }
        count("choice")
        var options: [String] = []
        var current = ""
        var position = bar + 1
        while position < end {
            if scalars[position] == "\\", position + 1 < end, scalars[position + 1] == "," || scalars[position + 1] == "|" {
                current.unicodeScalars.append(scalars[position + 1])
                position += 2
                continue
            }
            if scalars[position] == "," {
                if !current.isEmpty { options.append(current) }
                current = ""
            } else {
                current.unicodeScalars.append(scalars[position])
            }
            position += 1
        }
        if !current.isEmpty { options.append(current) }
        // With no option left UltiSnips inserts a plain tabstop holding its initial text, `||` (`Choices._update`).
        guard !options.isEmpty else {
            emit("${\(number):||}", from: offset)
            return close + 1
        }
        let escaped = options.map { option in
            var result = ""
            for character in option {
                if character == "," || character == "|" || character == "\\" || character == "$" || character == "}" { result.append("\\") }
                result.append(character)
            }
            return result
        }
        emit("${\(number)|\(escaped.joined(separator: ","))|}", from: offset)
        return close + 1
    }

    private mutating func convertCode(at index: Int, limit: Int) -> Int {
        let offset = offsets[index]
        var start = index + 1
        var language = UltiSnipsInterpolation.Language.shell
        if matches("!p", at: start), let space = at(start + 2), space == " " || space == "\t" || space == "\n" {
            language = .python
            start += 3
        } else if matches("!v", at: start), let space = at(start + 2), space == " " || space == "\t" || space == "\n" {
            language = .vim
            start += 3
        }
        guard let end = unescaped("`", from: start, limit: limit) else {
            notes.append((offset, .warning, .unterminatedBacktick, "a backtick interpolation is never closed; the rest of the body is kept as text"))
            emitLiteralText(index..<limit)
            return limit
        }
        count(language == .python ? "python" : language == .vim ? "vim" : "shell")
        let code = text(start..<end)
        let replacement = UltiSnipsInterpolation.replacement(for: code, in: language)
        emit(replacement, from: offset)
        if !replacement.isEmpty { count("mapped-code") }
        let shown = code.count > 60 ? String(code.prefix(57)) + "…" : code
        let outcome = replacement.isEmpty ? "it was left out" : "it was replaced by \(replacement)"
        notes.append((offset, .note, UltiSnipsCode.code, "\(language.rawValue) interpolation `\(shown)` is not run (snippets-lsp never runs code from a snippet); \(outcome)"))
        return end + 1
    }

    /// UltiSnips' `unescape`: a backslash before any character stands for that character.
    private static func unescapingBackslashes(_ text: String) -> String {
        var result = ""
        var escaped = false
        for character in text {
            if character == "\\" && !escaped {
                escaped = true
                continue
            }
            escaped = false
            result.append(character)
        }
        return result
    }
}
