import Foundation

/// ASCII code units the grammar cares about.
enum SnippetASCII {
    static let dollar: UInt16 = 0x24
    static let backslash: UInt16 = 0x5C
    static let braceOpen: UInt16 = 0x7B
    static let braceClose: UInt16 = 0x7D
    static let colon: UInt16 = 0x3A
    static let pipe: UInt16 = 0x7C
    static let comma: UInt16 = 0x2C
    static let slash: UInt16 = 0x2F
    static let plus: UInt16 = 0x2B
    static let minus: UInt16 = 0x2D
    static let question: UInt16 = 0x3F

    static func isDigit(_ unit: UInt16) -> Bool { unit >= 0x30 && unit <= 0x39 }

    /// `[_a-zA-Z]`: what may start a variable name.
    static func isNameStart(_ unit: UInt16) -> Bool {
        unit == 0x5F || (unit >= 0x41 && unit <= 0x5A) || (unit >= 0x61 && unit <= 0x7A)
    }

    /// `[_a-zA-Z0-9]`: what may continue a variable name.
    static func isNameContinue(_ unit: UInt16) -> Bool { isNameStart(unit) || isDigit(unit) }
}

/// Collects elements, merging adjacent text so equal bodies always have equal trees.
struct SnippetElementBuilder {
    private(set) var elements: [SnippetElement] = []
    private var pendingText: [UInt16] = []
    /// False when only the problems are wanted (a library load checking every body): text is not collected, so
    /// no string is made for it. The parser never reads the text it collected, so the problems are the same.
    let keepsText: Bool

    init(keepsText: Bool = true) {
        self.keepsText = keepsText
    }

    mutating func appendText(_ unit: UInt16) {
        if keepsText { pendingText.append(unit) }
    }

    mutating func appendText<S: Sequence>(contentsOf units: S) where S.Element == UInt16 {
        if keepsText { pendingText.append(contentsOf: units) }
    }

    mutating func append(_ element: SnippetElement) {
        flush()
        elements.append(element)
    }

    mutating func finish() -> [SnippetElement] {
        flush()
        return elements
    }

    private mutating func flush() {
        guard !pendingText.isEmpty else { return }
        elements.append(.text(stringFromUTF16(pendingText)))
        pendingText.removeAll(keepingCapacity: true)
    }
}

/// A recursive-descent parser that follows VS Code's `SnippetParser`: a construct that does not parse is
/// backtracked over, its `$` becomes literal text, and parsing resumes right after that `$`.
struct SnippetBodyParser {
    /// How deep placeholders may nest before the parser treats the next one as literal text (keeps the stack bounded).
    static let maximumDepth = 64

    private let units: [UInt16]
    private var index = 0
    private var depth = 0
    private var problems: [SnippetBodyProblem] = []
    /// Offsets of `$` whose construct is known not to parse, with the problem it reports; makes backtracking linear
    /// instead of exponential for nested unterminated placeholders (a construct's fate depends only on its start,
    /// except for the depth limit, where remembering the failure keeps pathological nesting linear too).
    private var failures: [Int: SnippetBodyProblem] = [:]

    /// Whether the elements' text is kept (see `SnippetElementBuilder.keepsText`).
    private let keepsText: Bool

    init(_ text: String, keepsText: Bool = true) {
        units = Self.utf16Units(of: text)
        self.keepsText = keepsText
    }

    /// `Array(text.utf16)`, with ASCII text (most bodies) widened byte by byte: the generic copy through the
    /// UTF-16 view costs several times as much, on every body of every load.
    static func utf16Units(of text: String) -> [UInt16] {
        var text = text
        let widened: [UInt16]? = text.withUTF8 { bytes in
            guard !ASCIIBytes.containsNonASCII(bytes) else { return nil }
            return [UInt16](unsafeUninitializedCapacity: bytes.count) { buffer, count in
                for offset in bytes.indices { buffer[offset] = UInt16(bytes[offset]) }
                count = bytes.count
            }
        }
        return widened ?? Array(text.utf16)
    }

    mutating func parse() -> SnippetBodyParse {
        var builder = SnippetElementBuilder(keepsText: keepsText)
        while index < units.count {
            parseAny(into: &builder)
        }
        return SnippetBodyParse(body: SnippetBody(elements: builder.finish()), problems: problems)
    }

    // MARK: Text level

    private func unit(at offset: Int) -> UInt16? {
        offset < units.count ? units[offset] : nil
    }

    /// One escape, one construct, or one literal code unit.
    private mutating func parseAny(into builder: inout SnippetElementBuilder) {
        let current = units[index]
        if current == SnippetASCII.backslash {
            if let next = unit(at: index + 1),
                next == SnippetASCII.dollar || next == SnippetASCII.braceClose || next == SnippetASCII.backslash
            {
                builder.appendText(next)
                index += 2
            } else {
                builder.appendText(current)
                index += 1
            }
            return
        }
        if current == SnippetASCII.dollar, let element = parseDollar() {
            builder.append(element)
            return
        }
        builder.appendText(current)
        index += 1
    }

    /// At a `$`: the construct it starts, with `index` past it; or nil with `index` unchanged (the `$` is literal).
    private mutating func parseDollar() -> SnippetElement? {
        let start = index
        if let known = failures[start] {
            problems.append(known)
            return nil
        }
        guard let next = unit(at: start + 1) else { return nil }
        if SnippetASCII.isDigit(next) {
            index = start + 1
            guard let number = readInt() else {
                index = start
                return nil
            }
            return .tabstop(number)
        }
        if SnippetASCII.isNameStart(next) {
            index = start + 1
            let name = readName()
            checkVariableName(name, at: start)
            return .variable(name, default: nil)
        }
        if next == SnippetASCII.braceOpen {
            return parseBraced(start: start)
        }
        return nil
    }

    private mutating func readInt() -> Int? {
        let begin = index
        while let unit = unit(at: index), SnippetASCII.isDigit(unit) { index += 1 }
        return Int(stringFromUTF16(units[begin..<index]))
    }

    private mutating func readName() -> String {
        let begin = index
        while let unit = unit(at: index), SnippetASCII.isNameContinue(unit) { index += 1 }
        return stringFromUTF16(units[begin..<index])
    }

    private mutating func checkVariableName(_ name: String, at offset: Int) {
        guard !SnippetVariables.isKnown(name) else { return }
        problems.append(
            SnippetBodyProblem(
                utf16Offset: offset, severity: .warning, code: .unknownVariable,
                message: "Unknown variable '\(name)': VS Code inserts its name as a placeholder instead of a value."))
    }

    /// Backtracks to `start`: forgets what the failed construct reported, reports (and remembers) why it failed.
    private mutating func fail(
        start: Int, problemMark: Int, code: DiagnosticCode, severity: LibraryDiagnostic.Severity = .error, _ message: String
    ) -> SnippetElement? {
        problems.removeSubrange(problemMark...)
        let problem = SnippetBodyProblem(utf16Offset: start, severity: severity, code: code, message: message)
        failures[start] = problem
        problems.append(problem)
        index = start
        return nil
    }

    // MARK: ${…}

    private mutating func parseBraced(start: Int) -> SnippetElement? {
        let problemMark = problems.count
        index = start + 2
        guard let first = unit(at: index) else {
            return fail(
                start: start, problemMark: problemMark, code: .unterminatedPlaceholder,
                "'${' at the end of the body is inserted as literal text; write '\\${' if that is intended.")
        }
        if SnippetASCII.isDigit(first) {
            guard let number = readInt() else {
                return fail(
                    start: start, problemMark: problemMark, code: .invalidPlaceholder,
                    "The tabstop number is too large; the placeholder is inserted as literal text.")
            }
            return parseTabstopRest(number, start: start, problemMark: problemMark)
        }
        if SnippetASCII.isNameStart(first) {
            let name = readName()
            return parseVariableRest(name, start: start, problemMark: problemMark)
        }
        return fail(
            start: start, problemMark: problemMark, code: .invalidPlaceholder,
            severity: .warning,
            "'${' is not followed by a tabstop number or a variable name, so it is inserted as literal text; "
                + "write '\\${' to say so.")
    }

    private mutating func parseTabstopRest(_ number: Int, start: Int, problemMark: Int) -> SnippetElement? {
        switch unit(at: index) {
        case SnippetASCII.braceClose:
            index += 1
            return .tabstop(number)
        case SnippetASCII.colon:
            guard depth < Self.maximumDepth else { return failTooDeep(start: start, problemMark: problemMark) }
            index += 1
            guard let children = parseChildren() else {
                return fail(
                    start: start, problemMark: problemMark, code: .unterminatedPlaceholder,
                    "Placeholder '${\(number):' has no closing '}', so it is inserted as literal text.")
            }
            return .placeholder(number, children)
        case SnippetASCII.pipe where number == 0:
            // VS Code ignores a choice on the final tabstop (its parser only reads `${N|` for N > 0, #31599), so the
            // whole construct is literal text there; Neovim and LuaSnip would offer the choice. Follow VS Code.
            return fail(
                start: start, problemMark: problemMark, code: .choiceOnFinalTabstop,
                "A choice on the final tabstop ('${0|') is inserted as literal text by VS Code (other editors differ); "
                    + "number it ${1|…|} and put $0 after it.")
        case SnippetASCII.pipe:
            index += 1
            switch parseChoiceOptions() {
            case .success(let options):
                return .choice(number, options)
            case .failure(let failure):
                return fail(start: start, problemMark: problemMark, code: failure.code, failure.message(number))
            }
        case SnippetASCII.slash:
            index += 1
            switch parseTransform(start: start) {
            case .success(let transform):
                return .transform(.tabstop(number), transform)
            case .failure(let failure):
                return fail(
                    start: start, problemMark: problemMark, code: failure.code,
                    "Transform of tabstop \(number) \(failure.reason), so it is inserted as literal text.")
            }
        case nil:
            return fail(
                start: start, problemMark: problemMark, code: .unterminatedPlaceholder,
                "'${\(number)' has no closing '}', so it is inserted as literal text.")
        default:
            return fail(
                start: start, problemMark: problemMark, code: .invalidPlaceholder,
                "'${\(number)' must be followed by '}', ':', '|' or '/'; it is inserted as literal text.")
        }
    }

    private mutating func parseVariableRest(_ name: String, start: Int, problemMark: Int) -> SnippetElement? {
        switch unit(at: index) {
        case SnippetASCII.braceClose:
            index += 1
            checkVariableName(name, at: start)
            return .variable(name, default: nil)
        case SnippetASCII.colon:
            guard depth < Self.maximumDepth else { return failTooDeep(start: start, problemMark: problemMark) }
            index += 1
            checkVariableName(name, at: start)
            guard let children = parseChildren() else {
                return fail(
                    start: start, problemMark: problemMark, code: .unterminatedVariable,
                    "Variable '${\(name):' has no closing '}', so it is inserted as literal text.")
            }
            return .variable(name, default: children)
        case SnippetASCII.slash:
            index += 1
            checkVariableName(name, at: start)
            switch parseTransform(start: start) {
            case .success(let transform):
                return .transform(.variable(name), transform)
            case .failure(let failure):
                return fail(
                    start: start, problemMark: problemMark, code: failure.code,
                    "Transform of variable \(name) \(failure.reason), so it is inserted as literal text.")
            }
        case nil:
            return fail(
                start: start, problemMark: problemMark, code: .unterminatedVariable,
                "'${\(name)' has no closing '}', so it is inserted as literal text.")
        default:
            return fail(
                start: start, problemMark: problemMark, code: .invalidVariable,
                severity: .warning,
                "'${\(name)' must be followed by '}', ':' or '/', so it is inserted as literal text; "
                    + "write '\\${' to say so.")
        }
    }

    /// Fails a construct that would open children (`${N:` or `${name:`) past `maximumDepth`. Only constructs
    /// with children are capped: a `${7}`, a choice or a transform nests nothing, and capping it too would read
    /// `${7}` as text at depth 64 where `$7` is a tabstop, so what is sent to an editor would not read back as the
    /// same tree.
    private mutating func failTooDeep(start: Int, problemMark: Int) -> SnippetElement? {
        fail(
            start: start, problemMark: problemMark, code: .nestingTooDeep,
            "Placeholders nest more than \(Self.maximumDepth) levels deep; the rest is inserted as literal text.")
    }

    /// Elements up to the closing `}` (consumed), or nil at the end of the body.
    private mutating func parseChildren() -> [SnippetElement]? {
        depth += 1
        defer { depth -= 1 }
        var builder = SnippetElementBuilder(keepsText: keepsText)
        while true {
            guard let current = unit(at: index) else { return nil }
            if current == SnippetASCII.braceClose {
                index += 1
                return builder.finish()
            }
            parseAny(into: &builder)
        }
    }

    // MARK: Choices

    private struct ChoiceFailure: Error {
        var code: DiagnosticCode
        var detail: String
        func message(_ number: Int) -> String {
            "Choice '${\(number)|' \(detail), so it is inserted as literal text."
        }
    }

    /// Options after `${1|` up to and including `|}`. In options `\,` `\|` `\\` (and `\$` `\}`) are escapes.
    private mutating func parseChoiceOptions() -> Result<[String], ChoiceFailure> {
        var options: [String] = []
        while true {
            var option: [UInt16] = []
            while let current = unit(at: index), current != SnippetASCII.comma, current != SnippetASCII.pipe {
                if current == SnippetASCII.backslash, let next = unit(at: index + 1),
                    next == SnippetASCII.comma || next == SnippetASCII.pipe || next == SnippetASCII.backslash
                        || next == SnippetASCII.dollar || next == SnippetASCII.braceClose
                {
                    option.append(next)
                    index += 2
                } else {
                    option.append(current)
                    index += 1
                }
            }
            guard let separator = unit(at: index) else {
                return .failure(
                    ChoiceFailure(code: .unterminatedChoice, detail: "has no closing '|}'"))
            }
            guard !option.isEmpty else {
                return .failure(
                    ChoiceFailure(
                        code: .emptyChoice,
                        detail: options.isEmpty && separator == SnippetASCII.pipe
                            ? "has no options" : "has an empty option"))
            }
            options.append(String(decoding: option, as: UTF16.self))
            index += 1
            if separator == SnippetASCII.comma { continue }
            guard unit(at: index) == SnippetASCII.braceClose else {
                return .failure(
                    ChoiceFailure(
                        code: .unterminatedChoice,
                        detail: "must end with '|}' (write '\\|' for a literal bar)"))
            }
            index += 1
            return .success(options)
        }
    }

    // MARK: Transforms

    private struct TransformFailure: Error {
        var reason: String
        var code = DiagnosticCode.invalidTransform
    }

    /// How many flags a transform may have: JavaScript knows eight (`dgimsuvy`), each at most once.
    static let maximumOptions = 8

    /// An ASCII letter: what a regular-expression flag is made of.
    static func isFlagLetter(_ unit: UInt16) -> Bool {
        (unit >= 0x61 && unit <= 0x7A) || (unit >= 0x41 && unit <= 0x5A)
    }

    /// `regex/format/options}` after the first `/` of the construct at `start`, kept as written; the options must
    /// be known and the regex one JavaScript accepts.
    private mutating func parseTransform(start: Int) -> Result<SnippetTransform, TransformFailure> {
        let regexStart = index
        while true {
            guard let current = unit(at: index) else {
                return .failure(TransformFailure(reason: "has no '/' after its regular expression"))
            }
            if current == SnippetASCII.slash { break }
            // `\/` is an escaped slash; any other backslash stays for the regex engine.
            index += current == SnippetASCII.backslash && unit(at: index + 1) == SnippetASCII.slash ? 2 : 1
        }
        let regex = String(decoding: units[regexStart..<index], as: UTF16.self)
        index += 1

        let formatStart = index
        guard let formatEnd = SnippetFormatString.scan(units, from: formatStart) else {
            return .failure(TransformFailure(reason: "has no '/' after its format"))
        }
        let format = String(decoding: units[formatStart..<formatEnd], as: UTF16.self)
        index = formatEnd + 1

        // The options: only regular-expression flags may stand here, at most `maximumOptions` of them. The first
        // other character decides (JavaScript's RegExp refuses it, as VS Code finds by reading on to the next `}`), so
        // the scan stops there: reading on from every transform to a `}` that may be the body's last was quadratic
        // (2,432 `${FOO/(.*)/x/ ${BAR: ` in 85 KB took 13 s).
        let optionsStart = index
        while true {
            guard let current = unit(at: index) else {
                return .failure(TransformFailure(reason: "has no closing '}'"))
            }
            if current == SnippetASCII.braceClose { break }
            guard Self.isFlagLetter(current), index - optionsStart < Self.maximumOptions else {
                let read = String(decoding: units[optionsStart...index], as: UTF16.self)
                let problem = SnippetTransform(regex: regex, format: format, options: read).optionsProblem
                return .failure(TransformFailure(reason: problem ?? "has more options than JavaScript knows"))
            }
            index += 1
        }
        let options = String(decoding: units[optionsStart..<index], as: UTF16.self)
        index += 1

        let transform = SnippetTransform(regex: regex, format: format, options: options)
        if let problem = transform.optionsProblem {
            return .failure(TransformFailure(reason: problem))
        }
        if !transform.regexCompiles {
            // VS Code builds a JavaScript RegExp here and, when that throws, backtracks over the whole construct.
            return .failure(
                TransformFailure(
                    reason: "has a regular expression '\(regex)' that JavaScript rejects",
                    code: .invalidRegex))
        }
        if let hazard = RegexBacktracking.hazard(source: transform.unescapedRegex, flags: options) {
            problems.append(
                SnippetBodyProblem(
                    utf16Offset: start, severity: .warning, code: .backtrackingRegex,
                    message: "Transform's regular expression '\(regex)' \(hazard), which backtracks without bound on "
                        + "some text: an editor can hang on a long placeholder. Rewrite it so each character has one "
                        + "way to match."))
        }
        return .success(transform)
    }
}

/// `String(decoding: units, as: UTF16.self)`, with a fast path for ASCII (most snippet text): the generic UTF-16
/// transcoding was most of a body's parse time, and parsing is on the completion path.
func stringFromUTF16<Units: Collection<UInt16>>(_ units: Units) -> String {
    guard units.allSatisfy({ $0 < 0x80 }) else { return String(decoding: units, as: UTF16.self) }
    return String(unsafeUninitializedCapacity: units.count) { buffer in
        for (offset, unit) in units.enumerated() { buffer[offset] = UInt8(truncatingIfNeeded: unit) }
        return units.count
    }
}
