/// Text for a terminal: what a library, a question or a model server wrote can carry escape sequences (clear the
/// screen, set the window title, write the clipboard with OSC 52) or reorder what is shown (bidi overrides). Every
/// human-readable line a command prints goes through `escaped`, by `CommandContext.print` and `printError`; JSON
/// output (`printJSON`) is left as its encoder wrote it.
///
/// **Invariant:** no command prints a C0 or C1 control character (line breaks and tabs aside), DEL, or a bidi
/// embedding, override or isolate to a terminal; each is shown as `\u{XX}` instead.
enum TerminalText {
    /// `text` with every character that could act on a terminal, or reorder a line, written out as `\u{XX}`.
    static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: acts) else { return text }
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if acts(scalar) {
                result.append(contentsOf: "\\u{\(String(scalar.value, radix: 16, uppercase: true))}".unicodeScalars)
            } else {
                result.append(scalar)
            }
        }
        return String(result)
    }

    /// Whether `scalar` is a control (C0 but line feed and tab, DEL, C1) or a bidi control.
    private static func acts(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x0A, 0x09: false
        case 0x00...0x1F, 0x7F...0x9F: true
        // Arabic letter mark, left-to-right and right-to-left marks, embeddings and overrides, isolates.
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }
}
