import Downloads
import Foundation

/// `DownloadSidecar`, the `.partial.json` record beside a partial download. Bit 0 of the first
/// byte picks the direction: the rest of the input is read as a file, or gives the fields of
/// a record to write (URL, validator, total length).
///
/// Checks: a record read from any bytes is of the current version with a total length that
/// is not negative, and what it writes reads back the same; a record written from any fields
/// reads back equal.
let downloadSidecarTarget = FuzzTarget(
    name: "download-sidecar",
    maximumLength: 1_024,
    summary: "read record is current and sane; write -> read gives the same record"
) { buffer in
    var input = FuzzInput(buffer)
    if input.byte() & 1 == 0 {
        guard let record = DownloadSidecar.decode(Data(input.bytes)) else { return }
        check(record.version == DownloadSidecar.currentVersion, "version \(record.version)")
        check(record.totalLength.map { $0 >= 0 } ?? true, "total length \(String(describing: record.totalLength))")
        roundTrip(record)
        return
    }
    let kind = input.byte()
    let total = input.uint64()
    let url = String(decoding: input.field(until: 0), as: UTF8.self)
    let value = String(decoding: input.field(until: 0), as: UTF8.self)
    let validator: DownloadValidator? =
        switch kind % 3 {
        case 0: .entityTag(value)
        case 1: .lastModified(value)
        default: nil
        }
    let totalLength = kind & 0x80 == 0 ? Int64(total >> 1) : nil
    roundTrip(DownloadSidecar(url: url, validator: validator, totalLength: totalLength))
}

/// Checks that `record` reads back as itself once written.
private func roundTrip(_ record: DownloadSidecar) {
    let written: Data
    do {
        written = try record.encoded()
    } catch {
        return check(false, "\(record) could not be written: \(error)")
    }
    check(
        DownloadSidecar.decode(written) == record,
        "\(record) wrote \(String(decoding: written, as: UTF8.self)), which reads back as "
            + "\(String(describing: DownloadSidecar.decode(written)))")
}
