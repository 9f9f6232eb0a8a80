public import Transport

/// A handle for a download to a file: its value is the summary of the finished file.
///
/// Downloads sent through the business layer keep their partial file when the handle is
/// cancelled, so that a resuming download to the same destination continues from it.
public typealias DownloadRequest = RequestHandle<FileDownload.Summary>
