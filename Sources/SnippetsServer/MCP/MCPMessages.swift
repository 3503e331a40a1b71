import SnippetsCore

/// MCP wire types (revision `MCPServer.protocolVersion`), the subset this server speaks.
enum MCP {
    /// `initialize` result.
    struct InitializeResult: Encodable, Sendable {
        struct Capabilities: Encodable, Sendable {
            struct Tools: Encodable, Sendable { var listChanged = false }
            struct Resources: Encodable, Sendable {
                var subscribe = true
                var listChanged = true
            }
            var tools = Tools()
            var resources = Resources()
        }
        struct Implementation: Encodable, Sendable {
            var name: String
            var title: String
            var version: String
        }
        var protocolVersion: String
        var capabilities = Capabilities()
        var serverInfo: Implementation
        var instructions: String
    }

    /// What a tool promises about its effects (hints for the client; never trusted by it for safety).
    struct ToolAnnotations: Encodable, Sendable {
        var title: String
        var readOnlyHint: Bool
        var destructiveHint: Bool
        var idempotentHint: Bool
        var openWorldHint: Bool
    }

    /// One entry of `tools/list`.
    struct Tool: Encodable, Sendable {
        var name: String
        var title: String
        var description: String
        var inputSchema: JSONValue
        var outputSchema: JSONValue
        var annotations: ToolAnnotations
    }

    /// `tools/list` result.
    struct ListToolsResult: Encodable, Sendable {
        var tools: [Tool]
    }

    /// A text content block.
    struct TextContent: Encodable, Sendable {
        var type = "text"
        var text: String
    }

    /// `tools/call` result: the structured content its output schema describes, and a short text rendering of it.
    struct CallToolResult: Encodable, Sendable {
        var content: [TextContent]
        var structuredContent: JSONValue?
        var isError: Bool?

        /// A tool execution error: what went wrong, for the agent to read and correct.
        static func error(_ message: String) -> CallToolResult {
            CallToolResult(content: [TextContent(text: message)], structuredContent: nil, isError: true)
        }
    }

    /// One entry of `resources/list`.
    struct Resource: Encodable, Sendable {
        var uri: String
        var name: String
        var title: String
        var description: String
        var mimeType: String
    }

    /// `resources/list` result.
    struct ListResourcesResult: Encodable, Sendable {
        var resources: [Resource]
        var nextCursor: String?
    }

    /// One content of `resources/read`.
    struct TextResourceContents: Encodable, Sendable {
        var uri: String
        var mimeType: String
        var text: String
    }

    /// `resources/read` result.
    struct ReadResourceResult: Encodable, Sendable {
        var contents: [TextResourceContents]
    }

    /// `resources/templates/list` result.
    struct ListResourceTemplatesResult: Encodable, Sendable {
        struct Template: Encodable, Sendable {
            var uriTemplate: String
            var name: String
            var title: String
            var description: String
            var mimeType: String
        }
        var resourceTemplates: [Template]
    }

    /// -32002: a resource that does not exist (the spec's code for `resources/read`).
    static func resourceNotFound(_ uri: String) -> ResponseError {
        ResponseError(
            code: -32002, message: "Resource not found: \(uri.count > 200 ? uri.prefix(200) + "…" : uri)", data: ["uri": .string(String(uri.prefix(200)))])
    }
}

/// The `snippet://` URI of a snippet: its id, which is stable across reloads while its file and key stay.
enum SnippetResourceURI {
    static let scheme = "snippet://"

    static func uri(of id: SnippetID) -> String { scheme + id.rawValue }

    /// The id a `snippet://` URI names, or nil for any other URI.
    static func id(in uri: String) -> SnippetID? {
        guard uri.hasPrefix(scheme) else { return nil }
        let id = uri.dropFirst(scheme.count)
        guard !id.isEmpty, id.count <= 64, id.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else { return nil }
        return SnippetID(rawValue: String(id))
    }
}
