/// One page of a list, read as its ``ListLayout`` says.
struct PageReader<Item: Decodable> {
    var layout: ListLayout

    /// Reads the page at `base`: a ``PayloadRead``.
    func read(from decoder: any Decoder, walker: KeyPathWalker, at base: JSONKeyPath) throws -> ListPage<Item> {
        let items = try walker.decode([Item].self, from: decoder, at: base + layout.itemsPath)
        let cursor = try layout.cursorPath.flatMap {
            try optional(LenientText.self, from: decoder, walker: walker, at: base + $0)?.text
        }
        let hasMore = try layout.hasMorePath.flatMap {
            try optional(LenientBool.self, from: decoder, walker: walker, at: base + $0)?.value
        }
        return ListPage(items: items, nextCursor: cursor, hasMore: hasMore)
    }

    /// The value at a path that may not exist in this body at all: absent, `null`, or
    /// unreachable (the default layout's `next_cursor` in a body that is a bare array) is `nil`.
    private func optional<T: Decodable>(
        _ type: T.Type,
        from decoder: any Decoder,
        walker: KeyPathWalker,
        at path: JSONKeyPath
    ) throws -> T? {
        do {
            return try walker.decodeIfPresent(T.self, from: decoder, at: path)
        } catch is KeyPathError {
            return nil
        }
    }
}
