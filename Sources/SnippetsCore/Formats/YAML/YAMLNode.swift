/// A YAML node read by `YAML.parse`, with the UTF-8 byte range it occupies in its source, so that every key and
/// scalar of a file can be pointed at (as `JSONCValue` does for JSON).
public struct YAMLNode: Sendable {
    /// What the node is; mappings keep their members in source order (duplicates included).
    public enum Kind: Sendable {
        case scalar(YAMLScalar)
        case sequence([YAMLNode])
        case mapping([YAMLMember])
    }

    public var kind: Kind
    /// UTF-8 offsets of the node in the source. An alias (`*name`) is the anchored node itself, so its ranges are
    /// those of the text the anchor names. An empty value is an empty range where the value would start.
    public var range: Range<Int>
    /// How many nodes this one stands for, aliases counted as often as they are used (bounds alias expansion).
    var weight: Int

    init(kind: Kind, range: Range<Int>, weight: Int) {
        self.kind = kind
        self.range = range
        self.weight = weight
    }

    /// The scalar, if this is one.
    public var scalar: YAMLScalar? {
        if case .scalar(let scalar) = kind { return scalar }
        return nil
    }

    /// The scalar's text, if this is a scalar that is not null (a plain empty value, `~` or `null`).
    public var string: String? {
        guard let scalar, !scalar.isNull else { return nil }
        return scalar.value
    }

    /// The items, if this is a sequence.
    public var items: [YAMLNode]? {
        if case .sequence(let items) = kind { return items }
        return nil
    }

    /// The members, if this is a mapping.
    public var members: [YAMLMember]? {
        if case .mapping(let members) = kind { return members }
        return nil
    }

    /// The last member whose key is the scalar `key` (YAML readers let a later duplicate win).
    public func member(_ key: String) -> YAMLMember? {
        members?.last { $0.key.scalar?.value == key }
    }

    /// Whether this is a null: a plain empty value, `~`, or `null` in any of YAML's spellings.
    public var isNull: Bool { scalar?.isNull ?? false }

    /// The node's type as a user would name it ("a string", "a list", ...), for messages.
    public var typeDescription: String {
        switch kind {
        case .scalar(let scalar): scalar.isNull ? "empty" : "a string"
        case .sequence: "a list"
        case .mapping: "a mapping"
        }
    }
}

/// One `key: value` pair of a YAML mapping.
public struct YAMLMember: Sendable {
    /// The key: a scalar in every file this reader accepts.
    public var key: YAMLNode
    public var value: YAMLNode
}

/// A YAML scalar: its value, how it was written, and where each stretch of the value came from.
public struct YAMLScalar: Sendable {
    public enum Style: String, Sendable {
        case plain, singleQuoted, doubleQuoted, literal, folded
    }

    /// The value after unescaping, folding and chomping.
    public var value: String
    public var style: Style
    /// Where stretches of `value` came from: each anchor's `outputUTF16` is a UTF-8 offset in `value` (the type is
    /// shared with body maps); verbatim stretches map one to one.
    var anchors: [BodySourceMap.Anchor]

    /// Whether a plain scalar is YAML's null (`~`, `null`, `Null`, `NULL` or nothing).
    public var isNull: Bool {
        style == .plain && (value.isEmpty || value == "~" || value == "null" || value == "Null" || value == "NULL")
    }

    /// The source UTF-8 offset of the value's UTF-8 offset `offset`.
    public func sourceOffset(ofValueUTF8 offset: Int) -> Int {
        guard !anchors.isEmpty else { return 0 }
        var low = 0
        var high = anchors.count - 1
        if offset < anchors[0].outputUTF16 { return anchors[0].sourceUTF8 }
        while low < high {
            let middle = (low + high + 1) / 2
            if anchors[middle].outputUTF16 <= offset { low = middle } else { high = middle - 1 }
        }
        let anchor = anchors[low]
        return anchor.isVerbatim ? anchor.sourceUTF8 + (offset - anchor.outputUTF16) : anchor.sourceUTF8
    }
}

/// Why a YAML text could not be read, and where.
public struct YAMLSyntaxError: Error, Hashable, Sendable {
    /// UTF-8 offset of the offending byte.
    public var offset: Int
    /// What is wrong, in plain words.
    public var message: String
}
