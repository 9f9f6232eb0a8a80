import Feedback
import Testing

@Suite struct StyledTextTests {
    typealias Run = StyledText.Run

    @Test func joinsItsRunsIntoPlainText() {
        let text = StyledText([Run("✓ ", style: .success), Run("Toronto", style: .bold), Run("", style: .dim)])
        #expect(text.plainText == "✓ Toronto")
        #expect(text.description == "✓ Toronto")
        #expect(text.runs.count == 2, "empty runs are dropped")
    }

    @Test func mergesAppendedTextOfTheSameStyle() {
        var text = StyledText("Loading", style: .accent)
        text.append("…", style: .accent)
        text.append(" 3 s", style: .dim)
        text.append("")
        #expect(text.runs == [Run("Loading…", style: .accent), Run(" 3 s", style: .dim)])
    }

    @Test func concatenatesWithPlus() {
        let text: StyledText = StyledText("Warning: ", style: .warning) + "Unknown city"
        #expect(text.runs == [Run("Warning: ", style: .warning), Run("Unknown city")])
    }

    @Test func countsColumnsOfWideCharacters() {
        let text = StyledText([Run("多伦多", style: .bold), Run(" 🌧\u{FE0F}")])
        #expect(text.columns == 9)
    }

    @Test func keepsTextThatFits() {
        let text = StyledText([Run("Paris", style: .bold), Run(" 12 °C")])
        #expect(text.truncated(toColumns: 40) == text)
    }

    @Test func endsACutInTheStyleOfTheRunItCut() {
        // Given a bold run of 8 columns and a dim one of 12
        let text = StyledText([Run("Toronto ", style: .bold), Run("Showers, 22 °C", style: .dim)])
        // When it is cut to 12 columns
        let cut = text.truncated(toColumns: 12)
        // Then the dim run keeps 3 columns and the ellipsis is dim too
        #expect(cut.runs == [Run("Toronto ", style: .bold), Run("Sho…", style: .dim)])
        #expect(cut.columns == 12)
    }

    @Test func leavesOutAWideCharacterThatWouldStraddleTheCut() {
        let text = StyledText([Run("Toronto ", style: .bold), Run("多伦多", style: .plain)])
        let cut = text.truncated(toColumns: 10)
        #expect(cut.plainText == "Toronto …")
        #expect(cut.columns == 9)
    }

    @Test func cutsToNothingForNoColumns() {
        #expect(StyledText("Toronto").truncated(toColumns: 0).runs.isEmpty)
    }

    @Test(arguments: [5, 9, 20])
    func padsOrCutsToExactlyTheWidth(width: Int) {
        let text = StyledText([Run("多伦多", style: .bold), Run(" 🌧\u{FE0F}")])
        let padded = text.padded(toColumns: width)
        #expect(padded.columns == width)
        #expect(padded.runs.first?.style == .bold)
    }

    @Test func padsWithPlainSpaces() {
        let padded = StyledText("ok", style: .success).padded(toColumns: 5)
        #expect(padded.runs == [Run("ok", style: .success), Run("   ")])
    }

    @Test func isPlainTextWhenWrittenAsALiteral() {
        let text: StyledText = "Done"
        #expect(text.runs == [Run("Done", style: .plain)])
    }

    @Test func cutsToTheWidthWhenARunEndsExactlyAtIt() {
        let text = StyledText([StyledText.Run("abc"), StyledText.Run("de", style: .dim)])
        let cut = text.truncated(toColumns: 3)
        #expect(cut.columns == 3)
        #expect(cut.plainText == "ab…")
        #expect(text.padded(toColumns: 4).columns == 4)
    }
}
