// libFuzzer target: Content-Length framing and JSON-RPC decoding (Sources/SnippetsServer/JSONRPC).
// Built by Tests/fuzz/fuzz.sh together with those source files; the input is a byte stream from a client.

/// Feeds `data` to a framer in pieces (the first byte picks the piece size, so split headers are covered),
/// decodes every body, and checks that a decoded message survives its own wire form.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFraming(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = [UInt8](UnsafeRawBufferPointer(start: start, count: count))
    let piece = max(1, Int(bytes.first ?? 1) % 64)
    var framer = MessageFramer()
    var offset = 0
    while offset < bytes.count {
        let end = min(bytes.count, offset + piece)
        framer.append(bytes[offset..<end])
        offset = end
        while let event = framer.next() {
            guard case .message(let body) = event else { continue }
            guard case .success(let message) = JSONRPCMessage.decode(body) else { continue }
            let wire = message.json.serialized()
            guard case .frame(let again, _) = MessageFramer.parse(MessageFramer.frame(wire)[...]),
                Array(again) == wire
            else { fatalError("a framed body did not parse back") }
            guard case .success = JSONRPCMessage.decode(wire) else {
                fatalError("the wire form of a decoded message does not decode: \(String(decoding: wire, as: UTF8.self))")
            }
        }
    }
    _ = framer.isAtMessageBoundary
    return 0
}
