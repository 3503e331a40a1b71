/// `ServerCapabilities.executeCommandProvider`: the commands `workspace/executeCommand` runs.
public struct ExecuteCommandOptions: Codable, Hashable, Sendable {
    public var commands: [String]

    public init(commands: [String]) {
        self.commands = commands
    }
}
