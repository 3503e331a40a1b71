/// One option a command takes, declared once: its name, the value it takes and its help. Parsing
/// (`CommandOptions.parse`), the usage line and the options list of `--help`, and the wording of a bad value all come
/// from here.
public struct CommandOption: Sendable, Hashable {
    /// What follows the option's name.
    public enum Value: Sendable, Hashable {
        /// Nothing: a flag.
        case none
        /// Any text, shown in help as `placeholder` (`PATH`, `ID`).
        case text(placeholder: String)
        /// A whole number from `minimum` to `maximum` (no upper bound when nil), shown as `placeholder`.
        case wholeNumber(placeholder: String, minimum: Int, maximum: Int?)
    }

    /// `--library`.
    public var name: String
    /// Another spelling (`-h` for `--help`).
    public var alias: String?
    public var value: Value
    /// Whether it may be given several times (the usage line says `...`).
    public var isRepeatable: Bool
    /// What `--help` says about it: one paragraph, wrapped when printed.
    public var help: String

    /// An option called `name` taking `value`, described by `help`.
    public init(_ name: String, alias: String? = nil, value: Value = .none, repeatable: Bool = false, help: String) {
        self.name = name
        self.alias = alias
        self.value = value
        self.isRepeatable = repeatable
        self.help = help
    }

    /// Whether a value follows the option.
    public var takesValue: Bool { value != .none }

    /// `--library PATH`, as usage and help show it.
    public var label: String {
        switch value {
        case .none: name
        case .text(let placeholder), .wholeNumber(let placeholder, _, _): "\(name) \(placeholder)"
        }
    }

    /// This option with other help (a command whose default differs says so).
    public func withHelp(_ help: String) -> CommandOption {
        var copy = self
        copy.help = help
        return copy
    }

    /// `-h`, `--help`: every command takes it.
    public static let help = CommandOption("--help", alias: "-h", help: "Show this help.")

    /// `--json`: the output as JSON instead of text; `help` says what the JSON holds. Read with
    /// `ParsedArguments.wantsJSON`.
    public static func json(_ help: String) -> CommandOption { CommandOption(jsonName, help: help) }
    static let jsonName = "--json"

    /// `--no-learning`: learned words and the gap log off for this run; `help` says what the command leaves out.
    /// Read with `ParsedArguments.isLearningOff`.
    public static func noLearning(_ help: String) -> CommandOption { CommandOption(noLearningName, help: help) }
    static let noLearningName = "--no-learning"

    /// What a bad value is expected to be, as the error says it.
    var expectation: String? {
        switch value {
        case .none, .text: nil
        case .wholeNumber(_, let minimum, let maximum?): "a whole number from \(minimum) to \(maximum)"
        case .wholeNumber(_, 1, nil): "a positive whole number"
        case .wholeNumber(_, let minimum, nil): "a whole number of at least \(minimum)"
        }
    }
}

/// A command's declared options, in the order help lists them; groups shared by several commands
/// (`LibraryOptions`, `ModelOptions`) are added whole.
public struct CommandOptions: Sendable {
    public var options: [CommandOption]
    /// What the usage line shows instead of listing the options one by one (`[--model-url URL ...]`).
    public var usageSummary: String?

    /// These options.
    public init(_ options: [CommandOption], usageSummary: String? = nil) {
        self.options = options
        self.usageSummary = usageSummary
    }

    /// The option called `name` (or with that alias).
    public func option(_ name: String) -> CommandOption? {
        options.first { $0.name == name || $0.alias == name }
    }

    /// Reads `arguments` against these options (`--help` among them): values, flags, positionals; after `--` every
    /// argument is a positional.
    public func parse(_ arguments: [String]) throws(ArgumentError) -> ParsedArguments {
        let all = options + [.help]
        var optionNames: Set<String> = []
        var flagNames: Set<String> = []
        for option in all {
            let names = [option.name] + (option.alias.map { [$0] } ?? [])
            if option.takesValue { optionNames.formUnion(names) } else { flagNames.formUnion(names) }
        }
        var parsed = try ParsedArguments(arguments, options: optionNames, flags: flagNames)
        parsed.declared = self
        return parsed
    }

    /// Whether `arguments` ask for help: `--help` or `-h` where an option may stand, so not after `--` (a question
    /// such as `ask -- how do I use --help`) and not as another option's value.
    public func asksForHelp(_ arguments: [String]) -> Bool {
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if argument == "--" { return false }
            if argument == CommandOption.help.name || argument == CommandOption.help.alias { return true }
            if let option = option(argument), option.takesValue { index += 1 }
        }
        return false
    }

    /// `[--library PATH]...`, `[--json]`: every option but `--help`, or the summary, as the usage line shows them.
    public var usageParts: [String] {
        if let usageSummary { return [usageSummary] }
        return options.map { "[\($0.label)]" + ($0.isRepeatable ? "..." : "") }
    }

    /// `Usage: snippets-lsp COMMAND ARGUMENTS [OPTION]...` for a command taking `groups`, wrapped under its start.
    public static func usage(_ command: String, arguments: String = "", _ groups: [CommandOptions], width: Int = 116) -> String {
        let head = "Usage: snippets-lsp \(command)" + (arguments.isEmpty ? "" : " \(arguments)")
        let indent = String(repeating: " ", count: "Usage: snippets-lsp \(command) ".count)
        var lines: [String] = []
        var line = head
        for part in groups.flatMap(\.usageParts) {
            if line.count + 1 + part.count > width, line != head {
                lines.append(line)
                line = indent + part
            } else {
                line += " " + part
            }
        }
        lines.append(line)
        return lines.joined(separator: "\n")
    }

    /// The options as `--help` lists them: each label in a column, its help wrapped beside it.
    public func helpText(width: Int = 116) -> String {
        let shown = options + (usageSummary == nil ? [.help] : [])
        let labels = shown.map { option in option.alias.map { "\($0), \(option.name)" } ?? option.label }
        let column = 2 + (labels.map(\.count).max() ?? 0) + 3
        var lines: [String] = []
        for (option, label) in zip(shown, labels) {
            let wrapped = Self.wrap(option.help, width: width - column)
            for (number, line) in wrapped.enumerated() {
                let lead = number == 0 ? "  " + label : ""
                lines.append(lead.padding(toLength: column, withPad: " ", startingAt: 0) + line)
            }
        }
        return lines.joined(separator: "\n")
    }

    /// These options followed by `other`'s.
    public static func + (lhs: CommandOptions, rhs: CommandOptions) -> CommandOptions {
        CommandOptions(lhs.options + rhs.options)
    }

    /// `text` in lines of at most `width` characters, broken at spaces.
    static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ", omittingEmptySubsequences: true) {
            if !line.isEmpty, line.count + 1 + word.count > width {
                lines.append(line)
                line = ""
            }
            line += (line.isEmpty ? "" : " ") + word
        }
        if !line.isEmpty || lines.isEmpty { lines.append(line) }
        return lines
    }
}
