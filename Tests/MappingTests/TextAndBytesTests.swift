import Foundation
import HTTPTypes
import Mapping
import Testing

@Suite struct TextAndBytesTests {
    let decoder = ResponseDecoder()

    @Test func textIsUTF8WhenTheContentTypeNamesNoCharset() throws {
        let text = try decoder.string(from: response("Café ☀︎", contentType: "text/plain"))
        #expect(text == "Café ☀︎")
    }

    @Test(arguments: [
        ("text/plain; charset=ISO-8859-1", String.Encoding.isoLatin1),
        ("text/plain; charset=\"windows-1252\"", .windowsCP1252),
        ("text/plain;charset=utf-16le", .utf16LittleEndian),
        ("text/plain; Charset=UTF-8", .utf8),
    ])
    func textIsReadInTheCharsetOfTheContentType(contentType: String, encoding: String.Encoding) throws {
        let bytes = try #require("Crème brûlée".data(using: encoding))
        let text = try decoder.string(from: response(bytes, contentType: contentType))
        #expect(text == "Crème brûlée")
    }

    @Test func rawBytesTakeAnExplicitCharset() throws {
        let bytes = try #require("Zürich".data(using: .isoLatin1))
        #expect(try decoder.string(from: bytes, charset: "ISO-8859-1") == "Zürich")
        #expect(try decoder.string(from: Data()) == "")
    }

    @Test func anUnknownCharsetAndInvalidBytesAreReported() throws {
        let unknown = try #require(throws: MappingError.self) {
            try decoder.string(from: response("x", contentType: "text/plain; charset=klingon"))
        }
        #expect(unknown.category == .unsupportedCharset)
        #expect(unknown.message.contains("\"klingon\""))

        let invalid = try #require(throws: MappingError.self) {
            try decoder.string(
                from: response(Data([0x66, 0xFF, 0xFE, 0x6F]), contentType: "text/plain; charset=utf-8"))
        }
        #expect(invalid.category == .undecodableText)
    }

    @Test func bytesAreTheBodyOnceTheStatusIsAccepted() throws {
        let body = Data([0, 1, 2, 3])
        #expect(try decoder.bytes(from: response(body, contentType: "application/octet-stream")) == body)
        let error = try #require(throws: MappingError.self) {
            try decoder.bytes(from: response(body, status: .internalServerError))
        }
        #expect(error.category == .unacceptableStatus)
        #expect(error.excerpt == "<4 bytes that are not text>")
    }
}
