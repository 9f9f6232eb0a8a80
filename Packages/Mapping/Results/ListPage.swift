/// One page of a list, with what is needed to ask for the next one.
///
/// ``ResponseDecoder/list(_:from:layout:in:)-(_,DataResponse,_,_)`` reads it from a body
/// laid out as its ``ListLayout`` says:
///
/// ```swift
/// var page = try decoder.list(Day.self, from: response)
/// while page.hasMore, let cursor = page.nextCursor {
///     page = try decoder.list(Day.self, from: await fetch(after: cursor))
/// }
/// ```
public struct ListPage<Item> {
    /// The items of this page, in the server's order.
    public var items: [Item]
    /// The token, cursor or page number to send for the next page; `nil` when the server sent
    /// none (absent, `null` or empty). A numeric cursor is given as its decimal text.
    public var nextCursor: String?
    /// Whether the server has more items: its explicit flag when the body has one, otherwise
    /// whether there is a ``nextCursor``.
    public var hasMore: Bool

    /// Creates a page.
    ///
    /// - Parameters:
    ///   - items: The items.
    ///   - nextCursor: The cursor for the next page, if any.
    ///   - hasMore: Whether there are more items; by default, whether there is a cursor.
    public init(items: [Item], nextCursor: String? = nil, hasMore: Bool? = nil) {
        self.items = items
        self.nextCursor = nextCursor
        self.hasMore = hasMore ?? (nextCursor != nil)
    }
}

extension ListPage: Sendable where Item: Sendable {}
extension ListPage: Equatable where Item: Equatable {}
extension ListPage: Hashable where Item: Hashable {}

/// Where a list body keeps its items, its next-page cursor and its "has more" flag.
///
/// The default reads `{"items": [...], "next_cursor": "…", "has_more": true}`. Set a path to
/// `nil` when the server sends no such field:
///
/// ```swift
/// // {"results": [...], "paging": {"next": 3}}
/// let layout = ListLayout(items: "results", cursor: "paging.next", hasMore: nil)
/// ```
///
/// Paths are relative to the payload root: the whole body, or the envelope's data. The
/// items must be there; the cursor and the flag are optional, and a path that cannot exist
/// in the body (such as `next_cursor` when the body is a bare array) reads as absent.
public struct ListLayout: Sendable, Hashable {
    /// Where the array of items is; `items` by default. Required in the body.
    public var itemsPath: JSONKeyPath
    /// Where the next-page cursor is; `next_cursor` by default. May be absent or `null`.
    public var cursorPath: JSONKeyPath?
    /// Where the "has more" flag is; `has_more` by default. May be absent or `null`. A
    /// Boolean, a number (non-zero is `true`) or the strings `"true"` and `"false"`.
    public var hasMorePath: JSONKeyPath?

    /// Creates a layout.
    ///
    /// - Parameters:
    ///   - items: Where the array of items is; `items` by default.
    ///   - cursor: Where the next-page cursor is, or `nil` for none; `next_cursor` by default.
    ///   - hasMore: Where the "has more" flag is, or `nil` for none; `has_more` by default.
    public init(items: JSONKeyPath = "items", cursor: JSONKeyPath? = "next_cursor", hasMore: JSONKeyPath? = "has_more")
    {
        self.itemsPath = items
        self.cursorPath = cursor
        self.hasMorePath = hasMore
    }

    /// `items`, `next_cursor`, `has_more`.
    public static let `default` = ListLayout()
}
