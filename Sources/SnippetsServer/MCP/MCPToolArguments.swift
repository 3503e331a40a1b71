/// A tool's `arguments` object, read with checks whose failures name the argument, so an agent can correct its
/// call (MCP 2025-11-25: input validation failures are tool execution errors, `isError: true`).
struct MCPToolArguments: Sendable {
    /// Why the arguments do not fit the tool's input schema.
    struct Problem: Error, Hashable, Sendable, CustomStringConvertible {
        var description: String
    }

    let tool: String
    private let members: [String: JSONValue]

    /// The arguments of a call to `tool`; any argument not in `accepted` is refused by name.
    init(tool: String, arguments: [String: JSONValue], accepted: [String]) throws(Problem) {
        self.tool = tool
        members = arguments
        if let unknown = arguments.keys.sorted().first(where: { !accepted.contains($0) }) {
            throw Problem(
                description: "\(tool): unknown argument '\(Self.shortened(unknown))'; it takes \(accepted.map { "'\($0)'" }.listed(conjunction: "and"))")
        }
    }

    /// The string argument `name`: nil when absent (or null) and not `required`; at most `maximumLength` characters.
    func string(_ name: String, required: Bool = false, maximumLength: Int) throws(Problem) -> String? {
        switch members[name] {
        case nil, .null?:
            if required { throw Problem(description: "\(tool): missing required argument '\(name)'") }
            return nil
        case .string(let text)?:
            // In Unicode scalars, as JSON Schema counts; a huge argument is refused by its byte count without a walk.
            if text.utf8.count > maximumLength * 4 || text.unicodeScalars.count > maximumLength {
                throw Problem(description: "\(tool): '\(name)' is longer than \(maximumLength) characters (\(text.utf8.count) bytes)")
            }
            return text
        case let other?:
            throw Problem(description: "\(tool): '\(name)' must be a string, not \(Self.kind(of: other))")
        }
    }

    /// The integer argument `name` within `range`; nil when absent.
    func integer(_ name: String, in range: ClosedRange<Int>) throws(Problem) -> Int? {
        switch members[name] {
        case nil, .null?:
            return nil
        case let value?:
            guard let number = value.intValue else {
                throw Problem(description: "\(tool): '\(name)' must be a whole number, not \(Self.kind(of: value))")
            }
            guard range.contains(number) else {
                throw Problem(description: "\(tool): '\(name)' must be from \(range.lowerBound) to \(range.upperBound), not \(number)")
            }
            return number
        }
    }

    private static func kind(of value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool: "a boolean"
        case .int, .double: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    /// A name from the client, cut so a 10 MB name is not echoed back whole.
    static func shortened(_ text: String) -> String {
        text.count > 100 ? text.prefix(100) + "…" : text
    }
}
