import Foundation

/// A transform's regular expression read the way VS Code reads it: as a JavaScript `RegExp` (source and flags), run
/// here through ICU. JavaScript and ICU agree on the common syntax but not at the edges, so the source is checked for
/// what JavaScript rejects and ICU accepts (possessive quantifiers, atomic groups, inline flags, `\Q…\E` is harmless),
/// and rewritten where JavaScript accepts what ICU rejects or reads differently (`[]`, `[^]`, a `{` that starts no
/// quantifier, `[` inside a class, identity escapes such as `\A` that ICU gives a meaning).
enum JavaScriptRegex {
    /// The ICU pattern that matches what JavaScript's `new RegExp(source, flags)` matches, or nil when JavaScript
    /// would throw (VS Code then inserts the whole transform as literal text).
    static func icuPattern(source: String, flags: String) -> String? {
        var seen: Set<Character> = []
        for flag in flags {
            guard "dgimsuvy".contains(flag), seen.insert(flag).inserted else { return nil }
        }
        if seen.contains("u") && seen.contains("v") { return nil }
        let units = Array(source.utf16)
        var output: [UInt16] = []
        var index = 0
        var depth = 0
        // Whether the last item can take a quantifier (false at the start, after `(`, `|`, or a quantifier).
        var canQuantify = false
        var lastWasQuantifier = false
        func unit(_ offset: Int) -> UInt16? { offset < units.count ? units[offset] : nil }
        func isDigit(_ unit: UInt16?) -> Bool { unit.map { $0 >= 0x30 && $0 <= 0x39 } ?? false }
        /// The end of a `{n}`, `{n,}` or `{n,m}` quantifier starting at `start`, or nil.
        func intervalEnd(_ start: Int) -> Int? {
            var cursor = start + 1
            guard isDigit(unit(cursor)) else { return nil }
            while isDigit(unit(cursor)) { cursor += 1 }
            if unit(cursor) == 0x2C {  // ,
                cursor += 1
                while isDigit(unit(cursor)) { cursor += 1 }
            }
            return unit(cursor) == 0x7D ? cursor + 1 : nil
        }
        // Escapes JavaScript gives a meaning to (outside the `u` flag, any other escaped letter is that letter).
        let meaningful = Set("bBdDsSwWfnrtvcxu0123456789k".utf16)
        let unicode = seen.contains("u") || seen.contains("v")
        while index < units.count {
            let current = units[index]
            switch current {
            case 0x5C:  // backslash
                guard let next = unit(index + 1) else { return nil }  // a trailing backslash
                let isLetter = (next >= 0x41 && next <= 0x5A) || (next >= 0x61 && next <= 0x7A)
                if isLetter && !meaningful.contains(next) && !(unicode && (next == 0x70 || next == 0x50)) {
                    if unicode { return nil }
                    output.append(next)  // identity escape: `\A` is "A" in JavaScript
                } else if let ascii = asciiClass(next, insideClass: false) {
                    output.append(contentsOf: ascii)  // JavaScript's \w and \d are ASCII, ICU's Unicode
                } else {
                    output.append(current)
                    output.append(next)
                }
                index += 2
                canQuantify = next != 0x62 && next != 0x42  // \b \B are assertions
                lastWasQuantifier = false
            case 0x5B:  // [ … ]
                var cursor = index + 1
                var negated = false
                if unit(cursor) == 0x5E {
                    negated = true
                    cursor += 1
                }
                if unit(cursor) == 0x5D {  // `[]` matches nothing, `[^]` anything
                    output.append(contentsOf: Array((negated ? #"[\s\S]"# : "(?!)").utf16))
                    index = cursor + 1
                } else {
                    output.append(0x5B)
                    if negated { output.append(0x5E) }
                    var closed = false
                    while let member = unit(cursor) {
                        if member == 0x5D {
                            closed = true
                            cursor += 1
                            break
                        }
                        if member == 0x5C, let escaped = unit(cursor + 1) {
                            let isLetter = (escaped >= 0x41 && escaped <= 0x5A) || (escaped >= 0x61 && escaped <= 0x7A)
                            if isLetter && !meaningful.contains(escaped) && !(unicode && (escaped == 0x70 || escaped == 0x50)) {
                                if unicode { return nil }
                                output.append(escaped)
                            } else if let ascii = asciiClass(escaped, insideClass: true) {
                                output.append(contentsOf: ascii)
                            } else {
                                output.append(member)
                                output.append(escaped)
                            }
                            cursor += 2
                            continue
                        }
                        // ICU reads `[`, `&&` and `--` in a class as set operations; JavaScript as the characters.
                        if member == 0x5B || member == 0x26 || (member == 0x2D && unit(cursor + 1) == 0x2D) {
                            output.append(0x5C)
                        }
                        output.append(member)
                        cursor += 1
                    }
                    guard closed else { return nil }
                    output.append(0x5D)
                    index = cursor
                }
                canQuantify = true
                lastWasQuantifier = false
            case 0x28:  // (
                var prefixEnd = index + 1  // what to copy verbatim: `(`, `(?:`, `(?<name>`, `(?i:` …
                if unit(index + 1) == 0x3F {  // (?
                    let kind = unit(index + 2)
                    if kind == 0x3A || kind == 0x3D || kind == 0x21 {  // (?: (?= (?!
                        prefixEnd = index + 3
                    } else if kind == 0x3C, let after = unit(index + 3) {  // (?<= (?<! (?<name>
                        if after == 0x3D || after == 0x21 {
                            prefixEnd = index + 4
                        } else {
                            var cursor = index + 3
                            while let nameUnit = unit(cursor), nameUnit != 0x3E {
                                let isNameUnit =
                                    nameUnit == 0x5F || nameUnit == 0x24 || isDigit(nameUnit)
                                    || (nameUnit >= 0x41 && nameUnit <= 0x5A) || (nameUnit >= 0x61 && nameUnit <= 0x7A)
                                guard isNameUnit else { return nil }
                                cursor += 1
                            }
                            guard unit(cursor) == 0x3E, cursor > index + 3, !isDigit(unit(index + 3)) else {
                                return nil
                            }
                            prefixEnd = cursor + 1
                        }
                    } else {
                        // `(?i:…)` / `(?i-m:…)` modifiers are JavaScript (ES2025); `(?i)`, `(?>`, `(?#` are not.
                        var cursor = index + 2
                        var sawFlag = false
                        while let flag = unit(cursor), flag == 0x69 || flag == 0x6D || flag == 0x73 || flag == 0x2D {
                            sawFlag = true
                            cursor += 1
                        }
                        guard sawFlag, unit(cursor) == 0x3A else { return nil }
                        prefixEnd = cursor + 1
                    }
                }
                guard prefixEnd <= units.count else { return nil }
                depth += 1
                output.append(contentsOf: units[index..<prefixEnd])
                index = prefixEnd
                canQuantify = false
                lastWasQuantifier = false
            case 0x29:  // )
                guard depth > 0 else { return nil }
                depth -= 1
                output.append(current)
                index += 1
                canQuantify = true
                lastWasQuantifier = false
            case 0x7C:  // |
                output.append(current)
                index += 1
                canQuantify = false
                lastWasQuantifier = false
            case 0x2A, 0x2B, 0x3F:  // * + ?
                if current == 0x3F && lastWasQuantifier {  // lazy
                    output.append(current)
                    index += 1
                    lastWasQuantifier = false
                    canQuantify = false
                    continue
                }
                guard canQuantify else { return nil }  // "nothing to repeat", also `a++` (possessive in ICU)
                output.append(current)
                index += 1
                canQuantify = false
                lastWasQuantifier = true
            case 0x7B:  // {
                if let end = intervalEnd(index) {
                    guard canQuantify else { return nil }
                    output.append(contentsOf: units[index..<end])
                    index = end
                    canQuantify = false
                    lastWasQuantifier = true
                } else {
                    if unicode { return nil }
                    output.append(0x5C)  // a literal brace in JavaScript; ICU wants it escaped
                    output.append(current)
                    index += 1
                    canQuantify = true
                    lastWasQuantifier = false
                }
            case 0x7D, 0x5D:  // a lone } or ]
                if unicode { return nil }
                output.append(0x5C)
                output.append(current)
                index += 1
                canQuantify = true
                lastWasQuantifier = false
            case 0x5E, 0x24:  // ^ $
                // Without `m`, JavaScript's `$` is the end of the input only; ICU's also matches before a final
                // line break.
                if current == 0x24 && !flags.contains("m") {
                    output.append(contentsOf: Array(#"\z"#.utf16))
                } else {
                    output.append(current)
                }
                index += 1
                canQuantify = false
                lastWasQuantifier = false
            default:
                output.append(current)
                index += 1
                canQuantify = true
                lastWasQuantifier = false
            }
        }
        guard depth == 0 else { return nil }
        // JavaScript reads an empty source as `(?:)` (matches the empty string); ICU refuses an empty pattern.
        let pattern = output.isEmpty ? "(?:)" : String(decoding: output, as: UTF16.self)
        guard (try? NSRegularExpression(pattern: pattern, options: options(flags))) != nil else { return nil }
        return pattern
    }

    /// ICU for JavaScript's ASCII-only `\d` `\D` `\w` `\W` (`letter` is the escaped unit); nil for other escapes, and
    /// for `\D` `\W` inside a class, which keep ICU's meaning.
    private static func asciiClass(_ letter: UInt16, insideClass: Bool) -> [UInt16]? {
        let replacement: String? =
            switch (letter, insideClass) {
            case (0x64, false): "[0-9]"  // \d
            case (0x44, false): "[^0-9]"  // \D
            case (0x77, false): "[A-Za-z0-9_]"  // \w
            case (0x57, false): "[^A-Za-z0-9_]"  // \W
            case (0x64, true): "0-9"
            case (0x77, true): "A-Za-z0-9_"
            default: nil
            }
        return replacement.map { Array($0.utf16) }
    }

    /// ICU options for JavaScript flags `i`, `m`, `s`.
    static func options(_ flags: String) -> NSRegularExpression.Options {
        var result: NSRegularExpression.Options = []
        if flags.contains("i") { result.insert(.caseInsensitive) }
        if flags.contains("m") { result.insert(.anchorsMatchLines) }
        if flags.contains("s") { result.insert(.dotMatchesLineSeparators) }
        return result
    }
}
