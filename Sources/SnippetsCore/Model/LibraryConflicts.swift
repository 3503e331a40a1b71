/// Finds what two sources of snippets disagree on, as diagnostics at each definition:
/// - `trigger-conflict` (warning): the same trigger defined twice for the same language, in two layers or in one.
///   Each definition names the other places and which one wins: the first layer wins; within a layer, the higher
///   SnipMate `priority`, then the one loaded first. Completion ranks exact trigger matches the same way.
///   Languages are compared as written (`javascript` and `typescript` are different); `all`, `global` and no
///   scope are one "every language" scope.
/// - `duplicate-body` (hint): the same body (exactly, at least `minimumBodyLength` non-blank characters) under
///   different triggers or titles, so a team can merge them.
///
/// Linear in the number of snippets: definitions are grouped by key in a dictionary, never compared pairwise, and
/// each message names at most `namedPlaces` others.
public enum LibraryConflicts {
    /// Bodies shorter than this (non-blank characters) are too common to be worth a hint (`$0`, `()`).
    public static let minimumBodyLength = 12
    /// How many other places one message names before "and N more".
    public static let namedPlaces = 3

    /// `library` with the conflict diagnostics added to the files that hold the definitions.
    public static func annotating(_ library: SnippetLibrary) -> SnippetLibrary {
        let found = diagnostics(in: library)
        guard !found.isEmpty else { return library }
        var byURI: [String: [LibraryDiagnostic]] = [:]
        for diagnostic in found { byURI[diagnostic.uri, default: []].append(diagnostic) }
        var merged: [String: [LibraryDiagnostic]] = [:]
        for file in library.files {
            guard let added = byURI[file.uri] else { continue }
            merged[file.uri] = (file.diagnostics + added).sorted { $0.position < $1.position }
        }
        return library.withFileDiagnostics(merged)
    }

    /// Every trigger conflict and duplicate body in `library`.
    public static func diagnostics(in library: SnippetLibrary) -> [LibraryDiagnostic] {
        triggerConflictDiagnostics(in: library) + duplicateBodies(in: library)
    }

    private struct TriggerKey: Hashable {
        var trigger: String
        var scope: String
    }

    static func scopeKeys(of snippetScopes: [String]) -> [String] {
        let scopes = snippetScopes.filter { !SnippetLibrary.universalScopes.contains($0) }
        if scopes.isEmpty || scopes.count < snippetScopes.count { return ["*"] + Array(Set(scopes)).sorted() }
        return Array(Set(scopes)).sorted()
    }

    static func describe(scope: String) -> String { scope == "*" ? "every language" : scope }

    /// `path:line` plus the layer, for naming a definition in a message.
    static func place(of snippet: Snippet) -> String {
        let layer = snippet.layer.isEmpty ? "" : " (layer '\(snippet.layer)')"
        return "\(snippet.location.pathAndLine)\(layer)"
    }

    /// The first `namedPlaces` of `members` other than `own`, described, plus "and N more": linear in the places
    /// named, not in the group's size.
    static func names(_ members: [Int], except own: Int, _ describe: (Int) -> String) -> String {
        let shown = members.lazy.filter { $0 != own }.prefix(namedPlaces).map(describe).joined(separator: ", ")
        let total = members.count - 1
        return total > namedPlaces ? shown + " and \(total - namedPlaces) more" : shown
    }

    /// One trigger defined more than once for the same languages.
    public struct TriggerConflict: Hashable, Sendable {
        public var trigger: String
        /// The languages it is defined twice for (`*` for every language).
        public var scopes: [String]
        /// The definitions in precedence order: the first one wins.
        public var definitions: [Snippet]
    }

    /// Every trigger defined more than once for the same language, sorted by the winner's place.
    public static func triggerConflicts(in library: SnippetLibrary) -> [TriggerConflict] {
        let snippets = library.snippets
        return triggerConflictGroups(in: library).map { group in
            TriggerConflict(trigger: group.trigger, scopes: group.scopes, definitions: group.members.map { snippets[$0] })
        }
    }

    /// A trigger conflict as positions in `library.snippets`, in precedence order.
    struct ConflictGroup {
        var trigger: String
        var scopes: [String]
        var members: [Int]
    }

    /// The trigger conflicts of `library`, sorted by the winner's place. Snippets are read field by field, never
    /// copied whole (a copy retains every field, and a large library has many conflicts).
    static func triggerConflictGroups(in library: SnippetLibrary) -> [ConflictGroup] {
        let snippets = library.snippets
        var groups: [TriggerKey: [Int]] = [:]
        for number in snippets.indices {
            let scopes = scopeKeys(of: snippets[number].scopes)
            for trigger in Set(snippets[number].triggers) {
                for scope in scopes {
                    groups[TriggerKey(trigger: trigger, scope: scope), default: []].append(number)
                }
            }
        }
        // The same members under several scopes (a snippet for javascript and typescript, twice) make one conflict.
        var scopesByMembers: [[Int]: (trigger: String, scopes: [String])] = [:]
        for (key, members) in groups where members.count > 1 {
            scopesByMembers[members, default: (key.trigger, [])].scopes.append(key.scope)
        }
        let ranks = library.snippetLayerRanks()
        func precedes(_ lhs: Int, _ rhs: Int) -> Bool {
            if ranks[lhs] != ranks[rhs] { return ranks[lhs] < ranks[rhs] }
            if snippets[lhs].priority != snippets[rhs].priority { return snippets[lhs].priority > snippets[rhs].priority }
            return lhs < rhs
        }
        var conflicts: [ConflictGroup] = []
        conflicts.reserveCapacity(scopesByMembers.count)
        for (members, group) in scopesByMembers {
            conflicts.append(ConflictGroup(trigger: group.trigger, scopes: group.scopes.sorted(), members: members.sorted(by: precedes)))
        }
        conflicts.sort { lhs, rhs in
            lhs.members[0] != rhs.members[0] ? lhs.members[0] < rhs.members[0] : lhs.trigger < rhs.trigger
        }
        return conflicts
    }

    /// `path:line (layer)` of each snippet a message names, each made once: decoding a file URI into a path is
    /// most of a message's cost, so paths are decoded once per file.
    struct Places {
        let snippets: [Snippet]
        private var paths: [String: String] = [:]
        private var made: [Int: String] = [:]

        init(_ snippets: [Snippet]) {
            self.snippets = snippets
        }

        mutating func place(of number: Int) -> String {
            if let known = made[number] { return known }
            let uri = snippets[number].location.uri
            let path: String
            if let known = paths[uri] {
                path = known
            } else {
                path = DocumentURI(uri).displayPath
                paths[uri] = path
            }
            let layer = snippets[number].layer
            let place = SourceLocation.pathAndLine(path: path, line: snippets[number].location.range.start.line)
                + (layer.isEmpty ? "" : " (layer '\(layer)')")
            made[number] = place
            return place
        }
    }

    /// The warning at each definition of each conflict.
    static func triggerConflictDiagnostics(in library: SnippetLibrary) -> [LibraryDiagnostic] {
        let snippets = library.snippets
        var places = Places(snippets)
        var result: [LibraryDiagnostic] = []
        for conflict in triggerConflictGroups(in: library) {
            let members = conflict.members
            let languages = conflict.scopes.map(describe(scope:)).joined(separator: ", ")
            let numbers = Array(members.indices)
            let winner = places.place(of: members[0])
            for number in numbers {
                let others = names(numbers, except: number) { places.place(of: members[$0]) }
                let message: String
                if number == 0 {
                    message = "the trigger '\(conflict.trigger)' (\(languages)) is also defined at \(others); this one wins"
                } else {
                    message = "the trigger '\(conflict.trigger)' (\(languages)) is also defined at \(others); \(winner) wins, so this one only shows after it"
                }
                let location = snippets[members[number]].location
                result.append(LibraryDiagnostic(
                    uri: location.uri, position: location.range.start, severity: .warning,
                    code: .triggerConflict, message: message))
            }
        }
        return result.sorted { ($0.uri, $0.position) < ($1.uri, $1.position) }
    }

    /// Whether `body` holds at least `minimumBodyLength` characters that are not white space. Counting stops there,
    /// and ASCII is classified without a Unicode property lookup (that lookup on every scalar of every body was
    /// most of a load's conflict time).
    static func hasMinimumLength(_ body: String) -> Bool {
        var count = 0
        for scalar in body.unicodeScalars {
            let isWhitespace = scalar.isASCII ? (scalar.value == 0x20 || (0x09...0x0D).contains(scalar.value)) : scalar.properties.isWhitespace
            if !isWhitespace {
                count += 1
                if count >= minimumBodyLength { return true }
            }
        }
        return false
    }

    static func duplicateBodies(in library: SnippetLibrary) -> [LibraryDiagnostic] {
        let snippets = library.snippets
        var groups: [String: [Int]] = [:]
        for number in snippets.indices where hasMinimumLength(snippets[number].body) {
            groups[snippets[number].body, default: []].append(number)
        }
        var places = Places(snippets)
        var result: [LibraryDiagnostic] = []
        for members in groups.values where members.count > 1 {
            // Same title and triggers is a trigger conflict (or the same snippet read twice), not a merge candidate.
            let names = Set(members.map { snippets[$0].title + "\u{0}" + snippets[$0].triggers.joined(separator: "\u{0}") })
            guard names.count > 1 else { continue }
            let sorted = members.sorted()
            for number in sorted {
                let others = LibraryConflicts.names(sorted, except: number) { other in
                    "'\(snippets[other].title)' at \(places.place(of: other))"
                }
                let location = snippets[number].location
                result.append(LibraryDiagnostic(
                    uri: location.uri, position: location.range.start, severity: .hint,
                    code: .duplicateBody,
                    message: "'\(snippets[number].title)' has the same body as \(others); consider merging them"))
            }
        }
        return result.sorted { ($0.uri, $0.position) < ($1.uri, $1.position) }
    }
}
