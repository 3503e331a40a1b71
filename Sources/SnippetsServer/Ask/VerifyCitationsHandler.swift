import SnippetsCore

/// `snippets/verifyCitations` params (LSP Extension): citations a client kept from `snippets/ask` answers.
public struct VerifyCitationsParams: Codable, Hashable, Sendable {
    /// One cited snippet as the client kept it: `id` and `contentHash` as `snippets/ask` gave them (other
    /// members of the citation may be sent along and are ignored).
    public struct Citation: Codable, Hashable, Sendable {
        public var id: String
        public var contentHash: String?
        public var layerRevision: String?

        public init(id: String, contentHash: String?, layerRevision: String? = nil) {
            self.id = id
            self.contentHash = contentHash
            self.layerRevision = layerRevision
        }
    }

    /// At most `VerifyCitationsHandler.maximumCitations`.
    public var citations: [Citation]

    public init(citations: [Citation]) { self.citations = citations }
}

/// `snippets/verifyCitations` result: one entry per citation sent, in the same order.
public struct VerifyCitationsResult: Codable, Hashable, Sendable {
    /// What became of one citation.
    public struct Verdict: Codable, Hashable, Sendable {
        public var id: String
        /// `unchanged` (the snippet is there with the same content), `changed` (there, different content: title,
        /// triggers, description, body or scopes), `gone` (no snippet with this id in the library now).
        public var status: String
        /// The snippet's content hash now (absent when gone).
        public var contentHash: String?
        /// Its layer now (absent when gone).
        public var layer: String?
        /// Its layer's revision now (absent when gone or unknown).
        public var layerRevision: String?
        /// Where it is now (absent when gone); columns in the negotiated encoding.
        public var location: LSPLocation?
    }

    public var citations: [Verdict]
}

/// `snippets/verifyCitations` (LSP Extension): tells a client that keeps an answer on screen whether what it cited
/// is still in the library as it was. See `protocol/snippets-verifyCitations.md`.
public enum VerifyCitationsHandler: RequestHandler {
    public static let method = "snippets/verifyCitations"
    public static var serverCapabilities: ServerCapabilities { ServerCapabilities(experimental: ["snippetsVerifyCitations": true]) }
    /// The most citations one request may carry.
    public static let maximumCitations = 1000

    public static func handle(_ params: VerifyCitationsParams, context: RequestContext) async throws -> VerifyCitationsResult {
        guard params.citations.count <= maximumCitations else {
            throw ResponseError.invalidParams(
                "snippets/verifyCitations: \(params.citations.count) citations; the most is \(maximumCitations)")
        }
        guard context.library.generation > 0 else {
            throw ResponseError.requestFailed("snippets/verifyCitations: the snippet library is still loading; ask again in a moment")
        }
        return verify(params, library: context.library.library, encoding: context.positionEncoding)
    }

    /// The verdicts for `params` against `library`.
    public static func verify(_ params: VerifyCitationsParams, library: SnippetLibrary, encoding: PositionEncoding) -> VerifyCitationsResult {
        VerifyCitationsResult(citations: params.citations.map { citation in
            guard let snippet = library.snippet(withID: SnippetID(rawValue: citation.id)) else {
                return .init(id: citation.id, status: "gone")
            }
            let hash = snippet.contentHash
            return .init(
                id: citation.id, status: hash == citation.contentHash ? "unchanged" : "changed", contentHash: hash,
                layer: snippet.layer.isEmpty ? nil : snippet.layer, layerRevision: library.layerRevisions[snippet.layer]?.text,
                location: LSPLocation(sourceLocation: snippet.location, in: encoding))
        })
    }
}
