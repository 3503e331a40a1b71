/// A static look at a transform's JavaScript regular expression for the shapes whose backtracking grows faster than
/// the text: a repeated group whose alternatives can match the same text (`(a|a)*`, `(a|ab)+`), a repeated group
/// holding a repeat that nothing in the group separates from the next round (`(a+)+`, `(a*)*`, `(\w+\s?)*`,
/// `(.*,)*`), and three repeats of overlapping text side by side (`(.*)(.*)(.*)`). `check` warns of them:
/// the server runs transforms under `RegexBudget`, but an editor runs them without limits.
///
/// The look is conservative about characters (a class it cannot read is any character), and bounded: sets are
/// coarsened past 64 ranges, a sequence compares at most 64 repeats, nesting past 64 levels is not read.
enum RegexBacktracking {
    /// A phrase saying why `source` (with `flags`) backtracks super-linearly, for "Transform … <phrase>", or nil.
    static func hazard(source: String, flags: String) -> String? {
        var parser = Parser(units: Array(source.utf16), ignoresCase: flags.contains("i"))
        guard let alternatives = parser.parseAlternatives(), parser.index == parser.units.count else { return nil }
        return Analysis().hazard(in: alternatives)
    }

    /// Characters as sorted, disjoint UTF-16 ranges.
    struct CharacterSet: Equatable {
        var ranges: [ClosedRange<UInt16>]

        static let any = CharacterSet(ranges: [0...0xFFFF])
        static let digit = CharacterSet(ranges: [0x30...0x39])
        static let word = CharacterSet(ranges: [0x30...0x39, 0x41...0x5A, 0x5F...0x5F, 0x61...0x7A])
        static let space = CharacterSet(ranges: [
            0x09...0x0D, 0x20...0x20, 0xA0...0xA0, 0x1680...0x1680, 0x2000...0x200A, 0x2028...0x2029,
            0x202F...0x202F, 0x205F...0x205F, 0x3000...0x3000, 0xFEFF...0xFEFF,
        ])

        init(ranges: [ClosedRange<UInt16>]) {
            let sorted = ranges.sorted { $0.lowerBound < $1.lowerBound }
            var merged: [ClosedRange<UInt16>] = []
            for range in sorted {
                if let last = merged.last, Int(range.lowerBound) <= Int(last.upperBound) + 1 {
                    merged[merged.count - 1] = last.lowerBound...max(last.upperBound, range.upperBound)
                } else {
                    merged.append(range)
                }
            }
            // Coarsened to its hull past 64 ranges: a superset, so overlaps are only ever over-reported.
            if merged.count > 64, let first = merged.first, let last = merged.last {
                merged = [first.lowerBound...last.upperBound]
            }
            self.ranges = merged
        }

        var inverted: CharacterSet {
            var result: [ClosedRange<UInt16>] = []
            var next = 0
            for range in ranges {
                if Int(range.lowerBound) > next { result.append(UInt16(next)...(range.lowerBound - 1)) }
                next = Int(range.upperBound) + 1
            }
            if next <= 0xFFFF { result.append(UInt16(next)...0xFFFF) }
            return CharacterSet(ranges: result)
        }

        func union(_ other: CharacterSet) -> CharacterSet { CharacterSet(ranges: ranges + other.ranges) }

        func overlaps(_ other: CharacterSet) -> Bool {
            var left = 0
            var right = 0
            while left < ranges.count, right < other.ranges.count {
                let a = ranges[left]
                let b = other.ranges[right]
                if a.overlaps(b) { return true }
                if a.upperBound < b.upperBound { left += 1 } else { right += 1 }
            }
            return false
        }

        /// With both cases of every ASCII letter (the `i` flag).
        var caseFolded: CharacterSet {
            var extra: [ClosedRange<UInt16>] = []
            for range in ranges {
                for (from, to) in [(UInt16(0x41), UInt16(0x61)), (UInt16(0x61), UInt16(0x41))] {
                    let low = max(range.lowerBound, from)
                    let high = min(range.upperBound, from + 25)
                    if low <= high { extra.append((low - from + to)...(high - from + to)) }
                }
            }
            return extra.isEmpty ? self : CharacterSet(ranges: ranges + extra)
        }
    }

    /// One quantified item of a sequence.
    struct Item {
        enum Node {
            /// One character of the set.
            case atom(CharacterSet)
            /// A group's alternatives.
            case group([[Item]])
            /// Matches no character (`^`, `$`, `\b`, a lookaround).
            case assertion
        }

        var node: Node
        var minimum = 1
        /// Nil for no upper bound.
        var maximum: Int? = 1

        /// Whether it can match different numbers of rounds.
        var varies: Bool { maximum != minimum }
        /// Whether it can match more than one round.
        var repeats: Bool { maximum.map { $0 > 1 } ?? true }
        /// Whether the text it matches can differ in length (conservatively, for a group of several alternatives).
        var variesInLength: Bool {
            if varies { return true }
            guard case .group(let alternatives) = node else { return false }
            return alternatives.count > 1 || alternatives.joined().contains(where: \.variesInLength)
        }

        /// Every character it can match.
        var characters: CharacterSet {
            switch node {
            case .atom(let set): set
            case .assertion: CharacterSet(ranges: [])
            case .group(let alternatives):
                alternatives.joined().reduce(CharacterSet(ranges: [])) { $0.union($1.characters) }
            }
        }
    }

    /// A recursive-descent reader of JavaScript regex syntax, enough to see its structure.
    struct Parser {
        let units: [UInt16]
        let ignoresCase: Bool
        var index = 0
        var depth = 0

        func unit(_ offset: Int) -> UInt16? { offset < units.count ? units[offset] : nil }

        mutating func parseAlternatives() -> [[Item]]? {
            depth += 1
            defer { depth -= 1 }
            guard depth <= 64 else { return nil }
            var alternatives: [[Item]] = [[]]
            while let current = unit(index) {
                switch current {
                case 0x7C:  // |
                    index += 1
                    alternatives.append([])
                case 0x29:  // )
                    return alternatives
                default:
                    guard var item = parseAtom() else { return nil }
                    parseQuantifier(into: &item)
                    alternatives[alternatives.count - 1].append(item)
                }
            }
            return alternatives
        }

        private mutating func set(_ set: CharacterSet) -> Item {
            Item(node: .atom(ignoresCase ? set.caseFolded : set))
        }

        private mutating func parseAtom() -> Item? {
            guard let current = unit(index) else { return nil }
            index += 1
            switch current {
            case 0x5E, 0x24:  // ^ $
                return Item(node: .assertion)
            case 0x2E:  // .
                return Item(node: .atom(.any))
            case 0x5C:  // backslash
                return escape(insideClass: false).map { set($0) } ?? Item(node: .assertion)
            case 0x5B:  // [
                return parseClass().map { set($0) }
            case 0x28:  // (
                var isLookaround = false
                if unit(index) == 0x3F {  // ?
                    index += 1
                    switch unit(index) {
                    case 0x3A: index += 1  // (?:
                    case 0x3D, 0x21:  // (?= (?!
                        index += 1
                        isLookaround = true
                    case 0x3C:  // (?<= (?<! (?<name>
                        index += 1
                        if unit(index) == 0x3D || unit(index) == 0x21 {
                            index += 1
                            isLookaround = true
                        } else {
                            while let name = unit(index), name != 0x3E { index += 1 }
                            index += 1
                        }
                    default: return nil
                    }
                }
                guard let alternatives = parseAlternatives(), unit(index) == 0x29 else { return nil }
                index += 1
                return isLookaround ? Item(node: .assertion) : Item(node: .group(alternatives))
            default:
                return set(CharacterSet(ranges: [current...current]))
            }
        }

        /// The set an escape after its backslash stands for; nil for an assertion (`\b`, `\B`).
        private mutating func escape(insideClass: Bool) -> CharacterSet? {
            guard let next = unit(index) else { return CharacterSet(ranges: [0x5C...0x5C]) }
            index += 1
            switch next {
            case 0x64: return .digit  // d
            case 0x44: return CharacterSet.digit.inverted
            case 0x77: return .word  // w
            case 0x57: return CharacterSet.word.inverted
            case 0x73: return .space  // s
            case 0x53: return CharacterSet.space.inverted
            case 0x62: return insideClass ? CharacterSet(ranges: [0x08...0x08]) : nil  // \b
            case 0x42: return insideClass ? CharacterSet(ranges: [0x42...0x42]) : nil
            case 0x6E: return CharacterSet(ranges: [0x0A...0x0A])
            case 0x74: return CharacterSet(ranges: [0x09...0x09])
            case 0x72: return CharacterSet(ranges: [0x0D...0x0D])
            case 0x66: return CharacterSet(ranges: [0x0C...0x0C])
            case 0x76: return CharacterSet(ranges: [0x0B...0x0B])
            case 0x31...0x39, 0x6B, 0x70, 0x50, 0x75, 0x78, 0x63:
                // Back-references, \k<name>, \p{…}, \u…, \x…, \c…: read as any character.
                while let digit = unit(index), next >= 0x31 && next <= 0x39, digit >= 0x30 && digit <= 0x39 { index += 1 }
                return .any
            default:
                return CharacterSet(ranges: [next...next])
            }
        }

        /// A `[…]` class after its `[`; nil when it never closes.
        private mutating func parseClass() -> CharacterSet? {
            var negated = false
            if unit(index) == 0x5E {
                negated = true
                index += 1
            }
            var ranges: [ClosedRange<UInt16>] = []
            var first = true
            while let current = unit(index) {
                if current == 0x5D && !first {
                    index += 1
                    let set = CharacterSet(ranges: ranges)
                    return negated ? set.inverted : set
                }
                first = false
                index += 1
                var low: UInt16
                if current == 0x5C {
                    let escaped = escape(insideClass: true) ?? .any
                    guard escaped.ranges.count == 1, escaped.ranges[0].count == 1 else {
                        ranges += escaped.ranges
                        continue
                    }
                    low = escaped.ranges[0].lowerBound
                } else {
                    low = current
                }
                if unit(index) == 0x2D, let high = unit(index + 1), high != 0x5D, high != 0x5C, high >= low {
                    index += 2
                    ranges.append(low...high)
                } else {
                    ranges.append(low...low)
                }
            }
            return nil
        }

        private mutating func parseQuantifier(into item: inout Item) {
            guard let current = unit(index) else { return }
            switch current {
            case 0x2A: (item.minimum, item.maximum) = (0, nil)  // *
            case 0x2B: (item.minimum, item.maximum) = (1, nil)  // +
            case 0x3F: (item.minimum, item.maximum) = (0, 1)  // ?
            case 0x7B:  // {n}, {n,}, {n,m}; any other `{` is a literal
                var cursor = index + 1
                func number() -> Int? {
                    let start = cursor
                    var value = 0
                    while let digit = unit(cursor), digit >= 0x30 && digit <= 0x39 {
                        value = min(value * 10 + Int(digit - 0x30), 1 << 20)
                        cursor += 1
                    }
                    return cursor > start ? value : nil
                }
                guard let low = number() else { return }
                var high: Int? = low
                if unit(cursor) == 0x2C {
                    cursor += 1
                    high = number()
                }
                guard unit(cursor) == 0x7D else { return }
                index = cursor
                (item.minimum, item.maximum) = (low, high)
            default:
                return
            }
            index += 1
            if unit(index) == 0x3F { index += 1 }  // lazy
        }
    }

    /// The checks over a parsed pattern.
    struct Analysis {
        func hazard(in alternatives: [[Item]]) -> String? {
            for sequence in alternatives {
                if let found = hazard(in: sequence) { return found }
            }
            return nil
        }

        private func hazard(in sequence: [Item]) -> String? {
            for item in sequence {
                guard case .group(let alternatives) = item.node else { continue }
                if item.repeats, let found = repeatedGroupHazard(alternatives) { return found }
                if let found = hazard(in: alternatives) { return found }
            }
            return adjacentRepeatsHazard(flattened(sequence))
        }

        /// A group repeated by a quantifier: ambiguous alternatives, or an inner repeat nothing delimits.
        private func repeatedGroupHazard(_ alternatives: [[Item]]) -> String? {
            let firsts = alternatives.prefix(64).map(firstCharacters)
            for (offset, first) in firsts.enumerated() {
                for other in firsts[(offset + 1)...] where first.overlaps(other) {
                    return "repeats a group whose alternatives can match the same text"
                }
            }
            for sequence in alternatives {
                let round = flattened(sequence).filter { if case .assertion = $0.node { false } else { true } }
                    .prefix(64)
                guard !round.isEmpty else { continue }
                if round.allSatisfy({ $0.minimum == 0 }) {
                    return "repeats a group that can match the empty text"
                }
                // Each item against the items that can follow it, within the round and into the next one (skipping
                // optional ones): where one of the two varies in length and both can match the same character, a
                // text splits between them in more than one way, and the rounds multiply the splits.
                let items = Array(round)
                let characters = items.map(\.characters)
                for (offset, item) in items.enumerated() {
                    var step = 1
                    while step <= items.count {
                        let next = (offset + step) % items.count
                        if (item.variesInLength || items[next].variesInLength)
                            && characters[offset].overlaps(characters[next])
                        {
                            return "repeats a group holding a repeat that can match the same text in more than one way"
                        }
                        guard items[next].minimum == 0 else { break }
                        step += 1
                    }
                }
            }
            return nil
        }

        /// Three unbounded repeats of overlapping text with nothing required between them (`.*.*.*`): cubic and
        /// worse. Two (`\s*(.*)`, common and quadratic at worst) pass.
        private func adjacentRepeatsHazard(_ sequence: [Item]) -> String? {
            var open: [CharacterSet] = []
            for item in sequence {
                if item.maximum == nil {
                    let characters = item.characters
                    if open.count(where: { $0.overlaps(characters) }) >= 2 {
                        return "has three repeats side by side that can match the same text"
                    }
                    if open.count < 64 { open.append(characters) }
                } else if item.minimum >= 1 {
                    open.removeAll()
                }
            }
            return nil
        }

        /// The sequence with each plain group (one alternative, matched once) spelled out in place.
        private func flattened(_ sequence: [Item]) -> [Item] {
            var result: [Item] = []
            for item in sequence {
                if case .group(let alternatives) = item.node, alternatives.count == 1, item.minimum == 1,
                    item.maximum == 1
                {
                    result += flattened(alternatives[0])
                } else {
                    result.append(item)
                }
            }
            return result
        }

        /// The characters an alternative can start with (conservatively: an empty one starts with anything).
        private func firstCharacters(_ sequence: [Item]) -> CharacterSet {
            var result = CharacterSet(ranges: [])
            for item in sequence {
                if case .assertion = item.node { continue }
                result = result.union(item.characters)
                if item.minimum >= 1 { return result }
            }
            return .any
        }
    }
}
