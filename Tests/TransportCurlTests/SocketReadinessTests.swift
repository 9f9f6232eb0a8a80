import CCurl
import Testing

@testable import TransportCurl

/// What an epoll event tells libcurl, as a table: the `CURL_CSELECT_*` bits for each set of
/// events on a socket watched for reading, writing or both, read as libcurl's own
/// `Curl_socket_check` reads `poll`.
///
/// Checked to fail: with only `EPOLLIN` making a socket watched for reading readable (an
/// error or a hang-up ignored), the rows "a hang-up while reading", "an error while reading"
/// and "an error both ways" fail: libcurl would never read the end of the stream or the error.
@Suite struct SocketReadinessTests {
    static let inBit = parley_epoll_in
    static let outBit = parley_epoll_out
    static let errBit = parley_epoll_err
    static let hupBit = parley_epoll_hup

    struct Row: Sendable, CustomTestStringConvertible {
        let name: String
        let events: UInt32
        let watched: UInt32
        let bits: Int32
        var testDescription: String { name }
    }

    static let rows: [Row] = [
        Row(name: "readable", events: inBit, watched: inBit, bits: CURL_CSELECT_IN),
        Row(name: "writable", events: outBit, watched: outBit, bits: CURL_CSELECT_OUT),
        Row(name: "both", events: inBit | outBit, watched: inBit | outBit, bits: CURL_CSELECT_IN | CURL_CSELECT_OUT),
        Row(name: "a hang-up while reading", events: hupBit, watched: inBit, bits: CURL_CSELECT_IN),
        Row(name: "an error while reading", events: errBit, watched: inBit, bits: CURL_CSELECT_IN),
        Row(name: "data and a hang-up", events: inBit | hupBit, watched: inBit, bits: CURL_CSELECT_IN),
        Row(name: "an error while writing", events: errBit, watched: outBit, bits: CURL_CSELECT_ERR),
        Row(
            name: "a hang-up while writing", events: hupBit | outBit, watched: outBit,
            bits: CURL_CSELECT_OUT | CURL_CSELECT_ERR),
        Row(
            name: "an error both ways", events: errBit | hupBit, watched: inBit | outBit,
            bits: CURL_CSELECT_IN | CURL_CSELECT_ERR),
        Row(name: "a stale event for a removed socket", events: inBit, watched: 0, bits: 0),
        Row(name: "readable but watched for writing only", events: inBit, watched: outBit, bits: 0),
    ]

    @Test(arguments: rows)
    func tellsLibcurl(_ row: Row) {
        #expect(SocketReadiness.selectBits(events: row.events, watched: row.watched) == row.bits)
    }
}
