/// The argument reader under `CommandOptions.parse`: `--flag`, `--option VALUE`, `--option=VALUE`, repeated options
/// and positionals. Errors name the offending argument.
public struct ParsedArguments: Sendable {
    public private(set) var positionals: [String] = []
    public private(set) var options: [String: [String]] = [:]
    public private(set) var flags: Set<String> = []
    /// The declared options these were read against (`CommandOptions.parse`), for their value types.
    var declared: CommandOptions?

    /// Reads `arguments`. `optionNames` take a value, `flagNames` don't; anything else starting with `-` is an error.
    public init(_ arguments: [String], options optionNames: Set<String>, flags flagNames: Set<String>) throws(ArgumentError) {
        var index = 0
        var onlyPositionals = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if onlyPositionals || !argument.hasPrefix("-") || argument == "-" {
                positionals.append(argument)
                continue
            }
            if argument == "--" {
                onlyPositionals = true
                continue
            }
            var name = argument
            var inlineValue: String?
            if let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inlineValue = String(argument[argument.index(after: equals)...])
            }
            if flagNames.contains(name) {
                guard inlineValue == nil else { throw .unexpectedValue(name) }
                flags.insert(name)
            } else if optionNames.contains(name) {
                if let inlineValue {
                    options[name, default: []].append(inlineValue)
                } else if index < arguments.count {
                    options[name, default: []].append(arguments[index])
                    index += 1
                } else {
                    throw .missingValue(name)
                }
            } else {
                throw .unknownOption(argument)
            }
        }
    }

    /// The last value given for `name`.
    public func value(_ name: String) -> String? {
        assertDeclared(name)
        return options[name]?.last
    }
    /// Every value given for `name`, in order.
    public func values(_ name: String) -> [String] {
        assertDeclared(name)
        return options[name] ?? []
    }
    public func has(_ flag: String) -> Bool {
        assertDeclared(flag)
        return flags.contains(flag)
    }

    /// `--json` was given (`CommandOption.json`).
    public var wantsJSON: Bool { has(CommandOption.jsonName) }
    /// `--no-learning` was given (`CommandOption.noLearning`).
    public var isLearningOff: Bool { has(CommandOption.noLearningName) }

    /// Whether the command declared `name` (code shared by several commands reads an option only where it is).
    public func declares(_ name: String) -> Bool { declared.map { $0.option(name) != nil } ?? true }

    /// A command reads only what it declared: a name misspelt, or an option taken out of the declarations but still
    /// read, would otherwise read as never given. Checked in debug builds, which every test runs.
    private func assertDeclared(_ name: String) {
        assert(declared.map { $0.option(name) != nil || name == CommandOption.help.name } ?? true, "\(name) is read but not declared")
    }

    /// The whole-number value of the declared option `name` (`CommandOption.Value.wholeNumber`), nil when absent;
    /// the error says the declared range.
    public func wholeNumber(_ name: String) throws(ArgumentError) -> Int? {
        guard let text = value(name) else { return nil }
        var (minimum, maximum): (Int, Int?) = (Int.min, nil)
        if case .wholeNumber(_, let low, let high)? = declared?.option(name)?.value { (minimum, maximum) = (low, high) }
        guard let number = Int(text), number >= minimum, maximum.map({ number <= $0 }) ?? true else {
            throw .invalidValue(name, text, declared?.option(name)?.expectation ?? "a whole number")
        }
        return number
    }

    /// The value of `name` as a positive integer, or nil when absent.
    public func positiveInteger(_ name: String) throws(ArgumentError) -> Int? {
        guard let text = value(name) else { return nil }
        guard let number = Int(text), number > 0 else { throw .invalidValue(name, text, "a positive whole number") }
        return number
    }
}

/// A command-line mistake, phrased for the person who made it.
public enum ArgumentError: Error, Equatable, CustomStringConvertible {
    case unknownOption(String)
    case missingValue(String)
    case unexpectedValue(String)
    case invalidValue(String, String, String)
    case missingArgument(String)
    case tooManyArguments([String])

    public var description: String {
        switch self {
        case .unknownOption(let option): "unknown option '\(option)'"
        case .missingValue(let option): "option '\(option)' needs a value"
        case .unexpectedValue(let flag): "'\(flag)' takes no value"
        case .invalidValue(let option, let value, let expected): "'\(value)' is not valid for \(option): expected \(expected)"
        case .missingArgument(let what): "missing \(what)"
        case .tooManyArguments(let extra): "unexpected argument '\(extra.joined(separator: " "))'"
        }
    }
}
