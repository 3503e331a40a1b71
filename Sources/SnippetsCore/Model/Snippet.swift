/// A stable identifier for a snippet: derived from its file URI and its key in that file, never from an array position,
/// so it survives reloads while the file and the key are unchanged.
public struct SnippetID: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// The identifier for the entry `key` in the file `fileURI`.
    ///
    /// `key` is the VS Code snippet name (with its group, if any) or, for SnipMate, the trigger plus
    /// description plus occurrence number. FNV-1a 64 keeps the identifier short and deterministic across runs.
    public init(fileURI: String, key: String) {
        self.init(file: FileSeed(fileURI: fileURI), key: key)
    }

    /// The identifier for the entry `key` in the file whose seed is `file`: the same as `init(fileURI:key:)`, with
    /// the file's URI hashed once for all its snippets.
    public init(file: FileSeed, key: String) {
        var hash = file.hash
        for byte in key.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        let digits: [UInt8] = Array("0123456789abcdef".utf8)
        rawValue = String(unsafeUninitializedCapacity: 17) { buffer in
            buffer[0] = UInt8(ascii: "s")
            for place in 0..<16 { buffer[16 - place] = digits[Int(hash >> (4 * UInt64(place)) & 0xF)] }
            return 17
        }
    }

    /// The part of an identifier's hash that comes from its file's URI (FNV-1a 64 over the URI and a separator).
    public struct FileSeed: Sendable {
        let hash: UInt64

        public init(fileURI: String) {
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            for byte in fileURI.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
            self.hash = (hash ^ 0) &* 0x100_0000_01b3
        }
    }

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    public static func < (lhs: SnippetID, rhs: SnippetID) -> Bool { lhs.rawValue < rhs.rawValue }
    public var description: String { rawValue }
}

/// The snippet file format an entry was read from: the `format` of one entry of `FormatRegistry` (each format's
/// constant is declared beside its entry). The raw value is what `check --json` prints as a file's `format`.
public struct SnippetFormat: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    public var rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    public var description: String { rawValue }
}

/// One snippet from the user's library, with where it came from.
public struct Snippet: Identifiable, Hashable, Sendable {
    public var id: SnippetID
    /// The human name: the VS Code entry key, or the SnipMate description (the trigger when there is none).
    public var title: String
    /// What the user types to insert it. VS Code allows several prefixes, and none.
    public var triggers: [String]
    public var description: String?
    /// The body in LSP / TextMate snippet syntax (SnipMate bodies are converted to it on load).
    public var body: String
    /// Language identifiers this snippet applies to; empty means global (every language).
    public var scopes: [String]
    public var isFileTemplate: Bool
    /// SnipMate `priority`; 0 elsewhere. Higher wins among equal triggers.
    public var priority: Int
    /// The snippet's entry in its file: exact enough for an editor to jump to.
    public var location: SourceLocation
    public var format: SnippetFormat
    /// The name of the library layer it was loaded from (see `LibraryLayer`); empty for snippets built by hand.
    public var layer: String = ""
    /// Offered only where its trigger starts the line (after indentation): UltiSnips' `b` option.
    public var isLineStartOnly: Bool = false
    /// Offered also where its whole trigger ends the text before the cursor inside a word (`xsr` offers `sr`),
    /// replacing the trigger's characters only: UltiSnips' `i` option.
    public var isInWord: Bool = false
    /// A trigger of several words is matched only once its second word is begun, never by its first word alone, as
    /// UltiSnips matches a trigger by all its words; elsewhere (VS Code's prefixes) the first word offers it too.
    public var triggerNeedsEveryWord: Bool = false
    /// The body takes the case its trigger is typed in (espanso's `propagate_case`, with its `uppercase_style`); nil
    /// where it is inserted as written.
    public var triggerCasing: TriggerCasing? = nil

    public init(
        id: SnippetID,
        title: String,
        triggers: [String],
        description: String? = nil,
        body: String,
        scopes: [String] = [],
        isFileTemplate: Bool = false,
        priority: Int = 0,
        location: SourceLocation,
        format: SnippetFormat
    ) {
        self.id = id
        self.title = title
        self.triggers = triggers
        self.description = description
        self.body = body
        self.scopes = scopes
        self.isFileTemplate = isFileTemplate
        self.priority = priority
        self.location = location
        self.format = format
    }

    /// Whether the snippet applies in every language.
    public var isGlobal: Bool { scopes.isEmpty }
}
