import Feedback
import Testing

@Suite struct TextWidthTests {
    @Test(arguments: [
        ("Toronto", 7),
        ("", 0),
        ("多伦多", 6),
        ("ｆｕｌｌ", 8),
        ("🌧\u{FE0F}", 2),
        ("☔", 2),
        ("👍🏽", 2),
        ("🇨🇦", 2),
        ("e\u{301}", 1),
        ("🌧\u{FE0F} Showers", 10),
        // Keycaps: a digit, `#` or `*`, `U+FE0F` and `U+20E3` are one emoji of two columns.
        ("1\u{FE0F}\u{20E3}", 2),
        ("#\u{FE0F}\u{20E3}", 2),
        ("*\u{FE0F}\u{20E3}", 2),
        ("1\u{FE0F}\u{20E3} Toronto", 10),
        ("1\u{FE0F}\u{20E3}2\u{FE0F}\u{20E3}3\u{FE0F}\u{20E3}", 6),
        // Without `U+FE0F` the keycap is text: the digit's one column, the enclosing mark none.
        ("1\u{20E3}", 1),
        // A digit made an emoji by `U+FE0F` alone, and a letter that `U+FE0F` cannot make one.
        ("1\u{FE0F}", 2),
        ("a\u{FE0F}", 1),
        // VS16 on a symbol that is text by default; VS15 keeps it text.
        ("\u{2764}\u{FE0F}", 2),
        ("\u{2764}", 1),
        ("\u{263A}\u{FE0E}", 1),
        ("\u{A9}\u{FE0F}", 2),
        ("\u{A9}", 1),
        // Flags: a pair of regional indicators, and a tag sequence.
        ("🇯🇵🇨🇳", 4),
        ("\u{1F3F4}\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}", 2),
        // ZWJ sequences, with and without skin tones and VS16.
        ("👩\u{200D}💻", 2),
        ("👨\u{200D}👩\u{200D}👧\u{200D}👦", 2),
        ("🧑🏽\u{200D}🚀", 2),
        ("🏳\u{FE0F}\u{200D}🌈", 2),
        ("\u{2764}\u{FE0F}\u{200D}🔥", 2),
        ("👁\u{FE0F}\u{200D}🗨\u{FE0F}", 2),
        // Skin tones on their own and on a text-default base.
        ("🏽", 2),
        ("\u{261D}🏽", 2),
        // Combining marks on ASCII letters stay one column.
        ("a\u{301}\u{323}", 1),
    ])
    func measuresTheColumnsATerminalGivesText(text: String, columns: Int) {
        #expect(TextWidth.columns(of: text) == columns)
    }

    @Test(arguments: [
        (Character("a"), 1),
        (Character("多"), 2),
        (Character("🇨🇦"), 2),
        (Character("👍🏽"), 2),
        (Character("e\u{301}"), 1),
        (Character("1\u{FE0F}\u{20E3}"), 2),
        (Character("9\u{FE0F}\u{20E3}"), 2),
        (Character("1\u{20E3}"), 1),
        (Character("👩\u{200D}💻"), 2),
        // A control is drawn as one replacement character, so it is measured as one column.
        (Character("\u{7}"), 1),
        (Character("\r\n"), 1),
        (Character("\u{1B}"), 1),
    ])
    func measuresOneGraphemeClusterAtATime(character: Character, columns: Int) {
        #expect(TextWidth.columns(of: character) == columns)
    }

    /// Found by the `console-text` fuzz target: a cluster that starts with a prepended mark
    /// (`U+0600`, which joins the character after it) was measured by that mark alone, as zero
    /// columns. So `"\u{600}\u{7}"` measured one column but its sanitized form, in which the
    /// mark joins the `�`, none, and text padded after such a mark came out a column short.
    @Test(arguments: [("\u{600}1", 1), ("\u{600}多", 2), ("\u{600}\u{FFFD}", 1), ("\u{600}", 0)])
    func measuresAClusterLedByAPrependedMarkAsItsBase(text: String, columns: Int) {
        #expect(TextWidth.columns(of: text) == columns)
    }

    /// Found by the `console-text` fuzz target: a NUL followed by a skin-tone modifier was
    /// measured as three columns (the control one, the modifier on its own two), but drawn as
    /// `�🏽`, one cluster of two, so a box around it was drawn a column short.
    @Test func measuresAControlFollowedByAModifierAsItIsDrawn() {
        let text = "\u{0}\u{1F3FD} done"
        let drawn = TerminalText.escaped(text)
        #expect(drawn == "\u{FFFD}\u{1F3FD} done")
        #expect(TextWidth.columns(of: text) == 7)
        #expect(TextWidth.columns(of: text) == TextWidth.columns(of: drawn))
    }

    @Test func padsTextEndingInAPrependedMarkToTheWidth() {
        #expect(TextWidth.columns(of: TextWidth.pad("\u{600}", toColumns: 5)) == 5)
    }

    @Test func leavesTextThatFitsAsItIs() {
        let text = String(repeating: "a", count: 40)
        #expect(TextWidth.truncate(text, toColumns: 40) == text)
    }

    @Test func cutsLongTextToTheLimitWithAnEllipsis() {
        // Given a line of 50 columns
        let text = String(repeating: "abcde", count: 10)
        // When it is cut to 40
        let cut = TextWidth.truncate(text, toColumns: 40)
        // Then 39 characters and the ellipsis remain
        #expect(cut == String(text.prefix(39)) + "…")
        #expect(TextWidth.columns(of: cut) == 40)
    }

    @Test func leavesOutAWideCharacterThatWouldStraddleTheLimit() {
        // Given 38 narrow columns, then two wide characters: 42 columns
        let text = String(repeating: "a", count: 38) + "多伦"
        // When it is cut to 40, `多` would need columns 39 and 40, but 40 is the ellipsis's
        let cut = TextWidth.truncate(text, toColumns: 40)
        // Then it is left out whole and the result is one column narrower
        #expect(cut == String(repeating: "a", count: 38) + "…")
        #expect(TextWidth.columns(of: cut) == 39)
    }

    @Test func cutsToNothingForNoColumns() {
        #expect(TextWidth.truncate("Toronto", toColumns: 0).isEmpty)
        #expect(TextWidth.truncate("Toronto", toColumns: -3).isEmpty)
    }

    @Test(arguments: [
        ("多", 5, "多   "),
        ("Paris", 8, "Paris   "),
        ("Toronto", 7, "Toronto"),
        ("Toronto, Canada", 8, "Toronto…"),
    ])
    func padsWithSpacesToExactlyTheWidth(text: String, width: Int, padded: String) {
        let result = TextWidth.pad(text, toColumns: width)
        #expect(result == padded)
        #expect(TextWidth.columns(of: result) == width)
    }
}
