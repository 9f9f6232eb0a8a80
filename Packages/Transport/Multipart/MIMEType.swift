/// The media types ``MultipartFormData`` assumes for file parts from their extensions.
///
/// A short table of the types forms send most, not a registry: an extension it does not
/// know (or no extension) is `application/octet-stream`, which every server accepts as
/// "some bytes". Pass a content type explicitly for anything more specific.
enum MIMEType {
    /// The type for anything the table does not know.
    static let fallback = "application/octet-stream"

    /// The media type for a file name or path, from its extension (case-insensitive).
    ///
    /// - Parameter path: A file name or path, such as `"report.PDF"` or `"/tmp/a.tar.gz"`.
    /// - Returns: The type, ``fallback`` when the extension is missing or unknown.
    static func forPath(_ path: String) -> String {
        let name = path.split(separator: "/", omittingEmptySubsequences: false).last ?? Substring(path)
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return fallback }
        let pathExtension = name[name.index(after: dot)...].lowercased()
        return byExtension[pathExtension] ?? fallback
    }

    /// Lowercased extension → media type.
    static let byExtension: [String: String] = [
        // Text.
        "txt": "text/plain",
        "text": "text/plain",
        "md": "text/markdown",
        "markdown": "text/markdown",
        "html": "text/html",
        "htm": "text/html",
        "css": "text/css",
        "csv": "text/csv",
        "js": "text/javascript",
        "mjs": "text/javascript",
        "xml": "application/xml",
        "json": "application/json",
        // Documents.
        "pdf": "application/pdf",
        "doc": "application/msword",
        "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        "xls": "application/vnd.ms-excel",
        "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        "ppt": "application/vnd.ms-powerpoint",
        "pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
        // Archives.
        "zip": "application/zip",
        "gz": "application/gzip",
        "tgz": "application/gzip",
        "tar": "application/x-tar",
        // Images.
        "png": "image/png",
        "jpg": "image/jpeg",
        "jpeg": "image/jpeg",
        "gif": "image/gif",
        "webp": "image/webp",
        "svg": "image/svg+xml",
        // Audio and video.
        "mp3": "audio/mpeg",
        "wav": "audio/wav",
        "mp4": "video/mp4",
        "mov": "video/quicktime",
        // Opaque bytes.
        "bin": "application/octet-stream",
    ]
}
