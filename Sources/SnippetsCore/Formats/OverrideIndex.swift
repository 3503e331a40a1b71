/// The snippets an override may remove, found by what overrides look for (format, scopes, trigger), so
/// `LibraryLoader` resolves each `snippet!`, `snippet!!` and `clearsnippets` in time proportional to what it removes,
/// never to the snippets before it. Each queue is consumed from its front: an entry passed over is removed or was
/// already, so every entry is looked at once per queue over a whole load.
struct OverrideIndex {
    /// A snippet's place: its file's index in load order and its index in that file.
    struct Position: Comparable, Hashable {
        var file: Int
        var snippet: Int

        static func < (left: Self, right: Self) -> Bool {
            (left.file, left.snippet) < (right.file, right.snippet)
        }
    }

    /// What an override names; a nil trigger is `clearsnippets` without one (every snippet of the scopes).
    private struct Key: Hashable {
        var format: SnippetFormat
        var scopes: [String]
        var trigger: String?
    }

    private struct Queue {
        var entries: [(priority: Int, position: Position)] = []
        var head = 0
    }

    /// Snippets with exactly one trigger, in load order (what `snippet!` replaces: the earlier ones).
    private var inLoadOrder: [Key: Queue] = [:]
    /// Snippets with exactly one trigger by that trigger, and every snippet under a nil trigger, lowest priority
    /// first (what `clearsnippets` removes: those at or below its priority).
    private var byPriority: [Key: Queue] = [:]

    init(files: [SnippetFile]) {
        for (fileIndex, file) in files.enumerated() {
            for (snippetIndex, snippet) in file.snippets.enumerated() {
                let entry = (priority: snippet.priority, position: Position(file: fileIndex, snippet: snippetIndex))
                if snippet.triggers.count == 1 {
                    let key = Key(format: file.format, scopes: snippet.scopes, trigger: snippet.triggers[0])
                    inLoadOrder[key, default: Queue()].entries.append(entry)
                    byPriority[key, default: Queue()].entries.append(entry)
                }
                byPriority[Key(format: file.format, scopes: snippet.scopes, trigger: nil), default: Queue()].entries.append(entry)
            }
        }
        for key in byPriority.keys {
            byPriority[key]?.entries.sort { ($0.priority, $0.position) < ($1.priority, $1.position) }
        }
    }

    /// The snippets `snippet!` (or `snippet!!`) replaces: those not yet removed with exactly `trigger`, in `scopes`,
    /// of `format`, placed before `bound`, in load order.
    mutating func takeReplaced(format: SnippetFormat, scopes: [String], trigger: String, before bound: Position, removed: [Int: Set<Int>]) -> [Position] {
        let key = Key(format: format, scopes: scopes, trigger: trigger)
        // Taken out and put back, so the queue is changed in place rather than copied.
        guard var queue = inLoadOrder.removeValue(forKey: key) else { return [] }
        var victims: [Position] = []
        while queue.head < queue.entries.count, queue.entries[queue.head].position < bound {
            let position = queue.entries[queue.head].position
            queue.head += 1
            if removed[position.file]?.contains(position.snippet) != true { victims.append(position) }
        }
        inLoadOrder[key] = queue
        return victims
    }

    /// The snippets `clearsnippets` removes: those not yet removed in `scopes` of `format`, with exactly `trigger`
    /// (any, when it is empty), at or below `priority`, wherever they are, in load order.
    mutating func takeCleared(format: SnippetFormat, scopes: [String], trigger: String, upTo priority: Int, removed: [Int: Set<Int>]) -> [Position] {
        let key = Key(format: format, scopes: scopes, trigger: trigger.isEmpty ? nil : trigger)
        guard var queue = byPriority.removeValue(forKey: key) else { return [] }
        var victims: [Position] = []
        while queue.head < queue.entries.count, queue.entries[queue.head].priority <= priority {
            let position = queue.entries[queue.head].position
            queue.head += 1
            if removed[position.file]?.contains(position.snippet) != true { victims.append(position) }
        }
        byPriority[key] = queue
        return victims.sorted()
    }
}
