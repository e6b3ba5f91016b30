import QtQuick
import QtTest
import Trit

// A reply's code block: coloured by its language, named ("Python"), copied with feedback ("Copied",
// then back), and, while it streams, coloured line by line: appending to a long block colours the new
// line, not the whole block again.
TestCase {
    id: testCase
    name: "MessageCodeBlock"
    when: windowShown
    visible: true
    width: 600
    height: 400

    ChatTheme { id: lightTheme; mode: "light" }
    Component {
        id: blockComponent
        MessageCodeBlock { width: 600; theme: lightTheme }
    }
    SignalSpy { id: copySpy; signalName: "copyRequested" }

    function test_colouredByLanguage() {
        const b = createTemporaryObject(blockComponent, testCase, { code: "def f():\n    return \"# no\"  # yes", language: "py" })
        const doc = b.highlighter
        compare(findChild(b, "codeText").text, b.code)
        compare(doc.colorAt(0), Qt.color(lightTheme.codeColors.keyword))          // def
        compare(doc.colorAt(4), Qt.color(lightTheme.codeColors.function))         // f(
        const text = b.code
        compare(doc.colorAt(text.indexOf("\"# no\"") + 2), Qt.color(lightTheme.codeColors.string))
        compare(doc.colorAt(text.lastIndexOf("# yes")), Qt.color(lightTheme.codeColors.comment))
        // Unknown languages are shown as they are.
        b.language = "cobol"
        compare(doc.colorAt(0).valid, false)
    }

    function test_languageLabel() {
        const b = createTemporaryObject(blockComponent, testCase, { code: "x", language: "tsx" })
        const label = findChild(b, "codeLanguageLabel")
        compare(label.text, "TypeScript")
        b.language = "mystery"
        compare(label.text, "mystery")
        b.language = ""
        compare(label.text, "code")
    }

    function test_copyGivesFeedback() {
        const b = createTemporaryObject(blockComponent, testCase, { code: "ls -la", language: "sh" })
        copySpy.target = b
        copySpy.clear()
        const button = findChild(b, "copyCodeButton")
        compare(button.text, "Copy")
        mouseClick(button)
        compare(copySpy.count, 1)
        compare(copySpy.signalArguments[0][0], "ls -la")
        compare(button.text, "Copied")
        compare(button.iconName, "object-select")
        tryCompare(button, "text", "Copy", 3000)
    }

    function test_streamingColoursOnlyTheNewLines() {
        let code = ""
        for (let i = 0; i < 400; ++i)
            code += (i > 0 ? "\n" : "") + "int v" + i + " = " + i + "; // line " + i
        const b = createTemporaryObject(blockComponent, testCase, { code: code, language: "cpp" })
        const doc = b.highlighter
        const edit = findChild(b, "codeText")
        compare(edit.text, code)
        const before = doc.highlightedLines
        verify(before >= 400, "the block was coloured once: " + before)
        // A frame appends part of a line, the next one finishes it and starts another.
        b.code = code + "\nint w"
        b.code = code + "\nint w = 1; /* open"
        b.code = code + "\nint w = 1; /* open\nstill */ int z;"
        compare(edit.text, b.code)
        verify(doc.highlightedLines - before <= 6, "only the new lines: " + (doc.highlightedLines - before))
        compare(doc.colorAt(b.code.lastIndexOf("still")), Qt.color(lightTheme.codeColors.comment))
        compare(doc.colorAt(b.code.lastIndexOf("int z")), Qt.color(lightTheme.codeColors.keyword))
        // A streamed tail can also shrink (a line that turned out to be the closing fence).
        b.code = code + "\nint w = 1;"
        compare(edit.text, b.code)
    }
}
