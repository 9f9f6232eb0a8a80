/// Reading the text of a ``JSONTape`` scalar: strings with their escapes, whole numbers.
enum JSONText {
    /// The value of a hexadecimal digit, or `nil`.
    @inline(__always)
    static func hexValue(_ byte: UInt8) -> UInt16? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt16(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt16(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt16(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }

    /// The string a string's text stands for, or `nil` when its bytes are not UTF-8 or an
    /// escape names half of a surrogate pair alone (cases left to Foundation).
    ///
    /// - Parameters:
    ///   - text: The bytes between the quotes, escapes already checked by the parser.
    ///   - isComplex: Whether the text has escapes or bytes beyond ASCII.
    static func string(_ text: ArraySlice<UInt8>, isComplex: Bool) -> String? {
        guard isComplex else { return String(decoding: text, as: UTF8.self) }
        guard text.contains(UInt8(ascii: "\\")) else { return String(validating: text, as: UTF8.self) }
        var scalars: [UInt8] = []
        scalars.reserveCapacity(text.count)
        var index = text.startIndex
        while index < text.endIndex {
            let byte = text[index]
            guard byte == UInt8(ascii: "\\") else {
                scalars.append(byte)
                index += 1
                continue
            }
            let escape = text[index + 1]
            index += 2
            switch escape {
            case UInt8(ascii: "b"): scalars.append(0x08)
            case UInt8(ascii: "f"): scalars.append(0x0C)
            case UInt8(ascii: "n"): scalars.append(0x0A)
            case UInt8(ascii: "r"): scalars.append(0x0D)
            case UInt8(ascii: "t"): scalars.append(0x09)
            case UInt8(ascii: "u"):
                let unit = codeUnit(text, at: index)
                index += 4
                let scalar: Unicode.Scalar?
                if UTF16.isLeadSurrogate(unit) {
                    guard index + 6 <= text.endIndex, text[index] == UInt8(ascii: "\\"),
                        text[index + 1] == UInt8(ascii: "u")
                    else { return nil }
                    let trail = codeUnit(text, at: index + 2)
                    guard UTF16.isTrailSurrogate(trail) else { return nil }
                    index += 6
                    scalar = Unicode.Scalar(0x10000 + (UInt32(unit - 0xD800) << 10) + UInt32(trail - 0xDC00))
                } else {
                    scalar = Unicode.Scalar(unit)
                }
                guard let scalar else { return nil }
                UTF8.encode(scalar) { scalars.append($0) }
            default:
                // `"`, `\` and `/` stand for themselves.
                scalars.append(escape)
            }
        }
        return String(validating: scalars, as: UTF8.self)
    }

    /// The UTF-16 code unit of the four hexadecimal digits at `index`.
    private static func codeUnit(_ text: ArraySlice<UInt8>, at index: Int) -> UInt16 {
        var unit: UInt16 = 0
        for offset in 0..<4 {
            unit = unit << 4 | (hexValue(text[index + offset]) ?? 0)
        }
        return unit
    }

    /// A whole number written without fraction or exponent, or `nil` when it does not fit `T`.
    ///
    /// - Parameter text: An optional `-` and digits, as the parser checked.
    static func integer<T: FixedWidthInteger>(_ text: ArraySlice<UInt8>, as type: T.Type) -> T? {
        var index = text.startIndex
        let isNegative = text[index] == UInt8(ascii: "-")
        if isNegative { index += 1 }
        var magnitude: UInt64 = 0
        while index < text.endIndex {
            let (shifted, overflowShift) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, overflowAdd) = shifted.addingReportingOverflow(UInt64(text[index] - UInt8(ascii: "0")))
            guard !overflowShift, !overflowAdd else { return nil }
            magnitude = sum
            index += 1
        }
        if isNegative {
            guard T.isSigned else { return nil }
            if magnitude == UInt64(Int64.max) + 1 { return T(exactly: Int64.min) }
            guard let positive = Int64(exactly: magnitude) else { return nil }
            return T(exactly: -positive)
        }
        return T(exactly: magnitude)
    }

    /// Whether the bytes equal `key`'s UTF-8.
    @inline(__always)
    static func equals(_ text: ArraySlice<UInt8>, _ key: String) -> Bool {
        var key = key
        return key.withUTF8 { utf8 in
            utf8.count == text.count && text.withUnsafeBufferPointer { bytes in utf8.elementsEqual(bytes) }
        }
    }
}
