import HTTPTypes
import Transport
import TransportCurl

/// `ResponseHeadParser`, fed line by line as libcurl's header callback feeds it: each line
/// ends after a `\n`, and the first byte sets the size limit (64 to 8,224 bytes).
///
/// Checks: the bytes taken before `.tooLarge` never exceed the limit; a complete head has a
/// final status (200 to 599), ignores the lines after it, and builds an `HTTPResponse` with
/// that status whose fields are valid (a name that is not a token fails its line); a recorded
/// `Content-Length` is never negative.
let responseHeadTarget = FuzzTarget(
    name: "response-head",
    maximumLength: 8_192,
    summary: "limit honoured; complete head has a final status, valid fields, Content-Length >= 0"
) { buffer in
    var input = FuzzInput(buffer)
    let limit = 64 + Int(input.byte()) * 32
    let bytes = Array(input.bytes)
    var parser = ResponseHeadParser()
    var consumed = 0
    var start = 0
    while start < bytes.count {
        let end = (bytes[start...].firstIndex(of: UInt8(ascii: "\n")).map { $0 + 1 }) ?? bytes.count
        let line = bytes[start..<end]
        start = end
        let wasComplete = parser.isComplete
        let event = line.withUnsafeBytes { parser.consume($0, limit: limit) }
        if wasComplete {
            check(event == .continue, "a line after a complete head gave \(event)")
            continue
        }
        consumed += line.count
        switch event {
        case .tooLarge:
            check(consumed > limit, "tooLarge after \(consumed) bytes, limit \(limit)")
            return
        case .invalid:
            return
        case .continue:
            check(consumed <= limit, "\(consumed) bytes taken past the limit \(limit)")
            check(!parser.isComplete, "complete without saying so")
        case .interimComplete:
            check(consumed <= limit, "\(consumed) bytes taken past the limit \(limit)")
            check(!parser.isComplete, "an interim head ended the head")
            check((100..<200).contains(parser.status), "an interim head with status \(parser.status)")
            check(parser.makeHead().status.code == parser.status, "the interim head lost its status")
        case .headComplete:
            check(consumed <= limit, "\(consumed) bytes taken past the limit \(limit)")
            check(parser.isComplete, "headComplete but not complete")
            check((200..<600).contains(parser.status), "a complete head with status \(parser.status)")
            if let length = parser.contentLength { check(length >= 0, "Content-Length \(length)") }
            let head = parser.makeHead()
            check(head.status.code == parser.status, "status \(head.status.code) != \(parser.status)")
            for field in head.headerFields {
                check(HTTPField.isValidValue(field.value), "invalid value of \(field.name)")
            }
        }
    }
}
