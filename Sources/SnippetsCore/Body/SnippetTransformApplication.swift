import Foundation

/// One piece of a transform's format string.
enum SnippetFormatPart: Hashable, Sendable {
    case text(String)
    /// `$1`, `${1}`
    case group(Int)
    /// `${1:/upcase}` and the other shorthands (an unknown shorthand leaves the group unchanged).
    case caseChange(Int, String)
    /// `${1:+if}`, `${1:?if:else}`, `${1:-else}`, `${1:else}`
    case conditional(Int, ifValue: String?, elseValue: String?)
}

/// The format part of a transform, read the way VS Code's snippet parser reads it.
enum SnippetFormatString {
    /// The offset of the `/` that ends the format starting at `start`, or nil when there is none.
    static func scan(_ units: [UInt16], from start: Int) -> Int? {
        var index = start
        while index < units.count {
            let current = units[index]
            if current == SnippetASCII.slash { return index }
            if current == SnippetASCII.backslash {
                let next = index + 1 < units.count ? units[index + 1] : nil
                index += next == SnippetASCII.backslash || next == SnippetASCII.slash ? 2 : 1
            } else if current == SnippetASCII.dollar, let (_, end) = item(units, at: index) {
                index = end
            } else {
                index += 1
            }
        }
        return nil
    }

    /// The parts of a whole format string (as kept in `SnippetTransform.format`).
    static func parts(_ format: String) -> [SnippetFormatPart] {
        let units = Array(format.utf16)
        var parts: [SnippetFormatPart] = []
        var text: [UInt16] = []
        func flush() {
            if !text.isEmpty { parts.append(.text(String(decoding: text, as: UTF16.self))) }
            text.removeAll()
        }
        var index = 0
        while index < units.count {
            let current = units[index]
            if current == SnippetASCII.backslash {
                let next = index + 1 < units.count ? units[index + 1] : nil
                if let next, next == SnippetASCII.backslash || next == SnippetASCII.slash {
                    text.append(next)
                    index += 2
                } else {
                    text.append(current)
                    index += 1
                }
            } else if current == SnippetASCII.dollar, let (part, end) = item(units, at: index) {
                flush()
                parts.append(part)
                index = end
            } else {
                text.append(current)
                index += 1
            }
        }
        flush()
        return parts
    }

    /// The format item starting at the `$` at `start`, and the offset after it.
    private static func item(_ units: [UInt16], at start: Int) -> (SnippetFormatPart, Int)? {
        var index = start + 1
        func readInt() -> Int? {
            let begin = index
            while index < units.count, SnippetASCII.isDigit(units[index]) { index += 1 }
            return index > begin ? Int(String(decoding: units[begin..<index], as: UTF16.self)) : nil
        }
        guard index < units.count else { return nil }
        if SnippetASCII.isDigit(units[index]) {
            guard let group = readInt() else { return nil }
            return (.group(group), index)
        }
        guard units[index] == SnippetASCII.braceOpen else { return nil }
        index += 1
        guard let group = readInt(), index < units.count else { return nil }
        if units[index] == SnippetASCII.braceClose { return (.group(group), index + 1) }
        guard units[index] == SnippetASCII.colon, index + 1 < units.count else { return nil }
        index += 1
        switch units[index] {
        case SnippetASCII.slash:
            index += 1
            let begin = index
            guard index < units.count, SnippetASCII.isNameStart(units[index]) else { return nil }
            while index < units.count, SnippetASCII.isNameContinue(units[index]) { index += 1 }
            guard index < units.count, units[index] == SnippetASCII.braceClose else { return nil }
            let name = String(decoding: units[begin..<index], as: UTF16.self)
            return (.caseChange(group, name), index + 1)
        case SnippetASCII.plus:
            guard let (ifValue, end) = until(SnippetASCII.braceClose, in: units, from: index + 1) else { return nil }
            return (.conditional(group, ifValue: ifValue, elseValue: nil), end)
        case SnippetASCII.question:
            guard
                let (ifValue, middle) = until(
                    SnippetASCII.colon, in: units, from: index + 1, failingAt: SnippetASCII.braceClose),
                let (elseValue, end) = until(SnippetASCII.braceClose, in: units, from: middle)
            else { return nil }
            return (.conditional(group, ifValue: ifValue, elseValue: elseValue), end)
        case SnippetASCII.minus:
            guard let (elseValue, end) = until(SnippetASCII.braceClose, in: units, from: index + 1) else { return nil }
            return (.conditional(group, ifValue: nil, elseValue: elseValue), end)
        default:
            guard let (elseValue, end) = until(SnippetASCII.braceClose, in: units, from: index) else { return nil }
            return (.conditional(group, ifValue: nil, elseValue: elseValue), end)
        }
    }

    /// Text up to `stop` (consumed) with `\$` `\}` `\\` unescaped, as VS Code's `_until` reads it: any other
    /// backslash makes the item invalid, and so does an empty value. A `/` is text here (`${1:+a/b}`): the item ends
    /// at its `}`, which comes at the latest at the transform's own closing brace, so what an item is never depends on
    /// text after its transform. For the same reason the if-part of `${1:?if:else}` stops at a `}` (`failingAt`),
    /// where VS Code would read on into the text after the transform.
    private static func until(
        _ stop: UInt16, in units: [UInt16], from start: Int, failingAt barrier: UInt16? = nil
    ) -> (String, Int)? {
        var index = start
        var value: [UInt16] = []
        while index < units.count {
            let current = units[index]
            if current == stop {
                guard !value.isEmpty else { return nil }
                return (String(decoding: value, as: UTF16.self), index + 1)
            }
            if current == barrier { return nil }
            if current == SnippetASCII.backslash {
                guard index + 1 < units.count else { return nil }
                let next = units[index + 1]
                guard next == SnippetASCII.dollar || next == SnippetASCII.braceClose || next == SnippetASCII.backslash
                else { return nil }
                value.append(next)
                index += 2
            } else {
                value.append(current)
                index += 1
            }
        }
        return nil
    }

    /// The replacement for one match, `groups[n]` being capture group n (nil when it did not participate).
    static func render(_ parts: [SnippetFormatPart], groups: [String?]) -> String {
        func group(_ number: Int) -> String { number < groups.count ? groups[number] ?? "" : "" }
        var result = ""
        for part in parts {
            switch part {
            case .text(let text):
                result += text
            case .group(let number):
                result += group(number)
            case .caseChange(let number, let name):
                result += changeCase(group(number), shorthand: name)
            case .conditional(let number, let ifValue, let elseValue):
                let value = group(number)
                if !value.isEmpty, let ifValue {
                    result += ifValue
                } else if value.isEmpty, let elseValue {
                    result += elseValue
                } else {
                    result += value
                }
            }
        }
        return result
    }

    /// At least the UTF-16 length of `render(parts, groups:)` (a case change can at most triple a group: `ΐ`
    /// upper-cases to three units), computed without building it.
    static func longestRendering(_ parts: [SnippetFormatPart], groups: [String?]) -> Int {
        func group(_ number: Int) -> Int { number < groups.count ? groups[number]?.utf16.count ?? 0 : 0 }
        var length = 0
        for part in parts {
            switch part {
            case .text(let text): length += text.utf16.count
            case .group(let number): length += group(number)
            case .caseChange(let number, _): length += 3 * group(number)
            case .conditional(let number, let ifValue, let elseValue):
                length += max(group(number), ifValue?.utf16.count ?? 0, elseValue?.utf16.count ?? 0)
            }
        }
        return length
    }

    /// VS Code's `/upcase`, `/downcase`, `/capitalize`, `/camelcase`, `/pascalcase`; others leave `value` as is.
    static func changeCase(_ value: String, shorthand: String) -> String {
        switch shorthand {
        case "upcase":
            return value.uppercased()
        case "downcase":
            return value.lowercased()
        case "capitalize":
            guard let first = value.first else { return "" }
            return first.uppercased() + value.dropFirst()
        case "pascalcase", "camelcase":
            let words = alphanumericWords(value)
            guard !words.isEmpty else { return value }
            return words.enumerated().map { offset, word in
                let head =
                    offset == 0 && shorthand == "camelcase" ? word.prefix(1).lowercased() : word.prefix(1).uppercased()
                return head + word.dropFirst()
            }.joined()
        default:
            return value
        }
    }

    /// Runs of `[a-zA-Z0-9]`, as VS Code's `/[a-z0-9]+/gi` finds them.
    private static func alphanumericWords(_ value: String) -> [Substring] {
        value.split { character in
            !(character.isASCII && (character.isLetter || character.isNumber))
        }
    }
}

extension SnippetTransform {
    /// The regular expression as VS Code hands it to the engine: `\/` becomes `/`, other backslashes stay.
    var unescapedRegex: String {
        let units = Array(regex.utf16)
        var result: [UInt16] = []
        var index = 0
        while index < units.count {
            if units[index] == SnippetASCII.backslash, index + 1 < units.count, units[index + 1] == SnippetASCII.slash {
                result.append(SnippetASCII.slash)
                index += 2
            } else {
                result.append(units[index])
                index += 1
            }
        }
        return String(decoding: result, as: UTF16.self)
    }

    /// Why the options would make VS Code reject the transform (as a phrase after "Transform of …"), or nil.
    var optionsProblem: String? {
        var seen: Set<Character> = []
        for option in options {
            // What JavaScript's RegExp accepts; only g, i, m (and s) change the result here.
            guard "dgimsuvy".contains(option) else { return "has an unknown option '\(option)' (use g, i, m)" }
            guard seen.insert(option).inserted else { return "repeats the option '\(option)'" }
        }
        if seen.contains("u") && seen.contains("v") { return "has both options 'u' and 'v', which JavaScript refuses" }
        return nil
    }

    /// The ICU pattern for the regex, nil when JavaScript's `RegExp` would reject it (see `JavaScriptRegex`).
    var icuPattern: String? {
        JavaScriptRegex.icuPattern(source: unescapedRegex, flags: options)
    }

    /// Whether the regular expression is one JavaScript's `RegExp` accepts (VS Code drops the whole transform to
    /// literal text otherwise).
    public var regexCompiles: Bool { icuPattern != nil }

    /// The longest text (UTF-16 units) a transform may produce beyond its input: a format repeated over every match
    /// of a global regex could otherwise turn a body into megabytes.
    static let outputAllowance = 1 << 16

    /// `value` with the regex's first match (every match with option `g`) replaced by the format, as VS Code does;
    /// when nothing matches and the format has an else branch, the format alone. Nil when the regex does not compile,
    /// when matching outran `budget` (a fresh per-snippet budget when none is given) or the request's
    /// `RegexBudget.request`, or when the result would be longer than `outputAllowance` more than `value`: the
    /// caller then shows the transform unapplied.
    public func apply(to value: String, budget: RegexBudget? = nil) -> String? {
        guard let pattern = icuPattern else { return nil }
        let budgets = [budget ?? RegexBudget(ticks: RegexBudget.perSnippet)] + (RegexBudget.request.map { [$0] } ?? [])
        guard
            let matches = BudgetedRegex.matches(
                of: pattern, options: JavaScriptRegex.options(options), in: value, all: options.contains("g"),
                budgets: budgets)
        else { return nil }
        let parts = SnippetFormatString.parts(format)
        let source = value as NSString
        guard !matches.isEmpty else {
            let hasElse = parts.contains { part in
                if case .conditional(_, _, let elseValue) = part { return elseValue != nil }
                return false
            }
            return hasElse ? SnippetFormatString.render(parts, groups: []) : value
        }
        let limit = source.length + Self.outputAllowance
        var result = ""
        var length = 0
        var location = 0
        for match in matches {
            guard let whole = match[0] else { continue }
            let before = source.substring(with: NSRange(location: location, length: whole.location - location))
            let groups = match.map { $0.map(source.substring(with:)) }
            // Measured before it is built: a format of many `$0` over a long match is long in itself.
            length += before.utf16.count + SnippetFormatString.longestRendering(parts, groups: groups)
            guard length <= limit else { return nil }
            let replacement = SnippetFormatString.render(parts, groups: groups)
            result += before
            result += replacement
            location = whole.location + whole.length
        }
        result += source.substring(from: location)
        return result
    }
}
