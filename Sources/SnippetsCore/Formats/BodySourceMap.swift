/// Maps UTF-16 offsets in a snippet body as the loader produced it (decoded JSON string, joined array lines,
/// converted SnipMate text) back to UTF-8 offsets in the file, so body problems point at the right character.
struct BodySourceMap: Sendable {
    /// Where a stretch of body text came from.
    struct Anchor: Sendable {
        /// UTF-16 offset in the body where the stretch starts.
        var outputUTF16: Int
        /// UTF-8 offset in the file where it came from.
        var sourceUTF8: Int
        /// Whether the stretch is the file's text copied unchanged (so offsets inside it map one to one);
        /// otherwise (an escape, a conversion, a joining line break) everything in it maps to `sourceUTF8`.
        var isVerbatim: Bool
    }

    private(set) var anchors: [Anchor] = []

    init(anchors: [Anchor] = []) {
        self.anchors = anchors
    }

    mutating func append(_ anchor: Anchor) {
        if let last = anchors.last, last.outputUTF16 == anchor.outputUTF16 {
            anchors[anchors.count - 1] = anchor
        } else {
            anchors.append(anchor)
        }
    }

    mutating func append(contentsOf other: [Anchor]) {
        for anchor in other { append(anchor) }
    }

    /// The file's UTF-8 offset for the body's UTF-16 `offset`.
    func sourceOffset(ofBodyUTF16 offset: Int, in table: LineTable) -> Int {
        var low = 0
        var high = anchors.count - 1
        guard high >= 0 else { return 0 }
        if offset < anchors[0].outputUTF16 { return anchors[0].sourceUTF8 }
        while low < high {
            let middle = (low + high + 1) / 2
            if anchors[middle].outputUTF16 <= offset { low = middle } else { high = middle - 1 }
        }
        let anchor = anchors[low]
        guard anchor.isVerbatim else { return anchor.sourceUTF8 }
        return table.utf8Offset(advancing: offset - anchor.outputUTF16, in: .utf16, from: anchor.sourceUTF8)
    }
}
